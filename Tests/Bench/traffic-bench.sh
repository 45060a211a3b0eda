#!/bin/sh
# Traffic bench (make bench-traffic): ingest throughput over HTTP with wrk against a release `gatehouse serve` on a
# temporary database, then the checklist's latency at 10 thousand, 1 million and 10 million verdicts.
# It also prints the server's CPU time per batch (utime + stime from /proc/PID/stat around the wrk run: on a shared
# machine that figure moves much less than verdicts/s) and where a batch's time goes in-process (TrafficBench phases).
# Knobs: BENCH_PORT (18193), BENCH_SECONDS (10), BENCH_CONNECTIONS (8), BENCH_THREADS (2), BENCH_CHECKLIST (1; 0 skips
# the checklist part).
set -eu
BIN=.build/release
PORT=${BENCH_PORT:-18193}
DIR=$(mktemp -d /tmp/traffic-bench.XXXXXX)
GATEHOUSE_MASTER_KEY=$(head -c 32 /dev/urandom | base64)
export GATEHOUSE_MASTER_KEY
"$BIN/TrafficBench" setup "$DIR" "$PWD"
"$BIN/gatehouse" serve --port "$PORT" --database "$DIR/db.sqlite" --log-level warning >"$DIR/serve.log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null || true; rm -rf "$DIR"' EXIT INT TERM
for _ in $(seq 1 50); do curl -fs -o /dev/null "http://127.0.0.1:$PORT/healthz" && break; sleep 0.1; done
# The server's user + system CPU time so far, in clock ticks (fields 14 and 15 of /proc/PID/stat; the command
# name in field 2 has no spaces here).
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$PID/stat"; }
echo "ingest over HTTP: batches of 1,000 verdicts, ${BENCH_CONNECTIONS:-8} connections, ${BENCH_SECONDS:-10} s"
CPU_BEFORE=$(cpu_ticks)
wrk -t"${BENCH_THREADS:-2}" -c"${BENCH_CONNECTIONS:-8}" -d"${BENCH_SECONDS:-10}s" --latency -s "$DIR/post.lua" \
  "http://127.0.0.1:$PORT/api/ingest/v1/verdicts" | tee "$DIR/wrk.txt"
CPU_AFTER=$(cpu_ticks)
awk -v ticks=$((CPU_AFTER - CPU_BEFORE)) -v hz="$(getconf CLK_TCK)" \
  '/ requests in / { if ($1 > 0) printf "server CPU: %.1f ms per batch of 1,000 verdicts (%.2f s over %d batches)\n", ticks * 1000 / hz / $1, ticks / hz, $1 }' "$DIR/wrk.txt"
awk '/^Requests\/sec:/ { printf "ingest: %.0f verdicts/s (%.1f batches/s; goal >= 50,000 verdicts/s)\n", $2 * 1000, $2 }' "$DIR/wrk.txt"
"$BIN/TrafficBench" phases "$PWD"
[ "${BENCH_CHECKLIST:-1}" = 0 ] || "$BIN/TrafficBench" checklist "$PWD"

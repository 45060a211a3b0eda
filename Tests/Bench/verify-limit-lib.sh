# Shared pieces of the benches measured against the machine's ECDSA P-256 verify limit (attest-bench.sh, pi-bench.sh,
# assess-bench.sh), sourced (not run) after `set -eu` with NAME (the temporary folder's prefix) and PORT set: the
# release binaries' folder BIN, a temporary folder DIR (removed on exit, the server stopped), a fresh
# GATEHOUSE_MASTER_KEY for the bench's database, CORES and SECONDS_ (BENCH_SECONDS, 10), and these functions.
BIN=.build/release
SECONDS_=${BENCH_SECONDS:-10}
CORES=$(nproc)
DIR=$(mktemp -d "/tmp/$NAME.XXXXXX")
GATEHOUSE_MASTER_KEY=$(head -c 32 /dev/urandom | base64)
export GATEHOUSE_MASTER_KEY
PID=""
trap 'if [ -n "$PID" ]; then kill $PID 2>/dev/null || true; fi; rm -rf "$DIR"' EXIT INT TERM

ms() { echo "$1" | awk '/us$/ {sub("us",""); print $1/1000; next} /ms$/ {sub("ms",""); print $1; next} /s$/ {sub("s",""); print $1*1000}'; }

# verify_limit: `openssl speed -multi CORES ecdsap256` now, on this machine; leaves verify/s of all cores in LIMIT.
verify_limit() {
  echo "openssl speed -multi $CORES ecdsap256 (verify/s, same machine, same run):"
  openssl speed -multi "$CORES" -seconds 5 ecdsap256 2>/dev/null | tee "$DIR/openssl.txt" | grep -i "nistp256" | tail -1
  LIMIT=$(awk '/256 bits ecdsa/ {v=$NF} END {print v}' "$DIR/openssl.txt")
  echo "ECDSA P-256 verify limit: $LIMIT verify/s"
}

# serve [serve options…]: a release `gatehouse serve` on PORT over DIR/db.sqlite (or the PostgreSQL database
# BENCH_DATABASE names) without device rate limits (its log in DIR/serve.log), its pid in PID, once it answers /healthz.
serve() {
  "$BIN/gatehouse" serve --port "$PORT" --database "${BENCH_DATABASE:-$DIR/db.sqlite}" --log-level warning \
    --device-rate-per-address 0 --device-rate-per-key 0 "$@" >"$DIR/serve.log" 2>&1 &
  PID=$!
  for _ in $(seq 1 100); do curl -fs -o /dev/null "http://127.0.0.1:$PORT/healthz" && return 0; sleep 0.1; done
  echo "gatehouse serve did not start" >&2; cat "$DIR/serve.log" >&2; exit 1
}

# stop: SIGTERM to the server, waited for.
stop() { kill -TERM "$PID"; wait "$PID" || true; PID=""; }

# CPU per request: the server's and wrk's (this shell's finished children) CPU time in clock ticks, and one verify's
# time on one core from the same openssl run. On a machine where wrk shares the server's cores, a ratio goal g is a
# CPU budget: g x LIMIT requests/s leave CORES / (g x LIMIT) of CPU per request for the server and wrk together.
HZ=$(getconf CLK_TCK)
ticks() { awk '{print $14 + $15}' "/proc/$PID/stat"; }
child_ticks() { awk '{print $16 + $17}' "/proc/$$/stat"; }
# The CPU of every process of the postgres user (the bench's PostgreSQL, on BENCH_DATABASE), in ticks; 0 without one.
pg_ticks() {
  [ -n "${BENCH_DATABASE:-}" ] || { echo 0; return; }
  for p in $(pgrep -u postgres); do awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null; done | awk '{s += $1} END {print s + 0}'
}

# wrk_measured OUT LUA PATH: wrk (2 threads, 64 connections, SECONDS_) with the script LUA against PATH, its report in
# OUT; the CPU it and the server used in CPU_SERVER and CPU_WRK (ticks).
wrk_measured() {
  s0=$(ticks); w0=$(child_ticks); p0=$(pg_ticks)
  wrk -t2 -c64 -d"${SECONDS_}s" --latency -s "$2" "http://127.0.0.1:$PORT$3" > "$1"
  s1=$(ticks); w1=$(child_ticks); p1=$(pg_ticks)
  CPU_SERVER=$((s1 - s0)); CPU_WRK=$((w1 - w0)); CPU_PG=$((p1 - p0))
}

# cpu_line OUT GOAL: after wrk_measured, prints the CPU per request of the server and of wrk next to one verify and the
# budget the ratio goal GOAL leaves.
cpu_line() {
  awk -v n="$(awk '/requests in/ {print $1}' "$1")" -v s="$CPU_SERVER" -v w="$CPU_WRK" -v p="${CPU_PG:-0}" -v hz="$HZ" -v lim="$LIMIT" \
    -v c="$CORES" -v g="$2" 'BEGIN {
    if (n == 0) exit; sv = s * 1e6 / hz / n; wv = w * 1e6 / hz / n; pv = p * 1e6 / hz / n; v = 1e6 * c / lim
    printf "  CPU per request: server %.0f us + wrk %.0f us = %.0f us; one ECDSA verify %.0f us; %.1fx goal -> budget %.0f us\n", sv, wv, sv + wv, v, g, v / g
    if (p > 0) printf "  PostgreSQL CPU per request: %.0f us (not in the budget above)\n", pv }'
}

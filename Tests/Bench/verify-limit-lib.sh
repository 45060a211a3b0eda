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
  MULTI_CORES=$CORES
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
# OUT; the CPU it and the server used in CPU_SERVER and CPU_WRK (ticks). With BENCH_PERF naming a folder, the server
# is also sampled by `perf record` (999 Hz) during the run, into BENCH_PERF/<OUT's name>.data (perf's own cost is in
# that run's figures: profile and measure in separate runs); Tests/Bench/perf_categories.py reads them.
wrk_measured() {
  perf_pid=""
  if [ -n "${BENCH_PERF:-}" ]; then
    perf record -F 999 -p "$PID" -o "$BENCH_PERF/$(basename "$1" | sed 's/\.[a-z]*$//').data" -- sleep "$SECONDS_" >/dev/null 2>&1 &
    perf_pid=$!
  fi
  s0=$(ticks); w0=$(child_ticks); p0=$(pg_ticks)
  wrk -t2 -c64 -d"${SECONDS_}s" --latency -s "$2" "http://127.0.0.1:$PORT$3" > "$1"
  s1=$(ticks); w1=$(child_ticks); p1=$(pg_ticks)
  if [ -n "$perf_pid" ]; then wait "$perf_pid" || true; fi
  CPU_SERVER=$((s1 - s0)); CPU_WRK=$((w1 - w0)); CPU_PG=$((p1 - p0))
}

# per_request OUT: the server's CPU per request of the last wrk_measured run whose report is OUT, in us.
per_request() {
  awk -v s="$CPU_SERVER" -v hz="$HZ" -v n="$(awk '/requests in/ {print $1}' "$1")" 'BEGIN { if (n > 0) printf "%.1f", s * 1e6 / hz / n }'
}

# bare_exchange NAME BODIES PATH: the bare exchange of a row whose requests are the lines of BODIES POSTed to PATH:
# POST /bench/echo (the server runs with --bench-echo) with a body of the lines' average size, answered with as many
# bytes as PATH answers the last line (sent once more by curl, with BENCH_SECRET as bearer when set), under the same
# wrk load. Prints it and leaves its server CPU per request in BARE_US.
bare_exchange() {
  size=$(awk '{ n += length($0) } END { printf "%d", n / NR }' "$2")
  answer=$(tail -n 1 "$2" | curl -s -o /dev/null -w '%{size_download}' -X POST -H 'Content-Type: application/json' \
    ${BENCH_SECRET:+-H "Authorization: Bearer $BENCH_SECRET"} --data-binary @- "http://127.0.0.1:$PORT$3")
  printf 'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = string.rep("x", %s)\n' "$size" > "$DIR/bare-$1.lua"
  wrk_measured "$DIR/bare-$1.wrk" "$DIR/bare-$1.lua" "/bench/echo?bytes=$answer" 2>/dev/null
  BARE_US=$(per_request "$DIR/bare-$1.wrk")
  echo "bare exchange of $1: $size-byte body, $answer-byte answer: $BARE_US us"
}

# ratio_line ROW SERVER CRYPTO BARE: issue 48's line for ROW (server CPU per request, the crypto it must do on one
# core and its bare exchange, in us; ratio = server / (crypto + bare)), also appended to the file BENCH_RATIOS names
# when set (make bench gathers them into its table).
ratio_line() {
  line=$(awk -v r="$1" -v s="$2" -v c="$3" -v b="$4" 'BEGIN {
    printf "bench %s: server %.0f us, crypto %.0f us, bare %.0f us, ratio %.2f", r, s, c, b, s / (c + b) }')
  echo "$line"
  if [ -n "${BENCH_RATIOS:-}" ]; then echo "$line" >> "$BENCH_RATIOS"; fi
}

# crypto_us OPENSSL_OUTPUT SIGNS VERIFIES: the time of SIGNS P-256 signatures and VERIFIES verifies on one core, in
# us, from `openssl speed … ecdsap256`'s output (run with -multi CORES or on one core: MULTI_CORES says which).
crypto_us() {
  awk -v f="$1" -v s="$2" -v v="$3" -v c="${MULTI_CORES:-1}" 'BEGIN {
    while ((getline l < f) > 0) if (l ~ /256 bits ecdsa/) { n = split(l, a, " "); sign = 1e6 * c / a[n - 1]; verify = 1e6 * c / a[n] }
    printf "%.1f", s * sign + v * verify }'
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

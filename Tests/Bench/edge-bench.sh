#!/bin/sh
# Edge check bench (make bench-edge): the check nginx's auth_request asks (GET /api/v4/edge/nginx) under wrk (2 threads,
# 64 connections) against a release `gatehouse serve`, with the server's CPU time per call (/proc/<pid>/stat
# utime + stime around each run) next to one ECDSA P-256 verify on one core (`openssl speed -seconds 3 ecdsap256`)
# and a bare GET /healthz, measured in the same run. The environment enforces GET /api/bound/** (require bound) and
# GET /api/plain/**; every case is judged `verified` (tallied from Gatehouse-Outcome):
#   (a) a bound receipt seen before, with a proof per call (proofs cycle through BENCH_PROOFS distinct ones: the server
#       verifies every proof it is sent, none is remembered);
#   (b) an unbound receipt seen before;
#   (c) a new bound receipt each call, with a proof (receipts minted beforehand through POST /api/v4/assess, sized from
#       (a)'s rate; a receipt sent a second time is counted `repeated`).
# Then the latency nginx adds: Debian's nginx with the nginx block of docs/enforcement.md in front of an upstream it
# serves itself, against the same nginx without the check; the peak rate through nginx with the check, then both at
# half that rate (Debian's wrk has no -R: each connection pauses between calls, Tests/Bench/edge-paced.lua), p99 compared.
# After each case, its bare exchange: the same requests (the same headers) sent to GET /bench/echo (--bench-echo), for
# issue 48's lines at the end (`bench edge-…: server <n> us, crypto <n> us, bare <n> us, ratio <r>`).
# Prepared with Python's standard library and openssl (Tests/Bench/edge_bench.py), no Swift product.
# Goals: (a) <= 1.5x one verify, (b) <= 1.5x /healthz, (c) <= 1.5x two verifies (server CPU per call); nginx's p99 with
# the check within 2 ms of nginx alone.
# Knobs: BENCH_PORT (18197), BENCH_SECONDS (10; each run but (c)), BENCH_NEW_SECONDS (5; (c), <= 60 so its proofs stay
# fresh), BENCH_PROOFS (1000), BENCH_LATENCY_SECONDS (10), GATEHOUSE_BIN (a gatehouse binary other than the release
# build, e.g. .build/debug/gatehouse to try the script: its figures mean nothing).
set -eu
NAME=edge-bench
PORT=${BENCH_PORT:-18197}
PROOFS=${BENCH_PROOFS:-1000}
NEW_SECONDS=${BENCH_NEW_SECONDS:-5}
LATENCY_SECONDS=${BENCH_LATENCY_SECONDS:-10}
. Tests/Bench/verify-limit-lib.sh
if [ -n "${GATEHOUSE_BIN:-}" ]; then
  [ "$(basename "$GATEHOUSE_BIN")" = gatehouse ] && [ -x "$GATEHOUSE_BIN" ] \
    || { echo "GATEHOUSE_BIN must name an executable called gatehouse" >&2; exit 2; }
  BIN=$(dirname "$GATEHOUSE_BIN")
  echo "gatehouse: $GATEHOUSE_BIN (not the release build: the figures below say nothing of its speed)"
fi
[ "$NEW_SECONDS" -le 60 ] || { echo "BENCH_NEW_SECONDS must be at most 60 (proofs are good for 2 minutes)" >&2; exit 2; }
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
NGINX_PID=""
trap 'if [ -n "$PID" ]; then kill $PID 2>/dev/null || true; fi; if [ -n "$NGINX_PID" ]; then kill -QUIT $NGINX_PID 2>/dev/null || true; fi; rm -rf "$DIR"' EXIT INT TERM
chmod 711 "$DIR"  # nginx's workers (nobody, when run by root) reach their temporary folders through it

echo "openssl speed -seconds 3 ecdsap256 (one core, same machine, same run):"
openssl speed -seconds 3 ecdsap256 2>/dev/null > "$DIR/openssl.txt"
grep -i "nistp256" "$DIR/openssl.txt" | tail -1
VERIFY_US=$(awk '/256 bits ecdsa/ {v = $NF} END {printf "%.1f", 1e6 / v}' "$DIR/openssl.txt")
echo "one ECDSA P-256 verify: $VERIFY_US us"

"$BIN/gatehouse" token create --name edge-bench --scope write --database "${BENCH_DATABASE:-$DIR/db.sqlite}" > "$DIR/token.txt" 2>"$DIR/token.err" \
  || { cat "$DIR/token.err" >&2; exit 1; }
serve --bench-echo
BASE=http://127.0.0.1:$PORT
python3 Tests/Bench/edge_bench.py setup "$BASE" "$DIR"
BENCH_SECRET=$(cat "$DIR/secret.txt")
export BENCH_SECRET
: > "$DIR/none.lua"

# case NAME LUA PATH: wrk_measured over PATH; leaves "rps p99 cpu-us-per-call tallies" in DIR/NAME.fig and prints it.
case_run() {
  wrk_measured "$DIR/$1.wrk" "$2" "$3" 2>"$DIR/$1.err" || true
  grep -q '^Requests/sec' "$DIR/$1.wrk" || { echo "wrk failed ($1):" >&2; cat "$DIR/$1.err" >&2; exit 1; }
  rps=$(awk '/^Requests\/sec:/ {print $2}' "$DIR/$1.wrk")
  p99=$(ms "$(awk '$1 == "99%" {print $2}' "$DIR/$1.wrk")")
  calls=$(awk '/requests in/ {print $1}' "$DIR/$1.wrk")
  tallies=$(awk '/^verified:/ {print}' "$DIR/$1.wrk")
  cpu=$(awk -v s="$CPU_SERVER" -v hz="$HZ" -v n="$calls" 'BEGIN {printf "%.1f", (n > 0 ? s * 1e6 / hz / n : 0)}')
  echo "$rps $p99 $cpu $calls" > "$DIR/$1.fig"
  printf "%-8s %9.0f req/s  p99 %s ms  server CPU %s us per call  (%s calls%s)\n" "$1" "$rps" "$p99" "$cpu" "$calls" "${tallies:+; $tallies}"
  if [ -s "$DIR/$1.err" ]; then echo "  first answer not counted verified: $(head -c 300 "$DIR/$1.err")"; fi
}
fig() { awk -v k="$2" '{print $k}' "$DIR/$1.fig"; }
# bare NAME: the bare exchange of the case just run (issue 48): the same requests (edge.lua, the same headers) sent
# to GET /bench/echo, answered with as many bytes as the check answers; its server CPU per call in DIR/bare-NAME.us.
bare() {
  answer=$(curl -s -o /dev/null -w '%{size_download}' -H "Authorization: Bearer $BENCH_SECRET" -H "X-Original-Method: GET" \
    -H "X-Original-URI: $EDGE_URI" -H "antibot-token: $(head -n 1 "$EDGE_TOKENS")" \
    ${EDGE_PROOFS:+-H "antibot-pop: $(head -n 1 "$EDGE_PROOFS")"} "$BASE/api/v4/edge/nginx")
  wrk_measured "$DIR/bare-$1.wrk" "$PWD/Tests/Bench/edge.lua" "/bench/echo?bytes=$answer" 2>/dev/null || true
  per_request "$DIR/bare-$1.wrk" > "$DIR/bare-$1.us"
  echo "  bare exchange of ($1): the same requests to GET /bench/echo, $answer-byte answers: $(cat "$DIR/bare-$1.us") us per call"
}

echo "== the check's server CPU per call (wrk -t2 -c64, ${SECONDS_} s each; (c) ${NEW_SECONDS} s)"
case_run healthz "$DIR/none.lua" /healthz
export EDGE_TOKENS="$DIR/unbound.txt" EDGE_URI=/api/plain/orders/1
case_run b "$PWD/Tests/Bench/edge.lua" /api/v4/edge/nginx
bare b

start=$(date +%s)
python3 Tests/Bench/edge_bench.py proofs "$DIR" "$PROOFS" /api/bound/orders/1
echo "  made $PROOFS proofs in $(( $(date +%s) - start )) s (good for 2 minutes)"
export EDGE_TOKENS="$DIR/bound.txt" EDGE_PROOFS="$DIR/proofs.txt" EDGE_URI=/api/bound/orders/1
case_run a "$PWD/Tests/Bench/edge.lua" /api/v4/edge/nginx
bare a

# (c): enough receipts for NEW_SECONDS at (a)'s rate and a quarter more ((c) costs a verify more than (a)), at most
# 80 000 (the check remembers 100 000 verified receipts, in 16 shards).
NEW=$(awk -v r="$(fig a 1)" -v s="$NEW_SECONDS" 'BEGIN {n = int(r * s * 1.25) + 1; if (n < 1000) n = 1000; if (n > 80000) n = 80000; print n}')
start=$(date +%s)
python3 Tests/Bench/edge_bench.py receipts "$BASE" "$DIR" "$NEW"
echo "  minted $NEW bound receipts through POST /api/v4/assess in $(( $(date +%s) - start )) s"
python3 Tests/Bench/edge_bench.py proofs "$DIR" "$PROOFS" /api/bound/orders/1
export EDGE_TOKENS="$DIR/new.txt" EDGE_DISTINCT=1
RUN_SECONDS=$SECONDS_; SECONDS_=$NEW_SECONDS
case_run c "$PWD/Tests/Bench/edge.lua" /api/v4/edge/nginx
bare c
SECONDS_=$RUN_SECONDS
unset EDGE_PROOFS EDGE_DISTINCT
if awk '/^verified:/ {exit !($6 + 0 > 0)}' "$DIR/c.wrk"; then
  echo "  (c) ran past its receipts: its repeated calls reused receipts seen before (cheaper); lower BENCH_NEW_SECONDS"
fi

echo "== the latency nginx adds (docs/enforcement.md's nginx block; the unbound receipt on GET /api/plain/orders/1)"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
UPSTREAM=$(free_port); PLAIN=$(free_port); CHECKED=$(free_port)
python3 Tests/Bench/edge_bench.py nginx "$DIR" "$PORT" "$UPSTREAM" "$PLAIN" "$CHECKED"
"$NGINX" -p "$DIR" -c "$DIR/nginx.conf" -e "$DIR/nginx-error.log" -g "daemon off;" 2>"$DIR/nginx.stderr" &
NGINX_PID=$!
for port in "$PLAIN" "$CHECKED"; do
  for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
done
export EDGE_TOKENS="$DIR/unbound.txt"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "antibot-token: $(cat "$DIR/unbound.txt")" "http://127.0.0.1:$CHECKED/api/plain/orders/1")
[ "$code" = 200 ] || { echo "nginx with the check answered $code, not 200:" >&2; cat "$DIR/nginx-error.log" >&2; exit 1; }
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$CHECKED/api/plain/orders/1")
[ "$code" = 401 ] || { echo "nginx with the check answered $code without a receipt, not 401" >&2; exit 1; }

# paced NAME PORT CONNECTIONS DELAY: wrk through nginx at a set pace; leaves "rps p50 p99 tallies" in DIR/NAME.fig.
paced() {
  EDGE_DELAY_MS=$4 wrk -t2 -c"$3" -d"${LATENCY_SECONDS}s" --latency -s "$PWD/Tests/Bench/edge-paced.lua" \
    "http://127.0.0.1:$2/api/plain/orders/1" > "$DIR/$1.wrk" 2>"$DIR/$1.err"
  rps=$(awk '/^Requests\/sec:/ {print $2}' "$DIR/$1.wrk")
  p50=$(ms "$(awk '$1 == "50%" {print $2}' "$DIR/$1.wrk")")
  p99=$(ms "$(awk '$1 == "99%" {print $2}' "$DIR/$1.wrk")")
  echo "$rps $p50 $p99" > "$DIR/$1.fig"
  printf "%-14s %8.0f req/s  p50 %s ms  p99 %s ms  (%s)\n" "$1" "$rps" "$p50" "$p99" "$(awk '/^passed:/ {print}' "$DIR/$1.wrk")"
  if [ -s "$DIR/$1.err" ]; then echo "  first answer not 200: $(head -c 300 "$DIR/$1.err")"; fi
}
wrk -t2 -c64 -d"${SECONDS_}s" -s "$PWD/Tests/Bench/edge-paced.lua" "http://127.0.0.1:$CHECKED/api/plain/orders/1" \
  > "$DIR/peak.wrk" 2>"$DIR/peak.err" || true
PEAK=$(awk '/^Requests\/sec:/ {printf "%.0f", $2}' "$DIR/peak.wrk")
[ -n "$PEAK" ] && [ "$PEAK" -ge 4 ] || { echo "wrk through nginx with the check failed:" >&2; cat "$DIR/peak.err" >&2; exit 1; }
echo "peak through nginx with the check (wrk -t2 -c64, no pause): $PEAK req/s ($(awk '/^passed:/ {print}' "$DIR/peak.wrk"))"
# Half the peak: connections so that each pauses about 20 ms (wrk's pause is whole milliseconds), at least 2.
RATE=$(( PEAK / 2 ))
CONNS=$(awk -v r="$RATE" 'BEGIN {c = int(r * 0.02 + 0.5); if (c < 2) c = 2; print c}')
PAUSE=$(awk -v r="$RATE" -v c="$CONNS" 'BEGIN {d = int(c * 1000 / r + 0.5); if (d < 1) d = 1; print d}')
echo "half the peak: $RATE req/s, set as $CONNS connections each pausing $PAUSE ms after each answer (wrk -t2 -c$CONNS, ${LATENCY_SECONDS} s)"
paced nginx-alone "$PLAIN" "$CONNS" "$PAUSE"
paced nginx+check "$CHECKED" "$CONNS" "$PAUSE"
RSS=$(awk '/VmHWM/ {print $2}' "/proc/$PID/status")
kill -QUIT "$NGINX_PID"; wait "$NGINX_PID" || true; NGINX_PID=""
stop

echo
echo "== summary (server CPU per call from /proc/<pid>/stat; one verify $VERIFY_US us on one core; /healthz $(fig healthz 3) us)"
printf "%-44s %9s %8s %10s  %-22s %7s %s\n" case "req/s" "p99 ms" "CPU us" "against" ratio goal
row() {  # row LABEL CASE REFERENCE-US REFERENCE-LABEL
  awk -v l="$1" -v r="$(fig "$2" 1)" -v p="$(fig "$2" 2)" -v c="$(fig "$2" 3)" -v ref="$3" -v rl="$4" 'BEGIN {
    printf "%-44s %9.0f %8s %10.1f  %-22s %6.2fx <= 1.5x\n", l, r, p, c, rl, c / ref }'
}
row "(a) bound receipt seen before + proof" a "$VERIFY_US" "1 verify ($VERIFY_US us)"
row "(b) unbound receipt seen before" b "$(fig healthz 3)" "/healthz ($(fig healthz 3) us)"
row "(c) new bound receipt + proof each call" c "$(awk -v v="$VERIFY_US" 'BEGIN {print 2 * v}')" "2 verifies ($(awk -v v="$VERIFY_US" 'BEGIN {printf "%.1f", 2 * v}') us)"
awk -v r="$(fig healthz 1)" -v p="$(fig healthz 2)" -v c="$(fig healthz 3)" 'BEGIN {
  printf "%-44s %9.0f %8s %10.1f  (reference)\n", "GET /healthz", r, p, c }'
awk -v a="$(fig nginx-alone 3)" -v b="$(fig nginx+check 3)" -v ra="$(fig nginx-alone 1)" -v rb="$(fig nginx+check 1)" \
    -v pa="$(fig nginx-alone 2)" -v pb="$(fig nginx+check 2)" -v peak="$PEAK" 'BEGIN {
  printf "%-44s %9.0f %8s   p50 %s ms\n", "nginx alone at half the check'"'"'s peak", ra, a, pa
  printf "%-44s %9.0f %8s   p50 %s ms\n", "nginx + check at half the check'"'"'s peak", rb, b, pb
  printf "p99 nginx adds with the check: %.2f ms (goal <= 2 ms; peak with the check %s req/s)\n", b - a, peak }'
echo "server peak RSS: $((RSS / 1024)) MB"
ratio_line edge-bound-seen "$(fig a 3)" "$VERIFY_US" "$(cat "$DIR/bare-a.us")"
ratio_line edge-unbound-seen "$(fig b 3)" 0 "$(cat "$DIR/bare-b.us")"
ratio_line edge-new-bound "$(fig c 3)" "$(awk -v v="$VERIFY_US" 'BEGIN {print 2 * v}')" "$(cat "$DIR/bare-c.us")"
echo "(a shared machine: figures move from run to run; compare ratios measured in one run)"

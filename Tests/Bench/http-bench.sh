#!/usr/bin/env bash
# HTTP benchmark: `gatehouse serve` (release, GET /healthz) against nginx serving a 14-byte static file,
# both measured in the same run with `wrk -t2 -c64 -d10s --latency`; then the server's peak RSS with 1 000 idle
# keep-alive connections. Prints figures and ratios; asserts nothing (goals: ≥ 1.5× nginx req/s, p99 ≤ 5 ms,
# ≤ 40 MB with 1 000 idle connections).
set -euo pipefail
cd "$(dirname "$0")/../.."

SWIFT=${SWIFT:-swift}
DURATION=${DURATION:-10s}
OUR_PORT=${OUR_PORT:-18080}
NGINX_PORT=${NGINX_PORT:-18081}
IDLE=${IDLE:-1000}
ROUNDS=${ROUNDS:-2}
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)

missing=""
for tool in wrk nginx curl python3; do command -v $tool >/dev/null 2>&1 || [ -x /usr/sbin/$tool ] || missing="$missing $tool"; done
if [ -n "$missing" ]; then
  echo "installing:$missing"
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

$SWIFT build -c release --product gatehouse 2>&1 | grep -E "warning|error|Build complete" || true
BIN=$($SWIFT build -c release --show-bin-path)/gatehouse

WORK=$(mktemp -d)
chmod 755 "$WORK"  # nginx workers run as another user when started by root
SERVER_PID=""; NGINX_PID=""; IDLE_PID=""
cleanup() {
  [ -n "$IDLE_PID" ] && kill "$IDLE_PID" 2>/dev/null || true
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
  [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

wait_http() {  # wait_http URL: poll until it answers (10 s max)
  for _ in $(seq 1 200); do curl -fsS -o /dev/null "$1" 2>/dev/null && return 0; sleep 0.05; done
  echo "no answer from $1" >&2; exit 1
}

start_server() {
  # The real thing, as deployed: every middleware, metrics and the JSON access log (to /dev/null here).
  "$BIN" serve --port "$OUR_PORT" --database "$WORK/bench.sqlite" --resources "$PWD" "$@" 2>/dev/null >/dev/null &
  SERVER_PID=$!
  wait_http "http://127.0.0.1:$OUR_PORT/healthz"
}

stop_server() {  # graceful: SIGTERM, expect exit status 0
  kill -TERM "$SERVER_PID"
  local status=0
  wait "$SERVER_PID" || status=$?
  SERVER_PID=""
  [ "$status" = 0 ] || { echo "server exited with $status after SIGTERM" >&2; exit 1; }
}

hwm_kb() { awk '/VmHWM/ {print $2}' "/proc/$1/status"; }
rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }

# nginx: 2 workers, no access log, a 14-byte file, its own config, pid and temp paths.
mkdir -p "$WORK/html" "$WORK/tmp"
printf 'hello, world!\n' > "$WORK/html/healthz"
cat > "$WORK/nginx.conf" <<CONF
worker_processes 2;
pid $WORK/nginx.pid;
error_log $WORK/error.log;
daemon off;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $WORK/tmp/body; proxy_temp_path $WORK/tmp/proxy; fastcgi_temp_path $WORK/tmp/fastcgi;
  uwsgi_temp_path $WORK/tmp/uwsgi; scgi_temp_path $WORK/tmp/scgi;
  server { listen 127.0.0.1:$NGINX_PORT; root $WORK/html; default_type text/plain; }
}
CONF
"$NGINX" -c "$WORK/nginx.conf" -p "$WORK" 2>/dev/null &
NGINX_PID=$!
wait_http "http://127.0.0.1:$NGINX_PORT/healthz"

run_wrk() {  # run_wrk URL → "req/s p99"
  local out rps p99
  out=$(wrk -t2 -c64 -d"$DURATION" --latency "$1")
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  p99=$(echo "$out" | awk '$1 == "99%" {print $2}')
  echo "$rps $p99"
}

to_ms() {  # wrk latency (e.g. 812.00us, 1.23ms, 2.00s) → milliseconds
  echo "$1" | awk '/us$/ {sub("us",""); print $1/1000; next} /ms$/ {sub("ms",""); print $1; next} /s$/ {sub("s",""); print $1*1000}'
}

echo "== peak RSS with $IDLE idle keep-alive connections"
start_server
before=$(rss_kb "$SERVER_PID")
python3 Tests/Bench/idle_connections.py "$OUR_PORT" "$IDLE" 60 > "$WORK/idle.out" &
IDLE_PID=$!
for _ in $(seq 1 600); do grep -q ready "$WORK/idle.out" 2>/dev/null && break; sleep 0.05; done
grep -q ready "$WORK/idle.out" || { echo "idle clients did not connect" >&2; exit 1; }
idle_hwm=$(hwm_kb "$SERVER_PID")
echo "server RSS at start: $((before / 1024)) MB; VmHWM with $IDLE idle connections: $(awk "BEGIN {printf \"%.1f\", $idle_hwm/1024}") MB (goal ≤ 40 MB)"
kill "$IDLE_PID" 2>/dev/null || true; wait "$IDLE_PID" 2>/dev/null || true; IDLE_PID=""
stop_server

echo "== wrk -t2 -c64 -d$DURATION --latency (ours: gatehouse serve GET /healthz; nginx: 14-byte static file)"
# Alternating order (ours, nginx, nginx, ours, …) so that load drifting on a shared machine hits both alike.
start_server
ours_runs=""; nginx_runs=""
for round in $(seq 1 "$ROUNDS"); do
  if [ $((round % 2)) = 1 ]; then order="ours nginx"; else order="nginx ours"; fi
  for who in $order; do
    if [ "$who" = ours ]; then port=$OUR_PORT; else port=$NGINX_PORT; fi
    read -r rps p99 < <(run_wrk "http://127.0.0.1:$port/healthz")
    ms=$(to_ms "$p99")
    printf "  round %d %-6s %10s req/s   p99 %7s ms\n" "$round" "$who" "$rps" "$ms"
    if [ "$who" = ours ]; then ours_runs="$ours_runs $rps:$ms"; else nginx_runs="$nginx_runs $rps:$ms"; fi
  done
done
load_hwm=$(hwm_kb "$SERVER_PID")
stop_server

summary() {  # "rps:p99 …" → "mean_rps max_p99"
  echo "$1" | tr ' ' '\n' | awk -F: 'NF == 2 {n++; s += $1; if ($2 > m) m = $2} END {printf "%.0f %.2f\n", s/n, m}'
}
read -r ours_rps ours_ms < <(summary "$ours_runs")
read -r nginx_rps nginx_ms < <(summary "$nginx_runs")
printf "%-6s mean %10s req/s   worst p99 %7s ms\n" ours "$ours_rps" "$ours_ms" nginx "$nginx_rps" "$nginx_ms"
awk "BEGIN {printf \"ratio ours/nginx: %.2fx (goal >= 1.5x); our p99 %s ms (goal <= 5 ms); our VmHWM under load %.1f MB\n\", $ours_rps/$nginx_rps, $ours_ms, $load_hwm/1024}"
echo "graceful shutdown on SIGTERM: exit 0"

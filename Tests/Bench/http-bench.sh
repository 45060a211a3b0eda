#!/usr/bin/env bash
# HTTP benchmark: `gatehouse serve` (release, GET /healthz) against nginx serving a 14-byte static file,
# both measured in the same run with `wrk -t2 -c64 -d10s --latency`; then the server's peak RSS with 1 000 idle
# keep-alive connections. Prints figures and ratios; asserts nothing (goals: ≥ 1.5× nginx req/s, p99 ≤ 5 ms,
# ≤ 40 MB with 1 000 idle connections).
set -euo pipefail
cd "$(dirname "$0")/../.."

IDLE=${IDLE:-1000}
ROUNDS=${ROUNDS:-2}
. Tests/Bench/lib.sh
start_nginx

echo "== peak RSS with $IDLE idle keep-alive connections"
start_server
before=$(rss_kb "$SERVER_PID")
python3 Tests/Bench/idle_connections.py "$OUR_PORT" "$IDLE" 60 > "$WORK/idle.out" &
IDLE_PID=$!
EXTRA_PIDS="$IDLE_PID"
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
    read -r rps ms < <(run_wrk "http://127.0.0.1:$port/healthz")
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

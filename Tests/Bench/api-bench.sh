#!/usr/bin/env bash
# make bench-api: the management API under load, against nginx serving a static file in the same run.
#
# Starts `gatehouse serve` (release, every middleware and the JSON access log, to a file) on a temporary database,
# creates a write token with the CLI and an environment with an Android app and an Apple app id, starts nginx
# (2 workers, no access log) serving a 14-byte file (Tests/Bench/lib.sh), and runs `wrk -t2 -c64 -d10s --latency`:
#   nginx and GET /api/management/v1/environments/{id} (authenticated) in ROUNDS alternating rounds (default 3):
#   the machine is shared, so each round compares the two side by side and the ratio is the median round's;
#   then PATCH of that environment (api-patch.lua: a new name and a flipped attackMode each time).
# Prints requests/s, p99, the ratio to nginx and the server's CPU per request; goals: GET >= 0.5x nginx with
# p99 <= 10 ms, PATCH >= 2000/s. Figures are printed, never asserted.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUR_PORT=${OUR_PORT:-18095}
NGINX_PORT=${NGINX_PORT:-18096}
ROUNDS=${ROUNDS:-3}
. Tests/Bench/lib.sh
BASE="http://127.0.0.1:$OUR_PORT"

TOKEN=$(cli token create --name bench --scope write)
AUTH="Authorization: Bearer $TOKEN"
"$BIN" serve --port "$OUR_PORT" --database "$DATABASE" --resources "$PWD" >/dev/null 2>"$WORK/access.log" &
SERVER_PID=$!
wait_http "$BASE/healthz"
start_nginx
ENV_ID=$(curl -fsS -X POST "$BASE/api/management/v1/environments" -H "$AUTH" -H "Content-Type: application/json" \
  -d '{"name": "Bench", "kind": "production"}' | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
curl -fsS -o /dev/null -X PATCH "$BASE/api/management/v1/environments/$ENV_ID" -H "$AUTH" -H "Content-Type: application/json" \
  -d "{\"androidApps\": [{\"packageName\": \"com.example.app\", \"certificateDigests\": [\"$(printf 'AB%.0s' $(seq 32))\"]}], \"appleAppIds\": [\"ABCDE12345.com.example.yourapp\"]}"

cpu_seconds() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.3f", ($14 + $15) / hz }' "/proc/$1/stat"; }

# One wrk run: "requests/s p99-ms non-2xx server-CPU-µs-per-request" (CPU of our server, 0 for nginx).
measure() {
  local before after out requests
  before=$(cpu_seconds "$SERVER_PID")
  out=$(wrk -t2 -c64 -d"$DURATION" --latency "$@")
  after=$(cpu_seconds "$SERVER_PID")
  requests=$(echo "$out" | awk '/requests in/ {print $1}')
  echo "$(echo "$out" | awk '/Requests\/sec/ {print $2}') $(to_ms "$(echo "$out" | awk '$1 == "99%" {print $2}')")" \
       "$(echo "$out" | awk '/Non-2xx/ {print $5}' | grep . || echo 0)" \
       "$(awk -v a="$after" -v b="$before" -v n="$requests" 'BEGIN { printf "%.1f", (a - b) / n * 1e6 }')"
}

echo "wrk -t2 -c64 -d$DURATION --latency, $(nproc) cores, $ROUNDS alternating rounds"
ROWS=""
for round in $(seq 1 "$ROUNDS"); do
  read -r n_rps n_p99 _ _ < <(measure "http://127.0.0.1:$NGINX_PORT/healthz")
  read -r g_rps g_p99 g_bad g_cpu < <(measure -H "$AUTH" "$BASE/api/management/v1/environments/$ENV_ID")
  printf "  round %d: nginx %9.0f req/s p99 %5.2f ms | GET environment %9.0f req/s p99 %5.2f ms, %s µs CPU/req, non-2xx %s\n" \
    "$round" "$n_rps" "$n_p99" "$g_rps" "$g_p99" "$g_cpu" "$g_bad"
  ROWS="$ROWS $n_rps:$g_rps:$g_p99"
done
read -r p_rps p_p99 p_bad p_cpu < <(GATEHOUSE_TOKEN=$TOKEN measure -s Tests/Bench/api-patch.lua "$BASE/api/management/v1/environments/$ENV_ID")
python3 - "$p_rps" "$p_p99" "$p_bad" "$p_cpu" $ROWS <<'PY'
import statistics, sys
patch, patch_p99, patch_bad, patch_cpu = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4]
rounds = [tuple(map(float, r.split(":"))) for r in sys.argv[5:]]
ratios = sorted(g / n for n, g, _ in rounds)
ratio = statistics.median(ratios)
worst_p99 = max(p for _, _, p in rounds)
print(f"GET environment: ratio to nginx per round {', '.join(f'{r:.2f}' for r in ratios)}; median {ratio:.2f}x, worst p99 {worst_p99:.2f} ms"
      f" (goal >= 0.50x, p99 <= 10 ms: {'met' if ratio >= 0.5 and worst_p99 <= 10 else 'MISSED'})")
print(f"PATCH environment: {patch:.0f} req/s, p99 {patch_p99:.2f} ms, {patch_cpu} µs CPU/req, non-2xx {patch_bad}"
      f" (goal >= 2000/s: {'met' if patch >= 2000 else 'MISSED'})")
PY
echo "revision after the PATCH run: $(curl -fsSI -H "$AUTH" "$BASE/api/management/v1/environments/$ENV_ID" | sed -n 's/^ETag: "env_[a-z0-9]*\.\([0-9]*\)".*/\1/Ip' | tr -d '\r'); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
stop_server

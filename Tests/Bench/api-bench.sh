#!/usr/bin/env bash
# make bench-api: the management API under load, against nginx serving a static file in the same run.
#
#   Tests/Bench/api-bench.sh GATEHOUSE_RELEASE_BINARY
#
# Starts `gatehouse serve` (release build, its access log to a file) on a temporary database, creates a write token
# with the CLI and an environment with an Android app and an Apple app id, starts nginx (2 workers, no access log)
# serving a 14-byte file, and runs `wrk -t2 -c64 -d10s --latency` against
#   (a) nginx, the static file;
#   (b) GET  /api/management/v1/environments/{id}, authenticated;
#   (c) PATCH of that environment (api-patch.lua: a new name and a flipped attackMode each time).
# Prints requests/s, p99 and the ratio to nginx; goals: GET >= 0.5x nginx with p99 <= 10 ms, PATCH >= 2000/s.
# Figures are printed, never asserted. BENCH_SECONDS changes the duration of each run.
set -euo pipefail

BIN=${1:?usage: api-bench.sh GATEHOUSE_BINARY}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SECONDS_PER_RUN=${BENCH_SECONDS:-10}
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)

missing=""
command -v wrk >/dev/null 2>&1 || missing="$missing wrk"
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing="$missing nginx"
command -v curl >/dev/null 2>&1 || missing="$missing curl"
if [ -n "$missing" ]; then
  echo "installing:$missing"
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

WORK=$(mktemp -d /tmp/gatehouse-bench-XXXXXX)
chmod 755 "$WORK"   # nginx's workers (nobody) read the static file below it
SERVER_PID=""
NGINX_PID=""
cleanup() {
  [ -n "$SERVER_PID" ] && kill -TERM "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null || true
  [ -n "$NGINX_PID" ] && kill -QUIT "$NGINX_PID" 2>/dev/null && wait "$NGINX_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Gatehouse.
DB="$WORK/gatehouse.sqlite"
TOKEN=$("$BIN" token create --name bench --scope write --database "$DB" --resources "$ROOT")
"$BIN" serve --host 127.0.0.1 --port 0 --database "$DB" --resources "$ROOT" > "$WORK/serve.out" 2> "$WORK/serve.log" &
SERVER_PID=$!
for _ in $(seq 1 300); do
  grep -q "listening on" "$WORK/serve.out" 2>/dev/null && break
  kill -0 "$SERVER_PID" 2>/dev/null || { echo "gatehouse serve did not start:"; cat "$WORK/serve.log"; exit 1; }
  sleep 0.1
done
BASE=$(sed -n 's/^gatehouse listening on //p' "$WORK/serve.out" | head -1)
[ -n "$BASE" ] || { echo "gatehouse serve printed no address"; exit 1; }
AUTH="Authorization: Bearer $TOKEN"
ENV_ID=$(curl -sf -X POST "$BASE/api/management/v1/environments" -H "$AUTH" -H "Content-Type: application/json" \
  -d '{"name": "Bench", "kind": "production"}' | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
curl -sf -o /dev/null -X PATCH "$BASE/api/management/v1/environments/$ENV_ID" -H "$AUTH" -H "Content-Type: application/json" \
  -d "{\"androidApps\": [{\"packageName\": \"com.example.app\", \"certificateDigests\": [\"$(printf 'AB%.0s' $(seq 32))\"]}], \"appleAppIds\": [\"ABCDE12345.com.example.yourapp\"]}"

# nginx, 2 workers, no access log, a 14-byte file.
NGINX_PORT=$(free_port)
mkdir -p "$WORK/www" "$WORK/nginx"
printf 'Hello, world!\n' > "$WORK/www/hello.txt"
chmod 755 "$WORK/www" && chmod 644 "$WORK/www/hello.txt"
cat > "$WORK/nginx/nginx.conf" <<EOF
worker_processes 2;
daemon off;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $WORK/nginx/body;
  proxy_temp_path $WORK/nginx/proxy;
  fastcgi_temp_path $WORK/nginx/fastcgi;
  uwsgi_temp_path $WORK/nginx/uwsgi;
  scgi_temp_path $WORK/nginx/scgi;
  server {
    listen 127.0.0.1:$NGINX_PORT;
    root $WORK/www;
  }
}
EOF
"$NGINX" -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" 2> "$WORK/nginx/start.log" &
NGINX_PID=$!
for _ in $(seq 1 100); do
  curl -sf -o /dev/null "http://127.0.0.1:$NGINX_PORT/hello.txt" && break
  kill -0 "$NGINX_PID" 2>/dev/null || { echo "nginx did not start:"; cat "$WORK/nginx/start.log"; exit 1; }
  sleep 0.1
done

# CPU seconds (user + system) a process has used so far, from /proc.
cpu_seconds() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$1/stat"; }

# One wrk run: prints "requests/s p99-ms non-2xx socket-errors cpu-µs-per-request" (the CPU of process $CPU_PID,
# when set: a figure that stays comparable when other work shares the machine).
run() {
  local name=$1; shift
  local before=0 after=0
  [ -n "${CPU_PID:-}" ] && before=$(cpu_seconds "$CPU_PID")
  wrk -t2 -c64 -d"${SECONDS_PER_RUN}s" --latency "$@" > "$WORK/$name.wrk"
  [ -n "${CPU_PID:-}" ] && after=$(cpu_seconds "$CPU_PID")
  python3 - "$WORK/$name.wrk" "$before" "$after" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
cpu = float(sys.argv[3]) - float(sys.argv[2])
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
value, unit = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s)\s*$", text, re.M).groups()
p99 = float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]
bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
errors = re.search(r"Socket errors: (.*)", text)
requests = int(re.search(r"(\d+) requests in", text).group(1))
print(f"{rps:.0f} {p99:.2f} {int(bad.group(1)) if bad else 0} {errors.group(1).replace(' ', '') if errors else '-'} {cpu / requests * 1e6 if cpu else 0:.0f}")
EOF
}

echo "wrk -t2 -c64 -d${SECONDS_PER_RUN}s --latency, $(nproc) cores; gatehouse $BASE, nginx 127.0.0.1:$NGINX_PORT"
read -r NGINX_RPS NGINX_P99 NGINX_BAD NGINX_ERR _ < <(run nginx "http://127.0.0.1:$NGINX_PORT/hello.txt")
read -r GET_RPS GET_P99 GET_BAD GET_ERR GET_CPU < <(CPU_PID=$SERVER_PID run get -H "$AUTH" "$BASE/api/management/v1/environments/$ENV_ID")
read -r PATCH_RPS PATCH_P99 PATCH_BAD PATCH_ERR PATCH_CPU < <(CPU_PID=$SERVER_PID GATEHOUSE_TOKEN=$TOKEN run patch -s "$HERE/api-patch.lua" "$BASE/api/management/v1/environments/$ENV_ID")

REVISION=$(curl -sfI "$BASE/api/management/v1/environments/$ENV_ID" -H "$AUTH" | sed -n 's/^ETag: "env_[a-z0-9]*\.\([0-9]*\)".*/\1/Ip' | tr -d '\r')
python3 - "$NGINX_RPS" "$NGINX_P99" "$GET_RPS" "$GET_P99" "$GET_CPU" "$PATCH_RPS" "$PATCH_P99" "$PATCH_CPU" <<'EOF'
import sys
nginx, nginx_p99, get, get_p99, get_cpu, patch, patch_p99, patch_cpu = map(float, sys.argv[1:])
rows = [("nginx static (14 B)", nginx, nginx_p99, "", ""),
        ("GET environment", get, get_p99, f"{get_cpu:.0f}", "goal >= 0.50x nginx, p99 <= 10 ms: " + ("met" if get >= 0.5 * nginx and get_p99 <= 10 else "MISSED")),
        ("PATCH environment", patch, patch_p99, f"{patch_cpu:.0f}", "goal >= 2000/s: " + ("met" if patch >= 2000 else "MISSED"))]
print(f"{'':22} {'requests/s':>11} {'p99 ms':>8} {'x nginx':>8} {'server CPU us/req':>18}")
for name, rps, p99, cpu, goal in rows:
    print(f"{name:22} {rps:11.0f} {p99:8.2f} {rps / nginx:8.2f} {cpu:>18}  {goal}")
EOF
echo "load average while measuring: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine lowers requests/s; CPU per request moves less)"
echo "non-2xx: nginx $NGINX_BAD, GET $GET_BAD, PATCH $PATCH_BAD; socket errors: nginx $NGINX_ERR, GET $GET_ERR, PATCH $PATCH_ERR; revision after the PATCH run: ${REVISION:-?}"
if [ "$GET_BAD" != 0 ] || [ "$PATCH_BAD" != 0 ]; then
  echo "some requests failed; the server's log says:"; grep -v '"status":200' "$WORK/serve.log" | head -5
fi

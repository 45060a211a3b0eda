# Shared pieces of the benchmark scripts (sourced, not run): tools, a temporary work folder, `gatehouse serve`
# (release) on a temporary database, nginx serving a 14-byte file as the reference, and wrk runs parsed into figures.
# Scripts set OUR_PORT / NGINX_PORT / DURATION before sourcing if they want other values.
SWIFT=${SWIFT:-swift}
DURATION=${DURATION:-10s}
OUR_PORT=${OUR_PORT:-18080}
NGINX_PORT=${NGINX_PORT:-18081}
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
DATABASE="$WORK/bench.sqlite"
SERVER_PID=""; NGINX_PID=""; EXTRA_PIDS=""
cleanup() {
  for pid in $EXTRA_PIDS $SERVER_PID $NGINX_PID; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

wait_http() {  # wait_http URL: poll until it answers (10 s max)
  for _ in $(seq 1 200); do curl -fsS -o /dev/null "$1" 2>/dev/null && return 0; sleep 0.05; done
  echo "no answer from $1" >&2; exit 1
}

start_server() {  # start_server [serve options…]
  # The real thing, as deployed: every middleware, metrics and the JSON access log (to /dev/null here).
  "$BIN" serve --port "$OUR_PORT" --database "$DATABASE" --resources "$PWD" "$@" 2>/dev/null >/dev/null &
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

cli() { "$BIN" "$@" --database "$DATABASE" 2>/dev/null; }

hwm_kb() { awk '/VmHWM/ {print $2}' "/proc/$1/status"; }
rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }

start_nginx() {  # nginx: 2 workers, no access log, a 14-byte file at /healthz, its own config, pid and temp paths.
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
}

run_wrk() {  # run_wrk URL [wrk options…] → "req/s p99-in-ms"
  local url=$1 out rps p99
  shift
  out=$(wrk -t2 -c64 -d"$DURATION" --latency "$@" "$url")
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  p99=$(echo "$out" | awk '$1 == "99%" {print $2}')
  echo "$rps $(to_ms "$p99")"
}

to_ms() {  # wrk latency (e.g. 812.00us, 1.23ms, 2.00s) → milliseconds
  echo "$1" | awk '/us$/ {sub("us",""); print $1/1000; next} /ms$/ {sub("ms",""); print $1; next} /s$/ {sub("s",""); print $1*1000}'
}

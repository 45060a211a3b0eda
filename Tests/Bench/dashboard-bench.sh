#!/usr/bin/env bash
# Dashboard benchmark: the authenticated /environments page with 50 environments under wrk (with the session cookie),
# nginx's static file as the reference in the same run; the cost of a login (argon2id verify, over HTTP); and
# GET /healthz p99 while 20 clients log in at once. Prints figures; asserts nothing (goals: ≥ 5 000 pages/s;
# healthz p99 ≤ 10 ms during the logins).
set -euo pipefail
cd "$(dirname "$0")/../.."
OUR_PORT=${OUR_PORT:-18090}
NGINX_PORT=${NGINX_PORT:-18091}
. Tests/Bench/lib.sh
BASE="http://127.0.0.1:$OUR_PORT"
PASSWORD="correct horse battery staple"

start_nginx
start_server
echo "$PASSWORD" | cli admin create --email bench@example.com >/dev/null
for i in $(seq 0 19); do echo "$PASSWORD" | cli admin create --email "person$i@example.com" --role viewer >/dev/null; done
TOKEN=$(cli token create --name bench --scope write)
for i in $(seq 1 50); do
  id=$(curl -fsS -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" \
        -d "{\"name\": \"Environment $i\", \"kind\": \"production\"}" "$BASE/api/management/v1/environments" \
        | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
  curl -fsS -o /dev/null -X PATCH -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" \
    -d "{\"androidApps\": [{\"packageName\": \"com.example.app$i\", \"certificateDigests\": [\"$(printf '%064d' "$i")\"]}], \"appleAppIds\": [\"ABCDE12345.com.example.app$i\"]}" \
    "$BASE/api/management/v1/environments/$id"
done
# The sign-in form's CSRF token and its cookie, then the login with both.
JAR="$WORK/signin.jar"
CSRF=$(curl -fsS -c "$JAR" "$BASE/login" | sed -n 's/.*name="csrf" value="\([^"]*\)".*/\1/p')
COOKIE=$(curl -fsS -b "$JAR" -o /dev/null -D - --data-urlencode "csrf=$CSRF" --data-urlencode "email=bench@example.com" \
              --data-urlencode "password=$PASSWORD" "$BASE/login" \
         | awk -F'[ ;]' 'tolower($1) == "set-cookie:" && $2 ~ /^gatehouse_session=/ {print $2}')
[ -n "$COOKIE" ] || { echo "login failed" >&2; exit 1; }
PAGE=$(curl -fsS -H "Cookie: $COOKIE" "$BASE/environments")  # whole, before grep: an early grep exit fails curl
grep -q "Environment 50" <<<"$PAGE" || { echo "the page lacks the environments" >&2; exit 1; }

echo "== wrk -t2 -c64 -d$DURATION --latency: /environments (50 environments, signed in) vs nginx static"
read -r page_rps page_ms < <(run_wrk "$BASE/environments" -H "Cookie: $COOKIE")
read -r nginx_rps nginx_ms < <(run_wrk "http://127.0.0.1:$NGINX_PORT/healthz")
printf "  %-28s %10s req/s   p99 %7s ms\n" "/environments (50)" "$page_rps" "$page_ms" "nginx static" "$nginx_rps" "$nginx_ms"
awk "BEGIN {printf \"  ratio page/nginx: %.2fx (goal: >= 5 000 pages/s)\n\", $page_rps/$nginx_rps}"

echo "== login cost and /healthz p99 while 20 clients log in"
python3 - "$OUR_PORT" "$PASSWORD" > "$WORK/logins.out" <<'PY' &
import http.client, re, sys, threading, time, urllib.parse
port, password = int(sys.argv[1]), sys.argv[2]
def sign_in_form():
    # The sign-in form's CSRF token and its cookie, as a browser gets them.
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request("GET", "/login")
    r = c.getresponse(); page = r.read().decode(); c.close()
    cookie = r.getheader("Set-Cookie").split(";")[0]
    return cookie, re.search(r'name="csrf" value="([^"]+)"', page).group(1)
def login(email="bench@example.com"):
    cookie, csrf = sign_in_form()
    body = urllib.parse.urlencode({"email": email, "password": password, "csrf": csrf})
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request("POST", "/login", body, {"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie})
    r = c.getresponse(); r.read(); c.close()
    assert r.status == 303, r.status
# Sequential logins: the cost of one (argon2id verify + session write, over HTTP).
start = time.perf_counter()
for _ in range(10): login()
print(f"login: {(time.perf_counter() - start) / 10 * 1000:.1f} ms each (sequential, over HTTP)", flush=True)
print("concurrent", flush=True)
stop = time.time() + 12
counts = [0] * 20
def worker(i):
    while time.time() < stop:
        login(f"person{i}@example.com"); counts[i] += 1
threads = [threading.Thread(target=worker, args=(i,)) for i in range(20)]
for t in threads: t.start()
for t in threads: t.join()
print(f"concurrent logins: {sum(counts)} in 12 s by 20 people from one address ({sum(counts) / 12:.1f}/s)", flush=True)
PY
LOGINS_PID=$!
EXTRA_PIDS="$LOGINS_PID"
for _ in $(seq 1 600); do grep -q concurrent "$WORK/logins.out" 2>/dev/null && break; sleep 0.05; done
sleep 1
quiet=$(wrk -t1 -c4 -d2s --latency "http://127.0.0.1:$NGINX_PORT/healthz" | awk '$1 == "99%" {print $2}')
busy=$(wrk -t1 -c4 -d8s --latency "$BASE/healthz" | awk '$1 == "99%" {print $2}')
wait "$LOGINS_PID"
cat "$WORK/logins.out" | grep -v '^concurrent$' | sed 's/^/  /'
echo "  /healthz p99 during 20 concurrent logins: $(to_ms "$busy") ms (goal <= 10 ms); nginx p99 at the same time: $(to_ms "$quiet") ms"
stop_server

#!/usr/bin/env python3
"""The edge check behind real proxies (make test-edge): Debian's nginx (auth_request) and Caddy (forward_auth).

Starts the built binary on a fresh SQLite file and a free port, creates an environment whose `enforcement` enforces
`GET /api/orders/**` and monitors `GET /api/feed`, starts a small upstream that answers with the Gatehouse-* headers it
received, then nginx and Caddy configured with the snippets of docs/enforcement.md (read from the document, so the
documented configurations are the tested ones; only addresses, ports and the secret key are replaced). Through each
proxy: no receipt on the enforced route is refused (401 problem, upstream not reached); a receipt passes with its
`sub`, platform and attestation; a monitored route passes with outcome `missing`; the other convention's headers sent
by the client change nothing; a percent-encoded path is judged as its route. Then the outcomes counted under source
`edge`, and, with Gatehouse stopped, both proxies fail closed. Before the proxies, the endpoints called directly: a
missing or wrong key (Bearer, or the password of Basic credentials as Traefik sends it) and a missing convention's
fields are refused unjudged; a passing answer is 204 for nginx and the forwarded convention and exactly 200 for Envoy.
Exits non-zero on any failed check.

Usage: edge_proxies.py GATEHOUSE_BINARY
"""
import base64
import http.client
import http.server
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

from api_schema import ROOT, V1, call, receipt, start

DOC = os.path.join(ROOT, "docs", "enforcement.md")
GATEHOUSE_HEADERS = ["Gatehouse-Outcome", "Gatehouse-Route", "Gatehouse-Receipt", "Gatehouse-Platform", "Gatehouse-Attestation"]
ROUTES = [{"name": "orders", "match": "GET /api/orders/**", "mode": "enforce"},
          {"name": "feed", "match": "GET /api/feed", "mode": "monitor"}]


class Checks:
    """Collects the outcome of every check; a failure is printed at once and the run goes on."""

    def __init__(self):
        self.passed = 0
        self.failed = []

    def expect(self, condition, label, detail=""):
        if condition:
            self.passed += 1
        else:
            self.failed.append(label)
            print(f"FAIL {label}" + (f": {detail}" if detail else ""), flush=True)
        return condition

    def equal(self, got, expected, label):
        return self.expect(got == expected, label, f"expected {expected!r}, got {got!r}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, process, name, log, seconds=10):
    """Bounded polling until `port` accepts a connection; fails early when the process has exited."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{name} exited with {process.returncode}:\n{read(log)}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"{name} did not listen on 127.0.0.1:{port} within {seconds} s:\n{read(log)}")


def read(path):
    try:
        with open(path) as f:
            return f.read()[-4000:]
    except OSError:
        return ""


def get(port, path, headers=None):
    """GET `path` exactly as given (no re-encoding) → (status, {lower-case name: value}, body bytes)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def jwt_claims(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def doc_snippet(name):
    """The fenced block that follows `<!-- edge_proxies.py: NAME -->` in docs/enforcement.md."""
    text = open(DOC).read()
    match = re.search(r"<!-- edge_proxies\.py: " + name + r" -->\s*```[a-z]*\n(.*?)\n```", text, re.S)
    if not match:
        raise SystemExit(f"{DOC}: no block marked <!-- edge_proxies.py: {name} -->")
    return match.group(1)


def substitute(text, replacements, name):
    for old, new in replacements:
        if old not in text:
            raise SystemExit(f"the {name} block of {DOC} no longer contains {old!r}: update edge_proxies.py with it")
        text = text.replace(old, new)
    return text


class Upstream(http.server.ThreadingHTTPServer):
    """The API behind the proxies: records the Gatehouse-* headers of every call and answers them as JSON."""

    def __init__(self):
        super().__init__(("127.0.0.1", 0), UpstreamHandler)
        self.calls = []
        self.lock = threading.Lock()

    def count(self):
        with self.lock:
            return len(self.calls)


class UpstreamHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        received = {name: self.headers.get(name) for name in GATEHOUSE_HEADERS}
        with self.server.lock:
            self.server.calls.append({"path": self.path, "headers": received})
        body = json.dumps({"upstream": True, "path": self.path, "headers": received}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def nginx_config(directory, port, gatehouse, upstream, secret):
    snippet = substitute(doc_snippet("nginx"), [
        ("server 127.0.0.1:8080;", f"server {gatehouse};"),
        ("server 127.0.0.1:3000;", f"server {upstream};"),
        ("listen 80;", f"listen 127.0.0.1:{port};"),
        ("sk_live_YOUR_SECRET_KEY", secret),
    ], "nginx")
    temp = os.path.join(directory, "nginx-temp")
    paths = "\n".join(f"    {kind}_temp_path {temp}/{kind};" for kind in ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"])
    indented = "\n".join("    " + line if line else "" for line in snippet.splitlines())
    return (f"# Written by Tests/EndToEnd/edge_proxies.py around the nginx block of docs/enforcement.md.\n"
            f"worker_processes 1;\npid {directory}/nginx.pid;\nerror_log {directory}/nginx-error.log warn;\n"
            f"events {{ worker_connections 64; }}\nhttp {{\n    access_log off;\n{paths}\n{indented}\n}}\n")


def nginx_binary_path():
    return shutil.which("nginx") or "/usr/sbin/nginx"


def start_nginx(directory, gatehouse, upstream, secret):
    """Debian's nginx on a free port of 127.0.0.1, configured with the nginx block of docs/enforcement.md (see
    nginx_config) in front of `upstream` and asking `gatehouse` (both host:port) with `secret`; its files (nginx.conf,
    nginx-error.log, nginx.stderr, nginx-temp/) go to `directory`, which nginx's workers (nobody, when the master is
    root) must be able to traverse (mode 0711). Returns (process, port) once it listens; stops it if it does not."""
    port = free_port()
    os.mkdir(os.path.join(directory, "nginx-temp"))
    conf = os.path.join(directory, "nginx.conf")
    with open(os.open(conf, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
        f.write(nginx_config(directory, port, gatehouse, upstream, secret))
    log = os.path.join(directory, "nginx-error.log")
    process = subprocess.Popen([nginx_binary_path(), "-p", directory, "-c", conf, "-e", log, "-g", "daemon off;"],
                               stdout=subprocess.DEVNULL, stderr=open(os.path.join(directory, "nginx.stderr"), "w"))
    try:
        wait_for_port(port, process, "nginx", log)
    except BaseException:
        stop(process, "nginx", sig=signal.SIGQUIT)
        raise
    return process, port


def caddy_config(port, gatehouse, upstream):
    snippet = substitute(doc_snippet("caddy"), [
        ("api.example.com {", f"http://127.0.0.1:{port} {{"),
        ("forward_auth 127.0.0.1:8080 {", f"forward_auth {gatehouse} {{"),
        ("reverse_proxy 127.0.0.1:3000", f"reverse_proxy {upstream}"),
    ], "caddy")
    return ("# Written by Tests/EndToEnd/edge_proxies.py around the Caddy block of docs/enforcement.md.\n"
            "{\n\tadmin off\n\tauto_https off\n\tdefault_bind 127.0.0.1\n}\n" + snippet + "\n")


def check_proxy(checks, name, port, upstream, token, sub):
    """The calls of one proxy; returns how many of each outcome it should have counted, per route."""

    def refused(label, path, headers=None, outcome="missing", route="orders"):
        before = upstream.count()
        status, response_headers, body = get(port, path, headers)
        checks.equal(status, 401, f"{name}: {label}: status")
        checks.equal(response_headers.get("content-type", "").split(";")[0], "application/problem+json", f"{name}: {label}: media type")
        try:
            problem = json.loads(body)
            checks.equal(problem.get("status"), 401, f"{name}: {label}: problem status")
        except ValueError:
            checks.expect(False, f"{name}: {label}: problem body", f"not JSON: {body[:200]!r}")
        checks.equal(response_headers.get("gatehouse-outcome"), outcome, f"{name}: {label}: Gatehouse-Outcome")
        if route is not None:
            checks.equal(response_headers.get("gatehouse-route"), route, f"{name}: {label}: Gatehouse-Route")
        checks.equal(upstream.count(), before, f"{name}: {label}: upstream not reached")

    def passed(label, path, headers, expected):
        before = upstream.count()
        status, _, body = get(port, path, headers)
        if not checks.equal(status, 200, f"{name}: {label}: status"):
            print(f"     body: {body[:300]!r}", flush=True)
            return
        checks.equal(upstream.count(), before + 1, f"{name}: {label}: upstream reached once")
        received = json.loads(body)["headers"]
        for header, value in expected.items():
            got = received.get(header)
            if value == "":
                # Empty: nginx sends no header for an empty value, Caddy an empty one.
                checks.expect(got in (None, ""), f"{name}: {label}: {header} empty", f"got {got!r}")
            else:
                checks.equal(got, value, f"{name}: {label}: {header}")

    refused("enforced route without a receipt", "/api/orders/1")
    passed("enforced route with a receipt", "/api/orders/1", {"antibot-token": token},
           {"Gatehouse-Outcome": "verified", "Gatehouse-Route": "orders", "Gatehouse-Receipt": sub,
            "Gatehouse-Platform": "ios", "Gatehouse-Attestation": "none"})
    # The client's own Gatehouse-* headers are replaced by the check's.
    passed("monitored route without a receipt", "/api/feed",
           {"Gatehouse-Outcome": "verified", "Gatehouse-Receipt": "forged", "Gatehouse-Platform": "ios"},
           {"Gatehouse-Outcome": "missing", "Gatehouse-Route": "feed", "Gatehouse-Receipt": "",
            "Gatehouse-Platform": "", "Gatehouse-Attestation": ""})
    passed("unmatched path (environment mode monitor)", "/api/other", {},
           {"Gatehouse-Outcome": "missing", "Gatehouse-Route": "(unmatched)"})
    # Both conventions' fields sent by the client, naming the monitored route: each proxy overwrites its own, and its
    # endpoint reads only its own.
    refused("client-sent X-Original-*/X-Forwarded-* naming /api/feed", "/api/orders/1",
            {"X-Original-Method": "GET", "X-Original-URI": "/api/feed", "X-Forwarded-Method": "GET", "X-Forwarded-Uri": "/api/feed"})
    refused("percent-encoded path /api/%6Frders/1", "/api/%6Frders/1")
    refused("malformed receipt", "/api/orders/1?page=2", {"antibot-token": "not-a-receipt"}, outcome="invalid")
    # An encoded "/" cannot be normalized: invalid under the strictest mode of any route (enforce), whatever its route.
    refused("encoded slash /api/%2Forders/1", "/api/%2Forders/1", {"antibot-token": token}, outcome="invalid", route=None)
    return {"orders": {"missing": 3, "verified": 1, "invalid": 1}, "feed": {"missing": 1}}


def check_endpoints(checks, port, secret, token, sub):
    """The check endpoints called directly, as a misconfigured proxy and as Envoy would; returns the outcomes they
    should have counted, per route."""
    bearer = {"Authorization": "Bearer " + secret}
    status, _, _ = get(port, "/api/v4/edge/nginx", {"X-Original-Method": "GET", "X-Original-URI": "/api/orders/1"})
    if status == 404:
        raise SystemExit(f"{sys.argv[1]} has no edge check (GET /api/v4/edge/nginx answered 404): build it first")

    def unjudged(label, path, headers, expected_status):
        status, response_headers, _ = get(port, path, headers)
        checks.equal(status, expected_status, f"direct: {label}: status")
        checks.equal(response_headers.get("content-type", "").split(";")[0], "application/problem+json", f"direct: {label}: media type")
        checks.expect("gatehouse-outcome" not in response_headers, f"direct: {label}: no Gatehouse-Outcome",
                      f"got {response_headers.get('gatehouse-outcome')!r}")

    original = {"X-Original-Method": "GET", "X-Original-URI": "/api/orders/1"}
    forwarded = {"X-Forwarded-Method": "GET", "X-Forwarded-Uri": "/api/orders/1"}
    unjudged("nginx without a secret key", "/api/v4/edge/nginx", original, 401)
    unjudged("forwarded with a wrong secret key", "/api/v4/edge/forwarded", {**forwarded, "Authorization": "Bearer sk_test_wrong"}, 401)
    unjudged("nginx without X-Original-*", "/api/v4/edge/nginx", {**bearer, **forwarded}, 400)
    unjudged("forwarded without X-Forwarded-*", "/api/v4/edge/forwarded", {**bearer, **original}, 400)

    status, response_headers, _ = get(port, "/api/v4/edge/envoy/api/orders/1", bearer)
    checks.equal((status, response_headers.get("gatehouse-outcome"), response_headers.get("gatehouse-route")),
                 (401, "missing", "orders"), "direct: envoy without a receipt: status, outcome, route")

    def passing(label, path, headers, expected_status):
        """A call that may pass: exactly `expected_status` with an empty body and the receipt's headers."""
        status, response_headers, body = get(port, path, {**headers, "antibot-token": token})
        checks.equal(status, expected_status, f"direct: {label}: status")
        checks.equal(body, b"", f"direct: {label}: empty body")
        checks.equal({h: response_headers.get(h.lower()) for h in GATEHOUSE_HEADERS},
                     {"Gatehouse-Outcome": "verified", "Gatehouse-Route": "orders", "Gatehouse-Receipt": sub,
                      "Gatehouse-Platform": "ios", "Gatehouse-Attestation": "none"}, f"direct: {label}: headers")

    # 204 for nginx and the forwarded convention; exactly 200 for Envoy, whose HTTP ext_authz passes a call only on 200.
    passing("nginx with a receipt", "/api/v4/edge/nginx", {**bearer, **original}, 204)
    passing("forwarded with a receipt", "/api/v4/edge/forwarded", {**bearer, **forwarded}, 204)
    passing("envoy with a receipt", "/api/v4/edge/envoy/api/orders/1?page=2", bearer, 200)
    # The secret key as the password of Basic credentials (Traefik's ForwardAuth sends the userinfo of its address so):
    # the right key is judged like the Bearer one, a wrong one is refused unjudged.
    passing("forwarded with the key as a Basic password", "/api/v4/edge/forwarded", {**basic(secret), **forwarded}, 204)
    unjudged("forwarded with a wrong Basic password", "/api/v4/edge/forwarded", {**basic("sk_test_wrong"), **forwarded}, 401)
    return {"orders": {"missing": 1, "verified": 4}}


def basic(password, user="gatehouse"):
    """The Authorization header of Basic credentials, as an HTTP client sends a URL's userinfo."""
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


def check_counts(checks, base, management_token, environment_id, expected):
    """GET …/enforcement until the edge counts reach what the calls should have counted (they are written within
    about a second), then compares them whole."""
    outcomes = ["missing", "invalid", "reused", "challenge", "unmet", "verified"]
    want = {route: {o: counts.get(o, 0) for o in outcomes} for route, counts in expected.items()}
    deadline = time.monotonic() + 10
    while True:
        _, report = call(base, "GET", f"{V1}/environments/{environment_id}/enforcement", management_token)
        routes = {r.get("name"): r for r in report.get("routes", [])}
        edge = {name: routes.get(name, {}).get("outcomes", {}).get("edge") for name in want}
        if edge == want or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    checks.equal(report.get("days"), 7, "enforcement report: days")
    for name, counts in want.items():
        route = routes.get(name)
        if not checks.expect(route is not None, f"enforcement report: route {name} listed", json.dumps(report)[:500]):
            continue
        checks.equal(route.get("mode"), next(r["mode"] for r in ROUTES if r["name"] == name), f"enforcement report: {name} mode")
        checks.equal(route.get("outcomes", {}).get("edge"), counts, f"enforcement report: {name} edge outcomes")
        total = sum(counts.values())
        refusable = total - counts["verified"]
        would = route.get("wouldRefuse") or {}
        checks.equal(would.get("count"), refusable, f"enforcement report: {name} wouldRefuse.count")
        share = would.get("share")
        checks.expect(isinstance(share, (int, float)) and abs(share - refusable / total) < 0.001,
                      f"enforcement report: {name} wouldRefuse.share", f"expected {refusable / total:.3f}, got {share!r}")


def stop(process, name, sig=signal.SIGTERM, seconds=10):
    """Signals `process` and waits for it; kills it past `seconds`. Returns its exit status (None if killed)."""
    if process is None or process.poll() is not None:
        return None if process is None else process.returncode
    process.send_signal(sig)
    try:
        return process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        print(f"{name} did not stop within {seconds} s: killed", flush=True)
        process.kill()
        process.wait()
        return None


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    binary = os.path.abspath(sys.argv[1])
    for tool in ["nginx", "caddy"]:
        if shutil.which(tool) is None and not os.path.exists(f"/usr/sbin/{tool}"):
            raise SystemExit(f"{tool} is not installed (make test-deps installs EDGE_PACKAGES)")
    nginx_binary = nginx_binary_path()
    started = time.monotonic()
    checks = Checks()
    directory = tempfile.mkdtemp(prefix="gatehouse-edge-")
    # nginx's workers (nobody, when the master is root) reach their temp directories through this one.
    os.chmod(directory, 0o711)
    log = open(os.path.join(directory, "serve.log"), "w")
    server = nginx = caddy = upstream = None
    code = 1
    try:
        database = os.path.join(directory, "g.sqlite")
        management_token = subprocess.run(
            [binary, "token", "create", "--name", "edge", "--scope", "write", "--database", database, "--resources", ROOT],
            check=True, capture_output=True, text=True, timeout=60).stdout.strip()
        server, base = start(binary, database, log)
        gatehouse = base.removeprefix("http://")

        _, environment = call(base, "POST", f"{V1}/environments", management_token, {"name": "Edge", "kind": "development"})
        environment_id = environment["id"]
        secret = next(k["secret"] for k in environment["keys"] if k["type"] == "secret")
        public = next(k["value"] for k in environment["keys"] if k["type"] == "public")
        _, patched = call(base, "PATCH", f"{V1}/environments/{environment_id}", management_token,
                          {"enforcement": {"mode": "monitor", "routes": ROUTES}})
        enforcement = patched.get("enforcement") or {}
        checks.equal((enforcement.get("mode"), [{k: r.get(k) for k in ("name", "match", "mode")} for r in enforcement.get("routes", [])]),
                     ("monitor", ROUTES), "PATCH enforcement: echoed")
        token = receipt(base, public)
        sub = jwt_claims(token)["sub"]
        # First, so that a binary without the edge check stops the run here.
        expected = check_endpoints(checks, int(gatehouse.rsplit(":", 1)[1]), secret, token, sub)

        upstream = Upstream()
        threading.Thread(target=upstream.serve_forever, daemon=True).start()
        upstream_address = f"127.0.0.1:{upstream.server_address[1]}"

        nginx, nginx_port = start_nginx(directory, gatehouse, upstream_address, secret)

        caddy_port = free_port()
        caddyfile = os.path.join(directory, "Caddyfile")
        with open(caddyfile, "w") as f:
            f.write(caddy_config(caddy_port, gatehouse, upstream_address))
        caddy_log = os.path.join(directory, "caddy.log")
        caddy_env = dict(os.environ, HOME=directory, XDG_CONFIG_HOME=directory, XDG_DATA_HOME=directory,
                         GATEHOUSE_EDGE_SECRET_KEY=secret)
        caddy = subprocess.Popen(["caddy", "run", "--config", caddyfile, "--adapter", "caddyfile"],
                                 stdout=subprocess.DEVNULL, stderr=open(caddy_log, "w"), env=caddy_env)
        wait_for_port(caddy_port, caddy, "caddy", caddy_log)

        for counted in [check_proxy(checks, name, port, upstream, token, sub) for name, port in [("nginx", nginx_port), ("caddy", caddy_port)]]:
            for route, counts in counted.items():
                for outcome, n in counts.items():
                    expected.setdefault(route, {}).setdefault(outcome, 0)
                    expected[route][outcome] += n
        check_counts(checks, base, management_token, environment_id, expected)

        exit_code = stop(server, "gatehouse", seconds=30)
        server = None
        checks.equal(exit_code, 0, "gatehouse serve: exit status after SIGTERM")
        # Gatehouse gone: both proxies refuse (nginx 500, Caddy 502) and the API is not reached.
        for name, port, status in [("nginx", nginx_port, 500), ("caddy", caddy_port, 502)]:
            before = upstream.count()
            got, _, _ = get(port, "/api/feed")
            checks.equal(got, status, f"{name}: Gatehouse unreachable: fails closed")
            checks.equal(upstream.count(), before, f"{name}: Gatehouse unreachable: upstream not reached")

        log.flush()
        errors = [line for line in open(log.name) if '"level":"error"' in line]
        checks.expect(not errors, "gatehouse serve: no errors logged", "".join(errors[:5]))
        code = 0 if not checks.failed else 1
    finally:
        stop(server, "gatehouse", seconds=30)
        stop(nginx, "nginx", sig=signal.SIGQUIT)
        stop(caddy, "caddy")
        if upstream is not None:
            upstream.shutdown()
            upstream.server_close()
        log.close()
        if code != 0 or os.environ.get("KEEP_EDGE_DIR"):
            print(f"kept {directory} (serve.log, nginx.conf, nginx-error.log, Caddyfile, caddy.log)", flush=True)
        else:
            shutil.rmtree(directory, ignore_errors=True)
    versions = subprocess.run([nginx_binary, "-v"], capture_output=True, text=True).stderr.strip().removeprefix("nginx version: ")
    caddy_version = subprocess.run(["caddy", "version"], capture_output=True, text=True).stdout.split(" ")[0].strip()
    print(f"edge proxies ({versions}, caddy {caddy_version}, {time.monotonic() - started:.1f} s)", flush=True)
    print(f"edge_proxies: {checks.passed} passed, {len(checks.failed)} failed", flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())

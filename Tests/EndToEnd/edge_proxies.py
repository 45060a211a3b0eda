#!/usr/bin/env python3
"""The edge check behind real proxies (make test-edge): Debian's nginx (auth_request) and Caddy (forward_auth).

Starts the built binary on a fresh SQLite file and a free port, creates an environment whose `enforcement` is in
`monitor` with the routes `payments` (`POST /api/payments`: enforce, consume, require bound and verified), `orders`
(`GET /api/orders/*`: enforce) and `feed` (`GET /api/feed`: monitor), and registers an Android app whose Play Integrity
tokens it decodes with local keys (edge_phone.py mints them: receipts that meet `require`). Every proxy is configured
with a block of docs/enforcement.md, read from the document (only addresses, ports and the secret key replaced), so
the documented configurations are the tested ones.

First the endpoints called directly (a missing or wrong key, Bearer or the password of Basic credentials as Traefik
sends it, and a missing convention's fields are refused unjudged; a passing answer is 204 for nginx and the forwarded
convention and exactly 200 for Envoy). Then nginx and Caddy in front of a small echo API: no receipt on an enforced
route is refused (401 problem, API not reached); a receipt passes with its `sub`, platform and attestation; a
monitored route passes with outcome `missing`; the other convention's headers sent by the client change nothing; a
percent-encoded path is judged as its route; the outcomes are counted under source `edge`. Then the walk-around
(edge_walkaround.py): nginx, Caddy and both fail-open variants in front of Express, FastAPI and Flask
(edge_upstreams.py), every spelling of a protected call, one receipt spent once, what a client adds to a call, the
fail-open variants in front of a check that answers anything or resets; and, with Gatehouse stopped, the documented
configurations fail closed while the fail-open variants pass the call without the client's Gatehouse-* headers.
Prints `edge_proxies: N passed, N failed`; exits non-zero on any failed check.

Usage: edge_proxies.py GATEHOUSE_BINARY   (with the project's venv python: FastAPI, uvicorn, Flask, waitress, cryptography)
"""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

# Only the standard library at import time: Tests/Bench/edge_bench.py and Tests/Browser/test_enforcement.py import
# names from here (doc_snippet, substitute, Upstream, get, nginx_binary_path, start_nginx, stop). The walk-around's
# modules (cryptography, the APIs) are imported by main().
from api_schema import ROOT, V1, call, receipt, start
from edge_servers import FakeCheck, Upstream, nginx_binary_path, start_nginx, start_proxy  # noqa: F401
from edge_support import GATEHOUSE_HEADERS, Checks, doc_snippet, get, stop, substitute  # noqa: F401

ROUTES = [{"name": "payments", "match": "POST /api/payments", "mode": "enforce", "consume": True,
           "require": {"bound": True, "attestation": "verified"}},
          {"name": "orders", "match": "GET /api/orders/*", "mode": "enforce"},
          {"name": "feed", "match": "GET /api/feed", "mode": "monitor"}]


def jwt_claims(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


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


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    from edge_phone import AndroidPhone
    from edge_upstreams import start_apps
    from edge_walkaround import Walk, fake_check_refuses, gatehouse_stopped, reachable
    binary = os.path.abspath(sys.argv[1])
    for tool in ["nginx", "caddy"]:
        if shutil.which(tool) is None and not os.path.exists(f"/usr/sbin/{tool}"):
            raise SystemExit(f"{tool} is not installed (make test-deps installs EDGE_PACKAGES)")
    started = time.monotonic()
    checks = Checks()
    directory = tempfile.mkdtemp(prefix="gatehouse-edge-")
    # nginx's workers (nobody, when the master is root) reach their temp directories through this one.
    os.chmod(directory, 0o711)
    log = open(os.path.join(directory, "serve.log"), "w")
    server = upstream = fake = None
    proxies, apps = [], []
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
        phone = AndroidPhone()
        _, patched = call(base, "PATCH", f"{V1}/environments/{environment_id}", management_token,
                          dict(phone.environment_patch(), enforcement={"mode": "monitor", "routes": ROUTES}))
        enforcement = patched.get("enforcement") or {}
        checks.equal((enforcement.get("mode"), [{k: r.get(k) for k in ("name", "match", "mode")} for r in enforcement.get("routes", [])]),
                     ("monitor", [{k: r[k] for k in ("name", "match", "mode")} for r in ROUTES]), "PATCH enforcement: echoed")
        checks.equal([(r.get("consume"), r.get("require")) for r in enforcement.get("routes", [])][:1],
                     [(True, {"bound": True, "attestation": "verified"})], "PATCH enforcement: payments consumes and requires")
        token = receipt(base, public)
        sub = jwt_claims(token)["sub"]
        # First, so that a binary without the edge check stops the run here.
        expected = check_endpoints(checks, int(gatehouse.rsplit(":", 1)[1]), secret, token, sub)

        upstream = Upstream()
        threading.Thread(target=upstream.serve_forever, daemon=True).start()
        upstream_address = f"127.0.0.1:{upstream.server_address[1]}"
        nginx = start_proxy(directory, "nginx", "nginx", gatehouse, upstream_address, secret, "nginx+echo")
        caddy = start_proxy(directory, "caddy", "caddy", gatehouse, upstream_address, secret, "caddy+echo")
        proxies += [nginx, caddy]
        for counted in [check_proxy(checks, p.kind, p.port, upstream, token, sub) for p in (nginx, caddy)]:
            for route, counts in counted.items():
                for outcome, n in counts.items():
                    expected.setdefault(route, {}).setdefault(outcome, 0)
                    expected[route][outcome] += n
        check_counts(checks, base, management_token, environment_id, expected)

        # The walk-around: every proxy configuration in front of every API.
        apps = start_apps(directory)
        for app in apps:
            reachable(checks, app)
        walk = Walk(checks, base, public, phone)
        fronts = []
        for app in apps:
            for kind, block in [("nginx", "nginx"), ("caddy", "caddy"), ("nginx", "nginx-fail-open"), ("caddy", "caddy-fail-open")]:
                proxy = start_proxy(directory, kind, block, gatehouse, app.address, secret, f"{block}+{app.name}")
                proxies.append(proxy)
                fronts.append((proxy, app))
        for proxy, app in fronts:
            if not proxy.fail_open:
                walk.refused_spellings(proxy, app)
                walk.consumed_once(proxy, app)
                walk.forged_headers(proxy, app, token, sub)
            walk.cannot_open(proxy, app)
        # Every configuration in front of a check that answers whatever it is told, or resets the connection.
        fake = FakeCheck()
        for kind, block in [("nginx", "nginx"), ("caddy", "caddy"), ("nginx", "nginx-fail-open"), ("caddy", "caddy-fail-open")]:
            proxy = start_proxy(directory, kind, block, fake.address, upstream_address, secret, f"{block}+fake-check")
            proxies.append(proxy)
            fake_check_refuses(checks, proxy, upstream)

        exit_code = stop(server, "gatehouse", seconds=30)
        server = None
        checks.equal(exit_code, 0, "gatehouse serve: exit status after SIGTERM")
        # Gatehouse gone: both documented proxies refuse (nginx 500, Caddy 502) and the API is not reached.
        for proxy, status in [(nginx, 500), (caddy, 502)]:
            before = upstream.count()
            got, _, _ = get(proxy.port, "/api/feed")
            checks.equal(got, status, f"{proxy.name}: Gatehouse unreachable: fails closed")
            checks.equal(upstream.count(), before, f"{proxy.name}: Gatehouse unreachable: upstream not reached")
        for proxy, app in fronts:
            gatehouse_stopped(checks, proxy, app)

        log.flush()
        errors = [line for line in open(log.name) if '"level":"error"' in line]
        checks.expect(not errors, "gatehouse serve: no errors logged", "".join(errors[:5]))
        code = 0 if not checks.failed else 1
    finally:
        stop(server, "gatehouse", seconds=30)
        for proxy in proxies:
            proxy.stop()
        for app in apps:
            app.stop()
        if fake is not None:
            fake.close()
        if upstream is not None:
            upstream.shutdown()
            upstream.server_close()
        log.close()
        if code != 0 or os.environ.get("KEEP_EDGE_DIR"):
            print(f"kept {directory} (serve.log; per proxy nginx.conf, nginx-error.log, Caddyfile, caddy.log; the APIs' logs)", flush=True)
        else:
            shutil.rmtree(directory, ignore_errors=True)
    versions = subprocess.run([nginx_binary_path(), "-v"], capture_output=True, text=True).stderr.strip().removeprefix("nginx version: ")
    caddy_version = subprocess.run(["caddy", "version"], capture_output=True, text=True).stdout.split(" ")[0].strip()
    print(f"edge proxies ({versions}, caddy {caddy_version}, {time.monotonic() - started:.1f} s)", flush=True)
    print(f"edge_proxies: {checks.passed} passed, {len(checks.failed)} failed", flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())

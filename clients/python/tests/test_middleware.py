"""The middlewares called in-process (ASGI and WSGI) with a fake Gatehouse: the outcomes in the edge check's order,
the refusals, what the handler finds, the consuming check, 503 when they cannot judge, and the counts reported once
per Idempotency-Key without the secret key ever logged."""
import asyncio
import io
import json
import logging
import time

import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from gatehouse_receipts import GatehouseMiddleware, GatehouseWSGIMiddleware
from gatehouse_receipts._report import Reporter, hour_text
from helpers import ENV, FakeGatehouse, Signer, claims, proof

SECRET = "sk_test_secret"
PHONE = ec.generate_private_key(ec.SECP256R1())
ROUTES = [
    {"name": "payments", "match": "POST /api/payments/**", "mode": "enforce", "require": {"bound": True}, "consume": True},
    {"name": "orders", "match": "GET /api/orders/**", "mode": "enforce"},
    {"name": "attested", "match": "GET /api/attested", "mode": "enforce", "require": {"attestation": "verified"}},
    {"name": "feed", "match": "GET /api/feed", "mode": "monitor"},
    {"name": "health", "match": "GET /healthz", "mode": "off"},
]


@pytest.fixture(scope="module")
def gatehouse():
    server = FakeGatehouse([Signer("kid-a")], secret=SECRET)
    yield server
    server.close()


def now():
    return int(time.time())


def receipt(gatehouse, **kwargs):
    kwargs.setdefault("iat", now() - 5)
    return gatehouse.signers[0].token(claims(**kwargs))


# The ASGI driver: an app that answers with what it found in the scope's state.

async def echo_app(scope, receive, send):
    state = scope["state"]["gatehouse"]
    verification = state["verification"]
    body = json.dumps({"outcome": state["outcome"], "route": state["route"],
                       "sub": verification.subject if verification else None}).encode()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})


def asgi_call(middleware, method, target, headers=()):
    path, _, query = target.partition("?")
    scope = {"type": "http", "method": method, "path": path, "raw_path": path.encode(), "query_string": query.encode(),
             "headers": [(k.encode(), v.encode()) for k, v in headers]}
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    asyncio.run(middleware(scope, receive, send))
    start = sent[0]
    body = b"".join(m.get("body", b"") for m in sent[1:])
    return start["status"], {k.decode(): v.decode() for k, v in start["headers"]}, json.loads(body), scope


def wsgi_app(environ, start_response):
    state = environ["gatehouse"]
    verification = state["verification"]
    body = json.dumps({"outcome": state["outcome"], "route": state["route"],
                       "sub": verification.subject if verification else None}).encode()
    start_response("200 OK", [("Content-Type", "application/json")])
    return [body]


def wsgi_call(middleware, method, target, headers=()):
    path, _, query = target.partition("?")
    environ = {"REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": query, "REQUEST_URI": target,
               "wsgi.input": io.BytesIO(b""), "SCRIPT_NAME": ""}
    for name, value in headers:
        environ["HTTP_" + name.upper().replace("-", "_")] = value
    started = {}

    def start_response(status, response_headers, exc_info=None):
        started["status"] = int(status.split()[0])
        started["headers"] = {k.lower(): v for k, v in response_headers}

    body = b"".join(middleware(environ, start_response))
    return started["status"], started["headers"], json.loads(body), environ


DRIVERS = [
    pytest.param((lambda app, **kw: GatehouseMiddleware(echo_app, **kw)), asgi_call, id="asgi"),
    pytest.param((lambda app, **kw: GatehouseWSGIMiddleware(wsgi_app, **kw)), wsgi_call, id="wsgi"),
]


@pytest.mark.parametrize("make, call", DRIVERS)
def test_outcomes_refusals_and_state(gatehouse, make, call):
    middleware = make(None, gatehouse_url=gatehouse.url, environment=ENV, routes=ROUTES, mode="monitor",
                      secret_key=SECRET, report=False)
    counts = middleware.enforcer.counts

    status, headers, body, _ = call(middleware, "GET", "/api/orders/1")
    assert status == 401 and headers["content-type"] == "application/problem+json"
    assert body == {"type": "/problems/receipt-missing", "title": "Receipt required", "status": 401,
                    "detail": "This call needs a Gatehouse receipt in the antibot-token header.", "outcome": "missing",
                    "route": "orders", "reasons": []}
    assert headers["gatehouse-outcome"] == "missing" and headers["gatehouse-route"] == "orders"

    token = receipt(gatehouse, sub="req_ok")
    status, _, body, _ = call(middleware, "GET", "/api/orders/1?page=2", [("antibot-token", token)])
    assert (status, body) == (200, {"outcome": "verified", "route": "orders", "sub": "req_ok"})

    status, _, body, _ = call(middleware, "GET", "/api/or%64ers/1", [("antibot-token", token)])
    assert (status, body["route"]) == (200, "orders"), "the route matches the normalized path"

    status, _, body, _ = call(middleware, "GET", "/api/orders/1", [("antibot-token", token[:-5] + ("A" if token[-5] != "A" else "B") + token[-4:])])
    assert (status, body["outcome"], body["reasons"]) == (401, "invalid", ["signatureInvalid"])

    other = receipt(gatehouse, env="env_other")
    status, _, body, _ = call(middleware, "GET", "/api/orders/1", [("antibot-token", other)])
    assert (status, body["reasons"]) == (401, ["wrongEnvironment"])

    challenge = receipt(gatehouse, action="challenge")
    status, _, body, _ = call(middleware, "GET", "/api/orders/1", [("antibot-token", challenge)])
    assert (status, body["outcome"], body["type"]) == (403, "challenge", "/problems/receipt-challenge")

    status, _, body, _ = call(middleware, "GET", "/api/attested", [("antibot-token", token)])
    assert (status, body["outcome"], body["reasons"]) == (401, "unmet", ["unattested"])
    debug = receipt(gatehouse, att={"provider": "debug", "status": "verified"})
    status, _, body, _ = call(middleware, "GET", "/api/attested", [("antibot-token", debug)])
    assert (status, body["reasons"]) == (401, ["unattested"])

    status, _, body, _ = call(middleware, "GET", "/api/feed")
    assert (status, body) == (200, {"outcome": "missing", "route": "feed", "sub": None}), "monitor passes"
    status, _, body, _ = call(middleware, "GET", "/healthz")
    assert (status, body["outcome"], body["route"]) == (200, None, "health"), "off judges nothing"
    status, _, body, _ = call(middleware, "GET", "/elsewhere", [("antibot-token", "junk")])
    assert (status, body["outcome"], body["route"]) == (200, "invalid", "(unmatched)")

    status, _, body, _ = call(middleware, "GET", "/api/orders/%2F..", [("antibot-token", token)])
    assert (status, body["outcome"], body["reasons"], body["route"]) == (401, "invalid", ["path:encodedSeparator"], "(unmatched)")

    assert counts[("orders", "verified")] == 2 and counts[("orders", "missing")] == 1
    assert counts[("feed", "missing")] == 1 and ("health", "missing") not in counts
    assert counts[("(unmatched)", "invalid")] == 2
    middleware.close()


@pytest.mark.parametrize("make, call", DRIVERS)
def test_a_consume_route_spends_once_through_gatehouse(gatehouse, make, call):
    middleware = make(None, gatehouse_url=gatehouse.url, environment=ENV, routes=ROUTES, secret_key=SECRET, report=False)
    path = "/api/payments/42?amount=10"
    token = receipt(gatehouse, phone=PHONE, sub=f"req_pay_{call.__name__}")
    headers = [("antibot-token", token), ("antibot-pop", proof(PHONE, "POST", path, t=now() * 1000))]
    before = gatehouse.count("/api/v4/receipts/verify", "POST")
    status, _, body, _ = call(middleware, "POST", path, headers)
    assert (status, body["outcome"]) == (200, "verified")
    status, _, body, _ = call(middleware, "POST", path, headers)
    assert (status, body["outcome"], body["reasons"]) == (401, "reused", ["consumed"])
    assert gatehouse.count("/api/v4/receipts/verify", "POST") == before + 2
    unbound = receipt(gatehouse, sub="req_unbound")
    status, _, body, _ = call(middleware, "POST", path, [("antibot-token", unbound)])
    assert (status, body["outcome"], body["reasons"]) == (401, "unmet", ["unbound"])
    assert "req_unbound" not in gatehouse.spent, "a receipt that does not hold is not spent"
    status, _, body, _ = call(middleware, "POST", path, [("antibot-token", token)])
    assert (status, body["outcome"], body["reasons"]) == (401, "invalid", ["session:proof"])
    assert gatehouse.count("/api/v4/receipts/verify", "POST") == before + 3, "no call for an invalid receipt"


@pytest.mark.parametrize("make, call", DRIVERS)
def test_cannot_judge_is_503_under_enforce_and_uncounted_under_monitor(make, call):
    down = FakeGatehouse([Signer("kid-a")], secret=SECRET)
    down.fail = True
    try:
        middleware = make(None, gatehouse_url=down.url, environment=ENV, routes=ROUTES, secret_key=SECRET, report=False)
        token = receipt(down)
        status, headers, body, _ = call(middleware, "GET", "/api/orders/1", [("antibot-token", token)])
        assert status == 503 and headers["retry-after"] == "5"
        assert body == {"type": "/problems/gatehouse-unavailable", "title": "Receipt cannot be checked now",
                        "status": 503, "detail": "Gatehouse cannot be reached to check this call's receipt: try again "
                        "shortly.", "outcome": None, "route": "orders", "reasons": []}
        assert headers["gatehouse-route"] == "orders" and "gatehouse-outcome" not in headers, "no empty header"
        status, _, body, _ = call(middleware, "GET", "/api/feed", [("antibot-token", token)])
        assert (status, body["outcome"]) == (200, None)
        status, _, body, _ = call(middleware, "GET", "/api/orders/1")
        assert (status, body["outcome"]) == (401, "missing"), "a call without a receipt needs no keys"
        assert dict(middleware.enforcer.counts) == {("orders", "missing"): 1}
        # Keys now, but the spend cannot reach Gatehouse.
        down.fail = False
        middleware.enforcer.source._last_fetch = None
        path = "/api/payments/1"
        bound = receipt(down, phone=PHONE)
        pop = proof(PHONE, "POST", path, t=now() * 1000)
        assert call(middleware, "GET", "/api/orders/1", [("antibot-token", token)])[0] == 200
        down.fail = True
        status, headers, body, _ = call(middleware, "POST", path, [("antibot-token", bound), ("antibot-pop", pop)])
        assert status == 503 and headers["retry-after"] == "5"
        monitored = make(None, gatehouse_url=down.url, environment=ENV, secret_key=SECRET, report=False, mode="monitor",
                         routes=[dict(ROUTES[0], mode="monitor")])
        monitored.enforcer.source._keys = middleware.enforcer.source.keys
        monitored.enforcer.source._fresh_until = float("inf")
        status, _, body, _ = call(monitored, "POST", path, [("antibot-token", bound), ("antibot-pop", pop)])
        assert (status, body["outcome"]) == (200, None)
        assert not monitored.enforcer.counts
    finally:
        down.close()


def test_a_consume_route_needs_a_secret_key(gatehouse):
    with pytest.raises(ValueError, match="secret_key"):
        GatehouseWSGIMiddleware(wsgi_app, gatehouse_url=gatehouse.url, environment=ENV, routes=ROUTES)
    with pytest.raises(ValueError):
        GatehouseWSGIMiddleware(wsgi_app, gatehouse_url=gatehouse.url, environment="", routes=[])
    with pytest.raises(ValueError):
        GatehouseMiddleware(echo_app, gatehouse_url="ftp://x", environment=ENV, routes=[])
    with pytest.raises(ValueError, match="secret_key"):
        GatehouseMiddleware(echo_app, gatehouse_url=gatehouse.url, environment=ENV)  # routes fetched need the key
    with pytest.raises(ValueError, match="on_unavailable"):
        GatehouseMiddleware(echo_app, gatehouse_url=gatehouse.url, environment=ENV, routes=[], on_unavailable="open")


def test_the_state_joins_what_the_server_put_there(gatehouse):
    middleware = GatehouseMiddleware(echo_app, gatehouse_url=gatehouse.url, environment=ENV, mode="monitor", routes=[])
    scope = {"type": "http", "method": "GET", "path": "/", "raw_path": b"/", "query_string": b"", "headers": [],
             "state": {"db": "pool"}}
    sent = []

    async def send(message):
        sent.append(message)

    asyncio.run(middleware(scope, None, send))
    assert scope["state"]["db"] == "pool" and scope["state"]["gatehouse"]["outcome"] == "missing"
    lifespan = {"type": "lifespan"}
    called = []

    async def app(scope, receive, send):
        called.append(scope["type"])

    asyncio.run(GatehouseMiddleware(app, gatehouse_url=gatehouse.url, environment=ENV, routes=[])(lifespan, None, None))
    assert called == ["lifespan"]


def test_reports_once_per_idempotency_key_and_never_log_the_secret(gatehouse, caplog):
    caplog.set_level(logging.DEBUG)
    clock = [1_800_000_000.0]
    reporter = Reporter(gatehouse.url, SECRET, interval=3600, clock=lambda: clock[0])
    for _ in range(3):
        reporter.count("orders", "verified")
    reporter.count("(unmatched)", "missing")
    gatehouse.down_ingest = 2
    assert reporter.flush() is False
    clock[0] += 3600
    reporter.count("orders", "verified")
    assert reporter.flush() is False
    assert reporter.flush() is True
    keys = [r["headers"]["Idempotency-Key"] for r in gatehouse.requests if r["path"] == "/api/ingest/v1/enforcement"]
    assert len(keys) == 4 and keys[0] == keys[1] == keys[2] != keys[3], "a report is retried with its key"
    first = gatehouse.ingested[keys[0]]
    assert sorted((e["route"], e["outcome"], e["hour"], e["count"]) for e in first) == [
        ("(unmatched)", "missing", hour_text(1_800_000_000 // 3600 * 3600), 1),
        ("orders", "verified", hour_text(1_800_000_000 // 3600 * 3600), 3)]
    assert first[0]["hour"].endswith(":00:00Z")
    assert gatehouse.ingested[keys[3]] == [{"route": "orders", "outcome": "verified",
                                            "hour": hour_text((1_800_000_000 + 3600) // 3600 * 3600), "count": 1}]
    assert "not delivered" in caplog.text
    assert SECRET not in caplog.text and SECRET not in repr(reporter)
    reporter.close(flush=False)


def test_a_report_of_many_routes_is_split_in_reports_of_1000(gatehouse):
    reporter = Reporter(gatehouse.url, SECRET, interval=3600)
    for i in range(1500):
        reporter.count(f"r{i}", "missing")
    before = len(gatehouse.ingested)
    assert reporter.flush()
    assert len(gatehouse.ingested) == before + 2
    reporter.close(flush=False)


def test_a_refused_report_is_dropped_with_a_warning(caplog):
    server = FakeGatehouse([Signer("kid-a")], secret="sk_other")
    try:
        reporter = Reporter(server.url, SECRET, interval=3600)
        reporter.count("orders", "verified")
        assert reporter.flush() is True
        assert "refused" in caplog.text and SECRET not in caplog.text
        reporter.close(flush=False)
    finally:
        server.close()


def test_the_middleware_reports_from_a_background_thread(gatehouse):
    middleware = GatehouseWSGIMiddleware(wsgi_app, gatehouse_url=gatehouse.url, environment=ENV, mode="monitor",
                                         secret_key=SECRET, routes=[{"name": "feed", "match": "GET /api/feed"}])
    reporter = middleware.enforcer.reporter
    reporter.interval = 0.05
    wsgi_call(middleware, "GET", "/api/feed")
    deadline = time.monotonic() + 5
    while not reporter.sent and time.monotonic() < deadline:
        time.sleep(0.02)
    assert reporter.sent >= 1
    assert reporter._thread.daemon and reporter._thread.name == "gatehouse-report"
    middleware.close()

"""One source of truth, against a real `gatehouse serve`: GET /api/v4/edge/routes as the library reads it (ETag, 304,
max-age=30, the key's environment), a route switched from monitor to enforce through the management API enforced by
a running guard and a running route-table middleware (the refresh interval shortened, so the test waits for the
state, not for 30 s), and a backend configured with another environment's id, or a key Gatehouse does not know,
answering 503 gatehouse-misconfigured."""
import json
import os
import time
import urllib.error
import urllib.request

import pytest

from gatehouse_receipts import Gatehouse, GatehouseWSGIMiddleware
from gatehouse_receipts._routes_source import RoutesSource
from gatehouse_server import V1, Gatehouse as GatehouseServer, require_binary
from helpers import wait_for

require_binary()

ROUTES = "/api/v4/edge/routes"
PAYMENTS = {"name": "payments", "match": "POST /api/payments", "mode": "monitor",
            "require": {"bound": True, "attestation": "verified"}, "consume": True}


@pytest.fixture(scope="module")
def server():
    gatehouse = GatehouseServer()
    yield gatehouse
    gatehouse.close()


def fetch(server, key, etag=None):
    request = urllib.request.Request(server.base + ROUTES, headers={"Authorization": "Bearer " + key})
    if etag:
        request.add_header("If-None-Match", etag)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, dict(answer.headers), json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), None


def test_the_routes_as_the_library_reads_them(server):
    server.patch({"enforcement": {"mode": "monitor", "routes": [PAYMENTS]}})
    status, headers, body = fetch(server, server.secret)
    assert status == 200 and "max-age=30" in headers["Cache-Control"] and headers["ETag"]
    assert body["environment"] == server.environment_id and body["mode"] == "monitor"
    assert [route["name"] for route in body["routes"]] == ["payments"]
    assert fetch(server, server.secret, headers["ETag"])[0] == 304
    assert fetch(server, "sk_unknown")[0] == 401


def judge(gatehouse):
    return gatehouse.judge("payments", method="POST", path_and_query="/api/payments", token=None)


def test_a_route_switched_to_enforce_is_enforced_within_a_minute(server, monkeypatch):
    monkeypatch.setattr(RoutesSource, "INTERVAL", 0.2)
    server.patch({"enforcement": {"mode": "monitor", "routes": [PAYMENTS]}})
    gatehouse = Gatehouse(server.base, environment=server.environment_id, secret_key=server.secret, report=False)
    middleware = GatehouseWSGIMiddleware(None, gatehouse_url=server.base, environment=server.environment_id,
                                         secret_key=server.secret, report=False)
    try:
        wait_for(lambda: gatehouse.enforcer.routes.current()[0], what="the guard's routes")
        wait_for(lambda: middleware.enforcer.routes.current()[0], what="the middleware's routes")
        assert judge(gatehouse).allows and judge(gatehouse).outcome == "missing"
        assert middleware.enforcer.judge("POST", "/API/payments/", None, None).allows
        switched = time.monotonic()
        server.patch({"enforcement": {"mode": "monitor", "routes": [dict(PAYMENTS, mode="enforce")]}})
        wait_for(lambda: judge(gatehouse).status == 401, seconds=60, what="the guard enforcing")
        wait_for(lambda: middleware.enforcer.judge("POST", "/API/payments/", None, None).status == 401, seconds=60,
                 what="the middleware enforcing")
        assert time.monotonic() - switched < 60
        assert server.requests_logged(ROUTES) >= 4
    finally:
        gatehouse.close()
        middleware.close()


def test_another_environments_id_or_an_unknown_key_is_misconfigured(server):
    _, other = server.call("POST", f"{V1}/environments", {"name": "Another", "kind": "development"})
    wrong_environment = Gatehouse(server.base, environment=other["id"], secret_key=server.secret, report=False)
    unknown_key = Gatehouse(server.base, environment=server.environment_id, secret_key="sk_" + "A" * 43,
                            report=False)
    try:
        wait_for(lambda: wrong_environment.enforcer.routes.misconfiguration == "environment")
        wait_for(lambda: unknown_key.enforcer.routes.misconfiguration == "key")
        for gatehouse in (wrong_environment, unknown_key):
            judgement = judge(gatehouse)
            assert judgement.status == 503
            assert judgement.problem()["type"] == "/problems/gatehouse-misconfigured"
    finally:
        wrong_environment.close()
        unknown_key.close()

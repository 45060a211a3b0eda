"""One source of truth for modes, against a fake Gatehouse whose answer the tests change: the routes fetched in the
background (every call unavailable until the first answer), a switch to enforce reaching a running backend within a
minute (the refresh interval made short so no test sleeps), ETag revalidation, the last good set kept while Gatehouse
cannot be reached, and a refused or foreign secret key answered 503 gatehouse-misconfigured, logged at error level at
most once a minute. Also: routes in code win (logged once), and a guard naming a route the environment lacks."""
import logging
import time

import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from gatehouse_receipts import Gatehouse, GatehouseWSGIMiddleware
from gatehouse_receipts._routes_source import Alarm, FixedRoutes, RoutesSource
from helpers import ENV, FakeGatehouse, Signer, claims, proof, wait_for

SECRET = "sk_test_secret"
PHONE = ec.generate_private_key(ec.SECP256R1())
PAYMENTS = {"name": "payments", "match": "POST /api/payments", "mode": "enforce",
            "require": {"bound": True, "attestation": "verified"}, "consume": True}
ROUTES = "/api/v4/edge/routes"


@pytest.fixture
def server():
    fake = FakeGatehouse([Signer("kid-a")], secret=SECRET)
    fake.set_routes([PAYMENTS], mode="monitor")
    yield fake
    fake.close()


@pytest.fixture
def quick(monkeypatch):
    """Routes fetched every 50 ms: the minute the contract allows, without waiting it out."""
    monkeypatch.setattr(RoutesSource, "INTERVAL", 0.05)


def known(gatehouse):
    return wait_for(lambda: gatehouse.enforcer.routes.current()[0], what="the first routes answer")


def judge(gatehouse, name="payments", token=None, pop=None, path="/api/payments", **kwargs):
    return gatehouse.judge(name, method="POST", path_and_query=path, token=token, proof=pop, **kwargs)


def good_receipt(server, sub):
    return server.signers[0].token(claims(iat=int(time.time()) - 5, sub=sub, phone=PHONE,
                                          att={"provider": "app-attest", "status": "verified"}))


def test_the_default_interval_reaches_every_backend_within_a_minute():
    assert RoutesSource.INTERVAL <= 30 and RoutesSource.FIRST_RETRY_INTERVAL <= 1


def test_until_the_first_answer_every_judged_call_is_unavailable(server):
    server.fail = True
    gatehouse = Gatehouse(server.url, environment=ENV, secret_key=SECRET, report=False)
    passing = Gatehouse(server.url, environment=ENV, secret_key=SECRET, report=False, on_unavailable="pass")
    middleware = GatehouseWSGIMiddleware(None, gatehouse_url=server.url, environment=ENV, secret_key=SECRET,
                                         report=False)
    try:
        judgement = judge(gatehouse)
        status, headers, _ = judgement.refusal()
        assert (status, judgement.problem()["type"], dict(headers)["Retry-After"]) == \
            (503, "/problems/gatehouse-unavailable", "5")
        assert judge(gatehouse, mode="monitor").allows and judge(gatehouse, mode="off").allows
        assert judge(passing).allows and judge(passing).outcome is None
        table = middleware.enforcer.judge("GET", "/anything/at/all", None, None)
        assert (table.status, table.route, table.failure) == (503, None, "unavailable")
        assert not gatehouse.enforcer.counts and not passing.enforcer.counts, "uncounted"
        server.fail = False
        for each in (gatehouse, middleware):
            each.enforcer.routes.wake()
            known(each)
        judgement = judge(gatehouse)
        assert (judgement.status, judgement.outcome, judgement.route) == (401, "missing", "payments")
        table = middleware.enforcer.judge("POST", "/API/Payments/", None, None)
        assert (table.status, table.route) == (401, "payments")
        assert middleware.enforcer.judge("GET", "/elsewhere", None, None).allows, "(unmatched) under monitor"
    finally:
        for each in (gatehouse, passing):
            each.close()
        middleware.close()


def test_a_route_switched_to_enforce_is_enforced_within_a_minute(server, quick):
    server.set_routes([dict(PAYMENTS, mode="monitor")], mode="monitor")
    gatehouse = Gatehouse(server.url, environment=ENV, secret_key=SECRET, report=False)
    middleware = GatehouseWSGIMiddleware(None, gatehouse_url=server.url, environment=ENV, secret_key=SECRET,
                                         report=False)
    try:
        known(gatehouse)
        known(middleware)
        assert judge(gatehouse).allows and judge(gatehouse).outcome == "missing"
        assert middleware.enforcer.judge("POST", "/api/payments", None, None).allows
        switched = time.monotonic()
        server.set_routes([PAYMENTS], mode="monitor")
        wait_for(lambda: not judge(gatehouse).allows, seconds=60, what="the guard enforcing")
        wait_for(lambda: not middleware.enforcer.judge("POST", "/api/payments", None, None).allows, seconds=60,
                 what="the middleware enforcing")
        assert time.monotonic() - switched < 60
        revalidations = [r for r in server.requests if r["path"] == ROUTES and "If-None-Match" in r["headers"]]
        assert revalidations, "the routes are revalidated with their ETag"
        assert all(r["headers"]["Authorization"] == "Bearer " + SECRET for r in server.requests if r["path"] == ROUTES)
    finally:
        gatehouse.close()
        middleware.close()


def test_the_last_good_routes_are_kept_while_gatehouse_cannot_be_reached(server):
    gatehouse = Gatehouse(server.url, environment=ENV, secret_key=SECRET, report=False)
    try:
        known(gatehouse)
        server.fail = True
        before = gatehouse.enforcer.routes.fetches
        gatehouse.enforcer.routes.refresh()
        assert gatehouse.enforcer.routes.fetches == before + 1
        judgement = judge(gatehouse)
        assert (judgement.status, judgement.outcome) == (401, "missing"), "still judged under the last routes"
    finally:
        gatehouse.close()


def _misconfigured(judgement):
    status, headers, body = judgement.refusal()
    return status == 503 and judgement.problem()["type"] == "/problems/gatehouse-misconfigured" and \
        "Retry-After" not in dict(headers)


def test_another_environments_key_answers_misconfigured(server, caplog):
    server.routes_environment = "env_someoneelse"
    gatehouse = Gatehouse(server.url, environment=ENV, secret_key=SECRET, report=False, on_unavailable="pass")
    middleware = GatehouseWSGIMiddleware(None, gatehouse_url=server.url, environment=ENV, secret_key=SECRET,
                                         report=False)
    try:
        wait_for(lambda: gatehouse.enforcer.routes.misconfiguration == "environment")
        wait_for(lambda: middleware.enforcer.routes.misconfiguration == "environment")
        token = good_receipt(server, "req_misconfigured")
        assert _misconfigured(judge(gatehouse, token=token)), "on_unavailable=pass does not open a misconfiguration"
        assert _misconfigured(middleware.enforcer.judge("GET", "/anything", token, None))
        for _ in range(3):
            gatehouse.enforcer.routes.refresh()
            judge(gatehouse)
        errors = [r for r in caplog.records if r.levelno == logging.ERROR and "env_someoneelse" in r.getMessage()]
        assert len(errors) == 2, "once a minute, for each backend"
        assert judge(gatehouse, mode="monitor").allows, "a guard in monitor still never refuses"
        assert not gatehouse.enforcer.counts
        server.routes_environment = ENV
        gatehouse.enforcer.routes.refresh()
        assert judge(gatehouse).outcome == "missing", "fixed by the operator"
    finally:
        gatehouse.close()
        middleware.close()


def test_a_refused_key_is_misconfigured_not_unavailable(server, caplog):
    gatehouse = Gatehouse(server.url, environment=ENV, secret_key="sk_wrong", report=False)
    try:
        wait_for(lambda: gatehouse.enforcer.routes.misconfiguration == "key")
        assert _misconfigured(judge(gatehouse))
        assert any(r.levelno == logging.ERROR and "answered 401" in r.getMessage() for r in caplog.records)
        assert "sk_wrong" not in caplog.text
    finally:
        gatehouse.close()
    # The consuming check, with the routes in code.
    spender = Gatehouse(server.url, environment=ENV, secret_key="sk_wrong", report=False, routes=[PAYMENTS])
    try:
        token = good_receipt(server, "req_refused_key")
        judgement = judge(spender, token=token, pop=proof(PHONE, "POST", "/api/payments", t=time.time_ns() // 10**6))
        assert _misconfigured(judgement) and judgement.verification is not None
        assert not spender.enforcer.counts
    finally:
        spender.close()
    # The report.
    reporter = Gatehouse(server.url, environment=ENV, secret_key="sk_wrong", routes=[], mode="monitor")
    try:
        caplog.clear()
        judge(reporter, name="feed")
        reporter.flush()
        assert any(r.levelno == logging.ERROR and "/api/ingest/v1/enforcement answered 401" in r.getMessage()
                   for r in caplog.records)
    finally:
        reporter.close()


def test_a_misconfiguration_is_logged_at_most_once_a_minute(caplog):
    now = [1000.0]
    alarm = Alarm(clock=lambda: now[0])
    for _ in range(5):
        alarm.misconfigured("Gatehouse refused the secret key")
    now[0] += 59
    alarm.misconfigured("Gatehouse refused the secret key")
    now[0] += 2
    alarm.misconfigured("Gatehouse refused the secret key")
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 2 and alarm.raised == 7
    assert "the operator must fix the configuration" in errors[0].getMessage()


def test_routes_in_code_win_and_say_so_once(server, caplog):
    caplog.set_level(logging.INFO)
    gatehouse = Gatehouse(server.url, environment=ENV, secret_key=SECRET, routes=[], mode="enforce", report=False)
    try:
        assert isinstance(gatehouse.enforcer.routes, FixedRoutes)
        assert judge(gatehouse).status == 401, "no route payments in code: the mode given in code"
        judge(gatehouse)
        said = [r for r in caplog.records if "routes given in code" in r.getMessage()]
        assert len(said) == 1
        assert server.count(ROUTES) == 0
    finally:
        gatehouse.close()


def test_a_guard_naming_a_route_the_environment_does_not_hold(server, caplog):
    gatehouse = Gatehouse(server.url, environment=ENV, secret_key=SECRET, report=False)
    try:
        known(gatehouse)
        first, second = judge(gatehouse, name="profile"), judge(gatehouse, name="profile")
        assert first.allows and (first.route, first.mode, first.outcome) == ("profile", "monitor", "missing")
        assert gatehouse.enforcer.counts[("profile", "missing")] == 2
        warnings = [r for r in caplog.records if "does not hold" in r.getMessage()]
        assert len(warnings) == 1 and warnings[0].levelno == logging.WARNING
        token = server.signers[0].token(claims(iat=int(time.time()) - 5, sub="req_plain"))
        assert judge(gatehouse, name="profile", token=token).outcome == "verified", "no requirement but validity"
        assert judge(gatehouse, name="profile", mode="enforce").status == 401, "mode in code overrides"
        assert judge(gatehouse, name="payments", mode="monitor").allows, "even the environment's"
        assert judge(gatehouse, name="payments", mode="off").outcome is None
        with pytest.raises(ValueError):
            gatehouse.require("Payments")
        with pytest.raises(ValueError):
            gatehouse.require("payments", mode="block")
    finally:
        gatehouse.close()

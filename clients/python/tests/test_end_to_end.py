"""Against a real `gatehouse serve` (a temporary SQLite database, a free port, every request in its access log):
receipts from POST /api/v4/assess and `gatehouse simulate`; the JWKS fetched once for a hundred checks and once more
after `gatehouse receipts rotate-key`; `--revoke-now`; a consume route spending once; reporting shown as source
`backend`; and, with Gatehouse stopped, the last keys verifying until the receipts expire. (The README's quickstarts
are test_quickstarts.py; the routes fetched from Gatehouse, test_end_to_end_routes.py.)"""
import base64
import json
import os
import time

import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from gatehouse_receipts import GatehouseWSGIMiddleware, JWKSSource, ReceiptPolicy, consume, verify_session_token
from gatehouse_server import Gatehouse, backend_counts, claims_of, now_ms, wait_for_backend_counts, gatehouse, require_binary
from helpers import proof

KEYS = "/api/v4/receipts/keys"

require_binary()


def kid_of(token):
    header = token.split(".")[0]
    return json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))["kid"]


def check(source, token, environment, path="/api/orders?page=2", pop=None, policy=None, at=None):
    return verify_session_token(token, jwks=source, environment=environment, method="GET", path_and_query=path,
                                proof=pop, policy=policy, now_ms=at)


class Clock:
    """A monotonic clock the test moves on (JWKSSource's 30 s and max-age without waiting them out)."""

    def __init__(self):
        self.offset = 0.0

    def __call__(self):
        return time.monotonic() + self.offset


def wait_for_new_kid(gatehouse, old_kid, seconds=8.0):
    """A receipt from the server once it signs with another key than `old_kid` (it rereads keys every 5 s)."""
    deadline = time.monotonic() + seconds
    while True:
        token = gatehouse.receipt()
        if kid_of(token) != old_kid:
            return token
        assert time.monotonic() < deadline, "the server did not sign with the rotated key in time"
        time.sleep(0.25)


def test_one_fetch_for_a_hundred_checks_one_more_on_rotation_and_revoke_now(gatehouse):
    env = gatehouse.environment_id
    clock = Clock()
    source = JWKSSource(gatehouse.base)
    source._clock = clock
    before = gatehouse.requests_logged(KEYS)
    phone = ec.generate_private_key(ec.SECP256R1())
    tokens = [gatehouse.receipt(phone if i % 2 else None) for i in range(100)]
    for token in tokens:
        pop = proof(phone, "GET", "/api/orders?page=2", t=now_ms())
        result = check(source, token, env, pop=pop)
        assert result.valid, result.reasons
    assert gatehouse.wait_logged(KEYS, before + 1) == before + 1
    time.sleep(0.3)
    assert gatehouse.requests_logged(KEYS) == before + 1, "one fetch for a hundred checks"
    assert source.fetches == 1

    first_kid = kid_of(tokens[0])
    assert "is current" in gatehouse.rotate()
    rotated = wait_for_new_kid(gatehouse, first_kid)
    clock.offset += 31  # past the 30 s an unknown kid waits for
    assert check(source, rotated, env).valid
    assert gatehouse.wait_logged(KEYS, before + 2) == before + 2, "one more fetch for the new kid"
    assert check(source, tokens[0], env).valid, "the retired key stays published for an hour"
    for token in tokens[:20]:
        check(source, token, env)
    check(source, rotated, env)
    time.sleep(0.3)
    assert gatehouse.requests_logged(KEYS) == before + 2

    second_kid = kid_of(rotated)
    assert "revoked" in gatehouse.rotate(revoke_now=True)
    fresh = wait_for_new_kid(gatehouse, second_kid)
    clock.offset += 31
    assert check(source, fresh, env).valid
    assert gatehouse.wait_logged(KEYS, before + 3) == before + 3
    assert check(source, rotated, env).reasons == ["signatureInvalid"], "a revoked key's receipts stop verifying"
    assert check(source, tokens[0], env).reasons == ["signatureInvalid"]


def test_receipts_from_gatehouse_simulate(gatehouse):
    env = gatehouse.environment_id
    source = JWKSSource(gatehouse.base)
    debug = gatehouse.simulate("--debug-token", gatehouse.debug_token, "--app-id", "com.example.yourapp", "--no-bind")
    token = debug["assess"]["body"]["sessionToken"]
    assert check(source, token, env).valid
    assert check(source, token, env, policy=ReceiptPolicy(attestation="verified")).reasons == ["unattested"]
    assert check(source, token, env, policy=ReceiptPolicy(attestation="verified", debug=True)).valid
    bound = gatehouse.simulate("--debug-token", gatehouse.debug_token, "--app-id", "com.example.yourapp",
                               "--proof-method", "GET", "--proof-path", "/api/orders")
    token = bound["assess"]["body"]["sessionToken"]
    pop = bound["proof"] if isinstance(bound["proof"], str) else bound["proof"]["header"]
    result = check(source, token, env, path="/api/orders", pop=pop)
    assert result.valid and result.bound
    assert check(source, token, env, path="/api/orders/other", pop=pop).reasons == ["session:proof"]


def test_consume_spends_once(gatehouse):
    env = gatehouse.environment_id
    phone = ec.generate_private_key(ec.SECP256R1())
    token = gatehouse.receipt(phone)
    path = "/api/payments/7?amount=3"
    pop = proof(phone, "POST", path, t=now_ms())
    spend = dict(gatehouse_url=gatehouse.base, secret_key=gatehouse.secret, method="POST", path_and_query=path,
                 proof=pop, policy=ReceiptPolicy(bound=True))
    first = consume(token, **spend)
    assert first.valid and first.consumed and first.subject == claims_of(token)["sub"] and first.bound
    again = consume(token, **spend)
    assert not again.valid and again.reasons == ["consumed"] and not again.consumed
    assert verify_session_token(token, jwks=JWKSSource(gatehouse.base), environment=env, method="POST",
                                path_and_query=path, proof=pop).valid, "offline, a spent receipt still passes"
    unbound = gatehouse.receipt()
    refused = consume(unbound, **spend)
    assert refused.reasons == ["unbound"] and not refused.consumed
    assert consume("junk", **spend).reasons == ["malformed"]


def test_middleware_outcomes_are_reported_as_source_backend(gatehouse):
    routes = [{"name": "reports", "match": "GET /api/reports/**", "mode": "enforce"}]
    gatehouse.patch({"enforcement": {"mode": "monitor", "routes": routes}})

    def app(environ, start_response):
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [environ["gatehouse"]["outcome"].encode()]

    middleware = GatehouseWSGIMiddleware(app, gatehouse_url=gatehouse.base, environment=gatehouse.environment_id,
                                         routes=routes, mode="monitor", secret_key=gatehouse.secret)
    token = gatehouse.receipt()
    before = backend_counts(gatehouse)
    calls = [("/api/reports/1", token), ("/api/reports/2", token), ("/api/reports/3", None), ("/api/other", "junk")]
    for target, receipt in calls:
        environ = {"REQUEST_METHOD": "GET", "REQUEST_URI": target, "PATH_INFO": target}
        if receipt:
            environ["HTTP_ANTIBOT_TOKEN"] = receipt
        b"".join(middleware(environ, lambda *args: None))
    assert middleware.enforcer.reporter.flush()
    expected = {"reports": {"verified": 2, "missing": 1}, "(unmatched)": {"invalid": 1}}
    assert wait_for_backend_counts(gatehouse, expected, before)
    middleware.close()


def test_challenge_under_attack_mode_is_refused_403(gatehouse):
    gatehouse.patch({"attackMode": True, "appleAppIds": ["ABCDE12345.com.example.yourapp"]})
    try:
        answer = gatehouse.assess()
        assert answer["attackMode"] == "unproven"
        token = answer["sessionToken"]
        verification = check(JWKSSource(gatehouse.base), token, gatehouse.environment_id)
        assert verification.valid and verification.action == "challenge"

        def app(environ, start_response):
            start_response("200 OK", [])
            return [b"ok"]

        middleware = GatehouseWSGIMiddleware(app, gatehouse_url=gatehouse.base, environment=gatehouse.environment_id,
                                             routes=[], mode="enforce", report=False)
        statuses = []
        body = b"".join(middleware({"REQUEST_METHOD": "GET", "REQUEST_URI": "/x", "HTTP_ANTIBOT_TOKEN": token},
                                   lambda status, headers, exc_info=None: statuses.append(status)))
        assert statuses == ["403 Forbidden"] and json.loads(body)["outcome"] == "challenge"
        debug = gatehouse.assess(debug=True)
        assert debug["attackMode"] == "proven"
        statuses.clear()
        b"".join(middleware({"REQUEST_METHOD": "GET", "REQUEST_URI": "/x", "HTTP_ANTIBOT_TOKEN": debug["sessionToken"]},
                            lambda status, headers, exc_info=None: statuses.append(status)))
        assert statuses == ["200 OK"]
    finally:
        gatehouse.patch({"attackMode": False, "appleAppIds": None})


def test_gatehouse_stopped_the_last_keys_verify_until_receipts_expire():
    gatehouse = Gatehouse()
    try:
        env = gatehouse.environment_id
        clock = Clock()
        source = JWKSSource(gatehouse.base, timeout=1.0)
        source._clock = clock
        token = gatehouse.receipt()
        exp_ms = claims_of(token)["exp"] * 1000
        assert check(source, token, env).valid
        routes = [{"name": "pay", "match": "POST /pay", "mode": "enforce", "consume": True},
                  {"name": "read", "match": "GET /read", "mode": "enforce"}]

        def app(environ, start_response):
            start_response("200 OK", [])
            return [b"ok"]

        middleware = GatehouseWSGIMiddleware(app, gatehouse_url=gatehouse.base, environment=env, routes=routes,
                                             secret_key=gatehouse.secret, report=False)
        middleware.enforcer.source.get()

        def call(method, target):
            statuses, headers = [], {}

            def start_response(status, response_headers, exc_info=None):
                statuses.append(status)
                headers.update(dict(response_headers))

            b"".join(middleware({"REQUEST_METHOD": method, "REQUEST_URI": target, "HTTP_ANTIBOT_TOKEN": token},
                                start_response))
            return statuses[0], headers

        gatehouse.stop()
        clock.offset += 3600  # far past max-age: the set is stale and cannot be revalidated
        assert check(source, token, env).valid
        assert check(source, token, env, at=exp_ms - 1).valid
        assert check(source, token, env, at=exp_ms).reasons == ["expired"]
        assert source.fetches >= 2 and source.keys is not None
        assert call("GET", "/read")[0] == "200 OK", "an offline route keeps working"
        status, headers = call("POST", "/pay")
        assert status.startswith("503") and headers["Retry-After"] == "5", "a spend needs Gatehouse"
        fresh = JWKSSource(gatehouse.base, timeout=0.5)
        assert check_unavailable(fresh, token, env)
    finally:
        gatehouse.close()


def check_unavailable(source, token, env):
    from gatehouse_receipts import GatehouseUnavailable

    try:
        check(source, token, env)
    except GatehouseUnavailable:
        return True
    return False

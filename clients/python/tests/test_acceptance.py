"""Enforcement that cannot be walked around, in-process: FastAPI (uvicorn), Flask and Django (waitress), each behind
the route-table middleware and each with guards on its handlers, the routes fetched from a fake Gatehouse
(`payments` = `POST /api/payments` in enforce, consume, require bound and verified; `orders` = `GET /api/orders/*`
in enforce; the environment in monitor). Every spelling a client can send (case, trailing slash, HEAD, `;`, `#`,
`%3B`, `%23`, `%5C`, dot segments, also where a `*` stands, double slashes, percent-encoded letters, absolute-form
targets), without a receipt or with one the route does not accept, never runs a protected handler; and one receipt
runs the consume handler once across all spellings."""
import time

import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from acceptance_apps import RUNS, build
from gatehouse_receipts._paths import origin_form
from helpers import ENV, FakeGatehouse, Signer, claims, proof, wait_for

SECRET = "sk_test_secret"
PHONE = ec.generate_private_key(ec.SECP256R1())
ROUTES = [{"name": "payments", "match": "POST /api/payments", "mode": "enforce",
           "require": {"bound": True, "attestation": "verified"}, "consume": True},
          {"name": "orders", "match": "GET /api/orders/*", "mode": "enforce"}]
ATTESTED = {"provider": "app-attest", "status": "verified"}
ABSOLUTE = "http://127.0.0.1"

PAYMENT_PATHS = [
    "/API/payments", "/api/Payments", "/API/PAYMENTS", "/api/payments/", "/API/PAYMENTS/", "/api/payments?x=1",
    "/api/payments;x", "/api/payments/;", "/api;v=1/payments", "/api/payments#x", "/api/payments#?x=1",
    "/api/payments%3Bx", "/api/payments%3b", "/api/payments%23x", "/api%5Cpayments", "/api%5cpayments",
    "/api\\payments", "/\\api/payments", "/api/./payments", "/api/x/../payments", "/api/x/%2e%2E/payments",
    "//api//payments", "/api//payments", "/api/pay%6Dents", "/%61pi/%70ayments/", "/api/PAY%4dENTS",
    "/api/payments/.", "/api/payments%2F", "/api/payments%00", "/api/payments%09", "/api/payments%20",
    ABSOLUTE + "/api/payments", ABSOLUTE + "/API/payments/", ABSOLUTE + "/api/payments?x=1",
    "https://127.0.0.1/api/pay%6Dents",
]
PAYMENT_SPELLINGS = [("POST", path) for path in PAYMENT_PATHS] + [("post", "/api/payments"),
                                                                  ("PoSt", "/api/payments")]
ORDER_PATHS = ["/api/orders/7", "/api/orders/7/", "/API/orders/7", "/api/Orders/7/", "/api/orders/7;x",
               "/api/orders/7#x", "/api/orders/%37", "/api/or%64ers/7", "//api/orders/7", "/api/x/../orders/7",
               "/api/orders/7%3B", "/api/orders/7%23", "/api/orders%5C7", ABSOLUTE + "/api/orders/7",
               "/api/orders/.", "/api/orders/..", "/api/orders/%2E", "/api/orders/%2e%2E/", "/API/orders/./"]
ORDER_SPELLINGS = [(method, path) for method in ("GET", "HEAD") for path in ORDER_PATHS]
APPS = [(framework, style) for framework in ("fastapi", "flask", "django") for style in ("table", "guards")]


@pytest.fixture(scope="module")
def gatehouse():
    server = FakeGatehouse([Signer("kid-a")], secret=SECRET)
    server.set_routes(ROUTES, mode="monitor")
    yield server
    server.close()


@pytest.fixture(scope="module", params=APPS, ids=["-".join(a) for a in APPS])
def app(request, gatehouse):
    framework, style = request.param
    served, owner = build(framework, style, gatehouse.url, ENV, SECRET)
    wait_for(lambda: owner.enforcer.routes.current()[0], what="the routes from Gatehouse")
    yield f"{framework}-{style}", served
    served.close()
    owner.close()


def now_ms():
    return time.time_ns() // 1_000_000


def receipt(server, sub, **kwargs):
    kwargs.setdefault("iat", int(time.time()) - 5)
    return server.signers[0].token(claims(sub=sub, **kwargs))


def pop(method, target, t=None):
    return proof(PHONE, method, origin_form(target), t=t or now_ms())


def refused_payment_headers(server, method, target, n):
    """A call of `POST /api/payments` with no receipt, or one the route does not accept."""
    bound = dict(phone=PHONE, att=ATTESTED)
    return {
        "none": {},
        "unbound": {"antibot-token": receipt(server, f"req_unbound_{n}", att=ATTESTED)},
        "unattested": {"antibot-token": receipt(server, f"req_unattested_{n}", phone=PHONE),
                       "antibot-pop": pop(method, target)},
        "debug": {"antibot-token": receipt(server, f"req_debug_{n}", phone=PHONE,
                                           att={"provider": "debug", "status": "verified"}),
                  "antibot-pop": pop(method, target)},
        "proof for another call": {"antibot-token": receipt(server, f"req_other_{n}", **bound),
                                   "antibot-pop": pop("POST", "/api/other")},
        "no proof": {"antibot-token": receipt(server, f"req_noproof_{n}", **bound)},
        "challenge": {"antibot-token": receipt(server, f"req_challenge_{n}", action="challenge", **bound),
                      "antibot-pop": pop(method, target)},
        "another environment": {"antibot-token": receipt(server, f"req_env_{n}", env="env_other", **bound),
                                "antibot-pop": pop(method, target)},
    }


def test_no_spelling_runs_a_protected_handler_without_a_receipt_the_route_accepts(app, gatehouse):
    name, served = app
    for n, (method, target) in enumerate(PAYMENT_SPELLINGS):
        for kind, headers in refused_payment_headers(gatehouse, method, target, f"{name}_{n}").items():
            status = served.send(method, target, headers)
            assert RUNS[(name, "payments")] == 0, f"{method} {target} with {kind} ran the handler ({status})"
    expired = receipt(gatehouse, "req_expired", iat=int(time.time()) - 3600)
    for method, target in ORDER_SPELLINGS:
        for kind, token in (("none", None), ("junk", "junk.junk.junk"), ("expired", expired)):
            status = served.send(method, target, {"antibot-token": token} if token else {})
            assert RUNS[(name, "orders")] == 0, f"{method} {target} with {kind} ran the handler ({status})"


def test_one_receipt_runs_the_consume_handler_once_across_all_spellings(app, gatehouse):
    name, served = app
    token = receipt(gatehouse, f"req_once_{name}", phone=PHONE, att=ATTESTED)
    statuses = {}
    for method, target in PAYMENT_SPELLINGS + [("POST", "/api/payments")]:
        statuses[(method, target)] = served.send(method, target, {"antibot-token": token,
                                                                  "antibot-pop": pop(method, target)})
    # A route table judges spellings the framework would not route (/API/payments is 404 in Starlette) under the
    # route too, and they spend the receipt: at most once. A guard spends it only where the handler is: once.
    runs = RUNS[(name, "payments")]
    assert runs <= 1 and (runs == 1 or not name.endswith("guards")), statuses
    fresh = receipt(gatehouse, f"req_fresh_{name}", phone=PHONE, att=ATTESTED)
    assert served.send("POST", "/api/payments", {"antibot-token": fresh,
                                                 "antibot-pop": pop("POST", "/api/payments")}) == 200
    assert RUNS[(name, "payments")] == runs + 1
    reader = receipt(gatehouse, f"req_reader_{name}")
    assert served.send("GET", "/api/orders/7", {"antibot-token": reader}) == 200
    head = served.send("HEAD", "/api/orders/7", {"antibot-token": reader})
    assert head == (405 if name.startswith("fastapi") else 200), "FastAPI's GET routes take no HEAD; others do"
    assert RUNS[(name, "orders")] == 1 + (head == 200), "a good receipt reads"

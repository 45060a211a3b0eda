"""The shared matching vectors (Tests/Fixtures/enforcement/matching.json, written by hand; the Swift edge check and
the Node library read the same file): every call judged under the route, mode and reason the vectors give, by the
matcher and through both middlewares, and every refusal and failure answered with the one table of problems."""
import asyncio
import io
import json
import os
from urllib.parse import unquote_to_bytes

import pytest

from gatehouse_receipts import GatehouseMiddleware, GatehouseWSGIMiddleware, Judgement
from gatehouse_receipts._judgement import PROBLEMS
from gatehouse_receipts._paths import REFUSALS
from gatehouse_receipts._routes import Settings
from helpers import ENV

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
VECTORS = os.environ.get("GATEHOUSE_MATCHING_VECTORS",
                         os.path.join(ROOT, "Tests", "Fixtures", "enforcement", "matching.json"))

with open(VECTORS, encoding="utf-8") as f:
    DOCUMENT = json.load(f)
CASES = DOCUMENT["cases"]
ABSOLUTE_FORM = ("http://", "https://")


def routes_of(case):
    return case["routes"] if "routes" in case else DOCUMENT["routes"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_matcher_judges_each_call_as_the_vectors_say(case):
    settings = Settings(routes_of(case), case["environmentMode"])
    route, mode, reason = settings.judge(case["method"], case["target"])
    expected = case["expect"]
    assert (route.name if route is not None else "(unmatched)", mode, reason) == \
        (expected["route"], expected["mode"], expected["reason"])


def _asgi_scope(method, target):
    raw_path, _, query = target.encode("utf-8").partition(b"?")
    return {"type": "http", "method": method, "raw_path": raw_path, "query_string": query,
            "path": unquote_to_bytes(raw_path).decode("latin-1"), "headers": []}


def _through_asgi(middleware, method, target):
    scope = _asgi_scope(method, target)
    sent = []

    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    async def send(message):
        sent.append(message)

    middleware.app = app
    asyncio.run(middleware(scope, None, send))
    return sent[0]["status"], {k.decode(): v.decode() for k, v in sent[0]["headers"]}, scope["state"]["gatehouse"]


def _through_wsgi(middleware, method, target):
    environ = {"REQUEST_METHOD": method, "REQUEST_URI": target, "PATH_INFO": target.partition("?")[0],
               "wsgi.input": io.BytesIO()}
    started = {}
    middleware.app = lambda environ, start: (start("200 OK", []), [b"{}"])[1]
    b"".join(middleware(environ, lambda status, headers, exc_info=None: started.update(status=int(status[:3]),
                                                                                       headers=dict(headers))))
    return started["status"], {k.lower(): v for k, v in started["headers"].items()}, environ["gatehouse"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
@pytest.mark.parametrize("kind", ["asgi", "wsgi"])
def test_the_middlewares_judge_each_call_as_the_vectors_say(case, kind):
    if kind == "wsgi" and case["target"] == "":
        pytest.skip("no HTTP server hands WSGI an empty target (an empty REQUEST_URI is read as absent)")
    make = GatehouseMiddleware if kind == "asgi" else GatehouseWSGIMiddleware
    middleware = make(None, gatehouse_url="http://127.0.0.1:9", environment=ENV, routes=routes_of(case),
                      mode=case["environmentMode"], secret_key="sk_test", report=False)
    expected = dict(case["expect"])
    if case["target"].startswith(ABSOLUTE_FORM):
        # A library takes the path and query of an absolute-form target before matching.
        expected = {"route": "payments", "mode": "enforce", "reason": None}
    judgement = middleware.enforcer.judge(case["method"], case["target"], None, None)
    assert (judgement.route, judgement.mode) == (expected["route"], expected["mode"])
    if expected["mode"] == "off":
        assert judgement.outcome is None
    elif expected["reason"] is not None:
        assert (judgement.outcome, judgement.reasons) == ("invalid", [expected["reason"]])
    else:
        assert (judgement.outcome, judgement.reasons) == ("missing", [])
    status, headers, state = (_through_asgi if kind == "asgi" else _through_wsgi)(middleware, case["method"],
                                                                                case["target"])
    assert (state["route"], state["outcome"]) == (judgement.route, judgement.outcome)
    assert status == (401 if expected["mode"] == "enforce" else 200)
    if status == 401:
        assert headers["gatehouse-route"] == expected["route"]
        assert headers["gatehouse-outcome"] == judgement.outcome


def test_the_vectors_name_every_refusal():
    assert {c["expect"]["reason"] for c in CASES if c["expect"]["reason"]} == set(REFUSALS)
    assert len(CASES) >= 70


def _expected_problem(name, **beside):
    return dict(DOCUMENT["problems"][name], **beside)


@pytest.mark.parametrize("outcome", ["missing", "invalid", "reused", "challenge", "unmet"])
def test_refusals_answer_the_one_table(outcome):
    reasons = {"invalid": ["session:proof"], "reused": ["consumed"], "unmet": ["unbound", "unattested"]}.get(outcome, [])
    judgement = Judgement("payments", "enforce", outcome, reasons)
    status, headers, body = judgement.refusal()
    assert json.loads(body) == _expected_problem(outcome, outcome=outcome, route="payments", reasons=reasons)
    assert status == DOCUMENT["problems"][outcome]["status"]
    headers = dict(headers)
    assert (headers["Gatehouse-Outcome"], headers["Gatehouse-Route"]) == (outcome, "payments")
    assert headers["Content-Type"] == "application/problem+json" and "Retry-After" not in headers


@pytest.mark.parametrize("failure", ["unavailable", "misconfigured"])
def test_failures_answer_the_one_table(failure):
    for route in ("payments", None):
        status, headers, body = Judgement(route, "enforce", None, failure=failure).refusal()
        assert json.loads(body) == _expected_problem(failure, outcome=None, route=route, reasons=[])
        assert status == 503
        headers = dict(headers)
        assert "Gatehouse-Outcome" not in headers, "no empty header"
        assert headers.get("Gatehouse-Route") == route
        assert ("Retry-After" in headers) is (failure == "unavailable")


def test_the_table_is_the_vectors_table():
    problems = DOCUMENT["problems"]
    assert set(problems) == set(PROBLEMS)
    for name, (slug, title, status, detail) in PROBLEMS.items():
        assert problems[name] == {"type": "/problems/" + slug, "title": title, "status": status, "detail": detail}

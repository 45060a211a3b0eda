"""The guards' integrations beyond the acceptance tests' handlers: a plain Starlette endpoint, FastAPI without
init_app (refused as 500, never run, logged), Django async views and class-based views, a Flask async view and a
refusal raised by hand, judge_async for any other framework, and the guard refusing (not passing) when used where it
cannot find the request."""
import asyncio
import io
import json
import logging
import time

import pytest

from gatehouse_receipts import Gatehouse, GatehouseRefusal
from helpers import ENV, FakeGatehouse, Signer, claims

SECRET = "sk_test_secret"
ROUTES = [{"name": "orders", "match": "GET /api/orders/*", "mode": "enforce"}]


@pytest.fixture(scope="module")
def gatehouse():
    server = FakeGatehouse([Signer("kid-a")], secret=SECRET)
    guarded = Gatehouse(server.url, environment=ENV, secret_key=SECRET, routes=ROUTES, report=False)
    guarded.token = server.signers[0].token(claims(iat=int(time.time()) - 5, sub="req_guard"))
    yield guarded
    guarded.close()
    server.close()


def asgi_get(app, path, token=None):
    scope = {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(), "query_string": b"",
             "headers": [(b"antibot-token", token.encode())] if token else [], "http_version": "1.1",
             "scheme": "http", "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 1), "root_path": "",
             "app_root_path": ""}
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    headers = {k.decode(): v.decode() for k, v in sent[0]["headers"]}
    return sent[0]["status"], headers, json.loads(b"".join(m.get("body", b"") for m in sent[1:]) or b"null")


def test_a_starlette_endpoint(gatehouse):
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    @gatehouse.require("orders")
    async def order(request):
        return JSONResponse({"outcome": request.state.gatehouse["outcome"]})

    app = Starlette(routes=[Route("/api/orders/{order}", order)])
    gatehouse.init_app(app)
    status, headers, body = asgi_get(app, "/api/orders/1")
    assert (status, body["type"], headers["gatehouse-route"]) == (401, "/problems/receipt-missing", "orders")
    assert asgi_get(app, "/api/orders/1", gatehouse.token)[2] == {"outcome": "verified"}


def test_fastapi_without_init_app_refuses_as_500_and_says_why(gatehouse, caplog):
    from fastapi import Depends, FastAPI

    ran = []

    def application(init):
        app = FastAPI()
        if init:
            gatehouse.init_app(app)

        @app.get("/api/orders/{order}")
        def order(order: str, judgement=Depends(gatehouse.require("orders"))):
            ran.append(order)
            return judgement["outcome"]

        return app

    with pytest.raises(GatehouseRefusal):
        asgi_get(application(False), "/api/orders/1")
    assert not ran
    assert any("init_app" in r.getMessage() and r.levelno == logging.ERROR for r in caplog.records)
    app = application(True)
    status, _, body = asgi_get(app, "/api/orders/2")
    assert (status, body["outcome"], body["route"]) == (401, "missing", "orders") and "detail" in body
    assert asgi_get(app, "/api/orders/3", gatehouse.token)[:3:2] == (200, "verified") and ran == ["3"]


def _django():
    import django
    from django.conf import settings

    if not settings.configured:
        settings.configure(SECRET_KEY="test-only", ALLOWED_HOSTS=["*"], INSTALLED_APPS=[], DATABASES={})
        django.setup()
    from django.test import RequestFactory

    return RequestFactory()


def test_django_async_and_class_based_views(gatehouse):
    factory = _django()
    from django.http import JsonResponse
    from django.views import View

    @gatehouse.require("orders")
    async def order(request, order):
        return JsonResponse({"outcome": request.gatehouse["outcome"]})

    class Orders(View):
        @gatehouse.require("orders")
        def get(self, request, order):
            return JsonResponse({"route": request.gatehouse["route"]})

    refused = asyncio.run(order(factory.get("/api/orders/1"), "1"))
    assert refused.status_code == 401 and refused["Content-Type"] == "application/problem+json"
    assert refused["Gatehouse-Outcome"] == "missing" and json.loads(refused.content)["route"] == "orders"
    passed = asyncio.run(order(factory.get("/api/orders/1", HTTP_ANTIBOT_TOKEN=gatehouse.token), "1"))
    assert json.loads(passed.content) == {"outcome": "verified"}
    view = Orders.as_view()
    assert view(factory.get("/api/orders/1"), order="1").status_code == 401
    assert json.loads(view(factory.get("/api/orders/1", HTTP_ANTIBOT_TOKEN=gatehouse.token), order="1").content) == \
        {"route": "orders"}


def test_flask_async_view_and_a_refusal_raised_by_hand(gatehouse):
    from flask import Flask, g, request

    app = Flask("guards")
    gatehouse.init_app(app)

    @app.get("/api/orders/<order>")
    @gatehouse.require("orders")
    async def order(order):
        return {"outcome": g.gatehouse["outcome"]}

    @app.get("/by-hand")
    def by_hand():
        judgement = gatehouse.judge("orders", method=request.method, path_and_query=request.full_path,
                                    token=request.headers.get("antibot-token"))
        if not judgement.allows:
            raise GatehouseRefusal(judgement)
        return {"outcome": judgement.outcome}

    client = app.test_client()
    refused = client.get("/api/orders/1")
    assert refused.status_code == 401 and refused.json["type"] == "/problems/receipt-missing"
    assert client.get("/api/orders/1", headers={"antibot-token": gatehouse.token}).json == {"outcome": "verified"}
    by_hand = client.get("/by-hand")
    assert (by_hand.status_code, by_hand.headers["Content-Type"], by_hand.json["outcome"]) == \
        (401, "application/problem+json", "missing")


def test_judge_async_for_any_other_framework(gatehouse):
    judgement = asyncio.run(gatehouse.judge_async("orders", method="GET", path_and_query="/x?y", token=gatehouse.token))
    assert judgement.allows and judgement.outcome == "verified" and judgement.route == "orders"
    status, headers, body = asyncio.run(gatehouse.judge_async("orders", method="GET", path_and_query="/x",
                                                              token=None)).refusal()
    assert status == 401 and json.loads(body)["outcome"] == "missing"


def test_a_guard_where_it_cannot_find_the_request_refuses(gatehouse):
    @gatehouse.require("orders")
    def not_a_view(value):
        return value

    with pytest.raises(TypeError):
        not_a_view(io.BytesIO())
    with pytest.raises(TypeError):
        gatehouse.require("orders")(1, 2)
    with pytest.raises(TypeError):
        gatehouse.init_app(object())

"""The applications of the in-process acceptance tests (test_acceptance.py): a FastAPI, a Flask and a Django
application, each with a protected `consume` handler (`POST /api/payments`) and a protected read
(`GET /api/orders/<id>`), each once behind the route-table middleware and once with guards on the handlers, served by
uvicorn (h11) or waitress in a thread of the test process, so that requests are sent as raw bytes on a socket and
reach the framework as a real server parses them. Every run of a protected handler is counted in RUNS."""
from __future__ import annotations

import socket
import sys
import threading
import time
import types
from collections import Counter
from typing import Any, Callable, Dict, Tuple

from gatehouse_receipts import Gatehouse, GatehouseMiddleware, GatehouseWSGIMiddleware

#: Runs of protected handlers by (application, handler).
RUNS: "Counter[Tuple[str, str]]" = Counter()


def _ran(app: str, handler: str) -> Dict[str, Any]:
    RUNS[(app, handler)] += 1
    return {"ran": handler}


def fastapi_app(name: str, gatehouse: Any, guards: bool) -> Any:
    from fastapi import Depends, FastAPI

    app = FastAPI()
    if guards:
        gatehouse.init_app(app)

        @app.post("/api/payments")
        def pay(judgement: Any = Depends(gatehouse.require("payments"))) -> Dict[str, Any]:
            assert judgement["route"] == "payments" and judgement["outcome"] == "verified"
            return _ran(name, "payments")

        @app.get("/api/orders/{order}")
        def order(order: str, judgement: Any = Depends(gatehouse.require("orders"))) -> Dict[str, Any]:
            return _ran(name, "orders")

        return app

    @app.post("/api/payments")
    def plain_pay() -> Dict[str, Any]:
        return _ran(name, "payments")

    @app.get("/api/orders/{order}")
    def plain_order(order: str) -> Dict[str, Any]:
        return _ran(name, "orders")

    return GatehouseMiddleware(app, **gatehouse)


def flask_app(name: str, gatehouse: Any, guards: bool) -> Any:
    from flask import Flask, g

    app = Flask(name)
    if guards:
        gatehouse.init_app(app)

        @app.post("/api/payments")
        @gatehouse.require("payments")
        def pay() -> Dict[str, Any]:
            assert g.gatehouse["outcome"] == "verified"
            return _ran(name, "payments")

        @app.get("/api/orders/<order>")
        @gatehouse.require("orders")
        def order(order: str) -> Dict[str, Any]:
            return _ran(name, "orders")

        return app

    @app.post("/api/payments")
    def plain_pay() -> Dict[str, Any]:
        return _ran(name, "payments")

    @app.get("/api/orders/<order>")
    def plain_order(order: str) -> Dict[str, Any]:
        return _ran(name, "orders")

    app.wsgi_app = GatehouseWSGIMiddleware(app.wsgi_app, **gatehouse)  # type: ignore[method-assign]
    return app


class UrlconfFromEnviron:
    """Django middleware: the URLconf the test's WSGI wrapper names (one process, two Django applications)."""

    def __init__(self, get_response: Callable[..., Any]) -> None:
        self.get_response = get_response

    def __call__(self, request: Any) -> Any:
        request.urlconf = request.META["acceptance.urlconf"]
        return self.get_response(request)


def django_app(name: str, gatehouse: Any, guards: bool) -> Any:
    import django
    from django.conf import settings

    if not settings.configured:
        settings.configure(SECRET_KEY="test-only-not-secret", DEBUG=False, ALLOWED_HOSTS=["*"], ROOT_URLCONF=None,
                           INSTALLED_APPS=[], DATABASES={}, USE_TZ=True,
                           MIDDLEWARE=["acceptance_apps.UrlconfFromEnviron"])
        django.setup()
    from django.core.wsgi import get_wsgi_application
    from django.http import JsonResponse
    from django.urls import path
    from django.views.decorators.csrf import csrf_exempt

    def pay(request: Any) -> Any:
        if guards:
            assert request.gatehouse["outcome"] == "verified"
        return JsonResponse(_ran(name, "payments"))

    def order(request: Any, order: str) -> Any:
        return JsonResponse(_ran(name, "orders"))

    if guards:
        pay, order = gatehouse.require("payments")(pay), gatehouse.require("orders")(order)
    urls = types.ModuleType(f"acceptance_urls_{name}")
    urls.urlpatterns = [path("api/payments", csrf_exempt(pay)), path("api/orders/<str:order>", order)]  # type: ignore[attr-defined]
    sys.modules[urls.__name__] = urls
    django_application = get_wsgi_application()

    def application(environ: Dict[str, Any], start_response: Callable[..., Any]) -> Any:
        environ["acceptance.urlconf"] = urls.__name__
        return django_application(environ, start_response)

    return application if guards else GatehouseWSGIMiddleware(application, **gatehouse)


class Served:
    """An application served on 127.0.0.1 in a thread: uvicorn (h11) for ASGI, waitress for WSGI."""

    def __init__(self, app: Any, asgi: bool) -> None:
        if asgi:
            import uvicorn

            self.server: Any = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning",
                                                             http="h11", lifespan="on"))
            self.thread = threading.Thread(target=self.server.run, daemon=True)
            self.thread.start()
            deadline = time.monotonic() + 30
            while not self.server.started:
                assert time.monotonic() < deadline, "uvicorn did not start"
                time.sleep(0.01)
            self.port = self.server.servers[0].sockets[0].getsockname()[1]
        else:
            import waitress

            self.server = waitress.create_server(app, host="127.0.0.1", port=0, threads=2)
            self.port = self.server.socket.getsockname()[1]
            self.thread = threading.Thread(target=self.server.run, daemon=True)
            self.thread.start()
        self.asgi = asgi

    def send(self, method: str, target: str, headers: Dict[str, str]) -> int:
        """The status of one request, sent byte for byte as written."""
        lines = [f"{method} {target} HTTP/1.1", "Host: 127.0.0.1", "Connection: close", "Content-Length: 0"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        with socket.create_connection(("127.0.0.1", self.port), timeout=20) as connection:
            connection.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
            answer = b""
            while True:
                chunk = connection.recv(65536)
                if not chunk:
                    break
                answer += chunk
        return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0

    def close(self) -> None:
        if self.asgi:
            self.server.should_exit = True
        else:
            self.server.close()
        self.thread.join(timeout=10)


def build(framework: str, style: str, gatehouse_url: str, environment: str, secret: str) -> Tuple[Served, Any]:
    """The application `framework` (`fastapi`, `flask`, `django`) with `style` (`guards`, `table`) served, and its
    Gatehouse (guards) or middleware's enforcer (table); the routes fetched from Gatehouse."""
    name = f"{framework}-{style}"
    guards = style == "guards"
    if guards:
        gatehouse: Any = Gatehouse(gatehouse_url, environment=environment, secret_key=secret)
    else:
        gatehouse = dict(gatehouse_url=gatehouse_url, environment=environment, secret_key=secret)
    app = {"fastapi": fastapi_app, "flask": flask_app, "django": django_app}[framework](name, gatehouse, guards)
    served = Served(app, asgi=framework == "fastapi")
    return served, gatehouse if guards else _enforcer_of(app)


def _enforcer_of(app: Any) -> Any:
    if isinstance(app, (GatehouseMiddleware, GatehouseWSGIMiddleware)):
        return app
    return app.wsgi_app  # Flask

"""What the guards need of Starlette/FastAPI, Flask and Django, each imported only when an application of it is
there (the package depends on ``cryptography`` alone): the call as the framework received it, where the judgement
goes, the refusal as a response, and ``init_app``."""
from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import sys
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Dict, Optional, Tuple

from . import asgi, wsgi
from ._judgement import Judgement

if TYPE_CHECKING:
    from ._guard import Gatehouse, Guard

log = logging.getLogger("gatehouse_receipts")

STARLETTE, FLASK, DJANGO, DJANGO_ASGI = "starlette", "flask", "django", "django-asgi"
_warned_init = False


def _module(name: str) -> Any:
    """An already imported module (or None): a framework nobody imported is not the one calling."""
    return sys.modules.get(name)


def request_of(args: Tuple[Any, ...]) -> Tuple[str, Any]:
    """(kind, request) of a guarded view's call: a Django or Starlette request among its first two arguments (a
    function view's, or a class-based view method's), else Flask's request of the current context."""
    django_http = _module("django.http")
    starlette_requests = _module("starlette.requests")
    for argument in args[:2]:
        if django_http is not None and isinstance(argument, django_http.HttpRequest):
            scope = getattr(argument, "scope", None)
            return (DJANGO_ASGI if isinstance(scope, dict) else DJANGO), argument
        if starlette_requests is not None and isinstance(argument, starlette_requests.Request):
            return STARLETTE, argument
    flask = _module("flask")
    if flask is not None and flask.has_request_context():
        return FLASK, flask.request
    raise TypeError("a guard decorates a Flask, Django or Starlette view (its request not found)")


def call_of(kind: str, request: Any) -> Tuple[str, str, Optional[str], Optional[str]]:
    """(method, path and query, token, proof) as the framework received the call (bytes as sent where the server
    keeps them: ASGI ``raw_path``, WSGI ``RAW_URI``/``REQUEST_URI``)."""
    if kind in (STARLETTE, DJANGO_ASGI):
        scope = request.scope
        token, proof = asgi.receipt_headers(scope)
        return str(scope.get("method", "GET")), asgi.target_of(scope), token, proof
    environ: Dict[str, Any] = request.environ if kind == FLASK else request.META
    token, proof = wsgi.receipt_headers(environ)
    return str(environ.get("REQUEST_METHOD", "GET")), wsgi.target_of(environ), token, proof


def remember(kind: str, request: Any, state: Dict[str, Any]) -> None:
    """Leaves the judgement where the handler finds it."""
    if kind == STARLETTE:
        request.state.gatehouse = state
    elif kind == FLASK:
        sys.modules["flask"].g.gatehouse = state
    else:
        request.gatehouse = state


def refusal_response(kind: str, judgement: Judgement) -> Any:
    """The refusal as the framework's response."""
    status, headers, body = judgement.refusal()
    if kind == STARLETTE:
        responses = importlib.import_module("starlette.responses")
        return responses.Response(body, status_code=status, headers=dict(headers))
    if kind == FLASK:
        return sys.modules["flask"].Response(body, status=status, headers=headers)
    response = importlib.import_module("django.http").HttpResponse(body, status=status,
                                                                  content_type="application/problem+json")
    for name, value in headers:
        if name not in ("Content-Type", "Content-Length"):
            response[name] = value
    return response


def starlette_dependency(guard: "Guard") -> Callable[..., Any]:
    """The signature FastAPI reads for ``Depends(guard)``: ``async def (request: Request) -> dict``. Raises
    ImportError without Starlette."""
    request_class = importlib.import_module("starlette.requests").Request

    async def gatehouse_guard(request: Any) -> Dict[str, Any]:
        return await guard.dependency(request)

    gatehouse_guard.__annotations__ = {"request": request_class, "return": Dict[str, Any]}
    return gatehouse_guard


def check_init(request: Any) -> None:
    """Logs once when a guard's FastAPI or Starlette application has no handler for its refusals (it would answer
    ``500``: still refused, but not as the problem it is)."""
    global _warned_init
    if _warned_init:
        return
    from ._guard import GatehouseRefusal

    handlers = getattr(getattr(request, "app", None), "exception_handlers", None)
    if isinstance(handlers, dict) and GatehouseRefusal not in handlers:
        _warned_init = True
        log.error("gatehouse_receipts: call gatehouse.init_app(app): without it a refused call answers 500, not "
                  "its problem")


def init_app(app: Any, gatehouse: "Gatehouse") -> None:
    """``Gatehouse.init_app`` for a FastAPI/Starlette or Flask application."""
    from ._guard import GatehouseRefusal

    starlette_applications = _module("starlette.applications")
    flask = _module("flask")
    if starlette_applications is not None and isinstance(app, starlette_applications.Starlette):
        async def refused(request: Any, error: Exception) -> Any:
            if not isinstance(error, GatehouseRefusal):  # registered for this class only
                raise error
            return refusal_response(STARLETTE, error.judgement)

        app.add_exception_handler(GatehouseRefusal, refused)
        app.router.lifespan_context = _flushing_lifespan(app.router.lifespan_context, gatehouse)
    elif flask is not None and isinstance(app, flask.Flask):
        app.register_error_handler(GatehouseRefusal,
                                   lambda error: refusal_response(FLASK, error.judgement))
        app.extensions["gatehouse"] = gatehouse
    else:
        raise TypeError("init_app takes a FastAPI, Starlette or Flask application (Django needs none)")


def _flushing_lifespan(original: Callable[[Any], Any], gatehouse: "Gatehouse") -> Callable[[Any], Any]:
    """The application's lifespan, then the counts sent (after the server's last call)."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[Any]:
        async with original(app) as state:
            yield state
        await asyncio.get_running_loop().run_in_executor(None, gatehouse.flush)

    return lifespan

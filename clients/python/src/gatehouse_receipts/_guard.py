"""Guards on the handler (docs/device-api.md "Guards on the handler"): the framework has already chosen the handler, so
the guard judges the call under the route it names, whatever the spelling of the path that reached it."""
from __future__ import annotations

import functools
import inspect
import re
from typing import Any, Callable, Dict, Optional, Sequence

from . import _frameworks
from ._enforce import Enforcer
from ._judgement import Judgement
from ._routes import MODES

_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,39}\Z")


class GatehouseRefusal(Exception):
    """A call a guard refused: ``judgement`` (a :class:`Judgement`), and the answer to send, ``status``,
    ``headers`` and ``body`` (``application/problem+json``). :meth:`Gatehouse.init_app` makes FastAPI, Starlette and
    Flask answer with it."""

    def __init__(self, judgement: Judgement) -> None:
        self.judgement = judgement
        self.status, self.headers, self.body = judgement.refusal()
        super().__init__(f"{self.status} {judgement.problem()['type']} (route {judgement.route})")


class Gatehouse:
    """Gatehouse receipts checked on the handlers themselves.

    ``Gatehouse(gatehouse_url, *, environment, secret_key)`` fetches the environment's routes and modes from
    Gatehouse (``GET /api/v4/edge/routes``) in the background at start and every 30 s; ``routes`` given in code (even
    ``[]``) win, with ``mode`` for the calls they do not name. A guard, ``require("payments")``, judges each call of
    its handler under the route ``payments``: its ``mode``, ``require`` and ``consume``.

    - FastAPI/Starlette: ``gatehouse.init_app(app)`` once, then ``judgement = Depends(gatehouse.require("payments"))``
      (or ``@gatehouse.require("payments")`` on a Starlette endpoint).
    - Flask: ``gatehouse.init_app(app)`` and ``@gatehouse.require("payments")`` under ``@app.post(…)``; the judgement
      in ``flask.g.gatehouse``.
    - Django: ``@gatehouse.require("payments")`` on a view (sync or async); the judgement in ``request.gatehouse``.
    - Anything else: :meth:`judge` / :meth:`judge_async`.

    The judgement is ``{"outcome", "route", "verification"}``. A refusal answers as the edge check does (``401``,
    ``403``, ``application/problem+json``). When Gatehouse cannot be reached to judge (no routes or keys yet, a
    ``consume`` spend) a call is refused ``503`` ``gatehouse-unavailable`` with ``Retry-After`` under ``enforce``,
    or let through uncounted with ``on_unavailable="pass"``; a refused secret key or another environment's is ``503``
    ``gatehouse-misconfigured``. Counts go to Gatehouse once a minute, on the ASGI lifespan's shutdown (after
    ``init_app``), on ``SIGTERM``/``SIGINT`` (the handlers are chained; create the ``Gatehouse`` in the main thread,
    at import) and at exit."""

    def __init__(self, gatehouse_url: str, *, environment: str, secret_key: str,
                 routes: Optional[Sequence[Dict[str, Any]]] = None, on_unavailable: str = "refuse",
                 report: bool = True, mode: str = "monitor") -> None:
        if not isinstance(secret_key, str):
            raise ValueError("secret_key must be one of the environment's secret keys (sk_…)")
        self.enforcer = Enforcer(gatehouse_url=gatehouse_url, environment=environment, routes=routes, mode=mode,
                                 secret_key=secret_key, report=report, on_unavailable=on_unavailable)

    def require(self, name: str, *, mode: Optional[str] = None) -> "Guard":
        """The guard of the handlers of route ``name`` (``mode``, when given, overrides the route's)."""
        if not isinstance(name, str) or not _NAME.match(name):
            raise ValueError("a guard names a route: [a-z0-9][a-z0-9-]{0,39}, as on the Enforcement tab")
        if mode is not None and mode not in MODES:
            raise ValueError("mode must be off, monitor or enforce (or None: the route's)")
        return Guard(self, name, mode)

    def judge(self, name: str, *, method: str, path_and_query: str, token: Optional[str], proof: Optional[str] = None,
              mode: Optional[str] = None) -> Judgement:
        """Judges a call of route ``name`` in the calling thread: ``method`` and ``path_and_query`` as the request
        carries them (the proof signs those), ``token`` and ``proof`` its ``antibot-token`` and ``antibot-pop``
        headers. Answer ``judgement.refusal()`` unless ``judgement.allows``."""
        return self.enforcer.judge_named(name, mode, method, path_and_query, token, proof)

    async def judge_async(self, name: str, *, method: str, path_and_query: str, token: Optional[str],
                          proof: Optional[str] = None, mode: Optional[str] = None) -> Judgement:
        """:meth:`judge` on the event loop (what blocks runs in a worker thread)."""
        return await self.enforcer.judge_named_async(name, mode, method, path_and_query, token, proof)

    def init_app(self, app: Any) -> None:
        """Makes a FastAPI, Starlette or Flask application answer a guard's refusal with its problem (FastAPI would
        otherwise answer ``{"detail": …}``), and, for FastAPI and Starlette, send the counts on the lifespan's
        shutdown. Django needs no call."""
        _frameworks.init_app(app, self)

    def flush(self) -> None:
        """Sends what was counted and not reported yet."""
        self.enforcer.flush()

    def close(self) -> None:
        """Stops fetching routes and reporting, sending what was counted."""
        self.enforcer.close()

    def __repr__(self) -> str:
        return f"Gatehouse({self.enforcer.gatehouse_url!r}, environment={self.enforcer.environment!r})"


class Guard:
    """The guard of one route: a FastAPI dependency (``Depends(guard)``), and a decorator for Flask, Django and
    Starlette views."""

    def __init__(self, gatehouse: Gatehouse, name: str, mode: Optional[str]) -> None:
        self.gatehouse = gatehouse
        self.name = name
        self.mode = mode

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not args and list(kwargs) == ["request"]:
            return self.dependency(kwargs["request"])  # FastAPI, through __wrapped__'s signature
        if len(args) == 1 and not kwargs and callable(args[0]):
            return self._decorated(args[0])
        raise TypeError("a guard decorates a view (@gatehouse.require(name)) or is a FastAPI dependency "
                        "(Depends(gatehouse.require(name)))")

    @property
    def __wrapped__(self) -> Callable[..., Any]:
        """What FastAPI inspects: ``async def (request: starlette.requests.Request) -> dict``."""
        try:
            return _frameworks.starlette_dependency(self)
        except ImportError:
            raise AttributeError("__wrapped__") from None

    async def dependency(self, request: Any) -> Dict[str, Any]:
        """Judges a Starlette request: the judgement (also in ``request.state.gatehouse``), or raises
        :class:`GatehouseRefusal`."""
        _frameworks.check_init(request)
        judgement = await self._judge_async(_frameworks.STARLETTE, request)
        if not judgement.allows:
            raise GatehouseRefusal(judgement)
        return judgement.state()

    def _judge(self, kind: str, request: Any) -> Judgement:
        method, target, token, proof = _frameworks.call_of(kind, request)
        judgement = self.gatehouse.enforcer.judge_named(self.name, self.mode, method, target, token, proof)
        _frameworks.remember(kind, request, judgement.state())
        return judgement

    async def _judge_async(self, kind: str, request: Any) -> Judgement:
        method, target, token, proof = _frameworks.call_of(kind, request)
        judgement = await self.gatehouse.enforcer.judge_named_async(self.name, self.mode, method, target, token, proof)
        _frameworks.remember(kind, request, judgement.state())
        return judgement

    def _decorated(self, view: Callable[..., Any]) -> Callable[..., Any]:
        if inspect.iscoroutinefunction(view):
            @functools.wraps(view)
            async def guarded_async(*args: Any, **kwargs: Any) -> Any:
                kind, request = _frameworks.request_of(args)
                if kind == _frameworks.FLASK:
                    judgement = self._judge(kind, request)
                else:
                    judgement = await self._judge_async(kind, request)
                if not judgement.allows:
                    return _frameworks.refusal_response(kind, judgement)
                return await view(*args, **kwargs)

            return guarded_async

        @functools.wraps(view)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            kind, request = _frameworks.request_of(args)
            judgement = self._judge(kind, request)
            if not judgement.allows:
                return _frameworks.refusal_response(kind, judgement)
            return view(*args, **kwargs)

        return guarded

    def __repr__(self) -> str:
        return f"Guard({self.name!r}, mode={self.mode!r})"

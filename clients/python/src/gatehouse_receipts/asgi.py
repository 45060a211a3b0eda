"""The ASGI middleware (Starlette, FastAPI, any ASGI application): each HTTP call judged as Gatehouse's edge check
judges it, refused under ``enforce`` unless ``verified``, and its outcome left for the handler in
``scope["state"]["gatehouse"]`` (Starlette: ``request.state.gatehouse``)."""
from __future__ import annotations

from typing import Any, Awaitable, Callable, Dict, MutableMapping, Optional, Sequence
from urllib.parse import quote

from ._enforce import PROOF_HEADER, TOKEN_HEADER, Enforcer, Judgement

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_TOKEN = TOKEN_HEADER.encode()
_PROOF = PROOF_HEADER.encode()


def target_of(scope: Scope) -> str:
    """The call's path and query exactly as sent (``raw_path`` and ``query_string``), as text byte for byte."""
    raw = scope.get("raw_path")
    if not raw:
        raw = quote(scope.get("root_path", "") + scope.get("path", "/"), safe="/!$&'()*+,;=:@-._~%").encode("latin-1", "replace")
    target = bytes(raw).decode("latin-1")
    query = scope.get("query_string") or b""
    if query:
        target += "?" + bytes(query).decode("latin-1")
    return target


class GatehouseMiddleware:
    """Checks the Gatehouse receipt (``antibot-token``) and request proof (``antibot-pop``) of every HTTP call
    before ``app`` sees it.

    ``routes`` are dicts as in the environment's ``enforcement.routes`` (``{"name", "match", "mode", "require",
    "consume"}``; the same ``match`` syntax and path normalization; the first match wins); a call no route matches is
    judged under ``mode`` and counted as ``(unmatched)``. Under ``monitor`` every call passes; under ``enforce`` only
    ``verified`` ones do, the others get the edge check's ``401``/``403`` ``application/problem+json``. The handler
    finds ``{"outcome", "route", "verification"}`` in ``scope["state"]["gatehouse"]``.

    A ``consume`` route spends its receipt through Gatehouse (``secret_key`` needed; the only network call in a
    request's path, in a worker thread). When the middleware cannot judge (no keys could ever be fetched, or Gatehouse
    is unreachable for a spend) it answers ``503`` with ``Retry-After`` under ``enforce`` and lets the call pass
    uncounted under ``monitor``. With ``secret_key`` and ``report``, the counts go to Gatehouse once a minute from a
    background thread. WebSocket and lifespan events pass through unjudged."""

    def __init__(self, app: ASGIApp, *, gatehouse_url: str, environment: str, routes: Sequence[Dict[str, Any]] = (),
                 mode: str = "monitor", secret_key: Optional[str] = None, report: bool = True) -> None:
        self.app = app
        self.enforcer = Enforcer(gatehouse_url=gatehouse_url, environment=environment, routes=routes, mode=mode,
                                 secret_key=secret_key, report=report)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        token: Optional[bytes] = None
        proof: Optional[bytes] = None
        for name, value in scope.get("headers") or ():
            lower = bytes(name).lower()
            if token is None and lower == _TOKEN:
                token = value
            elif proof is None and lower == _PROOF:
                proof = value
        judgement = await self.enforcer.judge_async(
            str(scope.get("method", "GET")), target_of(scope),
            None if token is None else bytes(token).decode("latin-1"),
            None if proof is None else bytes(proof).decode("latin-1"))
        state = scope.get("state")
        if state is None:
            state = scope["state"] = {}
        state["gatehouse"] = judgement.state()
        if not judgement.allows:
            await _refuse(judgement, send)
            return
        await self.app(scope, receive, send)

    def close(self) -> None:
        """Stops reporting, sending what was counted (also done at interpreter exit)."""
        self.enforcer.close()


async def _refuse(judgement: Judgement, send: Send) -> None:
    status, headers, body = judgement.refusal()
    await send({"type": "http.response.start", "status": status,
                "headers": [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers]})
    await send({"type": "http.response.body", "body": body, "more_body": False})

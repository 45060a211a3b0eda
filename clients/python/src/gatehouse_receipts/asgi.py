"""The ASGI middleware (Starlette, FastAPI, any ASGI application): each HTTP call judged as Gatehouse's edge check
judges it, refused under ``enforce`` unless ``verified``, and its outcome left for the handler in
``scope["state"]["gatehouse"]`` (Starlette: ``request.state.gatehouse``). It matches the bytes the client sent
(``raw_path`` and ``query_string``), never the decoded ``path``."""
from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable, Dict, MutableMapping, Optional, Sequence, Tuple
from urllib.parse import quote

from ._enforce import PROOF_HEADER, TOKEN_HEADER, Enforcer
from ._judgement import Judgement

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_TOKEN = TOKEN_HEADER.encode()
_PROOF = PROOF_HEADER.encode()


def target_of(scope: Scope) -> str:
    """The call's path and query exactly as sent (``raw_path`` and ``query_string``), as text byte for byte; a
    server that gives no ``raw_path`` has its ``root_path`` and ``path`` quoted back."""
    raw = scope.get("raw_path")
    if not raw:
        raw = quote(scope.get("root_path", "") + scope.get("path", "/"), safe="/!$&'()*+,;=:@-._~%").encode("latin-1", "replace")
    target = bytes(raw).decode("latin-1")
    query = scope.get("query_string") or b""
    if query:
        target += "?" + bytes(query).decode("latin-1")
    return target


def receipt_headers(scope: Scope) -> Tuple[Optional[str], Optional[str]]:
    """The first ``antibot-token`` and ``antibot-pop`` headers of an ASGI scope, as text byte for byte."""
    token: Optional[bytes] = None
    proof: Optional[bytes] = None
    for name, value in scope.get("headers") or ():
        lower = bytes(name).lower()
        if token is None and lower == _TOKEN:
            token = value
        elif proof is None and lower == _PROOF:
            proof = value
    return (None if token is None else bytes(token).decode("latin-1"),
            None if proof is None else bytes(proof).decode("latin-1"))


class GatehouseMiddleware:
    """Checks the Gatehouse receipt (``antibot-token``) and request proof (``antibot-pop``) of every HTTP call
    before ``app`` sees it.

    ``routes=None`` (the default) fetches the environment's routes and modes from Gatehouse
    (``GET /api/v4/edge/routes``, ``secret_key`` needed) at start and every 30 s, so a switch on the Enforcement tab
    reaches the backend within a minute; until the first answer every call is judged as if Gatehouse were
    unavailable. ``routes`` given in code (even ``[]``) win: dicts as in the environment's ``enforcement.routes``
    (``{"name", "match", "mode", "require", "consume"}``), with ``mode`` for calls no route matches (counted as
    ``(unmatched)``) and routes that name none. Matching is the edge check's: the first match wins, ``HEAD`` is
    judged as ``GET``, methods and literal segments without regard to ASCII case, a trailing ``/`` insignificant, and
    a path holding ``;``, ``#``, ``\\``, a control character, ``%2F`` or ``%00`` (raw or encoded), bad
    percent-encoding or ``..`` above the root ``invalid`` under the strictest mode there is.

    Under ``monitor`` every call passes; under ``enforce`` only ``verified`` ones do, the others get the edge check's
    ``401``/``403`` ``application/problem+json``. The handler finds ``{"outcome", "route", "verification"}`` in
    ``scope["state"]["gatehouse"]``: a sensitive handler should check that ``route`` is its own (a route table in
    front of a framework's router cannot know every spelling the router accepts; a guard on the handler can, see
    :class:`~gatehouse_receipts.Gatehouse`).

    A ``consume`` route spends its receipt through Gatehouse (the only network call in a request's path, in a worker
    thread). When the middleware cannot judge (no routes or keys yet, or Gatehouse unreachable for a spend) it
    answers ``503`` ``gatehouse-unavailable`` with ``Retry-After`` under ``enforce`` (``on_unavailable="pass"`` lets
    the call through uncounted) and lets the call pass uncounted under ``monitor``; a secret key Gatehouse refuses, or
    one of another environment, answers ``503`` ``gatehouse-misconfigured``. With ``secret_key`` and ``report``, the
    counts go to Gatehouse once a minute from a background thread, and on the lifespan's ``shutdown``, ``SIGTERM``,
    ``SIGINT`` and at exit. WebSocket events pass through unjudged."""

    def __init__(self, app: ASGIApp, *, gatehouse_url: str, environment: str,
                 routes: Optional[Sequence[Dict[str, Any]]] = None, mode: str = "monitor",
                 secret_key: Optional[str] = None, report: bool = True, on_unavailable: str = "refuse") -> None:
        self.app = app
        self.enforcer = Enforcer(gatehouse_url=gatehouse_url, environment=environment, routes=routes, mode=mode,
                                 secret_key=secret_key, report=report, on_unavailable=on_unavailable)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope.get("type")
        if kind == "lifespan":
            await self.app(scope, self._flushing(receive), send)
            return
        if kind != "http":
            await self.app(scope, receive, send)
            return
        token, proof = receipt_headers(scope)
        judgement = await self.enforcer.judge_async(str(scope.get("method", "GET")), target_of(scope), token, proof)
        state = scope.get("state")
        if state is None:
            state = scope["state"] = {}
        state["gatehouse"] = judgement.state()
        if not judgement.allows:
            await _refuse(judgement, send)
            return
        await self.app(scope, receive, send)

    def _flushing(self, receive: Receive) -> Receive:
        """``receive`` for the lifespan: the counts sent when the server says it shuts down (after its last call)."""
        enforcer = self.enforcer

        async def flushing_receive() -> MutableMapping[str, Any]:
            message = await receive()
            if message.get("type") == "lifespan.shutdown":
                await asyncio.get_running_loop().run_in_executor(None, enforcer.flush)
            return message

        return flushing_receive

    def close(self) -> None:
        """Stops fetching routes and reporting, sending what was counted (also done at interpreter exit)."""
        self.enforcer.close()


async def _refuse(judgement: Judgement, send: Send) -> None:
    status, headers, body = judgement.refusal()
    await send({"type": "http.response.start", "status": status,
                "headers": [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers]})
    await send({"type": "http.response.body", "body": body, "more_body": False})

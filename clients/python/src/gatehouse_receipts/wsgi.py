"""The WSGI middleware (Flask, Django's WSGI handler, any WSGI application): each call judged as Gatehouse's edge
check judges it, refused under ``enforce`` unless ``verified``, and its outcome left for the handler in
``environ["gatehouse"]`` (Flask: ``request.environ``; Django: ``request.META``)."""
from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, Optional, Sequence
from urllib.parse import quote

from ._enforce import Enforcer

WSGIApp = Callable[[Dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def target_of(environ: Dict[str, Any]) -> str:
    """The call's path and query exactly as sent: the server's raw request target (``RAW_URI`` as gunicorn and
    Werkzeug name it, ``REQUEST_URI`` as waitress does), else rebuilt from ``SCRIPT_NAME``, ``PATH_INFO`` and
    ``QUERY_STRING``."""
    for name in ("RAW_URI", "REQUEST_URI"):
        value = environ.get(name)
        if isinstance(value, str) and value:
            return value
    path = environ.get("SCRIPT_NAME", "") + environ.get("PATH_INFO", "")
    target = quote(path.encode("latin-1", "replace"), safe="/!$&'()*+,;=:@-._~") or "/"
    query = environ.get("QUERY_STRING", "")
    return target + ("?" + query if query else "")


class GatehouseWSGIMiddleware:
    """Checks the Gatehouse receipt (``HTTP_ANTIBOT_TOKEN``) and request proof (``HTTP_ANTIBOT_POP``) of every call
    before ``app`` sees it: the same arguments, routes, outcomes, refusals and reporting as
    :class:`~gatehouse_receipts.GatehouseMiddleware`; the handler finds ``{"outcome", "route", "verification"}`` in
    ``environ["gatehouse"]``. A ``consume`` route's spend runs in the request's thread (bounded by a timeout)."""

    def __init__(self, app: WSGIApp, *, gatehouse_url: str, environment: str, routes: Sequence[Dict[str, Any]] = (),
                 mode: str = "monitor", secret_key: Optional[str] = None, report: bool = True) -> None:
        self.app = app
        self.enforcer = Enforcer(gatehouse_url=gatehouse_url, environment=environment, routes=routes, mode=mode,
                                 secret_key=secret_key, report=report)

    def __call__(self, environ: Dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        judgement = self.enforcer.judge(str(environ.get("REQUEST_METHOD", "GET")), target_of(environ),
                                        environ.get("HTTP_ANTIBOT_TOKEN"), environ.get("HTTP_ANTIBOT_POP"))
        environ["gatehouse"] = judgement.state()
        if not judgement.allows:
            status, headers, body = judgement.refusal()
            reason = {401: "Unauthorized", 403: "Forbidden", 503: "Service Unavailable"}.get(status, "Refused")
            start_response(f"{status} {reason}", headers)
            return [body]
        return self.app(environ, start_response)

    def close(self) -> None:
        """Stops reporting, sending what was counted (also done at interpreter exit)."""
        self.enforcer.close()

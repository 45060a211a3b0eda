"""The WSGI middleware (Flask, Django's WSGI handler, any WSGI application): each call judged as Gatehouse's edge
check judges it, refused under ``enforce`` unless ``verified``, and its outcome left for the handler in
``environ["gatehouse"]`` (Flask: ``request.environ``; Django: ``request.META``)."""
from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, Optional, Sequence, Tuple
from urllib.parse import quote

from ._enforce import Enforcer

WSGIApp = Callable[[Dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def target_of(environ: Dict[str, Any]) -> str:
    """The call's path and query as sent, as well as WSGI allows: the server's raw request target when it gives one
    (``RAW_URI`` as gunicorn and Werkzeug name it, ``REQUEST_URI`` as gunicorn, Werkzeug and waitress do; an
    absolute-form target is cut to its path and query when judged), else ``SCRIPT_NAME`` and ``PATH_INFO``
    percent-encoded back (every byte but unreserved characters, ``/`` and sub-delimiters, so a ``;``, ``#``, ``\\``
    or control character the server decoded is still seen) with ``QUERY_STRING``. A WSGI middleware that rewrites
    ``PATH_INFO`` before this one is not seen: put this middleware outermost."""
    for name in ("RAW_URI", "REQUEST_URI"):
        value = environ.get(name)
        if isinstance(value, str) and value:
            return value
    path = environ.get("SCRIPT_NAME", "") + environ.get("PATH_INFO", "")
    target = quote(path.encode("latin-1", "replace"), safe="/!$&'()*+,;=:@-._~") or "/"
    query = environ.get("QUERY_STRING", "")
    return target + ("?" + query if query else "")


def receipt_headers(environ: Dict[str, Any]) -> Tuple[Optional[str], Optional[str]]:
    """The ``antibot-token`` and ``antibot-pop`` headers of a WSGI environ."""
    token, proof = environ.get("HTTP_ANTIBOT_TOKEN"), environ.get("HTTP_ANTIBOT_POP")
    return (token if isinstance(token, str) else None), (proof if isinstance(proof, str) else None)


class GatehouseWSGIMiddleware:
    """Checks the Gatehouse receipt (``HTTP_ANTIBOT_TOKEN``) and request proof (``HTTP_ANTIBOT_POP``) of every call
    before ``app`` sees it: the same arguments, routes (fetched from Gatehouse with ``routes=None``), matching,
    outcomes, refusals and reporting as :class:`~gatehouse_receipts.GatehouseMiddleware`; the handler finds
    ``{"outcome", "route", "verification"}`` in ``environ["gatehouse"]``. The call is matched on the raw request
    target (see :func:`target_of`). A ``consume`` route's spend runs in the request's thread (bounded by a
    timeout). What was counted is sent at interpreter exit and on ``SIGTERM``."""

    def __init__(self, app: WSGIApp, *, gatehouse_url: str, environment: str,
                 routes: Optional[Sequence[Dict[str, Any]]] = None, mode: str = "monitor",
                 secret_key: Optional[str] = None, report: bool = True, on_unavailable: str = "refuse") -> None:
        self.app = app
        self.enforcer = Enforcer(gatehouse_url=gatehouse_url, environment=environment, routes=routes, mode=mode,
                                 secret_key=secret_key, report=report, on_unavailable=on_unavailable)

    def __call__(self, environ: Dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        token, proof = receipt_headers(environ)
        judgement = self.enforcer.judge(str(environ.get("REQUEST_METHOD", "GET")), target_of(environ), token, proof)
        environ["gatehouse"] = judgement.state()
        if not judgement.allows:
            status, headers, body = judgement.refusal()
            start_response(judgement.status_line(), headers)
            return [body]
        return self.app(environ, start_response)

    def close(self) -> None:
        """Stops reporting, sending what was counted (also done at interpreter exit)."""
        self.enforcer.close()

"""The few HTTP calls the library makes to Gatehouse (standard library only): no redirects followed, bounded
answers, and errors that never carry the secret key."""
from __future__ import annotations

import json
import socket
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Optional, Tuple

#: The largest answer read from Gatehouse (a JWKS is at most 64 KiB).
MAX_ANSWER_BYTES = 1 << 20


class GatehouseUnavailable(ConnectionError):
    """Gatehouse could not be reached, timed out, or answered 5xx or 429: try again later."""


class GatehouseError(RuntimeError):
    """Gatehouse refused the call (4xx other than 429): a wrong secret key or a call it cannot take. ``status`` is
    the HTTP status, ``problem`` the answer's problem document (a dict) when it sent one."""

    def __init__(self, message: str, status: int, problem: Optional[Dict[str, Any]] = None) -> None:
        super().__init__(message)
        self.status = status
        self.problem = problem


def base_url(url: str, what: str = "gatehouse_url") -> str:
    """``url`` checked: an http or https address with a host (no credentials, query or fragment)."""
    if not isinstance(url, str):
        raise TypeError(f"{what} must be a str such as https://gatehouse.example.com")
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.username or parts.password:
        raise ValueError(f"{what} must be an http(s) address such as https://gatehouse.example.com")
    if parts.query or parts.fragment:
        raise ValueError(f"{what} must have no query or fragment")
    return url


def join(base: str, path: str) -> str:
    """``path`` (absolute) under the base address ``base``."""
    return base.rstrip("/") + path


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_opener = urllib.request.build_opener(_NoRedirect)


def request(method: str, url: str, *, headers: Dict[str, str], body: Optional[bytes] = None,
            timeout: float) -> Tuple[int, Dict[str, str], bytes]:
    """(status, {lower-case header: value}, body) of one call; any answer, 4xx and 5xx included, is returned.

    Raises :class:`GatehouseUnavailable` when no answer came (refused, reset, timed out, unreadable)."""
    call = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        # The address was checked by base_url (http or https only), so no file: or custom scheme is opened.
        with _opener.open(call, timeout=timeout) as answer:
            data = answer.read(MAX_ANSWER_BYTES + 1)
            return answer.status, {k.lower(): v for k, v in answer.headers.items()}, data[:MAX_ANSWER_BYTES]
    except urllib.error.HTTPError as error:
        try:
            data = error.read(MAX_ANSWER_BYTES + 1)
        except (OSError, ValueError):
            data = b""
        return error.code, {k.lower(): v for k, v in (error.headers or {}).items()}, data[:MAX_ANSWER_BYTES]
    except (urllib.error.URLError, socket.timeout, OSError, ValueError) as error:
        reason = getattr(error, "reason", error)
        raise GatehouseUnavailable(f"{method} {_redacted(url)}: {type(reason).__name__}") from None


def _redacted(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.hostname}{':' + str(parts.port) if parts.port else ''}{parts.path}"


def problem_of(data: bytes) -> Optional[Dict[str, Any]]:
    try:
        value = json.loads(data)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def refusal(method: str, url: str, status: int, data: bytes) -> Exception:
    """The exception for an answer other than the one expected: unavailable for 5xx and 429, else an error."""
    problem = problem_of(data)
    detail = problem.get("detail") if problem else None
    message = f"{method} {_redacted(url)} answered {status}" + (f": {detail}" if isinstance(detail, str) else "")
    if status >= 500 or status == 429:
        return GatehouseUnavailable(message)
    return GatehouseError(message, status, problem)

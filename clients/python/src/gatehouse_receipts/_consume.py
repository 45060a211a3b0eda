"""Spending a receipt once, through Gatehouse (``POST /api/v4/receipts/verify`` with ``"consume": true``)."""
from __future__ import annotations

import json
from typing import Any, Dict, Optional, Union

from . import _http
from ._claims import Claims
from ._http import GatehouseError
from ._strict import StrictError, b64url_decode
from ._verify import MALFORMED, SIGNATURE_INVALID, ReceiptPolicy, Verification, _ascii_bytes

VERIFY_PATH = "/api/v4/receipts/verify"
#: Seconds a consuming check may take before Gatehouse counts as unreachable.
CONSUME_TIMEOUT = 5.0
_METHOD_CHARACTERS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$%&'*+-.^_`|~")
_MAX_TOKEN_BYTES = 8192


def _text(value: Union[str, bytes], name: str) -> str:
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("latin-1")
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str or bytes")
    return value


def callable_path(method: str, path_and_query: str) -> bool:
    """Whether Gatehouse's verify endpoint takes this call's method (RFC 9110 token, 1 to 32 characters) and path
    (origin form: ``/`` first, visible ASCII, at most 8192 bytes)."""
    raw = method.encode("utf-8", "surrogatepass")
    path = path_and_query.encode("utf-8", "surrogatepass")
    return (0 < len(raw) <= 32 and all(b in _METHOD_CHARACTERS for b in raw) and path[:1] == b"/"
            and len(path) <= 8192 and all(0x21 <= b <= 0x7E for b in path))


def spend(token: Any, *, gatehouse_url: str, secret_key: str, method: Union[str, bytes],
          path_and_query: Union[str, bytes], proof: Optional[Union[str, bytes]], policy: Optional[ReceiptPolicy],
          consume: bool = True, timeout: float = CONSUME_TIMEOUT) -> Verification:
    """The server's check of ``token`` (spending it when ``consume`` and it is otherwise valid)."""
    data = _ascii_bytes(token)
    if data is None or len(data) > _MAX_TOKEN_BYTES:
        # What the server answers too (no receipt of ours holds another character), without a call.
        return Verification([MALFORMED])
    method_text = _text(method, "method")
    path_text = _text(path_and_query, "path_and_query")
    if not callable_path(method_text, path_text):
        raise ValueError("Gatehouse checks calls whose method is an HTTP token and whose path and query start with / "
                         "and are at most 8192 visible ASCII characters")
    proof_bytes = _ascii_bytes(proof) if proof is not None else None
    # A proof that is not ASCII is unreadable, as an empty one is: the same answer, and JSON that carries.
    proof_text = None if proof is None else (proof_bytes.decode("ascii") if proof_bytes is not None else "")
    body: Dict[str, Any] = {"token": data.decode("ascii"), "method": method_text, "pathAndQuery": path_text,
                            "proof": proof_text, "consume": bool(consume)}
    if policy is not None:
        body["require"] = policy.to_json()
    url = _http.join(gatehouse_url, VERIFY_PATH)
    status, _, answer = _http.request(
        "POST", url, body=json.dumps(body).encode(), timeout=timeout,
        headers={"Authorization": "Bearer " + secret_key, "Content-Type": "application/json",
                 "Accept": "application/json", "User-Agent": "gatehouse-receipts-python"})
    if status != 200:
        raise _http.refusal("POST", url, status, answer)
    try:
        result = json.loads(answer)
        reasons = [str(reason) for reason in result["reasons"]]
        consumed = result.get("consumed") is True
    except (ValueError, KeyError, TypeError):
        raise GatehouseError(f"POST {VERIFY_PATH} answered 200 without a verification", status) from None
    claims: Optional[Dict[str, Any]] = None
    if MALFORMED not in reasons and SIGNATURE_INVALID not in reasons:
        # Gatehouse verified the signature: the payload is the receipt's.
        try:
            parsed = Claims(b64url_decode(data.split(b".")[1]) or b"")
            claims = parsed.payload
        except (StrictError, IndexError):
            parsed = None
        return Verification(reasons, claims, consumed=consumed, parsed=parsed)
    return Verification(reasons, consumed=consumed)


def consume(token: Union[str, bytes], *, gatehouse_url: str, secret_key: str, method: Union[str, bytes],
            path_and_query: Union[str, bytes], proof: Optional[Union[str, bytes]] = None,
            policy: Optional[ReceiptPolicy] = None) -> Verification:
    """Checks the receipt ``token`` with Gatehouse and spends it when it is otherwise valid
    (``POST /api/v4/receipts/verify`` with ``"consume": true``, authenticated by the environment's ``secret_key``):
    for an operation that must happen once (a payment, a password change). Of concurrent consuming checks exactly
    one is valid (``.consumed`` True); every later check of the receipt, on any server, is not valid, reason
    ``consumed``. The same reasons as :func:`verify_session_token` otherwise, under ``policy``.

    Raises :class:`GatehouseUnavailable` when Gatehouse cannot be reached (or answers 5xx), :class:`GatehouseError`
    when it refuses the call (a wrong secret key), ValueError for a method or path it cannot check (not an HTTP
    token; not ``/``-first visible ASCII of at most 8192 bytes). Never raises on the token or the proof."""
    base = _http.base_url(gatehouse_url)
    if not isinstance(secret_key, str) or not secret_key:
        raise ValueError("secret_key must be one of the environment's secret keys (sk_…)")
    return spend(token, gatehouse_url=base, secret_key=secret_key, method=method, path_and_query=path_and_query,
                 proof=proof, policy=policy, consume=True)

"""The claims of a Gatehouse receipt and the protected header it carries, read as GatehouseReceipts reads them
(``ReceiptClaims``, ``ReceiptHeader``)."""
from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

from ._keys import PublicJWK, ReceiptError
from ._strict import StrictError, integer_member, parse_strict_object, strict_object, utf8_length

ISSUER = "gatehouse"
#: How long a receipt is valid, in seconds (``exp − iat``).
LIFETIME = 600
ALGORITHM = "ES256"
TYPE = "gatehouse-receipt+jwt"
ACTIONS = ("allow", "challenge")


class AlgorithmRefused(Exception):
    """A header whose ``alg`` is anything but ES256 (``none``, ``HS256``…): reason ``signatureInvalid``."""


_kids: "dict[bytes, str]" = {}


def header_kid_cached(segment: bytes, data: bytes) -> str:
    """:func:`header_kid`, remembered by the header's base64url text (every receipt of a key has the same header):
    only headers that read are remembered, at most 256."""
    kid = _kids.get(segment)
    if kid is None:
        kid = header_kid(data)
        if len(_kids) >= 256:
            _kids.clear()
        _kids[segment] = kid
    return kid


def header_kid(data: bytes) -> str:
    """The ``kid`` of a receipt's protected header.

    Raises :class:`AlgorithmRefused` when ``alg`` is not ES256, :class:`StrictError` when it is not a JSON object
    (each member once) with ``typ`` ours, no ``crit`` (no extension is understood, RFC 7515 §4.1.11) and a ``kid`` of
    1 to 128 bytes."""
    obj = parse_strict_object(data, "the receipt's header")
    if obj.get("alg") != ALGORITHM:
        raise AlgorithmRefused()
    if obj.get("typ") != TYPE or "crit" in obj:
        raise StrictError("the receipt's header is not a Gatehouse receipt's")
    kid = obj.get("kid")
    if not isinstance(kid, str) or not kid or utf8_length(kid) > 128:
        raise StrictError("the receipt's header needs a kid of 1 to 128 bytes")
    return kid


def _string(value: Any, max_length: int, name: str) -> str:
    """A claim that must be a string of 1 to ``max_length`` UTF-8 bytes (``StrictObject.string``)."""
    if type(value) is not str or not value or utf8_length(value) > max_length:
        raise StrictError(f"the receipt's claims need {name} as a string of 1 to {max_length} bytes")
    return value


class Claims:
    """A receipt's payload, checked: ``iss`` gatehouse; ``env``, ``sub`` strings; ``iat``, ``exp`` whole numbers with
    ``0 < exp − iat ≤ 600``; ``plat`` (when present) a short string; ``action`` allow or challenge; ``att`` null or
    ``{provider, status}``; ``cnf`` (when present) ``{"jwk": P-256 public JWK}``."""

    __slots__ = ("payload", "environment", "subject", "issued_at", "expires_at", "platform", "action", "attestation",
                 "confirmation_key")

    def __init__(self, data: bytes) -> None:
        what = "the receipt's claims"
        obj = parse_strict_object(data, what)
        if obj.get("iss") != ISSUER:
            raise StrictError("the receipt's iss is not gatehouse")
        self.environment: str = _string(obj.get("env"), 256, "env")
        self.subject: str = _string(obj.get("sub"), 256, "sub")
        self.issued_at: int = integer_member(obj, "iat", what)
        self.expires_at: int = integer_member(obj, "exp", what)
        if not (self.expires_at > self.issued_at and self.expires_at - self.issued_at <= LIFETIME):
            raise StrictError(f"the receipt's exp must follow iat by at most {LIFETIME} seconds")
        self.platform: Optional[str] = _string(obj["plat"], 16, "plat") if "plat" in obj else None
        action = obj.get("action")
        if type(action) is not str or action not in ACTIONS:
            raise StrictError("the receipt's action must be allow or challenge")
        self.action: str = action
        att = obj.get("att")
        self.attestation: Optional[Tuple[str, str]] = None
        if att is not None:
            att = strict_object(att, "the receipt's att")
            self.attestation = (_string(att.get("provider"), 64, "att.provider"), _string(att.get("status"), 64, "att.status"))
        self.confirmation_key: Optional[PublicJWK] = None
        if "cnf" in obj:
            confirmation = strict_object(obj["cnf"], "the receipt's cnf")
            if "jwk" not in confirmation:
                raise StrictError("the receipt's cnf needs jwk")
            try:
                self.confirmation_key = PublicJWK.from_json(confirmation["jwk"])
            except ReceiptError as error:
                raise StrictError(f"the receipt's cnf.jwk: {error}") from None
        self.payload: Dict[str, Any] = obj

    @property
    def bound(self) -> bool:
        """Whether the receipt names a phone key, so every call must carry a proof by it."""
        return self.confirmation_key is not None

"""P-256 public keys as JSON Web Keys (RFC 7517, RFC 7518 §6.2) and the JWKS of receipt signing keys, read as
GatehouseReceipts' ``PublicJWK`` and ``JWKS`` read them."""
from __future__ import annotations

import json
from typing import Any, Dict, Iterator, List, Mapping, Optional, Tuple, Union

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from ._limits import ReceiptLimits
from ._strict import StrictError, b64url_decode, canonical, parse_strict_object, strict_object, utf8_length

_CURVE = ec.SECP256R1()
_ECDSA = ec.ECDSA(hashes.SHA256())


class ReceiptError(ValueError):
    """A JWK or JWKS that cannot be used (the keys handed to the library, not a client's input). The message says
    what is wrong with the shape, never the bytes, so it is safe to log."""


class PublicJWK:
    """A P-256 public key read from a JWK: ``kty`` EC, ``crv`` P-256, ``x``, ``y`` (the point checked on the curve),
    with a ``kid`` for the keys of a JWKS (none in a receipt's ``cnf.jwk``)."""

    __slots__ = ("kid", "x", "y", "key")

    def __init__(self, kid: Optional[str], x: bytes, y: bytes, key: ec.EllipticCurvePublicKey) -> None:
        self.kid = kid
        self.x = x
        self.y = y
        self.key = key

    @classmethod
    def from_json(cls, value: Any) -> "PublicJWK":
        """Reads a JWK object. Members other than ``kty``, ``crv``, ``x``, ``y``, ``kid``, ``use``, ``alg`` are
        ignored (RFC 7517 §4), save ``d``: private key material is refused.

        Raises :class:`ReceiptError` when it is not an EC P-256 public key whose point lies on the curve, or
        ``use``/``alg`` say it is for something else."""
        if type(value) is not dict:  # the common case, a plain dict, is checked inline (it is on every new receipt)
            try:
                value = strict_object(value, "a JWK")
            except StrictError as error:
                raise ReceiptError(str(error)) from None
        obj = value
        if obj.get("kty") != "EC" or obj.get("crv") != "P-256":
            raise ReceiptError("a JWK must be kty EC, crv P-256")
        if "d" in obj:
            raise ReceiptError("a JWK here must not hold private key material (d)")
        x = obj.get("x")
        y = obj.get("y")
        x = b64url_decode(x) if type(x) is str else None
        y = b64url_decode(y) if type(y) is str else None
        if x is None or y is None or len(x) != 32 or len(y) != 32:
            raise ReceiptError("a JWK needs x and y as base64url of 32 bytes each")
        if "use" in obj and obj["use"] != "sig":
            raise ReceiptError("a JWK's use must be sig")
        if "alg" in obj and obj["alg"] != "ES256":
            raise ReceiptError("a JWK's alg must be ES256")
        kid: Optional[str] = None
        if "kid" in obj:
            kid = obj["kid"]
            if not isinstance(kid, str) or not kid or utf8_length(kid) > 128:
                raise ReceiptError("a JWK's kid must be a string of 1 to 128 bytes")
        key = point_key(x, y)
        if key is None:
            raise ReceiptError("a JWK's point is not on P-256")
        return cls(kid, x, y, key)

    def verify_raw(self, signature: bytes, message: bytes) -> bool:
        """Whether ``signature`` (r ‖ s, 64 bytes) verifies over ``message``."""
        if len(signature) != 64:
            return False
        der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
        return self.verify_der(der, message)

    def verify_der(self, signature: bytes, message: bytes) -> bool:
        """Whether the DER ``signature`` verifies over ``message`` (OpenSSL refuses non-canonical DER)."""
        try:
            self.key.verify(signature, message, _ECDSA)
            return True
        except (InvalidSignature, ValueError, TypeError):
            return False

    def to_json(self) -> Dict[str, str]:
        """The JWK: ``kty``, ``crv``, ``x``, ``y``, plus ``kid``, ``use``, ``alg`` for a signing key."""
        from ._strict import b64url_encode

        out = {"kty": "EC", "crv": "P-256", "x": b64url_encode(self.x), "y": b64url_encode(self.y)}
        if self.kid is not None:
            out.update(kid=self.kid, use="sig", alg="ES256")
        return out

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PublicJWK) and (self.kid, self.x, self.y) == (other.kid, other.x, other.y)

    def __hash__(self) -> int:
        return hash((self.kid, self.x, self.y))

    def __repr__(self) -> str:
        return f"PublicJWK(kid={self.kid!r})"


def point_key(x: bytes, y: bytes) -> Optional[ec.EllipticCurvePublicKey]:
    """The P-256 key with affine coordinates ``x``, ``y`` (32 bytes each), or None when the point is not on the
    curve (or a coordinate is not below the field prime): OpenSSL checks, as it does for the Swift library."""
    try:
        return ec.EllipticCurvePublicKey.from_encoded_point(_CURVE, b"\x04" + x + y)
    except (ValueError, TypeError):
        return None


class JWKS:
    """A JSON Web Key Set (RFC 7517 §5) of receipt signing keys, each with a unique ``kid``: what
    ``GET /api/v4/receipts/keys`` serves. Read it once with :meth:`parse` and pass it to
    :func:`~gatehouse_receipts.verify_session_token` (or pass a :class:`~gatehouse_receipts.JWKSSource`)."""

    __slots__ = ("keys", "_by_kid", "_memory")

    def __init__(self, keys: List[PublicJWK]) -> None:
        self.keys: Tuple[PublicJWK, ...] = tuple(keys)
        self._memory: Any = None  # the receipts this set verified (_verify.SignatureMemory), made on first use
        self._by_kid: Dict[str, PublicJWK] = {}
        for key in self.keys:
            if key.kid is None:
                raise ReceiptError("every key of the JWKS needs a kid")
            name = canonical(key.kid)
            if name in self._by_kid:
                raise ReceiptError("the JWKS names a kid twice")
            self._by_kid[name] = key

    @classmethod
    def parse(cls, source: Union[str, bytes, Mapping[str, Any]], limits: Optional[ReceiptLimits] = None) -> "JWKS":
        """Reads ``{"keys": [JWK, …]}`` strictly from its JSON text (str or bytes) or a dict, within ``limits``.

        Raises :class:`ReceiptError` over the byte or key limit, or when it is not a JWKS of EC P-256 signing keys
        each with a unique ``kid``."""
        limits = limits or ReceiptLimits()
        if isinstance(source, Mapping):
            obj: Any = source
            if not isinstance(obj, dict):
                obj = dict(obj)
            try:
                size = len(json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass"))
            except (TypeError, ValueError):
                raise ReceiptError("the JWKS is not JSON") from None
        elif isinstance(source, (str, bytes, bytearray)):
            data = source.encode("utf-8", "surrogatepass") if isinstance(source, str) else bytes(source)
            size = len(data)
            obj = None
        else:
            raise ReceiptError("the JWKS must be its JSON text or a dict")
        if size > limits.max_key_set_bytes:
            raise ReceiptError(f"the JWKS is over {limits.max_key_set_bytes} bytes")
        try:
            obj = parse_strict_object(data, "the JWKS") if obj is None else strict_object(obj, "the JWKS")
        except StrictError as error:
            raise ReceiptError(str(error)) from None
        entries = obj.get("keys")
        if not isinstance(entries, list):
            raise ReceiptError("the JWKS needs keys as an array")
        if len(entries) > limits.max_keys:
            raise ReceiptError(f"the JWKS has over {limits.max_keys} keys")
        keys = [PublicJWK.from_json(entry) for entry in entries]
        return cls(keys)

    def key(self, kid: str) -> Optional[PublicJWK]:
        """The key named ``kid`` (compared as Swift compares strings), or None."""
        found = self._by_kid.get(kid)
        if found is None and not kid.isascii():
            found = self._by_kid.get(canonical(kid))
        return found

    def __contains__(self, kid: object) -> bool:
        return isinstance(kid, str) and self.key(kid) is not None

    def __iter__(self) -> Iterator[PublicJWK]:
        return iter(self.keys)

    def __len__(self) -> int:
        return len(self.keys)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, JWKS) and self.keys == other.keys

    def __hash__(self) -> int:
        return hash(self.keys)

    def to_json(self) -> Dict[str, Any]:
        """``{"keys": [...]}``."""
        return {"keys": [key.to_json() for key in self.keys]}

    def __repr__(self) -> str:
        return f"JWKS(kids={[key.kid for key in self.keys]!r})"

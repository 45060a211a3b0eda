"""Checking receipts offline (GatehouseReceipts' ``ReceiptVerifier``): the ES256 signature against the JWKS, the
expiry, the environment, a bound receipt's request proof, then the backend's policy. Never raises on what a client
sends: every failure is a reason."""
from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

from ._claims import AlgorithmRefused, Claims, _kids, header_kid_cached
from ._keys import JWKS, PublicJWK, ReceiptError
from ._limits import ReceiptLimits
from ._strict import StrictError, b64url_decode, same

from ._source import JWKSSource

MALFORMED = "malformed"
SIGNATURE_INVALID = "signatureInvalid"
EXPIRED = "expired"
WRONG_ENVIRONMENT = "wrongEnvironment"
SESSION_PROOF = "session:proof"
UNBOUND = "unbound"
UNATTESTED = "unattested"
CONSUMED = "consumed"

_INT64_MAX = 2**63 - 1
_INT64_MIN = -(2**63)


@dataclass(frozen=True)
class ReceiptPolicy:
    """What a backend demands of a receipt beyond its signature, expiry and environment (the ``require`` of
    ``POST /api/v4/receipts/verify`` and of an enforcement route): ``bound=True`` → a receipt without ``cnf`` is not
    valid (``unbound``); ``attestation="verified"`` → one whose ``att`` is not verified is not valid
    (``unattested``). A debug attestation (``att.provider`` ``debug``) is a bearer credential, not a genuine install:
    it meets ``attestation="verified"`` only with ``debug=True``."""

    bound: bool = False
    attestation: Optional[str] = None
    debug: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.bound, bool):
            raise ValueError("ReceiptPolicy.bound must be True or False")
        if self.attestation not in (None, "verified"):
            raise ValueError('ReceiptPolicy.attestation must be "verified" or None')
        if not isinstance(self.debug, bool):
            raise ValueError("ReceiptPolicy.debug must be True or False")

    @classmethod
    def from_json(cls, value: Any, pointer: str = "/require") -> "ReceiptPolicy":
        """Reads ``{"bound": bool, "attestation": "verified" | null, "debug": bool}`` (each member optional; None:
        nothing required), as the server reads ``require``. Raises ValueError naming the wrong member by pointer."""
        if value is None:
            return cls()
        if not isinstance(value, Mapping):
            raise ValueError(f'{pointer} must be an object {{"bound": true, "attestation": "verified"}}')
        fields: Dict[str, Any] = {}
        for name, member in value.items():
            if name == "bound" and isinstance(member, bool):
                fields["bound"] = member
            elif name == "attestation" and member in (None, "verified") and not isinstance(member, bool):
                fields["attestation"] = member
            elif name == "debug" and isinstance(member, bool):
                fields["debug"] = member
            elif name in ("bound", "debug"):
                raise ValueError(f"{pointer}/{name} must be true or false")
            elif name == "attestation":
                raise ValueError(f'{pointer}/attestation must be "verified" or null')
            else:
                raise ValueError(f"{pointer}/{name} is not a policy member: require takes bound, attestation and debug")
        return cls(**fields)

    def to_json(self) -> Dict[str, Any]:
        """The policy as the API takes it: only what it requires."""
        out: Dict[str, Any] = {}
        if self.bound:
            out["bound"] = True
        if self.attestation == "verified":
            out["attestation"] = "verified"
        if self.debug:
            out["debug"] = True
        return out

    def violations(self, claims: Claims) -> List[str]:
        """The reasons ``claims`` fail this policy, in the order ``unbound``, ``unattested``."""
        reasons = []
        if self.bound and not claims.bound:
            reasons.append(UNBOUND)
        if self.attestation == "verified" and not self._meets(claims.attestation):
            reasons.append(UNATTESTED)
        return reasons

    def _meets(self, attestation: Optional[Tuple[str, str]]) -> bool:
        if attestation is None or attestation[1] != "verified":
            return False
        return self.debug or attestation[0] != "debug"


_DEFAULT_POLICY = ReceiptPolicy()
_DEFAULT_LIMITS = ReceiptLimits()


class Verification:
    """What checking a receipt (and its proof) found.

    ``valid`` (no reasons), ``reasons`` (in GatehouseReceipts' order: ``malformed`` | ``signatureInvalid`` alone, else
    ``expired``, ``wrongEnvironment``, ``session:proof``, ``unbound``, ``unattested``, and ``consumed`` from the
    server), ``claims`` (the receipt's payload once its signature verified, else None) and what they say: ``action``,
    ``bound``, ``platform``, ``environment``, ``subject``, ``attestation``, ``expires_at``. ``consumed`` is True only
    for the check (:func:`~gatehouse_receipts.consume`) that spent the receipt."""

    __slots__ = ("reasons", "consumed", "_claims", "_parsed", "_shared")

    def __init__(self, reasons: List[str], claims: Optional[Dict[str, Any]] = None, *, consumed: bool = False,
                 parsed: Optional[Claims] = None) -> None:
        self.reasons: List[str] = reasons
        self.consumed: bool = consumed
        self._claims = claims
        self._parsed = parsed
        # Claims handed over with `parsed` are the ones a key set remembers: copied when first read, so a caller
        # that changes its dict changes nothing for the next check.
        self._shared = claims is None and parsed is not None

    @property
    def claims(self) -> Optional[Dict[str, Any]]:
        """The receipt's payload once its signature verified (every member, as signed), else None."""
        if self._shared:
            self._claims = _copy(self._parsed.payload) if self._parsed is not None else None
            self._shared = False
        return self._claims

    @property
    def valid(self) -> bool:
        """No reasons."""
        return not self.reasons

    def _claim(self, name: str) -> Any:
        claims = self._parsed.payload if self._shared and self._parsed is not None else self._claims
        return claims.get(name) if isinstance(claims, dict) else None

    @property
    def action(self) -> Optional[str]:
        """``allow`` or ``challenge`` (hold the call: attack mode, and no verified attestation); None before the
        signature verified."""
        value = self._claim("action")
        return value if isinstance(value, str) else None

    @property
    def bound(self) -> bool:
        """Whether the receipt is bound to a phone key (False when unknown)."""
        return isinstance(self._claim("cnf"), dict)

    @property
    def platform(self) -> Optional[str]:
        """``android`` or ``ios``, the platform the receipt's request was assessed as."""
        value = self._claim("plat")
        return value if isinstance(value, str) else None

    @property
    def environment(self) -> Optional[str]:
        """The receipt's environment (``env``)."""
        value = self._claim("env")
        return value if isinstance(value, str) else None

    @property
    def subject(self) -> Optional[str]:
        """The assessment's request id (``sub``): what to log beside the call."""
        value = self._claim("sub")
        return value if isinstance(value, str) else None

    @property
    def attestation(self) -> Optional[Dict[str, str]]:
        """``{"provider", "status"}`` of the attestation the receipt was issued on, or None."""
        value = self._claim("att")
        return dict(value) if isinstance(value, dict) else None

    @property
    def expires_at(self) -> Optional[int]:
        """When the receipt expires, unix seconds."""
        value = self._claim("exp")
        return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    def to_json(self) -> Dict[str, Any]:
        """The members of ``POST /api/v4/receipts/verify``'s answer (``expiresAt`` in unix seconds here)."""
        return {"valid": self.valid, "reasons": list(self.reasons), "environment": self.environment,
                "platform": self.platform, "action": self.action, "attestation": self.attestation,
                "bound": self.bound, "expiresAt": self.expires_at, "consumed": self.consumed}

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Verification) and self.reasons == other.reasons and self.claims == other.claims
                and self.consumed == other.consumed)

    def __repr__(self) -> str:
        return f"Verification(valid={self.valid}, reasons={self.reasons!r}, subject={self.subject!r})"


class _Signed:
    """A receipt whose signature verified: its claims and the ``kid`` of the key that signed them."""

    __slots__ = ("claims", "kid")

    def __init__(self, claims: Claims, kid: str) -> None:
        self.claims = claims
        self.kid = kid


class SignatureMemory:
    """Receipts whose signature verified, remembered by the token's SHA-256 until their ``exp``, so that a receipt
    seen before costs no ECDSA verify of its own (as the edge check does). Bounded: past ``limit`` entries the
    expired ones go, and if that is not enough, the older half (receipts arrive in about the order they expire, so
    the receipts of the last minutes stay). Thread-safe. One belongs to each :class:`JWKS` (a set of keys never
    changes, so a revoked key's receipts are forgotten with the set)."""

    def __init__(self, limit: int = 10_000) -> None:
        self._entries: Dict[bytes, _Signed] = {}
        self._lock = threading.Lock()
        self._limit = max(2, limit)

    def get(self, digest: bytes, now: int) -> Optional[_Signed]:
        found = self._entries.get(digest)
        return found if found is not None and found.claims.expires_at > now else None

    def keep(self, digest: bytes, signed: _Signed, now: int) -> None:
        with self._lock:
            entries = self._entries
            if len(entries) >= self._limit:
                entries = {k: v for k, v in entries.items() if v.claims.expires_at > now}
                if len(entries) >= self._limit * 3 // 4:
                    entries = dict(list(entries.items())[len(entries) - self._limit // 2:])
                self._entries = entries
            entries[digest] = signed

    def __len__(self) -> int:
        return len(self._entries)


def _memory(keys: JWKS) -> SignatureMemory:
    memory: Optional[SignatureMemory] = keys._memory
    if memory is None:
        with _parsed_lock:
            memory = keys._memory
            if memory is None:
                memory = keys._memory = SignatureMemory()
    return memory


class _Refused:
    __slots__ = ("reason", "unknown_kid")

    def __init__(self, reason: str, unknown_kid: Optional[str] = None) -> None:
        self.reason = reason
        self.unknown_kid = unknown_kid


def _ascii_bytes(value: Any) -> Optional[bytes]:
    """A header value's bytes when it is ASCII (str or bytes); None for anything else (no receipt or proof of ours
    holds any other character)."""
    if isinstance(value, str):
        return value.encode("ascii") if value.isascii() else None
    if isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
        return data if data.isascii() else None
    return None


def check_signature(token: Any, keys: JWKS, limits: ReceiptLimits = _DEFAULT_LIMITS,
                    now: Optional[int] = None) -> Union[_Signed, _Refused]:
    """The claims of ``token`` when its header is ours and its signature verifies under the JWKS key it names (the
    one costly step: an ECDSA verify, skipped for a receipt this key set verified before), else the one reason it
    has none."""
    data = _ascii_bytes(token)
    if data is None or len(data) > limits.max_token_bytes:
        return _Refused(MALFORMED)
    memory = _memory(keys)
    digest = hashlib.sha256(data).digest()
    if now is not None:
        known = memory.get(digest, now)
        if known is not None:
            return known
    segments = data.split(b".")
    if len(segments) != 3:
        return _Refused(MALFORMED)
    payload = b64url_decode(segments[1])
    signature = b64url_decode(segments[2])
    if payload is None or signature is None:
        return _Refused(MALFORMED)
    try:
        kid = _kids.get(segments[0])  # every receipt of one key has the same header: read it once
        if kid is None:
            header = b64url_decode(segments[0])
            if header is None:
                return _Refused(MALFORMED)
            kid = header_kid_cached(segments[0], header)
    except AlgorithmRefused:
        return _Refused(SIGNATURE_INVALID)
    except StrictError:
        return _Refused(MALFORMED)
    key = keys.key(kid)
    if key is None:
        return _Refused(SIGNATURE_INVALID, unknown_kid=kid)
    if len(signature) != 64:
        return _Refused(SIGNATURE_INVALID)
    if not key.verify_raw(signature, data[: len(segments[0]) + 1 + len(segments[1])]):
        return _Refused(SIGNATURE_INVALID)
    try:
        signed = _Signed(Claims(payload), kid)
    except StrictError:
        return _Refused(MALFORMED)
    if now is not None:
        memory.keep(digest, signed, now)
    return signed


def _message_part(value: Any, name: str) -> bytes:
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"{name} must be a str or bytes")


def _parse_proof(header: Any, limits: ReceiptLimits) -> Optional[Tuple[bytes, int, bytes]]:
    """``t=<digits>,s=<base64url>`` read exactly (that order, no spaces, no padding): the digits, the time and the
    signature (64 bytes, or a DER sequence of at most 72), else None."""
    data = _ascii_bytes(header)
    if data is None or len(data) > limits.max_proof_bytes:
        return None
    comma = data.find(b",")
    if comma < 0 or not data.startswith(b"t=") or not data.startswith(b"s=", comma + 1) or b"," in data[comma + 1:]:
        return None
    digits = data[2:comma]
    # No leading zero: the signed text is the number's decimal spelling, so each time has one spelling.
    if not 1 <= len(digits) <= 15 or not digits.isdigit() or (digits[:1] == b"0" and len(digits) > 1):
        return None
    signature = b64url_decode(data[comma + 3:])
    if signature is None or not (len(signature) == 64 or (len(signature) <= 72 and signature[:1] == b"\x30")):
        return None
    return digits, int(digits), signature


def _proof_holds(header: Any, key: PublicJWK, method: Any, path_and_query: Any, now_ms: int,
                 limits: ReceiptLimits) -> bool:
    proof = _parse_proof(header, limits)
    if proof is None:
        return False
    digits, timestamp, signature = proof
    age = now_ms - timestamp
    if age < _INT64_MIN or age > _INT64_MAX:
        return False
    if age > limits.proof_max_age_ms or age < -limits.proof_max_ahead_ms:
        return False
    message = digits + b"\n" + _message_part(method, "method") + b"\n" + _message_part(path_and_query, "path_and_query")
    if len(signature) == 64 and key.verify_raw(signature, message):
        return True
    # A DER signature is 64 bytes long too, once in about 2^50.
    return signature[:1] == b"\x30" and key.verify_der(signature, message)


def _now_ms(now_ms: Optional[int]) -> int:
    if now_ms is None:
        return time.time_ns() // 1_000_000
    if isinstance(now_ms, bool) or not isinstance(now_ms, int):
        raise TypeError("now_ms must be unix milliseconds as an int, or None for now")
    return now_ms


def _seconds(now_ms: int) -> int:
    """``now_ms / 1000`` as Swift's integer division rounds: toward zero."""
    return now_ms // 1000 if now_ms >= 0 else -((-now_ms) // 1000)


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def judge_signed(signed: _Signed, *, environment: str, method: Any, path_and_query: Any, proof: Any,
                 policy: ReceiptPolicy, now_ms: int, limits: ReceiptLimits = _DEFAULT_LIMITS) -> Verification:
    """Checks a receipt whose signature verified: expiry, environment, proof, policy (each failing check listed)."""
    claims = signed.claims
    reasons: List[str] = []
    now = _seconds(now_ms)
    latest_issue = now + limits.issued_at_leeway_seconds
    if now >= claims.expires_at or (latest_issue <= _INT64_MAX and claims.issued_at > latest_issue):
        reasons.append(EXPIRED)
    if not same(claims.environment, environment):
        reasons.append(WRONG_ENVIRONMENT)
    key = claims.confirmation_key
    if key is not None and not _proof_holds(proof, key, method, path_and_query, now_ms, limits):
        reasons.append(SESSION_PROOF)
    reasons += policy.violations(claims)
    return Verification(reasons, parsed=claims)


# JWKS handed over as text or a dict, read once: a backend passes the same one with every call.
_parsed_sets: "OrderedDict[Union[str, bytes], JWKS]" = OrderedDict()
_parsed_lock = threading.Lock()


def resolve_keys(jwks: Any) -> JWKS:
    """A :class:`JWKS` from a JWKS object, its JSON text (str or bytes) or a dict (read once and remembered)."""
    if isinstance(jwks, JWKS):
        return jwks
    if isinstance(jwks, Mapping):
        import json

        try:
            cache_key: Union[str, bytes] = json.dumps(jwks, sort_keys=True, separators=(",", ":"))
        except (TypeError, ValueError):
            raise ReceiptError("the JWKS is not JSON") from None
    elif isinstance(jwks, (str, bytes)):
        cache_key = jwks
    else:
        raise TypeError("jwks must be a JWKSSource, a JWKS, a JWKS dict or its JSON text")
    with _parsed_lock:
        found = _parsed_sets.get(cache_key)
        if found is not None:
            _parsed_sets.move_to_end(cache_key)
            return found
    keys = JWKS.parse(jwks)
    with _parsed_lock:
        _parsed_sets[cache_key] = keys
        if len(_parsed_sets) > 16:
            _parsed_sets.popitem(last=False)
    return keys


def verify_with_keys(token: Any, keys: JWKS, *, environment: str, method: Any, path_and_query: Any, proof: Any,
                     policy: Optional[ReceiptPolicy], now_ms: int) -> Tuple[Verification, Optional[str]]:
    """The verification, and the ``kid`` the token named when the key set lacks it (for a source to refetch)."""
    checked = check_signature(token, keys, _DEFAULT_LIMITS, _seconds(now_ms))
    if isinstance(checked, _Refused):
        return Verification([checked.reason]), checked.unknown_kid
    return judge_signed(checked, environment=environment, method=method, path_and_query=path_and_query, proof=proof,
                        policy=policy or _DEFAULT_POLICY, now_ms=now_ms), None


def verify_session_token(token: Union[str, bytes], *, jwks: "Union[JWKSSource, JWKS, Mapping[str, Any], str, bytes]",
                         environment: str, method: Union[str, bytes], path_and_query: Union[str, bytes],
                         proof: Optional[Union[str, bytes]] = None, policy: Optional[ReceiptPolicy] = None,
                         now_ms: Optional[int] = None) -> Verification:
    """Checks the receipt ``token`` (the ``antibot-token`` header) for the call ``method path_and_query`` (the path
    and query exactly as sent) that came with the proof header ``proof`` (``antibot-pop``, None when absent), for
    ``environment`` (``env_…``), under ``policy``, at ``now_ms`` (unix milliseconds; None: now).

    The signature is checked first; a token whose signature does not verify reports only that (``malformed`` or
    ``signatureInvalid``, with no claims). Then every failing check is listed: ``expired``, ``wrongEnvironment``,
    ``session:proof`` (a bound receipt whose proof is missing, unreadable, over 2 minutes old, over 10 seconds ahead
    or not by its ``cnf`` key over this method and path), then the policy's ``unbound``, ``unattested``.

    ``jwks`` is a :class:`~gatehouse_receipts.JWKSSource` (fetched and refreshed as needed; an unknown ``kid`` makes
    it fetch again, at most once in 30 s), a :class:`~gatehouse_receipts.JWKS`, a JWKS dict or its JSON text.

    Never raises on what a client sends. An offline check cannot spend a receipt: within its ten minutes it passes
    again; for an operation that must happen once, use :func:`~gatehouse_receipts.consume`.

    Raises :class:`~gatehouse_receipts.ReceiptError` for a JWKS that is not one, and
    :class:`~gatehouse_receipts.GatehouseUnavailable` when a source has never had keys and cannot fetch them."""
    now = _now_ms(now_ms)
    if isinstance(jwks, JWKSSource):
        keys = jwks.get()
        verification, unknown = verify_with_keys(token, keys, environment=environment, method=method,
                                                 path_and_query=path_and_query, proof=proof, policy=policy, now_ms=now)
        if unknown is not None:
            fresher = jwks.get_for_unknown_kid(unknown)
            if fresher is not None and fresher is not keys:
                verification, _ = verify_with_keys(token, fresher, environment=environment, method=method,
                                                   path_and_query=path_and_query, proof=proof, policy=policy, now_ms=now)
        return verification
    keys = resolve_keys(jwks)
    return verify_with_keys(token, keys, environment=environment, method=method, path_and_query=path_and_query,
                            proof=proof, policy=policy, now_ms=now)[0]


def verify_request_proof(proof: Optional[Union[str, bytes]], *, jwk: Union[PublicJWK, Mapping[str, Any]],
                         method: Union[str, bytes], path_and_query: Union[str, bytes],
                         now_ms: Optional[int] = None) -> bool:
    """Whether the proof header ``proof`` (``t=<unix ms>,s=<base64url signature>``, raw r ‖ s or DER) is a fresh
    signature by ``jwk`` (a receipt's ``cnf.jwk``, as a dict or a :class:`PublicJWK`) over
    ``<t>\\n<METHOD>\\n<path_and_query>``: at most 2 minutes old and at most 10 seconds ahead of ``now_ms``.

    Never raises on what a client sends (False instead); raises :class:`ReceiptError` for a ``jwk`` that is not a
    P-256 public JWK."""
    key = jwk if isinstance(jwk, PublicJWK) else PublicJWK.from_json(dict(jwk) if isinstance(jwk, Mapping) else jwk)
    return _proof_holds(proof, key, method, path_and_query, _now_ms(now_ms), _DEFAULT_LIMITS)


__all__ = ["ReceiptPolicy", "Verification", "verify_session_token", "verify_request_proof", "SignatureMemory"]

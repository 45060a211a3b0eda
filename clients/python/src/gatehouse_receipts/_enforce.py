"""The judgement a middleware makes of each call, as Gatehouse's edge check makes it (DEVICE-API.md "Outcomes",
"The edge check"): the route, the outcome (``missing``, ``invalid``, ``reused``, ``challenge``, ``unmet``,
``verified``), whether the call may pass, and the refusal. Shared by the ASGI and WSGI middlewares: the judging is a
generator that asks its driver for what blocks (the keys, a consuming check), so the ASGI driver runs those in a
worker thread and the WSGI driver in the request's own."""
from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections import Counter
from typing import Any, Dict, Generator, List, Optional, Sequence, Tuple, Union

from . import _http
from ._consume import CONSUME_TIMEOUT, callable_path, spend
from ._http import GatehouseError, GatehouseUnavailable
from ._keys import JWKS
from ._report import Reporter
from ._routes import UNMATCHED, PathRefused, Route, Settings, normalized_segments
from ._source import JWKSSource
from ._strict import same
from ._verify import CONSUMED, EXPIRED, MALFORMED, SESSION_PROOF, SIGNATURE_INVALID, WRONG_ENVIRONMENT, Verification, \
    verify_with_keys

log = logging.getLogger("gatehouse_receipts")

# The name of a header, not a secret (bandit B105 takes any "token" for a password).
TOKEN_HEADER = "antibot-token"  # nosec B105
PROOF_HEADER = "antibot-pop"
OUTCOMES = ("missing", "invalid", "reused", "challenge", "unmet", "verified")
INVALID_REASONS = frozenset({MALFORMED, SIGNATURE_INVALID, EXPIRED, WRONG_ENVIRONMENT, SESSION_PROOF})
#: Seconds a client is told to wait when the middleware cannot judge (``Retry-After``).
RETRY_AFTER = 5

_REFUSALS = {
    "missing": ("receipt-missing", "Receipt required", "This call needs a Gatehouse receipt in the antibot-token header."),
    "invalid": ("receipt-invalid", "Receipt not valid", "The receipt (or its request proof, or the path) does not hold: see reasons."),
    "reused": ("receipt-reused", "Receipt already used", "This call spends its receipt, and the receipt was spent before: assess again for a new one."),
    "challenge": ("challenge", "Attestation required", "Attack mode is on and this receipt was issued without a verified attestation: attest and assess again."),
    "unmet": ("receipt-unmet", "Receipt does not meet the route's requirements", "The route requires more of the receipt: see reasons."),
}


class Judgement:
    """What the middleware decided for one call: the route (or ``(unmatched)``), the mode it was judged under, its
    outcome (None when not judged: mode ``off``, or it could not judge), the reasons, the verification, and whether
    it may pass."""

    __slots__ = ("route", "mode", "outcome", "reasons", "verification", "unavailable")

    def __init__(self, route: str, mode: str, outcome: Optional[str], reasons: Optional[List[str]] = None,
                 verification: Optional[Verification] = None, unavailable: bool = False) -> None:
        self.route = route
        self.mode = mode
        self.outcome = outcome
        self.reasons: List[str] = reasons or []
        self.verification = verification
        self.unavailable = unavailable

    @property
    def allows(self) -> bool:
        """Always under ``off`` and ``monitor``; under ``enforce`` only ``verified``."""
        return self.mode != "enforce" or (self.outcome == "verified" and not self.unavailable)

    @property
    def status(self) -> int:
        """200 when it may pass; 503 when it could not judge under ``enforce``; 403 for ``challenge``; else 401."""
        if self.allows:
            return 200
        if self.unavailable:
            return 503
        return 403 if self.outcome == "challenge" else 401

    def state(self) -> Dict[str, Any]:
        """``{"outcome", "route", "verification"}``: what the handler finds in ``scope["state"]["gatehouse"]`` or
        ``environ["gatehouse"]``."""
        return {"outcome": self.outcome, "route": self.route, "verification": self.verification}

    def problem(self) -> Dict[str, Any]:
        """The refusal's ``application/problem+json`` body (the edge check's members)."""
        if self.unavailable:
            return {"type": "/problems/receipts-unavailable", "title": "Receipts cannot be checked", "status": 503,
                    "detail": "Gatehouse cannot be reached to check this call's receipt: try again shortly.",
                    "outcome": None, "route": self.route, "reasons": []}
        slug, title, detail = _REFUSALS.get(self.outcome or "missing", _REFUSALS["missing"])
        return {"type": f"/problems/{slug}", "title": title, "status": self.status, "detail": detail,
                "outcome": self.outcome, "route": self.route, "reasons": list(self.reasons)}

    def refusal(self) -> Tuple[int, List[Tuple[str, str]], bytes]:
        """(status, headers, body) of the refusal."""
        body = json.dumps(self.problem()).encode()
        headers = [("Content-Type", "application/problem+json"), ("Content-Length", str(len(body))),
                   ("Cache-Control", "no-store"), ("Gatehouse-Route", self.route),
                   ("Gatehouse-Outcome", self.outcome or "")]
        if self.unavailable:
            headers.append(("Retry-After", str(RETRY_AFTER)))
        return self.status, headers, body

    def __repr__(self) -> str:
        return f"Judgement(route={self.route!r}, mode={self.mode!r}, outcome={self.outcome!r}, reasons={self.reasons!r})"


def outcome_of(reasons: Sequence[str], challenge: bool) -> str:
    """The first outcome that applies: ``invalid``, ``reused``, ``challenge``, ``unmet``, ``verified``."""
    if any(reason in INVALID_REASONS for reason in reasons):
        return "invalid"
    if CONSUMED in reasons:
        return "reused"
    if challenge:
        return "challenge"
    return "unmet" if reasons else "verified"


def _origin_form(target: str) -> str:
    """An absolute-form request target (``http://host/path?q``) as origin form; anything else as it is."""
    for scheme in ("http://", "https://"):
        if target[: len(scheme)].lower() == scheme:
            slash = target.find("/", len(scheme))
            return target[slash:] if slash >= 0 else "/"
    return target


# What the judging generator asks its driver for.
_KEYS = "keys"
_UNKNOWN_KID = "unknown-kid"
_SPEND = "spend"


class Enforcer:
    """Routes, keys, the consuming check and the counts of one middleware."""

    def __init__(self, *, gatehouse_url: str, environment: str, routes: Sequence[Any] = (), mode: str = "monitor",
                 secret_key: Optional[str] = None, report: bool = True) -> None:
        self.gatehouse_url = _http.base_url(gatehouse_url)
        if not isinstance(environment, str) or not environment:
            raise ValueError("environment must be the environment's id (env_…)")
        if secret_key is not None and (not isinstance(secret_key, str) or not secret_key or not secret_key.isascii()
                                       or not secret_key.isprintable() or " " in secret_key):
            raise ValueError("secret_key must be one of the environment's secret keys (sk_…)")
        self.environment = environment
        self.settings = Settings(routes, mode)
        self._secret_key = secret_key
        if secret_key is None and any(route.consume and self.settings.mode_of(route) != "off"
                                      for route in self.settings.routes):
            raise ValueError("a route with consume needs secret_key: spending a receipt is Gatehouse's "
                             "(POST /api/v4/receipts/verify)")
        self.source = JWKSSource(self.gatehouse_url)
        self.reporter: Optional[Reporter] = Reporter(self.gatehouse_url, secret_key) if secret_key and report else None
        #: Judged calls in this process by (route, outcome), reported or not (for tests and metrics).
        self.counts: "Counter[Tuple[str, str]]" = Counter()
        self._counts_lock = threading.Lock()
        self.consume_timeout = CONSUME_TIMEOUT
        if self.settings.strictest != "off":
            self.source.current()  # start fetching the keys now, in the background

    # Drivers.

    def judge(self, method: str, target: str, token: Optional[str], proof: Optional[str]) -> Judgement:
        """Judges a call in the calling thread (WSGI)."""
        steps = self._judging(method, target, token, proof)
        answer: Any = None
        while True:
            try:
                request = steps.send(answer)
            except StopIteration as done:
                return self._counted(done.value)
            answer = self._blocking(request)

    async def judge_async(self, method: str, target: str, token: Optional[str], proof: Optional[str]) -> Judgement:
        """Judges a call on the event loop, with what blocks in a worker thread (ASGI)."""
        steps = self._judging(method, target, token, proof)
        answer: Any = None
        while True:
            try:
                request = steps.send(answer)
            except StopIteration as done:
                return self._counted(done.value)
            kind = request[0]
            if kind == _KEYS:
                answer = await self._guard(self.source.get_async())
            elif kind == _UNKNOWN_KID:
                answer = await self._guard(self.source.get_for_unknown_kid_async(request[1]))
            else:
                loop = asyncio.get_running_loop()
                answer = await loop.run_in_executor(None, self._blocking, request)

    async def _guard(self, awaitable: Any) -> Any:
        try:
            return await awaitable
        except GatehouseUnavailable as error:
            return error

    def _blocking(self, request: Tuple[Any, ...]) -> Any:
        kind = request[0]
        try:
            if kind == _KEYS:
                return self.source.get()
            if kind == _UNKNOWN_KID:
                return self.source.get_for_unknown_kid(request[1])
            return spend(**request[1])
        except (GatehouseUnavailable, GatehouseError, ValueError) as error:
            return error

    # The judgement.

    def _judging(self, method: str, target: str, token: Optional[str],
                 proof: Optional[str]) -> Generator[Tuple[Any, ...], Any, Judgement]:
        settings = self.settings
        target = _origin_form(target)
        try:
            segments = normalized_segments(target)
        except PathRefused as refused:
            # A path two parsers could read differently: invalid, under the strictest mode the routes have.
            if settings.strictest == "off":
                return Judgement(UNMATCHED, "off", None)
            return Judgement(UNMATCHED, settings.strictest, "invalid", [refused.reason])
        route = settings.route(method, segments)
        name = route.name if route is not None else UNMATCHED
        mode = settings.mode_of(route)
        if mode == "off":
            return Judgement(name, mode, None)
        if not token:
            return Judgement(name, mode, "missing")
        keys = yield (_KEYS,)
        if not isinstance(keys, JWKS):
            return Judgement(name, mode, None, unavailable=True)
        policy = route.require if route is not None else None
        now_ms = time.time_ns() // 1_000_000
        verification, unknown = verify_with_keys(token, keys, environment=self.environment, method=method,
                                                 path_and_query=target, proof=proof, policy=policy, now_ms=now_ms)
        if unknown is not None:
            fresher = yield (_UNKNOWN_KID, unknown)
            if isinstance(fresher, JWKS) and fresher is not keys:
                verification, _ = verify_with_keys(token, fresher, environment=self.environment, method=method,
                                                   path_and_query=target, proof=proof, policy=policy, now_ms=now_ms)
        challenge = verification.action == "challenge"
        if (route is not None and route.consume and verification.claims is not None
                and same(verification.environment or "", self.environment)
                and not any(reason in INVALID_REASONS for reason in verification.reasons)):
            # Only Gatehouse knows what was spent: it spends a receipt that holds (not a challenge one) and says
            # whether one was spent before.
            if not callable_path(method, target):
                return Judgement(name, mode, None, verification=verification, unavailable=True)
            checked = yield (_SPEND, dict(token=token, gatehouse_url=self.gatehouse_url, secret_key=self._secret_key,
                                          method=method, path_and_query=target, proof=proof, policy=route.require,
                                          consume=not challenge, timeout=self.consume_timeout))
            if not isinstance(checked, Verification):
                if isinstance(checked, GatehouseError):
                    log.error("gatehouse_receipts: Gatehouse refused the consuming check of route %s: %s", name, checked)
                else:
                    log.warning("gatehouse_receipts: cannot spend the receipt of route %s: %s", name, checked)
                return Judgement(name, mode, None, verification=verification, unavailable=True)
            if checked.claims is None and verification.claims is not None:
                checked = Verification(checked.reasons, verification.claims, consumed=checked.consumed,
                                       parsed=verification._parsed)
            verification = checked
        outcome = outcome_of(verification.reasons, challenge)
        return Judgement(name, mode, outcome, list(verification.reasons), verification)

    def _counted(self, judgement: Judgement) -> Judgement:
        if judgement.outcome is not None and not judgement.unavailable:
            with self._counts_lock:
                self.counts[(judgement.route, judgement.outcome)] += 1
            if self.reporter is not None:
                self.reporter.count(judgement.route, judgement.outcome)
        return judgement

    def close(self) -> None:
        """Stops reporting, sending what was counted."""
        if self.reporter is not None:
            self.reporter.close(flush=True)


def header_text(value: Union[str, bytes, None]) -> Optional[str]:
    """A header value as text, byte for byte (latin-1)."""
    if value is None or isinstance(value, str):
        return value
    return bytes(value).decode("latin-1")

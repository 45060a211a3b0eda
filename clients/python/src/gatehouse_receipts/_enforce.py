"""The judgement of each call, as Gatehouse's edge check makes it (docs/device-api.md "Outcomes", "The edge check",
"Enforcement that cannot be walked around"), for a route table (the middlewares: the route the call's method and
path match) or for a named route (the guards: the route the framework already chose). Shared by every integration:
the judging is a generator that asks its driver for what blocks (the keys, a consuming check), so an asyncio driver
runs those in a worker thread and a WSGI driver in the request's own."""
from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import Counter
from typing import Any, Generator, Optional, Sequence, Set, Tuple, Union

from . import _http
from ._consume import CONSUME_TIMEOUT, callable_path, spend
from ._http import GatehouseError, GatehouseUnavailable
from ._judgement import MISCONFIGURED, UNAVAILABLE, Judgement
from ._keys import JWKS
from ._paths import origin_form
from ._report import Reporter
from ._routes import MODES, UNMATCHED, Settings
from ._routes_source import Alarm, FixedRoutes, RoutesSource
from ._source import JWKSSource
from ._strict import same
from ._verify import CONSUMED, EXPIRED, MALFORMED, SESSION_PROOF, SIGNATURE_INVALID, WRONG_ENVIRONMENT, \
    ReceiptPolicy, Verification, verify_with_keys

log = logging.getLogger("gatehouse_receipts")

# The name of a header, not a secret (bandit B105 takes any "token" for a password).
TOKEN_HEADER = "antibot-token"  # nosec B105
PROOF_HEADER = "antibot-pop"
OUTCOMES = ("missing", "invalid", "reused", "challenge", "unmet", "verified")
INVALID_REASONS = frozenset({MALFORMED, SIGNATURE_INVALID, EXPIRED, WRONG_ENVIRONMENT, SESSION_PROOF})
ON_UNAVAILABLE = ("refuse", "pass")


def outcome_of(reasons: Sequence[str], challenge: bool) -> str:
    """The first outcome that applies: ``invalid``, ``reused``, ``challenge``, ``unmet``, ``verified``."""
    if any(reason in INVALID_REASONS for reason in reasons):
        return "invalid"
    if CONSUMED in reasons:
        return "reused"
    if challenge:
        return "challenge"
    return "unmet" if reasons else "verified"


# What the judging generator asks its driver for.
_KEYS = "keys"
_UNKNOWN_KID = "unknown-kid"
_SPEND = "spend"
Steps = Generator[Tuple[Any, ...], Any, Judgement]


class Enforcer:
    """Routes (given in code, or fetched from Gatehouse when ``routes`` is None), keys, the consuming check and the
    counts of one middleware or :class:`~gatehouse_receipts.Gatehouse`."""

    def __init__(self, *, gatehouse_url: str, environment: str, routes: Optional[Sequence[Any]] = None,
                 mode: str = "monitor", secret_key: Optional[str] = None, report: bool = True,
                 on_unavailable: str = "refuse") -> None:
        self.gatehouse_url = _http.base_url(gatehouse_url)
        if not isinstance(environment, str) or not environment:
            raise ValueError("environment must be the environment's id (env_…)")
        if secret_key is not None and (not isinstance(secret_key, str) or not secret_key or not secret_key.isascii()
                                       or not secret_key.isprintable() or " " in secret_key):
            raise ValueError("secret_key must be one of the environment's secret keys (sk_…)")
        if on_unavailable not in ON_UNAVAILABLE:
            raise ValueError('on_unavailable must be "refuse" or "pass"')
        if mode not in MODES:
            raise ValueError("mode must be off, monitor or enforce")
        self.environment = environment
        self.pass_unavailable = on_unavailable == "pass"
        self.alarm = Alarm()
        self._secret_key = secret_key
        self.routes: Union[FixedRoutes, RoutesSource]
        judges = True
        if routes is None:
            if secret_key is None:
                raise ValueError("routes=None fetches the environment's routes from Gatehouse (GET /api/v4/edge/routes), "
                                 "which needs secret_key; give routes=[...] for a route table in code")
            self.routes = RoutesSource(self.gatehouse_url, secret_key, environment, alarm=self.alarm)
        else:
            settings = Settings(routes, mode)
            if secret_key is None and any(route.consume and settings.mode_of(route) != "off"
                                          for route in settings.routes):
                raise ValueError("a route with consume needs secret_key: spending a receipt is Gatehouse's "
                                 "(POST /api/v4/receipts/verify)")
            self.routes = FixedRoutes(settings)
            judges = settings.strictest != "off"
            log.warning("gatehouse_receipts: routes given in code (%d): the environment's routes and modes "
                        "(the Enforcement tab) are not fetched", len(settings.routes))
        self.source = JWKSSource(self.gatehouse_url)
        self.reporter: Optional[Reporter] = Reporter(self.gatehouse_url, secret_key,
                                                     on_refused_key=self.alarm.misconfigured) \
            if secret_key and report else None
        #: Judged calls in this process by (route, outcome), reported or not (for tests and metrics).
        self.counts: "Counter[Tuple[str, str]]" = Counter()
        self._counts_lock = threading.Lock()
        self._warned: Set[str] = set()
        self.consume_timeout = CONSUME_TIMEOUT
        if judges:
            self.source.current()  # start fetching the keys now, in the background

    # Drivers.

    def judge(self, method: str, target: str, token: Optional[str], proof: Optional[str]) -> Judgement:
        """Judges a call by the route table, in the calling thread."""
        return self._drive(self._table(method, target, token, proof))

    async def judge_async(self, method: str, target: str, token: Optional[str], proof: Optional[str]) -> Judgement:
        """Judges a call by the route table on the event loop (what blocks in a worker thread)."""
        return await self._drive_async(self._table(method, target, token, proof))

    def judge_named(self, name: str, mode: Optional[str], method: str, target: str, token: Optional[str],
                    proof: Optional[str]) -> Judgement:
        """Judges a call under the route called ``name`` (``mode``, when given, overriding its mode)."""
        return self._drive(self._named(name, mode, method, target, token, proof))

    async def judge_named_async(self, name: str, mode: Optional[str], method: str, target: str,
                                token: Optional[str], proof: Optional[str]) -> Judgement:
        """:meth:`judge_named` on the event loop."""
        return await self._drive_async(self._named(name, mode, method, target, token, proof))

    def _drive(self, steps: Steps) -> Judgement:
        answer: Any = None
        while True:
            try:
                request = steps.send(answer)
            except StopIteration as done:
                return self._counted(done.value)
            answer = self._blocking(request)

    async def _drive_async(self, steps: Steps) -> Judgement:
        answer: Any = None
        while True:
            try:
                request = steps.send(answer)
            except StopIteration as done:
                return self._counted(done.value)
            kind = request[0]
            try:
                if kind == _KEYS:
                    answer = await self.source.get_async()
                elif kind == _UNKNOWN_KID:
                    answer = await self.source.get_for_unknown_kid_async(request[1])
                else:
                    answer = await asyncio.get_running_loop().run_in_executor(None, self._blocking, request)
            except GatehouseUnavailable as error:
                answer = error

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

    def _failed(self, route: Optional[str], mode: str, failure: Optional[str],
                verification: Optional[Verification] = None) -> Judgement:
        return Judgement(route, mode, None, verification=verification, failure=failure or UNAVAILABLE,
                         pass_unavailable=self.pass_unavailable)

    def _table(self, method: str, target: str, token: Optional[str], proof: Optional[str]) -> Steps:
        target = origin_form(target)
        settings, failure = self.routes.current()
        if settings is None:
            # Routes not known yet (or not to be trusted): the call could be any route's, so as if under enforce.
            return self._failed(None, "enforce", failure)
        route, mode, reason = settings.judge(method, target)
        if reason is not None:
            # A path two parsers could read differently: invalid, under the strictest mode there is.
            return Judgement(UNMATCHED, mode, None if mode == "off" else "invalid", [reason])
        name = route.name if route is not None else UNMATCHED
        return (yield from self._receipt(name, mode, route.require if route is not None else None,
                                         route is not None and route.consume, method, target, token, proof))

    def _named(self, name: str, mode: Optional[str], method: str, target: str, token: Optional[str],
               proof: Optional[str]) -> Steps:
        target = origin_form(target)
        settings, failure = self.routes.current()
        if settings is None:
            if mode == "off":
                return Judgement(name, "off", None)
            return self._failed(name, mode or "enforce", failure)
        route = settings.named(name)
        if route is None and name not in self._warned:
            self._warned.add(name)
            log.warning("gatehouse_receipts: a guard names route %r, which the environment does not hold: its calls "
                        "are judged under the environment's mode (%s) with no requirement beyond a valid receipt, "
                        "and counted under %r", name, settings.mode, name)
        judged_mode = mode or settings.mode_of(route)
        return (yield from self._receipt(name, judged_mode, route.require if route is not None else None,
                                         route is not None and route.consume, method, target, token, proof))

    def _receipt(self, name: str, mode: str, policy: Optional[ReceiptPolicy], consume: bool, method: str,
                 target: str, token: Optional[str], proof: Optional[str]) -> Steps:
        if mode == "off":
            return Judgement(name, mode, None)
        if not token:
            return Judgement(name, mode, "missing")
        keys = yield (_KEYS,)
        if not isinstance(keys, JWKS):
            return self._failed(name, mode, UNAVAILABLE)
        now_ms = time.time_ns() // 1_000_000
        verification, unknown = verify_with_keys(token, keys, environment=self.environment, method=method,
                                                 path_and_query=target, proof=proof, policy=policy, now_ms=now_ms)
        if unknown is not None:
            fresher = yield (_UNKNOWN_KID, unknown)
            if isinstance(fresher, JWKS) and fresher is not keys:
                verification, _ = verify_with_keys(token, fresher, environment=self.environment, method=method,
                                                   path_and_query=target, proof=proof, policy=policy, now_ms=now_ms)
        challenge = verification.action == "challenge"
        if (consume and verification.claims is not None and same(verification.environment or "", self.environment)
                and not any(reason in INVALID_REASONS for reason in verification.reasons)):
            # Only Gatehouse knows what was spent: it spends a receipt that holds (not a challenge one) and says
            # whether one was spent before.
            if self._secret_key is None or not callable_path(method, target):
                return self._failed(name, mode, UNAVAILABLE, verification)
            checked = yield (_SPEND, dict(token=token, gatehouse_url=self.gatehouse_url, secret_key=self._secret_key,
                                          method=method, path_and_query=target, proof=proof, policy=policy,
                                          consume=not challenge, timeout=self.consume_timeout))
            if not isinstance(checked, Verification):
                return self._spend_failed(name, mode, checked, verification)
            if checked.claims is None and verification.claims is not None:
                checked = Verification(checked.reasons, verification.claims, consumed=checked.consumed,
                                       parsed=verification._parsed)
            verification = checked
        outcome = outcome_of(verification.reasons, challenge)
        return Judgement(name, mode, outcome, list(verification.reasons), verification)

    def _spend_failed(self, name: str, mode: str, error: Any, verification: Verification) -> Judgement:
        if isinstance(error, GatehouseError) and error.status in (401, 403):
            self.alarm.misconfigured(f"Gatehouse refused the secret key (POST /api/v4/receipts/verify answered "
                                     f"{error.status}); consume routes' calls are answered 503 "
                                     "gatehouse-misconfigured")
            return self._failed(name, mode, MISCONFIGURED, verification)
        if isinstance(error, GatehouseError):
            log.error("gatehouse_receipts: Gatehouse refused the consuming check of route %s: %s", name, error)
        else:
            log.warning("gatehouse_receipts: cannot spend the receipt of route %s: %s", name, error)
        return self._failed(name, mode, UNAVAILABLE, verification)

    def _counted(self, judgement: Judgement) -> Judgement:
        if judgement.outcome is not None and judgement.failure is None and judgement.route is not None:
            with self._counts_lock:
                self.counts[(judgement.route, judgement.outcome)] += 1
            if self.reporter is not None:
                self.reporter.count(judgement.route, judgement.outcome)
        return judgement

    def flush(self) -> None:
        """Sends what was counted and not reported yet (the lifespan's shutdown)."""
        if self.reporter is not None:
            self.reporter.flush_counts()

    def close(self) -> None:
        """Stops fetching routes and reporting, sending what was counted."""
        self.routes.close()
        if self.reporter is not None:
            self.reporter.close(flush=True)


def header_text(value: Union[str, bytes, None]) -> Optional[str]:
    """A header value as text, byte for byte (latin-1)."""
    if value is None or isinstance(value, str):
        return value
    return bytes(value).decode("latin-1")

"""What a middleware or a guard decided for one call, and the one table of refusal problems (docs/device-api.md
"Failing: unavailable, misconfigured, shutting down"): the same ``type``, ``title``, ``status`` and ``detail`` as the
edge check and the Node library (held to it by Tests/Fixtures/enforcement/matching.json), with ``outcome``, ``route``
and ``reasons`` beside them, and the ``Gatehouse-Outcome`` and ``Gatehouse-Route`` headers (never an empty one)."""
from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Tuple

from ._verify import Verification

#: Seconds a client is told to wait when Gatehouse cannot be reached (``Retry-After``).
RETRY_AFTER = 5
UNAVAILABLE = "unavailable"
MISCONFIGURED = "misconfigured"

#: The problem of each refusal: (type name, title, status, detail), by outcome, then the two failures.
PROBLEMS: Dict[str, Tuple[str, str, int, str]] = {
    "missing": ("receipt-missing", "Receipt required", 401,
                "This call needs a Gatehouse receipt in the antibot-token header."),
    "invalid": ("receipt-invalid", "Receipt not valid", 401,
                "The receipt (or its request proof, or the path) does not hold: see reasons."),
    "reused": ("receipt-reused", "Receipt already used", 401,
               "This call spends its receipt, and the receipt was spent before: assess again for a new one."),
    "challenge": ("receipt-challenge", "Attestation required", 403,
                  "Attack mode is on and this receipt was issued without a verified attestation: attest and assess "
                  "again."),
    "unmet": ("receipt-unmet", "Receipt does not meet the route's requirements", 401,
              "The route requires more of the receipt: see reasons."),
    UNAVAILABLE: ("gatehouse-unavailable", "Receipt cannot be checked now", 503,
                  "Gatehouse cannot be reached to check this call's receipt: try again shortly."),
    MISCONFIGURED: ("gatehouse-misconfigured", "Gatehouse is misconfigured", 503,
                    "The API's Gatehouse secret key is refused: the operator must fix the configuration."),
}
_REASON_PHRASES = {401: "Unauthorized", 403: "Forbidden", 503: "Service Unavailable"}


class Judgement:
    """What was decided for one call.

    ``route`` is the route's name (``(unmatched)`` for none; None when the routes are not known yet), ``mode`` the
    mode it was judged under, ``outcome`` one of ``missing``, ``invalid``, ``reused``, ``challenge``, ``unmet``,
    ``verified`` (None when not judged: mode ``off``, or a ``failure``), ``reasons`` why, ``verification`` the
    receipt's :class:`~gatehouse_receipts.Verification` when it was read, and ``failure`` ``"unavailable"`` (Gatehouse
    could not be reached) or ``"misconfigured"`` (Gatehouse refused the secret key, or it belongs to another
    environment) when the call could not be judged. ``allows`` says whether the call may go on; ``refusal()`` is the
    answer when it may not."""

    __slots__ = ("route", "mode", "outcome", "reasons", "verification", "failure", "pass_unavailable")

    def __init__(self, route: Optional[str], mode: str, outcome: Optional[str], reasons: Optional[List[str]] = None,
                 verification: Optional[Verification] = None, failure: Optional[str] = None,
                 pass_unavailable: bool = False) -> None:
        self.route = route
        self.mode = mode
        self.outcome = outcome
        self.reasons: List[str] = reasons or []
        self.verification = verification
        self.failure = failure
        #: ``on_unavailable="pass"``: a call that could not be judged for want of Gatehouse goes on under enforce.
        self.pass_unavailable = pass_unavailable

    @property
    def allows(self) -> bool:
        """Always under ``off`` and ``monitor``; under ``enforce`` only ``verified``, or a call Gatehouse could not
        be reached for with ``on_unavailable="pass"`` (a misconfiguration is refused whatever ``on_unavailable``
        says)."""
        if self.mode != "enforce":
            return True
        if self.failure is not None:
            return self.failure == UNAVAILABLE and self.pass_unavailable
        return self.outcome == "verified"

    @property
    def status(self) -> int:
        """200 when it may pass; 503 when it could not be judged; 403 for ``challenge``; else 401."""
        if self.allows:
            return 200
        if self.failure is not None:
            return 503
        return 403 if self.outcome == "challenge" else 401

    def state(self) -> Dict[str, Any]:
        """``{"outcome", "route", "verification"}``: what the handler finds (``scope["state"]["gatehouse"]``,
        ``environ["gatehouse"]``, a guard's return value, ``flask.g.gatehouse``, ``request.gatehouse``)."""
        return {"outcome": self.outcome, "route": self.route, "verification": self.verification}

    def problem(self) -> Dict[str, Any]:
        """The refusal's ``application/problem+json`` body: ``type``, ``title``, ``status``, ``detail`` from the
        one table, and ``outcome``, ``route``, ``reasons``."""
        key = self.failure or self.outcome or "missing"
        name, title, status, detail = PROBLEMS.get(key, PROBLEMS["missing"])
        return {"type": f"/problems/{name}", "title": title, "status": status, "detail": detail,
                "outcome": None if self.failure else self.outcome, "route": self.route,
                "reasons": [] if self.failure else list(self.reasons)}

    def headers(self) -> List[Tuple[str, str]]:
        """``Gatehouse-Outcome`` and ``Gatehouse-Route`` (each only when it has a value)."""
        headers = []
        if self.outcome and not self.failure:
            headers.append(("Gatehouse-Outcome", self.outcome))
        if self.route:
            headers.append(("Gatehouse-Route", self.route))
        return headers

    def refusal(self) -> Tuple[int, List[Tuple[str, str]], bytes]:
        """(status, headers, body) of the refusal."""
        body = json.dumps(self.problem()).encode()
        headers = [("Content-Type", "application/problem+json"), ("Content-Length", str(len(body))),
                   ("Cache-Control", "no-store")] + self.headers()
        if self.failure == UNAVAILABLE:
            headers.append(("Retry-After", str(RETRY_AFTER)))
        return self.status, headers, body

    def status_line(self) -> str:
        """``"401 Unauthorized"``: the WSGI status of :meth:`refusal`."""
        status = self.status
        return f"{status} {_REASON_PHRASES.get(status, 'OK' if status == 200 else 'Refused')}"

    def __repr__(self) -> str:
        return (f"Judgement(route={self.route!r}, mode={self.mode!r}, outcome={self.outcome!r}, "
                f"reasons={self.reasons!r}, failure={self.failure!r})")

"""Routes and their modes (docs/device-api.md "Routes and modes", "Matching as the API routes"), read and matched as
Gatehouse's edge check does (``RouteMatch``, ``EnforcementSettings``): methods and literal segments compared without
regard to ASCII case, a trailing ``/`` insignificant, ``HEAD`` judged as ``GET``."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, List, Mapping, Optional, Sequence, Tuple, Union

from ._paths import PathRefused, folded, read_path
from ._verify import ReceiptPolicy

MODES = ("off", "monitor", "enforce")
_STRICTNESS = {mode: i for i, mode in enumerate(MODES)}
UNMATCHED = "(unmatched)"
MAX_ROUTES = 50
_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,39}\Z")
_METHOD = re.compile(rb"[A-Z0-9_-]{1,32}\Z")
_SEGMENT_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()+,;=:@")
_ONE, _REST = object(), object()


def strictness(mode: str) -> int:
    """0 for ``off``, 1 for ``monitor``, 2 for ``enforce``."""
    return _STRICTNESS[mode]


def judged_method(method: Union[str, bytes]) -> bytes:
    """A call's method as routes compare it: ASCII letters in capitals (other bytes as they are)."""
    raw = method.encode("utf-8", "surrogatepass") if isinstance(method, str) else bytes(method)
    return raw.upper()  # bytes.upper() folds ASCII letters only: "poſt" stays apart from POST


class RouteMatch:
    """A route's ``match``, compiled: an HTTP method or ``*``, one space, then a path pattern of ``/``-separated
    segments where ``*`` is exactly one non-empty segment and a final ``**`` any rest, the empty rest included.
    It matches as frameworks route: the method and literal segments without regard to ASCII case, a trailing ``/``
    on the path or the pattern insignificant, and ``HEAD`` judged as ``GET``. Raises ValueError saying what is
    wrong."""

    __slots__ = ("text", "method", "segments")

    def __init__(self, text: str) -> None:
        if not isinstance(text, str):
            raise ValueError('must be a method or *, one space, then a path pattern, e.g. "POST /api/payments/**"')
        parts = text.split(" ", 1)
        if len(parts) != 2:
            raise ValueError('must be a method or *, one space, then a path pattern, e.g. "POST /api/payments/**"')
        method, pattern = parts
        if method != "*" and not _METHOD.match(method.encode("utf-8", "surrogatepass")):
            raise ValueError("must start with an HTTP method in capitals (GET, POST, …) or *")
        raw_pattern = pattern.encode("utf-8", "surrogatepass")
        if raw_pattern[:1] != b"/":
            raise ValueError("must have a path pattern starting with / after the method")
        if len(raw_pattern) > 1024:
            raise ValueError("must have a path pattern of at most 1024 characters")
        segments: List[Any] = []
        raw = raw_pattern[1:].split(b"/")
        for i, part in enumerate(raw):
            last = i == len(raw) - 1
            if part == b"**":
                if not last:
                    raise ValueError("may have ** only as the last segment (any rest of the path)")
                segments.append(_REST)
            elif part == b"*":
                segments.append(_ONE)
            elif part == b"":
                if not last:
                    raise ValueError("must not have an empty segment (//): paths are matched with repeated / collapsed")
                segments.append(b"")
            elif part in (b".", b".."):
                raise ValueError("must not have . or .. segments: paths are matched with dot segments removed")
            elif all(b in _SEGMENT_BYTES for b in part):
                segments.append(part.lower())
            else:
                raise ValueError("must have path segments of letters, digits and -._~!$&'()+,;=:@ only (written "
                                 "decoded, without %, ? or spaces); * and ** stand for whole segments")
        if segments and segments[-1] == b"":
            segments.pop()  # "/" alone, or a trailing slash: it does not count
        self.text = text
        self.method: Optional[bytes] = None if method == "*" else method.encode("ascii")
        self.segments: Tuple[Any, ...] = tuple(segments)

    def matches(self, method: Union[str, bytes], segments: Sequence[bytes]) -> bool:
        """Whether a call ``method`` (as sent, any case) on the normalized path ``segments`` matches."""
        return self.matches_folded(judged_method(method), folded(segments))

    def matches_folded(self, method: bytes, parts: Sequence[bytes]) -> bool:
        """:meth:`matches` for a method in capitals (:func:`judged_method`) and :func:`folded` segments."""
        if self.method is not None and self.method != method and not (self.method == b"GET" and method == b"HEAD"):
            return False
        i = 0
        for segment in self.segments:
            if segment is _REST:
                return True
            if segment is _ONE:
                if i >= len(parts) or not parts[i]:
                    return False
            elif i >= len(parts) or parts[i] != segment:
                return False
            i += 1
        return i == len(parts)

    def __repr__(self) -> str:
        return f"RouteMatch({self.text!r})"


@dataclass(frozen=True)
class Route:
    """One route: its name (the label of its counts), the calls it matches, its mode (None: the middleware's), what
    it requires of receipts, and whether it spends them."""

    name: str
    match: RouteMatch
    mode: Optional[str] = None
    require: ReceiptPolicy = ReceiptPolicy()
    consume: bool = False

    @classmethod
    def from_json(cls, value: Any, pointer: str) -> "Route":
        """Reads ``{"name", "match", "mode", "require", "consume"}`` as an environment's ``enforcement.routes`` holds
        it. Raises ValueError naming the wrong member by pointer."""
        if not isinstance(value, Mapping):
            raise ValueError(f"{pointer} must be an object {{name, match, mode, require, consume}}")
        for member in value:
            if member not in ("name", "match", "mode", "require", "consume"):
                raise ValueError(f"{pointer}/{member} is not a member of a route (name, match, mode, require, consume)")
        name = value.get("name")
        if not isinstance(name, str) or not _NAME.match(name):
            raise ValueError(f"{pointer}/name must be [a-z0-9][a-z0-9-]{{0,39}}")
        try:
            match = RouteMatch(value.get("match"))  # type: ignore[arg-type]
        except ValueError as error:
            raise ValueError(f"{pointer}/match {error}") from None
        mode = value.get("mode")
        if mode is not None and mode not in MODES:
            raise ValueError(f"{pointer}/mode must be off, monitor or enforce")
        require = value.get("require")
        policy = require if isinstance(require, ReceiptPolicy) else ReceiptPolicy.from_json(require, f"{pointer}/require")
        consume = value.get("consume", False)
        if consume is None:
            consume = False
        if not isinstance(consume, bool):
            raise ValueError(f"{pointer}/consume must be true or false")
        return cls(name, match, mode, policy, consume)


class Settings:
    """The middleware's mode (for calls no route matches, and routes that name none) and its routes in order."""

    def __init__(self, routes: Sequence[Any], mode: str) -> None:
        if mode not in MODES:
            raise ValueError("mode must be off, monitor or enforce")
        if isinstance(routes, (str, bytes, Mapping)):
            raise ValueError("routes must be a list of route dicts")
        compiled = [route if isinstance(route, Route) else Route.from_json(route, f"/routes/{i}")
                    for i, route in enumerate(routes)]
        if len(compiled) > MAX_ROUTES:
            raise ValueError(f"/routes must hold at most {MAX_ROUTES} routes")
        seen = set()
        for i, route in enumerate(compiled):
            if route.name in seen:
                raise ValueError(f"/routes/{i}/name names a route twice ({route.name})")
            seen.add(route.name)
        self.mode = mode
        self.routes: Tuple[Route, ...] = tuple(compiled)
        self.strictest = max([mode] + [route.mode or mode for route in compiled], key=_STRICTNESS.__getitem__)

        self._by_name = {route.name: route for route in compiled}

    def route(self, method: Union[str, bytes], segments: Sequence[bytes],
              written: Optional[Sequence[bytes]] = None) -> Optional[Route]:
        """The route that judges a call ``method`` on the normalized path ``segments``: the first that matches, or
        None. A path that held a dot segment is also read as ``written`` (:func:`~gatehouse_receipts._paths.read_path`):
        of the two readings, the one whose route (or ``(unmatched)``) is stricter judges (:meth:`strictness_of`; the
        one as written on a tie), so no reading a framework may route by is judged more leniently."""
        sent = judged_method(method)
        normalized = self._first(sent, folded(segments))
        if written is None:
            return normalized
        literal = self._first(sent, folded(written))
        if literal is normalized:
            return normalized
        return literal if self.strictness_of(literal) >= self.strictness_of(normalized) else normalized

    def strictness_of(self, route: Optional[Route]) -> int:
        """How strictly ``route`` (None: ``(unmatched)``) judges, to compare two: its mode first, then what it asks of
        the receipt (``consume`` over a verified attestation over ``bound``)."""
        rank = strictness(self.mode_of(route)) * 8
        if route is None:
            return rank
        return rank + (4 if route.consume else 0) + (2 if route.require.attestation == "verified" else 0) + \
            (1 if route.require.bound else 0)

    def _first(self, method: bytes, parts: Sequence[bytes]) -> Optional[Route]:
        for route in self.routes:
            if route.match.matches_folded(method, parts):
                return route
        return None

    def named(self, name: str) -> Optional[Route]:
        """The route called ``name``, or None."""
        return self._by_name.get(name)

    def mode_of(self, route: Optional[Route]) -> str:
        """The mode a call judged under ``route`` (None: no route matched) is judged under."""
        return (route.mode if route is not None else None) or self.mode

    def judge(self, method: Union[str, bytes], target: Union[str, bytes]) -> Tuple[Optional[Route], str, Optional[str]]:
        """(route, mode, reason) for a call ``method`` on the origin-form ``target``: the first route that matches
        (None: ``(unmatched)``) and its mode; or, for a path refused as two parsers could read it differently,
        (None, the strictest mode of the environment and its routes, the ``path:*`` reason)."""
        try:
            segments, written = read_path(target)
        except PathRefused as refused:
            return None, self.strictest, refused.reason
        route = self.route(method, segments, written)
        return route, self.mode_of(route), None

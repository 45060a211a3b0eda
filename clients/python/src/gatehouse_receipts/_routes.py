"""Routes and their modes (DEVICE-API.md "Routes and modes"), read and matched as Gatehouse's edge check does
(``RouteMatch``, ``NormalizedPath``, ``EnforcementSettings``)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, List, Mapping, Optional, Sequence, Tuple, Union

from ._verify import ReceiptPolicy

MODES = ("off", "monitor", "enforce")
_STRICTNESS = {mode: i for i, mode in enumerate(MODES)}
UNMATCHED = "(unmatched)"
MAX_ROUTES = 50
_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,39}\Z")
_METHOD = re.compile(rb"[A-Z0-9_-]{1,32}\Z")
_SEGMENT_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()+,;=:@")
_UNRESERVED = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
_HEX = {c: int(chr(c), 16) for c in b"0123456789abcdefABCDEF"}
_ONE, _REST = object(), object()


class PathRefused(Exception):
    """A path two parsers could read differently: ``reason`` is ``path:notAPath``, ``path:invalidEncoding``,
    ``path:encodedSeparator`` or ``path:aboveRoot`` (the edge check's reasons)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def normalized_segments(path_and_query: Union[str, bytes]) -> List[bytes]:
    """The segments of the path of ``path_and_query`` as routes match it: percent-encoded unreserved characters
    decoded, other percent-encodings kept (hex digits in capitals), dot segments removed, repeated ``/`` collapsed,
    the query dropped. ``/`` is ``[b""]``, ``/a/b/`` is ``[b"a", b"b", b""]``.

    Raises :class:`PathRefused` for a path that does not start with ``/``, bytes outside visible ASCII, ``%`` not
    followed by two hex digits, an encoded ``/`` or NUL (``%2F``, ``%00``), or ``..`` above the root."""
    data = path_and_query.encode("utf-8", "surrogatepass") if isinstance(path_and_query, str) else bytes(path_and_query)
    end = data.find(b"?")
    if end >= 0:
        data = data[:end]
    if data[:1] != b"/":
        raise PathRefused("path:notAPath")
    output: List[bytes] = []
    segment = bytearray()

    def close() -> None:
        if segment == b".":
            pass
        elif segment == b"..":
            if not output:
                raise PathRefused("path:aboveRoot")
            output.pop()
        elif segment:
            output.append(bytes(segment))
        segment.clear()

    ends_with_slash = True
    i, n = 1, len(data)
    while i < n:
        byte = data[i]
        i += 1
        if byte == 0x2F:  # "/"
            close()
            ends_with_slash = True
            continue
        if byte == 0x25:  # "%"
            high = _HEX.get(data[i]) if i < n else None
            low = _HEX.get(data[i + 1]) if high is not None and i + 1 < n else None
            if high is None or low is None:
                raise PathRefused("path:invalidEncoding")
            i += 2
            decoded = high << 4 | low
            if decoded in (0x2F, 0):
                raise PathRefused("path:encodedSeparator")
            if decoded in _UNRESERVED:
                segment.append(decoded)
            else:
                segment += b"%%%X%X" % (high, low)
        elif 0x21 <= byte <= 0x7E:
            segment.append(byte)
        else:
            raise PathRefused("path:notAPath")
        ends_with_slash = False
    # A last "." or ".." is a directory: "/a/b/.." is "/a/".
    last_is_dot = bytes(segment) in (b".", b"..")
    close()
    if ends_with_slash or last_is_dot:
        output.append(b"")
    return output


class RouteMatch:
    """A route's ``match``, compiled: an HTTP method or ``*``, one space, then a path pattern of ``/``-separated
    segments where ``*`` is exactly one non-empty segment and a final ``**`` any rest, the empty rest included.
    Raises ValueError saying what is wrong."""

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
                segments.append(part)
            else:
                raise ValueError("must have path segments of letters, digits and -._~!$&'()+,;=:@ only (written "
                                 "decoded, without %, ? or spaces); * and ** stand for whole segments")
        self.text = text
        self.method: Optional[str] = None if method == "*" else method
        self.segments: Tuple[Any, ...] = tuple(segments)

    def matches(self, method: str, segments: Sequence[bytes]) -> bool:
        """Whether a call ``method`` on the normalized path ``segments`` matches."""
        if self.method is not None and self.method != method:
            return False
        i = 0
        for segment in self.segments:
            if segment is _REST:
                return True
            if segment is _ONE:
                if i >= len(segments) or not segments[i]:
                    return False
            elif i >= len(segments) or segments[i] != segment:
                return False
            i += 1
        return i == len(segments)

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

    def route(self, method: str, segments: Sequence[bytes]) -> Optional[Route]:
        """The first route that matches, or None."""
        for route in self.routes:
            if route.match.matches(method, segments):
                return route
        return None

    def mode_of(self, route: Optional[Route]) -> str:
        return (route.mode if route is not None else None) or self.mode

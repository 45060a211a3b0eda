"""A call's path as routes match it (docs/device-api.md "The edge check", "Matching as the API routes"), read as
Gatehouse's edge check reads it (``NormalizedPath``): percent-encoded unreserved characters decoded, dot segments
removed, repeated ``/`` collapsed, the query dropped; and a path that two parsers could read differently refused,
the first offending byte from the left naming why."""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple, Union

_UNRESERVED = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
_HEX = {c: int(chr(c), 16) for c in b"0123456789abcdefABCDEF"}

#: Every reason a path is refused for (outcome ``invalid``).
REFUSALS = ("path:notAPath", "path:invalidEncoding", "path:encodedSeparator", "path:aboveRoot", "path:semicolon",
            "path:fragment", "path:backslash", "path:control")


class PathRefused(Exception):
    """A path two parsers could read differently: ``reason`` is one of :data:`REFUSALS` (the edge check's reasons):
    ``path:semicolon`` (``;`` or ``%3B``: Tomcat, Jetty and Spring strip ``;`` parameters before routing),
    ``path:fragment`` (``#`` or ``%23``), ``path:backslash`` (``\\`` or ``%5C``, read as ``/`` by some servers),
    ``path:control`` (a control character, raw or encoded), ``path:encodedSeparator`` (``%2F``, ``%00``),
    ``path:invalidEncoding``, ``path:aboveRoot`` (``..`` above the root) or ``path:notAPath`` (not starting with
    ``/``, a raw space or a raw byte outside ASCII)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _refusal_of(byte: int) -> Optional[str]:
    """The refusal a byte (raw, or decoded from ``%XX``) brings wherever it stands in the path, or None."""
    if byte == 0x3B:
        return "path:semicolon"
    if byte == 0x23:
        return "path:fragment"
    if byte == 0x5C:
        return "path:backslash"
    if byte < 0x20 or byte == 0x7F:
        return "path:control"
    return None


def normalized_segments(path_and_query: Union[str, bytes]) -> List[bytes]:
    """The segments of the path of ``path_and_query`` as routes match it: percent-encoded unreserved characters
    decoded, other percent-encodings kept (hex digits in capitals), dot segments removed, repeated ``/`` collapsed,
    the query (from the first ``?``) dropped and never checked. ``/`` is ``[b""]``, ``/a/b/`` is
    ``[b"a", b"b", b""]``.

    Raises :class:`PathRefused` for the first offending byte from the left (see its reasons)."""
    return read_path(path_and_query)[0]


def read_path(path_and_query: Union[str, bytes]) -> Tuple[List[bytes], Optional[List[bytes]]]:
    """(:func:`normalized_segments`, the segments as written): the second only when the path held a dot segment
    (``.`` or ``..``, raw or encoded), with the dot segments kept and empty segments dropped, because Express,
    Starlette and Flask do not remove dot segments (Express routes ``/api/orders/..`` to ``/api/orders/:id``).

    Raises :class:`PathRefused` as :func:`normalized_segments` does."""
    data = path_and_query.encode("utf-8", "surrogatepass") if isinstance(path_and_query, str) else bytes(path_and_query)
    end = data.find(b"?")
    if end >= 0:
        data = data[:end]
    if data[:1] != b"/":
        raise PathRefused("path:notAPath")
    output: List[bytes] = []
    written: List[bytes] = []
    saw_dot = False
    segment = bytearray()

    def close() -> None:
        nonlocal saw_dot
        if segment:
            written.append(bytes(segment))
        if segment == b".":
            saw_dot = True
        elif segment == b"..":
            saw_dot = True
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
        ends_with_slash = False
        if byte != 0x25:  # not "%"
            refusal = _refusal_of(byte)
            if refusal is not None:
                raise PathRefused(refusal)
            if not 0x20 < byte < 0x7F:
                raise PathRefused("path:notAPath")
            segment.append(byte)
            continue
        high = _HEX.get(data[i]) if i < n else None
        low = _HEX.get(data[i + 1]) if high is not None and i + 1 < n else None
        if high is None or low is None:
            raise PathRefused("path:invalidEncoding")
        i += 2
        decoded = high << 4 | low
        if decoded in (0x2F, 0):
            raise PathRefused("path:encodedSeparator")
        refusal = _refusal_of(decoded)
        if refusal is not None:
            raise PathRefused(refusal)
        if decoded in _UNRESERVED:
            segment.append(decoded)
        else:
            segment += b"%%%X%X" % (high, low)
    # A last "." or ".." is a directory: "/a/b/.." is "/a/".
    last_is_dot = bytes(segment) in (b".", b"..")
    close()
    if ends_with_slash or last_is_dot:
        output.append(b"")
    return output, (written if saw_dot else None)


def folded(segments: Sequence[bytes]) -> List[bytes]:
    """Normalized segments as routes compare them: ASCII letters in lower case (other bytes as they are) and a
    trailing ``/`` dropped, because frameworks route that way (Express ignores case and a trailing ``/``):
    ``/API/Pay/`` is ``[b"api", b"pay"]``, ``/`` is ``[]``."""
    parts = [segment.lower() for segment in segments]  # bytes.lower() folds ASCII letters only
    if parts and parts[-1] == b"":
        parts.pop()
    return parts


def origin_form(target: str) -> str:
    """The path and query of an absolute-form request target (``http://host/path?q`` is ``/path?q``; a target
    with no path after the authority is ``/`` plus its query); anything else as it is. The authority ends at the
    first ``/``, ``?``, ``#`` or ``\\`` (which URL parsers read as ``/``), so ``http://host\\a/b`` is ``/\\a/b``,
    refused for its backslash, never ``/b``."""
    for scheme in ("http://", "https://"):
        if target[: len(scheme)].lower() == scheme:
            rest = target[len(scheme):]
            cut = min((i for i in (rest.find(c) for c in "/?#\\") if i >= 0), default=len(rest))
            tail = rest[cut:]
            return tail if tail.startswith("/") else "/" + tail
    return target

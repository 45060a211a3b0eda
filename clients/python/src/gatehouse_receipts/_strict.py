"""Reading JOSE input strictly, exactly as the Swift library (GatehouseReceipts) does.

- Base64url without padding in its one canonical spelling (RFC 4648 §5, RFC 7515 §2): any other character
  (``+``, ``/``, ``=``, white space), a length no encoding produces (4n+1) or non-zero unused bits → refused.
- JSON as RFC 8259 says and no more (the Swift ``JSONParser``): UTF-8 only, no ``NaN``/``Infinity``, no unpaired
  surrogate escape, no number that overflows a double, at most 64 levels of nesting. Every number is read as a
  double, as Swift reads it, so ``iat`` 1.7e9 is a whole number and 2^53 + 1 is not exact.
- Objects read with :func:`strict_object` refuse a member named twice (RFC 7515 §4), and names are compared as Swift
  compares strings: by canonical equivalence (``"é"`` and ``"e\\u0301"`` are the same name).
"""
from __future__ import annotations

import base64
import binascii
import json
import re
import unicodedata
from typing import Any, Dict, List, Optional, Tuple

#: How deep JSON may nest (Swift's ``JSONParser.maxDepth``): a value inside 64 containers is refused.
MAX_DEPTH = 64
#: The largest magnitude a JSON number may have to be read as a whole number (``JSON.integer``: below 2^53).
_EXACT = 9_007_199_254_740_992


class StrictError(ValueError):
    """Input that is not what it must be: the message says what was wrong with its shape, never the bytes."""


_TO_STANDARD = bytes.maketrans(b"-_", b"+/")
_BASE64URL = re.compile(rb"[A-Za-z0-9_-]*\Z")
# Each base64url character's 6-bit value (the unused bits of the last character must be zero).
_VALUES = {c: i for i, c in enumerate(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")}


try:  # Python 3.11+: the decoder itself refuses any character outside the alphabet and misplaced padding
    binascii.a2b_base64(b"AA==", strict_mode=True)
    _STRICT_MODE = True
except TypeError:  # pragma: no cover - Python 3.9 and 3.10
    _STRICT_MODE = False
_PADDING = (b"", b"", b"==", b"=")


def b64url_decode(text: Any) -> Optional[bytes]:
    """The bytes of unpadded, canonical base64url ``text`` (str or bytes), or None."""
    if type(text) is bytes:
        pass
    elif isinstance(text, str):
        if not text.isascii():
            return None
        text = text.encode("ascii")
    elif isinstance(text, (bytearray, memoryview)):
        text = bytes(text)
    elif not isinstance(text, bytes):
        return None
    remainder = len(text) % 4
    if remainder == 1:
        return None
    if _STRICT_MODE:
        # "+" and "/" are the standard alphabet's, "=" is padding: none is in unpadded base64url; strict mode
        # refuses every other character itself.
        if b"+" in text or b"/" in text or b"=" in text:
            return None
    elif not _BASE64URL.match(text):  # pragma: no cover - Python 3.9 and 3.10
        return None
    if remainder and _VALUES.get(text[-1], 0) & (0x0F if remainder == 2 else 0x03):
        return None  # non-zero unused bits: not the one spelling of these bytes
    try:
        if _STRICT_MODE:
            return binascii.a2b_base64(text.translate(_TO_STANDARD) + _PADDING[remainder], strict_mode=True)
        return binascii.a2b_base64(text.translate(_TO_STANDARD) + _PADDING[remainder])  # pragma: no cover
    except (binascii.Error, ValueError):
        return None


def b64url_encode(data: bytes) -> str:
    """Base64url without padding."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def canonical(text: str) -> str:
    """The form in which two strings Swift calls equal (canonically equivalent) are equal."""
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def same(a: str, b: str) -> bool:
    """Whether Swift's ``==`` holds for ``a`` and ``b`` (canonical equivalence)."""
    if a == b:
        return True
    if a.isascii() and b.isascii():
        return False
    return unicodedata.normalize("NFC", a) == unicodedata.normalize("NFC", b)


def utf8_length(text: str) -> int:
    """``text.utf8.count``."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


class _Repeated(dict):  # type: ignore[type-arg]
    """An object that names a member twice (the last value kept, as Swift's ``JSON`` subscript does): fine nested
    where nothing reads it strictly, refused by :func:`strict_object`."""


def _pairs(pairs: List[Tuple[str, Any]]) -> Dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        return _Repeated(pairs)
    if not "".join(obj).isascii() and len({unicodedata.normalize("NFC", k) for k in obj}) != len(obj):
        return _Repeated(pairs)
    return obj


def _reject_constant(name: str) -> Any:
    raise StrictError(f"{name} is not JSON")


def _float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise StrictError("a number out of range")
    return value


def _int(text: str) -> int:
    # Swift reads every number as a double: one whose double overflows is not JSON (fewer than 309 digits always fit).
    if len(text) > 308:
        _float(text)
    return int(text)


def _pairs_ascii(pairs: List[Tuple[str, Any]]) -> Dict[str, Any]:
    obj = dict(pairs)
    return obj if len(obj) == len(pairs) else _Repeated(pairs)


_decoder = json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=_reject_constant, parse_float=_float,
                            parse_int=_int, strict=True)
# For ASCII text without escapes and without a run of 309 digits (every receipt Gatehouse signs): names cannot be
# canonically equivalent without being equal, and no integer can overflow a double.
_ascii_decoder = json.JSONDecoder(object_pairs_hook=_pairs_ascii, parse_constant=_reject_constant,
                                  parse_float=_float, strict=True)
_LONG_NUMBER = re.compile(r"[0-9]{309}")
_ascii_scan = _ascii_decoder.scan_once  # type: ignore[attr-defined]  # the C scanner JSONDecoder.raw_decode calls


def _has_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return any("\ud800" <= c <= "\udfff" for c in value)
    if isinstance(value, dict):
        return any(_has_surrogate(k) or _has_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_surrogate(v) for v in value)
    return False


def _too_deep(value: Any, depth: int) -> bool:
    """Whether a value at ``depth`` (0 for the top) or one inside it lies at ``MAX_DEPTH`` or deeper."""
    if depth >= MAX_DEPTH:
        return True
    if isinstance(value, dict):
        return any(_too_deep(v, depth + 1) for v in value.values())
    if isinstance(value, list):
        return any(_too_deep(v, depth + 1) for v in value)
    return False


def parse_json(data: Any) -> Any:
    """One JSON value from UTF-8 ``data`` (bytes or str), read as Swift's ``JSONParser`` reads it.

    Raises :class:`StrictError` for anything it refuses."""
    try:
        text = data.decode("utf-8") if isinstance(data, (bytes, bytearray)) else data
        if not isinstance(text, str):
            raise StrictError("not JSON text")
        if text.isascii() and "\\u" not in text and not _LONG_NUMBER.search(text):
            try:  # the C scanner straight away when the text is one value with no white space around it
                value, end = _ascii_scan(text, 0)
            except StopIteration:
                end = -1
            if end != len(text):
                value = _ascii_decoder.decode(text)
        else:
            text.encode("utf-8")  # a str holding a lone surrogate is no Swift String
            value = _decoder.decode(text)
            # A string escape can leave an unpaired surrogate (Swift refuses it); only an escape can.
            if "\\u" in text and _has_surrogate(value):
                raise StrictError("an unpaired surrogate escape")
    except StrictError:
        raise
    except (ValueError, RecursionError, TypeError, OverflowError, UnicodeError) as error:
        raise StrictError("not JSON") from error
    if text.count("[") + text.count("{") >= MAX_DEPTH and _too_deep(value, 0):
        raise StrictError(f"nesting deeper than {MAX_DEPTH}")
    return value


def strict_object(value: Any, what: str) -> Dict[str, Any]:
    """``value`` when it is an object naming each member once (Swift's ``StrictObject``)."""
    if not isinstance(value, dict):
        raise StrictError(f"{what} is not a JSON object")
    if isinstance(value, _Repeated):
        raise StrictError(f"{what} names a member twice")
    return value


def parse_strict_object(data: Any, what: str) -> Dict[str, Any]:
    """Parses ``data`` as one JSON object naming each member once."""
    try:
        value = parse_json(data)
    except StrictError:
        raise StrictError(f"{what} is not JSON") from None
    return strict_object(value, what)


def string_member(obj: Dict[str, Any], name: str, what: str, max_length: int = 256) -> str:
    """The member ``name`` as a string of 1 to ``max_length`` UTF-8 bytes."""
    value = obj.get(name)
    if not isinstance(value, str) or not value or utf8_length(value) > max_length:
        raise StrictError(f"{what} needs {name} as a string of 1 to {max_length} bytes")
    return value


def integer_value(value: Any) -> Optional[int]:
    """``JSON.integer``: a number with no fraction below 2^53 in magnitude, else None (booleans are not numbers)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    if not number.is_integer() or abs(number) >= _EXACT:
        return None
    return int(number)


def integer_member(obj: Dict[str, Any], name: str, what: str) -> int:
    """The member ``name`` as a whole number."""
    value = integer_value(obj.get(name))
    if value is None:
        raise StrictError(f"{what} needs {name} as a whole number")
    return value

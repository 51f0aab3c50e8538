"""Bytes to a JSON value, bounded: size, nesting depth, encoding and number range."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import msgspec

from .errors import DecodeError, DecodeReason

__all__ = ["check_depth", "decode_json", "nesting"]

_decode = msgspec.json.decode
_OFFSET = re.compile(r"\(byte (\d+)\)")
_NON_FINITE = (b"NaN", b"Infinity", b"-Infinity", b"+Infinity", b"-NaN")


def decode_json(data: bytes | bytearray | memoryview | str, *, max_bytes: int, max_depth: int | None = None) -> Any:
    """Parse one JSON document; every failure is a :class:`DecodeError` with its reason."""
    size = len(data)
    if size > max_bytes:
        raise DecodeError(DecodeReason.TOO_LARGE, f"document is {size} bytes, over the limit of {max_bytes}")
    try:
        value = _decode(data)
    except msgspec.ValidationError as exc:  # raised for numbers beyond the float range
        raise DecodeError(DecodeReason.NUMBER_OUT_OF_RANGE, f"number out of range: {exc}") from None
    except msgspec.DecodeError as exc:
        text = str(exc)
        if "UTF-8" in text:
            raise DecodeError(DecodeReason.INVALID_UTF8, f"not valid JSON: {text}") from None
        if _non_finite_at(data, text):
            raise DecodeError(
                DecodeReason.NON_FINITE_NUMBER, f"not valid JSON: NaN and Infinity are not JSON numbers ({text})"
            ) from None
        raise DecodeError(DecodeReason.MALFORMED_JSON, f"not valid JSON: {text}") from None
    except RecursionError:
        raise DecodeError(DecodeReason.TOO_DEEP, "document nests too deeply to decode") from None
    if max_depth is not None:
        # Each level of nesting opens one bracket: few brackets, no walk needed.
        if not isinstance(data, (bytes, bytearray, str)):
            data = memoryview(data).tobytes()  # msgspec.Raw and other buffers
        opens = data.count(b"[") + data.count(b"{") if not isinstance(data, str) else data.count("[") + data.count("{")
        if opens > max_depth:
            check_depth(value, max_depth)
    return value


def _non_finite_at(data: bytes | bytearray | memoryview | str, message: str) -> bool:
    match = _OFFSET.search(message)
    if match is None:
        return False
    at = int(match.group(1))
    raw = data.encode() if isinstance(data, str) else bytes(data)
    return raw[at : at + 9].startswith(_NON_FINITE) or raw[max(at - 1, 0) : at + 9].startswith(_NON_FINITE)


def check_depth(value: Any, max_depth: int) -> None:
    """Raise ``DecodeError(too-deep)`` if ``value`` nests arrays and objects deeper than
    ``max_depth``. Iterative, level by level; stops at the first level over the bound."""
    if nesting(value, max_depth + 1) > max_depth:
        raise DecodeError(DecodeReason.TOO_DEEP, f"instance nests more than {max_depth} levels deep")


def nesting(value: Any, stop: int) -> int:
    """How deeply ``value`` nests arrays and objects (a scalar: 0), counted up to ``stop``."""
    level = [value] if isinstance(value, (Mapping, list)) else []
    depth = 0
    while level and depth < stop:
        depth += 1
        below: list[Any] = []
        for item in level:
            for child in item.values() if isinstance(item, Mapping) else item:
                if isinstance(child, (Mapping, list)):
                    below.append(child)
        level = below
    return depth

"""Bytes to a JSON value, bounded: size, nesting depth, encoding and number range."""

from __future__ import annotations

import re
from itertools import chain, compress, repeat
from operator import not_
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
    except UnicodeEncodeError as exc:  # text with lone surrogates: no UTF-8 document spells it
        raise DecodeError(DecodeReason.INVALID_UTF8, f"not valid JSON text: {exc}") from None
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
    """How deeply ``value`` nests arrays and objects (a scalar: 0), counted up to ``stop``.

    Level by level, and every step of a level runs in C (``map``, ``compress``, ``chain``): a
    Python step per level, not per value, keeps the walk near the cost of decoding."""
    level = [value] if isinstance(value, _CONTAINERS) else []
    depth = 0
    while level and depth < stop:
        depth += 1
        is_dict = list(map(isinstance, level, repeat(dict)))
        children = list(
            chain(
                chain.from_iterable(map(dict.values, compress(level, is_dict))),
                chain.from_iterable(compress(level, map(not_, is_dict))),
            )
        )
        level = list(compress(children, map(isinstance, children, repeat(_CONTAINERS))))
    return depth


# What jsonschema-rs descends into: dicts (and subclasses), lists and tuples; it refuses other
# mappings outright.
_CONTAINERS = (dict, list, tuple)

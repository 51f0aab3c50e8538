"""Bytes to a JSON value, bounded: size, nesting depth, encoding and number range."""

from __future__ import annotations

from typing import Any

import msgspec

from .errors import DecodeError, DecodeReason

__all__ = ["decode_json"]

_decode = msgspec.json.decode


def decode_json(data: bytes | bytearray | memoryview | str, *, max_bytes: int) -> Any:
    """Parse one JSON document; every failure is a :class:`DecodeError` with its reason."""
    size = len(data)
    if size > max_bytes:
        raise DecodeError(DecodeReason.TOO_LARGE, f"document is {size} bytes, over the limit of {max_bytes}")
    try:
        return _decode(data)
    except msgspec.ValidationError as exc:  # raised for numbers beyond the float range
        raise DecodeError(DecodeReason.NUMBER_OUT_OF_RANGE, f"number out of range: {exc}") from None
    except msgspec.DecodeError as exc:
        text = str(exc)
        reason = DecodeReason.INVALID_UTF8 if "UTF-8" in text else DecodeReason.MALFORMED_JSON
        raise DecodeError(reason, f"not valid JSON: {text}") from None
    except RecursionError:
        raise DecodeError(DecodeReason.TOO_DEEP, "document nests too deeply to decode") from None

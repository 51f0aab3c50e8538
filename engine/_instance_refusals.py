"""The refusals of the instance screen (``engine._instance``): each says, in a sentence, what no JSON
document within the bounds holds, with the reason its bytes would get."""

from __future__ import annotations

from typing import Any

from ._errors import DecodeError, DecodeReason

__all__ = [
    "TOO_MANY_DIGITS",
    "bad_key",
    "changed_while_read",
    "non_finite",
    "not_json",
    "surrogate",
    "too_deep",
    "too_long",
    "too_many",
    "unspelled",
    "within_size",
]

TOO_MANY_DIGITS = "a number has too many digits: integers are read up to 4300 characters long, sign included"


def unspelled() -> DecodeError:
    return DecodeError(DecodeReason.NUMBER_OUT_OF_RANGE, TOO_MANY_DIGITS)


def bad_key(keys: list[Any]) -> DecodeError:
    bad = next(key for key in keys if type(key) is not str)
    kind = type(bad).__name__
    what = f"a subclass of str ({kind!r})" if isinstance(bad, str) else f"of type {kind!r}, not a string"
    return DecodeError(DecodeReason.NOT_JSON, f"an object key is {what}")


def within_size(packed: int, values: int, max_values: int) -> None:
    """Refuse, as too large, a JSON value of ``values`` values whose msgpack encoding takes
    ``packed`` bytes, where its compact JSON surely takes more bytes than a document within the
    size bound (``max_values``'s: at most twice as many). Msgpack spells a value in as many bytes as
    JSON or fewer, but for a float (9 bytes; 3 at least in JSON) and the header of a string of 256
    bytes or more (one byte more than its quotes, three past 64 KiB): at most 6 bytes a value and
    one per 128 bytes more. So a string or a key far longer than the bound is refused, as its
    document is; a value within it never is."""
    least = packed - 6 * values - (packed >> 7)
    if least > max_values << 1:
        raise too_long(least, max_values)


def too_long(size: int, max_values: int) -> DecodeError:
    return DecodeError(
        DecodeReason.TOO_LARGE,
        f"instance takes at least {size} bytes as JSON, over what a document within max_instance_bytes "
        f"holds ({max_values << 1} bytes at most)",
    )


def too_many(max_values: int) -> DecodeError:
    return DecodeError(
        DecodeReason.TOO_LARGE,
        f"instance holds more than {max_values} values (shared objects count each time they occur), over "
        "what a document within max_instance_bytes holds",
    )


def too_deep(max_depth: int) -> DecodeError:
    return DecodeError(DecodeReason.TOO_DEEP, f"instance nests more than {max_depth} levels deep")


def surrogate(exc: UnicodeEncodeError) -> DecodeError:
    return DecodeError(
        DecodeReason.INVALID_UTF8, f"a string holds a lone surrogate, which no UTF-8 document spells: {exc}"
    )


def changed_while_read(exc: BaseException) -> DecodeError:
    """The refusal of a value that failed a pass after the screen had read it whole: only a change
    made while it was read (by another thread, or a finalizer the collector ran) does that. Its
    answer would be of a value no one read whole; the caller's object is its own to guard."""
    return DecodeError(
        DecodeReason.NOT_JSON,
        "the instance changed while it was read (another thread or a finalizer changed it), and what it "
        f"now holds is not a JSON value: {exc}",
    )


def non_finite() -> DecodeError:
    return DecodeError(DecodeReason.NON_FINITE_NUMBER, "NaN and Infinity are not JSON numbers")


def not_json(kind: type) -> DecodeError:
    return DecodeError(
        DecodeReason.NOT_JSON, f"instance is not a JSON value: it holds an object of type {kind.__name__!r}"
    )

"""Numbers msgspec parses slowly, counted in a long document's text before it is parsed.

msgspec parses a number in some 10-25 us, against 0.05 for any other, where its decimal exponent,
once the digits of its integer part past the 19 it keeps are added to the written one, is 289 or
more (``1e300``, ``17976931348623157000e288``, 309 digits and ``.0``): 1 MiB of ``1e300,`` takes
about 2 s, and 64 MiB (the default size bound) 110 s. A document longer than
:data:`SCREENED_PAST` holding more than :data:`MOST_SLOW` of them is refused unparsed.

Only numbers count, never the text of a string: a document of hexadecimal identifiers
(``"9e3a..."``, a digit, an ``e`` and more digits) or of strings of digits is read as any other.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["MOST_SLOW", "SCREENED_PAST", "far_exponents_in_texts_over", "far_exponents_over", "without_escaped_quotes"]

SCREENED_PAST = 1 << 20
"""The longest document whose numbers are not screened before it is parsed (1 MiB of the slowest
numbers parses in about 2 s). A longer document holding more than :data:`MOST_SLOW` of them is
refused unparsed (:func:`far_exponents_over`); any other is read by the general path (the parse,
the backend's check)."""
MOST_SLOW = 1 << 16
"""The most numbers msgspec parses slowly a document past :data:`SCREENED_PAST` may hold: some
0.7 s of parsing."""

_KEPT_DIGITS = 19  # msgspec keeps 19 digits of a number; each one more of its integer part is a power of ten
_SLOW_EXPONENT = 289
# Digits to `0`, `e` and `E` to `e`, `+` gone: a slow number is a digit, `e` and three digits
# (an exponent of 100 or more), or a run of 200 digits (an integer part of 209 or more, needed
# for a decimal exponent of 289 with an exponent of two digits or none).
_NUMBER_BYTES = bytes.maketrans(b"0123456789E", b"0000000000e")
_LONG_RUN = b"0" * 200
_KEPT_RUN = b"0" * (_KEPT_DIGITS + 1)
# `E` to `e`, `+` gone: outside strings, a letter `e` followed by a digit is a number's exponent,
# far when it is 289 or more (zeros before it allowed). A pattern that starts with a letter is
# searched for at the speed of a byte search, not tried at every digit.
_EXPONENT_BYTES = bytes.maketrans(b"E", b"e")
_FAR_EXPONENT = re.compile(rb"e0*(?:289|29[0-9]|[3-9][0-9]{2}|[1-9][0-9]{3,})")
# A number whose integer part is longer than msgspec keeps, with its exponent unless negative.
_LONG_NUMBERS = re.compile(rb"([0-9]{20,})(?:\.[0-9]*)?(?:[eE]\+?([0-9]+))?")
_FEW_QUOTES = 1 << 16  # a document with fewer is split at its quotes at once; a longer one by windows
_WINDOW = 1 << 20  # bytes split at a time: the pieces of one window are held at once, not the document's


def far_exponents_over(data: bytes | bytearray | memoryview | str, most: int = MOST_SLOW) -> bool:
    """Whether the JSON document ``data`` may hold more than ``most`` numbers msgspec parses
    slowly: a bound from its letters ``e`` and its runs of 200 digits, strings included (a pass
    mapping the bytes, two counts; most documents settle here), then the same from its text
    outside strings, then the count of the numbers themselves (a written exponent of 289 or more;
    an integer part longer than 19 digits read with its exponent; a fraction, which only lowers
    the exponent, not counted)."""
    raw = str.encode(data, "utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    if not _may_hold_over(raw, most):
        return False
    outside = outside_strings(raw)
    return _counted_over(outside, most, checked=len(outside) == len(raw))


def far_exponents_in_texts_over(texts: Iterable[str], most: int = MOST_SLOW) -> bool:
    """:func:`far_exponents_over` for JSON documents each parsed apart (the text blocks of a
    result), counted together; each is read outside its strings on its own, so a text whose
    quotes do not pair hides no other's numbers."""
    raws = [str.encode(text, "utf-8", "surrogatepass") for text in texts]
    if not _may_hold_over(b"\n".join(raws), most):
        return False
    return _counted_over(b"\n".join(map(outside_strings, raws)), most, checked=False)


def outside_strings(raw: bytes | bytearray) -> bytes:
    """The text of the JSON document ``raw`` outside its strings, the strings dropped (and any
    text after an unclosed one). An escaped backslash, then an escaped quote, is taken out first:
    every quote left opens or closes a string. msgspec reads a document from its start and stops
    at its first error, and until there the document's strings are these."""
    raw = without_escaped_quotes(raw)
    quotes = raw.count(b'"')
    if quotes >= _FEW_QUOTES:
        # A closing quote is followed by a comma, a colon, a bracket or a space, never by a quote:
        # `""` is an empty string, taken out at once.
        raw = raw.replace(b'""', b"")
        quotes = raw.count(b'"')
    if quotes < _FEW_QUOTES:
        return b" ".join(raw.split(b'"')[::2])
    # Many strings: split a window at a time, each ending just after a closing quote (the quotes
    # before it are even), so that each starts outside a string.
    kept = []
    start, size = 0, len(raw)
    while start < size:
        end = raw.find(b'"', start + _WINDOW)
        if end < 0:
            end = size
        else:
            end += 1
            if raw.count(b'"', start, end) & 1:  # that quote opens a string: through the one closing it
                close = raw.find(b'"', end)
                end = size if close < 0 else close + 1
        kept.append(b" ".join(raw[start:end].split(b'"')[::2]))
        start = end
    return b" ".join(kept)


def without_escaped_quotes(raw: bytes | bytearray) -> bytes | bytearray:
    """``raw``, a JSON text, with its escaped backslashes taken out, then its escaped quotes (left
    to right, as a string reads its escapes): every quote left opens or closes a string."""
    if b"\\" not in raw:
        return raw
    return raw.replace(b"\\\\", b"").replace(b'\\"', b"")


def _may_hold_over(raw: bytes, most: int) -> bool:
    mapped = raw.translate(_NUMBER_BYTES, b"+")
    runs = mapped.count(_LONG_RUN)
    return runs > most or (mapped.count(b"e") + runs > most and mapped.count(b"0e000") + runs > most)


def _counted_over(text: bytes, most: int, *, checked: bool) -> bool:
    """Whether ``text``, a document's text outside its strings, holds more than ``most`` slow
    numbers: counted one by one, stopping past ``most``. ``checked``: the counts of
    :func:`_may_hold_over` were taken on this text already (it holds no string)."""
    if not checked and not _may_hold_over(text, most):
        return False
    slow = 0
    # (A long number with a far exponent is counted here, not below.)
    for _ in _FAR_EXPONENT.finditer(text.translate(_EXPONENT_BYTES, b"+")):
        slow += 1
        if slow > most:
            return True
    if _KEPT_RUN not in text.translate(_NUMBER_BYTES):
        return False  # no integer part longer than msgspec keeps
    for match in _LONG_NUMBERS.finditer(text):
        whole, exponent = match.group(1), match.group(2)
        written = 0
        if exponent is not None:
            exponent = exponent.lstrip(b"0")
            if len(exponent) > 3 or int(exponent or b"0") >= _SLOW_EXPONENT:
                continue  # a far exponent, counted above
            written = int(exponent or b"0")
        if len(whole) - _KEPT_DIGITS + written >= _SLOW_EXPONENT:
            slow += 1
            if slow > most:
                return True
    return False

"""Character sets as data: sorted, disjoint, inclusive code point ranges, with the ECMA-262
classes (``\\d``, ``\\w``, ``\\s``, ``.``) spelled out and the Python source that matches them."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "ANY",
    "DIGIT",
    "DOT",
    "MAX_CODE_POINT",
    "SPACE",
    "WORD",
    "Ranges",
    "emit_char",
    "emit_ranges",
    "negate",
    "norm",
    "overlap",
]

MAX_CODE_POINT = 0x10FFFF

Ranges = tuple[tuple[int, int], ...]


def norm(ranges: Iterable[tuple[int, int]]) -> Ranges:
    """``ranges`` sorted and merged."""
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return tuple(out)


def negate(ranges: Ranges) -> Ranges:
    out, start = [], 0
    for lo, hi in ranges:
        if lo > start:
            out.append((start, lo - 1))
        start = hi + 1
    if start <= MAX_CODE_POINT:
        out.append((start, MAX_CODE_POINT))
    return tuple(out)


def overlap(a: Ranges, b: Ranges) -> bool:
    """Whether two sets share a code point, in one merge pass."""
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i][1] < b[j][0]:
            i += 1
        elif b[j][1] < a[i][0]:
            j += 1
        else:
            return True
    return False


DIGIT: Ranges = ((0x30, 0x39),)
# ECMA-262's \w and \b are ASCII-only, also in Unicode mode (without the i flag).
WORD: Ranges = norm([(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)])
# ECMA-262 WhiteSpace and LineTerminator code points.
SPACE: Ranges = norm(
    [
        (0x09, 0x0D),
        (0x20, 0x20),
        (0xA0, 0xA0),
        (0x1680, 0x1680),
        (0x2000, 0x200A),
        (0x2028, 0x2029),
        (0x202F, 0x202F),
        (0x205F, 0x205F),
        (0x3000, 0x3000),
        (0xFEFF, 0xFEFF),
    ]
)
LINE_TERMINATORS: Ranges = norm([(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)])
DOT: Ranges = negate(LINE_TERMINATORS)
ANY: Ranges = ((0, MAX_CODE_POINT),)


def emit_ranges(ranges: Ranges) -> str:
    """Python source for one character of ``ranges`` (flag-free)."""
    if ranges == ANY:
        return r"[\s\S]"
    if not ranges:
        return "(?!)"
    parts = []
    for lo, hi in ranges:
        parts.append(emit_char(lo) if lo == hi else f"{emit_char(lo)}-{emit_char(hi)}")
    return "[" + "".join(parts) + "]"


def emit_char(cp: int) -> str:
    ch = chr(cp)
    if ch.isascii() and ch.isalnum():
        return ch
    return f"\\x{cp:02x}" if cp < 0x100 else (f"\\u{cp:04x}" if cp < 0x10000 else f"\\U{cp:08x}")

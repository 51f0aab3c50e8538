"""What an instance measures, as the errors about it weigh: its values level by level, a long
string or key once more per 64 characters (every message quotes it), a large integer by its
digits, a value under long keys by the path each error copies; and a value shown short."""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Mapping
from itertools import compress, repeat
from operator import is_, rshift
from typing import Any

import msgspec

__all__ = ["PATH_CHARACTERS_PER_EVALUATION", "shape", "short", "size", "size_and_depth", "widest_and_nested"]

_SCALARS = frozenset({int, float, bool, type(None)})
_LEAVES = _SCALARS | {str}
_WIDE_LEVEL = 64  # values on a level past which `shape` first reads their types in C
# An integer past 64 bits copied into an error is read from its digits again (81 us at 4,300
# digits, with their square): one evaluation more per 2^23 squares of its digits.
_WORD_BITS = 63
_DIGITS_SQUARED = 23


def shape(instance: Any, limit: int) -> tuple[int, int]:
    """(the most values on one level of ``instance``, its depth), level by level; a long string
    counts once per 64 characters (every error message quotes it), an integer past 64 bits once
    more per 2^23 squares of its digits (every error copying it reads them again), an object's
    keys count with its values. Counting stops once a level passes ``limit``."""
    widest, depth = 0, -1
    for width in _level_widths(instance, limit):
        depth += 1
        widest = max(widest, width)
        if widest > limit:
            break
    return widest, depth


def widest_and_nested(instance: Any, limit: int) -> tuple[int, int]:
    """(the most values on one level, as :func:`shape` counts them; the values counted once for
    each container above them: what the errors about every container would copy in all), read
    until either passes ``limit``."""
    widest = nested = 0
    for depth, width in enumerate(_level_widths(instance, limit)):
        widest = max(widest, width)
        nested += depth * width
        if widest > limit or nested > limit:
            break
    return widest, nested


def size_and_depth(instance: Any, limit: int) -> tuple[int, int]:
    """(:func:`size`, the depth :func:`shape` gives) in one reading."""
    total, depth = 0, -1
    for width in _level_widths(instance, limit):
        depth += 1
        total += width
        if total > limit:
            break
    return total, depth


def size(instance: Any, limit: int) -> int:
    """How many values ``instance`` holds, counted as :func:`shape` counts them; counting stops
    once the levels read pass ``limit``."""
    total = 0
    for width in _level_widths(instance, limit):
        total += width
        if total > limit:
            break
    return total


def _level_widths(instance: Any, limit: int) -> Iterator[int]:
    """The values :func:`shape` counts on each level of ``instance``, from the top; a level of more
    than ``limit`` values is the last, counted by its length alone (its callers stop there: ten
    million integers took a second to read, twice, before an explanation's clock began). Every
    error about a value copies its path: a value under keys of :data:`PATH_CHARACTERS_PER_EVALUATION`
    characters or more counts once more per that many (the longest key of each level above)."""
    level = [instance]
    above = 0  # the characters of the longest key of each level above
    while level:
        width = len(level)
        if width > limit:
            yield width
            return
        below: list[Any] = []  # (`list[Any]()` builds a generic alias first: ten times the cost)
        kinds = {*map(type, level)} if width > _WIDE_LEVEL else None
        longest = 0
        if kinds is not None and kinds <= _LEAVES:
            # A wide level of scalars, read in C: one each, a string once more per 64 characters.
            if str in kinds:
                strings = compress(level, map(is_, map(type, level), repeat(str)))
                width += sum(map(rshift, map(len, strings), repeat(6)))
            if int in kinds:
                integers = [*compress(level, map(is_, map(type, level), repeat(int)))]
                if max(map(int.bit_length, integers)) > _WORD_BITS:
                    width += sum(map(_copied, integers))
        else:
            width, longest = _level_width(level, below)
        if above >= PATH_CHARACTERS_PER_EVALUATION:
            width *= 1 + above // PATH_CHARACTERS_PER_EVALUATION
        yield width
        above += longest
        level = below


PATH_CHARACTERS_PER_EVALUATION = 1_024
"""Characters of the path an error holds that one evaluation stands for: jsonschema-rs copies the
path into every error, and the error is copied again as it is read (an 8 MB key above 100 failing
values made 1.6 GB of errors, 20 MB aborted the process, each counted as one value)."""


def _level_width(level: list[Any], below: list[Any]) -> tuple[int, int]:
    """The values :func:`shape` counts on ``level``, its arrays' and objects' values put in
    ``below``; and the characters of its longest key."""
    width = len(level)
    longest = 0
    for value in level:
        kind = type(value)  # JSON values, read by their exact types first (an ABC check is slow)
        if kind is str:
            width += len(value) >> 6
        elif kind is dict:
            below.extend(value.values())
            if value:
                characters, most = _key_characters(value)
                width += len(value) + (characters >> 6)
                longest = max(longest, most)
        elif kind is list:
            below.extend(value)
        elif kind is int:
            if value.bit_length() > _WORD_BITS:
                width += _copied(value)
        elif kind in _SCALARS:
            pass
        elif isinstance(value, str):
            width += len(value) >> 6
        elif isinstance(value, Mapping):
            below.extend(value.values())
            if value:
                characters, most = _key_characters(value)
                width += len(value) + (characters >> 6)
                longest = max(longest, most)
        elif isinstance(value, list):
            below.extend(value)
    return width, longest


def _key_characters(mapping: Mapping[Any, Any]) -> tuple[int, int]:
    """The characters of ``mapping``'s keys, and of its longest (a key that is not a string, in a
    value changed since it was screened, as it is written)."""
    try:
        lengths = [*map(len, mapping)]
    except TypeError:
        lengths = [len(str(key)) for key in mapping]
    return sum(lengths), max(lengths)


def _copied(integer: int) -> int:
    """What an error copying ``integer`` costs beyond one value: past 64 bits, its digits read again."""
    bits = integer.bit_length()
    if bits <= _WORD_BITS:
        return 0
    digits = bits * 30_103 // 100_000 + 1
    return digits * digits >> _DIGITS_SQUARED


def short(instance: Any, limit: int = 80) -> str:
    """``instance`` as JSON, cut after ``limit`` characters: written piece by piece so that a
    huge or deeply nested value costs no more than the characters shown."""
    import json  # here, on the slow path that explains a failure: not on `import engine`

    parts: list[str] = []
    length = 0
    stack: list[Any] = [instance]
    while stack and length <= limit:
        item = stack.pop()
        if isinstance(item, Text):
            text = item.text
        elif isinstance(item, Mapping):
            text = "{"
            entries: list[Any] = [Text("}")]
            # Keys sorted, as jsonschema-rs writes them.
            keys = heapq.nsmallest(limit, item)  # the first keys in order, without sorting them all
            for n, (key, value) in enumerate(reversed([(k, item[k]) for k in keys])):
                entries.append(value)
                entries.append(Text(json.dumps(str(key), ensure_ascii=False) + ":"))
                if n < min(len(item), limit) - 1:
                    entries.append(Text(","))
            stack.extend(entries)
        elif isinstance(item, list):
            text = "["
            entries = [Text("]")]
            shown = item[:limit]
            for n, value in enumerate(reversed(shown)):
                entries.append(value)
                if n < len(shown) - 1:
                    entries.append(Text(","))
            stack.extend(entries)
        elif isinstance(item, str):
            text = json.dumps(item[: limit + 1], ensure_ascii=False)
        else:
            try:
                text = json.dumps(item)
            except (TypeError, ValueError):
                text = repr(item)[: limit + 1]
        parts.append(text)
        length += len(text)
    text = "".join(parts)
    return text if len(text) <= limit and not stack else text[: limit - 3] + "..."


class Text(msgspec.Struct, frozen=True):
    text: str

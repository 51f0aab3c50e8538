"""What floats cost jsonschema-rs where a schema compares numbers.

jsonschema-rs compares a float with a number exactly, and the farther the float's decimal
exponent from zero, the slower. Measured on one float (CPU, 2-core machine; microseconds a
comparison):

=================================  =======  =====  ======  =======  =======  ======
against                              0.5    1e-20  1e-100  1e-300   5e-324   1e300
=================================  =======  =====  ======  =======  =======  ======
``multipleOf: 0.7``                  0.9     2.6     7.7     23.5     31.8     4.6
``minimum: 0.5``                     0.6     1.5     4.1     12.1     14.6     3.3
``minimum: 5``                       0.02    0.02    0.02    0.02     0.02     2.4
``const: 5``                         1.1     2.3     5.3     13.1     16.0     3.1
``enum: [1, 2, 3]`` (three members)  3.0     6.7     16.1    49.7     50.2     8.3
=================================  =======  =====  ======  =======  =======  ======

An ``enum`` of integers is looked up for an integer only: a float is compared with every member,
some 1.5 microseconds each (``{"not": {"enum": [0, ..., 9999]}}`` on 2,000 items ``0.5``, 8 KB:
30 s). So an instance holding floats is weighed where its schema compares numbers: each float
costs :data:`MEMBER` evaluations for every number member (of a ``const`` or an ``enum``, or a
``uniqueItems`` pair) it may meet, and, past an exponent of :data:`_NEAR`, :data:`_EXPONENT_DIGIT`
more for each decimal digit of its exponent for every comparison it may meet (a member, a bound
of a range, ``multipleOf``). A keyword whose operand has a fraction is weighed for every value
already (``engine._work``).
"""

from __future__ import annotations

import re
from math import frexp
from typing import Any

from ._levels import Levels

__all__ = [
    "MOST_PER_FLOAT",
    "NUMBER_KEYWORDS",
    "RANGE",
    "below",
    "float_comparisons_at_most",
    "float_levels",
    "float_work_at_most",
    "float_work",
    "floats_cheap",
    "floats_free",
    "fraction",
    "number_cost",
    "number_members",
    "UNIQUE_PAIRS",
]

MEMBER = 200  # a float compared with a number member: 1-1.5 us
_EXPONENT_DIGIT = 12  # a comparison, for each decimal digit of a far exponent: 31.8 us at 5e-324
# Near floats, 2^-79 to 2^81 (1.7e-24 to 2.4e24: an exponent of 0x3b0 to 0x44f, as its first
# bytes spell it), cost no more (a bound with a fraction is weighed for every value already:
# 400 evaluations; with an integral one, 1e20 takes 1.3 us).
_LEAST_NEAR, _MOST_NEAR = -78, 81  # `frexp` exponents
_TINY, _HUGE = 2.0**-79, 2.0**81
_FARTHEST = _EXPONENT_DIGIT * 324  # 5e-324 (1.8e308: 308)
# In a msgpack pass, every float is 0xcb and its 8 bytes, big-endian: a far one's first byte holds
# its sign and the top 7 bits of its exponent outside 0x3b to 0x44 (zero excepted). Each float is
# one match at most; a match may also be inside a string or another number (a bound, then).
_FLOAT = b"\xcb"
_FAR_FLOAT = re.compile(rb"\xcb(?!\x00{8}|\x80\x00{7})[\x00-\x3a\x45-\xba\xc5-\xff]")
MOST_PER_FLOAT = MEMBER + _FARTHEST  # what a float may cost a comparison
# A bound with an integral operand (or `multipleOf`) reads a far float in 4.2 us at most (1.8e308
# against `multipleOf: 3`; 5e-324 0.5 us): blunt, where a member or a fraction is sharp.
_BLUNT = 460
# What a comparison may cost for each byte of a float in a document, its separator included: a
# member against `1e308` (6 bytes) 3,896 evaluations, 649 a byte; `5e-324` (7) 584; blunt, 77.
_MOST_PER_BYTE, _BLUNT_PER_BYTE = 650, 80
RANGE = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
NUMBER_KEYWORDS = frozenset({*RANGE, "const", "enum", "uniqueItems"})  # (a number as an operand or a member)
# An array of up to 15 items is compared pair by pair: 105 pairs, 7 for each item (a longer one is
# hashed, an item once, and its items that hash alike compared: `engine._unique`).
UNIQUE_PAIRS = 7
_MEMBER_VALUES = 1 << 20
_A_REFERENCE = b'ef":'
_BOUND, _MULTIPLE, _UNIQUE = b'imum":', b'"multipleOf":', b'"uniqueItems":true'
_EVERY = 1 << 62  # a document of any length, any count of floats


def float_comparisons_at_most(text: bytes, values: int, numeric_members: bool) -> int | None:
    """At most the comparisons one float meets (number members and keywords that may compare it
    slowly), read off a schema's canonical ``text`` (``values``: how many it holds;
    ``numeric_members``: whether a ``const`` or an ``enum`` may hold a number) without a walk;
    ``None`` where the text spells a reference."""
    if text.find(_A_REFERENCE) >= 0:
        return None
    members = (values if numeric_members else 0) + UNIQUE_PAIRS * text.count(_UNIQUE)
    return members + text.count(_BOUND) + text.count(_MULTIPLE)


def floats_cheap(sharp: int, blunt: int, budget: int) -> int:
    """The longest document whose floats cannot cost more than ``budget`` where one float meets at
    most ``sharp`` comparisons with a member or a fraction and ``blunt`` with an integral bound."""
    per_byte = _MOST_PER_BYTE * sharp + _BLUNT_PER_BYTE * blunt
    return budget // per_byte if per_byte > 0 else _EVERY


def floats_free(sharp: int, blunt: int, budget: int) -> int:
    """The most floats a value may hold that cannot cost more than ``budget`` (see :func:`floats_cheap`)."""
    per_float = MOST_PER_FLOAT * sharp + _BLUNT * blunt
    return budget // per_float if per_float > 0 else _EVERY


def float_levels(graph: Levels, levels: int, cap: int) -> tuple[list[int], list[int], list[int]] | None:
    """The most number members, sharp comparisons (a member, a bound or ``multipleOf`` with a
    fraction) and blunt ones (a bound or ``multipleOf`` with an integral operand) one float may
    meet at each level of an instance (the root's is 0; none past the end), counted on the
    schema's ``graph`` (:func:`engine._levels.levels_of`, ``levels`` deep) as
    :func:`engine._numbers.comparisons_met` counts (what compares the values within a value at
    every level below it); ``None`` where the counts take too many steps."""
    count = len(graph.nodes)
    members, within, sharp, blunt = [0] * count, [0] * count, [0] * count, [0] * count
    for at, node in enumerate(graph.nodes):
        if NUMBER_KEYWORDS.isdisjoint(node):  # (most subschemas: one C call)
            continue
        here, within[at] = number_members(node)
        members[at] = here
        sharp[at] = here + sum(fraction(node.get(keyword)) for keyword in RANGE)
        blunt[at] = sum(keyword in node and not fraction(node[keyword]) for keyword in RANGE)
    deepest = graph.summed(within, cap)
    met, keen, dull = graph.summed(members, cap), graph.summed(sharp, cap), graph.summed(blunt, cap)
    if deepest is None or met is None or keen is None or dull is None:
        return None
    return below(met, deepest, levels, cap), below(keen, deepest, levels, cap), dull


def below(counted: list[int], deeper: list[int], levels: int, cap: int) -> list[int]:
    """``counted`` at each level, with what compares the values within a value (``deeper``) at
    every level below it too."""
    met, above = counted + [0] * (levels - len(counted)), 0
    for level in range(levels):  # a level meets what compares the values within every level above it
        above = min(above + (deeper[level] if level < len(deeper) else 0), cap)
        met[level] = min(met[level] + above, cap)
    while len(met) > 1 and met[-1] == 0:
        met.pop()
    return met


def number_members(node: dict[str, Any]) -> tuple[int, int]:
    """The number members of ``node``'s ``const`` and ``enum`` compared with the value itself, and
    the numbers compared within it: inside an array or object member, and the pairs of its items
    ``uniqueItems: true`` compares (:data:`UNIQUE_PAIRS` an item)."""
    members = [node["const"]] if "const" in node else []
    enum = node.get("enum")
    if type(enum) is list:
        members += enum
    here = sum(type(member) is int or type(member) is float for member in members)
    nested = [member for member in members if type(member) is dict or type(member) is list]
    within = _numbers_in(nested) if nested else 0
    if node.get("uniqueItems") is True:
        within += UNIQUE_PAIRS
    return here, within


def fraction(operand: Any) -> bool:
    """Whether ``operand`` is a number with a fraction (compared slowly: see ``engine._comparisons``)."""
    return type(operand) is float and not operand.is_integer()


def _numbers_in(values: list[Any]) -> int:
    count, stack, seen = 0, list(values), 0
    while stack and seen <= _MEMBER_VALUES:
        item = stack.pop()
        seen += 1
        kind = type(item)
        if kind is int or kind is float:
            count += 1
        elif kind is dict:
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
    return count


def float_work_at_most(packed: bytes, members: int, sharp: int, blunt: int) -> int:
    """At most what the floats of an instance whose msgpack pass is ``packed`` cost, each meeting
    at most ``members`` number members and ``sharp`` and ``blunt`` comparisons: two passes in C."""
    far = len(_FAR_FLOAT.findall(packed))
    return packed.count(_FLOAT) * members * MEMBER + far * (sharp * _FARTHEST + blunt * _BLUNT)


def float_work(by_level: list[list[float]], members: list[int], sharp: list[int], blunt: list[int]) -> int:
    """What the floats of an instance (``by_level``: those at each level) cost, each meeting the
    ``members``, ``sharp`` and ``blunt`` comparisons of its level (see :func:`float_levels`)."""
    work = 0
    for depth, floats in enumerate(by_level):
        keen, dull = _at(sharp, depth), _at(blunt, depth)
        if not floats or not keen + dull:
            continue
        work += _at(members, depth) * MEMBER * len(floats)
        # One pass in C each: most floats are near (zero is: it costs nothing more).
        if max(floats) >= _HUGE or min(floats) <= -_HUGE or min(filter(None, map(abs, floats)), default=_TINY) < _TINY:
            far = [*filter(None, map(_far, floats))]
            work += keen * sum(far) + dull * _BLUNT * len(far)
    return work


def _at(counts: list[int], depth: int) -> int:
    return counts[depth] if depth < len(counts) else 0


def number_cost(number: Any) -> int:
    """What comparing a value with ``number``, a float or an integer past 64 bits in a schema, costs
    beyond an ordinary comparison: a far exponent as in a document's float; one evaluation per
    digit of a long integer (a ``const`` of 4,299 digits, 22 us against ``1``)."""
    if type(number) is int:
        return number.bit_length() * 30_103 // 100_000 + 1 if number.bit_length() > 63 else 0
    return _far(number)


def _far(value: float) -> int:
    """What a comparison costs beyond :data:`MEMBER` for a float of this value."""
    exponent = frexp(value)[1]
    if _LEAST_NEAR <= exponent <= _MOST_NEAR or not value:
        return 0
    return _EXPONENT_DIGIT * (abs(exponent) * 30_103 // 100_000 + 1)

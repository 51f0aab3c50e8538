"""What a subschema's comparisons cost a value beyond one evaluation (``engine._work`` weighs them).

jsonschema-rs looks a value up in an ``enum`` of strings only, or of integers only (within 64
bits), and otherwise compares it with each member in turn: a number some 1-2 microseconds a
member (200 evaluations: 10,000 floats took 20 ms for one value, 286 s for 10,000 items), any
other member about 50 nanoseconds (5, and 5 for each value an array or object member holds: a
comparison reads up to the shorter side; a number inside one, as a number member). A ``minimum``,
``maximum``, ``exclusiveMinimum``, ``exclusiveMaximum``, ``multipleOf`` or ``const`` whose operand
has a fraction costs 400 (1.6-3.7 microseconds a value; with an integral operand, under 0.1). A
float far from 1 or an integer past 64 bits in a schema costs what ``engine._floats.number_cost``
says on top (a ``const`` of 4,299 digits: 22 us against ``1``; ``5e-324`` against ``1``: 15 us).
"""

from __future__ import annotations

from math import log10
from typing import Any

from ._floats import fraction, number_cost
from ._instance import json_values

__all__ = ["NUMERIC", "comparisons"]

_NUMBER_COMPARISON = 200  # evaluations a number compared with an `enum` member costs
# Keywords whose operand with a fraction jsonschema-rs compares slowly (`minimum: 0.5`: 1.6 us a
# value, `multipleOf: 0.01` 2.5-3.7 us, `const: 1.5` 3.6 us; `minimum: 1.0` 87 ns).
NUMERIC = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "const")
_FRACTION_COMPARISON = 400
_SMALL_DIVISOR = 1e-3  # a `multipleOf` below this costs more for each decimal digit it shifts
_DIVISOR_DIGIT = 40
_OTHER_COMPARISON = 5  # any other `enum` member compared in turn (an array or object: each value it holds)
_MEMBER_VALUES = 1 << 20  # values of an `enum` member counted (a schema of 1 MB holds fewer)
_LOOKED_UP = 1 << 63  # integers jsonschema-rs looks up in an `enum` of integers


def comparisons(node: dict[str, Any]) -> int:
    """Evaluations beyond one that checking ``node``'s ``enum`` and ``const`` costs (see the module)."""
    cost = 0
    enum = node.get("enum")
    if type(enum) is list and enum and not _looked_up(enum):
        cost += sum(map(_member_cost, enum))
    for keyword in NUMERIC:
        if keyword in node and (fraction(node[keyword]) or keyword == "multipleOf"):
            cost += _FRACTION_COMPARISON  # `multipleOf: 7` against 1e305: 3-4 us a value
    divisor = node.get("multipleOf")
    if type(divisor) is float and 0 < abs(divisor) < _SMALL_DIVISOR:
        # The smaller the divisor, the longer the division: 0.01 some 3 us a value, 1e-100 6 us,
        # 1e-300 and 5e-324 14-18 us (34 us against an integer of 300 digits).
        cost += _DIVISOR_DIGIT * int(-log10(abs(divisor)))
    const = node.get("const")
    if type(const) is dict or type(const) is list:  # compared value by value, like an enum member
        cost += _member_cost(const)
    elif _is_number(const):  # a float far from 1, an integer past 64 bits: compared slowly
        cost += number_cost(const)
    return cost


def _member_cost(member: Any) -> int:
    """What comparing a value with ``member`` may cost: a comparison of two arrays or objects, or
    of two long strings, stops at the end of the shorter, so a member's own size bounds it."""
    if _is_number(member):
        return _NUMBER_COMPARISON + number_cost(member)
    kind = type(member)
    if kind is dict or kind is list:
        # Each number inside compared as a number member is (an equal `1e15` and `10**15`: 2.1 us).
        numbers = [value for value in _scalars(member, _MEMBER_VALUES) if _is_number(value)]
        rest = json_values(member, _MEMBER_VALUES) - len(numbers)
        return _OTHER_COMPARISON * rest + sum(_NUMBER_COMPARISON + number_cost(value) for value in numbers)
    if kind is str:
        return _OTHER_COMPARISON + (len(member) >> 6)
    return _OTHER_COMPARISON


def _looked_up(enum: list[Any]) -> bool:
    kinds = set(map(type, enum))
    if kinds == {str}:
        return True
    return kinds == {int} and all(-_LOOKED_UP <= member < _LOOKED_UP for member in enum)


def _is_number(value: Any) -> bool:
    return type(value) is float or (type(value) is int and not -_LOOKED_UP <= value < _LOOKED_UP)


def _scalars(value: Any, limit: int) -> list[Any]:
    """The scalars the JSON value ``value`` holds, up to about ``limit`` of them."""
    found: list[Any] = []
    stack = [value]
    while stack and len(found) <= limit:
        item = stack.pop()
        if type(item) is dict or type(item) is list:
            stack += item.values() if type(item) is dict else item
        else:
            found.append(item)
    return found

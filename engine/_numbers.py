"""What integers past 64 bits cost jsonschema-rs: each comparison reads the integer's digits.

jsonschema-rs holds an integer within 64 bits as a machine word and any longer one as its decimal
digits; a keyword that reads a number converts those digits again at each comparison, in time
that grows with the square of their count. Measured on one integer (CPU, 2-core machine):

====================================  ========  ==========  ============  =============
keyword, against an integer of          21 digits  100 digits  1,000 digits  4,300 digits
====================================  ========  ==========  ============  =============
``minimum`` (any bound of a range)      1.3 us     2.4 us      45 us         665 us
``const: 5``, each ``enum`` member      0.8 us     1.3 us      27 us         460 us
``type: "number"``                      0.3 us     0.8 us      13 us         222 us
a ``uniqueItems`` pair                  0.6 us     1.3 us      30 us         489 us
====================================  ========  ==========  ============  =============

A value meets at most :data:`~engine._guard.AMPLIFYING` subschemas without being weighed, and an
``enum`` of integers is looked up without comparing its members, except that an integer past 64
bits is compared with every member: ``{"a": <4,300 digits>}``, 4 KB, against an ``enum`` of
10,000 integers took 4 s to check (and 10 s more to explain), and 40 such integers against 100
``minimum`` s 2.7 s. So where a schema's text spells a keyword that reads numbers
(:func:`spells_numbers`), every instance holding an integer past 64 bits (msgpack, which holds
every other, refuses it: one pass in C) has them weighed: each costs :func:`comparison_cost`
evaluations a comparison, times the comparisons one value may meet (:func:`comparisons_per_value`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import msgspec

from ._dialect import Dialect
from ._errors import DecodeError, DecodeReason
from ._floats import (
    NUMBER_KEYWORDS,
    RANGE,
    UNIQUE_PAIRS,
    below,
    float_comparisons_at_most,
    float_levels,
    float_work,
    float_work_at_most,
    floats_cheap,
    floats_free,
    number_members,
)
from ._instance import floats_by_level, large_integers_by_level, unsigned_past_63_bits
from ._levels import Levels, levels_of

__all__ = [
    "comparison_bounds",
    "comparison_cost",
    "comparisons_per_value",
    "compares_in_turn",
    "read_numbers",
    "comparisons_at_most",
    "comparisons_met",
    "reads_numbers",
    "spells_numbers",
    "surely_cheap",
    "weigh_large_integers",
    "EVERY_LENGTH",
    "Weighed",
    "never_longer",
]

_pack = msgspec.msgpack.encode
_LEAST = -(1 << 63)
_WORD_BITS = 63  # integers a signed machine word holds (msgpack holds unsigned ones to 64 bits too)
# A comparison: 1.3 us, and 0.036 ns for each square of a digit (one evaluation some 5 ns).
_COMPARISON = 300
_DIGITS_SQUARED = 7  # a shift: one evaluation per 128 squares of a digit
_REFERENCES = frozenset({"$ref", "$dynamicRef", "$recursiveRef"})
# The end of `"$ref":`, `"$dynamicRef":` and `"$recursiveRef":` (and of a few other keys): one search.
_A_REFERENCE = b'ef":'
# Few enough that a document of at most `surely_cheap` bytes holds most tool calls (2,900 at the
# default budget): the bound is read off the values alone.
_FEW_COMPARISONS = 1 << 10
# Few enough that a float's bound, read off the values alone, leaves a document of some 800 bytes
# unlooked at (a schema of 24 values): a larger schema's text is searched for the keywords.
_FEW_FLOAT_COMPARISONS = 192
# What a comparison may cost for each byte of an integer in a document, its separator included:
# `comparison_cost` over one more than the digits is at most 33.7 (4,300 digits, the longest read).
_MOST_PER_BYTE = 34
EVERY_LENGTH = 1 << 62  # a document of any length
Weighed = tuple[
    Callable[[Any], bool], Callable[[Any], bool], int, Callable[[Any, int], bool], Callable[[Any, int], bool] | None
]
"""A check that weighs numbers, the check without, the length of documents it needs no look at, the
check of a longer one given its length, that of a value given its floats (see :func:`weigh_large_integers`)."""
_LOOKED_AT_FIRST = 16  # long documents looked at before the levels are counted (see `weigh_large_integers`)
# jsonschema-rs compares a value with a number where a subschema holds one of `NUMBER_KEYWORDS`,
# and `type` alone when it is "number" (`integer` reads the type, a list of types is matched
# without conversion).
_BOUND = b'imum":'  # the end of `minimum`, `maximum` and both `exclusive` ones: one search
_NUMBER_TYPE = b'"type":"number"'
_MULTIPLE = b'"multipleOf":'
_UNIQUE = b'"uniqueItems":true'
_CONST = b'"const":'
_ENUM = b'"enum":['
# An `enum` of integers only (up to 18 digits), as the canonical text spells it; and a string
# followed by something else than a string (in an array: a quote inside a string is escaped).
_SHORT_INTEGER_CONST = re.compile(rb'"const":-?\d{1,18}[,}\]]')
_INTEGER_ENUM = re.compile(rb'"enum":\[(?:-?\d{1,18}(?:,-?\d{1,18})*)?\]')
_AFTER_A_STRING = re.compile(rb'",[^"]')
_NOT_A_NUMBER = b'"tfn'  # what a string, `true`, `false` or `null` starts with
_OPENING = (b"[", b"{")


def spells_numbers(text: bytes) -> bool:
    """Whether the canonical ``text`` may hold a keyword that compares a number (a bound,
    ``multipleOf``, ``type: "number"``, ``uniqueItems: true``, a ``const`` that is or holds a
    number, an ``enum`` not of strings only); a property so named is taken for one (the text
    cannot tell)."""
    return read_numbers(text, unique=text.find(_UNIQUE) >= 0)[0]


def compares_in_turn(text: bytes) -> bool:
    """Whether the canonical ``text`` may hold an ``enum`` jsonschema-rs compares member by member:
    one not of strings only or integers only (up to 18 digits)."""
    return _enum_kinds(text)[0]


def read_numbers(text: bytes, *, unique: bool) -> tuple[bool, bool, bool]:
    """What the canonical ``text`` says of its numbers, one search per keyword: whether it may
    compare one (:func:`spells_numbers`; ``unique``: it spells ``uniqueItems: true``), whether it
    may compare one slowly whatever the instance holds (``multipleOf``, a ``const`` array or
    object, an ``enum`` jsonschema-rs compares member by member: :func:`compares_in_turn`), and
    whether a ``const`` or an ``enum`` may hold a number."""
    multiple = text.find(_MULTIPLE) >= 0
    container, numeric_const = _const_kinds(text)
    in_turn, numeric_enum = _enum_kinds(text)
    numbers = (
        unique or multiple or numeric_const or numeric_enum or text.find(_BOUND) >= 0 or text.find(_NUMBER_TYPE) >= 0
    )
    return numbers, multiple or container or in_turn, numeric_const or numeric_enum


def _const_kinds(text: bytes) -> tuple[bool, bool]:
    """Whether a ``const`` of the canonical ``text`` is an array or an object, or a number other
    than an integer of up to 18 digits (compared slowly: a float far from 1, an integer of many
    digits), and whether one is or holds a number (one search of the text where it spells no
    ``const``, the commonest case)."""
    container = numeric = False
    at = text.find(_CONST)
    while at >= 0:
        first = text[at + len(_CONST) : at + len(_CONST) + 1]
        if first in _OPENING:
            return True, True
        if first not in _NOT_A_NUMBER:
            numeric = True
            if _SHORT_INTEGER_CONST.match(text, at) is None:
                container = True
        at = text.find(_CONST, at + len(_CONST))
    return container, numeric


def _enum_kinds(text: bytes) -> tuple[bool, bool]:
    """Whether an ``enum`` of the canonical ``text`` is compared member by member (not of strings
    only nor of integers only), and whether one may hold a number (not of strings only)."""
    numeric = False
    at = text.find(_ENUM)
    while at >= 0:
        start = at + len(_ENUM)
        if text[start : start + 1] == b'"':
            if _strings_end(text, start) < 0:
                return True, True
        elif _INTEGER_ENUM.match(text, at) is None:
            return True, True
        else:
            numeric = True
        at = text.find(_ENUM, start)
    return False, numeric


def _strings_end(text: bytes, start: int) -> int:
    """Where the ``enum`` whose members begin at ``start`` ends, if it holds strings only; -1 if
    it may hold another kind. Strings, up to the first ``"]`` (a quote inside a string is escaped:
    one escaped or after a backslash is taken as another kind), unless a string is followed by
    something else than a string."""
    if text[start : start + 1] != b'"':
        return -1
    end = text.find(b'"]', start)
    if end < 0 or text[end - 1 : end] == b"\\" or _AFTER_A_STRING.search(text, start, end) is not None:
        return -1
    return end


def reads_numbers(node: dict[str, Any]) -> int:
    """How many comparisons with a number one object's keywords may make on one value."""
    here, within = _number_reads(node)
    return here + within


def _number_reads(node: dict[str, Any]) -> tuple[int, int]:
    """:func:`reads_numbers` apart: the comparisons of the value itself (a range, ``type:
    "number"``, a number as a ``const`` or ``enum`` member), and those of the numbers within it,
    at any level below (``uniqueItems: true``, the numbers inside an array or object member)."""
    here, within = number_members(node)
    here += sum(keyword in node for keyword in RANGE)
    return (here + 1 if node.get("type") == "number" else here), within


def comparisons_per_value(documents: Iterable[Any], subschemas: int) -> int:
    """The comparisons with a number one value may meet: where ``documents`` hold no reference,
    what their objects make in all (:func:`reads_numbers`: a value meets each object once at
    most); otherwise each of the ``subschemas`` (references inlined) as many as the object that
    makes most."""
    heaviest, total, referred, stack = 0, 0, False, list(documents)
    while stack:
        node = stack.pop()
        if type(node) is dict:
            # Most objects hold no keyword that reads a number (one C call each).
            if not NUMBER_KEYWORDS.isdisjoint(node) or node.get("type") == "number":
                reads = reads_numbers(node)
                heaviest, total = max(heaviest, reads), total + reads
            if not referred and not _REFERENCES.isdisjoint(node):
                referred = True
            stack += node.values()
        elif type(node) is list:
            stack += node
    return max(subschemas, 1) * max(heaviest, 1) if referred else max(total, 1)


def comparisons_at_most(text: bytes, values: int) -> int:
    """An upper bound of :func:`comparisons_per_value` read off a schema's canonical ``text`` and the
    count of its ``values``, without a walk, where the text spells no reference (0, unknown,
    where it does): each value counts at most what ``uniqueItems: true`` does; for a schema of
    many values, the keywords counted in the text (and every value where a ``const`` or an ``enum``
    may hold a number)."""
    if text.find(_A_REFERENCE) >= 0:
        return 0
    every = (UNIQUE_PAIRS + 1) * max(values, 1)
    if every <= _FEW_COMPARISONS:
        return every
    counted = (
        text.count(_BOUND)
        + text.count(_MULTIPLE)
        + text.count(_NUMBER_TYPE)
        + UNIQUE_PAIRS * text.count(_UNIQUE)
        + (values if _const_kinds(text)[1] or _enum_kinds(text)[1] else 0)
    )
    return max(min(counted, every), 1)


def comparison_bounds(text: bytes, values: int, members: bool) -> tuple[int, int | None]:
    """:func:`comparisons_at_most` of a schema's canonical ``text`` for an integer, and for a
    float ``engine._floats.float_comparisons_at_most`` (``members``: whether a ``const`` or an
    ``enum`` may hold a number; ``None``: unknown), or, for a schema of few values, what each may
    make at most (one, or a ``uniqueItems`` pair's), read off the values alone."""
    comparisons = comparisons_at_most(text, values)
    if comparisons == 0:  # a reference
        return 0, None
    every = (UNIQUE_PAIRS + 1) * max(values, 1)
    return comparisons, every if every <= _FEW_FLOAT_COMPARISONS else float_comparisons_at_most(text, values, members)


def surely_cheap(comparisons: int, budget: int) -> int:
    """The longest document whose integers past 64 bits cannot cost more than ``budget`` where one
    value meets at most ``comparisons`` comparisons (0 if unknown): such an integer costs at most
    :data:`_MOST_PER_BYTE` a comparison for each byte it takes in a document, a separator included."""
    return budget // (_MOST_PER_BYTE * comparisons) if comparisons > 0 else 0


def comparison_cost(integer: int) -> int:
    """Evaluations one comparison of ``integer`` (past 64 bits) with a number costs."""
    digits = integer.bit_length() * 30_103 // 100_000 + 1
    return _COMPARISON + (digits * digits >> _DIGITS_SQUARED)


def comparisons_met(
    document: Any,
    resources: Mapping[str, Any],
    dialect: Dialect,
    levels: int,
    subschemas: int,
    rereads: int,
    cap: int,
    graph: Levels | None = None,
) -> list[int]:
    """The most comparisons with a number one value may meet at each level of an instance (the
    root's is 0; none past the end): summed level by level over at most ``levels`` levels on the
    schema's graph (:func:`engine._levels.levels_of`, each subschema one more, references into the
    registry's ``resources`` too and recursion unrolled, up to ``cap``: a wide object's members
    each meet their own subschemas), a comparison of the values within a value (``uniqueItems``,
    an array as a ``const``) at every level below its own; where the schema is not counted, at
    every level :func:`comparisons_per_value` of the ``document`` and the ``resources``,
    ``rereads`` times. ``graph``: the schema's :func:`engine._levels.levels_of`, where the
    caller has built it for other counts too."""
    if graph is None:
        graph = levels_of(document, dialect, levels, resources)
    if graph is not None:
        count = len(graph.nodes)
        weights, within = [1] * count, [0] * count  # each subschema one more
        for at, node in enumerate(graph.nodes):
            if not NUMBER_KEYWORDS.isdisjoint(node) or node.get("type") == "number":
                own, within[at] = _number_reads(node)
                weights[at] += own
        counted = graph.summed(weights, cap)
        # (rare) what compares the values within a value, at every level below its own
        deeper = graph.summed(within, cap)
        if counted is not None and deeper is not None:
            return below(counted, deeper, levels, cap)
    return every_level(document, resources, levels, subschemas, rereads)


def every_level(document: Any, resources: Mapping[str, Any], levels: int, subschemas: int, rereads: int) -> list[int]:
    """What :func:`comparisons_met` gives a schema it does not count: at every level, every
    comparison of the ``document`` and the ``resources`` (:func:`comparisons_per_value`),
    ``rereads`` times."""
    return [comparisons_per_value([document, *resources.values()], subschemas) * rereads] * levels


def never_longer(_instance: Any, _size: int) -> bool:
    """The check of a document longer than :data:`EVERY_LENGTH`, which none is, for a schema that
    compares no number (callers ask for it past the length returned with it alone): shared, where
    a function of each schema's check would be three more objects for the collector to walk in
    every compiled schema."""
    raise AssertionError("no document is longer than every length")


def weigh_large_integers(
    check: Callable[[Any], bool],
    schema: tuple[Callable[[], Any], Mapping[str, Any], Dialect, int, int, int],
    comparisons: int,
    float_comparisons: int | None,
    budget: int,
    members: bool = False,
) -> Weighed:
    """``check`` (a backend's answer on a JSON value within the instance bounds), first refusing an
    instance whose integers past 64 bits or floats cost more than ``budget`` evaluations: each
    integer :func:`comparison_cost` times what one value at its level meets, :func:`comparisons_met`
    of ``schema`` (its document, registry resources, dialect, levels, subschemas and rereads;
    counted once, when first needed), each float what ``engine._floats`` says. Returned with
    ``check`` itself, for a value found to hold neither; the length up to which a document needs
    no look (:func:`surely_cheap` of ``comparisons``, at most what one value meets read off the
    schema's text, 0: unknown, and ``engine._floats.floats_cheap`` of ``float_comparisons``,
    ``None``: unknown); the check of a longer one, given its length; and the check of a value
    holding no such integer, given how many floats it holds. The last two look (from the
    :data:`_LOOKED_AT_FIRST` th on) only if the counted levels say they must. ``members``: a
    ``const`` or an ``enum`` may hold a number, so the check of a value returned second looks for
    integers from 2^63 to 2^64 - 1 too (msgpack holds them; an ``enum`` of integers compares them
    member by member): a value's screen need not."""
    cheap, free = 0, 0
    if float_comparisons is not None:
        cheap = min(surely_cheap(comparisons, budget), floats_cheap(float_comparisons, 0, budget))
        free = floats_free(float_comparisons, 0, budget)
    weighing = _Weighing(check, schema, cheap, free, budget, members)
    screened = weighing.unsigned if members else check
    return weighing.weighed, screened, weighing.cheap, weighing.sized, weighing.floated


class _Weighing:
    """The state of :func:`weigh_large_integers` (one object and three bound methods a schema: a
    compiled tool list holds thousands, which the collector walks)."""

    __slots__ = ("_budget", "_check", "_longer", "_members", "_met", "_schema", "cheap", "free")

    def __init__(
        self, check: Callable[[Any], bool], schema: tuple[Any, ...], cheap: int, free: int, budget: int, members: bool
    ) -> None:
        self._check, self._schema, self.cheap, self.free, self._budget = check, schema, cheap, free, budget
        self._members = members
        # What one value meets at each level: comparisons for an integer, number members, sharp and
        # blunt comparisons for a float (`engine._floats`); the length and the floats the most of
        # them leave unlooked at.
        self._met: tuple[list[int], list[int], list[int], list[int], int, int] | None = None
        self._longer = 0  # the documents of `sized` and values of `floated` weighed so before the levels are counted

    def _meets(self) -> tuple[list[int], list[int], list[int], list[int], int, int]:
        met = self._met
        if met is None:
            document, resources, dialect, levels, subschemas, rereads = self._schema
            schema, cap = document(), self._budget + 1
            graph = levels_of(schema, dialect, levels, resources)  # one graph for every count
            if graph is None:  # not counted: every comparison at every level
                found, floats = every_level(schema, resources, levels, subschemas, rereads), None
            else:
                found = comparisons_met(schema, resources, dialect, levels, subschemas, rereads, cap, graph)
                floats = float_levels(graph, levels, cap)
            if floats is None:  # every comparison may be a sharp one, with a member
                members, sharp, blunt = found, found, [0]
            else:
                members, sharp, blunt = floats
            keen, dull = max(sharp), max(blunt)
            cheap = min(surely_cheap(max(*found, 1), self._budget), floats_cheap(keen, dull, self._budget))
            met = self._met = (found, members, sharp, blunt, cheap, floats_free(keen, dull, self._budget))
        return met

    def weighed(self, instance: Any) -> bool:
        work = 0
        packed: bytes | None = None
        try:
            packed = _pack(instance)  # one pass in C: msgpack holds every integer within 64 bits
            # (and from 2^63 to 2^64 - 1, which only an enum of integers compares slowly: in turn)
            large = self._members and unsigned_past_63_bits(packed)
        except (OverflowError, TypeError, ValueError):
            large = True
        if large:
            by_level = large_integers_by_level(instance, _WORD_BITS)
            # Past a machine word (msgpack's -2^63 to 2^64 - 1); from 2^63 where an enum of integers
            # compares them in turn (a bound reads them natively).
            top = 1 << 63 if self._members else 1 << 64
            by_level = [[v for v in level if v >= top or v < _LEAST] for level in by_level]
            if by_level:
                # Each integer meets what its level of the instance meets (an amount among the
                # items of an array, not a code compared with every member of an `enum` beside it).
                met = self._meets()[0]
                work = sum(
                    met[depth] * sum(map(comparison_cost, large)) for depth, large in enumerate(by_level[: len(met)])
                )
                if work > self._budget:
                    raise _too_costly(sum(map(len, by_level)), work, self._budget) from None
        # Floats: a bound of their count and of the far ones read off the msgpack pass (two
        # passes in C), and only past the budget each float weighed by its level and exponent.
        if packed is None or packed.count(b"\xcb") > self.free:
            _, members, sharp, blunt, _, _ = self._meets()
            if packed is None or work + float_work_at_most(packed, max(members), max(sharp), max(blunt)) > self._budget:
                floats = floats_by_level(instance)
                work += float_work(floats, members, sharp, blunt)
                if work > self._budget:
                    raise _floats_too_costly(sum(map(len, floats)), work, self._budget)
        return self._check(instance)

    def sized(self, instance: Any, size: int) -> bool:
        if 0 <= size <= self.cheap:
            return self._check(instance)
        # Counting the levels may take a millisecond: not for a tool's first documents, which are
        # looked at (the msgpack pass, the floats) until some are long enough to pay for it.
        if self._met is None and self._longer < _LOOKED_AT_FIRST:
            self._longer += 1  # a lost update between threads only moves the count
            return self.weighed(instance)
        return self._check(instance) if 0 <= size <= self._meets()[4] else self.weighed(instance)

    def unsigned(self, instance: Any) -> bool:
        try:
            large = unsigned_past_63_bits(_pack(instance))
        except (OverflowError, TypeError, ValueError):
            large = True
        return self.weighed(instance) if large else self._check(instance)

    def floated(self, instance: Any, floats: int) -> bool:
        if floats <= self.free:
            return self._check(instance)
        if self._met is None and self._longer < _LOOKED_AT_FIRST:
            self._longer += 1
            return self.weighed(instance)
        return self._check(instance) if floats <= self._meets()[5] else self.weighed(instance)


def _floats_too_costly(count: int, work: int, budget: int) -> DecodeError:
    return DecodeError(
        DecodeReason.TOO_LARGE,
        f"instance is too large for this schema: it holds {count} float(s), which jsonschema-rs compares "
        f"with each number member of an enum or const (an enum of integers is looked up for integers "
        f"only) and, the farther a float's exponent from zero, the slower (1e-300: some 20 us a "
        f"comparison), some {work} evaluations, more than {budget} (max_validation_work)",
    )


def _too_costly(count: int, work: int, budget: int) -> DecodeError:
    return DecodeError(
        DecodeReason.TOO_LARGE,
        f"instance is too large for this schema: it holds {count} integer(s) past 64 bits (or 63), which "
        f"jsonschema-rs compares with a number digit by digit (in time that grows with the square of "
        f"the digits; from 2^63, with each member of an enum of integers), some {work} evaluations, more "
        f"than {budget} (max_validation_work)",
    )

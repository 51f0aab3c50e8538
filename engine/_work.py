"""The work a check may take: an instance is weighed against a schema that amplifies it.

A schema applies each of its subschemas to some values of the instance. Most apply a few to each
value (every tool schema of the corpus at most 183 subschemas in all, and 2,759 of the 2,760 tool
schemas of the corpus and of two lists gathered outside it at most 256), so their check costs a few evaluations
per value, linear in an instance already bounded by ``max_instance_bytes``. A schema can apply
thousands to one value (an ``allOf`` of ``allOf`` s, within every limit of the guard): 9,250 to each
item of a 400 KB array took jsonschema-rs 8.7 s, and 8,750 patterns on a 100 KB string 1.5 s; a
64 MiB instance would take half an hour. Such a schema's check (past :data:`AMPLIFYING`
subschemas a value) first weighs the instance, and one whose estimate is over
``max_validation_work`` is refused with ``too-large`` before any backend runs:

- every subschema, references inlined, meets the values of one level of the instance only (the
  root's, or as many below as descending keywords lead to it): the estimate is, level by level,
  the most evaluations one value of the level meets (:func:`depth_counts`, recursion unrolled
  and ``unevaluated*`` scopes weighed with what they evaluate again, references into the
  registry followed: :mod:`engine._levels`) times what the level weighs; where they are not
  counted, every subschema (the guard report's ``max_ref_expansion``) at every level, each as
  heavy as the heaviest object of the document and its registry (:func:`_heaviest`) and each
  hashing the values below it where ``uniqueItems`` may, times the longest in-place chain plus two
  once per nested scope;
- a level weighs one per value and per object key, and one more per 8 characters of each string
  and key (a pattern reads every character: some 5 characters cost what one evaluation does);
  what a pattern may spend on each character beyond that is counted on its own
  (:func:`engine._levels.reading_rate`: 2, or far more for one whose automaton may outgrow the
  regex engine's cache), as is what ``uniqueItems`` spends hashing the values below it;
- a subschema costs one evaluation, and its ``enum`` and comparisons more where jsonschema-rs
  compares a value slowly (:mod:`engine._comparisons`: an ``enum`` compared member by member, an
  operand with a fraction, a number far from 1 or past 64 bits);
- an object pays one per name and per trigger of its lists and dependencies, and each key one
  per ``patternProperties`` pattern, whatever their subschemas weigh (:func:`_entries`);
- under ``uniqueItems``, distinct items that hash alike are compared pair by pair: integers past
  2^53 that round to one double, arrays and objects whose runs of scalars are alike
  (:mod:`engine._unique`, on every instance of a schema that holds ``uniqueItems: true``);
- integers past 64 bits, which jsonschema-rs compares digit by digit, and floats, which it
  compares with each member of an ``enum`` of integers and slowly when far from 1, where a schema
  compares numbers at all (:mod:`engine._numbers`, :mod:`engine._floats`);
- where formats are asserted, a slow one costs what it costs (:data:`_FORMAT_COSTS`), and
  ``format: regex`` the square of the named groups a string may hold (:func:`_named_groups`).

A schema whose subschemas number at most :data:`AMPLIFYING` and that :func:`weighs_more` does not
pick, and that holds no ``unevaluated*`` scope (the guard walks a schema with one, so its report
says so at no cost), keeps its backend's check as it is: nothing is added to its hot path. Any
other is looked at closer on its first instance.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from ._comparisons import NUMERIC, comparisons
from ._config import Limits
from ._dialect import Dialect
from ._errors import DecodeError, DecodeReason
from ._guard import AMPLIFYING, DeferredReport, GuardReport
from ._levels import CHARACTERS_PER_EVALUATION, HASH, level_counts, level_weights, reading_rate, unique_levels
from ._numbers import EVERY_LENGTH, Weighed, never_longer, read_numbers, weigh_large_integers
from ._patterns.analysis import reads_linearly
from ._slow_numbers import SCREENED_PAST
from ._unique import colliding_integers, colliding_structures

__all__ = [
    "FORMATS",
    "LOOK",
    "MEMBERS",
    "NUMBERS",
    "REGEX",
    "UNIQUE",
    "bound_work",
    "depth_counts",
    "level_weights",
    "reading_counts",
    "weighs_more",
    "weighs_resources",
]

LOOK = 1
""":func:`weighs_more`: the schema may cost a value more than its subschemas count (looked at)."""
UNIQUE = 2
""":func:`weighs_more`: the schema may hold ``uniqueItems: true`` (the items that may hash alike weighed)."""
FORMATS = 4
""":func:`weighs_more`: the schema may hold a format the engine asserts at a cost per value
(:data:`_FORMAT_COSTS`): each such subschema weighs that much."""
REGEX = 8
""":func:`weighs_more`: the schema may hold ``format: regex``, asserted: a string read as a pattern
costs the square of its named groups (:func:`_named_groups`)."""
NUMBERS = 16
""":func:`weighs_more`: the schema may compare a number (a bound, ``type: number``, a ``const`` or
an ``enum`` holding one): an instance holding integers past 64 bits or floats has them weighed
(:mod:`engine._numbers`)."""
MEMBERS = 32
""":func:`weighs_more`, with :data:`NUMBERS`: a ``const`` or an ``enum`` may hold a number (:mod:`engine._floats`)."""

_pack = msgspec.msgpack.encode
_encode = msgspec.json.encode
_LEVELS = 257  # instance levels counted by default (the default `max_instance_depth`, and one)
_ENTRIES = ("required", "dependentRequired", "dependentSchemas", "dependencies")
_PATTERNS = 16  # patterns read one state at a time a schema holds unweighed (2 evaluations a character each)
_UNWEIGHED_READS = 2 * _PATTERNS  # evaluations a character may meet in a check never weighed
_OVERFLOW = 1 << 62  # the length taken for an instance msgpack cannot hold: past any budget
# Content read as a media type: 8 evaluations a byte, not 1/8 (base64 and JSON: 60-72 ns; JSON, 37).
_CONTENT = 64
# Evaluations an asserted format costs a string beyond one, where jsonschema-rs's check is slow:
# `idn-hostname` 350-740 ns a short host (100-150 ns a byte of a non-ASCII one: 15 evaluations a
# byte in the level's weight of one per 8 characters), `idn-email` about 1 us, `email` 90-170 ns;
# any other 11-30 ns a short value, under 5 ns a byte. Formats that read every byte weigh 2 more: a
# string's characters weigh (one an eighth) then a third each, at least the 1-1.7 ns a byte they
# take (`uri-reference`, `uri-template`, `regex`; `date` 0.5 on non-ASCII): 250 subschemas of
# `uri-template` on a 16 MB string took 4.4 s, unweighed at 251 subschemas.
_READING = 2
_FORMAT_COSTS = {
    "idn-hostname": 120,
    "idn-email": 120,
    "email": 20,
    **dict.fromkeys(("uri", "uri-reference", "iri", "iri-reference", "uri-template", "regex"), _READING),
    **dict.fromkeys(("json-pointer", "relative-json-pointer", "date", "date-time", "time", "duration"), _READING),
}
_COSTLY_FORMATS = tuple(b'"format":"' + name.encode() + b'"' for name in _FORMAT_COSTS)
# Parsing a string as a pattern (`format: regex`) pairs each named group with every other, and
# each named reference with every group: 100,000 groups took jsonschema-rs 8.5 s (0.85 ns a pair).
_PAIRS_PER_EVALUATION = 10
_Weigh = Callable[[dict[str, Any]], tuple[int, int]]  # see `engine._levels.level_counts`
# Every keyword `comparisons`, `_entries` and `_weigh_formats` read: an object without one weighs nothing.
_WEIGHED = frozenset({"enum", "format", "contentMediaType", "contentEncoding", *NUMERIC, *_ENTRIES})


def bound_work(
    check: Callable[[Any], bool],
    guard: GuardReport | DeferredReport | None,
    limits: Limits,
    document: Callable[[], Any],
    dialect: Dialect,
    weighs: int,
    resources: Mapping[str, Any] | None = None,
    comparisons: int = 0,
    float_comparisons: int | None = None,
) -> Weighed:
    """``check`` (a backend's answer on a JSON value within the instance bounds), weighing the
    instance first where the schema (``document()``, which ``guard`` reports on, and the
    ``resources`` of its registry) may take more than :data:`AMPLIFYING` evaluations on one
    value; ``check`` itself otherwise. ``weighs`` (:func:`weighs_more`): :data:`LOOK` where the
    schema may hold a slow comparison (a number with a fraction, an ``enum``
    ``engine._numbers.compares_in_turn`` finds, ...), so its subschemas alone do not bound what a value
    costs; :data:`UNIQUE` where it may hold ``uniqueItems: true``, so every instance has the items
    that may hash alike weighed (:mod:`engine._unique`); :data:`FORMATS` and :data:`REGEX` where it holds a
    format asserted at a cost; :data:`NUMBERS` where it may compare a number, so an instance
    holding an integer past 64 bits or floats has them weighed (:mod:`engine._numbers`,
    :mod:`engine._floats`), ``comparisons`` and ``float_comparisons`` being at most what one value
    meets (0 and ``None``: unknown). Returned with the check for a value found to hold neither, or
    read from a document too short for them to cost the budget (of at most the length returned
    third), which weighs none, the check of a longer one given its length, and that of a value
    holding no such integer given the floats it holds (``None``: none weighed; see
    ``engine._numbers.weigh_large_integers``)."""
    if guard is None:  # a boolean schema
        return check, check, EVERY_LENGTH, never_longer, None
    if isinstance(guard, DeferredReport):  # cleared: no `unevaluated*` keyword
        bound, scopes = guard.expansion, 0
    else:
        bound, scopes = guard.measured.get("max_ref_expansion", 1), guard.measured.get("max_unevaluated_nesting", 0)
    plain = weighs & ~(NUMBERS | MEMBERS)  # weighed below
    checked = _bound_check(check, guard, limits, document, dialect, plain, resources, bound, scopes)
    if not weighs & NUMBERS:
        unweighed: Weighed = (checked, checked, EVERY_LENGTH, never_longer, None)
        return _by_length(unweighed, bound * (1 + scopes), limits, document, dialect, resources)
    rereads = 1 if isinstance(guard, DeferredReport) else (guard.measured.get("max_eval_depth", 1) + 2) ** scopes
    schema = (
        document,
        resources or {},
        dialect,
        limits.max_instance_depth + 1,
        bound,
        rereads,
    )
    floats = None if float_comparisons is None else float_comparisons * rereads
    members = bool(weighs & MEMBERS)
    weighed = weigh_large_integers(checked, schema, comparisons * rereads, floats, limits.max_validation_work, members)
    return _by_length(weighed, bound * (1 + scopes), limits, document, dialect, resources)


def _by_length(
    weighed: Weighed, bound: int, limits: Limits, document: Callable[[], Any], dialect: Dialect, resources: Any
) -> Weighed:
    """``weighed``, with a document from bytes longer than 1 MiB and than its values can cost the
    budget in (two bytes a value at least: ``0,``; each meeting at most ``bound`` subschemas, and
    at most :data:`AMPLIFYING` where nothing weighs it) weighed by its values, level by level. A
    value meeting at most :data:`AMPLIFYING` evaluations is not weighed, but a long document holds
    many: 1 MB of items meeting 255 subschemas each took 2 s, 8 MB 16 s. (A document of at most
    1 MiB, which the number screen leaves too, is answered as its value is: 134 million
    evaluations at most.)"""
    longest = max(2 * limits.max_validation_work // max(min(bound, AMPLIFYING), 1), SCREENED_PAST)
    check, screened, cheap, sized, floated = weighed
    if longest >= limits.max_instance_bytes:
        return weighed
    budget = limits.max_validation_work
    levels: list[list[int] | None] = []  # what one value meets at each level, counted on first need

    def counted(value: Any, size: int) -> bool:
        if size > longest:
            if not levels:
                found = _counts(document(), dialect, _weigh, limits.max_instance_depth + 1, budget + 1, resources)
                levels.append(None if found is None else found[0])
            counts, work = levels[0], 0
            for depth, (weight, _) in enumerate(level_weights(value)):
                work += weight * (bound if counts is None else _at(counts, depth))
                if work > budget:
                    raise _too_costly(bound, budget)
        return screened(value) if size <= cheap else sized(value, size)

    return check, screened, min(cheap, longest), counted, floated


def _bound_check(
    check: Callable[[Any], bool],
    guard: GuardReport | DeferredReport,
    limits: Limits,
    document: Callable[[], Any],
    dialect: Dialect,
    weighs: int,
    resources: Mapping[str, Any] | None,
    bound: int,
    scopes: int,
) -> Callable[[Any], bool]:
    """:func:`bound_work` but for integers past 64 bits."""
    unique, regex = weighs & UNIQUE, weighs & REGEX
    if bound <= AMPLIFYING and not weighs and not scopes:
        return check
    budget = limits.max_validation_work
    weigh = _weigh_formats if weighs & FORMATS else _weigh
    # Read on the first instance weighed: the evaluations one value meets at each level of the
    # instance, recursion unrolled as deep as an instance may go. A schema cleared unwalked makes
    # no report for this.
    facts: list[tuple[int, list[int] | None, list[int], bool, int, int, int]] = []
    # A schema the guard cleared by its text (no pattern or scope, references only to definitions,
    # each inlined in the subschemas it counts) is first weighed by those subschemas in all, each
    # as heavy as its heaviest object: one walk of its objects, where counting its levels takes up to a millisecond (129
    # subschemas 8 levels deep). The levels are counted only for an instance that estimate does
    # not clear; they never come to more (`tests/guard/test_validation_work.py` checks it).
    cleared = isinstance(guard, DeferredReport) and not resources
    at_most: list[int] = []  # what one value meets at the deepest level, and whether it is heavy (set whole)

    def weighed(instance: Any) -> bool:
        packed: bytes | None = None
        taken = False  # whether `packed` is the instance's msgpack already (`None`: none it can hold)
        if not facts and cleared:
            if not at_most:
                assert isinstance(guard, DeferredReport)  # noqa: S101 - `cleared` says so (for the type checker)
                per_value = guard.expansion * (1 + _heaviest(document(), weigh))
                hashing = HASH * per_value if unique else 0
                at_most[:] = (per_value + hashing * limits.max_instance_depth, per_value > AMPLIFYING or hashing > 0)
            deepest, heavy = at_most
            if heavy or unique:
                packed, taken = _packed(instance), True
            if not heavy or (packed is not None and deepest * len(packed) <= budget):
                return _rest(instance, packed)
        if not facts:
            schema = document()
            cap = max(budget, AMPLIFYING) + 1  # past both, one count is as good as another
            counted = _counts(schema, dialect, weigh, limits.max_instance_depth + 1, cap, resources)
            if counted is not None:
                counts, reads = counted
                per_value = max(counts) + max(reads)
                # A value may hold millions of characters: past a few patterns read one state
                # at a time, what a character meets is weighed however few evaluations it is.
                heavy = max(counts[1:], default=0) > AMPLIFYING or max(reads) > _UNWEIGHED_READS
                # The root is one value: what it alone meets past the rest (a long `required`)
                # is weighed apart, by its own length, not the instance's.
                root = counts[0] if counts[0] > AMPLIFYING and not heavy else 0
                hashing = 0  # in the counts
            else:
                # Every subschema (references inlined) at every level, each as heavy as the
                # heaviest object of the document and of its resources, every one of which may
                # hash what is below it.
                counts, reads = None, []
                documents = [schema, *resources.values()] if resources else [schema]
                heaviest = max(_heaviest(one, weigh) for one in documents)
                if isinstance(guard, DeferredReport):  # no pattern, no scope
                    per_value, read = guard.expansion * (1 + heaviest), 0
                else:  # and each scope rereads, once per subschema of the longest chain, what it holds
                    measured = guard.measured
                    # (the guard measured every pattern a reference reaches, a resource's too).
                    # Each subschema may be the one whose patterns read most, reached once per
                    # reference to it: 200 references to one pattern read a string 200 times.
                    patterned = measured.get("max_pattern_length", 0)
                    expansion = measured["max_ref_expansion"]
                    read = expansion * max(map(_heaviest_read, documents)) if patterned else 0
                    rereads = (measured.get("max_eval_depth", 1) + 2) ** scopes
                    per_value = (expansion * (1 + heaviest) + read) * rereads
                hashing = HASH * per_value if unique else 0  # a value, per array above it
                heavy = per_value > AMPLIFYING or read > _UNWEIGHED_READS or hashing > 0
                root = 0
            # What one value may meet at the deepest level an instance may have.
            deepest = per_value + hashing * limits.max_instance_depth
            facts.append((per_value, counts, reads, heavy, hashing, root, deepest))
        per_value, counts, reads, heavy, hashing, root, deepest = facts[0]
        if root:  # one value; a string's characters weigh on its level
            weight = 1 + (len(instance) >> CHARACTERS_PER_EVALUATION) if type(instance) is str else 1
            if root * weight > budget:
                raise _too_costly(root, budget)
        # Every value, key and character of the instance takes a byte or more of its msgpack: its
        # length bounds what every level weighs in all, so a short instance needs no walk.
        if not taken and (heavy or unique):
            packed = _packed(instance)
        if heavy and deepest * (_OVERFLOW if packed is None else len(packed)) > budget:
            work = 0
            for depth, (weight, characters) in enumerate(level_weights(instance)):
                if counts is None:
                    work += (weight + characters) * per_value + weight * depth * hashing
                elif depth >= len(counts) and depth >= len(reads):
                    break  # no subschema reaches this level
                else:
                    work += weight * _at(counts, depth) + characters * _at(reads, depth)
                if work > budget:
                    raise _too_costly(per_value, budget)
        return _rest(instance, packed)

    # The levels whose arrays a `uniqueItems` meets, counted when an instance first needs them.
    unique_at: list[list[int] | None] = []

    def _rest(instance: Any, packed: bytes | None) -> bool:
        if unique:
            colliding_integers(instance, packed, budget)
            if not unique_at and (packed is None or b"\xdc" in packed or b"\xdd" in packed):
                depth = limits.max_instance_depth + 1
                unique_at.append(unique_levels(document(), dialect, depth, resources))
            colliding_structures(instance, packed, budget, unique_at[0] if unique_at else None)
        if regex:
            _named_groups(instance, budget)
        return check(instance)

    return weighed


def depth_counts(
    schema: Any,
    dialect: Dialect,
    *,
    comparisons: bool = True,
    levels: int = _LEVELS,
    cap: int = 1 << 62,
    resources: Mapping[str, Any] | None = None,
    names: bool = False,
) -> list[int] | None:
    """The most evaluations one value of an instance meets at each level (the root's is level 0),
    for at most ``levels`` levels, recursion unrolled (:func:`engine._levels.level_counts`): each
    subschema one, its comparisons (unless ``comparisons`` is false), and its object the lists of
    names and dependencies it holds (:func:`_entries`) and what ``uniqueItems`` spends hashing
    (unless ``comparisons`` is false: then the subschemas alone); ``None`` where a reference leads
    outside the document and its registry ``resources`` (the caller then counts every subschema at
    every level). Counts past ``cap`` are as good as ``cap``. ``names`` (with ``comparisons``
    false): each object also pays one per name of its ``properties`` and ``patternProperties``, as
    an evaluator written in Python does that tests each name on every object."""
    weigh = _weigh if comparisons else _entries_and_names if names else None
    counted = _counts(schema, dialect, weigh, levels, cap, resources)
    return None if counted is None else counted[0]


def reading_counts(schema: Any, dialect: Dialect, *, levels: int = _LEVELS) -> list[int] | None:
    """The most evaluations one character of a string or key meets at each level: what the
    patterns that meet it spend on it (:func:`engine._levels.reading_rate`)."""
    counted = _counts(schema, dialect, _weigh, levels)
    return None if counted is None else counted[1]


def _counts(
    schema: Any,
    dialect: Dialect,
    weigh: _Weigh | None,
    levels: int,
    cap: int = 1 << 62,
    resources: Mapping[str, Any] | None = None,
) -> tuple[list[int], list[int]] | None:
    """``weigh``: what a subschema and its object cost beyond one evaluation; ``None`` for the
    subschemas and their objects' lists alone, nothing hashed; ``resources``: the registry's."""
    hashing = weigh is not None
    return level_counts(schema, dialect, weigh or _entries_only, levels, hashing=hashing, cap=cap, resources=resources)


def _weigh(node: dict[str, Any]) -> tuple[int, int]:
    return comparisons(node), _entries(node)


def _weigh_formats(node: dict[str, Any]) -> tuple[int, int]:
    """:func:`_weigh` where formats are asserted: a costly one weighs what it costs."""
    named = node.get("format")
    return comparisons(node) + (_FORMAT_COSTS.get(named, 0) if type(named) is str else 0), _entries(node)


def _heaviest(document: Any, weigh: _Weigh) -> int:
    """The most one object of ``document`` costs beyond one evaluation (``weigh``), wherever it is:
    what every subschema is taken to cost where the levels are not counted."""
    heaviest, stack = 0, [document]
    while stack:
        node = stack.pop()
        if type(node) is dict:
            if not _WEIGHED.isdisjoint(node):  # most objects hold no keyword weighed (one C call)
                heaviest = max(heaviest, sum(weigh(node)))
            stack += node.values()
        elif type(node) is list:
            stack += node
    return heaviest


def _heaviest_read(document: Any) -> int:
    """The most evaluations one object of ``document`` spends on a character (its ``pattern``,
    and every ``patternProperties`` pattern, which each key meets), wherever it is."""
    heaviest, stack = 0, [document]
    while stack:
        node = stack.pop()
        if type(node) is dict:
            pattern, named = node.get("pattern"), node.get("patternProperties")
            read = reading_rate(pattern) if type(pattern) is str else 0
            if type(named) is dict:
                read += sum(map(reading_rate, named))
            heaviest = max(heaviest, read)
            stack += node.values()
        elif type(node) is list:
            stack += node
    return heaviest


def _entries_only(node: dict[str, Any]) -> tuple[int, int]:
    return 0, _entries(node)


def _entries_and_names(node: dict[str, Any]) -> tuple[int, int]:
    named, patterned = node.get("properties"), node.get("patternProperties")
    names = (len(named) if type(named) is dict else 0) + (len(patterned) if type(patterned) is dict else 0)
    return 0, _entries(node) + names


def _entries(node: dict[str, Any]) -> int:
    """Evaluations an object pays for ``node``'s lists of names and its dependencies whatever they
    hold: jsonschema-rs looks every trigger up in every object, an empty one too (2,000
    ``dependentRequired`` or ``dependentSchemas: true`` triggers on 600,000 empty objects: 9 s), and
    reads content as its media type once per subschema (``contentMediaType: application/json`` on
    a 2 MB string: 75 ms, some 32 evaluations a byte in the level's weight of one per 8)."""
    cost = 0
    for keyword in _ENTRIES:
        value = node.get(keyword)
        if type(value) is dict or type(value) is list:
            cost += len(value)
            if type(value) is dict:  # the names each trigger requires
                cost += sum(len(names) for names in value.values() if type(names) is list)
    if "contentMediaType" in node or "contentEncoding" in node:
        cost += _CONTENT
    return cost


def weighs_more(
    text: bytes,
    counts: tuple[int, int, int, int],
    dialect: Dialect,
    schema: Any,
    *,
    cleared: bool = False,
    formats: bool = False,
) -> int:
    """What a schema (its canonical ``text``, and the intake's ``counts``: values, widest
    container, containers, fractions) may cost beyond what its subschemas count: :data:`LOOK` for
    a number with a fraction, a container wider than :data:`AMPLIFYING` (a long list of names, or
    of triggers and patterns whose subschemas may be booleans), content read as a media type
    (where the dialect asserts it), an array or object ``const``, an ``enum`` compared member by
    member (not counted by the intake: looked at), a pattern that may not be read one state at a
    time, or more than :data:`_PATTERNS` patterns (``schema`` is read for them only where its text
    spells one; ``cleared``: the guard cleared the schema by its text, which then spells no
    ``pattern`` or ``patternProperties`` key); :data:`UNIQUE` for ``uniqueItems: true`` (one real
    tool schema in 2,762); where ``formats`` are asserted, :data:`FORMATS` for a format that costs
    a string more than one evaluation, :data:`REGEX` for ``format: regex``. Each test is a search
    of the text (a few hundred nanoseconds on a tool schema's): as few as the answer needs."""
    weighs = _anywhere(text, formats)
    numbers, slow, members = read_numbers(text, unique=bool(weighs & UNIQUE))  # `uniqueItems` compares its items
    weighs |= (NUMBERS | (MEMBERS if members else 0)) if numbers else 0
    _, widest, _, fractions = counts
    if slow or fractions != 0 or widest > AMPLIFYING or widest < 0:
        return weighs | LOOK
    if not dialect.is_modern and (text.find(b'"contentMediaType"') >= 0 or text.find(b'"contentEncoding"') >= 0):
        return weighs | LOOK  # draft 7 and 6 decode the content: once a subschema, a string of 60 MB 10 s
    if not cleared and text.find(b'"pattern') >= 0:
        patterns = _patterns(schema)
        if len(patterns) > _PATTERNS or not all(map(reads_linearly, patterns)):
            return weighs | LOOK
    return weighs


def _anywhere(text: bytes, formats: bool) -> int:
    """The flags a canonical ``text`` needs wherever it spells their keywords: :data:`UNIQUE`, and
    where ``formats`` are asserted :data:`FORMATS` and :data:`REGEX`."""
    weighs = UNIQUE if text.find(b'"uniqueItems":true') >= 0 else 0
    if formats and text.find(b'"format":"') >= 0:
        weighs |= REGEX if text.find(b'"format":"regex"') >= 0 else 0
        weighs |= FORMATS if any(text.find(name) >= 0 for name in _COSTLY_FORMATS) else 0
    return weighs


def weighs_resources(resources: Mapping[str, Any], *, formats: bool = False) -> int:
    """What a schema's registry ``resources`` (through intake: JSON) add to what :func:`weighs_more`
    says of its document: :data:`LOOK` (the levels are not counted through them), what
    :func:`_anywhere` finds in their text, and :data:`NUMBERS` where it may compare a number."""
    text = _encode(dict(resources))
    weighs = _anywhere(text, formats)
    numbers, _, members = read_numbers(text, unique=bool(weighs & UNIQUE))
    return LOOK | weighs | ((NUMBERS | (MEMBERS if members else 0)) if numbers else 0)


def _patterns(schema: Any) -> list[str]:
    """Every ``pattern`` and ``patternProperties`` key in ``schema``, and any string under a key so
    named in its data (a pattern too many only has the schema looked at)."""
    found: list[str] = []
    stack = [schema]
    while stack:
        node = stack.pop()
        if type(node) is dict:
            pattern = node.get("pattern")
            if type(pattern) is str:
                found.append(pattern)
            named = node.get("patternProperties")
            if type(named) is dict:
                found += named
            stack += node.values()
        elif type(node) is list:
            stack += node
    return found


def _packed(instance: Any) -> bytes | None:
    """``instance``'s msgpack (a JSON value within the instance bounds), or ``None`` where msgpack
    cannot hold it (an integer past 64 bits: then it is walked)."""
    try:
        return _pack(instance)
    except (OverflowError, TypeError, ValueError):
        return None


def _named_groups(instance: Any, budget: int) -> None:
    """Refuse ``instance`` if reading its strings as patterns (``format: regex``, asserted) could
    pair their named groups and references past ``budget``: each names itself after a ``<``
    (``(?<name>``, ``(?P<name>``, ``\\k<name>``), so the square of the ``<`` s the instance
    holds bounds the pairs of any one of its strings. Counted in its JSON, which writes a ``<``
    only in a string or key (its msgpack may write one as a number or a length)."""
    brackets = _encode(instance).count(b"<")
    work = brackets * brackets // _PAIRS_PER_EVALUATION
    if work > budget:
        raise DecodeError(
            DecodeReason.TOO_LARGE,
            f"instance is too large for this schema: checking a string as a pattern (format: regex) "
            f"pairs its named groups and references, and the instance holds {brackets} of them or more "
            f"(some {work} evaluations, more than {budget}: max_validation_work)",
        )


def _at(counts: list[int], depth: int) -> int:
    return counts[depth] if depth < len(counts) else 0


def _too_costly(per_value: int, budget: int) -> DecodeError:
    return DecodeError(
        DecodeReason.TOO_LARGE,
        f"instance is too large for this schema: its check could take more than {budget} evaluations "
        f"(max_validation_work): the schema may take up to {per_value} on one value (a subschema one, "
        "an enum compared member by member more), each level of the instance meeting its own "
        "subschemas (every level all of them, with recursion), and a string counts once more per 8 "
        "characters",
    )

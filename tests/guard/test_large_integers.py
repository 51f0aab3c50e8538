"""Integers past 64 bits are weighed where a schema compares numbers (``engine._numbers``):
jsonschema-rs holds such an integer as its digits and converts them at each comparison, in time
that grows with their square (a 4,300-digit integer against an ``enum`` of 10,000 integers: 4 s
to check, 10 s more to explain). An instance whose integers would cost more than
``max_validation_work`` is refused with ``too-large`` before any backend runs, whichever way it is
handed in; any other gets the backend's answer."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from benchmarks.instances import is_valid_reference
from engine._dialect import Dialect
from engine._intake import load_schema
from engine._numbers import (
    comparison_cost,
    comparisons_at_most,
    comparisons_met,
    comparisons_per_value,
    spells_numbers,
    surely_cheap,
)
from engine._work import NUMBERS, weighs_more
from tests.corpus import corpus
from tests.guard._weighed import refused_at_once

LONG = 10**4299 + 7  # 4,300 digits: the longest integer a document is read with
ENUM = {"enum": list(range(10_000))}


@pytest.fixture(autouse=True)
def _long_integers_as_text() -> Iterator[None]:
    # Python writes no integer past 4,300 digits as text; the tests build the documents.
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    yield
    sys.set_int_max_str_digits(old)


def _engine(work: int = 100_000_000) -> engine.Engine:
    return engine.Engine(engine.EngineConfig(cache_size=0, limits={"max_validation_work": work}))


def test_one_long_integer_against_a_long_enum_is_refused_at_once_everywhere() -> None:
    # 4 KB: 4 s in jsonschema-rs (each of the 10,000 members compared digit by digit).
    schema = {"type": "object", "properties": {"a": ENUM}}
    instance = {"a": LONG}
    data = msgspec.json.encode(instance)
    compiled = _engine().compile(schema)
    for call, given_as in [
        (compiled.is_valid, instance),
        (compiled.validate, instance),
        (compiled.decode, data),
        (compiled.decode, data.decode()),
    ]:
        refused_at_once(call, given_as)
    tools = engine.compile_tools([{"name": "t", "inputSchema": schema, "outputSchema": schema}], engine=_engine())
    # From bytes, text, an object of scalars and one walked (a list among its values).
    for arguments in (data, data.decode(), instance, {**instance, "b": [1]}):
        refused_at_once(lambda value: tools.validate_arguments("t", value), arguments)
    refused_at_once(lambda value: tools.validate_structured("t", value), instance)
    result = {"content": [], "structuredContent": instance}
    for given_as in (result, msgspec.json.encode(result)):
        refused_at_once(lambda value: tools.validate_result("t", value), given_as)
    form = engine.compile_elicitation(
        {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 9}}}, engine=_engine(1_000)
    )
    answer = {"action": "accept", "content": {"n": LONG}}
    for given_as in (answer, msgspec.json.encode(answer)):
        refused_at_once(form.decode_result, given_as)


@pytest.mark.parametrize(
    "items",
    [
        {"allOf": [{"minimum": 7}] * 100},  # 40 integers: 2.7 s
        {"type": "number"},  # 222 us each: 1,000 integers, 0.22 s
        {"const": 5},
        {"enum": [1, 2, 3, "a"]},
        {"exclusiveMaximum": 10**30},
    ],
)
def test_what_compares_numbers_weighs_long_integers(items: dict[str, Any]) -> None:
    schema = {"type": "array", "items": items}
    compiled = _engine().compile(schema)
    many = [LONG + i for i in range(1_000)]
    refused_at_once(compiled.is_valid, many)
    # From bytes, where the schema translates, msgspec's typed read may answer it first, in C.
    data = msgspec.json.encode(many)
    started = time.process_time()
    try:
        answer = compiled.decode(data) == many
    except engine.ValidationFailed:
        answer = False
    except engine.DecodeError as refused:
        assert refused.reason == engine.DecodeReason.TOO_LARGE
    else:
        assert answer is is_valid_reference(schema, many[:3])  # alike throughout
    assert time.process_time() - started < 1.0
    # A few are answered, as the reference does.
    few = [LONG, 2**64, -(2**63) - 1]
    assert compiled.is_valid(few) is is_valid_reference(schema, few)


def test_short_arrays_compare_their_items_pair_by_pair() -> None:
    # Up to 15 items, compared pair by pair: 105 pairs of 4,300 digits, 50 ms an array.
    compiled = _engine().compile({"type": "array", "items": {"type": "array", "uniqueItems": True}})
    refused_at_once(compiled.is_valid, [[LONG + i for i in range(15)] for _ in range(10)])
    assert compiled.is_valid([[LONG + i for i in range(15)]])


def test_integers_within_64_bits_and_schemas_reading_no_number_are_never_weighed() -> None:
    starved = _engine(0)
    numbers = starved.compile({"type": "array", "items": {"type": "number", "minimum": 0, "enum": [0, 2**63 - 1]}})
    # Within a signed machine word: nothing weighed, whatever the budget.
    assert numbers.is_valid([0, 2**63 - 1] * 1_000)
    assert not numbers.is_valid([-(2**63)])
    # From 2^63 to 2^64 - 1 (msgpack holds them unsigned), compared with each member of an enum
    # of integers (0.5 us a member; 2,000 of them against 10,000 members, 42 KB: 17 s): weighed.
    with pytest.raises(engine.DecodeError):
        numbers.is_valid([0, 2**64 - 1] * 1_000)
    # `type: integer` reads the type alone; a property named like a keyword is taken for one.
    assert starved.compile({"type": "array", "items": {"type": "integer"}}).is_valid([LONG] * 100)
    with pytest.raises(engine.DecodeError):
        starved.compile({"properties": {"minimum": {"type": "integer"}}}).is_valid({"minimum": 2**64})


def _met(schema: Any) -> int:
    """What one value of an instance may meet, as the default limits count it (see `engine._work`)."""
    return max(comparisons_met(schema, {}, Dialect.DRAFT2020_12, 257, 1, 1, 10**8 + 1))


def _text(schema: Any) -> bytes:
    intake = load_schema(schema, engine.Limits())
    assert intake.canonical is not None
    return intake.canonical


@pytest.mark.parametrize(
    ("schema", "spelled"),
    [
        ({"type": "integer", "minimum": 0}, True),
        ({"exclusiveMaximum": 5}, True),
        ({"multipleOf": 2}, True),
        ({"type": "number"}, True),
        ({"type": ["number", "string"]}, False),  # a list of types is matched without conversion
        ({"type": "integer"}, False),
        ({"const": 5}, True),
        ({"const": [{"a": 1}]}, True),
        ({"const": "5"}, False),
        ({"const": None}, False),
        ({"const": True}, False),
        ({"enum": ["a", "b"]}, False),
        ({"enum": ["a", 1]}, True),
        ({"enum": [1, 2]}, True),
        ({"enum": [None, "a"]}, True),  # another kind: may be a number, as far as the text goes
        ({"enum": ['a"]', "b"]}, True),  # a quote escaped where the strings may end: taken for another kind
        ({"enum": ["a", "b"], "properties": {"x": {"enum": ["c", 0]}}}, True),
        ({"properties": {"maximum": {"type": "string"}}}, True),  # a property so named
        ({"properties": {"n": {"type": "string", "maxLength": 5}}}, False),
        ({"type": "array", "uniqueItems": True}, True),  # compares its items
    ],
)
def test_which_texts_compare_numbers(schema: dict[str, Any], spelled: bool) -> None:
    intake = load_schema(schema, engine.Limits())
    counts = (intake.values, intake.widest, intake.containers, intake.fractions)
    flagged = bool(weighs_more(_text(schema), counts, Dialect.DRAFT2020_12, schema) & NUMBERS)
    assert flagged is spelled
    assert spells_numbers(_text(schema)) is spelled


def test_the_comparisons_a_value_meets() -> None:
    # No reference: what every object makes, each met once at most.
    assert comparisons_per_value([{"minimum": 0, "maximum": 9}], 1) == 2
    assert comparisons_per_value([{"anyOf": [{"minimum": 0}, {"enum": [1, 2, [3, 4.5]]}]}], 3) == 5
    assert comparisons_per_value([{"type": "string"}], 1) == 1  # at least one
    # A reference: every subschema (references inlined) as many as the heaviest object.
    referred = {"$defs": {"n": {"enum": [1, 2, 3]}}, "allOf": [{"$ref": "#/$defs/n"}] * 4}
    assert comparisons_per_value([referred], 6) == 18
    # Counted level by level: a wide object's members each meet their own (each subschema one more).
    wide = {"properties": {f"p{i}": {"minimum": 0, "maximum": 9} for i in range(500)}}
    assert comparisons_per_value([wide], 501) == 1_000
    assert _met(wide) == 3
    assert _met({"allOf": [{"minimum": 0}] * 10}) == 21
    assert comparison_cost(2**64) == 300 + (20 * 20 >> 7)
    assert comparison_cost(LONG) > 140_000


_NUMBER_KEYWORDS = st.sampled_from(
    [
        {"minimum": 3},
        {"maximum": -2},
        {"exclusiveMinimum": 2**70},
        {"multipleOf": 7},
        {"type": "number"},
        {"const": 2**65},
        {"enum": [1, 2**66, "x"]},
        {"enum": ["a", "b"]},
        {"uniqueItems": True},
    ]
)
_INTEGERS = st.one_of(
    st.integers(-10, 10),
    st.integers(2**63 - 2, 2**64 + 2),
    st.integers(-(2**63) - 2, -(2**63) + 2),
    st.integers(10**40, 10**40 + 5),
    st.just(LONG),
)


@given(
    st.lists(_NUMBER_KEYWORDS, min_size=1, max_size=3),
    st.lists(st.one_of(_INTEGERS, st.lists(_INTEGERS, max_size=3)), max_size=12),
    st.sampled_from([0, 5_000, 200_000, 10**8]),
)
@settings(max_examples=120, deadline=None)
def test_answers_as_the_reference_or_refuses_what_is_over_the_budget(
    keywords: list[dict[str, Any]], instance: list[Any], work: int
) -> None:
    items = {"allOf": keywords}
    schema = {"type": "array", "items": {"anyOf": [items, {"type": "array", "items": items}]}}
    expected = is_valid_reference(schema, instance)
    data = msgspec.json.encode(instance)
    compiled = _engine(work).compile(schema)
    integers = [v for item in instance for v in (item if type(item) is list else [item])]
    # msgpack holds every integer from -2^63 to 2^64 - 1: past them, each is weighed; and from
    # 2^63 where a const or an enum may hold a number (an enum of integers compares those in turn).
    members = any(type(v) is int for k in keywords for v in [k.get("const"), *k.get("enum", [])])
    top = 2**63 if members else 2**64
    past = any(not -(2**63) <= v < top for v in integers)
    # Nothing weighed where the schema compares no number (its integers cost nothing more).
    compares = spells_numbers(_text(schema))
    # Each integer charged what its level meets: the items at level 1, their items at level 2.
    met = comparisons_met(schema, {}, Dialect.DRAFT2020_12, 257, 1, 1, 10**8 + 1) + [0, 0, 0]
    by_level = [(1, item) for item in instance if type(item) is not list]
    by_level += [(2, v) for item in instance if type(item) is list for v in item]
    weighed = [(level, v) for level, v in by_level if not -(2**63) <= v < top]
    charged = sum(met[level] * comparison_cost(v) for level, v in weighed) if compares else 0
    for call, given_as in ((compiled.is_valid, instance), (compiled.decode, data)):
        try:
            valid = call(given_as) is True if call == compiled.is_valid else call(given_as) == instance
        except engine.ValidationFailed:
            valid = False
        except engine.DecodeError as refused:
            assert refused.reason == engine.DecodeReason.TOO_LARGE
            # Refused for what the integers past 64 bits would cost; or, under a budget too small
            # for what the schema costs any value, by the weighing of every value.
            assert (past and charged > work) if "past 64 bits" in refused.message else work < 10**4
            continue
        assert valid is expected
        assert not past or charged <= work  # anything over the budget is refused


def test_no_integer_costs_more_than_34_a_byte_it_takes() -> None:
    # What lets a document too short for the budget skip the look (`surely_cheap`): an integer
    # past 64 bits of `d` digits takes `d` bytes and a separator, up to 4,300 digits.
    for digits in [*range(19, 400), *range(400, 4_301, 50), 4_300]:
        for integer in (10 ** (digits - 1), 10**digits - 1):
            if integer >= 2**63:
                assert comparison_cost(integer) <= 34 * digits, digits
    assert surely_cheap(0, 10**8) == 0  # unknown: every document looked at
    assert surely_cheap(10, 10**8) == 10**8 // 340


def _comparisons_at_most(schema: Any) -> int:
    intake = load_schema(schema, engine.Limits())
    assert intake.canonical is not None
    return comparisons_at_most(intake.canonical, intake.values)


def test_the_bound_read_off_the_text_holds_every_corpus_schema() -> None:
    checked = 0
    for case in corpus():
        if not isinstance(case.schema, dict) or not spells_numbers(_text(case.schema)):
            continue
        at_most = _comparisons_at_most(case.schema)
        if at_most:  # no reference: what every object makes, a value meeting each once at most
            assert comparisons_per_value([case.schema], 10**6) <= at_most, case.id
            checked += 1
    assert checked > 100
    assert _comparisons_at_most({"$defs": {"n": {"minimum": 0}}, "$ref": "#/$defs/n"}) == 0  # a reference: unknown


@given(
    st.recursive(
        _NUMBER_KEYWORDS,
        lambda inner: st.one_of(
            st.builds(lambda a, b: {"anyOf": [a, b], "uniqueItems": True}, inner, inner),
            st.builds(lambda a: {"items": a, "enum": [[1, 2.5], "x"]}, inner),
            st.builds(lambda a: {"properties": {"minimum": a}, "const": {"k": [1, None]}}, inner),
        ),
        max_leaves=8,
    )
)
@settings(max_examples=150, deadline=None)
def test_the_bound_read_off_the_text_holds(schema: dict[str, Any]) -> None:
    assert comparisons_per_value([schema], 10**6) <= _comparisons_at_most(schema)


@given(st.lists(_NUMBER_KEYWORDS, min_size=100, max_size=400), st.booleans())
@settings(max_examples=40, deadline=None)
def test_the_bound_counted_in_a_long_text_holds(keywords: list[dict[str, Any]], nested: bool) -> None:
    # Past 128 values, the keywords are counted in the text.
    members = [{"allOf": [keyword, {"type": "number"}]} if nested else keyword for keyword in keywords]
    schema = {"type": "object", "properties": {f"p{i}": member for i, member in enumerate(members)}}
    at_most = _comparisons_at_most(schema)
    assert comparisons_per_value([schema], 10**6) <= at_most
    if not any("const" in keyword or ("enum" in keyword and keyword["enum"] != ["a", "b"]) for keyword in keywords):
        assert at_most <= 8 * len(keywords) * (2 if nested else 1)  # counted: far under 8 a value


def test_a_short_document_is_checked_as_it_is_and_a_long_one_weighed() -> None:
    # 2 values: at most 16 comparisons a value, so a document of up to 10**7 // (34 * 16) bytes
    # (18,382) cannot cost the budget whatever integers it holds.
    schema = {"type": "array", "items": {"minimum": 0}}
    compiled = _engine(10**7).compile(schema)
    short = [LONG + i for i in range(4)]  # 17 KB: 4 comparisons, 580,000 evaluations
    assert compiled.decode(msgspec.json.encode(short)) == short
    tools = engine.compile_tools([{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": schema}])
    result = msgspec.json.encode({"content": [], "structuredContent": short})
    assert tools.validate_result("t", result).structured_content == short
    refused_at_once(compiled.decode, msgspec.json.encode([LONG + i for i in range(100)]))  # 430 KB


def test_an_explanation_weighs_the_long_integers_its_errors_copy() -> None:
    # Each of 79 `maxItems` errors copies the array, and jsonschema-rs reads every integer of it
    # from its digits again (81 us at 4,300): 4.6 s to explain 1 MB, unweighed; now the
    # explanation goes piece by piece within max_explain_seconds (1 s).
    from engine._explain.measure import shape, size

    schema = {"type": "array", "allOf": [{"maxItems": k} for k in range(79)]}
    data = msgspec.json.encode([LONG] * 250)
    compiled = _engine().compile(schema)
    started = time.process_time()
    with pytest.raises(engine.ValidationFailed) as refused:
        compiled.decode(data)
    assert time.process_time() - started < 2.5
    assert refused.value.issues
    # An integer past 64 bits counts once more per 2^23 squares of its digits; one within, once.
    assert size([LONG] * 10, 10**6) == 1 + 10 * 3
    assert shape([2**63 - 1] * 100, 10**6) == (100, 1)
    assert shape([2**70] * 100, 10**6) == (100, 1)  # 22 digits: nothing more
    assert shape([LONG] * 100, 10**6) == (300, 1)

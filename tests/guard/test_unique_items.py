"""``uniqueItems`` over large integers is weighed (``engine._unique.colliding_integers``): jsonschema-rs hashes
a number as a double, so integers past 2^53 that round to one double collide and are compared
pair by pair (4,000 consecutive integers near 2^70: 5.2 s), and the engine refuses such an
instance with ``too-large`` before the backend runs; any other instance gets the backend's answer."""

from __future__ import annotations

import functools
import gc
import itertools
import sys
import time
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from benchmarks.instances import is_valid_reference
from engine._dialect import Dialect
from engine._numbers import comparison_cost, comparisons_met
from engine._work import LOOK, NUMBERS, UNIQUE, weighs_more
from tests.guard._weighed import refused_at_once

UNIQUE_ARRAY = {"type": "array", "uniqueItems": True}


def _compiled(schema: Any = UNIQUE_ARRAY, work: int = 100_000_000) -> engine.CompiledSchema:
    return engine.Engine(engine.EngineConfig(cache_size=0, limits={"max_validation_work": work})).compile(schema)


def _refused(call: Any, instance: Any) -> None:
    started = time.process_time()
    with pytest.raises(engine.DecodeError) as refused:
        call(instance)
    assert refused.value.reason == engine.DecodeReason.TOO_LARGE
    message = refused.value.message
    # Hashed alike, or compared at all: an integer past 64 bits is compared digit by digit.
    assert ("uniqueItems" in message or "past 64 bits" in message) and "max_validation_work" in message
    assert time.process_time() - started < 0.5  # weighed, not compared


def test_large_integers_that_hash_alike_are_refused() -> None:
    compiled = _compiled()
    alike = [2**70 + i for i in range(4_000)]  # one double: every pair compared
    _refused(compiled.is_valid, alike)
    _refused(compiled.decode, msgspec.json.encode(alike))
    _refused(compiled.is_valid, [-(2**70) - i for i in range(4_000)])
    _refused(compiled.is_valid, [[2**70 + i] for i in range(4_000)])  # an item's integers hash alike too
    _refused(compiled.is_valid, [{"a": 2**70 + i} for i in range(4_000)])
    # Near 2^62 a double holds 1,024 consecutive integers: 40 such groups.
    _refused(compiled.is_valid, [2**62 + i for i in range(40_960)])


def test_long_integers_weigh_by_their_digits() -> None:
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        long = [10**4000 + i for i in range(200)]  # 8.6 s in jsonschema-rs: 430 us a pair
        _refused(_compiled().is_valid, long)
        assert _compiled().is_valid([10**4000 + i for i in range(3)])
    finally:
        sys.set_int_max_str_digits(old)


def test_integers_that_hash_apart_are_answered() -> None:
    compiled = _compiled()
    apart = [2**70 + (i << 20) for i in range(4_000)]  # each its own double: 2 ms
    assert compiled.is_valid(apart)
    assert compiled.is_valid(list(range(2**40, 2**40 + 100_000)))
    assert not compiled.is_valid([*apart, apart[0]])
    assert not compiled.is_valid([2**70, 2**70 + 1, 2**70])
    assert compiled.is_valid([2**70, 2**70 + 1])
    # Bytes that spell a 64-bit integer in msgpack, inside strings: walked, nothing found.
    greek = ["π" * 10 + str(i) for i in range(3_000)]
    assert compiled.is_valid(greek)


def test_the_budget_decides() -> None:
    alike = [2**70 + i for i in range(100)]  # 4,950 pairs
    assert _compiled(work=1_000_000).is_valid(alike)
    _refused(_compiled(work=100_000).is_valid, alike)
    _refused(_compiled(work=0).is_valid, alike[:2])
    assert _compiled(work=0).is_valid([2**40, 2**41, 2**53])  # no integer past 2^53


def test_the_schema_text_says_whether_to_weigh() -> None:
    from engine._intake import load_schema

    def weighs(schema: Any) -> int:
        intake = load_schema(schema, engine.Limits())
        assert intake.canonical is not None
        counts = (intake.values, intake.widest, intake.containers, intake.fractions)
        return weighs_more(intake.canonical, counts, Dialect.DRAFT2020_12, schema)

    # `uniqueItems` compares its items: an integer past 64 bits digit by digit (NUMBERS).
    assert weighs(UNIQUE_ARRAY) == UNIQUE | NUMBERS
    assert weighs({"properties": {"a": {"items": {"uniqueItems": True}}}}) == UNIQUE | NUMBERS
    assert weighs({"type": "array", "uniqueItems": False}) == 0
    assert weighs({"uniqueItems": True, "maximum": 1.5}) == UNIQUE | LOOK | NUMBERS
    nested = _compiled({"properties": {"ids": {"type": "array", "uniqueItems": True}}})
    _refused(nested.is_valid, {"ids": [2**70 + i for i in range(4_000)]})
    schema = {"type": "object", "properties": {"ids": UNIQUE_ARRAY}}
    tools = engine.compile_tools([{"name": "t", "inputSchema": schema}])
    with pytest.raises(engine.DecodeError):
        tools.validate_arguments("t", msgspec.json.encode({"ids": [2**70 + i for i in range(4_000)]}))


_LARGE = st.one_of(st.integers(2**53, 2**53 + 50), st.integers(2**70, 2**70 + 50), st.integers(-(2**64) - 50, -(2**64)))


@given(st.lists(st.one_of(_LARGE, st.integers(-5, 5), st.lists(_LARGE, max_size=2)), max_size=60))
@settings(max_examples=150, deadline=None)
def test_answers_as_the_reference_or_refuses(instance: list[Any]) -> None:
    if _refused_or_as_the_reference(instance, work=20_000):
        # Over 200 pairs at 100 evaluations: 21 integers past 2^53 or more; or integers past 64
        # bits, each compared digit by digit with the others of a short array.
        large = [v for item in instance for v in (item if type(item) is list else [item]) if v.bit_length() > 53]
        past = [v for v in large if v.bit_length() > 63]
        met = max(comparisons_met(UNIQUE_ARRAY, {}, Dialect.DRAFT2020_12, 257, 1, 1, 10**8))
        compared = met * sum(map(comparison_cost, past))
        assert len(large) > 20 or compared > 20_000


def _refused_or_as_the_reference(instance: list[Any], work: int) -> bool:
    """Whether ``instance`` is refused as too large under ``work``; answered as the reference otherwise."""
    try:
        answer = _compiled(work=work).is_valid(instance)
    except engine.DecodeError as refused:
        assert refused.reason == engine.DecodeReason.TOO_LARGE
        return True
    assert answer is is_valid_reference(UNIQUE_ARRAY, instance)
    return False


def test_each_level_of_a_recursive_schema_hashes_what_it_holds() -> None:
    # `uniqueItems` at every level of an array 250 deep: each level hashes all below it (raw
    # jsonschema-rs: 1.5 s for 200,000 integers at the bottom, 4.5 s for 560,000).
    compiled = _compiled({"uniqueItems": True, "items": {"$ref": "#"}})
    nested: Any = list(range(200_000))
    for _ in range(250):
        nested = [nested, *range(1, 21)]
    started = time.process_time()
    with pytest.raises(engine.DecodeError) as refused:
        compiled.is_valid(nested)
    assert refused.value.reason == engine.DecodeReason.TOO_LARGE
    assert time.process_time() - started < 1.0
    shallow: Any = list(range(1_000))
    for _ in range(5):
        shallow = [shallow, *range(1, 21)]
    assert compiled.is_valid(shallow)


def _brackets(pairs: int) -> list[Any]:
    """Every array built of ``pairs`` pairs of brackets and nothing else (``[[], [[]]]``...)."""
    if pairs == 0:
        return [[]]
    found = []
    for inner in range(pairs):  # the first item holds `inner` pairs, the rest the others
        for first in _brackets(inner):
            found += [[first, *rest] for rest in _brackets(pairs - 1 - inner)]
    return found


def test_distinct_arrays_that_hash_alike_are_refused() -> None:
    # jsonschema-rs hashes an array as its items' hashes one after another, `[]` adding nothing:
    # every array of brackets alone hashes alike, and 20,000 distinct ones (540 KB) took 3.6 s,
    # 50,000 took 28 s, compared pair by pair. 12,000 are 72 million pairs.
    alike = [*_brackets(9), *_brackets(10)][:12_000]
    assert len({msgspec.json.encode(item) for item in alike}) == 12_000
    refused_at_once(_compiled().is_valid, alike)  # (the instance's walk, the texts written: 0.1-0.2 s)
    refused_at_once(_compiled().decode, msgspec.json.encode(alike))
    refused_at_once(_compiled().is_valid, [{"a": item} for item in alike])  # an object's pair hashes its value alike
    schema = {"type": "object", "properties": {"tags": UNIQUE_ARRAY}}
    tools = engine.compile_tools([{"name": "t", "inputSchema": schema}])
    refused_at_once(functools.partial(tools.validate_arguments, "t"), msgspec.json.encode({"tags": alike}))
    few = alike[:2_000]  # 2 million pairs: answered (40 ms)
    assert _compiled().is_valid(few)
    assert not _compiled().is_valid([*few, few[7]])


def test_arrays_alike_but_for_their_brackets_hash_alike() -> None:
    # `[1, 2]`, `[[1], 2]`, `[1, [2]]`, `[[[1]], [2]]`...: each the scalars 1 then 2. 400 distinct
    # such items: 80,000 pairs of 4 evaluations.
    def wrapped(value: Any, times: int) -> Any:
        for _ in range(times):
            value = [value]
        return value

    alike = [[wrapped(1, a), wrapped(2, b)] for a in range(20) for b in range(20)]
    _refused(_compiled(work=100_000).is_valid, alike)
    apart = [[wrapped(i, a), wrapped(2, b)] for i, (a, b) in enumerate((a, b) for a in range(20) for b in range(20))]
    assert _compiled(work=100_000).is_valid(apart)  # distinct runs: no pair compared
    assert _compiled(work=100_000).is_valid(alike[:16])  # 120 pairs at most


@given(st.lists(st.recursive(st.integers(0, 2), lambda inner: st.lists(inner, max_size=3), max_leaves=6), max_size=40))
@settings(max_examples=150, deadline=None)
def test_structures_answer_as_the_reference_or_refuse(instance: list[Any]) -> None:
    if _refused_or_as_the_reference(instance, work=2_000):
        assert len(instance) >= 16  # only an array checked through its hashes


@pytest.mark.parametrize(
    ("a", "b"),
    [(0, False), (0.0, False), (5e-324, True), (1.5914968437e-314, None), (0, {}), (False, {})],
    ids=["0-false", "0.0-false", "5e-324-true", "subnormal-null", "0-empty-object", "false-empty-object"],
)
def test_scalars_hashed_alike_make_items_that_hash_alike(a: Any, b: Any) -> None:
    # jsonschema-rs hashes `false` as `0`, `true` as `5e-324` and `null` as the double of bits
    # 3221225473: every choice of one or the other at 14 places is a distinct item hashing like
    # every other (16,384 items: 3.6 s as arrays, 5.2 s as objects, accepted).
    arrays = [list(choice) for choice in itertools.product([a, b], repeat=14)]
    refused_at_once(_compiled().is_valid, arrays)
    refused_at_once(_compiled().decode, msgspec.json.encode(arrays))
    refused_at_once(_compiled().is_valid, [{f"k{i}": v for i, v in enumerate(item)} for item in arrays])
    few = arrays[:256]  # 32,640 pairs: answered
    assert _compiled().is_valid(few) is is_valid_reference(UNIQUE_ARRAY, few) is True
    assert not _compiled().is_valid([*few, few[3]])


def test_only_the_arrays_a_unique_items_meets_are_weighed() -> None:
    # `uniqueItems` at the root alone: a tower of 250 arrays of 40 items, an object of 80,000 keys
    # at the bottom, was written once for each level above it (7.7 s; raw jsonschema-rs 3 ms).
    keys = {f"k{i}": i for i in range(80_000)}
    tower: Any = [keys]
    for _ in range(250):
        tower = [tower, *range(1, 40)]
    gc.collect()
    gc.disable()
    try:
        started = time.process_time()
        assert _compiled().is_valid(tower)
        spent = time.process_time() - started
    finally:
        gc.enable()
    assert spent < 1.0
    # Where it meets every level (recursion), every level is weighed.
    every = _compiled({"uniqueItems": True, "items": {"$ref": "#"}})
    alike = [list(choice) for choice in itertools.product([0, False], repeat=14)]
    refused_at_once(every.is_valid, [[alike, 1, 2]])


def test_equal_items_are_not_weighed_as_pairs() -> None:
    # Two equal items end the check at once: 7,000 copies of `[0]` beside a checked array were
    # refused (122 million evaluations counted), where jsonschema-rs answers in under a millisecond.
    beside = {"properties": {"tags": UNIQUE_ARRAY}}
    assert _compiled(beside).is_valid({"tags": ["a", "b"], "matrix": [[0]] * 7_000})
    assert not _compiled().is_valid([[0]] * 7_000)


def test_marker_bytes_in_strings_do_not_walk_the_instance(monkeypatch: pytest.MonkeyPatch) -> None:
    # msgpack writes an integer past 2^32 after 0xcf or 0xd3, and UTF-8 writes `π` as CF 80: a
    # string of them had every value of the instance walked for large integers (60 MB: seconds).
    import engine._unique as unique

    walked: list[int] = []
    real = unique.large_integers
    monkeypatch.setattr(unique, "large_integers", lambda value, bits: walked.append(1) or real(value, bits))
    beside = {"properties": {"u": UNIQUE_ARRAY}}
    assert _compiled(beside).is_valid({"u": ["\u03c0" * 2_000], "big": list(range(100_000))})
    assert not walked
    _refused(_compiled().is_valid, [2**70 + i for i in range(4_000)])  # its digits: walked, weighed
    assert walked

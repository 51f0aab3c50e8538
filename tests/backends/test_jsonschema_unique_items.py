"""python-jsonschema's ``uniqueItems`` compares every pair of items that do not sort (objects,
arrays, mixed kinds): 5,000 objects took 21 s. The reference backend checks it in one pass, with
the same equality (numbers by value, booleans apart from them, objects whatever their keys'
order) and the same words, through the items' canonical texts: a set of tuples of integers, whose
hashes a payload can make alike, took 7.4 s for 20,000 pairs (fastjsonschema's own check, built
the same way, is refused)."""

from __future__ import annotations

import time
from typing import Any

import jsonschema
import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine

UNIQUE = {"type": "array", "uniqueItems": True}


def _compiled(schema: Any = UNIQUE) -> engine.CompiledSchema:
    return engine.Engine(engine.EngineConfig(backend="jsonschema", cache_size=0)).compile(schema)


def test_unsortable_items_are_checked_in_one_pass() -> None:
    compiled = _compiled()
    objects, mixed, arrays = (
        [{"a": i} for i in range(5_000)],
        [*range(2_500), *map(str, range(2_500))],
        [[i] for i in range(5_000)],
    )
    for items in (objects, mixed, arrays):
        started = time.process_time()
        assert compiled.is_valid(items)
        assert compiled.decode(msgspec.json.encode(items)) == items
        assert not compiled.is_valid([*items, items[-1]])
        assert time.process_time() - started < 1.0


def _pairs_hashing_alike(count: int) -> list[list[int]]:
    """``count`` pairs ``[a, b]`` of integers whose tuples CPython hashes alike: its tuple hash mixes
    the items' hashes (an integer's is itself below 2^61 - 1) in xxHash's way, which is solved
    for ``b``."""
    m, p1, p2, p5 = 1 << 64, 11400714785074694791, 14029467366897019727, 2870177450012600261
    small = (1 << 61) - 1

    def lane(a: int) -> int:
        mixed = (p5 + (hash(a) % m) * p2) % m
        return ((mixed << 31) | (mixed >> 33)) % m * p1 % m

    target, inverse = lane(0), pow(p2, -1, m)
    pairs, a = [[0, 0]], 1
    while len(pairs) < count:
        b = (target - lane(a)) * inverse % m
        b = b - m if b >= 1 << 63 else b
        if -small < b < small and b != -1:
            pairs.append([a, b])
        a += 1
    return pairs


def test_items_the_interpreter_hashes_alike_are_checked_in_one_pass() -> None:
    pairs = _pairs_hashing_alike(20_000)
    assert len({hash(tuple(pair)) for pair in pairs}) == 1
    compiled = _compiled()
    started = time.process_time()
    assert compiled.decode(msgspec.json.encode(pairs)) == pairs
    assert not compiled.is_valid([*pairs, pairs[-1]])
    assert time.process_time() - started < 1.0
    with pytest.raises(engine.SchemaRejected) as refused:
        engine.Engine(engine.EngineConfig(backend="fastjsonschema")).compile(UNIQUE)
    assert refused.value.reason == engine.RejectReason.UNSUPPORTED_BY_BACKEND


@pytest.mark.parametrize(
    ("items", "unique"),
    [
        ([1, 1.0], False),
        ([1, True], True),
        ([0, False], True),
        ([[1], [True]], True),
        ([[1], [1.0]], False),
        ([{"a": 1, "b": 2}, {"b": 2, "a": 1.0}], False),
        ([{"a": [1, {"b": None}]}, {"a": [1, {"b": False}]}], True),
        ([2**64, 2.0**64], False),
        ([2**53 + 1, 2.0**53], True),
        (["1", 1], True),
        ([None, {}, [], ""], True),
    ],
)
def test_equality_is_json_schemas(items: list[Any], unique: bool) -> None:
    assert jsonschema.Draft202012Validator(UNIQUE).is_valid(items) is unique
    assert _compiled().is_valid(items) is unique
    if not unique:
        with pytest.raises(engine.ValidationFailed) as failed:
            _compiled().validate(items)
        assert "has non-unique elements" in failed.value.issues[0].message


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from([1.0, 0.0, 2.5]) | st.sampled_from(["", "a", "1"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2),
    max_leaves=6,
)


def _equal(a: Any, b: Any) -> bool:
    """JSON Schema's equality: numbers by value, booleans apart from them, arrays item by item,
    objects whatever their keys' order."""
    if type(a) is bool or type(b) is bool:
        return type(a) is type(b) and a == b
    if type(a) in (int, float) and type(b) in (int, float):
        return a == b
    if type(a) is not type(b):
        return False
    if type(a) is list:
        return len(a) == len(b) and all(map(_equal, a, b))
    if type(a) is dict:
        return a.keys() == b.keys() and all(_equal(a[key], b[key]) for key in a)
    return bool(a == b)


def _unique(items: list[Any]) -> bool:
    return not any(_equal(items[i], items[j]) for i in range(len(items)) for j in range(i))


def test_equal_items_apart_in_mixed_arrays_are_found() -> None:
    # python-jsonschema sorts the items and compares neighbours: the first and last items here are
    # equal (0 and 0.0), and it calls them unique.
    items = [[[True, "a", 0], 1.0], [[1.0, "a", False], True], [[True, "a", 0.0], 1.0]]
    assert jsonschema.Draft202012Validator(UNIQUE).is_valid(items)
    assert not _unique(items)
    assert _compiled().is_valid(items) is False


@given(st.lists(_JSON, max_size=8))
@settings(max_examples=300, deadline=None)
def test_answers_as_json_schema_equality(items: list[Any]) -> None:
    assert _compiled().is_valid(items) is _unique(items)

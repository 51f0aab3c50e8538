"""python-jsonschema's ``uniqueItems`` compares every pair of items that do not sort (objects,
arrays, mixed kinds): 5,000 objects took 21 s. The reference backend checks it in one pass, with
the same equality (numbers by value, booleans apart from them, objects whatever their keys'
order) and the same words."""

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


@given(st.lists(_JSON, max_size=8))
@settings(max_examples=300, deadline=None)
def test_answers_as_python_jsonschema(items: list[Any]) -> None:
    assert _compiled().is_valid(items) is jsonschema.Draft202012Validator(UNIQUE).is_valid(items)

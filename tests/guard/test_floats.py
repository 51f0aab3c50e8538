"""Floats are weighed where a schema compares numbers (``engine._floats``).

jsonschema-rs compares a float with a number exactly, the slower the farther its exponent from
zero (5e-324 against ``multipleOf: 0.7``: 32 us), and an ``enum`` of integers is looked up for
an integer only: a float is compared with every member (``{"not": {"enum": [0, ..., 9999]}}`` on
2,000 items ``0.5``, 8 KB: 30 s, accepted). Each case below took jsonschema-rs seconds and was
answered after it; it is refused as too large now, at once, from every entry point, and floats
near zero against the usual bounds (embeddings, prices) are never weighed.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import jsonschema
import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine._floats import _FAR_FLOAT, _far, float_work, float_work_at_most
from engine._instance import floats_by_level
from tests.guard._weighed import refused_at_once

HOLES = {
    "an enum of integers, floats against it": ({"enum": list(range(10_000))}, [0.5, 9_999.0]),
    "not in an enum of integers": ({"not": {"enum": list(range(10_000))}}, [0.5]),
    "far floats against a few members": ({"not": {"enum": list(range(100))}}, [1e-300]),
    "subnormals against a fraction": ({"not": {"multipleOf": 0.7}}, [5e-324]),
    "huge floats against an integral bound": ({"minimum": 0}, [1e288]),  # (msgspec parses 1e289 and up slowly)
}


def _engine(budget: int | None = None) -> engine.Engine:
    limits = {} if budget is None else {"limits": engine.Limits(max_validation_work=budget)}
    return engine.Engine(engine.EngineConfig(cache_size=0, **limits))


def _entries(items: dict[str, Any]) -> dict[str, Callable[[Any], Any]]:
    """Every entry point, on an object ``{"v": [...]}`` whose items are ``items``."""
    schema = {"type": "object", "properties": {"v": {"type": "array", "items": items}}}
    compiled = _engine().compile(schema)
    tools = engine.compile_tools([{"name": "t", "inputSchema": schema, "outputSchema": schema}])
    encode = msgspec.json.encode
    return {
        "decode": lambda value: compiled.decode(encode(value)),
        "is_valid": compiled.is_valid,
        "validate": compiled.validate,
        "arguments as bytes": lambda value: tools.validate_arguments("t", encode(value)),
        "arguments as a dict": lambda value: tools.validate_arguments("t", value),
        "result as bytes": lambda value: tools.validate_result(
            "t", encode({"content": [], "structuredContent": value})
        ),
        "result as a dict": lambda value: tools.validate_result("t", {"content": [], "structuredContent": value}),
        "structured": lambda value: tools.validate_structured("t", value),
    }


@pytest.mark.parametrize("hole", HOLES)
def test_floats_that_cost_seconds_are_refused_at_once(hole: str) -> None:
    items, floats = HOLES[hole]
    count = 240_000 if "subnormals" in hole or "huge" in hole else 2_000
    value = {"v": [floats[i % len(floats)] for i in range(count)]}
    for entry, call in _entries(items).items():
        try:
            refused_at_once(call, value)
        except AssertionError as failed:  # pragma: no cover - says which
            raise AssertionError(entry) from failed
    # A few are answered, as the reference answers them.
    few = {"v": floats[:1] * 3}
    reference = jsonschema.Draft202012Validator({"properties": {"v": {"items": items}}}).is_valid(few)
    assert _engine().compile({"properties": {"v": {"items": items}}}).is_valid(few) is reference


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        # 200 embeddings of 1,536 floats near zero, between bounds: the integral bounds read them at once.
        (
            {"type": "array", "items": {"type": "array", "items": {"type": "number", "minimum": -1, "maximum": 1}}},
            [[(i % 80 - 40) / 4_000 for i in range(1_536)] for _ in range(200)],
        ),
        ({"type": "array", "items": {"type": "number", "multipleOf": 0.01}}, [12.34] * 40_000),
        ({"type": "array", "items": {"enum": ["a", "b"]}}, [0.5] * 100_000),  # no number member
        ({"type": "array", "items": {"type": "number"}}, [1e300] * 100_000),  # no comparison
    ],
)
def test_floats_that_cost_little_are_answered(schema: Any, value: Any) -> None:
    compiled = _engine().compile(schema)
    expected = jsonschema.Draft202012Validator(schema).is_valid(value)
    assert compiled.is_valid(value) is expected
    assert (compiled.decode(msgspec.json.encode(value)) == value) if expected else True


def test_near_floats_against_integral_bounds_are_never_weighed() -> None:
    starved = _engine(0).compile({"type": "array", "items": {"minimum": 0, "maximum": 1e21}})
    assert starved.is_valid([0.5, 2.5e-23, -1e20, 0.0, -0.0] * 1_000) is False
    assert starved.is_valid([0.5, 2.5e-23, 1e20, 0.0] * 1_000)
    with pytest.raises(engine.DecodeError):  # past 2^81: weighed
        starved.is_valid([0.5, 1e25] * 1_000)


_FLOATS = st.floats(allow_nan=False, allow_infinity=False)


@given(_FLOATS)
def test_the_msgpack_screen_finds_every_far_float(value: float) -> None:
    found = _FAR_FLOAT.search(msgspec.msgpack.encode(value))
    if _far(value):
        assert found is not None and found.start() == 0
    else:  # a match, if any, is inside its bytes (a bound, then)
        assert found is None or found.start() > 0


@given(st.lists(st.one_of(_FLOATS, st.lists(_FLOATS, max_size=4), st.text(max_size=3)), max_size=30))
@settings(max_examples=200)
def test_the_bound_off_the_msgpack_pass_is_never_less(value: list[Any]) -> None:
    by_level = floats_by_level(value)
    for members, comparisons in ((0, 1), (3, 3), (1, 5)):
        exact = float_work(by_level, [members] * 3, [comparisons] * 3, [1] * 3)
        assert float_work_at_most(msgspec.msgpack.encode(value), members, comparisons, 1) >= exact


@given(st.lists(st.sampled_from([0.5, 3.0, -7.25, 1e-300, 5e-324, 1e300, 2.0**81, 0.0]), max_size=40))
@settings(max_examples=80, deadline=None)
def test_answers_as_the_reference_or_refuses(value: list[float]) -> None:
    schema = {"type": "array", "items": {"anyOf": [{"enum": [0, 1, 2, 3]}, {"maximum": 0.5}]}}
    compiled = _engine(2_000_000).compile(schema)
    try:
        answer = compiled.is_valid(value)
    except engine.DecodeError as refused:
        assert refused.reason == engine.DecodeReason.TOO_LARGE
        # Refused only where the floats' charge is over the budget.
        assert (
            float_work(floats_by_level(value), [0, 4], [0, 5], [0, 0]) > 2_000_000 or len(value) * 4 * 200 > 2_000_000
        )
        return
    assert answer is jsonschema.Draft202012Validator(schema).is_valid(value)


def test_a_float_at_its_level_meets_its_level_only() -> None:
    # Prices among the items meet `multipleOf` alone, not the enum of codes beside them.
    schema = {
        "type": "object",
        "properties": {"code": {"enum": list(range(2_000))}, "prices": {"items": {"multipleOf": 0.01}}},
    }
    value = {"code": 7, "prices": [random.Random(1).randrange(100_000) / 100 for _ in range(50_000)]}
    assert _engine().compile(schema).decode(msgspec.json.encode(value)) == value
    # The same prices meeting the codes' enum (2,000 members each) are weighed, and refused.
    beside = {"type": "object", "properties": {"prices": {"items": {"enum": list(range(2_000))}}}}
    refused_at_once(_engine().compile(beside).decode, msgspec.json.encode(value))

"""A value changed while the screen reads it (by another thread, or a finalizer the collector runs
mid-walk) is answered or refused with a reason, never with a raw exception."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest

import engine

SCHEMA = {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}


def _cycle() -> list[Any]:
    cycle: list[Any] = []
    cycle.append(cycle)
    return cycle


@pytest.fixture
def eager_collector() -> Iterator[None]:
    saved = gc.get_threshold()
    try:
        yield
    finally:
        gc.set_threshold(*saved)


def _arm(after: int, inner: list[Any], bad: Any) -> None:
    """Garbage whose finalizers, run by the collector, put ``bad`` into ``inner`` on the
    ``after``-th run: while the screen reads the value, at some point of the walk."""
    runs = [0]

    class Finalized:
        def __init__(self) -> None:
            self.me = self  # a cycle: only the collector frees it

        def __del__(self) -> None:
            runs[0] += 1
            if runs[0] == after:
                inner[0] = bad
            elif runs[0] < 200:
                Finalized()

    Finalized()


@pytest.mark.usefixtures("eager_collector")
@pytest.mark.parametrize("bad", [_cycle(), object(), 1j, {1: 2}], ids=["a cycle", "an object", "a complex", "int keys"])
@pytest.mark.parametrize("entry", ["is_valid", "validate", "structured"])
def test_a_value_changed_mid_walk_is_refused_with_a_reason(bad: Any, entry: str) -> None:
    compiled = engine.compile(SCHEMA)
    tools = engine.compile_tools([{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": SCHEMA}])
    calls = {
        "is_valid": compiled.is_valid,
        "validate": compiled.validate,
        "structured": lambda v: tools.validate_structured("t", v),
    }
    for after in range(1, 12):
        inner = [0] * 50
        value = [inner, [1, 2, 3], [4]]
        gc.collect()
        _arm(after, inner, bad)
        gc.set_threshold(1, 1, 1)
        try:
            calls[entry](value)
        except engine.EngineError as refused:
            assert refused.reason in ("not-json", "too-deep", "invalid-instance")
        finally:
            gc.set_threshold(700, 10, 10)

"""A Python value may hold one string many times (a list of 3,500 references to one string of 1
MB). The screen's msgpack pass writes each occurrence: it allocated gigabytes before the size
bound refused the value, and past the memory it could get, msgspec crashed the process (a
segmentation fault, from ``is_valid``, ``validate`` and ``validate_arguments``). A value of more
than ``WRITTEN_AS_IT_IS`` values has the characters of its strings and keys counted first, each
time they occur, and is refused as too large before anything is written."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest

import engine
from engine._instance import WRITTEN_AS_IT_IS

LONG = "x" * (1 << 20)
KEY = "k" * (1 << 20)
SCHEMA = {"type": "object"}
TOOLS = engine.compile_tools([{"name": "t", "inputSchema": SCHEMA, "outputSchema": SCHEMA}])
COMPILED = engine.Engine(engine.EngineConfig(cache_size=0)).compile({"type": ["object", "array"]})
SHARED = {"a": LONG}

EIGHT = "y" * (8 << 20)
VALUES = {
    "a list": lambda: {"v": [LONG] * 300},
    "a short list of a long string": lambda: {"v": [EIGHT] * (WRITTEN_AS_IT_IS + 1)},
    "an object of a few scalars": lambda: {f"k{i}": EIGHT for i in range(WRITTEN_AS_IT_IS + 1)},
    "an object of scalars": lambda: {f"k{i}": LONG for i in range(300)},
    "shared objects": lambda: {"v": [SHARED] * 300},
    "shared objects, deeper": lambda: {"v": [[SHARED] * 20] * 15},
    "one key in many objects": lambda: {"v": [{KEY: i} for i in range(300)]},
}
ENTRIES: dict[str, Callable[[Any], Any]] = {
    "is_valid": COMPILED.is_valid,
    "validate": COMPILED.validate,
    "validate_arguments": lambda value: TOOLS.validate_arguments("t", value),
    "validate_result": lambda value: TOOLS.validate_result("t", {"content": [], "structuredContent": value}),
    "validate_structured": lambda value: TOOLS.validate_structured("t", value),
}


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("shape", VALUES)
def test_a_string_held_many_times_is_refused_before_it_is_written(shape: str, entry: str) -> None:
    value = VALUES[shape]()
    tracemalloc.start()
    try:
        with pytest.raises(engine.DecodeError) as refused:
            ENTRIES[entry](value)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert refused.value.reason == engine.DecodeReason.TOO_LARGE
    assert "max_instance_bytes" in refused.value.message
    assert peak < 20 << 20  # 300 MB were written before


def test_a_value_of_a_few_values_is_written_as_it_is() -> None:
    # At most `WRITTEN_AS_IT_IS` occurrences: within the size bound, answered.
    few = {"v": [LONG] * (WRITTEN_AS_IT_IS // 2)}
    assert COMPILED.is_valid(few)
    assert TOOLS.validate_arguments("t", few) is few
    # The same strings, distinct: the count is by occurrence, as the document's bytes are.
    many = {"v": ["y" * 1_000] * 60_000}
    assert COMPILED.is_valid(many)

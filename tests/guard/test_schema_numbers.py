"""Numbers a schema holds that jsonschema-rs compares slowly, and integers from 2^63 to 2^64 - 1.

A ``const`` or ``enum`` member past 64 bits is compared digit by digit with every number (a
``const`` of 4,299 digits: 22 us against ``1``; 1 MB of ``[1, 1, ...]``: 11 s, accepted), a member
far from 1 slowly too (``5e-324``: 13 us against ``1``; 999 bytes, 6.7 s), and a number inside an
array or object member is compared as a number member is (an enum of arrays of ``5e-324``: 6 KB,
24.5 s). An integer from 2^63 to 2^64 - 1, which msgpack holds, is compared with each member of
an ``enum`` of integers, not looked up (2,000 against 10,000 members, 42 KB of tool arguments:
17.5 s). Each is weighed now, refused at once past the budget, answered as the reference below it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import jsonschema
import msgspec
import pytest

import engine
from tests.guard._weighed import refused_at_once

BIG = int("9" * 4_299)
CASES: dict[str, tuple[Any, Any, int]] = {
    "a const of 4,299 digits": ({"not": {"const": BIG}}, 1, 100_000),
    "an enum of 50 integers of 4,299 digits": ({"not": {"enum": [BIG - i for i in range(50)]}}, 1, 9_000),
    "an enum of subnormal floats": ({"not": {"enum": [k * 5e-324 for k in range(1, 1_001)]}}, 1, 2_000),
    "consts far from 1": ({"allOf": [{"not": {"const": k * 5e-324}} for k in range(1, 251)]}, 1, 8_000),
    "an enum of arrays of far floats": ({"not": {"enum": [[k * 5e-324] for k in range(1, 1_001)]}}, [1], 2_000),
    "integers past 2^63 against an enum of integers": ({"not": {"enum": list(range(10_000))}}, 2**64 - 1, 2_000),
}


def _engine() -> engine.Engine:
    return engine.Engine(engine.EngineConfig(cache_size=0))


def _calls(items: Any) -> dict[str, Callable[[Any], Any]]:
    schema = {"type": "object", "properties": {"v": {"type": "array", "items": items}}}
    compiled = _engine().compile(schema)
    tools = engine.compile_tools([{"name": "t", "inputSchema": schema}])
    return {
        "decode": lambda value: compiled.decode(msgspec.json.encode(value)),
        "is_valid": compiled.is_valid,
        "arguments as bytes": lambda value: tools.validate_arguments("t", msgspec.json.encode(value)),
        "arguments as a dict": lambda value: tools.validate_arguments("t", value),
    }


@pytest.mark.parametrize("case", CASES)
def test_a_slow_comparison_is_weighed(case: str) -> None:
    items, item, count = CASES[case]
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)  # the reference writes the schema's long integers
    try:
        for call in _calls(items).values():
            refused_at_once(call, {"v": [item] * count})
        few = {"v": [item] * 3}
        reference = jsonschema.Draft202012Validator({"properties": {"v": {"items": items}}}).is_valid(few)
        assert _calls(items)["is_valid"](few) is reference
    finally:
        sys.set_int_max_str_digits(limit)

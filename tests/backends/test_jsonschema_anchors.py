"""python-jsonschema behind the engine finds an anchor by reading a resource's anchors each time
a reference names one, on every call: a schema whose references by anchor would make that cost
more than a bound is refused, with the figures, before it is ever called."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine.backends import BackendRefused
from engine.backends._jsonschema import MAX_ANCHOR_LOOKUPS


def _anchored(anchors: int, references: int, *, draft7: bool = False) -> dict[str, Any]:
    if draft7:  # a plain-name fragment in `$id` is draft 7's anchor
        defs = {f"d{i}": {"$id": f"#a{i}", "type": "integer"} for i in range(anchors)}
        return {"$schema": "http://json-schema.org/draft-07/schema#", "definitions": defs,
                "allOf": [{"$ref": f"#a{i}"} for i in range(references)]}  # fmt: skip
    defs = {f"d{i}": {"$anchor": f"a{i}", "type": "integer"} for i in range(anchors)}
    return {"$defs": defs, "allOf": [{"$ref": f"#a{i}"} for i in range(references)]}


@pytest.mark.parametrize("draft7", [False, True])
def test_many_references_among_many_anchors_are_refused(draft7: bool) -> None:
    # Measured: 2,000 anchors and 100 such references cost 1.1 s a call, 5,000 and 200 six seconds.
    slow = engine.Engine(engine.EngineConfig(backend="jsonschema"))
    schema = _anchored(100, 30, draft7=draft7)  # 3,000 anchor reads a call
    with pytest.raises(BackendRefused, match="30 references by anchor among 100 anchors"):
        slow.compile(schema)
    assert engine.Engine(engine.EngineConfig(backend="auto")).compile(schema).is_valid(1)  # resolved once


def test_references_by_anchor_within_the_bound_are_compiled() -> None:
    assert 40 * 40 <= MAX_ANCHOR_LOOKUPS
    compiled = engine.Engine(engine.EngineConfig(backend="jsonschema")).compile(_anchored(40, 40))
    assert compiled.is_valid(3) and not compiled.is_valid("3")
    # References by pointer cost no anchor read, however many anchors there are.
    by_pointer = _anchored(1_000, 0)
    by_pointer["allOf"] = [{"$ref": f"#/$defs/d{i}"} for i in range(200)]
    assert engine.Engine(engine.EngineConfig(backend="jsonschema")).compile(by_pointer).is_valid(3)

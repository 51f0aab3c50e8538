"""A value meeting at most 256 evaluations is not weighed, but a long document holds many values:
one longer than its values can cost the budget in (two bytes a value at least) is weighed by its
values, level by level (1 MB of items meeting 255 subschemas each took 2 s, 8 MB 16 s, unweighed).
Documents of schemas that meet few subschemas a value are never looked at. A Python value is
weighed as its document would be: one whose msgpack pass is long is checked as a document as long
as the size bound (unweighed, 2,000,000 items meeting 251 subschemas each took 9 s as a list and
19 s as arguments, where their 16.9 MB of bytes were refused at once)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

import engine
from tests.guard._weighed import refused_at_once

WIDE_ITEMS: dict[str, Any] = {
    "type": "object",
    "properties": {"v": {"type": "array", "items": {"allOf": [{"enum": [0, 1, 2, 3]}] * 250}}},
}


@pytest.mark.parametrize("entry", ["decode", "arguments", "result"])
def test_long_documents_of_many_cheap_values_refused_at_once(entry: str) -> None:
    value = {"v": [0] * 600_000}  # 1.2 MB, 250 subschemas a value: 150 million evaluations
    data = msgspec.json.encode(value)
    if entry == "decode":
        compiled = engine.Engine(engine.EngineConfig(cache_size=0)).compile(WIDE_ITEMS)
        refused_at_once(compiled.decode, data)
    else:
        tools = engine.compile_tools([{"name": "t", "inputSchema": WIDE_ITEMS, "outputSchema": WIDE_ITEMS}])
        if entry == "arguments":
            refused_at_once(lambda d: tools.validate_arguments("t", d), data)
        else:
            refused_at_once(
                lambda d: tools.validate_result("t", b'{"content":[],"structuredContent":' + d + b"}"), data
            )


OPTIONS = [{"const": f"o{i}", "title": f"O{i}"} for i in range(250)]
FORM: dict[str, Any] = {"type": "object", "properties": {"v": {"type": "array", "items": {"anyOf": OPTIONS}}}}


@pytest.mark.parametrize(
    "entry", ["is_valid", "validate", "arguments", "structured", "result", "answer", "answer bytes"]
)
def test_long_values_weighed_as_their_documents(entry: str) -> None:
    value = {"v": [0] * 600_000}
    if entry in ("is_valid", "validate"):
        compiled = engine.Engine(engine.EngineConfig(cache_size=0)).compile(WIDE_ITEMS)
        refused_at_once(getattr(compiled, entry), value)
    elif entry in ("arguments", "structured", "result"):
        tools = engine.compile_tools([{"name": "t", "inputSchema": WIDE_ITEMS, "outputSchema": WIDE_ITEMS}])
        if entry == "arguments":
            refused_at_once(lambda v: tools.validate_arguments("t", v), value)
        elif entry == "structured":
            refused_at_once(lambda v: tools.validate_structured("t", v), value)
        else:
            refused_at_once(lambda v: tools.validate_result("t", {"content": [], "structuredContent": v}), value)
    else:
        # A multi-select answer of 600,000 options, each compared with 250: 150 million evaluations.
        form = engine.compile_elicitation(FORM)
        answer = {"action": "accept", "content": {"v": ["o249"] * 600_000}}
        if entry == "answer":
            refused_at_once(form.decode_result, answer)
        else:
            refused_at_once(form.decode_result, msgspec.json.encode(answer))


def test_shorter_documents_and_lighter_schemas_answered() -> None:
    compiled = engine.compile(WIDE_ITEMS)
    assert compiled.decode(msgspec.json.encode({"v": [0] * 100_000})) == {"v": [0] * 100_000}  # 200 KB
    light = engine.compile({"type": "object", "properties": {"v": {"type": "array", "items": {"enum": [0, 1]}}}})
    assert light.decode(msgspec.json.encode({"v": [0] * 1_000_000})) == {"v": [0] * 1_000_000}  # 2 MB


@pytest.mark.parametrize("entry", ["is_valid", "validate", "arguments", "structured", "result", "bytes"])
def test_an_object_of_one_long_string_weighed_as_its_document(entry: str) -> None:
    # Read as an object of scalars (no walk), a long string's value was checked unweighed: 16
    # patterns over 66 MB took 2.1-2.3 s where its bytes were refused at once.
    patterns = [{"pattern": "^[\U00020000-" + chr(0x20010 + i) + "]*$"} for i in range(16)]
    schema = {"type": "object", "properties": {"a": {"allOf": patterns}}}
    eng = engine.Engine(engine.EngineConfig(cache_size=0, limits=engine.Limits(max_validation_work=1_000_000)))
    value = {"a": "\U00020000" * 600_000, "n": 1}  # 2.4 MB of UTF-8
    if entry in ("is_valid", "validate"):
        refused_at_once(getattr(eng.compile(schema), entry), value)
        return
    tools = engine.compile_tools([{"name": "t", "inputSchema": schema, "outputSchema": schema}], engine=eng)
    if entry == "arguments":
        refused_at_once(lambda v: tools.validate_arguments("t", v), value)
    elif entry == "structured":
        refused_at_once(lambda v: tools.validate_structured("t", v), value)
    elif entry == "result":
        refused_at_once(lambda v: tools.validate_result("t", {"content": [], "structuredContent": v}), value)
    else:
        refused_at_once(lambda v: tools.validate_arguments("t", v), msgspec.json.encode(value))

"""Long documents through the typed read: past 4 KB with few members, the read finds colons one
at a time (``colons_at_most``) instead of counting them all, to show that the types skipped no
property. Every answer is the general path's: the same value (a property the schema does not
name included) or the same error, from every kind of buffer."""

from __future__ import annotations

import array
from typing import Any

import msgspec
import pytest

import engine
from engine._decode import colons_at_most

LONG = "lorem ipsum dolor sit amet " * 400  # 10.8 KB, no colon

SCHEMAS: dict[str, dict[str, Any]] = {
    "open": {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}},
    "closed": {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "additionalProperties": False,
    },
    "nested": {
        "type": "object",
        "properties": {
            "content": {"type": "string"},
            "options": {"type": "object", "properties": {"mode": {"type": "string"}}},
        },
    },
}

DOCUMENTS: list[Any] = [
    {"path": "/a", "content": LONG},
    {"content": LONG, "path": "/a"},
    {"path": "/a", "content": LONG, "zz": 1},  # a property no schema names
    {"zz": "x", "path": "/a", "content": LONG},
    {"path": "/a", "content": LONG + ":" + LONG},  # a colon in a string
    {"path": "a:b:c", "content": LONG, "zz": [1]},
    {"content": LONG, "options": {"mode": "w"}},
    {"content": LONG, "options": {"mode": "w", "zz": {"k": 1}}},  # skipped one level down
    {"content": LONG, "options": {"zz": 1}},
    {"content": 5, "path": LONG},  # invalid
    {"content": LONG, "options": {"mode": 1}},
]


def _outcome(call: Any) -> Any:
    try:
        return ("value", msgspec.json.encode(call()))
    except (engine.DecodeError, engine.ValidationFailed) as error:
        return ("error", str(error.reason))


def _buffers(data: bytes) -> list[Any]:
    wide = array.array("I")
    wide.frombytes(data + b" " * (-len(data) % 4))
    return [data, bytearray(data), memoryview(data), data.decode(), memoryview(wide)]


@pytest.mark.parametrize("name", SCHEMAS)
def test_long_documents_answer_as_the_general_path(name: str) -> None:
    typed = engine.Engine(engine.EngineConfig(backend="auto", cache_size=0)).compile(SCHEMAS[name])
    general = engine.Engine(engine.EngineConfig(backend="jsonschema-rs", cache_size=0)).compile(SCHEMAS[name])
    assert typed.backend == "msgspec"
    tools = engine.compile_tools([{"name": "t", "inputSchema": SCHEMAS[name]}])
    answers = set()
    for document in DOCUMENTS:
        for spelled in (msgspec.json.encode(document), msgspec.json.encode(document) + b" " * 5000):
            expected = _outcome(lambda data=spelled: general.decode(data))
            answers.add(expected[0])
            for data in _buffers(spelled):
                assert _outcome(lambda data=data: typed.decode(data)) == expected, (name, document)
            assert _outcome(lambda data=spelled: tools.validate_arguments("t", data)) == expected
    assert answers == {"value", "error"}


@pytest.mark.parametrize("data", [b'{"a":1,"b":"x:y"}', '{"a":1,"b":"x:y"}', bytearray(b'{"a":1,"b":"x:y"}')])
def test_colons_found_one_at_a_time(data: Any) -> None:
    assert [colons_at_most(data, most) for most in range(5)] == [False, False, False, True, True]
    assert colons_at_most(memoryview(b'{"a":1}'), 1) and not colons_at_most(memoryview(b'{"a":1}'), 0)

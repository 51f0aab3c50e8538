"""Schemas with a position that admits any value (a property ``{}``, an array without ``items``,
an object without ``properties``) are read on the general path: the TypedDicts' reader would count
the members of whatever is there, a Python step a value, where the general backend's check skips
what no keyword constrains. These tests hold the choice (no TypedDict is built, the short path is
in the general mode for good) and its answers, against the exact path, on documents whose untyped
parts are small, large, too deep, or not JSON."""

from __future__ import annotations

import json
from functools import partial
from typing import Any

import pytest

import engine
from engine import DecodeError, ValidationFailed
from engine._dialect import Dialect
from engine.backends import SchemaSource
from engine.backends._msgspec_translation import translate

DEPTH = 8


def _untyped_at(schema: Any) -> str | None:
    source = SchemaSource(schema=schema, dialect=Dialect.DRAFT2020_12, resources={}, config=engine.EngineConfig())
    return translate(source).untyped_at


@pytest.mark.parametrize(
    ("schema", "where"),
    [
        ({"type": "object", "properties": {"a": {"type": "integer"}, "b": {}}}, "/properties/b"),
        ({"type": "object", "properties": {"a": {"description": "anything"}}}, "/properties/a"),
        ({"type": "object", "properties": {"a": True}}, "/properties/a"),
        ({"type": "object", "properties": {"rows": {"type": "array"}}}, "/properties/rows"),
        ({"type": "object", "properties": {"m": {"type": "object"}}}, "/properties/m"),
        ({"type": "object"}, ""),
        ({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "b"]}, "/required"),
        (
            {"type": "object", "properties": {"o": {"$ref": "#/$defs/o"}}, "$defs": {"o": {"type": "array"}}},
            "/$defs/o",
        ),
    ],
)
def test_the_translation_says_where_a_value_is_untyped(schema: Any, where: str) -> None:
    assert _untyped_at(schema) == where


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {"type": "integer"}, "s": {"type": "string"}}},
        {"type": "object", "properties": {"t": {"type": "array", "items": {"type": "string"}}}},
        {"type": "object", "additionalProperties": False},  # holds no value
        {"type": "object", "additionalProperties": {"type": "integer"}},
        {"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "null"}]}}},
    ],
)
def test_a_typed_schema_has_no_untyped_position(schema: Any) -> None:
    assert _untyped_at(schema) is None


SCHEMAS: dict[str, Any] = {
    "free-form property": {
        "type": "object",
        "properties": {"name": {"type": "string"}, "payload": {"type": "object"}},
        "required": ["name"],
    },
    "untyped property": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 4}, "any": {}}},
    "array without items": {"type": "object", "properties": {"rows": {"type": "array", "maxItems": 600}}},
    "closed, a free-form member": {
        "type": "object",
        "properties": {"name": {"type": "string"}, "payload": {"type": "object"}},
        "additionalProperties": False,
    },
    "no properties": {"type": "object", "maxProperties": 3},
}


def _nested(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = {"k": [value]}
    return value


RECORDS = [{"id": i, "tags": ["a", "b:c"], "meta": {"k": "v", "n": i}} for i in range(500)]
DOCUMENTS = [
    json.dumps(value, separators=(",", ":")).encode()
    for value in (
        {"name": "x"},
        {"name": "x", "payload": {}},
        {"name": "x", "payload": {"a": 1, "b": [1, 2, {"c": "d:e"}]}},
        {"name": "x", "payload": {"items": RECORDS}},
        {"name": "x", "any": RECORDS},
        {"name": "toolong", "any": 1},
        {"rows": RECORDS},
        {"rows": RECORDS + RECORDS},  # over maxItems
        {"rows": [[[[[[["deep"]]]]]]]},  # past the depth bound
        {"name": "x", "payload": _nested(DEPTH)},  # past it too
        {"name": "x", "payload": _nested(2)},
        {"name": 1, "payload": {}},
        {"name": "x", "payload": [], "zz": 1},
        {"a": 1, "b": 2, "c": 3, "d": 4},
        {"a": {"b": {"c": 1}}},
    )
] + [
    b'{"name":"x","payload":{"n":1e999}}',  # a number out of range
    b'{"name":"x","payload":{"s":"\xff"}}',  # invalid UTF-8
    b'{"name":"x","payload":{"s":"\\ud800"}}',  # a lone surrogate escape
    b'{"name":"x","payload":{"a":1,"a":2}}',  # a duplicate key, read as the parse reads it
    b'{"name":"x","payload":{"a":1}',  # truncated
]


def outcome(read: Any, data: Any) -> Any:
    try:
        return ("value", read(data))
    except ValidationFailed as exc:
        return ("invalid", exc.message, [(i.instance_path, i.keyword) for i in exc.issues])
    except DecodeError as exc:
        return ("refused", exc.reason)


@pytest.mark.parametrize("name", list(SCHEMAS))
def test_a_schema_with_an_untyped_position_is_read_on_the_general_path(name: str) -> None:
    limits = engine.Limits(max_instance_depth=DEPTH)
    fast = engine.Engine(cache_size=0, limits=limits)
    exact = engine.Engine(backend="jsonschema-rs", cache_size=0, limits=limits)
    schema = SCHEMAS[name]
    compiled, judge = fast.compile(schema), exact.compile(schema)
    assert compiled.backend == "msgspec"
    tools = engine.compile_tools([{"name": "t", "inputSchema": schema}], engine=fast)
    for _ in range(2):  # a tool's first documents (its warm-up), then the settled reader
        for data in DOCUMENTS * 3:
            expected = outcome(judge.decode, data)
            assert outcome(compiled.decode, data) == expected, (name, data[:80])
            assert outcome(partial(tools.validate_arguments, "t"), data) == expected, (name, data[:80])
    for schema_read in (compiled, tools.tool("t").input):
        typed = schema_read._typed  # noqa: SLF001 - which msgspec types are built
        assert typed._dicts is None  # noqa: SLF001 - no TypedDicts
        path = schema_read.short_path()
        assert path[2] is None and path[6] is None  # the general mode, with no typed read to go back to

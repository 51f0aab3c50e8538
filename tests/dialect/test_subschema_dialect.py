"""A dialect changes only at the root of a resource. A ``$schema`` in a subschema without an
identifier of its own is read by jsonschema-rs and python-jsonschema, which then apply that
subschema in the dialect it names, where the guard and the work bound read it in its resource's:
in a draft-4 document, a 2020-12 ``if`` is no keyword to them, so the patterns, references and
enums under it were never inspected nor weighed (a 401-byte document took 1.8 s, accepted; a
pattern the guard refuses read a 1 MB string for 7.8 s; 400 patterns made jsonschema-rs abort the
process for memory). Such a subschema is refused (``unsupported-dialect``); one naming its
resource's own dialect changes nothing and is accepted, as is a resource of another dialect."""

from __future__ import annotations

from typing import Any

import pytest

import engine

D4 = "http://json-schema.org/draft-04/schema#"
D7 = "http://json-schema.org/draft-07/schema#"
D2020 = "https://json-schema.org/draft/2020-12/schema"
HEAVY = {"enum": [k + 0.5 for k in range(200)] + [9]}


def _compile(schema: Any) -> engine.CompiledSchema:
    return engine.Engine(engine.EngineConfig(cache_size=0)).compile(schema)


@pytest.mark.parametrize(
    ("schema", "where"),
    [
        # Cleared by its text before (no reference, no pattern): walked now.
        (
            {"$schema": D4, "type": "array", "items": {"$schema": D2020, "if": HEAVY, "then": {"type": "integer"}}},
            "/items",
        ),
        # A pattern the guard refuses, under a keyword draft 4 does not have.
        (
            {"$schema": D4, "properties": {"a": {"$schema": D2020, "dependentSchemas": {"b": {"pattern": "a{2000}"}}}}},
            "/properties/a",
        ),
        # With references (the graph's walk), in draft 7 and below a 2020-12 root.
        (
            {"$schema": D7, "definitions": {"x": {"$schema": D2020, "if": {}}}, "items": {"$ref": "#/definitions/x"}},
            "/definitions/x",
        ),
        (
            {"properties": {"a": {"items": {"$schema": D7, "dependencies": {"b": {"pattern": "x"}}}}}},
            "/properties/a/items",
        ),
        # Not a string, or no dialect at all; nor beside an identifier (a backend reads a
        # resource naming a dialect it does not know in a default of its own).
        ({"properties": {"a": {"$schema": "https://example.com/mine"}}}, "/properties/a"),
        ({"$schema": D4, "items": {"id": "http://x.example/s", "$schema": "urn:x:y", "if": {}}}, "/items"),
        (
            {
                "$schema": D7,
                "items": {"$id": "http://x.example/s", "$schema": "HTTP://json-schema.org/draft-07/schema#"},
            },
            "/items",
        ),
    ],
)
def test_a_dialect_named_below_a_resource_root_is_refused(schema: Any, where: str) -> None:
    with pytest.raises(engine.SchemaRejected) as refused:
        _compile(schema)
    assert refused.value.reason == engine.RejectReason.UNSUPPORTED_DIALECT
    assert refused.value.location == where + "/$schema"
    assert "root of a resource" in refused.value.message


def test_a_tool_naming_another_dialect_below_its_root_cannot_be_used() -> None:
    schema = {"$schema": D7, "type": "object", "properties": {"a": {"$schema": D2020, "dependentSchemas": {}}}}
    tools = engine.compile_tools([{"name": "t", "inputSchema": schema}])
    with pytest.raises(engine.SchemaRejected) as refused:
        tools.validate_arguments("t", b'{"a": {}}')
    assert refused.value.reason == engine.RejectReason.UNSUPPORTED_DIALECT


@pytest.mark.parametrize(
    "schema",
    [
        {"$schema": D4, "items": {"$schema": D4, "type": "integer"}},  # its resource's own dialect
        {"$schema": D4, "items": {"$schema": D4.rstrip("#"), "type": "integer"}},  # another spelling of it
        {"items": {"$schema": D2020, "type": "integer"}},  # the default dialect
        # A resource of its own (an identifier beside it) may be read in another dialect.
        {
            "$ref": "http://x.example/d7",
            "$defs": {"d": {"$id": "http://x.example/d7", "$schema": D7, "type": "integer"}},
        },
    ],
)
def test_a_subschema_in_its_resource_dialect_or_a_resource_of_its_own_is_accepted(schema: Any) -> None:
    compiled = _compile(schema)
    assert compiled.is_valid([1]) or compiled.is_valid(1)

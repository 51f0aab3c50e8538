"""A registry resource is read in the dialect its own ``$schema`` names, by every backend, as the
specification says and python-jsonschema reads it; one without ``$schema`` in the dialect of the
schema using it. jsonschema-rs was handed every resource in the root's dialect, which it applied
over their own: a draft-07 resource referred to from a 2020-12 schema had the `type` beside its
`$ref` applied, a 2019-09 `$recursiveRef` was ignored, a draft-04 boolean `exclusiveMinimum` was
refused."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource
from referencing.jsonschema import specification_with

import engine

D4 = "http://json-schema.org/draft-04/schema#"
D7 = "http://json-schema.org/draft-07/schema#"
D19 = "https://json-schema.org/draft/2019-09/schema"
D20 = "https://json-schema.org/draft/2020-12/schema"
SIBLING = {
    "properties": {"a": {"$ref": "#/definitions/i", "type": "string"}},
    "definitions": {"i": {"type": "integer"}},
}
MODERN_SIBLING = {"properties": {"a": {"$ref": "#/$defs/i", "type": "string"}}, "$defs": {"i": {"type": "integer"}}}
CASES: dict[str, tuple[dict[str, Any], dict[str, Any], list[Any]]] = {
    "draft 7 from 2020-12": ({"$ref": "https://ex.com/r"}, {"$schema": D7, **SIBLING}, [{"a": 1}, {"a": "x"}]),
    "draft 7 spelled without #": (
        {"$ref": "https://ex.com/r"},
        {"$schema": D7.rstrip("#"), **SIBLING},
        [{"a": 1}, {"a": "x"}],
    ),
    "2019-09 from 2020-12": (
        {"$ref": "https://ex.com/r"},
        {"$schema": D19, "$recursiveAnchor": True, "type": "object", "additionalProperties": {"$recursiveRef": "#"}},
        [{"c": 1}, {"c": {}}],
    ),
    "2020-12 from draft 7": (
        {"$schema": D7, "$ref": "https://ex.com/r"},
        {"$schema": D20, "prefixItems": [{"type": "integer"}]},
        [["x"], [1]],
    ),
    "2020-12 sibling from draft 7": (
        {"$schema": D7, "$ref": "https://ex.com/r"},
        {"$schema": D20, **MODERN_SIBLING},
        [{"a": 1}],
    ),
    "draft 4 from 2020-12": (
        {"$ref": "https://ex.com/r"},
        {"$schema": D4, "minimum": 5, "exclusiveMinimum": True},
        [5, 6],
    ),
    "none, from draft 7": ({"$schema": D7, "$ref": "https://ex.com/r"}, SIBLING, [{"a": 1}, {"a": "x"}]),
    "none, from 2020-12": ({"$ref": "https://ex.com/r"}, MODERN_SIBLING, [{"a": 1}, {"a": "x"}]),
}


def _expected(schema: dict[str, Any], resource: dict[str, Any], instance: Any) -> bool:
    """python-jsonschema's answer: a resource without ``$schema`` read in the root's dialect."""
    root = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    dialect = specification_with(root.META_SCHEMA["$schema"])
    registry = Registry().with_resource("https://ex.com/r", Resource.from_contents(resource, dialect))
    return bool(root(schema, registry=registry).is_valid(instance))


@pytest.mark.parametrize("backend", ["auto", "jsonschema-rs", "jsonschema", "fastjsonschema", "msgspec"])
@pytest.mark.parametrize("case", CASES)
def test_a_registry_resource_is_read_in_its_own_dialect(case: str, backend: str) -> None:
    schema, resource, instances = CASES[case]
    eng = engine.Engine(engine.EngineConfig(backend=backend))
    try:
        compiled = eng.compile(schema, registry={"https://ex.com/r": resource})
    except engine.SchemaRejected as refusal:
        assert backend not in ("auto", "jsonschema-rs", "jsonschema"), refusal.message
        return
    for instance in instances:
        assert compiled.is_valid(instance) is _expected(schema, resource, instance), instance


@pytest.mark.parametrize("backend", ["auto", "jsonschema-rs", "jsonschema", "fastjsonschema", "msgspec"])
@pytest.mark.parametrize(
    "resource",
    [
        {"items": [{"type": "integer"}]},  # 2020-12: `items` is one schema
        {"$defs": {"a": [1]}},
        {"properties": {"a": [1]}},
        {"prefixItems": {"type": "integer"}},
        {"$defs": {"d0": {"type": "integer"}}, "items": [{"$ref": "#/$defs/d0"}], "additionalItems": {"enum": [1]}},
    ],
)
def test_a_registry_resource_is_held_to_its_meta_schema(backend: str, resource: dict[str, Any]) -> None:
    # Unchecked, jsonschema-rs applied an array `items` the guard (reading 2020-12) never walked,
    # and python-jsonschema's crawl raised a raw AttributeError on a list where a schema goes.
    eng = engine.Engine(engine.EngineConfig(backend=backend))
    with pytest.raises(engine.SchemaRejected) as caught:
        eng.compile({"$ref": "http://x/a"}, registry={"http://x/a": resource})
    assert caught.value.reason == engine.RejectReason.INVALID_SCHEMA
    assert caught.value.details["uri"] == "http://x/a"

"""A JSON pointer may pass through an embedded resource (an object with its own ``$id``): what
lies inside is applied in that resource, whose references resolve against it. The counts that
weigh an instance (``engine._levels``) resolved such a subschema's references against the root
instead, where a light subschema stood: an enum of 9,991 floats met by 2,000 items (4 KB) took
18 s, accepted, under the default configuration (two integers of 4,300 digits: 24 s with the
explanation). A pointer through a resource is no longer counted: every subschema is weighed at
every level, and such an instance refused at once."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

import engine
from engine._dialect import Dialect
from engine._levels import level_counts
from engine._work import _weigh
from tests.guard._weighed import refused_at_once

HEAVY = {"enum": [k + 0.5 for k in range(9_990)] + [9]}
LIGHT = {"type": "integer"}


def _schema(inner: Any, defs: str = "$defs") -> dict[str, Any]:
    """Items pointed at ``inner`` of the resource ``r``, whose reference ``inner`` leads to its
    heavy subschema (by pointer, as its root, or by its anchor); the root's own subschema of
    that name (and anchor) is light."""
    heavy = {"$anchor": "h", **HEAVY} if inner == "#h" else HEAVY
    resource: dict[str, Any] = {"$id": "http://x.example/r", defs: {"inner": {"$ref": inner}, "heavy": heavy}}
    if inner == "#":
        resource.update(HEAVY)
    light = {"$anchor": "h", **LIGHT} if inner == "#h" else LIGHT
    return {"type": "array", "items": {"$ref": f"#/{defs}/r/{defs}/inner"}, defs: {"r": resource, "heavy": light}}


@pytest.mark.parametrize("inner", ["#/$defs/heavy", "#", "#h"])
def test_a_pointer_through_a_resource_is_weighed_as_the_backends_resolve_it(inner: str) -> None:
    schema = _schema(inner)
    assert level_counts(schema, Dialect.DRAFT2020_12, _weigh, 8) is None
    compiled = engine.Engine(engine.EngineConfig(cache_size=0)).compile(schema)
    refused_at_once(compiled.decode, msgspec.json.encode([9] * 2_000))
    assert compiled.is_valid([9, 9]) and not compiled.is_valid([8])


def test_a_pointer_through_a_draft_7_resource_is_weighed() -> None:
    schema = _schema("#/definitions/heavy", defs="definitions")
    schema["$schema"] = "http://json-schema.org/draft-07/schema#"
    compiled = engine.Engine(engine.EngineConfig(cache_size=0)).compile(schema)
    refused_at_once(compiled.decode, msgspec.json.encode([9] * 2_000))


def test_a_property_named_as_an_identifier_is_no_resource() -> None:
    # `properties: {"id": {...}}` in draft 4 holds a subschema named `id`, not an identifier.
    schema = {
        "definitions": {"user": {"properties": {"id": {"type": "integer"}}}},
        "items": {"$ref": "#/definitions/user/properties/id"},
    }
    assert level_counts(schema, Dialect.DRAFT4, _weigh, 8) is not None

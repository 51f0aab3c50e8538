"""A property named ``""`` in the instance or in the schema: jsonschema-rs drops the empty tokens of
its errors' paths (a failing value under ``""`` was reported at the root, and the keyword
``/properties//type`` as ``/properties/type``, another property's), and every backend explaining
through it reported them so. The locations are those python-jsonschema reports."""

from __future__ import annotations

from typing import Any

import pytest

import engine

CASES: dict[str, tuple[dict[str, Any], Any]] = {
    "a property named empty": (
        {"properties": {"": {"type": "integer"}, "type": {"type": "string"}}},
        {"": "x", "type": 1},
    ),
    "empty under empty": ({"properties": {"": {"properties": {"": {"type": "integer"}}}}}, {"": {"": "x"}}),
    "an item under empty": ({"properties": {"": {"items": {"type": "integer"}}}}, {"": [1, "x", 2]}),
    "additional properties": ({"additionalProperties": {"type": "integer"}}, {"": "x", "a": "y", "b": 1}),
    "pattern properties": ({"patternProperties": {"^$": {"maxLength": 1}}}, {"": "xy"}),
    "equal values elsewhere": (
        {"properties": {"a": {"additionalProperties": {"type": "integer"}}}},
        {"a": {"": "x", "b": "x"}, "": "x"},
    ),
    "nested objects": ({"additionalProperties": {"additionalProperties": False}}, {"": {"": 1}, "q": {}}),
    "a definition named empty": (
        {"$defs": {"": {"type": "integer"}}, "properties": {"": {"$ref": "#/$defs/"}}},
        {"": "x"},
    ),
}


def _locations(backend: str, schema: dict[str, Any], instance: Any) -> set[tuple[str, str]]:
    try:
        compiled = engine.Engine(engine.EngineConfig(backend=backend)).compile(schema)
    except engine.SchemaRejected as refused:
        assert refused.reason == "unsupported-by-backend", refused.message
        pytest.skip(f"{backend}: {refused.message}")
    with pytest.raises(engine.ValidationFailed) as caught:
        compiled.validate(instance)
    return {(issue.instance_path, issue.keyword_location) for issue in caught.value.issues}


@pytest.mark.parametrize("backend", ["auto", "jsonschema-rs", "msgspec", "fastjsonschema"])
@pytest.mark.parametrize("case", CASES)
def test_an_empty_name_is_in_the_locations(case: str, backend: str) -> None:
    schema, instance = CASES[case]
    expected = _locations("jsonschema", schema, instance)
    found = _locations(backend, schema, instance)
    assert {path for path, _ in found} == {path for path, _ in expected}
    if "$ref" not in str(schema):  # a location through a reference is kept as jsonschema-rs gives it
        assert found == expected

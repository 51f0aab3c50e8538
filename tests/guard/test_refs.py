"""The `$ref` policy and the static reference analysis, with real schemas."""

from __future__ import annotations

import pytest

import engine

# Hostile references: each test ends in well under a second; a hang fails it by name.
pytestmark = pytest.mark.timeout(60)


def compile(schema: object, *, default_dialect: str = "2020-12", **kw: object) -> engine.CompiledSchema:
    config = engine.EngineConfig.load(env={}, default_dialect=default_dialect)
    return engine.Engine(config).compile(schema, **kw)


def refused(schema: object, *, default_dialect: str = "2020-12", **kw: object) -> engine.SchemaRejected:
    with pytest.raises(engine.SchemaRejected) as info:
        compile(schema, default_dialect=default_dialect, **kw)
    return info.value


def test_remote_ref_names_the_uri_and_location() -> None:
    error = refused({"type": "object", "properties": {"repo": {"$ref": "https://schemas.example.com/repo.json"}}})
    assert error.reason == "remote-ref"
    assert error.details["uri"] == "https://schemas.example.com/repo.json"
    assert error.location == "/properties/repo/$ref"
    assert "https://schemas.example.com/repo.json" in error.message


def test_remote_ref_through_id_base() -> None:
    error = refused({"$id": "https://tools.example.com/s/root.json", "properties": {"a": {"$ref": "other.json"}}})
    assert error.reason == "remote-ref"
    assert error.details["uri"] == "https://tools.example.com/s/other.json"


def test_registry_resources_resolve_and_are_analysed() -> None:
    registry = {"https://example.com/int.json": {"$defs": {"n": {"type": "integer"}}, "$ref": "#/$defs/n"}}
    cs = compile({"items": {"$ref": "https://example.com/int.json"}}, registry=registry)
    assert cs.is_valid([1, 2]) and not cs.is_valid(["x"])
    loop = {"https://example.com/loop.json": {"$ref": "#"}}
    assert refused({"$ref": "https://example.com/loop.json"}, registry=loop).reason == "invalid-schema"


@pytest.mark.parametrize(
    "schema",
    [
        {"$ref": "file:///etc/passwd"},
        {"$id": "file:///etc/", "$ref": "shadow"},
        {"$ref": "urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66"},
        {"$ref": "other.json"},
        {"$ref": "#/$defs/missing"},
        {"$ref": "#nowhere"},
        {"$defs": {"a": {}}, "$ref": "#/$defs/a/properties/x"},
    ],
)
def test_unresolvable_refs(schema: object) -> None:
    assert refused(schema).reason == "unresolvable-ref"


def test_meta_schema_refs_resolve_locally() -> None:
    cs = compile({"$ref": "https://json-schema.org/draft/2020-12/schema"})
    assert cs.is_valid({"type": "string"}) and not cs.is_valid({"type": 12})


def test_percent_encoded_and_escaped_pointers() -> None:
    schema = {
        "$defs": {"a b": {"type": "string"}, "c/d": {"type": "integer"}, "e~f": {"type": "null"}},
        "properties": {"x": {"$ref": "#/$defs/a%20b"}, "y": {"$ref": "#/$defs/c~1d"}, "z": {"$ref": "#/$defs/e~0f"}},
    }
    cs = compile(schema)
    assert cs.is_valid({"x": "s", "y": 1, "z": None}) and not cs.is_valid({"y": "s"})


def test_anchors_and_embedded_resources() -> None:
    schema = {
        "$id": "https://example.com/root.json",
        "$defs": {
            "inner": {"$id": "inner.json", "$anchor": "leaf", "type": "integer"},
            "alias": {"$ref": "inner.json#leaf"},
        },
        "properties": {"a": {"$ref": "#/$defs/alias"}, "b": {"$ref": "https://example.com/inner.json"}},
    }
    cs = compile(schema)
    assert cs.is_valid({"a": 1, "b": 2}) and not cs.is_valid({"a": "x"})


def test_draft4_ids() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "definitions": {"a": {"id": "#foo", "type": "integer"}},
        "properties": {"x": {"$ref": "#foo"}},
    }
    cs = compile(schema)
    assert not cs.is_valid({"x": "s"})


@pytest.mark.parametrize(
    "schema",
    [
        {"$ref": "#"},
        {"allOf": [{"$ref": "#"}]},
        {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"},
        {"$defs": {"a": {"not": {"$ref": "#/$defs/a"}}}, "properties": {"x": {"$ref": "#/$defs/a"}}},
        {"$defs": {"a": {"if": {"$ref": "#/$defs/a"}}}, "$ref": "#/$defs/a"},
        {"$defs": {"a": {"oneOf": [{"type": "null"}, {"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"},
        {"dependentSchemas": {"k": {"$ref": "#"}}},
        # `dependencies` is still applied in 2019-09 and 2020-12 (by the general backend too).
        {"$defs": {"x": {"dependencies": {"a": {"$ref": "#/$defs/x"}}}}, "$ref": "#/$defs/x"},
        {"$schema": "https://json-schema.org/draft/2019-09/schema", "dependencies": {"k": {"$ref": "#"}}},
        {"$dynamicAnchor": "n", "anyOf": [{"$dynamicRef": "#n"}]},
        {
            "$schema": "https://json-schema.org/draft/2019-09/schema",
            "$recursiveAnchor": True,
            "anyOf": [{"$recursiveRef": "#"}],
        },
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "definitions": {"a": {"$ref": "#/definitions/a"}},
            "$ref": "#/definitions/a",
        },
    ],
)
def test_cycles_that_never_descend_are_refused(schema: object) -> None:
    error = refused(schema)
    assert error.reason == "invalid-schema"
    assert "cycle" in error.message and error.details["cycle"]


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "array", "items": {"$ref": "#"}},
        {"properties": {"next": {"$ref": "#"}}},
        {
            "$defs": {"a": {"additionalProperties": {"$ref": "#/$defs/b"}}, "b": {"anyOf": [{"$ref": "#/$defs/a"}]}},
            "$ref": "#/$defs/a",
        },
        {"$dynamicAnchor": "n", "items": {"$dynamicRef": "#n"}},
        {"unevaluatedProperties": {"$ref": "#"}},
        {"propertyNames": {"$ref": "#"}},
        {"$defs": {"unused": {"$ref": "#/$defs/unused"}}, "type": "string"},
    ],
)
def test_recursion_through_the_instance_compiles(schema: object) -> None:
    cs = compile(schema)
    assert cs.guard is not None
    if "unused" not in str(schema):
        assert cs.guard.recursive


def test_expansion_is_counted_without_inlining() -> None:
    levels = 40
    defs = {f"a{i}": {"allOf": [{"$ref": f"#/$defs/a{i + 1}"}, {"$ref": f"#/$defs/a{i + 1}"}]} for i in range(levels)}
    defs[f"a{levels}"] = {"type": "integer"}
    error = refused({"$defs": defs, "$ref": "#/$defs/a0"})
    assert error.reason == "limit-exceeded"
    assert error.details["limit"] == "max_ref_expansion"
    assert error.details["measured"] >= 2**40


@pytest.mark.parametrize("dialect", ["2019-09", "2020-12"])
def test_legacy_dependencies_count_in_modern_dialects(dialect: str) -> None:
    # The backends apply `dependencies` in every dialect, so its subschemas are walked, resolved
    # and counted like any other applicator's.
    levels = 40
    defs = {f"a{i}": {"dependencies": {"k": {"allOf": [{"$ref": f"#/$defs/a{i + 1}"}] * 2}}} for i in range(levels)}
    defs[f"a{levels}"] = {"type": "integer"}
    error = refused({"$defs": defs, "$ref": "#/$defs/a0"}, default_dialect=dialect)
    assert error.reason == "limit-exceeded" and error.details["limit"] == "max_ref_expansion"
    remote = refused({"dependencies": {"k": {"$ref": "https://example.com/x.json"}}})
    assert remote.reason == "remote-ref"


def test_guard_report_facts() -> None:
    cs = compile(
        {
            "type": "object",
            "properties": {"tags": {"type": "array", "items": {"enum": ["a", "b", "c"]}}},
            "required": ["tags"],
        }
    )
    report = cs.guard
    assert report is not None and not report.recursive
    assert report.measured["max_enum"] == 3
    assert report.locations["max_enum"] == "/properties/tags/items"
    assert report.measured["max_schema_depth"] == 3
    assert report.measured["max_ref_expansion"] == report.measured["max_subschemas"] == 3
    assert set(engine._guard.LIMIT_MEANINGS) == set(report.measured)

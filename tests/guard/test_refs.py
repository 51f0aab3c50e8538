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


# -- one Python object at two places: each place is analysed against its own base URI ----------------


def two_bases(first_leaf: dict, second_leaf: dict, *, hostile_first: bool) -> dict:
    """``{"$ref": "leaf"}`` shared by two `$id` resources; ``leaf`` differs between them. The
    hostile leaf is placed first or second, so the test does not depend on the walk's order."""
    shared = {"$ref": "leaf"}
    hostile, benign = (first_leaf, second_leaf) if hostile_first else (second_leaf, first_leaf)
    return {
        "$defs": {
            "A": {"$id": "http://a.example/", "$defs": {"s": shared, "leaf": {"$id": "leaf", **hostile}}},
            "B": {"$id": "http://b.example/", "$defs": {"s": shared, "leaf": {"$id": "leaf", **benign}}},
        },
        "properties": {"a": {"$ref": "http://a.example/#/$defs/s"}, "b": {"$ref": "http://b.example/#/$defs/s"}},
    }


def bomb(levels: int) -> dict:
    defs = {f"x{i}": {"anyOf": [{"$ref": f"#/$defs/x{i + 1}"}, {"$ref": f"#/$defs/x{i + 1}"}]} for i in range(levels)}
    defs[f"x{levels}"] = {"type": "string"}
    return {"$defs": defs, "$ref": "#/$defs/x0"}


@pytest.mark.parametrize("hostile_first", [True, False])
def test_a_cycle_behind_a_shared_object_is_seen_at_either_place(hostile_first: bool) -> None:
    # Before places were told apart, the cycle behind the first place was never followed: the
    # schema compiled, and evaluating property "a" would never end.
    cycle = {"$ref": "http://a.example/#/$defs/s"} if hostile_first else {"$ref": "http://b.example/#/$defs/s"}
    error = refused(two_bases(cycle, {"minimum": 0}, hostile_first=hostile_first))
    assert error.reason == "invalid-schema" and "never descends" in error.message


@pytest.mark.parametrize("hostile_first", [True, False])
def test_an_expansion_behind_a_shared_object_is_counted_at_either_place(hostile_first: bool) -> None:
    # 2**26 evaluations behind one place: measured 7 before (the other place's benign leaf); the
    # general backend took 2.2 s on one instance and fastjsonschema never finished.
    error = refused(two_bases(bomb(26), {"minimum": 0}, hostile_first=hostile_first))
    assert error.reason == "limit-exceeded" and error.details["limit"] == "max_ref_expansion"
    assert error.details["measured"] > 2**26


def test_a_shared_object_in_two_registry_resources_is_analysed_in_each() -> None:
    shared = {"$ref": "#/$defs/leaf"}
    registry = {
        "http://a.example/s.json": {"$defs": {"s": shared, "leaf": {"$ref": "#/$defs/s"}}},
        "http://b.example/s.json": {"$defs": {"s": shared, "leaf": {"type": "string"}}},
    }
    schema = {"properties": {"a": {"$ref": "http://a.example/s.json#/$defs/s"}}}
    assert refused(schema, registry=registry).reason == "invalid-schema"
    benign = {"properties": {"b": {"$ref": "http://b.example/s.json#/$defs/s"}}}
    assert compile(benign, registry=registry).is_valid({"b": "x"})


def test_places_reached_through_different_roots_are_one_node() -> None:
    # The same place named from the document root and through the embedded resource's own URI.
    schema = {
        "$defs": {"A": {"$id": "http://a.example/", "$defs": {"n": {"type": "integer"}}}},
        "properties": {
            "x": {"$ref": "#/$defs/A/$defs/n"},
            "y": {"$ref": "http://a.example/#/$defs/n"},
        },
    }
    compiled = compile(schema)
    assert compiled.is_valid({"x": 1, "y": 2}) and not compiled.is_valid({"y": "2"})
    assert compiled.guard is not None and compiled.guard.measured["max_ref_expansion"] < 10


# -- one URI declared by two different schemas ----------------------------------------------------


@pytest.mark.parametrize("bomb_first", [True, False])
def test_two_resources_with_one_id_are_refused(bomb_first: bool) -> None:
    # The guard reads one of them and a backend may take the other: with a benign one analysed
    # (expansion 3, measured) fastjsonschema and python-jsonschema ran the 2^26 one for good.
    benign = {"$id": "http://x.example/", "$defs": {f"x{i}": {"minimum": 0} for i in range(27)}}
    hostile = {"$id": "http://x.example/", **bomb(26)}
    first, second = (hostile, benign) if bomb_first else (benign, hostile)
    schema = {"$defs": {"a": first, "b": second}, "properties": {"p": {"$ref": "http://x.example/#/$defs/x0"}}}
    error = refused(schema)
    assert error.reason == "invalid-schema" and error.details["uri"] == "http://x.example/"
    assert "ambiguous" in error.message


def test_one_anchor_named_twice_in_a_resource_is_refused() -> None:
    schema = {
        "$defs": {"a": {"$anchor": "n", "type": "integer"}, "b": {"$anchor": "n", "type": "string"}},
        "$ref": "#n",
    }
    error = refused(schema)
    assert error.reason == "invalid-schema" and error.details["uri"].endswith("#n")


def test_an_embedded_id_the_registry_holds_differently_is_refused() -> None:
    registry = {"http://x.example/s.json": {"type": "string"}}
    schema = {"$defs": {"s": {"$id": "http://x.example/s.json", "type": "integer"}}, "$ref": "http://x.example/s.json"}
    assert refused(schema, registry=registry).reason == "invalid-schema"


def test_the_same_schema_declared_twice_is_one_meaning() -> None:
    shared = {"$id": "http://x.example/", "$defs": {"n": {"type": "integer"}}}
    copies = [shared, {"$id": "http://x.example/", "$defs": {"n": {"type": "integer"}}}]
    for second in copies:  # the same dict at two places, then an equal copy
        schema = {"$defs": {"a": shared, "b": second}, "properties": {"p": {"$ref": "http://x.example/#/$defs/n"}}}
        compiled = compile(schema)
        assert compiled.is_valid({"p": 1}) and not compiled.is_valid({"p": "1"})
    registry = {"http://x.example/": {"$id": "http://x.example/", "$defs": {"n": {"type": "integer"}}}}
    assert not compile({"$defs": {"a": shared}, "$ref": "http://x.example/#/$defs/n"}, registry=registry).is_valid("1")


@pytest.mark.parametrize(("first", "second"), [(1, True), (1, 1.0), (0, False)])
def test_values_python_calls_equal_are_different_schemas(first: object, second: object) -> None:
    uri = "http://x.example/"
    schema = {"$defs": {"a": {"$id": uri, "const": first}, "b": {"$id": uri, "const": second}}, "$ref": uri}
    assert refused(schema).reason == "invalid-schema"

"""A schema its meta-schema refuses is refused the same way whichever stage sees it first.

Under ``auto`` (and ``backend="jsonschema-rs"``) the meta-schema check is left to the jsonschema-rs
build, which runs after the guard: the guard, the translators and the backends now see schemas the
meta-schema refuses. Each must end in the refusal :func:`check_meta_schema` gives (reason, message,
location, details), and every other schema must compile as when the check ran first.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine._dialect import Dialect, check_meta_schema
from tests.conformance.suite import DIALECTS, SUITE

POLICIES = ("auto", "jsonschema-rs", "fastjsonschema", "jsonschema", "msgspec")

# Every keyword the guard, the pattern scan or a translator reads, with values of the wrong kind.
KEYWORDS = (
    "$ref", "$dynamicRef", "$recursiveRef", "$id", "id", "$anchor", "$dynamicAnchor", "$recursiveAnchor",
    "$defs", "definitions", "$vocabulary", "$comment", "properties", "patternProperties",
    "additionalProperties", "propertyNames", "items", "prefixItems", "additionalItems", "contains",
    "unevaluatedItems", "unevaluatedProperties", "allOf", "anyOf", "oneOf", "not", "if", "then", "else",
    "dependencies", "dependentSchemas", "dependentRequired", "required", "enum", "type", "pattern",
    "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength",
    "maxLength", "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties", "minContains",
    "maxContains", "contentSchema", "contentMediaType", "contentEncoding", "title", "description",
    "deprecated", "readOnly", "writeOnly", "examples",
)  # fmt: skip
MALFORMED: tuple[Any, ...] = (
    [1], 5, -1, 1.5, "x", "[", "#/$defs/missing", {}, [], None, True, {"a": 1}, {"a": [1]}, [{"type": 5}],
    {"a": {"type": "nope"}}, ["a", "a"], [True, "x"], {"x": "y"}, "not a uri ^", 10**30, -0.5,
)  # fmt: skip
PLACES = (
    lambda s: s,
    lambda s: {"type": "object", "properties": {"a": s}},
    lambda s: {"items": s},
    lambda s: {"$defs": {"x": s}, "$ref": "#/$defs/x"},
    lambda s: {"allOf": [{"type": "string"}, s]},
    lambda s: {"anyOf": [s, {"not": s}]},
)

_engines: dict[tuple[str, str], engine.Engine | None] = {}


def engine_for(policy: str, dialect: str) -> engine.Engine | None:
    key = (policy, dialect)
    if key not in _engines:
        try:
            _engines[key] = engine.Engine(cache_size=0, default_dialect=dialect, backend=policy)
        except engine.BackendUnavailable:
            _engines[key] = None
    return _engines[key]


def meta_refusal(schema: Any, dialect: str) -> engine.SchemaRejected | None:
    try:
        check_meta_schema(schema, Dialect(dialect))
    except engine.SchemaRejected as exc:
        return exc
    return None


def outcome(eng: engine.Engine, schema: Any) -> tuple[Any, ...]:
    try:
        compiled = eng.compile(schema)
    except engine.SchemaRejected as exc:
        return (exc.reason, exc.message, exc.location, exc.details)
    return ("compiled", compiled.backend, compiled.notes)


def meta_first(policy: str, dialect: str) -> engine.Engine:
    """An engine that checks the meta-schema before the guard, whatever its policy: the order
    every configuration had before the check was left to the jsonschema-rs build."""
    eng = engine.Engine(cache_size=0, default_dialect=dialect, backend=policy)
    eng._meta_by_build = frozenset()
    return eng


def assert_refused_as_meta_schema(schema: Any, dialect: str, expected: engine.SchemaRejected) -> None:
    for policy in POLICIES:
        eng = engine_for(policy, dialect)
        if eng is None:
            continue
        with pytest.raises(engine.SchemaRejected) as info:
            eng.compile(schema)
        got = info.value
        assert (got.reason, got.message, got.location, got.details) == (
            "invalid-schema",
            expected.message,
            expected.location,
            expected.details,
        ), (policy, dialect, schema)


def test_auto_leaves_the_check_to_the_build() -> None:
    # The optimisation is on where it is meant to be, and off where it must be.
    assert Dialect.DRAFT2020_12 in engine.Engine(backend="auto")._meta_by_build
    assert Dialect.DRAFT7 in engine.Engine(backend="jsonschema-rs")._meta_by_build
    assert Dialect.DRAFT4 not in engine.Engine(backend="auto")._meta_by_build
    assert not engine.Engine(backend="msgspec")._meta_by_build
    assert not engine.Engine(backend="auto", fetch={"enabled": True, "allow_hosts": ["a.example"]})._meta_by_build


@pytest.mark.parametrize("keyword", KEYWORDS)
def test_malformed_keyword(keyword: str) -> None:
    refused = 0
    for dialect in sorted(set(DIALECTS.values())):
        for value in MALFORMED:
            for place in PLACES:
                schema = place({keyword: value})
                expected = meta_refusal(schema, dialect)
                if expected is None:
                    continue
                refused += 1
                assert_refused_as_meta_schema(schema, dialect, expected)
    # Every keyword here is constrained by some dialect's meta-schema.
    assert refused, keyword


def _meta_schema_tests() -> list[tuple[str, str, Any, bool]]:
    """The suite's tests whose schema is a dialect's meta-schema: their data are schemas."""
    found = []
    for folder, dialect in DIALECTS.items():
        uri = Dialect(dialect).meta_schema_uri
        for path in sorted((SUITE / "tests" / folder).rglob("*.json")):
            for case in json.loads(path.read_text()):
                schema = case["schema"]
                if isinstance(schema, dict) and schema.get("$ref", "").rstrip("#") == uri.rstrip("#"):
                    for test in case["tests"]:
                        name = f"{folder}/{path.name}::{test['description']}"
                        found.append((name, dialect, test["data"], test["valid"]))
    return found


META_TESTS = _meta_schema_tests()


def test_suite_has_meta_schema_tests() -> None:
    assert sum(not valid for *_, valid in META_TESTS) >= 4


@pytest.mark.parametrize(("name", "dialect", "data", "valid"), META_TESTS, ids=[t[0] for t in META_TESTS])
def test_suite_meta_schema_data(name: str, dialect: str, data: Any, valid: bool) -> None:
    expected = meta_refusal(data, dialect)
    assert (expected is None) == valid
    if expected is not None:
        assert_refused_as_meta_schema(data, dialect, expected)
    else:
        for policy in ("auto", "jsonschema-rs"):
            assert outcome(engine_for(policy, dialect), data) == outcome(meta_first(policy, dialect), data)  # type: ignore[arg-type]


def _suite_schemas() -> list[tuple[str, str, Any]]:
    found = []
    for folder, dialect in DIALECTS.items():
        for path in sorted((SUITE / "tests" / folder).rglob("*.json")):
            for case in json.loads(path.read_text()):
                found.append((f"{folder}/{path.name}::{case['description']}", dialect, case["schema"]))
    return found


def test_suite_schemas_compile_as_before() -> None:
    # Every schema of the suite, valid ones included: the same outcome as with the check first.
    compared = 0
    for _name, dialect, schema in _suite_schemas():
        for policy in ("auto", "jsonschema-rs"):
            assert outcome(engine_for(policy, dialect), schema) == outcome(meta_first(policy, dialect), schema), _name  # type: ignore[arg-type]
            compared += 1
    assert compared > 1000


def test_corpus_compiles_as_before() -> None:
    from benchmarks.corpus import load_corpus

    eng, before = engine_for("auto", "2020-12"), meta_first("auto", "2020-12")
    schemas = load_corpus().schemas()
    assert len(schemas) > 600
    for name, schema in schemas:
        assert outcome(eng, schema) == outcome(before, schema), name  # type: ignore[arg-type]


def test_draft4_boolean_root_is_refused_by_the_meta_schema() -> None:
    # jsonschema-rs's draft-4 build accepts what draft 4's meta-schema refuses: draft 4 keeps the check first.
    for schema in (True, {"enum": []}, {"properties": {"a": {"enum": []}}}):
        expected = meta_refusal(schema, "draft4")
        assert expected is not None
        assert_refused_as_meta_schema(schema, "draft4", expected)


def test_custom_meta_schema_is_checked_first() -> None:
    meta = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://example.com/meta"}
    schema = {"$schema": "https://example.com/meta", "type": 5}
    with pytest.raises(engine.SchemaRejected) as info:
        engine_for("auto", "2020-12").compile(schema, registry={"https://example.com/meta": meta})  # type: ignore[union-attr]
    expected = meta_refusal(schema, "2020-12")
    assert expected is not None
    got = info.value
    assert (got.reason, got.message, got.details) == ("invalid-schema", expected.message, expected.details)


# Garbage: JSON values under schema keywords, and Python values no JSON document holds.
_keys = st.one_of(st.sampled_from(KEYWORDS), st.sampled_from(["a", "", "x-y", "$schema"]), st.text(max_size=3))
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),  # JSON numbers: NaN and infinities are `_odd`
    st.sampled_from(["", "x", "string", "object", "#", "#/$defs/a", "[", "^(a+)+$", "\\b", "http://x/y", "a b"]),
)
_odd = st.sampled_from([math.nan, math.inf, ("a",), (), b"x", frozenset(), {1, 2}, 1 + 2j])


def _containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(st.lists(children, max_size=3), st.dictionaries(_keys, children, max_size=4))


garbage = st.dictionaries(_keys, st.recursive(_scalars, _containers, max_leaves=12), min_size=1, max_size=5)
odd_garbage = st.dictionaries(
    st.one_of(_keys, st.integers(0, 2)),
    st.recursive(st.one_of(_scalars, _odd), _containers, max_leaves=8),
    min_size=1,
    max_size=4,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=garbage, dialect=st.sampled_from(sorted(set(DIALECTS.values()))))
def test_garbage_refused_as_meta_schema(schema: dict[str, Any], dialect: str) -> None:
    # A `$schema` that is not a string is refused before the meta-schema is asked, as before.
    expected = meta_refusal(schema, dialect) if "$schema" not in schema else None
    if expected is not None:
        assert_refused_as_meta_schema(schema, dialect, expected)
    for policy in ("auto", "jsonschema-rs"):
        assert outcome(engine_for(policy, dialect), schema) == outcome(meta_first(policy, dialect), schema)  # type: ignore[arg-type]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=odd_garbage, dialect=st.sampled_from(sorted(set(DIALECTS.values()))))
def test_non_json_values_answer_as_before(schema: dict[Any, Any], dialect: str) -> None:
    # Some are refused by intake, some by the meta-schema, some by the build: each as before.
    for policy in POLICIES:
        eng = engine_for(policy, dialect)
        if eng is not None:
            assert outcome(eng, schema) == outcome(meta_first(policy, dialect), schema), policy


def test_non_json_value_past_the_first_error_is_refused() -> None:
    # `is_valid` stops at `$ref`'s wrong type; listing the errors then meets the bytes.
    with pytest.raises(engine.SchemaRejected) as info:
        check_meta_schema({"$ref": [b"x"]}, Dialect.DRAFT2020_12)
    assert info.value.reason == "invalid-schema"
    assert info.value.message.startswith("schema is not a JSON document")

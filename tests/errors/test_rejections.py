"""Each compile-time refusal reason, triggered by a real schema."""

from __future__ import annotations

import time

import pytest

import engine
from engine import RejectReason, SchemaRejected


@pytest.fixture(scope="module")
def eng() -> engine.Engine:
    return engine.Engine()


def rejected(eng: engine.Engine, schema: object, **kw: object) -> SchemaRejected:
    with pytest.raises(SchemaRejected) as info:
        eng.compile(schema, **kw)
    error = info.value
    assert isinstance(error, engine.EngineError)
    assert error.message and str(error) == error.message
    return error


@pytest.mark.parametrize(
    "uri",
    [
        "http://json-schema.org/draft-03/schema#",
        "https://example.com/my-dialect",
        "https://json-schema.org/draft/2021-01/schema",
        "",
    ],
)
def test_unsupported_dialect_names_the_uri(eng: engine.Engine, uri: str) -> None:
    error = rejected(eng, {"$schema": uri, "type": "object"})
    assert error.reason == RejectReason.UNSUPPORTED_DIALECT == "unsupported-dialect"
    assert repr(uri) in error.message
    assert error.details["dialect"] == uri
    assert error.location == "/$schema"


@pytest.mark.parametrize(
    ("uri", "dialect"),
    [
        ("http://json-schema.org/draft-04/schema#", "draft4"),
        ("http://json-schema.org/draft-04/schema", "draft4"),
        ("http://json-schema.org/draft-06/schema#", "draft6"),
        ("http://json-schema.org/draft-07/schema#", "draft7"),
        ("https://json-schema.org/draft-07/schema", "draft7"),
        ("https://json-schema.org/draft/2019-09/schema", "2019-09"),
        ("https://json-schema.org/draft/2020-12/schema#", "2020-12"),
        ("http://json-schema.org/draft/2020-12/schema", "2020-12"),
    ],
)
def test_declared_dialects_are_honoured(eng: engine.Engine, uri: str, dialect: str) -> None:
    compiled = eng.compile({"$schema": uri, "type": "integer"})
    assert compiled.dialect.value == dialect
    assert compiled.is_valid(3) and not compiled.is_valid("3")


def test_default_dialect_applies_without_schema_keyword() -> None:
    # draft4's exclusiveMaximum is a boolean; 2020-12's a number: the default decides which is valid.
    draft4 = engine.Engine(default_dialect="draft4")
    compiled = draft4.compile({"maximum": 3, "exclusiveMaximum": True})
    assert compiled.dialect.value == "draft4"
    assert not compiled.is_valid(3) and compiled.is_valid(2)
    error = rejected(engine.Engine(), {"maximum": 3, "exclusiveMaximum": True})
    assert error.reason == "invalid-schema"


def test_invalid_schema_carries_meta_schema_locations(eng: engine.Engine) -> None:
    error = rejected(eng, {"type": "object", "properties": {"a": {"type": "strnig"}, "b": {"minLength": -1}}})
    assert error.reason == "invalid-schema"
    locations = {e["location"] for e in error.details["errors"]}
    assert locations == {"/properties/a/type", "/properties/b/minLength"}
    assert all(e["meta_schema_location"] for e in error.details["errors"])


@pytest.mark.parametrize("schema", [None, 3, "string", [{"type": "object"}]])
def test_non_schema_documents_are_invalid(eng: engine.Engine, schema: object) -> None:
    assert rejected(eng, schema).reason == "invalid-schema"


@pytest.mark.parametrize(
    "uri",
    [
        "http://169.254.169.254/latest/meta-data/",
        "https://evil.example/schema.json",
        "http://127.0.0.1:8080/s.json#/definitions/x",
    ],
)
def test_network_refs_are_refused_not_fetched(eng: engine.Engine, uri: str) -> None:
    error = rejected(eng, {"type": "object", "properties": {"a": {"$ref": uri}}})
    assert error.reason == "remote-ref"
    assert error.details["uri"] == uri.split("#")[0]
    assert uri.split("#")[0] in error.message


@pytest.mark.parametrize(
    "schema",
    [
        {"$ref": "#/$defs/missing"},
        {"$ref": "file:///etc/passwd"},
        {"$ref": "urn:example:not-here"},
        {"properties": {"a": {"$ref": "other.json"}}},
        {"$ref": "#nowhere"},
    ],
)
def test_unresolvable_refs_are_refused_at_compile_time(eng: engine.Engine, schema: object) -> None:
    assert rejected(eng, schema).reason == "unresolvable-ref"


def test_registry_resources_resolve_and_nothing_else(eng: engine.Engine) -> None:
    registry = {"https://example.com/int.json": {"type": "integer"}}
    compiled = eng.compile({"$ref": "https://example.com/int.json"}, registry=registry)
    assert compiled.is_valid(1) and not compiled.is_valid("x")
    error = rejected(eng, {"$ref": "https://example.com/other.json"}, registry=registry)
    assert error.reason == "remote-ref"


def test_limit_exceeded_names_limit_value_and_bound() -> None:
    eng = engine.Engine(limits={"max_schema_bytes": 64})
    error = rejected(eng, b'{"type": "object", "description": "' + b"x" * 100 + b'"}')
    assert error.reason == "limit-exceeded"
    assert error.details["limit"] == "max_schema_bytes"
    assert error.details["measured"] > error.details["bound"] == 64


@pytest.mark.parametrize("pattern", ["(?=a)b", "(?<!x)y", "(a)\\1"])
def test_backtracking_patterns_are_unsafe_in_linear_mode(eng: engine.Engine, pattern: str) -> None:
    error = rejected(eng, {"type": "string", "pattern": pattern})
    assert error.reason == "unsafe-pattern"
    allowed = engine.Engine(regex="backtracking").compile({"type": "string", "pattern": pattern})
    assert allowed.backend == "jsonschema-rs"


def test_broken_pattern_is_invalid_schema(eng: engine.Engine) -> None:
    assert rejected(eng, {"type": "string", "pattern": "(unclosed"}).reason == "invalid-schema"


def test_rejections_pickle_with_their_reason(eng: engine.Engine) -> None:
    import pickle

    error = rejected(eng, {"$ref": "https://evil.example/x"})
    again = pickle.loads(pickle.dumps(error))
    assert (again.reason, again.message, again.details) == (error.reason, error.message, error.details)


def test_a_long_invalid_schema_is_refused_at_its_first_error(eng: engine.Engine) -> None:
    # jsonschema-rs makes every error of a document before yielding one, at a cost growing faster
    # than the document: 50,000 of them took over a minute. A long schema is refused at its first.
    started = time.perf_counter()
    error = rejected(eng, {"allOf": [0] * 50_000})
    assert time.perf_counter() - started < 10
    assert error.reason == "invalid-schema" and error.location == "/allOf/0"
    assert [e["location"] for e in error.details["errors"]] == ["/allOf/0"]

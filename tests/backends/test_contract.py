"""The written backend contract (engine/backends/_contract.py), checked on every backend in the
registry: a backend compiles a checked schema into a validator that honours it exactly, or refuses
with a typed reason; its validator never answers True wrongly, explains what it rejects, may decode
more strictly than the schema but never more laxly, and nothing it does fetches or writes.

The expected answers below are facts of the JSON Schema specification (each trap says which), not
the output of any backend.
"""

from __future__ import annotations

import copy
import json
import socket
import urllib.request
from functools import cache
from typing import Any

import msgspec
import pytest

import engine
from engine import Issue
from engine._dialect import Dialect, check_meta_schema
from engine.backends import BACKENDS, Backend, BackendRefused, BackendValidator, SchemaSource, load_backend
from tests.corpus import CorpusSchema


def available(name: str) -> Any:
    try:
        load_backend(name)
    except engine.BackendUnavailable as exc:
        return pytest.param(name, marks=pytest.mark.skip(reason=exc.message))
    return name


REGISTRY = [available(name) for name in BACKENDS]


@cache
def backend(name: str) -> Backend:
    return load_backend(name)()


def source(
    schema: Any, dialect: Dialect = Dialect.DRAFT2020_12, resources: dict[str, Any] | None = None
) -> SchemaSource:
    return SchemaSource(schema=schema, dialect=dialect, resources=resources or {}, config=engine.EngineConfig())


def compile_or_refusal(name: str, src: SchemaSource) -> BackendValidator | BackendRefused:
    try:
        return backend(name).compile(src)
    except BackendRefused as refusal:
        return refusal


def assert_typed_refusal(refusal: BackendRefused, name: str) -> None:
    assert refusal.reason == engine.RejectReason.UNSUPPORTED_BY_BACKEND
    assert refusal.backend == name and refusal.why
    assert refusal.details["backend"] == name
    assert name in refusal.message


PREFIX = {"prefixItems": [{"type": "integer"}], "items": False}
UNEVALUATED = {"properties": {"a": {}}, "unevaluatedProperties": False}

# (why, schema, instance, valid) under 2020-12 with formats annotated.
TRAPS: list[tuple[str, Any, Any, bool]] = [
    ("integer accepts a float with no fraction", {"type": "integer"}, 1.0, True),
    ("integer rejects a fraction", {"type": "integer"}, 1.5, False),
    ("a boolean is not an integer", {"type": "integer"}, True, False),
    ("a boolean is not a number", {"type": "number"}, False, False),
    ("integers have no size limit", {"type": "integer"}, 10**30, True),
    ("maximum compares big integers exactly", {"maximum": 10**20}, 10**20 + 1, False),
    ("ECMA-262 \\d is ASCII only", {"pattern": "^\\d+$"}, "\u0661\u0662", False),
    ("ECMA-262 \\d matches ASCII digits", {"pattern": "^\\d+$"}, "12", True),
    ("ECMA-262 $ does not match before a final newline", {"pattern": "^a$"}, "a\n", False),
    ("pattern is a search, not a full match", {"pattern": "b"}, "abc", True),
    ("format is an annotation in 2020-12", {"format": "email"}, "not an email", True),
    ("enum compares numbers by value", {"enum": [1]}, 1.0, True),
    ("false is not 0", {"const": False}, 0, False),
    ("0 is not false", {"const": 0}, False, False),
    ("maxLength counts code points", {"maxLength": 2}, "\U0001f600\U0001f600", True),
    ("maxLength rejects a longer string", {"maxLength": 2}, "abc", False),
    ("1 and 1.0 are the same item", {"uniqueItems": True}, [1, 1.0], False),
    ("1 and true are different items", {"uniqueItems": True}, [1, True], True),
    ("the false schema rejects everything", False, {}, False),
    ("the true schema accepts everything", True, [1, "x"], True),
    ("not {} rejects everything", {"not": {}}, None, False),
    ("items applies to every item", {"items": {"type": "string"}}, ["x", 1], False),
    ("prefixItems with items false caps the length", PREFIX, [1, 2], False),
    ("prefixItems with items false accepts the prefix", PREFIX, [1], True),
    ("$ref into $defs", {"$defs": {"n": {"type": "number"}}, "$ref": "#/$defs/n"}, "3", False),
    ("propertyNames applies to every name", {"propertyNames": {"maxLength": 1}}, {"ab": 1}, False),
    ("unevaluatedProperties sees properties", UNEVALUATED, {"a": 1}, True),
    ("unevaluatedProperties rejects the rest", UNEVALUATED, {"b": 1}, False),
    ("dependentRequired", {"dependentRequired": {"a": ["b"]}}, {"a": 1}, False),
    ("type applies to JSON types only", {"type": "string"}, 1, False),
]

TOOL = {
    "type": "object",
    "properties": {"path": {"type": "string", "minLength": 1}, "depth": {"type": "integer", "minimum": 0}},
    "required": ["path"],
    "additionalProperties": False,
}
TOOL_INSTANCES: list[tuple[Any, bool]] = [
    ({"path": "a"}, True),
    ({"path": "a", "depth": 2}, True),
    ({"path": "a", "depth": 2.0}, True),
    ({}, False),
    ({"path": ""}, False),
    ({"path": "a", "depth": -1}, False),
    ({"path": "a", "depth": 1.5}, False),
    ({"path": "a", "extra": 1}, False),
    ([], False),
    (None, False),
]

CASES = [(why, schema, instance, valid) for why, schema, instance, valid in TRAPS] + [
    (f"tool arguments {json.dumps(instance)}", TOOL, instance, valid) for instance, valid in TOOL_INSTANCES
]


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Backends never retrieve anything: any attempt to open a connection fails the test."""

    def refuse_connection(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"a backend tried to reach the network: {args!r}")

    monkeypatch.setattr(urllib.request, "urlopen", refuse_connection)
    monkeypatch.setattr(socket, "create_connection", refuse_connection)
    monkeypatch.setattr(socket.socket, "connect", refuse_connection)


@pytest.mark.parametrize("name", REGISTRY)
def test_registry_entry_describes_the_backend(name: str) -> None:
    cls = load_backend(name)
    assert cls.name == name
    assert isinstance(cls.dialects, frozenset) and cls.dialects
    assert all(isinstance(dialect, Dialect) for dialect in cls.dialects)
    assert isinstance(cls.explains, bool)


@pytest.mark.parametrize("name", REGISTRY)
def test_unknown_backend_is_a_clear_error(name: str) -> None:
    with pytest.raises(engine.BackendUnavailable, match="choose one of"):
        load_backend(name + "-nonexistent")


@pytest.mark.parametrize("name", REGISTRY)
@pytest.mark.parametrize("schema", [True, {}, {"type": "object"}, {"type": "object", "additionalProperties": False}])
def test_parameterless_tool_forms_compile_in_every_claimed_dialect(name: str, schema: Any) -> None:
    # The MCP forms for a tool without parameters: a backend that refuses these refuses everything.
    for dialect in load_backend(name).dialects:
        if schema is True and dialect is Dialect.DRAFT4:
            continue  # boolean schemas arrived with draft 6
        validator = backend(name).compile(source(schema, dialect))
        assert validator.is_valid({}) is True
        assert list(validator.iter_issues({})) == []
        assert validator.is_valid([]) is (schema is True or schema == {})


@pytest.mark.parametrize("name", REGISTRY)
def test_a_dialect_not_claimed_is_refused(name: str) -> None:
    cls = load_backend(name)
    missing = [dialect for dialect in Dialect if dialect not in cls.dialects]
    for dialect in missing:
        with pytest.raises(BackendRefused) as refused:
            backend(name).check_dialect(source({}, dialect))
        assert_typed_refusal(refused.value, name)
    for dialect in cls.dialects:
        backend(name).check_dialect(source({}, dialect))


@pytest.mark.parametrize("name", REGISTRY)
@pytest.mark.parametrize(("why", "schema", "instance", "valid"), CASES, ids=[case[0] for case in CASES])
def test_exact_or_refused(name: str, why: str, schema: Any, instance: Any, valid: bool) -> None:
    schema_before, instance_before = copy.deepcopy(schema), copy.deepcopy(instance)
    validator = compile_or_refusal(name, source(schema))
    if isinstance(validator, BackendRefused):
        assert_typed_refusal(validator, name)
        return
    answer = validator.is_valid(instance)
    issues = list(validator.iter_issues(instance))
    assert all(isinstance(issue, Issue) for issue in issues)
    assert all(issue.instance_path == "" or issue.instance_path.startswith("/") for issue in issues)
    assert all(issue.message for issue in issues)
    if not valid:
        assert answer is False, f"{name} answered True wrongly: {why}"
        assert issues, f"{name} rejected without an issue: {why}"
    elif validator.decode is None:
        # Without a typed decoder the validator's answer is the pipeline's: exact both ways.
        assert answer is True, f"{name} is not exact: {why}"
        assert issues == [], f"{name} accepted but reported issues: {why}"
    elif answer:
        assert issues == [], f"{name} accepted but reported issues: {why}"
    if validator.decode is not None:
        text = json.dumps(instance).encode()
        if not valid:
            with pytest.raises((msgspec.ValidationError, msgspec.DecodeError)):
                validator.decode(text)
        else:
            try:
                decoded = validator.decode(text)
            except (msgspec.ValidationError, msgspec.DecodeError):
                pass  # stricter than the schema is allowed: the pipeline re-checks
            else:
                assert decoded == instance
    # Nothing the backend did wrote into the caller's data.
    assert schema == schema_before and instance == instance_before


@pytest.mark.parametrize("name", REGISTRY)
def test_remote_refs_come_from_resources_only(name: str) -> None:
    uri = "https://example.com/schemas/name.json"
    schema = {"type": "object", "properties": {"name": {"$ref": uri}}}
    # Without the resource: rejected at compile time, or when validation reaches the `$ref`;
    # never fetched (no_network), never treated as permissive.
    with pytest.raises(engine.SchemaRejected):
        backend(name).compile(source(schema)).is_valid({"name": "x"})
    # With it: resolved from the resources handed over, and honoured.
    validator = compile_or_refusal(name, source(schema, resources={uri: {"type": "string"}}))
    if isinstance(validator, BackendRefused):
        assert_typed_refusal(validator, name)
        return
    assert validator.is_valid({"name": "x"}) is True
    assert validator.is_valid({"name": 1}) is False


@pytest.mark.parametrize("name", REGISTRY)
def test_compiles_real_tool_schemas(name: str, corpus_schemas: list[CorpusSchema]) -> None:
    # Not all: a fast path may refuse what it cannot honour exactly (msgspec takes about one in
    # seven). Refusing every real schema would make a backend useless; every refusal is typed.
    compiled = refused = 0
    for item in corpus_schemas:
        if not isinstance(item.schema, dict) or "$schema" in item.schema:
            continue
        try:
            check_meta_schema(item.schema, Dialect.DRAFT2020_12)
        except engine.SchemaRejected:
            continue  # the pipeline rejects it before any backend sees it
        outcome = compile_or_refusal(name, source(item.schema))
        if isinstance(outcome, BackendRefused):
            assert_typed_refusal(outcome, name)
            refused += 1
        else:
            compiled += 1
    assert compiled > 0, f"{name} refused all {refused} real tool schemas"

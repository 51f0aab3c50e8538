"""Each defence layer on its own.

Several layers refuse the same hostile input with the same reason (the guard and jsonschema-rs
both refuse a lookahead in ``patternProperties`` as ``unsafe-pattern``; the lowering resolves every
``$ref`` before fastjsonschema's own handlers could fetch one), so an end-to-end test passes when
one of them is gone. These tests call each layer directly, so that removing any one fails here.
"""

from __future__ import annotations

import json
import string
import urllib.request
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine import _guard
from engine._dialect import Dialect
from engine.backends import BackendRefused, SchemaSource

# Each layer refuses in milliseconds; a hang fails the test by name.
pytestmark = pytest.mark.timeout(60)

BACKTRACKING = ["(?=a)", "(?!a)", "(?<=a)b", "(?<!a)b", "(a)\\1", "(?<n>a)\\k<n>"]


def placements(pattern: str) -> list[tuple[str, dict[str, Any], str]]:
    """(name, schema, location of the refusal) with ``pattern`` as a patternProperties key."""
    pp = {"patternProperties": {pattern: {"type": "string"}}}
    return [
        ("root", {"type": "object", **pp}, "/patternProperties"),
        ("property", {"properties": {"a": pp}}, "/properties/a/patternProperties"),
        ("defs", {"$defs": {"d": pp}, "$ref": "#/$defs/d"}, "/$defs/d/patternProperties"),
        ("items", {"items": {"additionalProperties": pp}}, "/items/additionalProperties/patternProperties"),
        ("anyOf", {"anyOf": [True, pp]}, "/anyOf/1/patternProperties"),
        ("dependentSchemas", {"dependentSchemas": {"k": pp}}, "/dependentSchemas/k/patternProperties"),
    ]


# -- layer 1: the guard refuses unsafe patterns in patternProperties by itself ---------------------


@pytest.mark.parametrize("pattern", BACKTRACKING)
@pytest.mark.parametrize("where", range(6))
def test_guard_alone_refuses_backtracking_pattern_properties(pattern: str, where: int) -> None:
    name, schema, location = placements(pattern)[where]
    with pytest.raises(engine.SchemaRejected) as refused:
        _guard.inspect(schema, Dialect.DRAFT2020_12, {}, engine.EngineConfig())
    assert refused.value.reason == "unsafe-pattern", name
    assert refused.value.location == location
    assert refused.value.details["pattern"] == pattern


def test_guard_alone_refuses_them_in_registry_resources_too() -> None:
    registry: dict[str, Any] = {"https://example.com/s.json": {"patternProperties": {"(?=x)": {}}}}
    with pytest.raises(engine.SchemaRejected) as refused:
        _guard.inspect({"$ref": "https://example.com/s.json"}, Dialect.DRAFT2020_12, registry, engine.EngineConfig())
    assert refused.value.reason == "unsafe-pattern"
    assert (refused.value.location or "").startswith("https://example.com/s.json#")


def test_guard_alone_measures_pattern_property_lengths() -> None:
    config = engine.EngineConfig.load(env={}, limits={"max_pattern_length": 10})
    with pytest.raises(engine.SchemaRejected) as refused:
        _guard.inspect({"patternProperties": {"a" * 11: {}}}, Dialect.DRAFT2020_12, {}, config)
    assert refused.value.reason == "limit-exceeded" and refused.value.details["limit"] == "max_pattern_length"


def test_guard_alone_lets_them_through_in_backtracking_mode() -> None:
    # The opt-in is what allows them: the check above is the guard's, not an accident of parsing.
    config = engine.EngineConfig.load(env={}, regex="backtracking")
    report = _guard.inspect({"patternProperties": {"(?=a)": {}}}, Dialect.DRAFT2020_12, {}, config)
    assert report.measured["max_pattern_length"] == len("(?=a)")


# -- layer 2: every backend refuses them by itself, without the guard ------------------------------


def source(schema: Any, **config: Any) -> SchemaSource:
    return SchemaSource(schema=schema, dialect=Dialect.DRAFT2020_12, resources={}, config=engine.EngineConfig(**config))


def backends() -> list[Any]:
    from engine.backends._fastjsonschema import FastjsonschemaBackend
    from engine.backends._jsonschema import JsonschemaBackend
    from engine.backends._jsonschema_rs import JsonschemaRsBackend
    from engine.backends._msgspec import MsgspecBackend

    return [JsonschemaRsBackend, FastjsonschemaBackend, JsonschemaBackend, MsgspecBackend]


@pytest.mark.parametrize("pattern", ["(?=a)", "(?<=a)b", "(a)\\1"])
@pytest.mark.parametrize("backend", backends(), ids=lambda b: b.name)
def test_each_backend_alone_refuses_backtracking_pattern_properties(backend: Any, pattern: str) -> None:
    schema = {"type": "object", "patternProperties": {pattern: {"type": "string"}}}
    with pytest.raises((engine.SchemaRejected, BackendRefused)) as refused:
        backend().compile(source(schema))
    if isinstance(refused.value, BackendRefused):
        assert refused.value.why  # "cannot run exactly" / "no exact translation": declined, with a reason
    else:
        assert refused.value.reason == "unsafe-pattern"


@pytest.mark.parametrize("pattern", ["^(a+)+$", "(a|a)*c", "(x+x+)+y"])
def test_python_re_backends_alone_refuse_catastrophic_pattern_properties(pattern: str) -> None:
    # Linear in jsonschema-rs, exponential in Python re: the Python backends decline them.
    from engine.backends._fastjsonschema import FastjsonschemaBackend
    from engine.backends._jsonschema import JsonschemaBackend

    schema = {"type": "object", "patternProperties": {pattern: {}}}
    for backend in (FastjsonschemaBackend, JsonschemaBackend):
        with pytest.raises(BackendRefused, match="pattern"):
            backend().compile(source(schema))


# -- layer 3: fastjsonschema's own ref handlers refuse every scheme --------------------------------


@pytest.fixture
def no_urlopen(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    opened: list[Any] = []

    def urlopen(*args: Any, **kwargs: Any) -> Any:
        opened.append(args)
        raise AssertionError(f"urlopen called: {args!r}")

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    return opened


REMOTE_URIS = [
    "http://127.0.0.1:1/s.json",
    "https://example.com/s.json",
    "file:///etc/passwd",
    "ftp://example.com/s.json",
    "data:application/json,{}",
    "urn:example:s",
    "tag:example.com,2024:s",
    "mailto:a@example.com",
    "s.json",
]


@pytest.mark.parametrize("uri", REMOTE_URIS)
def test_fastjsonschema_handlers_alone_refuse_every_scheme(uri: str, no_urlopen: list[Any]) -> None:
    # fastjsonschema itself, given a raw remote $ref and the engine's handlers (no lowering).
    import fastjsonschema

    from engine.backends._fastjsonschema import DENY_ALL_HANDLERS

    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"a": {"$ref": uri}}}
    with pytest.raises(fastjsonschema.JsonSchemaDefinitionException, match="disabled"):
        fastjsonschema.compile_to_code(schema, handlers=DENY_ALL_HANDLERS, use_default=False, use_formats=False)
    assert no_urlopen == []


@pytest.mark.parametrize("uri", REMOTE_URIS)
def test_fastjsonschema_backend_refuses_a_remote_ref_the_lowering_let_through(
    uri: str, no_urlopen: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # As if the lowering had a bug and passed a remote $ref on: the backend's handlers still refuse.
    from engine.backends._fastjsonschema import FastjsonschemaBackend
    from engine.backends._fastjsonschema_lowering import DRAFT7_URI, Lowering

    monkeypatch.setattr(Lowering, "lower", lambda self: {"$schema": DRAFT7_URI, "$ref": uri})
    with pytest.raises(BackendRefused, match="disabled"):
        FastjsonschemaBackend().compile(source({}))
    assert no_urlopen == []


# -- layer 4: an elicitation answer keeps the form's fields only, on every path ----------------------

FORM = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 20},
        "age": {"type": "integer", "minimum": 0},
        "email": {"type": "string", "format": "email"},
    },
    "required": ["name"],
}
TYPED_FORM = {"type": "object", "properties": {"name": {"type": "string"}, "subscribe": {"type": "boolean"}}}


def answers(form: engine.ElicitationForm, content: dict[str, Any]) -> list[engine.ElicitResult]:
    """The same answer through every entry: a dict, JSON bytes and JSON text."""
    result = {"action": "accept", "content": content}
    text = json.dumps(result)
    return [form.decode_result(result), form.decode_result(text.encode()), form.decode_result(text)]


@pytest.mark.parametrize("schema", [FORM, TYPED_FORM], ids=["with-formats", "typed"])
def test_unrequested_fields_are_dropped_from_a_dict_answer(schema: dict[str, Any]) -> None:
    form = engine.compile_elicitation(schema)
    content = {"name": "Ada", "isAdmin": True, "__proto__": {"polluted": 1}, "": "x", "nested": {"a": [1]}}
    for answer in answers(form, content):
        assert answer.content == {"name": "Ada"}, answer


names = st.text(alphabet=string.ascii_letters + "_$-. \u00e9", min_size=0, max_size=12)
values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(2**40), 2**40), st.text(max_size=8)),
    lambda c: st.one_of(st.lists(c, max_size=3), st.dictionaries(st.text(max_size=4), c, max_size=3)),
    max_leaves=6,
)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(extra=st.dictionaries(names.filter(lambda n: n not in FORM["properties"]), values, min_size=1, max_size=5))
def test_no_unrequested_field_survives_any_entry(extra: dict[str, Any]) -> None:
    form = engine.compile_elicitation(FORM)
    content = {"name": "Ada", "age": 3, **extra}
    for answer in answers(form, content):
        assert answer.content == {"name": "Ada", "age": 3}, (extra, answer)

"""Validating instances: answers, issues, decoding."""

from __future__ import annotations

import pytest

import engine
from engine import DecodeError, ValidationFailed

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "tags": {"type": "array", "items": {"type": "string"}},
        "n/m": {"type": "integer"},
    },
    "required": ["name"],
    "additionalProperties": False,
}


@pytest.fixture(scope="module")
def compiled() -> engine.CompiledSchema:
    return engine.Engine().compile(SCHEMA)


def test_all_issues_with_pointers(compiled: engine.CompiledSchema) -> None:
    with pytest.raises(ValidationFailed) as info:
        compiled.validate({"name": "", "tags": ["a", 2, None], "n/m": 1.5, "extra": 1})
    found = {(i.instance_path, i.keyword_location, i.keyword) for i in info.value.issues}
    assert found == {
        ("/name", "/properties/name/minLength", "minLength"),
        ("/tags/1", "/properties/tags/items/type", "type"),
        ("/tags/2", "/properties/tags/items/type", "type"),
        ("/n~1m", "/properties/n~1m/type", "type"),
        ("", "/additionalProperties", "additionalProperties"),
    }
    assert not info.value.truncated
    assert info.value.reason == "invalid-instance"
    assert "issue" in str(info.value)
    assert info.value.to_dict()["issues"][0]["message"]


def test_issue_cap_marks_truncation() -> None:
    compiled = engine.Engine(limits={"max_issues": 3}).compile({"type": "array", "items": {"type": "string"}})
    with pytest.raises(ValidationFailed) as info:
        compiled.validate(list(range(10)))
    assert len(info.value.issues) == 3 and info.value.truncated
    assert compiled.issues(["a"]) == []
    assert len(compiled.issues([1])) == 1


def test_refs_keyword_location_goes_through_ref() -> None:
    compiled = engine.Engine().compile({"$defs": {"pos": {"minimum": 1}}, "items": {"$ref": "#/$defs/pos"}})
    (issue,) = compiled.issues([1, 0])
    assert issue.instance_path == "/1"
    assert issue.keyword_location == "/items/$ref/minimum"


def test_decode_returns_the_value(compiled: engine.CompiledSchema) -> None:
    assert compiled.decode(b'{"name": "x", "tags": ["a"]}') == {"name": "x", "tags": ["a"]}
    assert compiled.decode('{"name": "\\u00e9"}') == {"name": "é"}
    with pytest.raises(ValidationFailed):
        compiled.decode(b'{"name": 3}')


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b'{"name": ', "malformed-json"),
        (b"", "malformed-json"),
        (b'{"name": "x"} trailing', "malformed-json"),
        (b'{"name": "\xff"}', "invalid-utf8"),
        (b'{"name": NaN}', "non-finite-number"),
        (b'{"name": 1e999}', "number-out-of-range"),
        (b"[" * 5000 + b"]" * 5000, "too-deep"),
    ],
)
def test_decode_errors_are_typed(compiled: engine.CompiledSchema, data: bytes, reason: str) -> None:
    with pytest.raises(DecodeError) as info:
        compiled.decode(data)
    assert info.value.reason == reason
    assert isinstance(info.value, engine.EngineError)


def test_decode_size_cap() -> None:
    compiled = engine.Engine(limits={"max_instance_bytes": 10}).compile({})
    with pytest.raises(DecodeError) as info:
        compiled.decode(b'"' + b"x" * 20 + b'"')
    assert info.value.reason == "too-large"


def test_integer_accepts_integral_floats() -> None:
    compiled = engine.Engine().compile({"type": "integer"})
    assert compiled.is_valid(1.0) and compiled.decode(b"1.0") == 1.0
    assert not compiled.is_valid(1.5)
    assert compiled.is_valid(2**80)


def test_formats_follow_configuration() -> None:
    schema = {"type": "string", "format": "date-time"}
    assert engine.Engine().compile(schema).is_valid("yesterday")
    strict = engine.Engine(formats="assert").compile(schema)
    assert not strict.is_valid("yesterday") and strict.is_valid("2026-11-29T12:00:00Z")


def test_module_level_compile_uses_default_engine() -> None:
    compiled = engine.compile({"type": "string"})
    assert compiled.backend and compiled.dialect is engine.Dialect.DRAFT2020_12
    assert engine.compile({"type": "string"}) is compiled


@pytest.mark.parametrize("instance", [object(), {1: 2}, b"bytes", {"a": {1, 2j}}])
def test_python_objects_that_are_not_json_are_typed_errors(instance: object) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "array"}}}
    with pytest.raises(DecodeError) as info:
        engine.Engine().compile(schema).validate(instance)
    assert info.value.reason == "not-json"
    tools = engine.compile_tools([{"name": "t", "inputSchema": schema}], engine=engine.Engine())
    if isinstance(instance, dict):
        with pytest.raises(DecodeError):
            tools.validate_arguments("t", instance)


def test_text_with_lone_surrogates_is_invalid_utf8() -> None:
    with pytest.raises(DecodeError) as info:
        engine.Engine().compile({}).decode('"\ud800"')
    assert info.value.reason == "invalid-utf8"


def test_schema_with_python_only_values_is_invalid_schema() -> None:
    with pytest.raises(engine.SchemaRejected) as info:
        engine.Engine().compile({"type": {"string"}})
    assert info.value.reason == "invalid-schema"


# -- Python objects get the bounds of bytes ----------------------------------------------------


def _shared(levels: int) -> list[object]:
    value: list[object] = []
    for _ in range(levels):
        value = [value, value]  # 2**levels values in `levels` objects
    return value


def _nested(depth: int) -> object:
    value: object = 1
    for _ in range(depth):
        value = [value]
    return value


RECURSIVE = {"$defs": {"node": {"type": "array", "items": {"$ref": "#/$defs/node"}}}, "$ref": "#/$defs/node"}


@pytest.mark.parametrize("schema", [{"const": 1}, RECURSIVE, {"uniqueItems": True}, {}])
def test_shared_objects_are_bounded_on_every_entry_point(schema: object) -> None:
    """`x = [x, x]` forty times is 2**40 values: refused as too large before any backend sees it
    (jsonschema-rs aborted the process on `const`, and walked it for ever on a recursive schema)."""
    compiled = engine.Engine().compile(schema)
    bomb = _shared(40)
    for call in (compiled.is_valid, compiled.validate, compiled.issues, compiled.checked):
        with pytest.raises(DecodeError) as error:
            call(bomb)
        assert error.value.reason == "too-large"
    assert compiled.is_valid(_shared(3)) is (schema != {"const": 1} and schema != {"uniqueItems": True})


@pytest.mark.parametrize("depth", [257, 10_000])
@pytest.mark.parametrize("schema", [{"uniqueItems": True}, {"type": "array"}, {"const": 1}, RECURSIVE])
def test_too_deep_everywhere(schema: object, depth: int) -> None:
    compiled = engine.Engine().compile(schema)
    value = _nested(depth)
    data = b"[" * depth + b"1" + b"]" * depth
    for call in (compiled.is_valid, compiled.validate, compiled.checked, compiled.decode):
        with pytest.raises(DecodeError) as error:
            call(data if call == compiled.decode else value)
        assert error.value.reason == "too-deep", call


@pytest.mark.parametrize(
    ("value", "data", "reason"),
    [
        ({"unchecked": float("nan")}, b'{"unchecked": NaN}', "non-finite-number"),
        ({"unchecked": [1, float("-inf")]}, b'{"unchecked": [1, -Infinity]}', "non-finite-number"),
        ({"unchecked": "\ud800"}, b'{"unchecked": "\\ud800"}', "invalid-utf8"),
        ({"unchecked": ["a", {"\udc00": 1}]}, b'{"unchecked": ["a", {"\\udc00": 1}]}', "invalid-utf8"),
        ({"unchecked": {1, 2}}, None, "not-json"),
        ({"unchecked": b"x"}, None, "not-json"),
        ({"unchecked": [(1, 2)]}, None, "not-json"),
        ({1: "key"}, None, "not-json"),
        ({"a": {None: 1}}, None, "not-json"),
    ],
)
@pytest.mark.parametrize("backend", ["auto", "jsonschema-rs", "fastjsonschema", "jsonschema"])
def test_a_value_and_its_bytes_get_the_same_answer(
    value: object, data: bytes | None, reason: str, backend: str
) -> None:
    """Values in places the schema does not check are held to JSON all the same."""
    schema = {"type": "object", "properties": {"name": {"type": "string"}}}
    compiled = engine.Engine(engine.EngineConfig(backend=backend)).compile(schema)  # type: ignore[arg-type]
    for call in (compiled.is_valid, compiled.validate):
        with pytest.raises(DecodeError) as error:
            call(value)
        assert error.value.reason == reason
    if data is not None:
        with pytest.raises(DecodeError) as error:
            compiled.decode(data)
        assert error.value.reason == reason
    tools = engine.compile_tools([{"name": "t", "inputSchema": schema}])
    with pytest.raises(DecodeError) as error:
        tools.validate_arguments("t", value)
    assert error.value.reason == reason
    if data is not None:
        with pytest.raises(DecodeError) as error:
            tools.validate_arguments("t", data)
        assert error.value.reason == reason


def test_mappings_that_are_not_dicts_are_not_json() -> None:
    from types import MappingProxyType

    compiled = engine.Engine().compile({"type": "object"})
    with pytest.raises(DecodeError) as error:
        compiled.validate(MappingProxyType({"a": 1}))
    assert error.value.reason == "not-json"
    assert compiled.is_valid({"a": 1, "b": [None, True, 1.5, "é"]})


@pytest.mark.parametrize("backend", ["auto", "jsonschema-rs", "msgspec"])
def test_a_compiled_schema_is_freed_without_the_garbage_collector(backend: str) -> None:
    # No reference cycle through a compiled schema: a cold compile loop otherwise leaves every
    # compiled schema (and its native validator) to the collector. Once used, it is still freed
    # on the general path; a msgspec reader builds Struct classes, which are cycles of their own.
    import gc

    eng = engine.Engine(backend=backend, cache_size=0)  # type: ignore[arg-type]
    eng.compile(SCHEMA).decode(b'{"name": "a"}')  # modules imported on first use are not garbage
    gc.collect()
    gc.disable()
    try:
        unused = eng.compile(SCHEMA)
        del unused
        assert gc.collect() == 0
        used = engine.Engine(backend="jsonschema-rs", cache_size=0).compile(SCHEMA)
        assert used.decode(b'{"name": "a"}') == {"name": "a"}
        assert used.is_valid({"name": "a"})
        for bad in ({"name": ""}, b'{"name": ""}'):
            try:
                used.decode(bad) if isinstance(bad, bytes) else used.validate(bad)
            except ValidationFailed:
                pass
            else:  # pragma: no cover - the instance is invalid
                raise AssertionError("accepted an invalid instance")
        assert used.issues({"name": 1})
        del used
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_the_checks_and_the_reader_are_bound_on_first_use_and_kept() -> None:
    compiled = engine.Engine(cache_size=0).compile(SCHEMA)
    is_valid, checked, decode = compiled.is_valid, compiled.checked, compiled.decode
    assert compiled.is_valid is is_valid and compiled.checked is checked and compiled.decode is decode
    typed = compiled.decode_typed  # the reader itself, bound when first asked for
    assert compiled.decode_typed is typed and type(typed).__name__ == "function"
    assert typed(b'{"name": "a"}').f0 == "a"
    with pytest.raises(ValidationFailed):
        typed(b'{"name": ""}')
    assert is_valid({"name": "a"}) and not is_valid({"name": ""})
    assert checked({"name": "a"}) == {"name": "a"}
    with pytest.raises(ValidationFailed):
        checked({"name": ""})
    assert decode(b'{"name": "a"}') == {"name": "a"}
    with pytest.raises(AttributeError):
        compiled.no_such_attribute  # noqa: B018 - the lookup is the test


MALFORMED = [
    b'{"a": "x", "b": ',
    b'{"a": "\xff"}',
    b'{"a": 1e999}',
    b'{"a": NaN}',
    b'{"a": -Infinity}',
    b'{"a": "\\ud800"}',
    b'{"a": "x"} trailing',
    b"[" * 300 + b"]" * 300,
    b"",
]


@pytest.mark.parametrize("padding", [0, 600], ids=["short", "long"])
@pytest.mark.parametrize("data", MALFORMED, ids=lambda d: repr(d[:24]))
@pytest.mark.parametrize("backend", ["auto", "jsonschema-rs"])
def test_a_refused_parse_is_named_as_the_bounded_parse_names_it(data: bytes, padding: int, backend: str) -> None:
    """The readers name a document the plain parse refused from that parse's error, without
    parsing it again: the reason and message of the bounded parse itself, short and long."""
    schema = {"type": "object", "properties": {"a": {"type": "string"}, "pad": {"type": "string"}}}
    if padding and data.startswith(b"{"):
        data = b'{"pad": "' + b" " * padding + b'", ' + data[1:]
    limits = engine.Limits(max_instance_depth=64)
    eng = engine.Engine(engine.EngineConfig(backend=backend, limits=limits))  # type: ignore[arg-type]
    with pytest.raises(DecodeError) as expected:
        engine._decode.decode_json(data, max_bytes=limits.max_instance_bytes, max_depth=64)
    tools = engine.compile_tools([{"name": "t", "inputSchema": schema}], engine=eng)
    for read in (eng.compile(schema).decode, lambda d: tools.validate_arguments("t", d)):
        for _ in range(3):
            with pytest.raises(DecodeError) as refused:
                read(data)
            assert (refused.value.reason, refused.value.message) == (expected.value.reason, expected.value.message)

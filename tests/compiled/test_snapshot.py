"""A compiled schema is the schema as it was compiled: the caller changing their object afterwards
(in place, at any depth) changes nothing it answers. The work a compile defers (the msgspec
decision and translation, made on the first document; ``CompiledSchema.schema``) reads a private
copy made from a snapshot taken at compile time, never the caller's object."""

from __future__ import annotations

import copy
import json
import marshal
from collections import OrderedDict
from typing import Any

import msgspec
import pytest

import engine
from engine import ValidationFailed

ORIGINAL: dict[str, Any] = {
    "type": "object",
    "properties": {"n": {"type": "integer"}, "s": {"type": "string"}, "o": {"type": "object", "properties": {}}},
    "required": ["n"],
}


def mutate(schema: dict[str, Any]) -> None:
    """Everything a caller reusing their dict might do: types, order, requirements, nesting."""
    properties = schema["properties"]
    properties["n"]["type"] = "string"
    properties["s"] = {"type": "integer"}
    properties["o"]["properties"]["k"] = {"type": "null"}
    properties["o"]["additionalProperties"] = False
    schema["required"].append("s")
    schema["properties"] = {"s": properties.pop("s"), **properties}  # reordered
    schema["additionalProperties"] = False


def answers(compiled: engine.CompiledSchema) -> list[Any]:
    out: list[Any] = []
    for data in (b'{"n":1}', b'{"n":"x"}', b'{"n":1,"s":"x","o":{"k":1}}', b'{"n":1,"s":2}', b'{"n":1,"z":1}', b"{}"):
        for read in (compiled.decode, compiled.decode_typed):
            try:
                out.append(msgspec.to_builtins(read(data)))
            except ValidationFailed as exc:
                out.append([(issue.instance_path, issue.keyword_location) for issue in exc.issues])
        out.append(compiled.is_valid(msgspec.json.decode(data)))
    return out


@pytest.mark.parametrize("backend", ["auto", "msgspec", "jsonschema-rs"])
@pytest.mark.parametrize("cache_size", [0, 16])
def test_changing_the_schema_after_compile_changes_nothing(backend: str, cache_size: int) -> None:
    fresh = engine.Engine(backend=backend, cache_size=0).compile(copy.deepcopy(ORIGINAL))
    expected = answers(fresh)
    schema = copy.deepcopy(ORIGINAL)
    eng = engine.Engine(backend=backend, cache_size=cache_size)
    compiled = eng.compile(schema)
    mutate(schema)
    assert compiled.schema == ORIGINAL
    assert list(compiled.schema["properties"]) == ["n", "s", "o"]
    assert answers(compiled) == expected
    assert compiled.backend == fresh.backend and compiled.notes == fresh.notes
    if cache_size:
        assert eng.compile(copy.deepcopy(ORIGINAL)) is compiled  # an equal copy of the original
        assert eng.compile(schema) is not compiled  # the changed schema is compiled again
    if compiled.backend == "msgspec":  # the typed value keeps the original property order: `n` first
        assert compiled.decode_typed(b'{"n":1,"s":"x"}').f0 == 1


def test_changing_the_schema_after_the_first_decode_changes_nothing() -> None:
    schema = copy.deepcopy(ORIGINAL)
    compiled = engine.Engine(cache_size=0).compile(schema)
    compiled.decode(b'{"n":1}')
    mutate(schema)
    assert answers(compiled) == answers(engine.Engine(cache_size=0).compile(copy.deepcopy(ORIGINAL)))


def test_the_schema_attribute_is_a_private_copy() -> None:
    schema = copy.deepcopy(ORIGINAL)
    compiled = engine.Engine(cache_size=0).compile(schema)
    assert compiled.schema == schema and compiled.schema is not schema
    given = compiled.schema
    given["properties"]["n"]["type"] = "string"  # changing a copy changes nothing either
    with pytest.raises(ValidationFailed):
        compiled.decode(b'{"n":"x"}')
    # Nor what the next caller sees: the cache hands one compiled schema to every caller of an
    # equal schema, and each access makes its own copy.
    assert compiled.schema == ORIGINAL and compiled.schema is not compiled.schema
    shared = engine.Engine(cache_size=16)
    first = shared.compile(copy.deepcopy(ORIGINAL))
    first.schema["type"] = "array"
    assert shared.compile(copy.deepcopy(ORIGINAL)) is first and first.schema == ORIGINAL


def test_a_mapping_that_is_not_a_dict_is_copied_as_plain_json() -> None:
    schema = OrderedDict(type="object", properties=OrderedDict(n={"type": "integer"}, s={"type": "string"}))
    compiled = engine.Engine(cache_size=0).compile(schema)
    schema["properties"]["n"]["type"] = "string"
    assert compiled.schema == {"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}}}
    with pytest.raises(ValidationFailed):
        compiled.decode(b'{"n":"x"}')
    assert compiled.decode_typed(b'{"n":1,"s":"x"}').f0 == 1


def test_one_snapshot_per_compile_and_none_to_take_with_the_cache_on_or_for_bytes() -> None:
    # The compiled schema and the deferred translation share one snapshot; with the cache on it is
    # the serialisation the cache took, and a schema given as bytes is its bytes, parsed again.
    compiled = engine.Engine(cache_size=0).compile(copy.deepcopy(ORIGINAL))
    assert compiled._snapshot is compiled._typed._thaw  # noqa: SLF001 - the shared snapshot
    cached = engine.Engine().compile(copy.deepcopy(ORIGINAL))
    assert cached._snapshot is not None and cached._snapshot.func is marshal.loads  # noqa: SLF001
    data = json.dumps(ORIGINAL).encode()
    parsed = engine.Engine(cache_size=0).compile(data)
    assert parsed._snapshot is not None and parsed._snapshot.args == (data,)  # noqa: SLF001
    assert parsed.schema == ORIGINAL


@pytest.mark.parametrize("form", ["bytes", "text", "bytearray", "mapping"])
@pytest.mark.parametrize("cache_size", [0, 16])
def test_changing_the_schema_attribute_of_a_parsed_or_copied_schema_changes_nothing(form: str, cache_size: int) -> None:
    # The document parsed (or copied) at compile time is not handed out: changing what
    # `schema` gives, before the first decode makes the msgspec translation, changes no answer
    # (and with the cache on, none of the next caller's either).
    data = json.dumps(ORIGINAL).encode()
    given: Any = {
        "bytes": data,
        "text": data.decode(),
        "bytearray": bytearray(data),
        "mapping": OrderedDict(copy.deepcopy(ORIGINAL)),
    }[form]
    expected = answers(engine.Engine(cache_size=0).compile(copy.deepcopy(ORIGINAL)))
    eng = engine.Engine(cache_size=cache_size)
    compiled = eng.compile(given)
    mutate(compiled.schema)
    if isinstance(given, bytearray):
        given[:] = b" " * len(given)
    assert answers(compiled) == expected
    if cache_size and form != "bytearray":
        assert answers(eng.compile(given)) == expected  # the same compiled schema, from the cache


@pytest.mark.parametrize("backend", ["jsonschema", "fastjsonschema", "jsonschema-rs", "auto"])
def test_every_backend_and_explanation_reads_the_schema_as_compiled(backend: str) -> None:
    schema: dict[str, Any] = {"type": "object", "properties": {"n": {"type": "integer"}}}
    resource: dict[str, Any] = {"type": "integer"}
    try:
        eng = engine.Engine(cache_size=0, backend=backend)
    except engine.BackendUnavailable:
        pytest.skip(f"{backend} is not installed")
    compiled = eng.compile(schema)
    referring = eng.compile({"$ref": "urn:n"}, registry={"urn:n": resource})
    schema["properties"]["n"]["type"] = "string"
    resource["type"] = "string"
    for instance in ({"n": "x"}, {"n": 1.5}):
        assert not compiled.is_valid(instance)
        with pytest.raises(ValidationFailed) as failure:
            compiled.validate(instance)
        assert failure.value.issues[0].instance_path == "/n"
    assert compiled.is_valid({"n": 1}) and compiled.decode(b'{"n": 1}') == {"n": 1}
    assert referring.is_valid(1) and not referring.is_valid("x")

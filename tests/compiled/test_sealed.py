"""Sealed schemas: every object names all its properties and every value is typed, so a valid
instance nests no deeper than the schema's msgspec type. A document the typed read does not take
is parsed and checked once on the general path, its depth proven by its validity; these tests hold
that claim to the official suite and the corpus, and check that a document too deep is still
refused as such."""

from __future__ import annotations

import json
from typing import Any

import jsonschema_rs
import msgspec
import pytest

import engine
from engine._decode import nesting
from tests.conformance.suite import DIALECTS, iter_tests
from tests.corpus import corpus

AUTO = engine.Engine(engine.EngineConfig(backend="auto", cache_size=0))
PADDING = b" " * 600  # past the length under which a document cannot nest beyond the bound


def sealed_depth(compiled: engine.CompiledSchema) -> int | None:
    """The type depth when ``compiled`` reads its documents sealed, else ``None``."""
    if compiled.backend != "msgspec":
        return None
    plain = compiled._typed.plain_reader()  # noqa: SLF001 - the backend's Struct reader
    translation = compiled._typed.translation  # noqa: SLF001 - what decides the sealed general path
    if plain is None or plain.depth is None or translation.open_at is not None:
        return None
    return int(plain.depth)


def _suite_instances() -> dict[str, tuple[Any, list[Any]]]:
    """Suite schema (as JSON text) -> (schema, its instances), over every dialect."""
    cases: dict[str, tuple[Any, list[Any]]] = {}
    for folder in DIALECTS:
        for test in iter_tests(folder):
            if not isinstance(test.schema, dict):
                continue
            key = json.dumps(test.schema, sort_keys=True)
            cases.setdefault(key, (test.schema, []))[1].append(test.data)
    return cases


def _check_sealed(schema: Any, instances: list[Any]) -> bool:
    try:
        compiled = AUTO.compile(schema)
    except engine.SchemaRejected:
        return False
    depth = sealed_depth(compiled)
    if depth is None:
        return False
    rs = jsonschema_rs.validator_for(schema, validate_formats=False)
    for instance in instances:
        data = msgspec.json.encode(instance)
        parsed = msgspec.json.decode(data)
        valid = rs.is_valid(parsed)
        if valid:
            assert nesting(parsed, 1000) <= depth, (schema, instance)
        for document in (data, data + PADDING):
            if valid:
                value = compiled.decode(document)
                assert value == parsed and json.dumps(value) == json.dumps(parsed)
            else:
                with pytest.raises(engine.ValidationFailed):
                    compiled.decode(document)
    return True


def test_valid_instances_of_sealed_suite_schemas_nest_within_the_type() -> None:
    sealed = sum(_check_sealed(schema, instances) for schema, instances in _suite_instances().values())
    assert sealed > 80, sealed  # the claim is tested on many schemas, not a handful


def test_valid_instances_of_sealed_corpus_schemas_nest_within_the_type() -> None:
    sealed = 0
    for case in corpus():
        if isinstance(case.schema, dict):
            instances = [i for i in case.instances if isinstance(i, (dict, list))]
            sealed += _check_sealed(case.schema, instances)
    assert sealed > 10, sealed


_RECORDS = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {"id": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}}},
        "required": ["id"],
        "additionalProperties": False,
    },
}
# The same with a `pattern`, which the general backend checks (natively) on the parsed value.
_PATTERNED = json.loads(json.dumps(_RECORDS).replace('{"type": "string"}', '{"type": "string", "pattern": "^[a-z]+$"}'))
_DEEP = b"[" * 12 + b"]" * 12


@pytest.mark.parametrize("schema", [_RECORDS, _PATTERNED], ids=["typed", "patterned"])
@pytest.mark.parametrize("padding", [b"", PADDING])
@pytest.mark.parametrize(
    "document",
    [
        b'[{"id": ' + _DEEP + b"}]",  # under a property typed integer
        b'[{"id": 1, "zz": ' + _DEEP + b"}]",  # under a property the schema forbids
        b'[{"id": 1, "tags": [' + _DEEP + b"]}]",  # in an array of strings
        b'[{"id": 1}, ' + _DEEP + b"]",  # an item that is not an object
        _DEEP,
    ],
)
def test_a_document_too_deep_for_a_sealed_schema_is_refused_as_too_deep(
    schema: Any, document: bytes, padding: bytes
) -> None:
    limits = engine.Limits(max_instance_depth=8)
    shallow = engine.Engine(engine.EngineConfig(backend="auto", cache_size=0, limits=limits))
    compiled = shallow.compile(schema)
    assert sealed_depth(compiled) == 3
    with pytest.raises(engine.DecodeError) as caught:
        compiled.decode(document + padding)
    assert caught.value.reason is engine.DecodeReason.TOO_DEEP
    fits = b'[{"id": 1, "tags": ["a"]}, {"id": 2}]' + padding
    assert compiled.decode(fits) == [{"id": 1, "tags": ["a"]}, {"id": 2}]
    with pytest.raises(engine.ValidationFailed):
        compiled.decode(b'[{"id": 1, "tags": [[]]}]' + padding)

"""The member count of the TypedDicts' reader (see ``engine._readers.counted_then_parsed``),
written out as one function for types whose objects hold objects: it must count every member of
every object in a decoded value, as the composed counters do, or a document whose skipped members
its colons would show goes unnoticed. Held here to the members of the decoded values themselves,
on documents drawn from each schema with unnamed members added at every level (the TypedDicts
skip them), and to the composed counters where the type is too deep to write out."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.backends._msgspec_values import _GENERATED_COUNTER, _facts

_OBJECT_OF = {"type": "object", "properties": {"k": {"type": "string"}, "n": {"type": "integer"}}}

SCHEMAS: dict[str, Any] = {
    "records with objects": {
        "type": "object",
        "properties": {
            "repo": {"type": "string"},
            "issues": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer"},
                        "owner": _OBJECT_OF,
                        "labels": {"type": "array", "items": _OBJECT_OF},
                        "nested": {"type": "array", "items": {"type": "array", "items": _OBJECT_OF}},
                    },
                    "required": ["id"],
                },
            },
        },
    },
    "nullable and union": {
        "type": "object",
        "properties": {
            "maybe": {"type": ["object", "null"], "properties": {"inner": _OBJECT_OF}},
            "either": {"anyOf": [{"type": "array", "items": _OBJECT_OF}, _OBJECT_OF, {"type": "string"}]},
        },
    },
    "maps": {
        "type": "object",
        "properties": {
            "by_name": {"type": "object", "additionalProperties": _OBJECT_OF},
            "deep": {"type": "object", "additionalProperties": {"type": "object", "additionalProperties": _OBJECT_OF}},
            "lists": {"type": "object", "additionalProperties": {"type": "array", "items": _OBJECT_OF}},
        },
    },
    "shared definition": {
        "type": "object",
        "$defs": {"pair": {"type": "object", "properties": {"left": _OBJECT_OF, "right": _OBJECT_OF}}},
        "properties": {"a": {"$ref": "#/$defs/pair"}, "b": {"type": "array", "items": {"$ref": "#/$defs/pair"}}},
    },
}


def _deep(levels: int) -> Any:
    schema: Any = _OBJECT_OF
    for _ in range(levels):
        schema = {"type": "object", "properties": {"o": schema, "s": {"type": "string"}}}
    return schema


def _shared(levels: int) -> Any:
    """Each level's object holding the one below twice: written out, 2**levels times."""
    defs: dict[str, Any] = {"l0": _OBJECT_OF}
    for level in range(1, levels + 1):
        below = {"$ref": f"#/$defs/l{level - 1}"}
        defs[f"l{level}"] = {"type": "object", "properties": {"a": below, "b": {"type": "array", "items": below}}}
    return {"type": "object", "$defs": defs, "properties": {"root": {"$ref": f"#/$defs/l{levels}"}}}


FALLBACK = {"too deep to write out": _deep(20), "too large to write out": _shared(7)}


def _reader(schema: Any) -> tuple[Any, Any, Any]:
    compiled = engine.Engine(cache_size=0).compile(schema)
    assert compiled.backend == "msgspec"
    decode, _, count = compiled._typed.dicts_reader()  # noqa: SLF001 - the reader's own counter
    kind = compiled._typed.translation.build("dicts")  # noqa: SLF001
    return decode, count, _facts(kind, {})[1]


def _members(value: Any) -> int:
    if type(value) is dict:
        return len(value) + sum(map(_members, value.values()))
    if type(value) is list:
        return sum(map(_members, value))
    return 0


SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=3))
_SCALAR_OF = {"string": st.text(max_size=3), "integer": st.integers(-5, 5), "null": st.none()}


def _draw(data: st.DataObject, schema: Any, root: Any, depth: int = 0) -> Any:
    """A value the schema's shape suggests, often not one it admits (the decoder refuses those),
    with unnamed members at every object."""
    if "$ref" in schema:
        return _draw(data, root["$defs"][schema["$ref"].rsplit("/", 1)[1]], root, depth)
    if "anyOf" in schema:
        return _draw(data, data.draw(st.sampled_from(schema["anyOf"])), root, depth)
    kinds = schema.get("type", "string")
    kind = data.draw(st.sampled_from(kinds)) if isinstance(kinds, list) else kinds
    if depth > 6 or kind not in ("object", "array"):
        return data.draw(_SCALAR_OF.get(kind, SCALARS))
    if kind == "array":
        return [_draw(data, schema["items"], root, depth + 1) for _ in range(data.draw(st.integers(0, 3)))]
    value: dict[str, Any] = {}
    names = list(schema.get("properties", {}))
    chosen = data.draw(st.lists(st.sampled_from(names), unique=True)) if names else []
    for name in [*schema.get("required", []), *chosen]:
        value[name] = _draw(data, schema["properties"][name], root, depth + 1)
    extra = schema.get("additionalProperties")
    for index in range(data.draw(st.integers(0, 2))):
        if isinstance(extra, dict):
            value[f"m{index}"] = _draw(data, extra, root, depth + 1)
        else:  # unnamed: skipped by the TypedDicts, a colon of its own in the document
            value[f"zz{index}"] = data.draw(st.one_of(SCALARS, st.just({"x": 1}), st.just([{"y": [1]}])))
    return value


def test_types_whose_objects_hold_objects_get_a_written_counter() -> None:
    for schema in SCHEMAS.values():
        _, count, composed = _reader(schema)
        assert count.__code__.co_filename == _GENERATED_COUNTER
        assert composed is not count
    for schema in FALLBACK.values():
        _, count, _ = _reader(schema)
        assert count.__code__.co_filename != _GENERATED_COUNTER


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_count_is_every_member_of_the_decoded_value(data: st.DataObject) -> None:
    for name, schema in {**SCHEMAS, **FALLBACK}.items():
        decode, count, composed = _reader_of[name]
        document = json.dumps(_draw(data, schema, schema)).encode()
        try:
            value = decode(document)
        except Exception:  # noqa: BLE001, S112 - a value the schema's types refuse: nothing decoded to count
            continue
        assert count(value) == composed(value) == _members(value), (name, document)


_reader_of = {name: _reader(schema) for name, schema in {**SCHEMAS, **FALLBACK}.items()}

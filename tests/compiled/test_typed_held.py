"""``decode_typed`` reads through Structs that ignore the properties a schema does not name: msgspec
skips such a member without reading its bytes as JSON (invalid UTF-8, a number out of range pass).
These tests hold it to ``decode`` on the same bytes: for every corpus schema that translates, with
unnamed members holding what no JSON parser accepts, at the root and in every object below it
(in arrays, in typed and untyped values), ``decode_typed`` raises exactly when ``decode`` raises,
with the same reason; and where nothing can be skipped it still returns the typed value."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

import engine
from engine import DecodeError, ValidationFailed
from tests.corpus import translated

DEPTH = 16
LIMITS = engine.Limits(max_instance_depth=DEPTH)
UNNAMED = "zz\u00b5 unnamed"  # no corpus schema names it
SENTINEL = "\x00held-sentinel\x00"

# What an unnamed member holds: bytes no JSON parser accepts, then controls every reader accepts.
REFUSED = [
    b'"\xff\xfe"',
    b'"\xc0\xaf"',
    b"1e400",
    b"-1e400",
    b'"\\ud800"',
    b'"x\\udc00"',
    b'{"y":["\xed\xa0\x80"]}',
    b'{"y":{"w":1e999}}',
    b"[" * (DEPTH + 4) + b"]" * (DEPTH + 4),
    b'{"y":' * (DEPTH + 4) + b"1" + b"}" * (DEPTH + 4),
]
ACCEPTED = [b'"a:b"', b'{"y":"t:u","w":[1,{"v":null}]}', b"1e300", b'"\\ud83d\\ude00"']


def outcome(read: Any, data: bytes) -> tuple[str, Any]:
    try:
        read(data)
    except DecodeError as exc:
        return ("DecodeError", exc.reason)
    except ValidationFailed:
        return ("ValidationFailed", None)
    return ("accepted", None)


def with_member_at_every_object(value: Any) -> list[bytes]:
    """``value`` as JSON, once per object in it (the root and every one below), that object given
    the unnamed member, whose value is the sentinel string (replaced by the caller)."""
    found: list[list[Any]] = []

    def paths(node: Any, path: list[Any]) -> None:
        if isinstance(node, dict):
            found.append(path)
            for key, child in node.items():
                paths(child, [*path, key])
        elif isinstance(node, list):
            for index, child in enumerate(node):
                paths(child, [*path, index])

    paths(value, [])
    documents = []
    for path in found:
        copy = msgspec.json.decode(msgspec.json.encode(value))
        node = copy
        for step in path:
            node = node[step]
        node[UNNAMED] = SENTINEL
        documents.append(msgspec.json.encode(copy))
    return documents


def typed_cases() -> list[tuple[str, engine.CompiledSchema, list[Any]]]:
    cases = []
    for case, compiled in translated(engine.Engine(cache_size=0, limits=LIMITS)):
        instances = [instance for instance in case.instances if compiled.is_valid(instance)]
        # Objects below the root: each probe's values in an array of one object, where it nests.
        cases.append((case.id, compiled, [*instances, *case.instances[:8], {"o": [{"k": {}}]}]))
    return cases


@pytest.fixture(scope="module", name="cases")
def cases_fixture() -> list[tuple[str, engine.CompiledSchema, list[Any]]]:
    cases = typed_cases()
    assert len(cases) > 300  # the corpus tools that translate
    return cases


def test_decode_typed_raises_exactly_when_decode_raises(
    cases: list[tuple[str, engine.CompiledSchema, list[Any]]],
) -> None:
    checked = refused = 0
    for name, compiled, instances in cases:
        seen: set[bytes] = set()
        for instance in instances:
            for template in with_member_at_every_object(instance):
                quoted = msgspec.json.encode(SENTINEL)
                for payload in (*REFUSED, *ACCEPTED):
                    data = template.replace(quoted, payload)
                    if data in seen:
                        continue
                    seen.add(data)
                    expected = outcome(compiled.decode, data)
                    assert outcome(compiled.decode_typed, data) == expected, (name, data)
                    checked += 1
                    refused += expected[0] == "DecodeError"
    assert checked > 10_000
    assert refused > checked // 2


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {"type": "integer"}}},
        {"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "string"}}}}},
        {"type": "array", "items": {"type": "object", "properties": {"a": {"type": "integer"}}}},
        {
            "type": "object",
            "properties": {"a": {}, "m": {"type": "object", "additionalProperties": {"type": "object"}}},
        },
        {
            "type": "object",
            "properties": {
                "a": {"anyOf": [{"type": "null"}, {"type": "object", "properties": {"b": {"type": "integer"}}}]}
            },
        },
    ],
)
def test_skipped_members_are_held_to_json_at_any_depth(schema: Any) -> None:
    compiled = engine.Engine(cache_size=0, limits=LIMITS).compile(schema)
    valid = [{"a": 1}, {"a": {"b": "x"}}, [{"a": 1}, {"a": 2}], {"a": {"k": [{}]}, "m": {"k": {"j": {}}}}, {"a": None}]
    for instance in valid:
        for template in with_member_at_every_object(instance):
            for payload in (*REFUSED, *ACCEPTED):
                data = template.replace(msgspec.json.encode(SENTINEL), payload)
                assert outcome(compiled.decode_typed, data) == outcome(compiled.decode, data), data


def test_the_typed_value_is_returned_whatever_was_skipped() -> None:
    compiled = engine.Engine(cache_size=0).compile(
        {"type": "object", "properties": {"a": {"type": "integer"}, "o": {"type": "object", "properties": {"k": {}}}}}
    )
    for data in (b'{"a":1}', b'{"a":1,"z":"x:y"}', b'{"a":1,"o":{"k":{"j":1},"z":[{"q":2}]}}', b'{"a":1,"a":1}'):
        value = compiled.decode_typed(data)
        assert isinstance(value, msgspec.Struct), data
        assert value.f0 == 1  # type: ignore[attr-defined]
    with pytest.raises(DecodeError) as refused:
        compiled.decode_typed(b'{"a":1,"o":{"k":1,"z":"\xff"}}')
    assert refused.value.reason == engine.DecodeReason.INVALID_UTF8


def test_nothing_is_counted_where_no_object_admits_unnamed_properties() -> None:
    closed = {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": False}
    compiled = engine.Engine(cache_size=0).compile(closed)
    compiled.decode_typed(b'{"a":1}')
    assert compiled._typed.typed_members()[1] is None  # noqa: SLF001 - the typed reader's count
    for data in (b'{"a":1,"z":"\xff"}', b'{"a":1,"z":1e400}', b'{"a":1}', b'{"a":"x"}'):
        assert outcome(compiled.decode_typed, data) == outcome(compiled.decode, data), data


def test_one_set_of_structs_with_and_without_unnamed_members() -> None:
    # The commonest document is read by the Structs that refuse unnamed members; one that has
    # some is read by those that skip them and converted: the same types, equal values.
    compiled = engine.Engine(cache_size=0, backend="msgspec").compile(
        {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "object"}}, "required": ["a"]}
    )
    plain = compiled.decode_typed(b'{"a": 1, "b": {"c": [1]}}')
    extra = compiled.decode_typed(b'{"a": 1, "zz": "x:y", "b": {"c": [1]}}')
    assert type(plain) is type(extra) and plain == extra
    assert compiled.decode_typed(b'{"a": 1.0}') == {"a": 1.0}  # refused by the types, valid: the general path's value

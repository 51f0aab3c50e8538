"""The member count of a typed value (Structs that ignore unnamed properties), with which
``decode_typed`` shows that nothing was skipped: it counts every member its value holds (a Struct's
fields not ``UNSET``, the members of its maps and untyped values), and ``None`` is given where no
object admits unnamed properties. And the snapshot a deferred translation reads."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

import engine
from engine.backends._msgspec import MsgspecValidator
from tests.corpus import translated


def members(value: Any) -> int:
    if isinstance(value, dict):
        return len(value) + sum(members(child) for child in value.values())
    if isinstance(value, list):
        return sum(members(child) for child in value)
    return 0


def test_the_count_is_every_member_of_the_typed_value() -> None:
    counted = 0
    for case, compiled in translated(engine.Engine(cache_size=0)):
        validator: MsgspecValidator = compiled._typed  # noqa: SLF001 - the msgspec validator
        read = validator.typed_reader()
        _depth, count = validator.typed_members()
        if count is None:
            assert validator.translation.open_at is None
            continue
        for instance in case.instances:
            data = msgspec.json.encode(instance)
            try:
                value = read(data)
            except (msgspec.ValidationError, msgspec.DecodeError):
                continue
            # `to_builtins` drops what the Structs skipped and the fields left UNSET.
            assert count(value) == members(msgspec.to_builtins(value)), (case.id, data)
            counted += 1
    assert counted > 1000


def test_unset_fields_and_nested_values_are_counted() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "integer"},
            "o": {"type": "object", "properties": {"k": {"type": "string"}, "any": {}}},
            "l": {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "integer"}}}},
            "m": {"type": "object", "additionalProperties": {"type": "integer"}},
            "u": {"anyOf": [{"type": "null"}, {"type": "object", "properties": {"k": {"type": "integer"}}}]},
        },
    }
    compiled = engine.Engine(cache_size=0).compile(schema)
    compiled.decode_typed(b"{}")
    validator = compiled._typed  # noqa: SLF001 - the msgspec validator
    read, (depth, count) = validator.typed_reader(), validator.typed_members()
    assert depth is None  # an untyped value
    assert count is not None
    for data, expected in (
        (b"{}", 0),
        (b'{"a":1}', 1),
        (b'{"a":1,"z":2}', 1),  # skipped
        (b'{"o":{"k":"x","any":{"p":[{"q":1}]}}}', 5),
        (b'{"l":[{"k":1},{},{"k":2,"z":1}]}', 3),
        (b'{"m":{"x":1,"y":2}}', 3),
        (b'{"u":null}', 1),
        (b'{"u":{"k":1}}', 2),
    ):
        assert count(read(data)) == expected, data


def test_a_closed_object_requiring_a_name_it_does_not_list_is_not_translated() -> None:
    # No object satisfies it: with `b` it has an unnamed property, without it one is missing.
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "required": ["a", "b"],
        "additionalProperties": False,
    }
    compiled = engine.Engine(cache_size=0).compile(schema)
    for data in (b'{"a": "x", "b": 1}', b'{"a": "x"}'):
        with pytest.raises(engine.ValidationFailed):
            compiled.decode(data)
        with pytest.raises(engine.ValidationFailed):
            compiled.decode_typed(data)
    with pytest.raises(engine.SchemaRejected) as refused:
        engine.Engine(cache_size=0, backend="msgspec").compile(schema)
    assert refused.value.reason == "unsupported-by-backend"

"""The reader of a schema that is open somewhere (an object that admits unnamed properties) and
whose root is not an object (those are read through TypedDicts, see test_counted_reader.py):
short documents are read by the decode that ignores unnamed properties; the decode into Structs
that refuse them, which proves a longer document's depth, is built on the first longer one. These
tests hold both reads to the exact path, and check that the second type waits."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

import engine
from engine import DecodeError, ValidationFailed

ITEM = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 40},
        "tags": {"type": "array", "items": {"type": "string"}},
        "size": {"type": "integer", "minimum": 0},
    },
    "required": ["name"],
}
SCHEMA = {"type": "array", "items": ITEM}
DEPTH = 8  # a small bound: "longer" starts at 2 * DEPTH + 2 bytes


def outcome(read: Any, data: bytes) -> Any:
    try:
        return ("value", read(data))
    except (ValidationFailed, DecodeError) as exc:
        return (type(exc).__name__, getattr(exc, "reason", None), str(exc))


def compile_open() -> engine.CompiledSchema:
    eng = engine.Engine(cache_size=0, limits=engine.Limits(max_instance_depth=DEPTH))
    compiled = eng.compile(SCHEMA)
    assert compiled.backend == "msgspec"
    assert compiled._typed.translation.open_at is not None  # noqa: SLF001 - the case under test
    return compiled


def documents() -> list[bytes]:
    values: list[Any] = [
        {"name": "a"},
        {"name": "a", "size": 3},
        {"name": "a", "extra": 1},
        {"name": "a", "size": -1},
        {"name": 5},
        {"size": 1},
        {"name": "a", "size": 1.0},
        {"name": "a", "extra": [[["deep"]]]},
        {"name": "a", "extra": [[[[[[["too deep"]]]]]]]},
        {"name": "a", "tags": ["x", "y"], "extra": {"k": [1, 2, {"z": None}]}},
    ]
    encoded = [msgspec.json.encode([value]) for value in values]
    # The same documents padded past the short length, and a few spelled long by a string.
    return [*encoded, *(data + b" " * 40 for data in encoded), b'[{"name": "' + b"n" * 30 + b'", "size": 2}]']


def test_the_closed_type_waits_for_a_longer_document() -> None:
    compiled = compile_open()
    typed = compiled._typed  # noqa: SLF001 - which msgspec types are built
    assert compiled.decode(b'[{"name":"a"}]') == [{"name": "a"}]
    assert typed._plain is None  # noqa: SLF001 - only the decode that ignores unnamed properties
    assert typed._dicts is None  # noqa: SLF001 - no TypedDicts for a root that is not an object
    assert compiled.decode(b'[{"name": "a", "size": 1}]' + b" " * 40) == [{"name": "a", "size": 1}]
    assert typed._plain is not None  # noqa: SLF001 - built on the first longer document


@pytest.mark.parametrize("order", ["short first", "long first"])
def test_both_reads_answer_as_the_exact_path(order: str) -> None:
    """Every document, short or long, valid or not, too deep or not, in either order of first
    use, is answered exactly as the general path (bounded parse, then the general backend)."""
    compiled = compile_open()
    exact = engine.Engine(
        backend="jsonschema-rs", cache_size=0, limits=engine.Limits(max_instance_depth=DEPTH)
    ).compile(SCHEMA)
    items = documents()
    if order == "long first":
        items.reverse()
    for data in items:
        assert outcome(compiled.decode, data) == outcome(exact.decode, data), data

"""What a pattern reads is weighed in UTF-8 bytes, not characters: a regex engine reads bytes, so a
character beyond U+FFFF is four steps of its automaton. ``\\U00020000.{300}c`` on 1 MB of such
characters took jsonschema-rs 15 us a character, weighed at 2.4 us where each counted once: the
document was accepted after 3.6 s, or refused as invalid after 10.9 s (its explanation read it
again), under the default budget."""

from __future__ import annotations

import msgspec
import pytest

import engine

PATTERN = "\U00020000.{300}c"  # thrashes the automaton's cache on text it cannot match early


def _engine() -> engine.Engine:
    return engine.Engine(cache_size=0, limits=engine.Limits(max_validation_work=10_000_000))


def _four_byte_text(count: int) -> str:
    return "".join("\U00020000\U00020001"[i % 2] for i in range(count))


@pytest.mark.parametrize("where", ["string", "property", "key"])
def test_characters_beyond_the_bmp_weigh_their_bytes(where: str) -> None:
    text = _four_byte_text(20_000)  # 80 KB: 20,000 characters, as many as the ASCII text below
    if where == "string":
        schema, value = {"type": "string", "pattern": PATTERN}, text
    elif where == "property":
        schema = {"type": "object", "properties": {"p": {"type": "string", "pattern": PATTERN}}}
        value = {"p": text}
    else:
        schema, value = {"type": "object", "propertyNames": {"pattern": PATTERN}}, {text: 1}
    compiled = _engine().compile(schema)
    for call in (compiled.is_valid, lambda v: compiled.decode(msgspec.json.encode(v))):
        with pytest.raises(engine.DecodeError) as refused:
            call(value)
        assert refused.value.reason == engine.DecodeReason.TOO_LARGE


def test_as_many_ascii_characters_are_read() -> None:
    compiled = _engine().compile({"type": "string", "pattern": PATTERN})
    assert compiled.is_valid("x" * 20_000) is False
    assert compiled.is_valid("\U00020000" + "x" * 300 + "c")
    with pytest.raises(engine.ValidationFailed):
        compiled.decode(msgspec.json.encode("x" * 20_000))


def test_a_state_of_a_thrashing_automaton_weighs_more_than_it_did() -> None:
    # Each byte costs some 350 ns and 9-13 ns a state of the pattern written out: 400 KB of these
    # characters took 1.5 s and was answered under the default budget, weighed at two thirds of
    # an evaluation a state.
    text = _four_byte_text(100_000)  # 400 KB
    compiled = engine.Engine(cache_size=0).compile({"type": "string", "pattern": PATTERN})
    with pytest.raises(engine.DecodeError) as refused:
        compiled.decode(msgspec.json.encode(text))
    assert refused.value.reason == engine.DecodeReason.TOO_LARGE
    assert compiled.is_valid(_four_byte_text(10_000)) is False  # 40 KB: answered

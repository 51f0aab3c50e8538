"""A refused JSON document's sentence says what is wrong with it: a lone surrogate escape was
refused with msgspec's "Input data was truncated", and an integer of 5001 digits as "beyond the
range of a 64-bit float"."""

from __future__ import annotations

from functools import partial

import pytest

import engine

ANY = engine.Engine(cache_size=0).compile({"type": "object"})
LONE = "is a lone surrogate, half of a UTF-16 pair, not a character UTF-8 can hold"


@pytest.mark.parametrize(
    ("document", "escape", "at"),
    [
        (b'{"r":"\\ud800"}', "\\ud800", 6),  # ends its string: msgspec said "Input data was truncated"
        (b'{"r":"x\\uDBFF"}', "\\uDBFF", 7),
        (b'{"r":"\\ud800\\u0041"}', "\\ud800", 6),  # followed by an escape that is no low half
        (b'{"r":"\\udc00x"}', "\\udc00", 6),  # a low half alone
        (b'{"r":"\\\\\\ud800"}', "\\ud800", 8),  # after an escaped backslash
        (b'{"a":"\\ud83d\\ude00","r":"\\ud800"}', "\\ud800", 25),  # after a pair, which is one character
    ],
)
def test_a_lone_surrogate_escape_is_named_as_one(document: bytes, escape: str, at: int) -> None:
    for given in (document, document.decode()):
        with pytest.raises(engine.DecodeError) as refused:
            ANY.decode(given)
        assert refused.value.reason == "invalid-utf8"
        assert refused.value.message == f"not valid JSON: the escape {escape} (byte {at}) {LONE}"


def test_an_escaped_backslash_before_u_is_text_and_a_truncated_pair_is_truncated() -> None:
    assert ANY.decode(b'{"r":"\\\\ud800"}') == {"r": "\\ud800"}
    with pytest.raises(engine.DecodeError) as refused:
        ANY.decode(b'{"r":"\\ud83d\\ude00')  # a whole pair, then the document stops
    assert refused.value.reason == "malformed-json"
    assert refused.value.message == "not valid JSON: Input data was truncated"


def test_an_integer_of_too_many_digits_is_not_blamed_on_the_float_range() -> None:
    too_many = "a number has too many digits: integers are read up to 4300 characters long, sign included"
    for document, where in ((b"1" * 5001, ""), (b"[" + b"1" * 4301 + b"]", " (at `$[0]`)"), (b"-" + b"1" * 4300, "")):
        with pytest.raises(engine.DecodeError) as refused:
            ANY.decode(document)
        assert refused.value.reason == "number-out-of-range" and refused.value.message == too_many + where
    # The bound the sentence states: 4300 characters read, the sign among them.
    assert engine.compile({}).decode(b"1" * 4300) == int("1" * 4300)
    assert engine.compile({}).decode(b"-" + b"1" * 4299) == -int("1" * 4299)
    for beyond in (b"1e400", b"1" * 4301 + b".5"):  # numbers no float holds keep their sentence
        with pytest.raises(engine.DecodeError) as refused:
            ANY.decode(beyond)
        assert refused.value.message == "a number is beyond the range of a 64-bit float"


def test_an_integer_too_long_to_read_is_refused_as_a_value_too() -> None:
    # `-(10**4299)` (4,301 characters) was refused from bytes and accepted as a Python int.
    too_many = "a number has too many digits: integers are read up to 4300 characters long, sign included"
    schema = {"type": "object"}
    tools = engine.compile_tools([{"name": "t", "inputSchema": schema}])
    for value in ({"a": -(10**4299)}, {"a": [1, 10**4300 - 1 + 10**4300]}):
        for call in (
            engine.compile(schema).is_valid,
            engine.compile(schema).validate,
            partial(tools.validate_arguments, "t"),
        ):
            with pytest.raises(engine.DecodeError) as refused:
                call(value)
            assert refused.value.reason == "number-out-of-range" and refused.value.message == too_many
    assert engine.compile({}).is_valid(-(10**4298)) and engine.compile({}).is_valid([10**4299])


def test_tool_arguments_read_from_bytes_say_the_same() -> None:
    tools = engine.compile_tools([{"name": "t", "inputSchema": {"type": "object"}}])
    with pytest.raises(engine.DecodeError) as refused:
        tools.validate_arguments("t", b'{"a": "\\ud800"}')
    assert refused.value.message == f"not valid JSON: the escape \\ud800 (byte 7) {LONE}"
    with pytest.raises(engine.DecodeError) as refused:
        tools.validate_arguments("t", b'{"a": ' + b"1" * 5001 + b"}")
    assert refused.value.message.startswith("a number has too many digits")

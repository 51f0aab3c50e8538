"""Numbers whose written exponent is 289 or more (``1e300``) take msgspec some 10 us each to parse,
against 0.05 for any other: a document past ``SCREENED_PAST`` bytes holding more than 65,536 of
them is refused (``too-large``) before it is parsed, at every entry point that reads bytes, and
so is a schema holding them; documents with as many letters ``e``, exponents that parse fast, or
fewer far ones, are read as before, and so are strings that look like numbers (hexadecimal
identifiers, strings of digits): only numbers are counted."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine._slow_numbers import SCREENED_PAST, far_exponents_in_texts_over, far_exponents_over, outside_strings

MANY = 70_000  # over the 65,536 a document may hold
PAD = "x" * 700_000  # (a document of fewer bytes than SCREENED_PAST is bounded by its length)
FAR = [
    "1e300",
    "-2.5E+301",
    "0.001e292",
    "7e0300",
    "1.7976931348623157e308",
    "17976931348623157000e288",  # 20 digits: msgspec keeps 19, the exponent is 289
    "1111111111111111111111111e284",
]


def far_numbers(count: int, spelled: str = "1e300") -> str:
    return "[" + ",".join([spelled] * count) + "]"


TOOLS = engine.compile_tools(
    {
        "tools": [
            {"name": "free", "inputSchema": {"type": "object"}},
            {
                "name": "typed",
                "inputSchema": {
                    "type": "object",
                    "properties": {"values": {"type": "array", "items": {"type": "number"}}},
                },
                "outputSchema": {"type": "object", "properties": {"values": {"type": "array"}}},
            },
        ]
    }
)
FORM = engine.compile_elicitation({"type": "object", "properties": {"name": {"type": "string"}}})


def _arguments(text: str) -> None:
    TOOLS.validate_arguments("typed", text.encode())


def _arguments_text(text: str) -> None:
    TOOLS.validate_arguments("free", text)


def _arguments_view(text: str) -> None:
    TOOLS.validate_arguments("typed", memoryview(bytearray(text.encode())))


def _result(text: str) -> None:
    TOOLS.validate_result("typed", ('{"content": [], "structuredContent": ' + text + "}").encode())


def _response(text: str) -> None:
    wrapped = '{"jsonrpc": "2.0", "id": 1, "result": {"content": [], "structuredContent": ' + text + "}}"
    TOOLS.validate_result("typed", wrapped.encode())


def _answer(text: str) -> None:
    FORM.decode_result(('{"action": "accept", "content": {"name": "a"}, "_meta": ' + text + "}").encode())


def _decode(text: str) -> None:
    engine.compile({"type": "object"}).decode(text.encode())


def _decode_typed(text: str) -> None:
    schema = {"type": "object", "properties": {"values": {"type": "array", "items": {"type": "number"}}}}
    engine.compile(schema).decode_typed(text.encode())


ENTRY_POINTS: dict[str, Callable[[str], None]] = {
    "validate_arguments": _arguments,
    "validate_arguments (text)": _arguments_text,
    "validate_arguments (memoryview)": _arguments_view,
    "validate_result": _result,
    "validate_result (JSON-RPC)": _response,
    "decode_result": _answer,
    "decode": _decode,
    "decode_typed": _decode_typed,
}


@pytest.mark.parametrize("spelled", FAR)
@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_many_far_exponents_refused_unparsed(entry: str, spelled: str) -> None:
    document = '{"pad": "' + PAD + '", "values": ' + far_numbers(MANY, spelled) + "}"
    assert len(document) > SCREENED_PAST
    with pytest.raises(engine.DecodeError) as caught:
        ENTRY_POINTS[entry](document)
    assert caught.value.reason == engine.DecodeReason.TOO_LARGE
    assert "exponent of 289 or more" in caught.value.message


@pytest.mark.parametrize(
    "values",
    [
        "[" + ",".join(["1e288"] * MANY) + "]",  # parsed fast
        "[" + ",".join(["1e-300"] * MANY) + "]",  # negative exponents too
        "[" + ",".join(['"e1e300e"'] * 40_000 + ["1e300"] * 1_000) + "]",  # letters e, few far numbers
        "[" + ",".join(["1e300"] * 60_000) + "]",  # fewer than the bound, past SCREENED_PAST
    ],
    ids=["1e288", "1e-300", "letters", "under the bound"],
)
@pytest.mark.parametrize("entry", ["validate_arguments", "validate_result", "decode_result", "decode"])
def test_other_long_documents_read(entry: str, values: str) -> None:
    document = '{"pad": "' + PAD + '", "values": ' + values + "}"
    assert len(document) > SCREENED_PAST
    if entry == "validate_arguments" and '"' in values:
        TOOLS.validate_arguments("free", document.encode())
    else:
        ENTRY_POINTS[entry](document)


def test_many_far_exponents_in_a_schema_refused() -> None:
    text = json.dumps({"description": "x" * 700_000, "enum": [1e300] * MANY})
    assert SCREENED_PAST < len(text) < 2_000_000
    wide = engine.Engine(engine.EngineConfig(limits=engine.Limits(max_schema_bytes=2_000_000)))
    for schema in (text, text.encode()):
        with pytest.raises(engine.SchemaRejected) as caught:
            wide.compile(schema)
        assert caught.value.reason == engine.RejectReason.LIMIT_EXCEEDED
        assert "exponent of 289 or more" in caught.value.message


_NUMBER = st.builds(
    lambda sign, whole, fraction, letter, plus, zeros, exponent: (
        f"{sign}{whole}{fraction}{letter}{plus}{zeros}{exponent}"
    ),
    st.sampled_from(["", "-"]),
    st.sampled_from(["0", "1", "12", "9"]),
    st.sampled_from(["", ".5", ".001", ".000000000000000000001"]),
    st.sampled_from(["e", "E"]),
    st.sampled_from(["", "+", "-"]),
    st.sampled_from(["", "0", "00"]),
    st.integers(0, 330),
)
_ITEM = st.one_of(_NUMBER, st.sampled_from(['"e"', '"1e300"', '"code29e3"', "true", "1.5", "7"]))


def _written_far(document: str) -> int:
    """The numbers of ``document`` whose exponent, as written, is 289 or more: read by the
    standard library's parser, each float by its text."""
    far = 0

    def number(text: str) -> float:
        nonlocal far
        match = re.search(r"[eE]([+-]?)(\d+)$", text)
        if match and match.group(1) != "-" and int(match.group(2)) >= 289:
            far += 1
        return 0.0

    json.loads(document, parse_float=number)
    return far


@settings(max_examples=200, deadline=None)
@given(st.lists(_ITEM, max_size=60), st.integers(0, 20))
def test_far_exponents_never_missed(items: list[str], most: int) -> None:
    document = "[" + ",".join(items) + "]"
    if _written_far(document) > most:
        for form in (document, document.encode(), bytearray(document.encode()), memoryview(document.encode())):
            assert far_exponents_over(form, most)


@pytest.mark.parametrize(
    "spelled",
    ["1" * 210 + "e99", "9" * 309 + ".0", "1" * 25 + "e284", "12345678901234567890.5E+288"],
    ids=["long, two-digit exponent", "long, no exponent", "25 digits", "fraction"],
)
def test_slow_numbers_with_short_exponents_counted(spelled: str) -> None:
    # The integer part's digits past the 19 msgspec keeps add to the exponent it parses with.
    document = far_numbers(40, spelled)
    assert far_exponents_over(document.encode(), 39)
    assert not far_exponents_over(document.encode(), 40)


@pytest.mark.parametrize("spelled", ["1" * 300 + ".5", "1" * 25 + "e282", "1e-300", "1e288"])
def test_numbers_parsed_fast_not_counted(spelled: str) -> None:
    document = far_numbers(40, spelled)
    assert not far_exponents_over(document.encode(), 39)


def test_far_exponents_counted_exactly_past_the_bounds() -> None:
    # Many letters e and many exponents of three digits, few far ones: the last count decides.
    document = "[" + ",".join(["1e200"] * 50 + ["1e300"] * 5) + "]"
    assert not far_exponents_over(document.encode(), 5)
    assert far_exponents_over(document.encode(), 4)
    assert not far_exponents_over(document, 5)
    assert far_exponents_over(document, 4)


def test_text_fallbacks_screened_together() -> None:
    # Each text block is parsed to compare it with structuredContent: blocks shorter than the
    # screen's length, their `e` escaped in the result's bytes, are screened together.
    tools = engine.compile_tools([{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}}])
    block = "[" + ",".join(["1e300"] * 40_000) + "]"  # 240 KB each
    blocks = [{"type": "text", "text": block} for _ in range(5)]
    result = {"content": blocks, "structuredContent": [1]}
    escaped = json.dumps(result).replace("1e300", "1\\u0065300").encode()
    for form in (result, escaped):
        with pytest.raises(engine.DecodeError) as caught:
            tools.validate_result("t", form, require_text_fallback=True)
        assert caught.value.reason == engine.DecodeReason.TOO_LARGE
    with pytest.raises(engine.ValidationFailed):  # no block holds [1]: refused as before, once parsed
        tools.validate_result("t", {"content": blocks[:1], "structuredContent": [1]}, require_text_fallback=True)


def _hexadecimal(count: int) -> list[str]:
    generator = random.Random(7)
    return [f"{generator.getrandbits(128):032x}" for _ in range(count)]


STRINGS_LIKE_NUMBERS = {
    # A digit, an `e` and three digits or more in about one identifier in four: 231,908 far
    # exponents if strings counted.
    "hexadecimal identifiers": json.dumps(_hexadecimal(1_000_000)),
    "strings of 310 digits": json.dumps(["1" * 310] * 5_000),
    "far numbers spelled in strings": json.dumps(["1e300"] * MANY + ["x" * 700_000]),
    "behind escaped quotes": json.dumps(['\\"1e300 \\\\"'] * MANY + ["x" * 700_000]),
    "keys": json.dumps({f"{i}e300": i for i in range(MANY)} | {"pad": PAD}),
}


@pytest.mark.parametrize("document", STRINGS_LIKE_NUMBERS.values(), ids=STRINGS_LIKE_NUMBERS)
def test_strings_are_not_numbers(document: str) -> None:
    assert len(document) > SCREENED_PAST
    assert not far_exponents_over(document.encode(), 1_000)
    assert not far_exponents_over(document, 1_000)


@pytest.mark.parametrize("entry", ["validate_arguments", "validate_result", "decode_result", "decode"])
def test_a_long_document_of_identifiers_read(entry: str) -> None:
    document = '{"pad": "' + PAD + '", "ids": ' + json.dumps(_hexadecimal(400_000)) + "}"
    assert len(document) > SCREENED_PAST
    ENTRY_POINTS["validate_arguments (text)" if entry == "validate_arguments" else entry](document)


def test_far_numbers_counted_beside_many_strings() -> None:
    # More strings than are split at once: the document is read by windows, each starting outside a string.
    document = "[" + '"a\\"1e300",' * 200_000 + '"",' * 200_000 + ",".join(["1e300"] * 50) + "]"
    assert document.count('"') > 2 * (1 << 16)
    assert far_exponents_over(document.encode(), 49)
    assert not far_exponents_over(document.encode(), 50)
    long = "[" + ('"' + "x" * 3_000_000 + '",') + '"ab",' * 100_000 + ",".join(["1e300"] * 50) + "]"
    assert far_exponents_over(long.encode(), 49)
    assert not far_exponents_over(long.encode(), 50)


def test_an_unclosed_string_hides_no_other_text() -> None:
    texts = ['["1e300', "[" + ",".join(["1e300"] * 50) + "]"]
    assert far_exponents_in_texts_over(texts, 49)
    assert not far_exponents_in_texts_over(texts, 50)
    assert not far_exponents_in_texts_over(texts[:1], 0)


_STRING = st.text(st.sampled_from(['"', "\\", "e", "E", "1", "3", "0", "+", "-", ".", "x", ",", "[", "]"]), max_size=12)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.one_of(_NUMBER, _STRING.map(json.dumps), st.sampled_from(["true", "false", "null"])), max_size=60),
    st.integers(0, 20),
)
def test_far_exponents_counted_exactly(items: list[str], most: int) -> None:
    # Numbers as written (short integer parts): the count is exact, whatever the strings beside them hold.
    document = "[" + ",".join(items) + "]"
    expected = _written_far(document) > most
    for form in (document, document.encode(), bytearray(document.encode()), memoryview(document.encode())):
        assert far_exponents_over(form, most) is expected
    assert b'"' not in outside_strings(document.encode())

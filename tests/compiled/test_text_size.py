"""`max_instance_bytes` is a number of bytes for documents given as text too: a str is measured
in the bytes of its UTF-8, whichever reader takes it (bound readers compare lengths only below
a quarter of the limit, where no text can be over it)."""

from __future__ import annotations

import array
from collections.abc import Callable
from functools import partial
from typing import Any

import msgspec
import pytest

import engine
from engine import DecodeError

LIMIT = 64


def reason(read: Callable[[Any], Any], data: Any) -> str | None:
    try:
        read(data)
    except DecodeError as exc:
        return str(exc.reason)
    return None


ARGUMENTS = '{"s": "FILL"}'
RESULT = '{"content": [], "structuredContent": {"s": "FILL"}}'
ANSWER = '{"action": "accept", "content": {"s": "FILL"}}'


def readers() -> list[tuple[str, Callable[[str], Any], str]]:
    """(label, reader, the document it reads, its string value spelled FILL)."""
    eng = engine.Engine(cache_size=0, limits=engine.Limits(max_instance_bytes=LIMIT))
    out: list[tuple[str, Callable[[str], Any], str]] = []
    for schema in (
        {"type": "object", "properties": {"s": {"type": "string"}}},  # open: the typed path
        {"type": "object", "properties": {"s": {"type": "string"}}, "additionalProperties": False},  # sealed
        {"type": "object", "properties": {"s": {"type": "string", "pattern": "^.*$"}}},  # the general path
        {"type": "object", "allOf": [{"properties": {"s": {"type": "string"}}}]},  # untranslatable
    ):
        compiled = eng.compile(schema)
        tools = engine.compile_tools([{"name": "t", "inputSchema": schema, "outputSchema": schema}], engine=eng)
        out += [
            (f"decode {schema}", compiled.decode, ARGUMENTS),
            (f"decode_typed {schema}", compiled.decode_typed, ARGUMENTS),
            (f"validate_arguments {schema}", partial(tools.validate_arguments, "t"), ARGUMENTS),
            (f"validate_result {schema}", partial(tools.validate_result, "t"), RESULT),
        ]
    form = engine.compile_elicitation({"type": "object", "properties": {"s": {"type": "string"}}}, engine=eng)
    out.append(("decode_result", form.decode_result, ANSWER))
    return out


@pytest.mark.parametrize("char", ["é", "\u20ac", "\U0001f600"])
def test_text_over_the_byte_limit_is_too_large_as_its_bytes_are(char: str) -> None:
    for label, read, document in readers():
        # Fewer characters than the limit, more bytes: refused as the same bytes are.
        fill = char * (LIMIT // len(char.encode()) + 1)
        text = document.replace("FILL", fill)
        assert len(text) <= LIMIT * 2 and len(text.encode()) > LIMIT, label
        for _ in range(2):  # the first call binds the reader; the second uses it
            assert reason(read, text) == "too-large", (label, text)
            assert reason(read, text.encode()) == "too-large", (label, text)
        # Within the limit in bytes: read, as text and as bytes alike.
        short = document.replace("FILL", char * 2)
        assert len(short.encode()) <= LIMIT, label
        assert reason(read, short) is None and reason(read, short.encode()) is None, label


def test_ascii_text_at_the_limit_is_read() -> None:
    for label, read, document in readers():
        base = len(document.replace("FILL", ""))
        text = document.replace("FILL", "a" * (LIMIT - base))
        assert len(text.encode()) == LIMIT
        assert reason(read, text) is None and reason(read, text.encode()) is None, label
        over = document.replace("FILL", "a" * (LIMIT - base + 1))
        assert reason(read, over) == "too-large" and reason(read, over.encode()) == "too-large", label


class _LyingBytes(bytes):
    """Bytes whose own methods say they are two bytes, `{}`: only what they hold may be read."""

    def __len__(self) -> int:
        return 2

    def __bytes__(self) -> bytes:
        return b"{}"

    def __str__(self) -> str:
        return "{}"

    def count(self, *_: Any) -> int:  # type: ignore[override]
        return 0

    def decode(self, *_: Any, **__: Any) -> str:  # type: ignore[override]
        return "{}"


class _LyingText(str):
    """Text whose own methods say it is `{}`."""

    __slots__ = ()

    def __len__(self) -> int:
        return 2

    def __str__(self) -> str:
        return "{}"

    def count(self, *_: Any) -> int:  # type: ignore[override]
        return 0

    def encode(self, *_: Any, **__: Any) -> bytes:  # type: ignore[override]
        return b"{}"

    def isascii(self) -> bool:
        return True


def _outcome(read: Callable[[Any], Any], data: Any) -> Any:
    try:
        value = read(data)
    except (DecodeError, engine.ValidationFailed) as exc:
        return type(exc).__name__, str(getattr(exc, "reason", ""))
    return "value", repr(value)


@pytest.mark.parametrize("fill", ["x", "x" * 30, "x" * 200], ids=["short", "near the limit", "over the limit"])
def test_subclasses_of_bytes_and_str_are_read_as_what_they_hold(fill: str) -> None:
    """A document given as a subclass of bytes or str is measured and read by what it holds, at
    every entry: its own methods (a length of two, a text of `{}`) are never asked, so it is
    answered as the same document in exact bytes is."""
    for label, read, document in readers():
        data = document.replace("FILL", fill)
        expected = _outcome(read, data.encode())
        for lying in (_LyingBytes(data.encode()), _LyingText(data)):
            assert _outcome(read, lying) == expected, (label, type(lying).__name__)


def test_a_subclass_cannot_claim_to_be_too_short_to_nest() -> None:
    """A deep document claiming a length of two is refused as too deep, as its bytes are, at every
    entry (a length under the bound's brackets would skip the depth proof)."""
    eng = engine.Engine(cache_size=0, limits=engine.Limits(max_instance_depth=8))
    schema = {"type": "object", "properties": {"s": {"type": "string"}}}
    compiled = eng.compile(schema)
    tools = engine.compile_tools([{"name": "t", "inputSchema": schema, "outputSchema": schema}], engine=eng)
    form = engine.compile_elicitation(schema, engine=eng)
    deep = "[" * 40 + "]" * 40
    cases = [
        (compiled.decode, '{"s":"x","zz":' + deep + "}"),
        (compiled.decode_typed, '{"s":"x","zz":' + deep + "}"),
        (partial(tools.validate_arguments, "t"), '{"s":"x","zz":' + deep + "}"),
        (partial(tools.validate_result, "t"), '{"content":[],"structuredContent":{"s":"x","zz":' + deep + "}}"),
        (form.decode_result, '{"action":"accept","content":{"s":"x"},"_meta":{"k":' + deep + "}}"),
    ]
    for read, data in cases:
        expected = _outcome(read, data.encode())
        assert expected == ("DecodeError", "too-deep"), data
        for _ in range(2):  # the first call binds the readers; the second reads inline
            for lying in (_LyingBytes(data.encode()), _LyingText(data)):
                assert _outcome(read, lying) == expected, (read, type(lying).__name__)


def _buffers(data: bytes) -> list[Any]:
    """``data`` in buffers whose ``len`` counts items of 1, 2 and 4 bytes (padded with spaces to a
    whole number of items), and in a `msgspec.Raw`."""
    out: list[Any] = [msgspec.Raw(data)]
    for code in ("B", "H", "I"):
        items = array.array(code)
        items.frombytes(data + b" " * (-len(data) % items.itemsize))
        out.append(items)
    return out


@pytest.mark.parametrize("fill", ["x", "x" * 30, "x" * 200], ids=["short", "near the limit", "over the limit"])
def test_other_buffers_are_measured_in_bytes(fill: str) -> None:
    """`decode` and `decode_typed` read any buffer as its bytes: an `array.array` of wider items
    (whose `len` counts items) is measured in bytes, within the size and the depth bounds, and
    answered as the same bytes are."""
    for label, read, document in readers():
        if not label.startswith(("decode ", "decode_typed ")):
            continue
        data = document.replace("FILL", fill).encode()
        for buffer in _buffers(data):
            expected = _outcome(read, data + b" " * (-len(data) % getattr(buffer, "itemsize", 1)))
            assert _outcome(read, buffer) == expected, (label, buffer)
    eng = engine.Engine(cache_size=0, limits=engine.Limits(max_instance_depth=8))
    deep = b'{"s":"x","zz":' + b"[" * 40 + b"]" * 40 + b"}"
    for read in (eng.compile({}).decode, eng.compile({"type": "object"}).decode_typed):
        for buffer in _buffers(deep):
            assert _outcome(read, buffer) == ("DecodeError", "too-deep"), buffer


@pytest.mark.parametrize("value", [123, None, {"a": 1}, [1], object()], ids=["int", "None", "dict", "list", "object"])
def test_a_python_value_given_to_decode_is_a_type_error_that_says_so(value: Any) -> None:
    """`decode` and `decode_typed` read documents: a Python value given to them is a `TypeError`
    naming its kind and the methods that check Python values."""
    compiled = engine.Engine(cache_size=0).compile({"type": "object"})
    for read in (compiled.decode, compiled.decode_typed):
        with pytest.raises(TypeError, match=f"not {type(value).__name__} .*is_valid, validate or checked"):
            read(value)

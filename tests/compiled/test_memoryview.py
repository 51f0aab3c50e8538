"""A ``memoryview`` whose ``len`` is not its size in bytes: items wider than a byte (over an
``array('Q')``), several dimensions, or strided. Every bound on a document is in bytes, read from
``len``: each reader ``decode`` and ``decode_typed`` bind reads such a view as its bytes, so its
answer (the value, or the refusal with its reason: too large, too deep) is the one for the same
bytes. A recursive schema's depth bound protects jsonschema-rs's native stack: a view past it is
refused as too deep, never evaluated."""

from __future__ import annotations

import array
import time
from functools import partial
from typing import Any

import msgspec
import pytest

import engine
from engine import DecodeError, ValidationFailed

LIMITS = engine.Limits(max_instance_bytes=1000, max_instance_depth=32)


def _recursive() -> Any:
    schema: Any = {"type": "array", "items": {"$ref": "#"}}
    for _ in range(30):
        schema = {"anyOf": [schema, {"type": "null"}]}
    return schema


SCHEMAS: dict[str, Any] = {
    "open": {"type": "object", "properties": {"a": {"type": "integer"}, "s": {"type": "string"}}},
    "closed": {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": False},
    "records": {"type": "array", "items": {"type": "object", "properties": {"a": {"type": "integer"}}}},
    "untyped": {},
    "pattern": {"type": "object", "properties": {"s": {"type": "string", "pattern": "^x"}}},
    "not translated": {"type": "object", "properties": {"a": {"type": "integer"}}, "allOf": [{"required": ["a"]}]},
    "recursive": _recursive(),
}

DOCUMENTS = [
    b'{"a":1,"s":"x"}',
    b'{"a":"x"}',
    b'{"a":1,"z":{"k":[1,2]}}',
    b'[{"a":1},{"a":2,"z":null}]',
    b"[" * 20 + b"null" + b"]" * 20,
    b"[" * 40 + b"null" + b"]" * 40,  # past the depth bound, within the size bound
    b"[" * 600 + b"]" * 600,  # too deep and too large
    b"[" + b",".join([b"1"] * 2000) + b"]",  # 4001 bytes: too large
    b'{"a":1,"s":"' + b"x" * 900 + b'"}',  # within the size bound
    b'{"a":1,"z":"\xff"}',
    b"null",
]


def _padded(data: bytes, multiple: int) -> bytes:
    return data + b" " * (-len(data) % multiple)  # JSON whitespace fills the last item


def views(data: bytes) -> list[tuple[str, bytes, memoryview]]:
    """(what, the bytes, a view of exactly those bytes whose ``len`` is not their size)."""
    wide = _padded(data, 8)
    square = _padded(data, 4)
    interleaved = bytearray(2 * len(data))
    interleaved[::2] = data
    return [
        ("array('Q')", wide, memoryview(array.array("Q", wide))),
        ("2-D", square, memoryview(square).cast("B", (len(square) // 4, 4))),
        ("strided", data, memoryview(interleaved)[::2]),
    ]


def outcome(read: Any, data: Any) -> tuple[str, Any]:
    try:
        value = read(data)
    except DecodeError as exc:
        return ("DecodeError", exc.reason)
    except ValidationFailed as exc:
        return ("ValidationFailed", [issue.instance_path for issue in exc.issues])
    return ("value", msgspec.to_builtins(value))


@pytest.mark.parametrize("name", list(SCHEMAS))
def test_a_view_is_read_as_its_bytes(name: str) -> None:
    compiled = engine.Engine(cache_size=0, limits=LIMITS).compile(SCHEMAS[name])
    for document in DOCUMENTS:
        for what, data, view in views(document):
            assert view.nbytes == len(data)
            for read in (compiled.decode, compiled.decode_typed):
                for _ in range(2):  # the first call builds the reader
                    assert outcome(read, view) == outcome(read, data), (name, what, document[:40])


def test_too_large_and_too_deep_are_refused_with_their_reason() -> None:
    compiled = engine.Engine(cache_size=0, limits=LIMITS).compile({"type": "array"})
    large = b"[" + b",".join([b"1"] * 2000) + b"]"
    larger_than_its_items = b"[" + b",".join([b"1"] * 750) + b"]"  # 1,501 bytes, 188 items of 8
    deep = b"[" * 400 + b"]" * 400
    cases = (
        (large, engine.DecodeReason.TOO_LARGE),
        (larger_than_its_items, engine.DecodeReason.TOO_LARGE),
        (deep, engine.DecodeReason.TOO_DEEP),
    )
    for document, reason in cases:
        for what, _data, view in views(document):
            assert len(view) < view.nbytes or not view.c_contiguous, what
            for read in (compiled.decode, compiled.decode_typed):
                with pytest.raises(DecodeError) as refused:
                    read(view)
                assert refused.value.reason == reason, what


def test_the_depth_bound_of_a_recursive_schema_holds_for_a_view() -> None:
    compiled = engine.Engine(cache_size=0).compile(_recursive())
    deep = b"[" * 990 + b"null" + b"]" * 990  # past the bound, and past what the native stack takes
    for what, _data, view in views(deep):
        with pytest.raises(DecodeError) as refused:
            compiled.decode(view)
        assert refused.value.reason == engine.DecodeReason.TOO_DEEP, what


def test_a_byte_view_is_read_as_it_is() -> None:
    compiled = engine.Engine(cache_size=0).compile(SCHEMAS["open"])
    data = bytearray(b'{"a":1,"s":"x"}')
    assert compiled.decode(memoryview(data)) == {"a": 1, "s": "x"}
    assert compiled.decode(memoryview(data)[0:]) == {"a": 1, "s": "x"}


def test_a_view_over_the_bound_is_refused_before_it_is_copied() -> None:
    """A strided, reversed or two-dimensional view far over the size bound is refused as too large
    by its size in bytes (`nbytes`), with nothing copied: by every reader, the tool set, the result
    and answer readers and the compile. Copying 24 MB of a strided view takes a tenth of a second
    or more; the refusal, a few microseconds (bounded generously here: a copy would exceed it)."""
    n = 24 * 1024 * 1024
    backing = bytearray(2 * n)
    backing[::2] = b"{" + b" " * (n - 2) + b"}"
    views = [memoryview(backing)[::2], memoryview(backing)[::-1], memoryview(backing).cast("B", (n // 512, 1024))[::2]]
    eng = engine.Engine(limits=engine.Limits(max_instance_bytes=4096, max_schema_bytes=4096), cache_size=0)
    tools = engine.compile_tools([{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {}}], engine=eng)
    form = engine.compile_elicitation({"type": "object", "properties": {"a": {"type": "string"}}}, engine=eng)
    readers = [eng.compile(SCHEMAS[name]).decode for name in SCHEMAS]
    readers += [eng.compile(SCHEMAS["open"]).decode_typed, form.decode_result]
    readers += [partial(tools.validate_arguments, "t"), partial(tools.validate_result, "t")]
    for view in views:
        for read in readers:
            started = time.process_time()  # CPU time: a loaded machine does not stretch it
            with pytest.raises(DecodeError) as refusal:
                read(view)
            assert time.process_time() - started < 0.05, read
            assert refusal.value.reason == "too-large"
            assert f"document is {view.nbytes} bytes" in str(refusal.value)
        started = time.process_time()
        with pytest.raises(engine.SchemaRejected) as rejected:
            eng.compile(view)
        assert time.process_time() - started < 0.05
        assert rejected.value.reason == "limit-exceeded"


@pytest.mark.parametrize("max_bytes", [64, 200])
def test_views_between_the_short_read_and_the_bound_answer_as_their_bytes(max_bytes: int) -> None:
    """A strided or wide view longer than what is read without a measure (a quarter of the bound)
    but within the bound is read as its bytes by every entry: the readers, the tool set's argument
    and result reads, and the form's answer read."""
    eng = engine.Engine(limits=engine.Limits(max_instance_bytes=max_bytes, max_instance_depth=8), cache_size=0)
    schema = SCHEMAS["open"]
    compiled = eng.compile(schema)
    tools = engine.compile_tools([{"name": "t", "inputSchema": schema, "outputSchema": schema}], engine=eng)
    form = engine.compile_elicitation({"type": "object", "properties": {"s": {"type": "string"}}}, engine=eng)

    def views(data: bytes) -> list[memoryview]:
        forms = [memoryview(bytes(byte for pair in zip(data, data, strict=True) for byte in pair))[::2]]
        if len(data) % 8 == 0:
            forms.append(memoryview(array.array("Q", data)))
        return forms

    def outcome(read: Any, data: Any) -> Any:
        try:
            return ("value", repr(read(data)))
        except (ValidationFailed, DecodeError) as exc:
            return (type(exc).__name__, exc.reason if isinstance(exc, DecodeError) else None, str(exc))

    for size in range(max_bytes // 4 - 2, max_bytes + 4):
        body = b'{"a":1,"s":"' + b"y" * max(size - 14, 0) + b'"}'
        result = b'{"content":[],"structuredContent":' + body + b"}"
        answer = b'{"action":"accept","content":{"s":"' + b"y" * max(size - 36, 0) + b'"}}'
        cases = [
            (compiled.decode, body),
            (compiled.decode_typed, body),
            (partial(tools.validate_arguments, "t"), body),
            (partial(tools.validate_result, "t"), result),
            (form.decode_result, answer),
        ]
        for read, data in cases:
            expected = outcome(read, data)
            for view in views(data):
                assert outcome(read, view) == expected, (read, data)


def _released() -> memoryview:
    view = memoryview(b'{"a": 1}')
    view.release()
    return view


def test_a_released_view_is_refused_with_a_reason_wherever_it_is_read() -> None:
    # Every reader, before and after its typed reader is built (the first four documents of a
    # schema are read on the general path), and the schema's own intake.
    with pytest.raises(engine.SchemaRejected) as refused:
        engine.compile(_released())
    assert refused.value.reason == "invalid-schema" and "released memoryview" in refused.value.message
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    compiled = engine.compile(schema)
    tools = engine.compile_tools([{"name": "t", "inputSchema": schema, "outputSchema": schema}])
    form = engine.compile_elicitation({"type": "object", "properties": {"a": {"type": "string"}}})
    readers = {
        "decode": compiled.decode,
        "arguments": partial(tools.validate_arguments, "t"),
        "result": partial(tools.validate_result, "t"),
        "answer": form.decode_result,
    }
    for name, read in readers.items():
        for _ in range(6):
            with pytest.raises(DecodeError) as failure:
                read(_released())
            assert failure.value.reason == "not-json", name
            assert "released memoryview" in failure.value.message, name

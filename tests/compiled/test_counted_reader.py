"""The reader of a schema that translates to msgspec types: one decode through TypedDicts, which
check and give plain dicts in document order but skip the properties they do not name, and a count
of the document's colons that shows nothing was skipped. These tests hold it, through
``CompiledSchema.decode`` and the inline read of ``ToolSet.validate_arguments``, to the exact path
(the bounded parse, then jsonschema-rs) on documents built to fool the count: unnamed properties
with whitespace before their colon, colons and quotes in strings and keys, duplicate keys, members
below the root, bytes no parser accepts where a TypedDict skips them."""

from __future__ import annotations

import json
from functools import partial
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine import DecodeError, ValidationFailed
from engine._decode import SHOWN_LEVELS
from engine._readers import _GENERAL_FOR

DEPTH = 8

SCHEMAS: dict[str, Any] = {
    "open": {
        "type": "object",
        "properties": {
            "a": {"type": "integer"},
            "s": {"type": "string"},
            "t": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["a"],
    },
    "closed": {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "s": {"type": "string"}},
        "required": ["a"],
        "additionalProperties": False,
    },
    "nested open": {
        "type": "object",
        "properties": {
            "a": {"type": "integer"},
            "s": {"type": "string"},
            "o": {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "string"}}}},
        },
    },
    "closed below": {
        "type": "object",
        "properties": {
            "a": {"type": "integer"},
            "o": {"type": "object", "properties": {"k": {"type": "string"}}, "additionalProperties": False},
        },
    },
    "untyped value": {"type": "object", "properties": {"a": {"type": "integer"}, "any": {}}},
    "no properties": {"type": "object", "maxProperties": 3},
    "records": {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "t": {"type": "array", "items": {"type": "string"}}},
        },
    },
    "untyped records": {
        "type": "array",
        "items": {"type": "object", "properties": {"a": {"type": "integer"}, "t": {"type": "array"}}},
    },
    "object or null": {"type": ["object", "null"], "properties": {"a": {"type": "integer"}}},
    "string": {"type": "string", "maxLength": 8},
    "number": {"type": "object", "properties": {"a": {"type": "number", "maximum": 10}, "s": {"enum": ["x", "y:z"]}}},
}

# Each document is read as it is and padded past the length that shows the depth bound.
DOCUMENTS = [
    b'{"a":1}',
    b'{"a":1,"s":"x"}',
    b'{"s":"x","a":1}',
    b'{"a": 1, "s": "x"}',
    b'{\n  "a" : 1,\n  "s" : "x"\n}',
    b'{"a":1,"zz":2}',
    b'{"a":1,"zz" :2}',
    b'{"a":1,"zz"\t:2}',
    b'{"a":1,"zz"\n:2}',
    b'{"a":1,"zz"\r:2}',
    b'{"a":1,"s":"http://x:80"}',
    b'{"a":1,"s":"x\\":"}',
    b'{"a":1,"s":"x\\":","zz" :1}',
    b'{"a":1,"s":"\\" :","zz" :1}',
    b'{"a":1,"zz":"\\":"}',
    b'{"a":1,"s":"{\\"k\\": 1}"}',
    b'{"a":1,"s":"{\\"k\\":1}","zz":2}',
    b'{"a":1,"s":"\\\\","zz" :1}',
    b'{"a":1,"s":"\\\\\\":"}',
    b'{"a":1,"s":"\\\\\\":","zz":1}',
    b'{"a\\\\":1}',
    b'{"a":1,"s\\\\":1}',
    b'{"a":1,"y:z":2}',
    b'{"a":1,"a":2}',
    b'{"a":1,"a":"x"}',
    b'{"a":"x","a":1}',
    b'{"\\u0061":1}',
    b'{"a":1.0}',
    b'{"a":1e400}',
    b'{"a":18446744073709551616}',
    b'{"a":-0}',
    b'{"a":1,"zz":"\xff"}',
    b'{"a":1,"zz":1e999}',
    b'{"a":1,"zz":[[[[[[[[[["too deep"]]]]]]]]]]}',
    b'{"a":1,"zz":{"k":{"k":{"k":{"k":{"k":{"k":{"k":{"k":1}}}}}}}}}',
    b'{"a":1,"o":[{"k":"x"}]}',
    b'{"a":1,"o":[{"k":"x","zz":1}]}',
    b'{"a":1,"o":[{"k":"x","zz" :1}]}',
    b'{"a":1,"o":{"k":"x"}}',
    b'{"a":1,"o":{"k":"x","zz":1}}',
    b'{"a":1,"any":{"k":[1,{"z":null}]}}',
    b'{"a":1,"any":[[[[[[[[[[1]]]]]]]]]]}',
    b'{"a":1,"t":[]}',
    b'{"a":1,"any":{}}',
    b'{"a":1,"any":[[]]}',
    b'{"a":2,"s":"y:z"}',
    b'{"a":11}',
    b'{"b":1,"c":2,"d":3,"e":4}',
    b"{}",
    b"[]",
    b'[{"a":1}]',
    b'[{"a":1},{"a":2,"t":["x:y"]}]',
    b'[{"a":1,"zz":1}]',
    b'[{"a":1,"zz" :1},{"a":2}]',
    b'[{"a":1,"t":[[[[[[[[1]]]]]]]]}]',
    b'[{"a":1,"zz":[[[[[[[[1]]]]]]]]}]',
    b'[{"a":1.5}]',
    b"null",
    b'"x:y"',
    b'"":"',
    b'"a long string"',
    b'{"a":1',
    b'{"a":1} x',
    b"",
]


def outcome(read: Any, data: Any) -> Any:
    try:
        return ("value", json.dumps(read(data)))
    except (ValidationFailed, DecodeError) as exc:
        return (type(exc).__name__, getattr(exc, "reason", None), str(exc))


def engines(depth: int) -> tuple[engine.Engine, engine.Engine]:
    limits = engine.Limits(max_instance_depth=depth)
    return engine.Engine(cache_size=0, limits=limits), engine.Engine(
        backend="jsonschema-rs", cache_size=0, limits=limits
    )


def forms(data: bytes) -> list[Any]:
    forms: list[Any] = [data, bytearray(data), memoryview(data)]
    try:
        forms.append(data.decode())
    except UnicodeDecodeError:
        pass
    return forms


# Bounds of one and two levels: a value whose children hold nothing nests two levels at most,
# which is shown without a walk only under a bound of two or more.
@pytest.mark.parametrize("depth", [1, 2, DEPTH, 256])
@pytest.mark.parametrize("name", list(SCHEMAS))
def test_every_document_is_answered_as_the_exact_path(name: str, depth: int) -> None:
    fast, exact = engines(depth)
    compiled, judge = fast.compile(SCHEMAS[name]), exact.compile(SCHEMAS[name])
    assert compiled.backend == "msgspec"
    tools = engine.compile_tools([{"name": "t", "inputSchema": SCHEMAS[name]}], engine=fast)
    for document in DOCUMENTS:
        for data in (document, document + b" " * 2 * depth):
            expected = outcome(judge.decode, data)
            for form in forms(data):
                assert outcome(compiled.decode, form) == expected, (name, form)
            if "t" in tools:  # an input schema: `type: object` at its root
                for _ in range(2):  # the tool's first call binds its readers; the second reads inline
                    for form in forms(data):
                        assert outcome(partial(tools.validate_arguments, "t"), form) == expected, (name, form)


@pytest.mark.parametrize("name", ["open", "closed", "untyped value"])
def test_text_is_answered_as_its_utf8(name: str) -> None:
    """Arguments given as text are read as their UTF-8 is: a tool set answers text as the exact
    path does, text no UTF-8 spells (a lone surrogate) included, whichever form came first."""
    fast, exact = engines(DEPTH)
    judge = exact.compile(SCHEMAS[name])
    texts = [
        '{"a":1,"s":"\\ud800"}',  # an escape: a lone surrogate the parser refuses
        '{"a":1,"s":"\ud800"}',  # the character itself: no UTF-8 spells the text
        '{"a":1,"s":"日本: x"}',
        '{"a":1,"any":"é"}',
        '{"a":1,"s":"x:y"}',
        '{"a":"x"}',
        '{"a":1',
    ]
    for first in range(len(texts)):
        tools = engine.compile_tools([{"name": "t", "inputSchema": SCHEMAS[name]}], engine=fast)
        for text in texts[first:] + texts[:first]:
            assert outcome(partial(tools.validate_arguments, "t"), text) == outcome(judge.decode, text), text


# Schemas read on the general path alone: one holding a `pattern` (the general backend's native
# regex reads it, by choice), one whose `oneOf` does not translate.
GENERAL_SCHEMAS: dict[str, Any] = {
    "pattern": {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "s": {"type": "string", "pattern": "^[a-z:]*$"}},
        "required": ["a"],
    },
    "one of": {
        "type": "object",
        "properties": {"a": {"oneOf": [{"type": "integer"}, {"type": "number", "maximum": 10}]}, "s": {}},
        "required": ["a"],
    },
}


@pytest.mark.parametrize("depth", [1, 2, DEPTH, 256])
@pytest.mark.parametrize("name", list(GENERAL_SCHEMAS))
def test_schemas_without_a_typed_read_are_read_inline_as_the_exact_path(name: str, depth: int) -> None:
    """``ToolSet.validate_arguments`` parses and checks the short documents of a schema with no
    typed read itself (the short path's general mode, for good): every document is answered as
    on the exact path, the first call (which binds the readers) and the next, those too long to
    be within the depth bound by their length read by the reader."""
    fast, exact = engines(depth)
    judge = exact.compile(GENERAL_SCHEMAS[name])
    tools = engine.compile_tools([{"name": "t", "inputSchema": GENERAL_SCHEMAS[name]}], engine=fast)
    for document in DOCUMENTS:
        for data in (document, document + b" " * 2 * depth):
            expected = outcome(judge.decode, data)
            for _ in range(2):
                assert outcome(partial(tools.validate_arguments, "t"), data) == expected, (name, data)
    bound = tools._from_bytes["t"]  # noqa: SLF001 - the short path the inline read is bound to
    assert general(bound) and bound[6] is None  # no typed read to go back to
    assert bound[1] == 2 * depth + 1  # too short to nest past the bound


# Documents whose colons outnumber their members once decoded (a colon in a string), one of
# which each schema's typed decode accepts: reading it sends the next documents to the general read.
PRIMERS = [
    b'{"a":1,"s":"x:y"}',
    b'{"a":1,"any":"x:y"}',
    b'{"k":"x:y"}',
    b'[{"a":1,"t":["x:y"]}]',
    b'[{"a":1,"s":"x:y"}]',
    b'"x:y"',
]


def general(path: Any) -> bool:
    """Whether a short path (the list, or a tool's tuple of it) is in the general mode."""
    return path[2] is None


def primed(compiled: Any) -> None:
    """Read documents until one sends the next ones to the general read (the short path is in
    the general mode while they go there)."""
    for primer in PRIMERS:
        try:
            compiled.decode(primer)
        except (ValidationFailed, DecodeError):
            pass
        if general(compiled.short_path()):
            return
    raise AssertionError("no primer reached the general read")


@pytest.mark.parametrize("depth", [2, DEPTH, 256])  # under one level, no document is read twice first
@pytest.mark.parametrize("name", list(SCHEMAS))
def test_documents_after_one_read_twice_are_answered_as_the_exact_path(name: str, depth: int) -> None:
    """After a document the typed decode had to read again, the next ones are parsed and checked
    by the general backend inline: every document is answered there as on the exact path, through
    ``CompiledSchema.decode`` and ``ToolSet.validate_arguments``."""
    fast, exact = engines(depth)
    if depth == 2 and name == "records":
        pytest.skip("an array of objects read once more is over a bound of two levels: no primer")
    judge = exact.compile(SCHEMAS[name])
    for document in DOCUMENTS:
        for data in (document, document + b" " * 2 * depth):
            expected = outcome(judge.decode, data)
            for form in forms(data):
                compiled = fast.compile(SCHEMAS[name])  # no cache: a reader of its own
                primed(compiled)
                assert outcome(compiled.decode, form) == expected, (name, form)
            tools = engine.compile_tools([{"name": "t", "inputSchema": SCHEMAS[name]}], engine=fast)
            if "t" in tools:
                primed(tools.tool("t").input)
                assert outcome(partial(tools.validate_arguments, "t"), data) == expected, (name, data)


def test_the_typed_decode_is_tried_again_after_a_run_of_general_reads() -> None:
    """The documents after one the typed decode read twice go to the general read, a fixed number
    of them; the next goes to the typed decode, which takes the inline read back where that
    document needed nothing more, and keeps them on the general read where it did."""
    fast, _ = engines(DEPTH)
    compiled = fast.compile(SCHEMAS["open"])
    typed = list(compiled.short_path())
    assert typed[1] > 0 and not general(typed)
    primed(compiled)
    for _ in range(_GENERAL_FOR):
        assert compiled.decode(b'{"a":1,"s":"x"}') == {"a": 1, "s": "x"}
        assert general(compiled.short_path())
    assert compiled.decode(b'{"a":1,"s":"x"}') == {"a": 1, "s": "x"}  # typed, read once
    assert compiled.short_path() == typed
    primed(compiled)
    for _ in range(_GENERAL_FOR):
        compiled.decode(b'{"a":1,"s":"x"}')
    assert compiled.decode(b'{"a":1,"s":"a:b"}') == {"a": 1, "s": "a:b"}  # typed, then read again
    assert general(compiled.short_path())


def test_the_tool_set_follows_the_readers_switch() -> None:
    """``ToolSet.validate_arguments`` keeps the short path as a tuple: it takes the reader's new
    mode after the call that changed it, both ways, and counts the documents it reads in the
    general mode itself, one each."""
    fast, _ = engines(DEPTH)
    tools = engine.compile_tools([{"name": "t", "inputSchema": SCHEMAS["open"]}], engine=fast)
    plain = b'{"a":1,"s":"x"}'
    assert tools.validate_arguments("t", plain) == {"a": 1, "s": "x"}
    typed = tools._from_bytes["t"]  # noqa: SLF001 - the short path the inline read is bound to
    assert typed[1] > 0 and not general(typed)
    assert tools.validate_arguments("t", b'{"a":1,"s":"x:y"}') == {"a": 1, "s": "x:y"}
    bound = tools._from_bytes["t"]  # noqa: SLF001
    assert general(bound) and bound[6] == [_GENERAL_FOR]
    for left in range(_GENERAL_FOR - 1, -1, -1):
        assert tools.validate_arguments("t", plain) == {"a": 1, "s": "x"}
        assert bound[6] == [left]
    with pytest.raises(ValidationFailed):
        tools.validate_arguments("t", b'{"a":"x"}')  # none left: read by the reader, which says why
    assert tools.validate_arguments("t", plain) == {"a": 1, "s": "x"}  # typed again
    assert tools._from_bytes["t"][:-1] == typed[:-1]  # noqa: SLF001


def test_a_document_read_twice_switches_open_and_closed_schemas_alike() -> None:
    """A document the typed decode had to read again, short or long, under a schema whose objects
    are all open or not, sends the next ones to the general read (the parse and the backend's
    check cost less than the typed decode and a second read)."""
    fast, _ = engines(DEPTH)
    short = b'{"a":1,"s":"a:b"}'
    for name in ("open", "closed"):
        for data in (short, short + b" " * 300):
            compiled = fast.compile(SCHEMAS[name])
            assert not general(compiled.short_path())
            assert compiled.decode(data) == {"a": 1, "s": "a:b"}
            assert general(compiled.short_path()), (name, data)


@pytest.mark.parametrize("name", ["nested open", "records"])
def test_the_reader_builds_only_the_typeddicts(name: str) -> None:
    fast, _ = engines(DEPTH)
    compiled = fast.compile(SCHEMAS[name])
    typed = compiled._typed  # noqa: SLF001 - which msgspec types are built
    for document in DOCUMENTS:
        for data in (document, document + b" " * 40):
            try:
                compiled.decode(data)
            except (ValidationFailed, DecodeError):
                pass
    assert typed._dicts is not None  # noqa: SLF001
    assert typed._plain is None  # noqa: SLF001 - no Structs that refuse unnamed properties
    assert typed._typed is None  # noqa: SLF001 - nor Structs that ignore them


KEYS = st.sampled_from(["a", "s", "t", "o", "k", "any", "zz", "y:z", 'q"', "a "])
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["x", "y:z", "http://h:1/", '":', '" :', "", "é", "\\", '\\":', '{"k": 1}', '\\\\" :']),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=3)),
    max_leaves=12,
)
SPACING = st.sampled_from([(",", ":"), (", ", ": "), (",", " : "), (" ,", "\t:"), (",\n", "\n:\r")])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from([*SCHEMAS, *GENERAL_SCHEMAS]),
    value=st.dictionaries(KEYS, VALUES, max_size=5),
    spacing=SPACING,
    pad=st.booleans(),
)
def test_generated_documents_are_answered_as_the_exact_path(
    name: str, value: dict[str, Any], spacing: tuple[str, str], pad: bool
) -> None:
    fast, exact = ENGINES
    schema = SCHEMAS[name] if name in SCHEMAS else GENERAL_SCHEMAS[name]
    compiled, judge = fast.compile(schema), exact.compile(schema)
    data = json.dumps(value, separators=spacing, ensure_ascii=False).encode()
    if pad:
        data += b" " * 40
    expected = outcome(judge.decode, data)
    assert outcome(compiled.decode, data) == expected
    assert outcome(compiled.decode, data.decode()) == expected
    tools = TOOLS[name]
    if "t" in tools:
        assert outcome(lambda d: tools.validate_arguments("t", d), data) == expected
    records = json.dumps([value, value], separators=spacing, ensure_ascii=False).encode()
    assert outcome(compiled.decode, records) == outcome(judge.decode, records)


ENGINES = engines(DEPTH)
TOOLS = {
    name: engine.compile_tools([{"name": "t", "inputSchema": schema}], engine=ENGINES[0])
    for name, schema in {**SCHEMAS, **GENERAL_SCHEMAS}.items()
}


def test_the_count_is_of_members_not_of_bytes() -> None:
    """A property the TypedDict skips is never hidden by a colon a string does not hold."""
    fast, _ = engines(DEPTH)
    closed = fast.compile(SCHEMAS["closed"])
    for data in (b'{"a":1,"zz" :1}', b'{"a":1,"s":"x","zz"\n:1}', b'{"s":"","a":1,"zz"  :  null}'):
        with pytest.raises(ValidationFailed):
            closed.decode(data)
    assert msgspec.json.decode(b'{"a":1,"s":"\\" :"}') == closed.decode(b'{"a":1,"s":"\\" :"}')


def _shallow(compiled: Any) -> bool:
    """Whether a compiled schema's reader still parses long documents of the general mode by the
    decoder that shows their depth (see `counted_then_parsed`)."""
    read = compiled.decode
    return bool(read.__closure__[read.__code__.co_freevars.index("shallow")].cell_contents[0])


def _nesting(levels: int) -> bytes:
    """An arguments document nesting ``levels`` arrays and objects, objects and arrays in turn."""
    value: Any = "x:y"
    for level in range(levels - 1):
        value = [value, 1] if level % 2 else {"k": value, "n": -0}
    return json.dumps({"a": 1, "any": value}).encode()


@pytest.mark.parametrize("depth", [2, 3, 4, 256])
@pytest.mark.parametrize("schema", [SCHEMAS["untyped value"], GENERAL_SCHEMAS["one of"]], ids=["typed", "general"])
def test_long_documents_of_the_general_read_show_their_depth_as_they_parse(schema: Any, depth: int) -> None:
    """On the general read (a typed schema's general mode, or a schema with no typed read), a
    document too long to be within the depth bound by its length is parsed by a decoder that
    shows it nests at most `SHOWN_LEVELS` levels, or the bound where that is less; the first one
    that nests deeper, or holds a number out of range, goes to the general path, and the next ones
    are parsed plain and shown within the bound by their values. Every answer is the exact
    path's, in that order."""
    fast, exact = engines(depth)
    judge = exact.compile(schema)
    levels = min(SHOWN_LEVELS, depth)
    pad = b" " * (2 * depth + 2)
    shallow = [
        b'{"a":1,"s":"x:y"}',
        b'{"a":1,"any":[1,"x:y",null,1.5,18446744073709551616]}',
        b'{"a":1,"any":{"k":"x:y","k":-0}}',
        b'{"a":"x","s":"x:y"}',
        b'{"a":1,"any":[]}',
        b'{"a":1',
        *(_nesting(n) for n in range(3, levels + 1)),
    ]
    deep = [_nesting(levels + 1), _nesting(levels + 2), _nesting(depth + 1), b'{"a":1,"any":1e400}']
    for first in deep:
        compiled = fast.compile(schema)  # no cache: a reader of its own
        if schema is SCHEMAS["untyped value"]:
            primed(compiled)
        flags = []
        for document in [*shallow, first, *shallow, *deep]:
            data = document + pad
            assert outcome(compiled.decode, data) == outcome(judge.decode, data), data
            flags.append(_shallow(compiled))
        assert flags == [True] * len(shallow) + [False] * (len(shallow) + len(deep) + 1)


@pytest.mark.parametrize("levels", range(1, SHOWN_LEVELS + 2))
def test_a_levels_parse_is_the_plain_parse_of_documents_within_its_levels(levels: int) -> None:
    """`levels_parser(levels)` gives what `msgspec.json.decode` gives for every document nesting at
    most `levels` levels, and refuses every deeper one (and what the plain parse refuses)."""
    from engine._decode import levels_parser, nesting

    parse = levels_parser(levels)
    documents = [*DOCUMENTS, b"[[1]]", b"[[[1]]]", b'{"k":[{}]}', b'{"k":{"k":[]}}', b"1.0", b"-0", b"[1e2, 1E-2]"]
    documents += [_nesting(n) for n in range(1, SHOWN_LEVELS + 4)]
    documents += [b"[" * n + b"]" * n for n in range(1, SHOWN_LEVELS + 4)]
    for data in documents:
        try:
            plain: Any = ("value", msgspec.json.decode(data))
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            plain = ("error", type(exc))
        try:
            shown: Any = ("value", parse(data))
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            shown = ("error", type(exc))
        if plain[0] == "value" and nesting(plain[1], levels + 1) <= levels:
            assert shown == plain and json.dumps(shown[1]) == json.dumps(plain[1]), data
        else:
            assert shown[0] == "error", data

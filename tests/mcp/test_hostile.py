"""Hostile payloads through the MCP layer: typed errors, never a crash or a hang."""

from __future__ import annotations

import pytest

import engine

# Hostile payloads: each test ends in well under a second; a hang fails it by name.
pytestmark = pytest.mark.timeout(60)

DEEP = b"[" * 100_000 + b"]" * 100_000


@pytest.fixture(scope="module")
def eng() -> engine.Engine:
    return engine.Engine()


@pytest.mark.parametrize(
    "payload",
    [
        b'{"content": [], "structuredContent": ' + DEEP + b"}",
        b'{"content": [], "structuredContent": [1, 2}',
        b"\xff\xfe",
        b"",
        b'{"content": [], "structuredContent": 1e999}',
        b'{"content": [], "structuredContent": "\\ud800"}',
        b"[]",
        b'{"content": [], "isError": 1}',
        b'{"jsonrpc": "2.0", "id": 1}',
    ],
)
@pytest.mark.parametrize("tool", ["typed", "general", "none"])
def test_results(eng: engine.Engine, payload: bytes, tool: str) -> None:
    outputs = {
        "typed": {"type": "array", "items": {"type": "integer"}},
        "general": {"type": "array", "uniqueItems": True},
        "none": None,
    }
    tools = engine.compile_tools(
        [{"name": tool, "inputSchema": {"type": "object"}, "outputSchema": outputs[tool]}],
        engine=eng,
    )
    with pytest.raises((engine.DecodeError, engine.ValidationFailed)):
        tools.validate_result(tool, payload)


def test_oversized(eng: engine.Engine) -> None:
    small = engine.Engine(engine.EngineConfig(limits=engine.Limits(max_instance_bytes=64)))
    tools = engine.compile_tools(
        [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}}],
        engine=small,
    )
    with pytest.raises(engine.DecodeError) as too_large:
        tools.validate_result("t", b'{"content": [], "structuredContent": [' + b"1," * 100 + b"1]}")
    assert too_large.value.reason == "too-large"
    form = engine.compile_elicitation({"type": "object", "properties": {"a": {"type": "string"}}}, engine=small)
    with pytest.raises(engine.DecodeError):
        form.decode_result(b'{"action": "accept", "content": {"a": "' + b"x" * 100 + b'"}}')


def test_elicitation_payloads(eng: engine.Engine) -> None:
    form = engine.compile_elicitation({"type": "object", "properties": {"a": {"type": "string"}}}, engine=eng)
    for payload in (DEEP, b'{"action": "accept", "content": ' + DEEP + b"}", b"null", b'"accept"', b"\xff"):
        with pytest.raises((engine.DecodeError, engine.ValidationFailed)):
            form.decode_result(payload)


def test_form_with_names_msgspec_cannot_rename(eng: engine.Engine) -> None:
    form = engine.compile_elicitation(
        {"type": "object", "properties": {'say "hi"': {"type": "string"}}, "required": ['say "hi"']}, engine=eng
    )
    assert form.decode_result({"action": "accept", "content": {'say "hi"': "hi"}}).content == {'say "hi"': "hi"}
    assert form.decode_result(b'{"action": "accept", "content": {"say \\"hi\\"": "hi"}}').content == {'say "hi"': "hi"}
    with pytest.raises(engine.ValidationFailed):
        form.decode_result(b'{"action": "accept", "content": {}}')


def test_arguments(eng: engine.Engine) -> None:
    tools = engine.compile_tools(
        [{"name": "t", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}}}], engine=eng
    )
    for payload in (b'{"a": ' + DEEP + b"}", b"{", b"\xff", b"1", b"null"):
        with pytest.raises((engine.DecodeError, engine.ValidationFailed)):
            tools.validate_arguments("t", payload)


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (b'{"content": [], "structuredContent": NaN}', "non-finite-number"),
        (b'{"content": [], "structuredContent": [1, 2}', "malformed-json"),
        (b'{"content": [], "structuredContent": "\xff"}', "invalid-utf8"),
        (b'{"content": [], "structuredContent": ' + DEEP + b"}", "too-deep"),
    ],
)
def test_result_decode_reasons_match_the_decoder(eng: engine.Engine, payload: bytes, reason: str) -> None:
    # The envelope's parse failures carry the same reasons as CompiledSchema.decode's.
    tools = engine.compile_tools(
        [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}}],
        engine=eng,
    )
    with pytest.raises(engine.DecodeError) as info:
        tools.validate_result("t", payload)
    assert info.value.reason == reason


def test_elicitation_depth_is_max_instance_depth(eng: engine.Engine) -> None:
    """An answer nesting past `max_instance_depth` (in `_meta`, or a field the form did not ask
    for) is `too-deep`, as any document is, not what msgspec's own nesting limit says."""
    form = engine.compile_elicitation({"type": "object", "properties": {"a": {"type": "string"}}}, engine=eng)
    depth = eng.config.limits.max_instance_depth + 1
    nested = b"[" * depth + b"]" * depth
    for payload in (
        b'{"action": "accept", "content": {"a": "x"}, "_meta": ' + nested + b"}",
        b'{"action": "accept", "content": {"a": "x", "b": ' + nested + b"}}",
    ):
        with pytest.raises(engine.DecodeError) as error:
            form.decode_result(payload)
        assert error.value.reason == "too-deep"
    shallow = b"[" * 10 + b"]" * 10
    answer = form.decode_result(b'{"action": "accept", "content": {"a": "x", "b": ' + shallow + b"}}")
    assert answer.content == {"a": "x"}  # fields the form did not ask for are dropped


def test_elicitation_answers_as_python_objects_get_json_bounds(eng: engine.Engine) -> None:
    from types import MappingProxyType

    form = engine.compile_elicitation({"type": "object", "properties": {"a": {"type": "number"}}}, engine=eng)
    for content, reason in (
        ({"a": float("nan")}, "non-finite-number"),
        (MappingProxyType({"a": 1}), "not-json"),
        ({"a": 1, "b": "\ud800"}, "invalid-utf8"),
    ):
        with pytest.raises(engine.DecodeError) as error:
            form.decode_result({"action": "accept", "content": content})
        assert error.value.reason == reason


@pytest.mark.parametrize("output", [{"type": "object"}, None], ids=["output schema", "none"])
def test_results_as_python_objects_get_json_bounds(eng: engine.Engine, output: dict[str, object] | None) -> None:
    # What no JSON text holds is refused wherever it is in the result, as in arguments: a result
    # given as bytes cannot hold it.
    definition: dict[str, object] = {"name": "t", "inputSchema": {"type": "object"}}
    if output is not None:
        definition["outputSchema"] = output
    tools = engine.compile_tools([definition], engine=eng)
    cycle: dict[str, object] = {}
    cycle["self"] = cycle
    dict_subclass = type("D", (dict,), {})
    structured = {"structuredContent": {}} if output is not None else {}
    for result, reason in (
        ({"content": [{"type": "text", "text": float("nan")}], **structured}, "non-finite-number"),
        ({"content": [{"type": "text", "text": b"x"}], **structured}, "not-json"),
        ({"content": [{"type": "text", "text": "\ud800"}], **structured}, "invalid-utf8"),
        ({"content": [cycle], **structured}, "too-deep"),
        ({"content": [dict_subclass(type="text", text="x")], **structured}, "not-json"),
        ({"content": [], "_meta": {"a": {1, 2}}, **structured}, "not-json"),
        ({"jsonrpc": "2.0", "id": 1, "result": {"content": [], "_meta": {"a": (1,)}, **structured}}, "not-json"),
        ({"content": [], "isError": True, "structuredContent": {"a": float("inf")}}, "non-finite-number"),
        ({"content": [], "structuredContent": {"a": (1,)}}, "not-json"),
    ):
        with pytest.raises(engine.DecodeError) as error:
            tools.validate_result("t", result)
        assert error.value.reason == reason, result
    plain = {"content": [{"type": "text", "text": "ok"}], "_meta": {"a": [1]}, "structuredContent": {"n": 1}}
    assert tools.validate_result("t", plain).meta == {"a": [1]}


_RESULT = b'"content": [{"type": "text", "text": "{\\"n\\": 1}"}], "structuredContent": {"n": 1}'
_NESTED = b"[" * 300 + b"]" * 300  # past max_instance_depth (256) and the envelope around it


@pytest.mark.parametrize("padding", [b"", b" " * 600], ids=["short", "long"])
@pytest.mark.parametrize("output", [{"type": "object", "properties": {"n": {"type": "integer"}}}, None])
@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (b"{" + _RESULT + b', "zz": "\xff"}', "invalid-utf8"),  # a field the result does not name
        (b"{" + _RESULT + b', "zz": 1e999}', "number-out-of-range"),
        (b"{" + _RESULT + b', "zz": ' + _NESTED + b"}", "too-deep"),
        (b'{"content": [{"type": "text", "x": ' + _NESTED + b'}], "structuredContent": {"n": 1}}', "too-deep"),
        (b'{"jsonrpc": "2.0", "id": 1, "result": {' + _RESULT + b', "zz": "\xff"}}', "invalid-utf8"),
        (b'{"jsonrpc": "2.0", "id": "\xff", "result": {' + _RESULT + b"}}", "invalid-utf8"),
        (b'{"jsonrpc": "2.0", "id": 1, "result": {' + _RESULT + b"}, " + b'"zz": 1e999}', "number-out-of-range"),
    ],
)
def test_every_byte_of_a_result_is_read(
    eng: engine.Engine, payload: bytes, reason: str, output: dict[str, object] | None, padding: bytes
) -> None:
    """msgspec skips a field a type does not name without reading it: every field of a result,
    named or not, is held to what a JSON document is, and the whole result to the depth bound."""
    tool: dict[str, object] = {"name": "t", "inputSchema": {"type": "object"}}
    if output is not None:
        tool["outputSchema"] = output
    tools = engine.compile_tools([tool], engine=eng)
    with pytest.raises(engine.DecodeError) as caught:
        tools.validate_result("t", payload + padding)
    assert caught.value.reason == reason
    # The same result without the bad field is read, and an unknown field that is JSON is allowed.
    for good in (b"{" + _RESULT + b"}", b"{" + _RESULT + b', "zz": [1, {"a": null}]}'):
        read = tools.validate_result("t", good + padding)
        assert read.structured_content == {"n": 1} and read.content == [{"type": "text", "text": '{"n": 1}'}]

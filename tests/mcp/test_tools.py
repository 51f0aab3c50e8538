"""Tool sets over the real corpus and the MCP rules: inputSchema shape, structuredContent, isError."""

from __future__ import annotations

import array
import json
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from types import MappingProxyType
from typing import Any

import jsonschema_rs
import msgspec
import pytest

import engine
from benchmarks.instances import valid_instance

DATA = Path(__file__).parents[2] / "bench_data"
TOOL_FILES = sorted((DATA / "tools").glob("*.json"))
RESULTS = json.loads((DATA / "structured" / "tool-results.json").read_text())

# Refusals in the corpus, each with its reason (checked exactly: a new one must be looked at).
EXPECTED_REJECTED = {
    # Two spec example files define a tool of the same name: the set cannot tell them apart.
    "mcp-spec-conformance.json": {"calculate_sum": "invalid-schema"},
    # zod emitted tuple-form `items` under 2020-12 (no $schema): the meta-schema refuses it.
    "sentry-mcp.json": {"create_uptime_monitor": "invalid-schema", "update_uptime_monitor": "invalid-schema"},
}


@pytest.fixture(scope="module")
def eng() -> engine.Engine:
    return engine.Engine(engine.EngineConfig(backend="auto"))


@pytest.mark.parametrize("path", TOOL_FILES, ids=lambda p: p.name)
def test_corpus_compiles(eng: engine.Engine, path: Path) -> None:
    tools = json.loads(path.read_text())
    toolset = engine.compile_tools(tools, engine=eng)
    # The same from the bytes of a tools/list result and of a whole JSON-RPC response.
    as_result = engine.compile_tools(json.dumps({"tools": tools}).encode(), engine=eng)
    as_response = engine.compile_tools(json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}}), engine=eng)
    assert list(toolset) == list(as_result) == list(as_response)
    rejected = {name: str(exc.reason) for name, exc in toolset.rejected.items()}
    assert rejected == EXPECTED_REJECTED.get(path.name, {})
    assert len(toolset) + len(toolset.rejected) == len({t["name"] for t in tools})
    for name, exc in toolset.rejected.items():
        assert exc.details.get("tool") == name or "more than once" in exc.message
    for name in toolset:
        tool = toolset.tool(name)
        assert tool.input.dialect is not None
        # Every compiled tool accepts an object its schema is happy with when it requires nothing.
        if not tool.definition["inputSchema"].get("required") and not tool.input.schema.get("anyOf"):
            if tool.input.is_valid({}):
                assert toolset.validate_arguments(name, {}) == {}
                assert toolset.validate_arguments(name, b"{}") == {}


def test_recorded_arguments_and_results(eng: engine.Engine) -> None:
    checked = 0
    for entry in RESULTS:
        tool = {"name": entry["tool"], "inputSchema": {"type": "object"}, "outputSchema": entry["outputSchema"]}
        toolset = engine.compile_tools([tool], engine=eng)
        result = entry["result"]
        raw = json.dumps(result).encode()
        from_bytes = toolset.validate_result(entry["tool"], raw)
        from_dict = toolset.validate_result(entry["tool"], result)
        assert from_bytes == from_dict
        assert from_bytes.is_error is bool(result.get("isError", False))
        if "structuredContent" in result:
            assert from_bytes.structured_content == result["structuredContent"]
        else:
            assert not from_bytes.has_structured_content
        # The wire form comes back (fields of CallToolResult; later protocol fields are not kept).
        known = {"content", "structuredContent", "isError", "_meta"}
        assert msgspec.to_builtins(from_bytes) == {
            k: v for k, v in result.items() if k in known and (k != "isError" or v)
        }
        checked += 1
    assert checked == len(RESULTS) == 73


def _weather_tools(eng: engine.Engine) -> engine.ToolSet:
    return engine.compile_tools(
        [
            {
                "name": "weather",
                "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
                "outputSchema": {
                    "type": "object",
                    "properties": {"t": {"type": "number"}},
                    "required": ["t"],
                    "additionalProperties": False,
                },
            },
            {"name": "anything", "inputSchema": {"type": "object"}, "outputSchema": {"type": ["null", "array"]}},
            {"name": "plain", "inputSchema": {"type": "object"}},
        ],
        engine=eng,
    )


def _arguments_outcome(tools: engine.ToolSet, name: str, arguments: Any) -> Any:
    try:
        return ("valid", tools.validate_arguments(name, arguments))
    except engine.ValidationFailed as failure:
        return ("invalid", [(i.instance_path, i.keyword) for i in failure.issues])
    except engine.DecodeError as error:
        return ("refused", str(error.reason))


_ARGUMENT_FORMS: list[Any] = [
    None,
    {"city": "Oslo"},
    b'{"city": "Oslo"}',
    '{"city": "Oslo"}',
    bytearray(b'{"city": "Oslo"}'),
    memoryview(b'{"city": "Oslo"}'),
    MappingProxyType({"city": "Oslo"}),
    {"city": 3},
    '{"city": 3}',
    b'{"city": ',
    "[]",
]


@pytest.mark.parametrize("first", range(len(_ARGUMENT_FORMS)))
def test_every_form_of_arguments_answers_alike_whatever_came_first(eng: engine.Engine, first: int) -> None:
    """A tool's readers are bound on its first call, whichever form of arguments it takes (none,
    text, a buffer, a mapping, a dict, bytes), and once only: every form then answers as on a
    tool's first call, call after call."""
    expected = [_arguments_outcome(_weather_tools(eng), "weather", form) for form in _ARGUMENT_FORMS]
    assert expected[0][0] == "invalid" and expected[1] == ("valid", {"city": "Oslo"})
    tools = _weather_tools(eng)
    order = [first, *(i for i in range(len(_ARGUMENT_FORMS)) if i != first)]
    for _ in range(2):
        for i in order:
            assert _arguments_outcome(tools, "weather", _ARGUMENT_FORMS[i]) == expected[i], _ARGUMENT_FORMS[i]


def test_arguments(eng: engine.Engine) -> None:
    tools = _weather_tools(eng)
    assert tools.validate_arguments("weather", {"city": "Oslo"}) == {"city": "Oslo"}
    assert tools.validate_arguments("weather", b'{"city": "Oslo"}') == {"city": "Oslo"}
    none = tools.validate_arguments("plain", None)
    assert none == {}
    none["changed"] = True  # each call's dict is its own
    assert tools.validate_arguments("plain", None) == {}
    with pytest.raises(engine.ValidationFailed) as failure:
        tools.validate_arguments("weather", {"city": 3})
    assert failure.value.issues[0].instance_path == "/city"
    with pytest.raises(engine.ValidationFailed):
        tools.validate_arguments("weather", b"[]")
    with pytest.raises(engine.DecodeError):
        tools.validate_arguments("weather", b'{"city": ')
    answer = engine.invalid_arguments_result(failure.value, "weather")
    assert answer["isError"] is True
    assert answer["structuredContent"]["error"]["issues"][0]["instancePath"] == "/city"
    assert "weather" in answer["content"][0]["text"] and "/city" in answer["content"][0]["text"]
    assert json.loads(json.dumps(answer)) == answer


def test_unknown_tool(eng: engine.Engine) -> None:
    tools = _weather_tools(eng)
    with pytest.raises(engine.UnknownTool) as unknown:
        tools.validate_arguments("nope", {})
    assert isinstance(unknown.value, engine.EngineError)
    assert unknown.value.to_jsonrpc_error()["code"] == -32602
    with pytest.raises(engine.UnknownTool):
        tools.validate_result("nope", {"content": []})


def test_structured_content_rules(eng: engine.Engine) -> None:
    tools = _weather_tools(eng)
    good = tools.validate_result("weather", b'{"content": [], "structuredContent": {"t": 3}}')
    assert good.structured_content == {"t": 3}
    # Issues are located in the result.
    with pytest.raises(engine.ValidationFailed) as failure:
        tools.validate_result("weather", b'{"content": [], "structuredContent": {"t": "hot"}}')
    assert failure.value.issues[0].instance_path == "/structuredContent/t"
    with pytest.raises(engine.ValidationFailed):
        tools.validate_result("weather", {"content": [], "structuredContent": {"t": 3, "x": 1}})
    # A tool with an outputSchema must return structuredContent ...
    with pytest.raises(engine.ValidationFailed) as missing:
        tools.validate_result("weather", b'{"content": [{"type": "text", "text": "hi"}]}')
    assert missing.value.issues[0].instance_path == "/structuredContent"
    # ... unless the result is an error, which is never checked against it.
    err = tools.validate_result("weather", b'{"content": [], "isError": true, "structuredContent": {"t": "?"}}')
    assert err.is_error and err.structured_content == {"t": "?"}
    # null is a value, not an absence.
    null = tools.validate_result("anything", b'{"content": [], "structuredContent": null}')
    assert null.has_structured_content and null.structured_content is None
    assert tools.validate_result("anything", {"content": [], "structuredContent": None}).structured_content is None
    assert tools.validate_result("anything", b'{"content": [], "structuredContent": [1, "a"]}').structured_content == [
        1,
        "a",
    ]
    with pytest.raises(engine.ValidationFailed):
        tools.validate_result("anything", b'{"content": [], "structuredContent": "text"}')
    with pytest.raises(engine.ValidationFailed):
        tools.validate_result("anything", b'{"content": []}')
    # Without an outputSchema, any JSON value passes and is decoded.
    assert tools.validate_result("plain", b'{"content": [], "structuredContent": 1.5}').structured_content == 1.5
    # A whole JSON-RPC response is read too; an error response is not a result.
    wrapped = b'{"jsonrpc": "2.0", "id": 7, "result": {"content": [], "structuredContent": {"t": 1}}}'
    assert tools.validate_result("weather", wrapped).structured_content == {"t": 1}
    with pytest.raises(engine.ValidationFailed):
        tools.validate_result("weather", b'{"jsonrpc": "2.0", "id": 7, "error": {"code": 1, "message": "x"}}')
    # A broken envelope names the field.
    with pytest.raises(engine.ValidationFailed) as envelope:
        tools.validate_result("plain", b'{"content": "text"}')
    assert envelope.value.issues[0].instance_path == "/content"
    with pytest.raises(engine.ValidationFailed):
        tools.validate_result("plain", {"content": [], "isError": "yes"})
    with pytest.raises(engine.DecodeError):
        tools.validate_result("plain", b'{"content": [], "structuredContent": {"a": }')


def test_input_schema_must_be_an_object_schema(eng: engine.Engine) -> None:
    tools = engine.compile_tools(
        [
            {"name": "array", "inputSchema": {"type": "array"}},
            {"name": "missing"},
            {"name": "null", "inputSchema": None},
            {"name": "empty", "inputSchema": {}},
            {"name": "true", "inputSchema": True},
            {"name": "false", "inputSchema": False},
            {"name": "bad-output", "inputSchema": {"type": "object"}, "outputSchema": {"type": 12}},
            {"inputSchema": {"type": "object"}},
        ],
        engine=eng,
    )
    assert set(tools) == {"empty", "true"}
    assert tools.rejected["array"].location == "/inputSchema/type"
    assert tools.rejected["bad-output"].details["schema"] == "outputSchema"
    assert all(r.reason == "invalid-schema" for r in tools.rejected.values())
    assert "<tools[7]>" in tools.rejected
    # `true`/`{}` mean "no parameters": arguments are still an object.
    assert tools.validate_arguments("empty", {"anything": 1}) == {"anything": 1}
    with pytest.raises(engine.ValidationFailed):
        tools.validate_arguments("true", b"[1]")
    with pytest.raises(engine.SchemaRejected) as rejected:
        tools.validate_arguments("array", {})
    assert rejected.value.reason == "invalid-schema" and "'array'" in rejected.value.message
    strict = engine.Engine(engine.EngineConfig(allow_empty_input_schema=False))
    refused = engine.compile_tools(
        [{"name": "empty", "inputSchema": {}}, {"name": "true", "inputSchema": True}],
        engine=strict,
    )
    assert set(refused.rejected) == {"empty", "true"} and not len(refused)


def test_not_a_tool_list(eng: engine.Engine) -> None:
    with pytest.raises(engine.SchemaRejected):
        engine.compile_tools({"tools": "none"}, engine=eng)
    # Bytes or text that are not acceptable JSON: refused as `Engine.compile` refuses a schema's.
    for data, why in (
        (b"[", "malformed-json"),
        (b"\xff", "malformed-json"),
        ("[" * 100_000, "too-deep"),
        (b" " * (eng.config.limits.max_schema_bytes * 16 + 1), "too-large"),
    ):
        with pytest.raises(engine.SchemaRejected) as rejected:
            engine.compile_tools(data, engine=eng)
        assert rejected.value.reason == "invalid-schema"
        assert rejected.value.message.startswith("the tool list is not acceptable JSON: ")
        assert rejected.value.details == {"decode_reason": why}


@pytest.mark.parametrize("backend", ["auto", "jsonschema-rs"])
def test_results_through_each_path(backend: str) -> None:
    """Output schemas msgspec takes, and ones it refuses (checked by jsonschema-rs after the same
    single pass), give the same answers from bytes and from dicts."""
    eng = engine.Engine(engine.EngineConfig(backend=backend))
    schemas = {
        "closed": {
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "required": ["n"],
            "additionalProperties": False,
        },
        "open": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
        "allof": {"allOf": [{"type": "object"}], "required": ["n"], "properties": {"n": {"type": "integer"}}},
    }
    tools = engine.compile_tools(
        [{"name": k, "inputSchema": {"type": "object"}, "outputSchema": v} for k, v in schemas.items()], engine=eng
    )
    if backend == "auto":
        assert tools.tool("closed").output.backend == "msgspec"
        assert tools.tool("open").output.backend == "msgspec"  # optimistically closed
        assert tools.tool("allof").output.backend == "jsonschema-rs"
    cases = [({"n": 1}, True), ({"n": 1.0}, True), ({"n": "1"}, False), ({}, False), ([], False), (None, False)]
    for name in schemas:
        for value, valid in cases:
            if name != "closed" and value == {"n": 1}:
                value = {"n": 1, "extra": [1]}
            result = {"content": [], "structuredContent": value}
            for data in (json.dumps(result).encode(), result):
                if valid:
                    assert tools.validate_result(name, data).structured_content == value
                else:
                    with pytest.raises(engine.ValidationFailed) as failure:
                        tools.validate_result(name, data)
                    assert failure.value.issues[0].instance_path.startswith("/structuredContent")
            # An error result is never checked against the output schema.
            errored = json.dumps({"content": [], "isError": True, "structuredContent": value}).encode()
            assert tools.validate_result(name, errored).structured_content == value


@pytest.mark.parametrize("path", TOOL_FILES, ids=lambda p: p.name)
def test_arguments_from_bytes_agree_with_the_general_path(eng: engine.Engine, path: Path) -> None:
    """`validate_arguments` reads documents inline (one decode through TypedDicts, and a count of
    colons): on every corpus tool, valid, invalid, with an unnamed property (one whose colon
    follows a space, one holding colons), short and padded past the inline limit, compact and
    spaced, from the first call and the bound one, it gives what jsonschema-rs on the parsed
    document says, and the parsed document itself (key order included)."""
    tools = json.loads(path.read_text())
    toolset = engine.compile_tools(tools, engine=eng)
    for tool in tools:
        if tool["name"] in toolset.rejected:
            continue
        schema = tool["inputSchema"]
        seed = valid_instance(schema) if isinstance(schema, dict) else None
        if not isinstance(seed, dict):
            continue
        oracle = jsonschema_rs.validator_for(schema)
        first = next(iter(seed), None)
        variants = [seed, {**seed, "zz_extra": [1, {"a": None}]}, {"zz_extra": 1, **seed}, {**seed, "zz": "h://x"}]
        if first is not None:
            variants.append({**seed, first: [{"deep": [1.5]}]})
        for value in variants:
            encoded = msgspec.json.encode(value)
            spaced = json.dumps(value, separators=(", ", " : ")).encode()
            for data in (encoded, encoded + b" " * 600, spaced, json.dumps(value, indent=1).encode()):
                for _ in range(2):  # the first call binds the readers; the second uses them
                    if oracle.is_valid(value):
                        got = toolset.validate_arguments(tool["name"], data)
                        assert json.dumps(got) == json.dumps(value), (tool["name"], data)
                    else:
                        with pytest.raises(engine.ValidationFailed):
                            toolset.validate_arguments(tool["name"], data)


def _outcome(call: Any) -> Any:
    """A call's answer, comparable: the result as JSON text (key order included), or the error's
    type, reason and issues."""
    try:
        result = call()
    except engine.DecodeError as error:
        return ("decode", str(error.reason))
    except engine.ValidationFailed as error:
        return ("invalid", [(i.instance_path, i.keyword, i.message) for i in error.issues])
    assert type(result) is engine.CallToolResult
    return json.dumps(msgspec.to_builtins(result))


def _result_documents(result: dict[str, Any]) -> list[bytes]:
    """Results around a recorded one: as recorded, structuredContent invalid, missing, null, long,
    deep or too deep, with properties the schema does not name (some of them bytes no JSON parser
    accepts), isError set (with structuredContent and without), `_meta`, JSON-RPC responses (with
    a result, an error, both, neither); each short and padded past the length read without a scan."""
    structured = result.get("structuredContent")
    values: list[Any] = [structured, None, "HOLE", [1, "two"], {"zz": {"not": ["a", 2]}}]
    if isinstance(structured, dict):
        first = next(iter(structured), "zz")
        values += [
            {**structured, "zz_extra": [1, {"a": None}]},
            {"zz_extra": "HOLE", **structured},
            {**structured, first: {"deep": [1.5]}},
            {**structured, "zz_extra": "x" * 600},
            dict(reversed(structured.items())),
        ]
    envelopes: list[Any] = []
    for value in values:
        envelope = {"content": result.get("content", []), "structuredContent": value}
        envelopes += [envelope, {**envelope, "isError": True}, {**envelope, "_meta": {"k": "HOLE"}}]
        envelopes.append({"jsonrpc": "2.0", "id": 1, "result": envelope})
    envelopes += [
        {"content": result.get("content", [])},
        {"content": result.get("content", []), "isError": True},  # an error result may omit it
        {"content": result.get("content", []), "isError": True, "_meta": {"k": "HOLE"}},
        {"content": "HOLE"},
        [],
        {"content": [], "isError": 1},
        {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "HOLE"}},
        {"jsonrpc": "2.0", "id": "HOLE"},
        {"jsonrpc": "2.0", "id": 2, "result": {"content": [], "isError": True}},
        {"jsonrpc": "2.0", "id": 3, "error": {"code": 1, "message": "x"}, "result": {"structuredContent": structured}},
        # a response with result fields of its own besides its result: the result is what is read
        {"jsonrpc": "2.0", "id": 4, "result": {"structuredContent": structured}, "content": "HOLE", "isError": True},
        {"jsonrpc": 2, "id": 5, "result": {"structuredContent": structured}},  # `jsonrpc` is a string
        {"content": [{"type": "text", "text": "x"}, "HOLE"], "structuredContent": structured},
        # the Python SDK's serialisation: `meta` for `_meta`, nulls for absent fields
        {"meta": None, "content": [{"type": "text", "text": "HOLE", "meta": None}], "structuredContent": structured},
        # a response's own result-named members, and a bare result's response-named ones: typed
        # by the envelope, so read whole (and held to JSON) wherever the document is read
        {"jsonrpc": "2.0", "id": 6, "result": {"structuredContent": structured}, "structuredContent": "HOLE"},
        {"jsonrpc": "2.0", "id": 7, "result": {"structuredContent": structured}, "_meta": {"k": "HOLE"}},
        {"jsonrpc": "2.0", "id": 8, "result": {"structuredContent": structured}, "content": [{"k": "HOLE"}]},
        {"jsonrpc": "2.0", "id": 9, "result": {"isError": True}, "structuredContent": "HOLE"},
        {"content": [], "structuredContent": structured, "error": "HOLE"},
        {"content": [], "structuredContent": structured, "id": "HOLE"},
        {"content": [], "structuredContent": structured, "result": {"structuredContent": "HOLE"}},
        {"content": [], "structuredContent": structured, "result": 2},
        {"content": [], "structuredContent": structured, "result": {"content": "HOLE"}},
        # a 2026-07-28 result's `resultType`, read in one pass and held to JSON there too
        {"resultType": "complete", "content": result.get("content", []), "structuredContent": structured},
        {"content": [], "structuredContent": structured, "resultType": "HOLE"},
        {"resultType": {"k": ["HOLE"]}, "content": [], "structuredContent": structured, "isError": True},
        {"jsonrpc": "2.0", "id": 10, "result": {"resultType": "HOLE", "structuredContent": structured}},
        {"resultType": "input_required", "inputRequests": {"k": {"method": "HOLE"}}},
    ]
    holes = [b'"\\u00e9"', b'"\xff"', b"1e999", b"[" * 250 + b"]" * 250, b"[" * 300 + b"]" * 300]
    documents: list[bytes] = []
    for envelope in envelopes:
        document = msgspec.json.encode(envelope)
        for filled in [document.replace(b'"HOLE"', hole) for hole in holes] if b'"HOLE"' in document else [document]:
            documents += [filled, filled + b" " * 600]
    return documents


def _duplicated_members(result: dict[str, Any]) -> list[bytes]:
    """Results (and responses) naming a member twice, the first time with a value of the wrong
    type or one no JSON parser accepts, the last time as recorded: a dict cannot hold them."""
    envelope = msgspec.json.encode(
        {"content": result.get("content", []), "structuredContent": result.get("structuredContent")}
    )
    deep = b"[" * 300 + b"]" * 300
    firsts = [b'"content":false,', b'"isError":{"a":1},', b'"_meta":7,', b'"structuredContent":"\xff",']
    firsts += [b'"content":[{"a":' + deep + b"}],", b'"_meta":{"a":1e999},', b'"structuredContent":' + deep + b","]
    firsts += [b'"resultType":"\xff",', b'"resultType":' + deep + b","]
    # values a raw slice would skip unread: bytes no parser accepts inside an object or an array
    firsts += [b'"structuredContent":{"s":"\xff"},', b'"structuredContent":[1e400],']
    firsts += [b'"structuredContent":{"s":"\\ud800"},']
    documents = [b"{" + first + envelope[1:] for first in firsts]
    documents += [
        b'{"jsonrpc":false,"jsonrpc":"2.0","id":1,"result":' + envelope + b"}",
        b'{"jsonrpc":"2.0","id":1,"result":"x","result":' + envelope + b"}",
        b'{"jsonrpc":"2.0","id":1,"result":' + b"{" + b'"isError":3,' + envelope[1:] + b"}",
        b'{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"s":"\xff"}},"result":' + envelope + b"}",
        b'{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":[1e999]},"result":' + envelope + b"}",
    ]
    return documents + [document + b" " * 600 for document in documents]


def _with_output_schemas(eng: engine.Engine) -> Iterator[tuple[dict[str, Any], str, engine.ToolSet]]:
    """Every corpus result whose tool declares an outputSchema, its tool's name, and that tool
    alone compiled on ``eng``."""
    for entry in RESULTS:
        if entry["outputSchema"] is not None:
            tool = {"name": entry["tool"], "inputSchema": {"type": "object"}, "outputSchema": entry["outputSchema"]}
            yield entry, entry["tool"], engine.compile_tools([tool], engine=eng)


@pytest.mark.parametrize(("backend", "max_depth"), [("auto", 256), ("jsonschema-rs", 256), ("auto", 8)])
def test_results_from_bytes_agree_with_the_exact_path(backend: str, max_depth: int) -> None:
    """`validate_result` reads short results inline and others through a reader bound per tool:
    on every corpus result with an outputSchema, and the variants around it (see
    `_result_documents`), from the first call and the bound one, it answers exactly what the
    exact path answers: the same result (key order included) or the same error and issues. With
    a depth bound of 8, almost every result is longer than the inline read and some corpus values
    nest past the bound. The same documents from a tool without an output schema are read as its
    exact path reads them, before and after one with fields of its own binds the plain reader."""
    eng = engine.Engine(engine.EngineConfig(backend=backend, limits=engine.Limits(max_instance_depth=max_depth)))
    checked = 0
    for entry, name, tools in _with_output_schemas(eng):
        # The same results from a tool without an output schema: read, never checked.
        bare = engine.compile_tools([{"name": name, "inputSchema": {"type": "object"}}], engine=eng)
        for data in _result_documents(entry["result"]) + _duplicated_members(entry["result"]):
            exact = _outcome(partial(tools._judged_result, name, data, is_bytes=True, require_text_fallback=False))
            unchecked = _outcome(partial(bare._judged_result, name, data, is_bytes=True, require_text_fallback=False))
            for _ in range(2):  # the first call binds the readers; the second uses them
                assert _outcome(partial(tools.validate_result, name, data)) == exact, data
                assert _outcome(partial(bare.validate_result, name, data)) == unchecked, data
        checked += 1
    assert checked == 35


@pytest.mark.parametrize("output", [True, False])
@pytest.mark.parametrize("max_depth", [5, 256])
def test_long_results_show_their_depth_as_they_decode_until_one_nests_deeper(max_depth: int, output: bool) -> None:
    """A result too long to be within the depth bound by its length is decoded (inline, or by the
    reader of a tool without an output schema) by a decoder that shows it nests at most
    `SHALLOW_NESTING` levels (where the bound admits as many), until one of the tool's results
    nests deeper; then its results' values show their depth, as before. Every answer is the exact
    path's, in that order."""
    from engine._mcp.envelope import SHALLOW_NESTING

    eng = engine.Engine(engine.EngineConfig(limits=engine.Limits(max_instance_depth=max_depth)))
    tool: dict[str, Any] = {"name": "t", "inputSchema": {"type": "object"}}
    if output:
        tool["outputSchema"] = {"type": "object"}
    text = [{"type": "text", "text": "x: y " * 200}]
    shallow = [
        {"content": text, "structuredContent": {"a": [{"b": [1, "x"]}]}},
        {"jsonrpc": "2.0", "id": [[1]], "result": {"content": text, "structuredContent": {}, "_meta": {"k": [[{}]]}}},
        {"content": text, "structuredContent": {"a": 1e300}, "resultType": {"k": [[[1]]]}},
        {"content": text, "structuredContent": [1]},
        {"content": text, "isError": True},
    ]
    deep = [
        {"content": text, "structuredContent": {"a": [{"b": [[1]]}]}},
        {"content": [{"type": "text", "text": "x", "k": [[[[[1]]]]]}], "structuredContent": {"a": "x" * 600}},
        {"content": text, "structuredContent": {"a": [[[[[[[[1]]]]]]]]}},
    ]
    for first in deep:
        tools = engine.compile_tools([tool], engine=eng)
        decoders = []
        for result in [*shallow, first, *shallow, *deep]:
            data = msgspec.json.encode(result)
            exact = _outcome(partial(tools._judged_result, "t", data, is_bytes=True, require_text_fallback=False))
            assert _outcome(partial(tools.validate_result, "t", data)) == exact, result
            decoders.append(tools._results["t"][-1][4] is not None)  # noqa: SLF001 - the decoder, or none
        # The output schema's bound, or without one, the whole result's (two levels more).
        used = (max_depth if output else max_depth + 2) >= SHALLOW_NESTING
        assert decoders == [used] * len(shallow) + [False] * (len(shallow) + len(deep) + 1)


@pytest.mark.parametrize("max_depth", [8, 256])
def test_a_member_named_twice_is_read_whole_by_a_fresh_tool_set(max_depth: int) -> None:
    """A result naming a member twice, its first value one no parser accepts (or nesting past the
    bound), is answered as on the exact path by a tool set's first reads too, before anything has
    switched the tool to the plain reader: the reader that keeps ``structuredContent`` raw would
    skip the first value unread (msgspec keeps the last)."""
    eng = engine.Engine(engine.EngineConfig(limits=engine.Limits(max_instance_depth=max_depth)))
    checked = 0
    for entry, name, _ in _with_output_schemas(eng):
        tool = {"name": name, "inputSchema": {"type": "object"}, "outputSchema": entry["outputSchema"]}
        for data in _duplicated_members(entry["result"]):
            tools = engine.compile_tools([tool], engine=eng)  # a reader of its own, fresh
            exact = _outcome(partial(tools._judged_result, name, data, is_bytes=True, require_text_fallback=False))
            for _ in range(2):
                assert _outcome(partial(tools.validate_result, name, data)) == exact, data
            checked += 1
    assert checked > 500


@pytest.mark.parametrize("output", [True, False])
def test_the_result_table_follows_the_switch_to_the_plain_reader(output: bool) -> None:
    """Once a tool's result carries a field the envelope does not name, its results are read plain
    (see `bind_results`): ``validate_result`` takes the readers' new limits after that call, so the
    next results skip the typed read inline, and every answer stays the same."""
    tool: dict[str, Any] = {"name": "t", "inputSchema": {"type": "object"}}
    if output:
        tool["outputSchema"] = {"type": "object", "properties": {"n": {"type": "integer"}}}
    tools = engine.compile_tools([tool], engine=engine.Engine())
    typed = b'{"content": [], "structuredContent": {"n": 1}}'
    own = b'{"content": [], "structuredContent": {"n": 1}, "meta": {"k": "v"}}'
    assert tools.validate_result("t", typed).structured_content == {"n": 1}
    inline, _, _, _, first, *_, bound = tools._results["t"]  # noqa: SLF001 - the inline limit, the reader
    assert inline == (tools._within if output else -1)  # noqa: SLF001
    assert tools.validate_result("t", own).structured_content == {"n": 1}
    inline, _, _, _, read, *_, bound = tools._results["t"]  # noqa: SLF001
    assert inline == -1 and read is bound[3] and read is not first
    for data in (typed, own):
        assert tools.validate_result("t", data).structured_content == {"n": 1}
    if output:
        with pytest.raises(engine.ValidationFailed):
            tools.validate_result("t", b'{"content": [], "structuredContent": {"n": "x"}, "meta": 1}')


@pytest.mark.parametrize("backend", ["auto", "jsonschema-rs"])
def test_results_as_dicts_agree_with_the_same_results_in_bytes(backend: str) -> None:
    """A result given as a dict (what ``json.loads`` makes of its bytes) is accepted exactly when
    its bytes are, with the same value: the envelope's shape (a JSON-RPC response's own fields
    named like a result's included) is held to the same rules in both forms."""
    eng = engine.Engine(engine.EngineConfig(backend=backend))
    compared = 0
    for entry, name, tools in _with_output_schemas(eng):
        for data in _result_documents(entry["result"]):
            if b"1e999" in data or b"[" * 300 in data:
                # Out of range or too deep for bytes anywhere; in a dict, only structuredContent
                # is the engine's to read (content blocks and `_meta` are the caller's objects).
                continue
            try:
                value = json.loads(data)
            except ValueError:  # not JSON: there is no dict to give
                continue
            exact = _outcome(partial(tools._judged_result, name, data, is_bytes=True, require_text_fallback=False))
            given = _outcome(partial(tools.validate_result, name, value))
            if isinstance(exact, str) or isinstance(given, str):
                assert given == exact, data
            compared += 1
    assert compared > 1000


def _structured_values(structured: Any) -> list[Any]:
    """structuredContent values around a recorded one: as recorded, wrong, with a property the
    schema does not name, nested past a depth bound of 8, and values no JSON document decodes to
    (a NaN, a set, a tuple, a str subclass, a key that is not a string, a lone surrogate, a
    cycle, a shared-object bomb)."""

    class Text(str):
        __slots__ = ()

    cycle: list[Any] = []
    cycle.append(cycle)
    bomb: Any = [0]
    for _ in range(40):
        bomb = [bomb, bomb]
    values: list[Any] = [structured, None, "x", [1, "two"], {"zz": {"not": ["a", 2]}}, _nested(12, 1)]
    values += [float("nan"), {1, 2}, (1, 2), Text("a"), {1: "a"}, "\ud800", cycle, bomb]
    if isinstance(structured, dict):
        first = next(iter(structured), "zz")
        values += [
            {**structured, "zz_extra": [1, {"a": None}]},
            {**structured, first: {"deep": [1.5]}},
            {**structured, first: float("inf")},
            {**structured, first: "\udfff"},
            {**structured, first: (1,)},
            {**structured, "zz": _nested(12, "x")},
            dict(reversed(structured.items())),
        ]
    return values


@pytest.mark.parametrize(("backend", "max_depth"), [("auto", 256), ("jsonschema-rs", 8)])
def test_structured_content_alone_answers_as_the_result_dict_carrying_it(backend: str, max_depth: int) -> None:
    """``validate_structured`` (what the adapters call with an SDK's structuredContent) answers as
    ``validate_result`` answers the dict result carrying it: the same value, or the same error
    with the same issues, on every corpus result and the values around it, for tools with an
    outputSchema and without one; an unknown and a refused tool are refused as there."""
    eng = engine.Engine(engine.EngineConfig(backend=backend, limits=engine.Limits(max_instance_depth=max_depth)))
    compared = 0
    for entry, name, tools in _with_output_schemas(eng):
        bare = engine.compile_tools([{"name": name, "inputSchema": {"type": "object"}}], engine=eng)
        for value in _structured_values(entry["result"].get("structuredContent")):
            for toolset in (tools, bare):
                whole = _outcome(partial(toolset.validate_result, name, {"content": [], "structuredContent": value}))
                alone = _outcome(lambda: _as_result(toolset.validate_structured(name, value)))  # noqa: B023
                assert alone == whole, (name, value)
                compared += 1
    assert compared > 1000
    rejected = engine.compile_tools([{"name": "r", "inputSchema": {"type": "string"}}], engine=eng)
    for toolset, name, error in ((rejected, "r", engine.SchemaRejected), (rejected, "none", engine.UnknownTool)):
        for _ in range(2):  # each time: a refusal binds no check
            with pytest.raises(error):
                toolset.validate_structured(name, {})


def _as_result(structured: Any) -> engine.CallToolResult:
    return engine.CallToolResult(content=[], structured_content=structured, is_error=False)


def _nested(depth: int, bottom: Any) -> Any:
    """``bottom`` inside ``depth`` arrays and objects, alternating."""
    value = bottom
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


@pytest.mark.parametrize("max_depth", [6, 7])
@pytest.mark.parametrize("output", [True, False])
def test_long_results_at_the_depth_bound_agree_with_the_exact_path(max_depth: int, output: bool) -> None:
    """A result too long to be within the depth bound by its length is shown within it by its
    decoded values, a level at a time, which miss an empty array or object at the bottom: results
    and responses nesting one level under the bound, at it and one over, the deepest value in
    each member (empty or not at the bottom), long with text or with spaces, answer as the
    exact path does, on the first call and the bound one."""
    eng = engine.Engine(engine.EngineConfig(limits=engine.Limits(max_instance_depth=max_depth)))
    tool: dict[str, Any] = {"name": "t", "inputSchema": {"type": "object"}}
    if output:
        tool["outputSchema"] = {"type": "object"}
    tools = engine.compile_tools([tool], engine=eng)
    documents: list[bytes] = []
    for inside in range(max_depth - 4, max_depth + 1):  # the envelope, and a response, around it
        for bottom in (1, [], {}, "x"):
            deep = _nested(inside, bottom)
            text = {"type": "text", "text": "[{" * 300}
            results = [
                {"content": [text], "structuredContent": {"a": deep}},
                {"content": [text, {"type": "text", "text": "x", "_meta": deep}], "structuredContent": {}},
                {"content": [text], "structuredContent": {}, "_meta": {"a": deep}},
                {"content": [text], "structuredContent": {}, "resultType": deep},
                {"content": [text], "structuredContent": {"a": deep}, "isError": True},
            ]
            for result in results:
                documents.append(msgspec.json.encode(result))
                documents.append(msgspec.json.encode({"jsonrpc": "2.0", "id": 1, "result": result}))
                documents.append(msgspec.json.encode({"jsonrpc": "2.0", "id": deep, "result": result}))
                documents.append(msgspec.json.encode({**result, "content": []}) + b" " * 600)
                # a bare result with a response's members: read on the exact path
                for member in ("id", "error", "result"):
                    documents.append(msgspec.json.encode({**result, member: {"content": [{"x": deep}]}}))
    outcomes = set()
    for data in documents:
        exact = _outcome(partial(tools._judged_result, "t", data, is_bytes=True, require_text_fallback=False))
        outcomes.add(exact if isinstance(exact, tuple) else "accepted")
        for _ in range(2):  # the first call binds the readers; the second uses them
            assert _outcome(partial(tools.validate_result, "t", data)) == exact, data
    assert {"accepted", ("decode", "too-deep")} <= outcomes


def _views(data: bytes) -> list[memoryview]:
    """``data`` (a multiple of 8 bytes long) in memoryviews whose ``len`` is not its length in
    bytes: of 8-byte items, of two dimensions, strided."""
    wide = array.array("Q")
    wide.frombytes(data)
    interleaved = bytes(byte for pair in zip(data, b" " * len(data), strict=True) for byte in pair)
    return [memoryview(wide), memoryview(data).cast("B", shape=[2, len(data) // 2]), memoryview(interleaved)[::2]]


def test_results_in_memoryviews_are_measured_in_bytes() -> None:
    """A memoryview is read as the bytes it holds: its size and depth are those of its bytes."""
    eng = engine.Engine(engine.EngineConfig(limits=engine.Limits(max_instance_depth=8, max_instance_bytes=4096)))
    tool = {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}}
    tools = engine.compile_tools([tool], engine=eng)
    documents = [
        b'{"content":[],"structuredContent":{"a":1}}',
        b'{"content":[],"structuredContent":{"a":' + b"[" * 20 + b"]" * 20 + b"}}",
        b'{"content":[],"structuredContent":{"a":"' + b"x" * 5000 + b'"}}',
        b'{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"a":[[1]]}}}',
    ]
    for data in documents:
        data += b" " * (-len(data) % 8)
        expected = _outcome(partial(tools.validate_result, "t", data))
        for view in _views(data):
            assert _outcome(partial(tools.validate_result, "t", view)) == expected, (view, data[:60])
    schema = b'{"type": "object", "description": "' + b"d" * 300 + b'"}'
    schema += b" " * (-len(schema) % 8)
    small = engine.Engine(engine.EngineConfig(limits=engine.Limits(max_schema_bytes=200)))
    for view in _views(schema):
        with pytest.raises(engine.SchemaRejected) as refused:
            small.compile(view)
        assert refused.value.reason == "limit-exceeded"


@pytest.mark.parametrize(
    ("wrap", "at"),
    [
        (lambda tools: tools, ""),
        (lambda tools: {"tools": tools}, "/tools"),
        (lambda tools: {"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}}, "/result/tools"),
    ],
)
def test_a_tool_itself_is_refused_at_its_place_in_the_document_given(wrap: Any, at: str) -> None:
    tool = {"name": "twice", "inputSchema": {"type": "object"}}
    tools = engine.compile_tools(wrap([tool, {"name": "once", "inputSchema": {"type": "object"}}, tool, 7]))
    twice = tools.rejected["twice"]
    assert twice.reason == "invalid-schema" and twice.location == f"{at}/2/name"
    assert twice.details == {"tool": "twice", "indexes": [0, 2]} and "tools[0] and tools[2]" in twice.message
    nameless = tools.rejected["<tools[3]>"]
    assert nameless.location == f"{at}/3" and nameless.details == {"index": 3}
    assert tools.validate_arguments("once", {}) == {}
    # Listed three times: every place named, the refusal located at the last.
    thrice = engine.compile_tools(wrap([tool, tool, {"name": "once"}, tool])).rejected["twice"]
    assert thrice.details == {"tool": "twice", "indexes": [0, 1, 3]} and thrice.location == f"{at}/3/name"
    assert "listed 3 times (tools[0], tools[1] and tools[3])" in thrice.message and "none is used" in thrice.message
    with pytest.raises(engine.SchemaRejected):
        tools.validate_arguments("twice", {})


NO_ARGUMENTS_LIMITS = [
    {},
    {"max_instance_depth": 0},
    {"max_instance_depth": 1},
    {"max_instance_bytes": 1},
    {"max_instance_bytes": 2},
]


@pytest.mark.parametrize("limits", NO_ARGUMENTS_LIMITS)
@pytest.mark.parametrize("required", [False, True])
def test_no_arguments_answer_as_the_empty_object(limits: dict[str, int], required: bool) -> None:
    """`None` (a call without arguments) is the empty object, whatever the instance limits: read
    as its two bytes where the limits admit them, as the empty dict where they do not (a bound of
    no level, or of one byte), with the answer the dict gets, call after call."""
    schema: dict[str, Any] = {"type": "object", "properties": {"a": {"type": "integer"}}}
    if required:
        schema["required"] = ["a"]
    eng = engine.Engine(limits=engine.Limits(**limits))
    tools = engine.compile_tools([{"name": "t", "inputSchema": schema}], engine=eng)
    judge = engine.compile_tools([{"name": "t", "inputSchema": schema}], engine=eng)
    for _ in range(2):
        assert _arguments_outcome(tools, "t", None) == _arguments_outcome(judge, "t", {})


def test_buffers_answer_as_their_bytes() -> None:
    """Arguments in a bytearray, a memoryview (of bytes, of wider items, strided) or text answer as
    the bytes they hold do, one over the size bound included (measured, never copied)."""
    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "s": {"type": "string"}}}
    eng = engine.Engine(limits=engine.Limits(max_instance_bytes=64))
    tools = engine.compile_tools([{"name": "t", "inputSchema": schema}], engine=eng)
    judge = engine.compile_tools([{"name": "t", "inputSchema": schema}], engine=eng)
    documents = [b'{"a":1}', b'{"a":"x"}', b'{"s":"x:y"}', b'{"a":1', b'{"s":"' + b"x" * 70 + b'"}', b"[]"]
    for data in documents:
        expected = _arguments_outcome(judge, "t", data)
        padded = data + b" " * (-len(data) % 4)  # a whole number of 4-byte items
        wide = memoryview(array.array("i", padded))
        strided = memoryview(bytes(byte for pair in zip(data, data, strict=True) for byte in pair))[::2]
        for form in (bytearray(data), memoryview(data), strided, data.decode()):
            for _ in range(2):
                assert _arguments_outcome(tools, "t", form) == expected, (data, form)
        assert _arguments_outcome(tools, "t", wide) == _arguments_outcome(judge, "t", padded)


def test_a_released_view_is_refused_after_the_tools_lookup() -> None:
    """A released memoryview names no bytes: an unknown tool is still said first, and a known one
    refuses the view as not JSON (the view cannot be read)."""
    tools = engine.compile_tools([{"name": "t", "inputSchema": {"type": "object"}}], engine=engine.Engine())
    view = memoryview(b'{"a": 1}')
    view.release()
    with pytest.raises(engine.UnknownTool):
        tools.validate_arguments("nope", view)
    with pytest.raises(engine.DecodeError, match="released") as refused:
        tools.validate_arguments("t", view)
    assert refused.value.reason == "not-json"


def test_text_over_the_bound_is_refused_by_its_least_size() -> None:
    """Text with more characters than the size bound has bytes is refused without encoding it:
    the message says how many bytes it has at least (each character takes one or more)."""
    tools = engine.compile_tools(
        [{"name": "t", "inputSchema": {"type": "object"}}],
        engine=engine.Engine(limits=engine.Limits(max_instance_bytes=8)),
    )
    with pytest.raises(engine.DecodeError) as refusal:
        tools.validate_arguments("t", '{"a":"ééééé"}')
    assert refusal.value.reason == "too-large"
    assert "at least 13 bytes" in str(refusal.value)
    with pytest.raises(engine.DecodeError) as exact:
        tools.validate_arguments("t", '{"a":"aaaaa"}')  # ASCII: its length is its size
    assert "document is 13 bytes" in str(exact.value)


def test_a_result_the_engine_returned_is_judged_again_as_its_wire_form() -> None:
    tools = engine.compile_tools(
        [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object", "required": ["a"]}}]
    )
    result = tools.validate_result("t", b'{"content": [], "structuredContent": {"a": 1}, "_meta": {"k": 1}}')
    assert tools.validate_result("t", result) == result
    result.structured_content.pop("a")  # changed since: held to the schema again
    with pytest.raises(engine.ValidationFailed) as info:
        tools.validate_result("t", result)
    assert info.value.issues[0].instance_path == "/structuredContent"
    error = tools.validate_result("t", engine.CallToolResult(is_error=True))
    assert error.is_error and not error.has_structured_content


def test_a_listing_is_read_from_a_response_and_an_error_response_says_so() -> None:
    tool = {"name": "t", "inputSchema": {"type": "object"}}
    # A result wrapped without its `jsonrpc` member is still the result (as `engine check` reads it).
    assert list(engine.compile_tools({"result": {"tools": [tool]}})) == ["t"]
    for error in (
        {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}},
        b'{"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}}',
    ):
        with pytest.raises(engine.SchemaRejected) as info:
            engine.compile_tools(error)
        assert "a JSON-RPC error response (error -32601: 'Method not found')" in info.value.message
        assert info.value.location == "/error"
    # A server's words of any size or kind are shown short (an int past the text limit has no text).
    for error in ({"code": "c" * 100_000, "message": "m" * 100_000}, {"code": 10**5000, "message": [[1]] * 9}):
        with pytest.raises(engine.SchemaRejected) as info:
            engine.compile_tools({"jsonrpc": "2.0", "id": 1, "error": error})
        assert len(info.value.message) < 300


def test_a_name_listed_many_times_is_refused_once_with_a_short_message() -> None:
    tools = engine.compile_tools([{"name": "a", "inputSchema": {"type": "object"}}] * 20_000)
    refusal = tools.rejected["a"]
    assert refusal.message.startswith("tool name 'a' is listed 20000 times (tools[0], tools[1], tools[2], tools[3],")
    assert "tools[4] and 19995 more): MCP requires unique names, and none is used" in refusal.message
    assert refusal.details["indexes"] == list(range(20_000)) and refusal.location == "/19999/name"
    named = "n" * 1_000_000
    twice = engine.compile_tools([{"name": named, "inputSchema": {"type": "object"}}] * 2)
    assert len(twice.rejected[named].message) < 300 and twice.rejected[named].details["tool"] == named


def test_an_entry_without_a_name_never_takes_a_real_tools_name() -> None:
    tools = engine.compile_tools([5, {"name": "<tools[0]>", "inputSchema": {"type": "object"}}])
    assert list(tools) == ["<tools[0]>"] and list(tools.rejected) == ["<tools[0]> (an entry with no name)"]
    tools = engine.compile_tools([{"name": "<tools[1]>", "inputSchema": {"type": "string"}}, 5])
    assert tools.rejected["<tools[1]>"].details.get("index") is None  # the tool's own refusal, kept
    assert tools.rejected["<tools[1]> (an entry with no name)"].details == {"index": 1}


def test_a_result_past_the_readers_is_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # A result longer than the bound readers take goes to the exact path: parsed whole once, its
    # envelope read from the value; its shape checked by a decoder that reads no value (every
    # occurrence of a member it names: a member named twice included); a wrong shape says what
    # the envelope's decoder expected.
    import engine._decode as decode

    parses: list[int] = []
    parse = decode._decode

    def counted(data: Any) -> Any:
        parses.append(len(data))
        return parse(data)

    monkeypatch.setattr(decode, "_decode", counted)
    tools = engine.compile_tools(
        [
            {
                "name": "t",
                "inputSchema": {"type": "object"},
                "outputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
            },
            {"name": "free", "inputSchema": {"type": "object"}},
        ]
    )
    meta = {f"k{i}": [i, "x" * 20] for i in range(60_000)}
    for name, structured in (("t", {"n": 1}), ("free", {"n": "any"})):
        result = {"content": [{"type": "text", "text": "ok"}], "structuredContent": structured, "_meta": meta}
        document = msgspec.json.encode(result)
        assert len(document) > 2**20
        read = tools.validate_result(name, document)
        assert msgspec.to_builtins(read) == result
        assert parses == [len(document)]
        parses.clear()
    breaking = msgspec.json.encode({"content": [], "structuredContent": {"n": "one"}, "_meta": meta})
    with pytest.raises(engine.ValidationFailed) as caught:
        tools.validate_result("t", breaking)
    assert caught.value.issues[0].instance_path == "/structuredContent/n"
    wrong = msgspec.json.encode({"content": [{"type": "text"}, 7], "structuredContent": {"n": 1}, "_meta": meta})
    with pytest.raises(engine.ValidationFailed) as caught:
        tools.validate_result("t", wrong)
    assert caught.value.issues[0].instance_path == "/content/1"
    twice = b'{"content": 5, "content": [], "structuredContent": {"n": 1}, "_meta": ' + msgspec.json.encode(meta) + b"}"
    with pytest.raises(engine.ValidationFailed) as caught:
        tools.validate_result("t", twice)
    assert caught.value.issues[0].instance_path == "/content"


@pytest.mark.parametrize("output", [True, False])
@pytest.mark.parametrize("tail", ['"isError": 5', '"content": 5', '"content": [7]', '"_meta": []', '"isError": 1e400'])
def test_a_result_of_a_wrong_shape_is_parsed_twice_at_most(
    monkeypatch: pytest.MonkeyPatch, output: bool, tail: str
) -> None:
    # Each reader that refuses it parsed it whole again: a 1 MiB result of numbers msgspec parses
    # slowly (2 s a parse, under the number screen's length) took 9-12 s to refuse.
    import engine._decode as decode
    import engine._mcp.result_readers as readers
    import engine._mcp.tools as tools_module

    parses: list[str] = []

    def counted(name: str, parse: Any) -> Any:
        def run(data: Any, *args: Any, **kwargs: Any) -> Any:
            parses.append(name)
            return parse(data, *args, **kwargs)

        return run

    for module, name in (
        (tools_module, "decode_whole"),
        (readers, "decode_wire"),
        (readers, "decode_whole"),
        (readers, "decode_lenient"),
        (readers, "_parse"),
        (decode, "_decode"),
    ):
        monkeypatch.setattr(module, name, counted(name, getattr(module, name)))
    tool: dict[str, Any] = {"name": "t", "inputSchema": {"type": "object"}}
    if output:
        tool["outputSchema"] = {"type": "object"}
    tools = engine.compile_tools([tool])
    document = ('{"structuredContent": {"a": [' + ",".join(["1.5"] * 20_000) + "]}, " + tail + "}").encode()
    with pytest.raises((engine.ValidationFailed, engine.DecodeError)):
        tools.validate_result("t", document)
    assert len(parses) <= 2, parses


@pytest.mark.parametrize(
    ("document", "where"),
    [
        ('{"content": 5, "content": []}', "/content"),
        ('{"isError": "x", "isError": false, "content": []}', "/isError"),
        ('{"_meta": 5, "_meta": {}, "content": []}', "/_meta"),
        ('{"jsonrpc": "2.0", "id": 1, "result": 5, "result": {"content": []}}', "/result"),
    ],
)
@pytest.mark.parametrize("output", [True, False])
def test_a_member_named_twice_is_typed_each_time(document: str, where: str, output: bool) -> None:
    # The parse keeps a member's last value: its first is typed too, as docs/mcp.md says.
    tool: dict[str, Any] = {"name": "t", "inputSchema": {"type": "object"}}
    if output:
        tool["outputSchema"] = {"type": "object"}
        document = document.replace('"content": []', '"content": [], "structuredContent": {}')
    tools = engine.compile_tools([tool])
    for form in (document, document.encode()):
        with pytest.raises(engine.ValidationFailed) as caught:
            tools.validate_result("t", form)
        assert caught.value.issues[0].instance_path.startswith(where), caught.value.issues

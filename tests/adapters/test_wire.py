"""On the wire, for every protocol generation: the adapters' own answers are shaped exactly as the SDK
shapes a handler's; an error result never carries structuredContent that contradicts the tool's
outputSchema; tools whose outputSchema is not an object stay out of older clients' listings (and the
rest of the listing keeps working); array and primitive results carry the SEP-2106 text block.

Real servers (low-level ``Server``, ``MCPServer``, FastMCP) over streamable HTTP on 127.0.0.1, real
SDK clients; what the server sent is read from the HTTP responses themselves."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'engine[mcp]')")
pytest.importorskip("uvicorn", reason="uvicorn (an MCP SDK dependency) is not installed")

import mcp_types as types  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.server import Server  # noqa: E402
from mcp.server.mcpserver import MCPServer  # noqa: E402
from mcp_types.methods import serialize_server_result  # noqa: E402

import engine  # noqa: E402
from benchmarks.load import serve_app  # noqa: E402
from engine.adapters.mcp_sdk import EngineClient, ToolValidation  # noqa: E402
from engine.adapters.mcp_sdk import tool_definition as sdk_definition  # noqa: E402

from ._wire import WireRecorder  # noqa: E402

ERAS = [pytest.param("auto", "2026-07-28", id="2026-07-28"), pytest.param("legacy", "2025-11-25", id="2025-11-25")]

WEATHER = types.Tool(
    name="weather",
    input_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    output_schema={"type": "object", "properties": {"temperature": {"type": "number"}}, "required": ["temperature"]},
)
TAGS = types.Tool(
    name="tags", input_schema={"type": "object"}, output_schema={"type": "array", "items": {"type": "string"}}
)
COUNT = types.Tool(name="count", input_schema={"type": "object"}, output_schema={"type": "integer"})


def low_level_server(validation: ToolValidation) -> Server[Any]:
    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[WEATHER, TAGS, COUNT])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = params.arguments or {}
        if params.name == "weather":
            if arguments["city"] == "nowhere":  # the handler's own error answer, shaped by the SDK
                return types.CallToolResult(
                    content=[types.TextContent(type="text", text="no such city")], is_error=True
                )
            return types.CallToolResult(
                content=[types.TextContent(type="text", text="21")], structured_content={"temperature": 21}
            )
        if params.name == "tags":  # no TextContent: the adapter adds the SEP-2106 block
            return types.CallToolResult(content=[], structured_content=["a", "b"])
        return types.CallToolResult(content=[types.TextContent(type="text", text="3")], structured_content=3)

    server = Server("wire", on_list_tools=list_tools, on_call_tool=call_tool)
    validation.install(server)
    return server


@pytest.fixture(scope="module")
def low_level() -> Iterator[tuple[str, WireRecorder]]:
    server = low_level_server(ToolValidation(engine=engine.Engine()))
    recorder = WireRecorder(server.streamable_http_app(host="127.0.0.1"))
    with serve_app(recorder) as url:
        yield url, recorder


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, timeout=60))


def wire_result(recorder: WireRecorder, tool: str, marker: Any) -> dict[str, Any]:
    """The ``result`` member the server sent for the last ``tools/call`` of ``tool`` whose arguments
    are ``marker``."""
    for request, response in reversed(recorder.results_of("tools/call", tool=tool)):
        if request["params"].get("arguments") == marker:
            assert "result" in response, response
            return dict(response["result"])
    raise AssertionError(f"no tools/call of {tool} with {marker} on the wire")


def sdk_shape(version: str, result: dict[str, Any]) -> dict[str, Any]:
    return serialize_server_result("tools/call", version, result)


@pytest.mark.parametrize(("mode", "version"), ERAS)
def test_the_adapter_answers_exactly_as_the_sdk_shapes_a_handler(
    low_level: tuple[str, WireRecorder], mode: str, version: str
) -> None:
    url, recorder = low_level

    async def main() -> None:
        async with Client(url, mode=mode) as client:
            assert client.protocol_version == version
            own = await client.call_tool("weather", {"city": "nowhere"})
            refused = await client.call_tool("weather", {"city": 7})
            assert own.is_error and refused.is_error

    run(main())
    own = wire_result(recorder, "weather", {"city": "nowhere"})
    refused = wire_result(recorder, "weather", {"city": 7})
    # The same members, shaped the same way: a 2025-11-25 client never sees a 2026-07-28 field.
    assert set(own) == set(refused)
    if version == "2025-11-25":
        assert "resultType" not in refused and "_meta" not in refused
        assert set(refused) == {"content", "isError"}
    else:
        assert refused["resultType"] == own["resultType"] == "complete"
        assert refused["_meta"] == own["_meta"]  # the serverInfo stamp, as on every SDK result
        assert types.SERVER_INFO_META_KEY in refused["_meta"]
    # Exactly the SDK's per-version form of the adapter's answer.
    assert sdk_shape(version, {k: v for k, v in refused.items() if k != "_meta"}) == {
        k: v for k, v in refused.items() if k != "_meta"
    }
    # An error result for a tool with an outputSchema carries no structuredContent to contradict it.
    assert "structuredContent" not in refused
    assert "Invalid arguments for tool 'weather'" in refused["content"][0]["text"]


@pytest.mark.parametrize(("mode", "version"), ERAS)
def test_non_object_output_schemas_on_every_generation(
    low_level: tuple[str, WireRecorder], mode: str, version: str, caplog: pytest.LogCaptureFixture
) -> None:
    url, recorder = low_level

    async def main() -> tuple[list[str], Any, Any]:
        async with EngineClient(url, mode=mode) as client:
            listed = [t.name for t in (await client.list_tools()).tools]
            tags = await client.call_tool("tags", {})
            count = await client.call_tool("count", {})
            return listed, tags, count

    with caplog.at_level(logging.WARNING, logger="engine.adapters.mcp_sdk"):
        listed, tags, count = run(main())
    tags_wire = wire_result(recorder, "tags", {})
    count_wire = wire_result(recorder, "count", {})
    fallback = {"type": "text", "text": '["a","b"]'}
    if version == "2026-07-28":
        assert listed == ["weather", "tags", "count"]
        assert tags.structured_content == ["a", "b"] and count.structured_content == 3
        assert tags_wire["content"] == [fallback]  # added by the adapter: SEP-2106
        assert count_wire["content"] == [{"type": "text", "text": "3"}]  # already there: left alone
    else:
        # The listing works and holds every tool an older client can read; the others are left out.
        assert listed == ["weather"]
        assert any("'tags' is left out of tools/list" in r.getMessage() for r in caplog.records)
        # Called anyway, a tool answers with the text fallback instead of a structuredContent an
        # older client cannot read (the SDK would refuse to send it at all).
        assert "structuredContent" not in tags_wire and tags_wire["content"] == [fallback]
        assert json.loads(tags.content[0].text) == ["a", "b"]
        assert "structuredContent" not in count_wire and count.content[0].text == "3"


def test_without_the_adapter_one_array_tool_breaks_the_older_listing() -> None:
    """Why the adapter leaves tools out: the SDK alone cannot send such a listing at all."""

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[WEATHER, TAGS])

    async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
        return types.CallToolResult(content=[])

    server = Server("bare", on_list_tools=list_tools, on_call_tool=call_tool)

    async def main() -> None:
        async with Client(url, mode="legacy") as client:
            with pytest.raises(Exception, match="invalid result"):
                await client.list_tools()

    with serve_app(server.streamable_http_app(host="127.0.0.1")) as url:
        run(main())


def test_the_listing_rule_agrees_with_the_sdk() -> None:
    """``engine check`` and the adapter use one rule for what older clients cannot list; the SDK's
    own 2025-11-25 serializer agrees with it on every real tool and on the edge cases."""
    from benchmarks.load import load_replay_tools
    from engine._mcp.mapping import older_versions_cannot_list

    tools = [t.definition for t in load_replay_tools()] + [sdk_definition(t) for t in (WEATHER, TAGS, COUNT)]
    tools += [
        {"name": "a", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object", "properties": {"x": True}}},
        {"name": "b", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object", "required": "x"}},
        {"name": "c", "inputSchema": {"type": "object"}, "outputSchema": {"type": ["object"]}},
        {"name": "d", "inputSchema": {"type": "object"}, "outputSchema": {"anyOf": [{"type": "object"}]}},
        {"name": "e", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object", "properties": {"x": 1}}},
    ]
    for tool in tools:
        try:
            serialize_server_result("tools/list", "2025-11-25", {"tools": [tool]})
            sdk_lists = True
        except Exception:  # noqa: BLE001 - pydantic's ValidationError
            sdk_lists = False
        assert (older_versions_cannot_list(tool) is None) == sdk_lists, tool


# --- MCPServer and FastMCP ------------------------------------------------------------------------


@pytest.mark.parametrize(("mode", "version"), ERAS)
def test_mcpserver_answers_are_shaped_by_the_sdk(mode: str, version: str) -> None:
    mcp = MCPServer("wire-mcpserver")
    ran: list[Any] = []

    @mcp.tool()
    def add(a: int, b: int) -> int:
        ran.append((a, b))
        return a + b

    ToolValidation(engine=engine.Engine()).install(mcp)
    recorder = WireRecorder(mcp.streamable_http_app())

    async def main() -> None:
        async with Client(url, mode=mode) as client:
            assert (await client.call_tool("add", {"a": 1, "b": 2})).structured_content == {"result": 3}
            # pydantic alone would run the tool with a=1; the advertised schema says integer.
            refused = await client.call_tool("add", {"a": "1", "b": 2})
            assert refused.is_error and refused.structured_content is None

    with serve_app(recorder) as url:
        run(main())
    assert ran == [(1, 2)]
    ok = wire_result(recorder, "add", {"a": 1, "b": 2})
    refused = wire_result(recorder, "add", {"a": "1", "b": 2})
    assert set(refused) == set(ok) - {"structuredContent"}
    assert ("resultType" in refused) == (version == "2026-07-28")


@pytest.mark.parametrize(("mode", "version"), ERAS)
def test_fastmcp_answers_are_shaped_by_the_sdk(mode: str, version: str) -> None:
    pytest.importorskip("fastmcp")
    from fastmcp import FastMCP
    from fastmcp.exceptions import ToolError

    from engine.adapters.fastmcp import EngineValidation

    server = FastMCP("wire-fastmcp", middleware=[EngineValidation(engine.Engine())])

    @server.tool
    def divide(a: int, b: int) -> float:
        if b == 0:
            raise ToolError("division by zero")  # FastMCP's own error answer
        return a / b

    recorder = WireRecorder(server.http_app(path="/mcp"))

    async def main() -> None:
        async with Client(url, mode=mode) as client:
            assert client.protocol_version == version
            assert (await client.call_tool("divide", {"a": 1, "b": 0})).is_error
            assert (await client.call_tool("divide", {"a": "1", "b": 2})).is_error

    with serve_app(recorder) as url:
        run(main())
    own = wire_result(recorder, "divide", {"a": 1, "b": 0})
    refused = wire_result(recorder, "divide", {"a": "1", "b": 2})
    assert set(own) == set(refused)
    assert "structuredContent" not in refused  # divide declares an outputSchema
    assert ("resultType" in refused) == (version == "2026-07-28")
    assert "Invalid arguments for tool 'divide'" in refused["content"][0]["text"]


def test_fastmcp_keeps_older_listings_working() -> None:
    """FastMCP wraps a function tool's non-object return value in an object schema by itself; a tool
    built from a raw array schema is accepted at definition, and the adapter keeps it out of older
    clients' listings so the listing still works."""
    pytest.importorskip("fastmcp")
    from fastmcp import FastMCP
    from fastmcp.tools.base import Tool, ToolResult

    from engine.adapters.fastmcp import EngineValidation

    class Raw(Tool):
        async def run(self, arguments: dict[str, Any]) -> ToolResult:
            return ToolResult(content=[], structured_content={"never": "sent"})

    server = FastMCP("fastmcp-older", middleware=[EngineValidation(engine.Engine())])
    server.add_tool(Raw(name="tags", parameters={"type": "object"}, output_schema={"type": "array"}))

    @server.tool
    def numbers() -> list[int]:
        return [1, 2]

    async def main() -> None:
        async with Client(url, mode="legacy") as old, Client(url) as new:
            assert [t.name for t in (await old.list_tools()).tools] == ["numbers"]
            listed = {t.name: t.output_schema for t in (await new.list_tools()).tools}
            assert listed["tags"] == {"type": "array"}
            assert listed["numbers"]["type"] == "object"  # FastMCP's own wrapping
            assert (await old.call_tool("numbers", {})).structured_content == {"result": [1, 2]}

    with serve_app(server.http_app(path="/mcp")) as url:
        run(main())


@pytest.mark.parametrize(("mode", "version"), ERAS)
def test_middleware_mode_answers_per_version_too(mode: str, version: str) -> None:
    """The older way to register the adapter (as middleware) shapes its answers with the SDK's
    per-version serializer: no 2026-07-28 field reaches a 2025-11-25 client."""

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[WEATHER])

    async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
        return types.CallToolResult(content=[], structured_content={"temperature": 1})

    server = Server("middleware", on_list_tools=list_tools, on_call_tool=call_tool)
    server.middleware.append(ToolValidation([WEATHER], engine=engine.Engine()))
    recorder = WireRecorder(server.streamable_http_app(host="127.0.0.1"))

    async def main() -> None:
        async with Client(url, mode=mode) as client:
            assert (await client.call_tool("weather", {"city": 7})).is_error

    with serve_app(recorder) as url:
        run(main())
    refused = wire_result(recorder, "weather", {"city": 7})
    assert refused["isError"] is True and "structuredContent" not in refused
    assert ("resultType" in refused) == (version == "2026-07-28")

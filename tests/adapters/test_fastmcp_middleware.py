"""FastMCP with the engine's middleware: arguments and results checked against the advertised schemas."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("fastmcp", reason="FastMCP is not installed (pip install 'engine[fastmcp]')")

import mcp_types as types  # noqa: E402
from fastmcp import Client, FastMCP  # noqa: E402
from fastmcp.tools.base import Tool, ToolResult  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

import engine  # noqa: E402
from benchmarks.load import ReplayTool, canonical, load_replay_tools  # noqa: E402
from engine.adapters.fastmcp import EngineValidation  # noqa: E402

TOOLS = load_replay_tools()


class ReplayedTool(Tool):
    """A tool built from a real definition (raw JSON Schema, no Python signature) replaying its results."""

    replay: Any = None
    ran: Any = None  # Any: pydantic keeps the caller's list rather than a copy

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        self.ran.append(arguments)
        recorded = self.replay.results.get(canonical(arguments)) or next(iter(self.replay.results.values()))
        return ToolResult(content=recorded["content"], structured_content=recorded["structuredContent"])


def replayed(tool: ReplayTool, ran: list[Any]) -> ReplayedTool:
    d = tool.definition
    return ReplayedTool(
        name=d["name"],
        description=d.get("description"),
        parameters=d["inputSchema"],
        output_schema=d["outputSchema"],
        replay=tool,
        ran=ran,
    )


def make_server(eng: engine.Engine, ran: list[Any]) -> FastMCP:
    server = FastMCP("engine-fastmcp", middleware=[EngineValidation(eng)])

    @server.tool
    def add(a: int, b: int) -> int:
        ran.append(("add", a, b))
        return a + b

    for tool in TOOLS:
        output = tool.definition["outputSchema"]
        if isinstance(output, dict) and output.get("type") == "object":
            server.add_tool(replayed(tool, ran))
    return server


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, timeout=60))


def test_fastmcp_validates_against_advertised_schemas() -> None:
    eng = engine.Engine()
    ran: list[Any] = []
    server = make_server(eng, ran)
    weather = next(t for t in TOOLS if t.name == "get-structured-content")

    async def main() -> None:
        async with Client(server) as client:
            listed = {t.name for t in await client.list_tools()}
            assert {"add", "get-structured-content"} <= listed

            ok = await client.call_tool_mcp("add", {"a": 1, "b": 2})
            assert not ok.is_error and ok.structured_content == {"result": 3}

            # pydantic alone would coerce "1" to 1; the advertised schema says integer, and so does the engine.
            before = len(ran)
            bad = await client.call_tool_mcp("add", {"a": "1", "b": 2})
            assert bad.is_error
            assert len(ran) == before

            recorded = await client.call_tool_mcp("get-structured-content", weather.calls[0])
            assert not recorded.is_error
            assert recorded.structured_content == weather.results[canonical(weather.calls[0])]["structuredContent"]

            invalid = await client.call_tool_mcp("get-structured-content", {"location": 7})
            assert invalid.is_error and len(ran) == before + 1

            with pytest.raises(MCPError) as info:
                await client.call_tool_mcp("no_such_tool", {})
            assert info.value.code == types.INVALID_PARAMS

    run(main())


def test_fastmcp_refuses_output_that_breaks_the_advertised_schema() -> None:
    eng = engine.Engine()
    ran: list[Any] = []
    server = FastMCP("engine-fastmcp-out", middleware=[EngineValidation(eng)])

    class Drifting(Tool):
        async def run(self, arguments: dict[str, Any]) -> ToolResult:
            ran.append(arguments)
            return ToolResult(content=[], structured_content={"temperature": "hot"})

    server.add_tool(
        Drifting(
            name="weather",
            parameters={"type": "object"},
            output_schema={"type": "object", "properties": {"temperature": {"type": "number"}}},
        )
    )

    async def main() -> None:
        async with Client(server) as client:
            result = await client.call_tool_mcp("weather", {})
            assert result.is_error and ran == [{}]
            assert "outputSchema" in result.content[0].text

    run(main())


def test_fastmcp_compiles_once_per_listing() -> None:
    eng = engine.Engine()
    middleware = EngineValidation(eng)
    server = FastMCP("engine-fastmcp-once", middleware=[middleware])

    @server.tool
    def echo(text: str) -> str:
        return text

    async def main() -> None:
        async with Client(server) as client:
            for _ in range(20):
                assert (await client.call_tool_mcp("echo", {"text": "hi"})).structured_content == {"result": "hi"}

    run(main())
    # Tools are compiled per listing (the client's tools/list, or the first call's own look-up),
    # never per call: two schemas, each compiled once.
    assert middleware.catalog.listings <= 2
    assert eng.cache_stats().misses == 2


def test_a_fastmcp_client_gets_engine_checked_results_over_http() -> None:
    """FastMCP's Client runs on a ClientSession subclass of its own: both documented ways give it
    engine-checked results, FastMCP's own session rules kept in front."""
    from mcp.server import Server

    from benchmarks.load import serve_app
    from engine.adapters.fastmcp import validate_results
    from engine.adapters.mcp_sdk import EngineClientSession, InvalidToolResult

    drifting = types.Tool(
        name="weather",
        input_schema={"type": "object"},
        output_schema={"type": "object", "properties": {"t": {"type": "number"}}, "required": ["t"]},
    )

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[drifting])

    async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
        return types.CallToolResult(content=[], structured_content={"t": "warm"})

    server = Server("drifting", on_list_tools=list_tools, on_call_tool=call_tool)
    eng = engine.Engine()

    async def main(url: str) -> None:
        async with validate_results(Client(url), engine=eng) as client:
            assert isinstance(client.session, EngineClientSession)
            with pytest.raises(InvalidToolResult) as info:
                await client.call_tool("weather", {})
            assert info.value.error.issues[0].instance_path == "/structuredContent/t"
            with pytest.raises(InvalidToolResult):
                await client.call_tool_mcp("weather", {})
        async with Client(url) as plain:
            session = EngineClientSession.upgrade(plain.session, eng, report_only=True)
            assert session is plain.session and type(session).__name__ == "EngineVersionAwareClientSession"
            result = await plain.call_tool_mcp("weather", {})  # report-only: logged, counted, returned
            assert result.structured_content == {"t": "warm"}

    with serve_app(server.streamable_http_app(host="127.0.0.1")) as url:
        run(main(url))


def test_fastmcp_report_only_per_tool() -> None:
    import engine.metrics

    server = FastMCP("shadow", middleware=[EngineValidation(engine.Engine(), report_only={"add"})])

    @server.tool
    def add(a: int, b: int) -> int:
        return a + b

    @server.tool
    def negate(a: int) -> int:
        return -a

    async def main() -> None:
        async with Client(server) as client:
            shadowed = await client.call_tool_mcp("add", {"a": "1", "b": 2})  # pydantic coerces; logged
            assert not shadowed.is_error and shadowed.structured_content == {"result": 3}
            assert (await client.call_tool_mcp("negate", {"a": "1"})).is_error  # enforced

    with engine.metrics.hooked(engine.metrics.Recorder()) as recorder:
        run(main())
    validations = recorder.snapshot().validations
    assert validations[("add", "arguments", "server", "invalid-reported")] == 1
    assert validations[("negate", "arguments", "server", "invalid")] == 1

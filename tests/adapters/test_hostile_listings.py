"""A server's tool listings as a hostile server sends them: a name listed twice, and listings that
never end (every page marked incomplete, each with new tools)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'engine[mcp]')")

import mcp_types as types  # noqa: E402
from mcp.server import Server  # noqa: E402

import engine  # noqa: E402
from engine._mcp import list_budget  # noqa: E402
from engine.adapters._catalog import ENTRY_BYTES, ToolCatalog  # noqa: E402
from engine.adapters.mcp_sdk import EngineClient, InvalidToolResult  # noqa: E402

OUTPUT = {"type": "object", "properties": {"celsius": {"type": "number"}}, "required": ["celsius"]}


def _tool(name: str, output: dict[str, Any] | None = None) -> dict[str, Any]:
    tool: dict[str, Any] = {"name": name, "inputSchema": {"type": "object", "properties": {name: {"type": "string"}}}}
    if output is not None:
        tool["outputSchema"] = output
    return tool


async def _refusal_of_a_call(
    server: Server, name: str, *, mode: str = "auto", listed_first: bool = False
) -> InvalidToolResult | None:
    """What an engine client raises calling ``name`` on ``server`` in memory (``None``: accepted)."""
    async with EngineClient(server, engine=engine.Engine(), mode=mode) as client:
        if listed_first:
            await client.list_tools()
        try:
            await client.call_tool(name, {})
        except InvalidToolResult as refused:
            return refused
    return None


@pytest.mark.parametrize("declared", ["first", "second", "both", "neither"])
def test_a_tool_listed_twice_has_its_results_refused_where_one_declares_an_output_schema(declared: str) -> None:
    catalog = ToolCatalog(engine.Engine(), side="client")
    first = _tool("weather", OUTPUT if declared in ("first", "both") else None)
    second = _tool("weather", OUTPUT if declared in ("second", "both") else None)
    catalog.absorb([first, second])
    refusal = catalog.rejected("weather")
    assert refusal is not None and refusal.reason == "invalid-schema"
    assert catalog.has_output_schema("weather") is (declared != "neither")


def test_the_client_refuses_a_result_of_a_tool_listed_twice() -> None:
    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        tool = types.Tool(name="weather", input_schema={"type": "object"}, output_schema=OUTPUT)
        return types.ListToolsResult(tools=[tool, tool])

    async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
        return types.CallToolResult(content=[], structured_content={"celsius": "mild"})

    server = Server("listed-twice", on_list_tools=list_tools, on_call_tool=call_tool)

    refused = asyncio.run(_refusal_of_a_call(server, "weather"))
    assert isinstance(refused, InvalidToolResult)
    assert "listed more than once" in str(refused)


def test_pages_that_never_end_are_held_to_a_tool_list_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every page incomplete, each with new tools: the catalog keeps them (pages add), but what its
    # compiled tools hold is bounded as one list's is; a complete listing starts it again.
    catalog = ToolCatalog(engine.Engine(cache_size=0), side="client")
    page = [_tool(f"t{i}", {"type": "object"}) for i in range(20)]
    catalog.absorb(page, complete=False)
    tools = [catalog._entries[name].toolset.tool(name) for name in catalog.names()]
    weight = sum(engine._engine.held_bytes(schema) for tool in tools for schema in (tool.input, tool.output) if schema)
    weight += ENTRY_BYTES * len(tools)  # what the catalog holds beside each
    monkeypatch.setattr(list_budget, "MAX_LIST_BYTES", weight * 2)  # three pages are over it
    for first in range(20, 100, 20):
        catalog.absorb([_tool(f"t{i}", {"type": "object"}) for i in range(first, first + 20)], complete=False)
    refused = catalog.refusals()
    assert len(catalog) == 100
    assert 30 <= len(refused) <= 60
    assert {r.reason for r in refused.values()} == {"limit-exceeded"}
    assert all(r.details["limit"] == "tool list bytes" for r in refused.values())
    assert catalog.has_output_schema(next(iter(refused)))  # its results are refused, not let through
    # A complete listing replaces the catalog: its tools are weighed on their own.
    catalog.absorb([_tool(f"n{i}", {"type": "object"}) for i in range(20)])
    assert len(catalog) == 20 and not catalog.refusals()


def test_a_tool_list_read_that_fails_is_read_again_on_the_next_call() -> None:
    from mcp.client.client import Client
    from mcp.shared.exceptions import MCPError

    from engine.adapters.mcp_sdk import ToolValidation

    reads = [0]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        reads[0] += 1
        if reads[0] == 1:
            raise RuntimeError("the database is briefly away")
        return types.ListToolsResult(tools=[types.Tool(name="w", input_schema={"type": "object"})])

    async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text="21")])

    server = Server("flaky", on_list_tools=list_tools, on_call_tool=call_tool)
    ToolValidation(engine=engine.Engine()).install(server)

    async def calls() -> list[str]:
        answers = []
        async with Client(server) as client:
            for _ in range(3):
                try:
                    result = await client.call_tool("w", {})
                    answers.append("error result" if result.is_error else "served")
                except MCPError as refused:
                    answers.append(refused.error.message)
        return answers

    first, *later = asyncio.run(calls())
    assert first == "the server's tool list could not be read to check the call (RuntimeError)"
    assert later == ["served", "served"]  # not "unknown tool" until the next scheduled read


@pytest.mark.parametrize("later", ["dropped", "no outputSchema", "a looser outputSchema"])
def test_a_result_is_checked_against_the_schema_held_when_the_tool_was_called(later: str) -> None:
    # The server says its tools changed, lists the tool without its schema (or not at all), then
    # answers the call: the result is checked against the schema the client held, as the SDK's
    # client does.
    listed = [True]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        if listed[0]:
            return types.ListToolsResult(
                tools=[types.Tool(name="w", input_schema={"type": "object"}, output_schema=OUTPUT)]
            )
        if later == "dropped":
            return types.ListToolsResult(tools=[])
        loose = None if later == "no outputSchema" else {"type": "object"}
        return types.ListToolsResult(tools=[types.Tool(name="w", input_schema={"type": "object"}, output_schema=loose)])

    async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
        listed[0] = False
        await ctx.session.send_tool_list_changed()
        await asyncio.sleep(0.05)
        return types.CallToolResult(content=[], structured_content={"celsius": "mild"})

    server = Server("delisting", on_list_tools=list_tools, on_call_tool=call_tool)

    refused = asyncio.run(_refusal_of_a_call(server, "w", mode="legacy", listed_first=True))
    assert isinstance(refused, InvalidToolResult)
    assert isinstance(refused.error, engine.ValidationFailed)


def test_the_client_checks_results_whatever_it_would_make_of_the_input_schema() -> None:
    # The client never checks arguments: an inputSchema it would refuse (a remote `$ref`) is the
    # server's to read, and the tool's results are checked against its outputSchema as usual.
    catalog = ToolCatalog(engine.Engine(), side="client")
    remote = {"type": "object", "properties": {"a": {"$ref": "https://example.com/s.json"}}}
    catalog.absorb([{"name": "w", "inputSchema": remote, "outputSchema": OUTPUT}])
    assert catalog.rejected("w") is None and catalog.has_output_schema("w")
    catalog.validate_structured("w", {"celsius": 21})
    with pytest.raises(engine.ValidationFailed):
        catalog.validate_structured("w", {"celsius": "mild"})
    server = ToolCatalog(engine.Engine(), side="server")
    server.absorb([{"name": "w", "inputSchema": remote, "outputSchema": OUTPUT}])
    refused = server.rejected("w")
    assert refused is not None and refused.reason == "remote-ref"

"""The adapters' own rules, without a network: listings, refusals, schema fidelity."""

from __future__ import annotations

import asyncio
import pickle
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'engine[mcp]')")

import anyio  # noqa: E402
import mcp_types as types  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.server.context import ServerRequestContext  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

import engine  # noqa: E402
from engine.adapters._catalog import REFRESH_INTERVAL, ToolCatalog  # noqa: E402
from engine.adapters.mcp_sdk import (  # noqa: E402
    EngineClientSession,
    InvalidToolResult,
    ToolValidation,
    tool_definition,
)


def test_tool_definition_keeps_nulls_inside_schemas() -> None:
    tool = types.Tool(name="t", input_schema={"type": "object", "properties": {"x": {"const": None}}})
    assert tool_definition(tool)["inputSchema"]["properties"]["x"] == {"const": None}
    assert "outputSchema" not in tool_definition(tool)


def test_catalog_pages_add_and_complete_listings_replace() -> None:
    catalog = ToolCatalog(engine.Engine())
    catalog.absorb([{"name": "a", "inputSchema": {"type": "object"}}], complete=False)
    catalog.absorb([{"name": "b", "inputSchema": {"type": "object"}}], complete=False)
    assert "a" in catalog and "b" in catalog
    catalog.absorb([{"name": "c", "inputSchema": {"type": "object"}}])
    assert "a" not in catalog and "c" in catalog
    with pytest.raises(engine.UnknownTool):
        catalog.validate_arguments("a", {})


def test_upgrade_keeps_a_session_subclass_hooks_in_front() -> None:
    seen: list[str] = []

    class Custom(ClientSession):
        async def validate_tool_result(self, name: str, result: types.CallToolResult) -> None:
            seen.append(name)
            if name != "skipped":
                await super().validate_tool_result(name, result)

    send, receive = anyio.create_memory_object_stream(1)
    try:
        session = Custom(receive, send)
        upgraded = EngineClientSession.upgrade(session, engine.Engine())
        assert upgraded is session and isinstance(session, Custom) and isinstance(session, EngineClientSession)
        assert type(session).__mro__.index(Custom) < type(session).__mro__.index(EngineClientSession)
        upgraded._engine_catalog.absorb(
            [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object", "required": ["a"]}}]
        )

        async def main() -> None:
            bad = types.CallToolResult(content=[], structured_content={})
            with pytest.raises(InvalidToolResult) as info:
                await session.validate_tool_result("t", bad)
            await session.validate_tool_result("skipped", bad)  # the subclass decided not to check
            # It crosses a process boundary as itself (a worker's error is pickled).
            again = pickle.loads(pickle.dumps(info.value))
            assert type(again) is InvalidToolResult and str(again) == str(info.value) and again.tool == "t"
            assert isinstance(again.error, engine.ValidationFailed) and again.error.issues == info.value.error.issues

        asyncio.run(main())
        assert seen == ["t", "skipped"]
        plain = ClientSession(receive, send)
        assert type(EngineClientSession.upgrade(plain)) is EngineClientSession
        assert EngineClientSession.upgrade(plain) is plain  # upgrading twice changes nothing
    finally:
        send.close()
        receive.close()


def context(method: str, params: dict[str, Any]) -> ServerRequestContext[Any, Any]:
    return ServerRequestContext(
        session=None,  # type: ignore[arg-type]
        lifespan_context={},
        protocol_version="2026-07-28",
        method=method,
        params=params,
        request_id=1,
    )


def test_server_fails_closed_on_its_own_refused_schema() -> None:
    tools = [
        {
            "name": "remote",
            "inputSchema": {"type": "object", "properties": {"x": {"$ref": "https://evil.example/x.json"}}},
        },
        {"name": "fine", "inputSchema": {"type": "object", "required": ["q"]}},
    ]
    middleware = ToolValidation(tools, engine=engine.Engine())
    reached: list[str] = []

    async def handler(ctx: Any) -> types.CallToolResult:
        reached.append(ctx.params["name"])
        return types.CallToolResult(content=[])

    async def main() -> None:
        refused = await middleware(context("tools/call", {"name": "remote", "arguments": {"x": 1}}), handler)
        assert refused["isError"] and "remote-ref" in refused["content"][0]["text"]
        invalid = await middleware(context("tools/call", {"name": "fine", "arguments": {}}), handler)
        assert invalid["isError"] and invalid["structuredContent"]["error"]["issues"][0]["keyword"] == "required"
        assert invalid["resultType"] == "complete"  # a 2026-07-28 answer, shaped as the SDK shapes one
        ok = await middleware(context("tools/call", {"name": "fine", "arguments": {"q": 1}}), handler)
        assert not ok.is_error
        with pytest.raises(MCPError) as info:
            await middleware(context("tools/call", {"name": "ghost", "arguments": {}}), handler)
        assert info.value.code == -32602 and info.value.data["tool"] == "ghost"
        # Arguments that are a JSON text rather than an object are never decoded into valid ones.
        text = await middleware(context("tools/call", {"name": "fine", "arguments": '{"q": 1}'}), handler)
        assert text["isError"]
        assert text["structuredContent"]["error"]["issues"][0]["message"] == "arguments must be an object"

    asyncio.run(main())
    assert reached == ["fine"]


def test_server_reads_its_source_again_for_a_tool_added_since() -> None:
    advertised: list[types.Tool] = [types.Tool(name="first", input_schema={"type": "object"})]

    async def source() -> list[types.Tool]:
        return list(advertised)

    middleware = ToolValidation(source, engine=engine.Engine())

    async def handler(ctx: Any) -> types.CallToolResult:
        return types.CallToolResult(content=[])

    async def main() -> None:
        assert not (await middleware(context("tools/call", {"name": "first"}), handler)).is_error
        advertised.append(types.Tool(name="late", input_schema={"type": "object", "required": ["a"]}))
        middleware._refreshed_at -= REFRESH_INTERVAL  # as if a second had passed
        result = await middleware(context("tools/call", {"name": "late", "arguments": {}}), handler)
        assert result["isError"] and result["structuredContent"]["error"]["tool"] == "late"
        assert middleware.catalog.listings == 2
        # Unknown names right after do not re-read the source.
        for _ in range(5):
            with pytest.raises(MCPError):
                await middleware(context("tools/call", {"name": "ghost"}), handler)
        assert middleware.catalog.listings == 2

    asyncio.run(main())


def test_structured_content_null_is_a_value_and_absence_is_not() -> None:
    from engine.adapters._catalog import ABSENT
    from engine.adapters._sdk_tools import structured_content

    catalog = ToolCatalog(engine.Engine())
    catalog.absorb([{"name": "maybe", "inputSchema": {"type": "object"}, "outputSchema": {"type": "null"}}])
    catalog.validate_structured("maybe", None)
    with pytest.raises(engine.ValidationFailed):
        catalog.validate_structured("maybe", ABSENT)
    with pytest.raises(engine.ValidationFailed):
        catalog.validate_structured("maybe", 0)
    # The SDK model tells an explicit `structuredContent: null` from a missing one.
    sent_null = types.CallToolResult.model_validate({"content": [], "structuredContent": None})
    assert structured_content(sent_null) is None
    assert structured_content(types.CallToolResult(content=[])) is ABSENT


def test_install_wraps_the_handlers_once() -> None:
    from mcp.server import Server

    async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
        return types.CallToolResult(content=[])

    server = Server("once", on_call_tool=call_tool)
    with pytest.raises(ValueError, match="tools/list"):
        ToolValidation(engine=engine.Engine()).install(server)  # nothing to read the tools from
    ToolValidation([], engine=engine.Engine()).install(server)
    with pytest.raises(ValueError, match="already installed"):
        ToolValidation([], engine=engine.Engine()).install(server)
    with pytest.raises(TypeError, match="Server or MCPServer"):
        ToolValidation([]).install(object())
    with pytest.raises(TypeError, match="collection of tool names"):
        ToolValidation([], report_only="search")  # type: ignore[arg-type]

"""What an adapter is given: settings checked where they are given, and values that are no JSON
(a NaN, an infinity, a lone surrogate: the SDK's JSON parser admits them) answered as invalid
payloads, never as an internal error."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'engine[mcp]')")

import anyio  # noqa: E402
import mcp_types as types  # noqa: E402
from mcp.server.context import ServerRequestContext  # noqa: E402

import engine  # noqa: E402
from engine.adapters.mcp_sdk import EngineClient, EngineClientSession, InvalidToolResult, ToolValidation  # noqa: E402

TOOLS = [
    {
        "name": "measure",
        "inputSchema": {"type": "object", "properties": {"x": {"type": "number"}, "t": {"type": "string"}}},
        "outputSchema": {"type": "object", "properties": {"v": {"type": "number"}}},
    },
    {"name": "plain", "inputSchema": {"type": "object"}},
]
NOT_JSON = [
    ({"x": math.nan}, "non-finite-number"),
    ({"x": -math.inf}, "non-finite-number"),
    ({"t": "\ud800"}, "invalid-utf8"),
]


def context(params: dict[str, Any]) -> ServerRequestContext[Any, Any]:
    return ServerRequestContext(
        session=None,  # type: ignore[arg-type]
        lifespan_context={},
        protocol_version="2026-07-28",
        method="tools/call",
        params=params,
        request_id=1,
    )


@pytest.mark.parametrize(("arguments", "reason"), NOT_JSON)
def test_server_answers_arguments_that_are_no_json_as_invalid(arguments: dict[str, Any], reason: str) -> None:
    validation = ToolValidation(TOOLS, engine=engine.Engine())
    reached: list[Any] = []

    async def handler(ctx: Any) -> types.CallToolResult:
        reached.append(ctx.params)
        return types.CallToolResult(content=[])

    async def main() -> None:
        answer = await validation(context({"name": "plain", "arguments": arguments}), handler)
        assert answer["isError"] and answer["content"][0]["text"].startswith("Invalid arguments for tool 'plain': ")
        error = answer["structuredContent"]["error"]
        assert error["reason"] == "invalid-arguments" and error["decode"] == reason and error["issues"] == []
        # A tool with an outputSchema gets the text alone (its schema describes no error object).
        answer = await validation(context({"name": "measure", "arguments": arguments}), handler)
        assert answer["isError"] and "structuredContent" not in answer

    asyncio.run(main())
    assert reached == []


@pytest.mark.parametrize("value", [math.nan, math.inf, "\udfff"])
def test_server_answers_a_result_that_is_no_json_as_nonconforming(value: Any) -> None:
    validation = ToolValidation(TOOLS, engine=engine.Engine())

    async def handler(ctx: Any) -> types.CallToolResult:
        return types.CallToolResult(content=[], structured_content={"v": value})

    async def main() -> None:
        answer = await validation(context({"name": "measure", "arguments": {}}), handler)
        assert isinstance(answer, types.CallToolResult) and answer.is_error, answer  # the SDK shapes it
        assert "does not conform to its outputSchema" in answer.content[0].text  # type: ignore[union-attr]

    asyncio.run(main())


def test_client_refuses_a_result_that_is_no_json() -> None:
    send, receive = anyio.create_memory_object_stream(1)
    try:
        session = EngineClientSession(receive, send, engine=engine.Engine())
        session.engine_tools.absorb(TOOLS)

        async def main() -> None:
            result = types.CallToolResult(content=[], structured_content={"v": math.nan})
            with pytest.raises(InvalidToolResult) as info:
                await session.validate_tool_result("measure", result)
            assert isinstance(info.value.error, engine.DecodeError)
            assert info.value.error.reason == "non-finite-number" and info.value.tool == "measure"
            # A RuntimeError as the SDK's own, and an EngineError with its error's reason.
            assert isinstance(info.value, RuntimeError) and isinstance(info.value, engine.EngineError)
            assert info.value.reason == "non-finite-number" and info.value.message == str(info.value)
            fine = types.CallToolResult(content=[], structured_content={"v": 1})
            await session.validate_tool_result("measure", fine)

        asyncio.run(main())
    finally:
        send.close()
        receive.close()


def test_invalid_arguments_result_answers_a_decode_error() -> None:
    tools = engine.compile_tools(TOOLS)
    with pytest.raises(engine.DecodeError) as info:
        tools.validate_arguments("plain", b'{"x": ')
    answer = engine.invalid_arguments_result(info.value, "plain")
    assert answer["isError"] and info.value.message in answer["content"][0]["text"]
    assert answer["structuredContent"]["error"]["decode"] == "malformed-json"
    with pytest.raises(TypeError, match="ValidationFailed or DecodeError"):
        engine.invalid_arguments_result(ValueError("x"), "plain")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("settings", "error", "words"),
    [
        ({"tools": 5}, TypeError, "tools= takes a list of Tool models or dicts"),
        ({"tools": "search"}, TypeError, "tools= takes a list"),
        ({"tools": {"name": "t"}}, TypeError, "tools= takes a list"),
        ({"tools": [1]}, TypeError, "tools= item 0 is int"),
        ({"tools": [{"inputSchema": {"type": "object"}}]}, TypeError, "tools= item 0 has no name"),
        ({"tools": [{"name": 10**5000}]}, TypeError, "tools= item 0 has no name"),
        ({"tools": [], "refresh_interval": -1}, ValueError, "zero or more"),
        ({"tools": [], "refresh_interval": "1"}, TypeError, "refresh_interval takes a number of seconds"),
        ({"tools": [], "refresh_interval": math.nan}, TypeError, "refresh_interval"),
        ({"tools": [], "refresh_interval": True}, TypeError, "refresh_interval"),
        ({"tools": [], "refresh_interval": -(10**5000)}, ValueError, "zero or more, not <an integer of"),
        ({"tools": [], "validate_results": "no"}, TypeError, "validate_results takes True or False"),
        ({"tools": [], "text_fallback": 0}, TypeError, "text_fallback takes True or False"),
        ({"tools": [], "report_only": 5}, TypeError, "report_only takes True, False or a collection"),
        ({"tools": [], "report_only": ["a", 1]}, TypeError, "report_only takes tool names"),
        ({"tools": [], "engine": engine.EngineConfig()}, TypeError, "engine= takes an engine.Engine"),
    ],
)
def test_server_settings_are_checked_when_given(settings: dict[str, Any], error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words):
        ToolValidation(**settings)


def test_good_server_settings_are_kept() -> None:
    validation = ToolValidation([types.Tool(name="t", input_schema={"type": "object"})], refresh_interval=0)
    assert validation.refresh_interval == 0.0 and validation.validate_results is True
    assert ToolValidation([], refresh_interval=2**1100).refresh_interval == math.inf  # past a float: never stale
    assert ToolValidation((), report_only={"a", "b"}, refresh_interval=2.5).refresh_interval == 2.5


def test_a_tools_callable_returning_no_list_says_so() -> None:
    async def source() -> Any:
        return {"tools": []}

    validation = ToolValidation(source, engine=engine.Engine())
    with pytest.raises(TypeError, match="the tools= callable returned dict"):
        asyncio.run(validation.refresh())


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        ({"engine": engine.EngineConfig()}, "engine= takes an engine.Engine"),
        ({"report_only": "w"}, "report_only takes True, False or a collection"),
    ],
)
def test_client_settings_are_checked_when_given(settings: dict[str, Any], words: str) -> None:
    with pytest.raises(TypeError, match=words):
        EngineClient("http://127.0.0.1:1/mcp", **settings)


def test_fastmcp_settings_are_checked_when_given() -> None:
    fastmcp = pytest.importorskip("fastmcp", reason="FastMCP is not installed")
    from engine.adapters.fastmcp import EngineValidation, validate_results

    with pytest.raises(ValueError, match="zero or more"):
        EngineValidation(refresh_interval=-5)
    with pytest.raises(TypeError, match="validate_results takes True or False"):
        EngineValidation(validate_results="no")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="engine= takes an engine.Engine"):
        validate_results(fastmcp.Client("http://127.0.0.1:1/mcp"), engine=engine.EngineConfig())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="report_only takes tool names"):
        validate_results(fastmcp.Client("http://127.0.0.1:1/mcp"), report_only=[1])  # type: ignore[list-item]


@pytest.mark.parametrize(("arguments", "reason"), NOT_JSON)
def test_fastmcp_answers_arguments_that_are_no_json_as_invalid(arguments: dict[str, Any], reason: str) -> None:
    # FastMCP's own clients send a NaN as null; a peer writing JSON-RPC itself can send `NaN`.
    pytest.importorskip("fastmcp", reason="FastMCP is not installed")
    from fastmcp.server.middleware import MiddlewareContext
    from fastmcp.tools.base import ToolResult

    from engine.adapters.fastmcp import EngineValidation

    validation = EngineValidation(engine.Engine())
    validation.catalog.absorb(TOOLS)
    ran: list[Any] = []

    async def call_next(context: Any) -> ToolResult:
        ran.append(context.message.arguments)
        return ToolResult(content=[])  # FastMCP itself refuses a NaN in a result it builds

    async def main() -> None:
        message = types.CallToolRequestParams(name="plain", arguments=arguments)
        answer = await validation.on_call_tool(MiddlewareContext(message=message), call_next)
        assert answer.is_error and ran == []
        assert answer.structured_content["error"]["decode"] == reason  # type: ignore[index]

    asyncio.run(main())


def test_an_unanswered_ask_names_the_adapter_of_its_sdk() -> None:
    from engine.adapters.mcp_sdk import InputRequired

    assert "install ToolValidation on the server" in str(InputRequired({"resultType": "input_required"}))
    pytest.importorskip("fastmcp", reason="FastMCP is not installed")
    from engine.adapters import fastmcp

    raised = fastmcp._FastMCPInputRequired({"resultType": "input_required"})
    assert isinstance(raised, InputRequired) and "EngineValidation middleware" in str(raised)
    assert "ToolValidation" not in str(raised)


class _Unreadable(Mapping[str, Any]):
    """A mapping that raises when read: no JSON object."""

    def __getitem__(self, key: str) -> Any:
        raise RuntimeError("boom")

    def __iter__(self) -> Any:
        return iter(["x"])

    def __len__(self) -> int:
        return 1


def test_server_answers_arguments_it_cannot_read_as_invalid() -> None:
    validation = ToolValidation(TOOLS, engine=engine.Engine())

    async def handler(ctx: Any) -> types.CallToolResult:
        raise AssertionError("never reached")

    async def main() -> None:
        answer = await validation(context({"name": "plain", "arguments": _Unreadable()}), handler)
        assert answer["isError"]
        assert answer["structuredContent"]["error"]["issues"][0]["message"] == "arguments must be an object"

    asyncio.run(main())


def test_a_listing_entry_without_a_name_is_passed_over() -> None:
    from engine.adapters._catalog import ToolCatalog

    catalog = ToolCatalog(engine.Engine())
    catalog.absorb([{"inputSchema": {"type": "object"}}, {"name": 5}, TOOLS[1]])
    assert "plain" in catalog and catalog.compiled == 1


def test_answers_show_a_long_tool_name_short() -> None:
    from engine.adapters._catalog import nonconforming, unavailable

    name = "n" * 100_000
    tools = engine.compile_tools([{"name": name, "inputSchema": {"type": "object", "required": ["a"]}}])
    with pytest.raises(engine.ValidationFailed) as info:
        tools.validate_arguments(name, {})
    answer = engine.invalid_arguments_result(info.value, name)
    assert len(answer["content"][0]["text"]) < 500 and answer["structuredContent"]["error"]["tool"] == name
    assert len(nonconforming(name, info.value)) < 500
    refused = engine.SchemaRejected("remote-ref", "a $ref leaves the document")  # type: ignore[arg-type]
    assert len(unavailable(name, refused)) < 500

"""Elicitation from a tool handler on every protocol generation the SDKs negotiate: the default
(2026-07-28: InputRequiredResult rounds) and the handshake era (2025-11-25: elicitation/create),
on the low-level server, MCPServer and FastMCP, over streamable HTTP on 127.0.0.1, with the answer
validated by the engine."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'engine[mcp]')")
pytest.importorskip("uvicorn", reason="uvicorn (an MCP SDK dependency) is not installed")

import mcp_types as types  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.server import Server  # noqa: E402
from mcp.server.mcpserver import Context, MCPServer  # noqa: E402

import engine  # noqa: E402
from benchmarks.load import serve_app  # noqa: E402
from engine.adapters.mcp_sdk import ToolValidation, elicit  # noqa: E402

try:  # the FastMCP tool's annotation is resolved from this module's names
    from fastmcp import Context as FastContext
except ImportError:  # pragma: no cover - the FastMCP case is skipped
    FastContext = None  # type: ignore[assignment,misc]

NAME = {"type": "object", "properties": {"name": {"type": "string", "minLength": 1}}, "required": ["name"]}
AGE = {"type": "object", "properties": {"age": {"type": "integer", "minimum": 18}}, "required": ["age"]}
SIGN_UP = types.Tool(name="sign_up", input_schema={"type": "object"})
ERAS = [pytest.param("auto", id="2026-07-28"), pytest.param("legacy", id="2025-11-25")]


async def two_questions(ctx: Any) -> str:
    """What every server's tool does: two questions in turn, each answer validated."""
    try:
        name = await elicit(ctx, "Your name?", NAME, key="name")
        if name.action != "accept":
            return f"no name ({name.action})"
        age = await elicit(ctx, "Your age?", AGE, key="age")
    except engine.ValidationFailed as exc:
        return "invalid: " + ", ".join(sorted(i.instance_path for i in exc.issues))
    return f"{name.content['name']} is {age.content['age']}"


def low_level() -> Server[Any]:
    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[SIGN_UP])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        text = await two_questions(ctx)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    server = Server("elicit-low-level", on_list_tools=list_tools, on_call_tool=call_tool)
    ToolValidation(engine=engine.Engine()).install(server)
    return server


def mcpserver() -> MCPServer:
    mcp = MCPServer("elicit-mcpserver")

    @mcp.tool()
    async def sign_up(ctx: Context) -> str:
        return await two_questions(ctx)

    ToolValidation(engine=engine.Engine()).install(mcp)
    return mcp


def fastmcp_app() -> Any:
    pytest.importorskip("fastmcp")
    from fastmcp import FastMCP

    from engine.adapters import fastmcp as adapter

    server = FastMCP("elicit-fastmcp", middleware=[adapter.EngineValidation(engine.Engine())])

    @server.tool
    async def sign_up(ctx: FastContext) -> str:
        try:
            name = await adapter.elicit(ctx, "Your name?", NAME, key="name")
            if name.action != "accept":
                return f"no name ({name.action})"
            age = await adapter.elicit(ctx, "Your age?", AGE, key="age")
        except engine.ValidationFailed as exc:
            return "invalid: " + ", ".join(sorted(i.instance_path for i in exc.issues))
        return f"{name.content['name']} is {age.content['age']}"

    return server.http_app(path="/mcp")


SERVERS = {
    "low-level": lambda: low_level().streamable_http_app(host="127.0.0.1"),
    "mcpserver": lambda: mcpserver().streamable_http_app(),
    "fastmcp": fastmcp_app,
}


@pytest.fixture(scope="module", params=list(SERVERS))
def url(request: pytest.FixtureRequest) -> Iterator[str]:
    with serve_app(SERVERS[request.param]()) as address:
        yield address


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, timeout=60))


def answering(answers: dict[str, Any], asked: list[str]) -> Any:
    async def on_elicit(ctx: Any, params: types.ElicitRequestFormParams) -> types.ElicitResult:
        field = next(iter(params.requested_schema["properties"]))
        asked.append(field)
        answer = answers[field]
        if answer is None:
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content=answer)

    return on_elicit


def call(url: str, mode: str, answers: dict[str, Any]) -> tuple[str, list[str], str]:
    asked: list[str] = []

    async def main() -> tuple[str, str]:
        async with Client(url, mode=mode, elicitation_callback=answering(answers, asked)) as client:
            result = await client.call_tool("sign_up", {})
            assert not result.is_error, result
            return result.content[0].text, client.protocol_version

    text, version = run(main())
    return text, asked, version


@pytest.mark.parametrize("mode", ERAS)
def test_two_questions_answered(url: str, mode: str) -> None:
    text, asked, version = call(url, mode, {"name": {"name": "Ada"}, "age": {"age": 36}})
    assert version == ("2026-07-28" if mode == "auto" else "2025-11-25")
    assert text == "Ada is 36"
    assert asked == ["name", "age"]  # each question asked once, in turn


@pytest.mark.parametrize("mode", ERAS)
def test_an_invalid_answer_is_refused_by_the_engine(url: str, mode: str) -> None:
    text, asked, _ = call(url, mode, {"name": {"name": "Ada"}, "age": {"age": "old"}})
    assert text == "invalid: /content/age"
    text, _, _ = call(url, mode, {"name": {"name": ""}, "age": {"age": 40}})
    assert text == "invalid: /content/name"  # minLength, asserted by the compiled form


@pytest.mark.parametrize("mode", ERAS)
def test_a_declined_question(url: str, mode: str) -> None:
    text, asked, _ = call(url, mode, {"name": None, "age": {"age": 40}})
    assert text == "no name (decline)" and asked == ["name"]


def test_a_forged_carried_answer_is_validated_again() -> None:
    """Earlier answers ride in requestState, which the client echoes: a forged one is checked by the
    form like any answer, never trusted."""
    from engine.adapters._elicit import STATE_PREFIX

    async def main() -> None:
        async with Client(address) as client:
            first = await client.session.call_tool("sign_up", {}, allow_input_required=True)
            assert isinstance(first, types.InputRequiredResult) and list(first.input_requests or {}) == ["name"]
            forged = STATE_PREFIX + '{"name": {"action": "accept", "content": {"name": 7}}}'
            age = {"age": types.ElicitResult(action="accept", content={"age": 30})}
            result = await client.session.call_tool(
                "sign_up", {}, input_responses=age, request_state=forged, allow_input_required=True
            )
            assert isinstance(result, types.CallToolResult)
            assert result.content[0].text == "invalid: /content/name"

    with serve_app(low_level().streamable_http_app(host="127.0.0.1")) as address:
        run(main())


def test_without_the_adapter_the_round_is_the_handlers_to_answer() -> None:
    from engine.adapters.mcp_sdk import InputRequired

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[SIGN_UP])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> Any:
        try:
            text = await two_questions(ctx)
        except InputRequired as request:
            return types.InputRequiredResult.model_validate(request.result)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    server = Server("bare-elicit", on_list_tools=list_tools, on_call_tool=call_tool)
    asked: list[str] = []

    async def main() -> None:
        answers = {"name": {"name": "Grace"}, "age": {"age": 85}}
        async with Client(address, elicitation_callback=answering(answers, asked)) as client:
            result = await client.call_tool("sign_up", {})
            assert result.content[0].text == "Grace is 85"

    with serve_app(server.streamable_http_app(host="127.0.0.1")) as address:
        run(main())
    assert asked == ["name", "age"]

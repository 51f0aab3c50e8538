"""The invalid-call paths, seen by the MCP TypeScript SDK's client (``@modelcontextprotocol/sdk``,
which speaks 2025-11-25 and checks ``structuredContent`` against the ``outputSchema`` even on error
results): every answer the adapters make must be one it accepts and shows.

Needs ``node``; skipped only when it is absent. The SDK is installed by ``nox -s tests`` (and here,
with npm, if it is missing)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'engine[mcp]')")
pytest.importorskip("uvicorn", reason="uvicorn (an MCP SDK dependency) is not installed")

if shutil.which("node") is None:
    pytest.skip("node is not installed: the TypeScript SDK's client cannot run", allow_module_level=True)

import mcp_types as types  # noqa: E402
from mcp.server import Server  # noqa: E402
from mcp.server.mcpserver import MCPServer  # noqa: E402

import engine  # noqa: E402
from benchmarks.load import serve_app  # noqa: E402
from engine.adapters.mcp_sdk import ToolValidation  # noqa: E402

HERE = Path(__file__).parent / "typescript"

WEATHER = types.Tool(
    name="weather",
    input_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    output_schema={"type": "object", "properties": {"temperature": {"type": "number"}}, "required": ["temperature"]},
)
ECHO = types.Tool(
    name="echo", input_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
)
TAGS = types.Tool(
    name="tags", input_schema={"type": "object"}, output_schema={"type": "array", "items": {"type": "string"}}
)
DRIFT = types.Tool(
    name="drift",
    input_schema={"type": "object"},
    output_schema={"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
)


@pytest.fixture(scope="module")
def typescript_sdk() -> Path:
    if not (HERE / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        npm = shutil.which("npm")
        assert npm is not None, "node is installed but npm is not: install @modelcontextprotocol/sdk"
        subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--loglevel=error"], cwd=HERE, check=True, timeout=300
        )
    return HERE / "client.mjs"


def typescript_client(script: Path, url: str, plan: list[dict[str, Any]]) -> dict[str, Any]:
    done = subprocess.run(["node", str(script), url, json.dumps(plan)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    outcome: dict[str, Any] = json.loads(done.stdout)
    return outcome


def low_level(*, adapter: bool) -> Server[Any]:
    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[WEATHER, ECHO, TAGS, DRIFT] if adapter else [WEATHER, ECHO])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> Any:
        arguments = params.arguments or {}
        if not adapter and params.name == "weather" and not isinstance(arguments.get("city"), str):
            # What the adapter used to answer: an error object that the outputSchema does not describe.
            failure = engine.ValidationFailed(
                [engine.Issue(instance_path="/city", keyword_location="/type", keyword="type", message="not a string")]
            )
            return types.CallToolResult.model_validate(engine.invalid_arguments_result(failure, "weather"))
        if params.name == "weather":
            return types.CallToolResult(content=[], structured_content={"temperature": 21})
        if params.name == "tags":
            return types.CallToolResult(content=[], structured_content=["a", "b"])
        if params.name == "drift":
            return types.CallToolResult(content=[], structured_content={"n": "many"})
        return types.CallToolResult(content=[types.TextContent(type="text", text=str(arguments.get("text")))])

    server = Server("ts-interop", on_list_tools=list_tools, on_call_tool=call_tool)
    if adapter:
        ToolValidation(engine=engine.Engine()).install(server)
    return server


PLAN = [
    {"name": "weather", "arguments": {"city": 7}},
    {"name": "weather", "arguments": {}},
    {"name": "echo", "arguments": {"text": ["not", "a", "string"]}},
    {"name": "weather", "arguments": {"city": "Paris"}},
    {"name": "nope", "arguments": {}},
    {"name": "tags", "arguments": {}},
    {"name": "drift", "arguments": {}},
]


def test_the_typescript_client_reads_every_answer_of_the_server_adapter(typescript_sdk: Path) -> None:
    with serve_app(low_level(adapter=True).streamable_http_app(host="127.0.0.1")) as url:
        outcome = typescript_client(typescript_sdk, url, PLAN)
    assert outcome["protocolVersion"] == "2025-11-25"
    # The array tool is left out of this older client's listing, which therefore works.
    assert outcome["listError"] is None and outcome["listed"] == ["weather", "echo", "drift"]
    calls = outcome["calls"]
    for bad in calls[:3]:  # invalid arguments: a readable error result, never an exception
        assert "error" not in bad, bad
        assert bad["result"]["isError"] is True
        assert bad["result"]["content"][0]["text"].startswith(f"Invalid arguments for tool '{bad['name']}'")
    assert "structuredContent" not in calls[0]["result"]  # weather declares an outputSchema
    assert calls[2]["result"]["structuredContent"]["error"]["issues"][0]["instancePath"] == "/text"  # echo: none
    assert calls[3]["result"]["structuredContent"] == {"temperature": 21}
    assert calls[4]["error"]["code"] == -32602  # unknown tool: invalid params
    # Called anyway, the array tool answers in text (SEP-2106), which this client can read.
    assert calls[5]["result"]["content"] == [{"type": "text", "text": '["a","b"]'}]
    assert "structuredContent" not in calls[5]["result"]
    # A result that breaks the advertised schema is refused by the server, as an error result.
    assert calls[6]["result"]["isError"] is True and "outputSchema" in calls[6]["result"]["content"][0]["text"]


def test_the_typescript_client_throws_on_an_error_object_its_schema_does_not_describe(typescript_sdk: Path) -> None:
    """The control: the answer the adapter used to give makes this client throw instead of showing
    the model the message, which is why error results no longer carry it for such tools."""
    with serve_app(low_level(adapter=False).streamable_http_app(host="127.0.0.1")) as url:
        outcome = typescript_client(typescript_sdk, url, PLAN[:1])
    assert "Structured content does not match the tool's output schema" in outcome["calls"][0]["error"]["message"]


def test_the_typescript_client_with_mcpserver_and_fastmcp(typescript_sdk: Path) -> None:
    mcp = MCPServer("ts-mcpserver")

    @mcp.tool()
    def add(a: int, b: int) -> int:
        return a + b

    ToolValidation(engine=engine.Engine()).install(mcp)
    plan = [{"name": "add", "arguments": {"a": "1", "b": 2}}, {"name": "add", "arguments": {"a": 1, "b": 2}}]
    with serve_app(mcp.streamable_http_app()) as url:
        outcome = typescript_client(typescript_sdk, url, plan)
    refused, ok = outcome["calls"]
    assert refused["result"]["isError"] is True and "structuredContent" not in refused["result"]
    assert ok["result"]["structuredContent"] == {"result": 3}

    pytest.importorskip("fastmcp")
    from fastmcp import FastMCP

    from engine.adapters.fastmcp import EngineValidation

    server = FastMCP("ts-fastmcp", middleware=[EngineValidation(engine.Engine())])
    server.tool(add)
    with serve_app(server.http_app(path="/mcp")) as url:
        outcome = typescript_client(typescript_sdk, url, [*plan, {"name": "nope", "arguments": {}}])
    refused, ok, unknown = outcome["calls"]
    assert refused["result"]["isError"] is True and "structuredContent" not in refused["result"]
    assert "Invalid arguments for tool 'add'" in refused["result"]["content"][0]["text"]
    assert ok["result"]["structuredContent"] == {"result": 3}
    assert unknown["error"]["code"] == -32602

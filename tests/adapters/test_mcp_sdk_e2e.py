"""End to end through the official SDK: a real server over streamable HTTP on 127.0.0.1, real clients,
real tool definitions and recorded results from bench_data/, every outcome checked through the adapters."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'engine[mcp]')")
pytest.importorskip("uvicorn", reason="uvicorn (an MCP SDK dependency) is not installed")

import jsonschema  # noqa: E402
import mcp_types as types  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

import engine  # noqa: E402
from benchmarks.load import build_server, load_replay_tools, serve  # noqa: E402
from engine.adapters.mcp_sdk import (  # noqa: E402
    ElicitationForms,
    EngineClient,
    EngineClientSession,
    InvalidToolResult,
    ToolValidation,
    elicit,
)

FORMS = Path(__file__).parents[2] / "bench_data" / "elicitation" / "requested-schemas.json"
# The MCP specification's example form: name, email (format: email), age (minimum 18).
SIGNUP = next(
    f["requestedSchema"]
    for f in json.loads(FORMS.read_text())
    if f["source"] == "mcp-spec-examples" and "email" in f["requestedSchema"]["properties"]
)

PRIMITIVE = types.Tool(
    name="count_words",
    input_schema={
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
        "additionalProperties": False,
    },
    output_schema={"type": "integer", "minimum": 0},
)
DRIFTING = types.Tool(
    name="drifting_weather",
    input_schema={"type": "object"},
    output_schema={"type": "object", "properties": {"temperature": {"type": "number"}}, "required": ["temperature"]},
)
SIGN_UP = types.Tool(name="sign_up", input_schema={"type": "object"})
ECHO = types.Tool(
    name="echo", input_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
)
LEGACY_SIGN_UP = types.Tool(name="legacy_sign_up", input_schema={"type": "object"})


class Recorder:
    """What the tool handlers actually received: validation must stop bad calls before them."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.answers: list[Any] = []


def extra_tools(recorder: Recorder, forms: ElicitationForms) -> dict[str, Any]:
    async def count_words(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        recorder.calls.append((params.name, params.arguments))
        n = len(str((params.arguments or {}).get("text", "")).split())
        return types.CallToolResult(content=[types.TextContent(type="text", text=str(n))], structured_content=n)

    async def drifting(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        recorder.calls.append((params.name, params.arguments))
        # A server whose output drifted from what it advertises.
        return types.CallToolResult(content=[], structured_content={"temperature": "hot"})

    async def sign_up(ctx: Any, params: types.CallToolRequestParams) -> Any:
        recorder.calls.append((params.name, params.arguments))
        responses = params.input_responses or {}
        if "signup" not in responses:
            return types.InputRequiredResult(
                input_requests={"signup": forms.request("Please sign up", SIGNUP)}, request_state="round-1"
            )
        try:
            answer = forms.read(SIGNUP, responses["signup"])
        except engine.ValidationFailed as exc:
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=f"the form answer is invalid: {exc.message}")],
                structured_content={"issues": sorted({i.instance_path for i in exc.issues})},
                is_error=True,
            )
        recorder.answers.append(answer)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text="welcome")],
            structured_content={"action": answer.action, "content": answer.content},
        )

    async def legacy_sign_up(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        # Handshake-era sessions: the server sends elicitation/create to the client and waits.
        try:
            answer = await elicit(
                ctx.session, "Please sign up", SIGNUP, engine=forms.engine, related_request_id=ctx.request_id
            )
        except engine.ValidationFailed as exc:
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=exc.message)],
                structured_content={"issues": sorted({i.instance_path for i in exc.issues})},
                is_error=True,
            )
        return types.CallToolResult(content=[], structured_content={"action": answer.action, "content": answer.content})

    async def echo(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        recorder.calls.append((params.name, params.arguments))
        return types.CallToolResult(content=[types.TextContent(type="text", text=str(params.arguments))])

    return {
        "echo": (ECHO, echo),
        "count_words": (PRIMITIVE, count_words),
        "drifting_weather": (DRIFTING, drifting),
        "sign_up": (SIGN_UP, sign_up),
        "legacy_sign_up": (LEGACY_SIGN_UP, legacy_sign_up),
    }


class Stack:
    def __init__(self, url: str, eng: engine.Engine, recorder: Recorder, validation: ToolValidation) -> None:
        self.url, self.engine, self.recorder, self.validation = url, eng, recorder, validation


TOOLS = load_replay_tools()


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    eng = engine.Engine()
    recorder = Recorder()
    forms = ElicitationForms(eng)
    extra = extra_tools(recorder, forms)
    validation = ToolValidation(engine=eng)  # reads the server's own tools/list handler
    with serve(build_server(TOOLS, validation=validation, extra=extra)) as url:
        yield Stack(url, eng, recorder, validation)


@pytest.fixture(scope="module")
def unchecked_server() -> Iterator[str]:
    """The same server without the adapter: what a client must defend itself against."""
    recorder = Recorder()
    with serve(build_server(TOOLS, extra=extra_tools(recorder, ElicitationForms()))) as url:
        yield url


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, timeout=60))


def oracle_accepts(schema: Any, value: Any) -> bool:
    return jsonschema.validators.validator_for(schema)(schema).is_valid(value)


def test_the_corpus_gives_real_tools() -> None:
    assert len(TOOLS) >= 20
    assert any(t.definition["outputSchema"].get("type") == "array" for t in TOOLS)


def test_every_recorded_call_round_trips(stack: Stack) -> None:
    async def main() -> None:
        async with EngineClient(stack.url, engine=stack.engine) as client:
            assert isinstance(client.session, EngineClientSession)
            listing = await client.list_tools()
            assert {t.name for t in TOOLS} <= {t.name for t in listing.tools}
            catalog = client.session.engine_tools
            assert catalog.listings == 1 and catalog.refusals() == {}
            for tool in TOOLS:
                for arguments in tool.calls:
                    expected = tool.results[json.dumps(arguments, sort_keys=True, separators=(",", ":"))]
                    valid = oracle_accepts(tool.definition["inputSchema"], arguments)
                    result = await client.call_tool(tool.name, arguments)
                    if valid:
                        assert not result.is_error, (tool.name, result)
                        assert result.structured_content == expected["structuredContent"]
                    else:
                        assert result.is_error
            # One listing, one compile of the tool set, however many calls.
            assert catalog.listings == 1

    run(main())


def test_array_and_primitive_structured_content(stack: Stack) -> None:
    list_users = next(t for t in TOOLS if t.name == "list_users")

    async def main() -> None:
        async with EngineClient(stack.url, engine=stack.engine) as client:
            await client.list_tools()
            users = await client.call_tool("list_users", list_users.calls[0])
            assert isinstance(users.structured_content, list) and users.structured_content[0]["name"] == "Alice"
            count = await client.call_tool("count_words", {"text": "one two three"})
            assert count.structured_content == 3 and not count.is_error

    run(main())


def test_invalid_arguments_become_is_error_results_and_never_reach_the_tool(stack: Stack) -> None:
    async def main() -> None:
        async with EngineClient(stack.url, engine=stack.engine) as client:
            before = len(stack.recorder.calls)
            result = await client.call_tool("count_words", {"text": 42, "extra": True})
            assert result.is_error
            # count_words declares an outputSchema: an error object would contradict it, so the
            # issues are in the text only.
            assert result.structured_content is None
            text = result.content[0].text
            assert "Invalid arguments for tool 'count_words'" in text
            assert "- at /text:" in text and "- at (root):" in text  # wrong type, extra property
            echo = await client.call_tool("echo", {"text": 1})  # no outputSchema: the details, structured
            error = echo.structured_content["error"]
            assert error["reason"] == "invalid-arguments" and error["tool"] == "echo"
            assert [issue["instancePath"] for issue in error["issues"]] == ["/text"]
            weather = await client.call_tool("get-structured-content", {"location": 7})
            assert weather.is_error
            assert len(stack.recorder.calls) == before  # the handler never ran

    run(main())


def test_unknown_tool_is_invalid_params(stack: Stack) -> None:
    async def main() -> None:
        async with EngineClient(stack.url, engine=stack.engine) as client:
            with pytest.raises(MCPError) as info:
                await client.call_tool("no_such_tool", {})
            assert info.value.code == types.INVALID_PARAMS == -32602
            assert "no_such_tool" in info.value.message

    run(main())


def test_server_refuses_its_own_nonconforming_output(stack: Stack) -> None:
    async def main() -> None:
        async with EngineClient(stack.url, engine=stack.engine) as client:
            result = await client.call_tool("drifting_weather", {})
            assert result.is_error
            assert "outputSchema" in result.content[0].text

    run(main())


def test_client_refuses_nonconforming_output_from_an_unchecked_server(unchecked_server: str) -> None:
    async def main() -> None:
        async with EngineClient(unchecked_server) as client:
            await client.list_tools()
            with pytest.raises(InvalidToolResult) as info:
                await client.call_tool("drifting_weather", {})
            assert isinstance(info.value, RuntimeError)  # the SDK's contract for a bad result
            assert isinstance(info.value.error, engine.ValidationFailed)
            assert info.value.error.issues[0].instance_path == "/structuredContent/temperature"
            assert (await client.call_tool("count_words", {"text": "a b"})).structured_content == 2
        # The SDK's own client agrees on both (python-jsonschema, the reference).
        async with Client(unchecked_server) as plain:
            await plain.list_tools()
            with pytest.raises(RuntimeError):
                await plain.call_tool("drifting_weather", {})

    run(main())


@pytest.mark.parametrize(
    ("answer", "accepted"),
    [
        ({"name": "Ada Lovelace", "email": "ada@example.com", "age": 36}, True),
        ({"name": "Ada Lovelace", "email": "not an address", "age": 12}, False),
    ],
)
def test_elicitation_round_trip(stack: Stack, answer: dict[str, Any], accepted: bool) -> None:
    seen: list[Any] = []

    async def on_elicit(ctx: Any, params: types.ElicitRequestFormParams) -> types.ElicitResult:
        seen.append(params.requested_schema)
        return types.ElicitResult(action="accept", content=answer)

    async def main() -> None:
        async with EngineClient(stack.url, engine=stack.engine, elicitation_callback=on_elicit) as client:
            await client.list_tools()
            result = await client.call_tool("sign_up", {})
            assert seen == [SIGNUP]
            if accepted:
                assert not result.is_error
                assert result.structured_content == {"action": "accept", "content": answer}
            else:
                assert result.is_error
                issues = set(result.structured_content["issues"])
                assert issues == {"/content/email", "/content/age"}

    run(main())


def test_declined_elicitation(stack: Stack) -> None:
    async def on_elicit(ctx: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="decline")

    async def main() -> None:
        async with EngineClient(stack.url, engine=stack.engine, elicitation_callback=on_elicit) as client:
            result = await client.call_tool("sign_up", {})
            assert result.structured_content == {"action": "decline", "content": None}

    run(main())


def test_listings_compile_once_per_schema(stack: Stack) -> None:
    """Every session lists the same tools: the engine compiles each schema once, then hits its cache."""

    async def main(sessions: int) -> None:
        for _ in range(sessions):
            async with EngineClient(stack.url, engine=stack.engine) as client:
                await client.list_tools()
                await client.list_tools()

    # The first listing compiles whatever no earlier test on this worker did.
    run(main(1))
    before = stack.engine.cache_stats()
    run(main(3))
    after = stack.engine.cache_stats()
    assert after.misses == before.misses  # nothing new to compile
    assert after.hits > before.hits


@pytest.mark.parametrize(
    ("answer", "issues"),
    [
        ({"name": "Ada Lovelace", "email": "ada@example.com"}, None),
        ({"email": "ada@example.com", "age": "old"}, {"/content", "/content/age"}),
    ],
)
def test_elicitation_on_a_handshake_era_session(stack: Stack, answer: dict[str, Any], issues: set[str] | None) -> None:
    async def on_elicit(ctx: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content=answer)

    async def main() -> None:
        legacy = EngineClient(stack.url, engine=stack.engine, mode="legacy", elicitation_callback=on_elicit)
        async with legacy as client:
            assert client.protocol_version != "2026-07-28"
            result = await client.call_tool("legacy_sign_up", {})
            if issues is None:
                assert not result.is_error and result.structured_content == {"action": "accept", "content": answer}
            else:
                assert result.is_error and set(result.structured_content["issues"]) == issues

    run(main())

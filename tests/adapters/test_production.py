"""What production needs from the adapters: compiles that never block the event loop, metrics and
structured logs, report-only rollout per tool, tool-list changes picked up with only the changed
schemas compiled. Real SDK servers and clients over streamable HTTP on 127.0.0.1."""

from __future__ import annotations

import asyncio
import copy
import gc
import logging
import time
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'engine[mcp]')")
pytest.importorskip("uvicorn", reason="uvicorn (an MCP SDK dependency) is not installed")

import anyio  # noqa: E402
import mcp_types as types  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.server import Server  # noqa: E402

import engine  # noqa: E402
import engine.metrics  # noqa: E402
from benchmarks.load import load_replay_tools, serve_app  # noqa: E402
from engine.adapters._catalog import ToolCatalog  # noqa: E402
from engine.adapters.mcp_sdk import EngineClient, InvalidToolResult, ToolValidation  # noqa: E402

REAL = [t.definition for t in load_replay_tools()]


def run(coro: Any, timeout: float = 120) -> Any:
    return asyncio.run(asyncio.wait_for(coro, timeout=timeout))


def thousand_tools() -> list[dict[str, Any]]:
    """1,000 distinct real-world tool definitions: the corpus, each copy made unique by a title, so
    that every schema is a cache miss."""
    tools = []
    for i in range(1000):
        tool = copy.deepcopy(REAL[i % len(REAL)])
        tool["name"] = f"{tool['name']}-{i}"
        tool["inputSchema"]["title"] = f"copy {i}"
        if isinstance(tool.get("outputSchema"), dict):
            tool["outputSchema"]["title"] = f"copy {i}"
        tools.append(tool)
    return tools


class Server1000:
    """A server with 1,000 tools whose handlers answer at once, and a prompts/list that needs no compile."""

    def __init__(self, tools: list[dict[str, Any]], validation: ToolValidation) -> None:
        listed = [types.Tool.model_validate(t) for t in tools]

        async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
            return types.ListToolsResult(tools=listed)

        async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
            return types.CallToolResult(content=[], is_error=True)

        async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
            return types.ListPromptsResult(prompts=[])

        self.server = Server("thousand", on_list_tools=list_tools, on_call_tool=call_tool, on_list_prompts=list_prompts)
        validation.install(self.server)


# --- never block the event loop ------------------------------------------------------------------


def test_the_loop_keeps_ticking_while_1000_tools_compile() -> None:
    """In-process proof: a task ticking every 5 ms on the same loop as ``update`` never waits long,
    while the same compile run on the loop (``absorb``) stalls it for the whole compile."""
    tools = thousand_tools()

    async def measure(work: Any) -> tuple[float, float, int]:
        gaps: list[float] = []
        done = asyncio.Event()

        async def ticker() -> None:
            last = time.perf_counter()
            while not done.is_set():
                await asyncio.sleep(0.005)
                now = time.perf_counter()
                gaps.append(now - last)
                last = now

        task = asyncio.create_task(ticker())
        await asyncio.sleep(0.02)
        start = time.perf_counter()
        await work()
        elapsed = time.perf_counter() - start
        done.set()
        await task
        return elapsed, max(gaps), len(gaps)

    async def main() -> None:
        nonlocal tools
        off_loop = ToolCatalog(engine.Engine())
        elapsed, worst, ticks = await measure(lambda: off_loop.update(tools))
        assert len(off_loop) == 1000 and off_loop.compiled == 1000
        if elapsed <= 0.3:
            # A fast machine: four times the tools, so that the comparison means something.
            more = []
            for n in range(4000):
                tool = copy.deepcopy(tools[n % 1000])
                tool["name"] = f"{tool['name']}-x{n}"
                for key in ("inputSchema", "outputSchema"):
                    if isinstance(tool.get(key), dict):
                        tool[key]["title"] = f"copy x{n}"
                more.append(tool)
            tools = more
            off_loop = ToolCatalog(engine.Engine())
            elapsed, worst, ticks = await measure(lambda: off_loop.update(tools))
            assert len(off_loop) == 4000
        assert elapsed > 0.3, "the compile must be long enough for the comparison to mean something"
        assert ticks > elapsed / 0.005 / 4  # the loop ran all along, most ticks on time
        assert worst < min(0.2, elapsed / 5), (worst, elapsed)

        on_loop = ToolCatalog(engine.Engine())

        async def blocking() -> None:
            on_loop.absorb(tools)

        blocked, worst_blocked, _ = await measure(blocking)
        assert worst_blocked > blocked * 0.8  # what update() avoids: one gap as long as the compile

    # A full garbage collection stops every thread, wherever the compile runs (190 ms in a 1,000-tool
    # compile here): it is the interpreter's pause, not the compile's, so it is left out of this
    # measurement. The end-to-end test below runs with it.
    gc.disable()
    try:
        run(main())
    finally:
        gc.enable()


def test_a_server_keeps_answering_while_its_1000_tools_compile() -> None:
    """End to end: the first tools/call makes the server compile 1,000 tools; meanwhile a second
    client's prompts/list requests are answered by the same server, promptly."""
    validation = ToolValidation(engine=engine.Engine())
    app = Server1000(thousand_tools(), validation).server.streamable_http_app(host="127.0.0.1")

    async def main() -> None:
        async with Client(url) as first, Client(url) as second:
            began = time.perf_counter()
            compiling = asyncio.create_task(first.call_tool(REAL[0]["name"] + "-0", {}))
            latencies: list[float] = []
            while not compiling.done():
                start = time.perf_counter()
                await second.list_prompts()
                latencies.append(time.perf_counter() - start)
            await compiling
            took = time.perf_counter() - began
            assert validation.catalog.compiled == 1000
            answered_during = len(latencies)
            assert answered_during >= 3, latencies
            # Answered all along: no request waits for the whole compile (on a loaded machine one
            # answer can take a second or two, so the bound scales with the compile it runs beside).
            assert max(latencies) < max(1.0, took / 2), (took, latencies)

    with serve_app(app) as url:
        run(main())


def test_warm_up_compiles_before_the_first_call() -> None:
    tools = thousand_tools()[:50]
    validation = ToolValidation(tools, engine=engine.Engine())
    run(validation.warm_up())
    assert validation.catalog.compiled == 50
    before = validation.engine.cache_stats().misses
    run(validation.refresh())  # nothing changed: nothing compiles
    assert validation.catalog.compiled == 50 and validation.engine.cache_stats().misses == before


# --- metrics and logs ----------------------------------------------------------------------------

WEATHER = types.Tool(
    name="weather",
    input_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    output_schema={"type": "object", "properties": {"temperature": {"type": "number"}}, "required": ["temperature"]},
)
REMOTE = types.Tool(name="remote", input_schema={"type": "object", "properties": {"x": {"$ref": "https://e.x/y"}}})


def weather_server(validation: ToolValidation, *, drift: bool = False) -> Server[Any]:
    ran: list[Any] = []

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[WEATHER, REMOTE])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        ran.append(params.arguments)
        temperature: Any = "hot" if drift else 21
        return types.CallToolResult(content=[], structured_content={"temperature": temperature})

    server = Server("weather", on_list_tools=list_tools, on_call_tool=call_tool)
    server.ran = ran  # type: ignore[attr-defined]
    validation.install(server)
    return server


def test_counters_timings_and_one_record_per_refusal(caplog: pytest.LogCaptureFixture) -> None:
    eng = engine.Engine(cache_size=1)  # tiny: evictions happen
    validation = ToolValidation(engine=eng)
    server = weather_server(validation)

    async def main() -> None:
        async with EngineClient(url, engine=eng) as client:
            await client.list_tools()
            assert not (await client.call_tool("weather", {"city": "Paris"})).is_error
            assert (await client.call_tool("weather", {"city": 1})).is_error
            assert (await client.call_tool("weather", {})).is_error
            assert (await client.call_tool("remote", {"x": 1})).is_error

    with caplog.at_level(logging.INFO, logger="engine"), engine.metrics.hooked(engine.metrics.Recorder()) as recorder:
        with serve_app(server.streamable_http_app(host="127.0.0.1")) as url:
            run(main())
    snap = recorder.snapshot()
    v = snap.validations
    assert v[("weather", "arguments", "server", "valid")] == 1
    assert v[("weather", "arguments", "server", "invalid")] == 2
    assert v[("weather", "result", "server", "valid")] == 1
    assert v[("weather", "result", "client", "valid")] == 1
    assert snap.failures(direction="arguments") == 2 and snap.failures(direction="result") == 0
    assert snap.validation_seconds["arguments"] > 0
    # The server refuses the remote $ref once, whatever the number of listings; the client checks
    # results only, and compiles no inputSchema to refuse.
    assert snap.refusals == {("remote", "inputSchema", "remote-ref"): 1}
    assert snap.compile_refusals == {"remote-ref": 1}
    assert snap.compiles >= 2 and snap.compile_seconds > 0
    assert snap.cache.get("miss", 0) >= 2 and snap.cache.get("eviction", 0) >= 1

    refused = [r for r in caplog.records if r.name == "engine.refused"]
    assert len(refused) == 1 and {r.side for r in refused} == {"server"}  # type: ignore[attr-defined]
    for record in refused:
        assert (record.tool, record.schema, record.reason) == ("remote", "inputSchema", "remote-ref")  # type: ignore[attr-defined]
    invalid = [r for r in caplog.records if r.name == "engine.invalid"]
    assert len(invalid) == 2 and all(r.levelno == logging.INFO for r in invalid)
    assert [r.issues for r in invalid] == [  # type: ignore[attr-defined]
        [{"instancePath": "/city", "keyword": "type"}],
        [{"instancePath": "", "keyword": "required"}],
    ]


def test_prometheus_and_opentelemetry_exporters() -> None:
    prometheus_client = pytest.importorskip("prometheus_client")
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader

    from engine.metrics import opentelemetry, prometheus

    registry = prometheus_client.CollectorRegistry()
    reader = InMemoryMetricReader()
    prom = prometheus.install(registry=registry)
    otel = opentelemetry.install(meter_provider=MeterProvider(metric_readers=[reader]))
    try:
        catalog = ToolCatalog(engine.Engine())
        run(catalog.update([WEATHER.model_dump(by_alias=True, exclude_none=True)]))
        validation = ToolValidation([WEATHER], engine=catalog.engine)
        server = weather_server(validation)

        async def main() -> None:
            async with Client(url) as client:
                await client.call_tool("weather", {"city": 3})

        with serve_app(server.streamable_http_app(host="127.0.0.1")) as url:
            run(main())
    finally:
        engine.metrics.remove_hook(prom)
        engine.metrics.remove_hook(otel)
    text = prometheus_client.generate_latest(registry).decode()
    assert 'engine_validations_total{direction="arguments",outcome="invalid",side="server",tool="weather"} 1.0' in text
    assert 'engine_compiles_total{outcome="compiled",reason=""}' in text
    assert "engine_validation_seconds_bucket" in text
    points = {}
    for resource in reader.get_metrics_data().resource_metrics:
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                for point in metric.data.data_points:
                    points[(metric.name, tuple(sorted(point.attributes.items())))] = point
    key = (
        "engine.validations",
        (("direction", "arguments"), ("outcome", "invalid"), ("side", "server"), ("tool", "weather")),
    )
    assert points[key].value == 1
    assert any(name == "engine.compile.duration" for name, _ in points)


def test_a_broken_hook_never_breaks_validation(caplog: pytest.LogCaptureFixture) -> None:
    def broken(event: Any) -> None:
        raise RuntimeError("exporter down")

    catalog = ToolCatalog(engine.Engine())
    with engine.metrics.hooked(broken), caplog.at_level(logging.ERROR, logger="engine.metrics"):
        catalog.absorb([{"name": "t", "inputSchema": {"type": "object"}}])
        assert catalog.validate_arguments("t", {}) == {}
    assert any("exporter down" in (r.exc_text or "") or r.exc_info for r in caplog.records)


# --- report-only rollout -------------------------------------------------------------------------


def test_report_only_for_one_tool_on_the_server(caplog: pytest.LogCaptureFixture) -> None:
    strict = types.Tool(name="strict", input_schema={"type": "object", "required": ["q"]})
    ran: list[str] = []

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[WEATHER, strict])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        ran.append(params.name)
        return types.CallToolResult(content=[], structured_content={"temperature": "hot"})

    server = Server("shadow", on_list_tools=list_tools, on_call_tool=call_tool)
    ToolValidation(engine=engine.Engine(), report_only={"weather"}).install(server)

    async def main() -> None:
        async with EngineClient(url, report_only=True) as client:  # the server is what decides here
            shadowed = await client.call_tool("weather", {"city": 1})
            assert not shadowed.is_error and shadowed.structured_content == {"temperature": "hot"}
            enforced = await client.call_tool("strict", {})
            assert enforced.is_error

    recorder = engine.metrics.Recorder()
    with caplog.at_level(logging.INFO, logger="engine.invalid"), engine.metrics.hooked(recorder) as rec:
        with serve_app(server.streamable_http_app(host="127.0.0.1")) as url:
            run(main())
    assert ran == ["weather"]  # the shadowed call went through; the enforced one did not
    snap = rec.snapshot()
    assert snap.validations[("weather", "arguments", "server", "invalid-reported")] == 1
    assert snap.validations[("weather", "result", "server", "invalid-reported")] == 1
    assert snap.validations[("strict", "arguments", "server", "invalid")] == 1
    assert snap.validations[("weather", "result", "client", "invalid-reported")] == 1
    reported = [r for r in caplog.records if r.levelno == logging.WARNING and r.side == "server"]  # type: ignore[attr-defined]
    assert [(r.tool, r.direction, r.enforced) for r in reported] == [  # type: ignore[attr-defined]
        ("weather", "arguments", False),
        ("weather", "result", False),
    ]


def test_report_only_on_the_client() -> None:
    server = weather_server(ToolValidation(engine=engine.Engine(), validate_results=False), drift=True)

    async def main() -> None:
        async with EngineClient(url, report_only=True) as client:
            result = await client.call_tool("weather", {"city": "Oslo"})
            assert result.structured_content == {"temperature": "hot"}  # logged and counted, not raised
        async with EngineClient(url) as client:
            with pytest.raises(InvalidToolResult):
                await client.call_tool("weather", {"city": "Oslo"})

    with engine.metrics.hooked(engine.metrics.Recorder()) as rec:
        with serve_app(server.streamable_http_app(host="127.0.0.1")) as url:
            run(main())
    snap = rec.snapshot()
    assert snap.validations[("weather", "result", "client", "invalid-reported")] == 1
    assert snap.validations[("weather", "result", "client", "invalid")] == 1


# --- tool-list changes ---------------------------------------------------------------------------


class Mutable:
    """A server whose ``weather`` tool changes its inputSchema when ``flip`` is called, and says so
    with notifications/tools/list_changed (on handshake-era sessions)."""

    def __init__(self, refresh_interval: float) -> None:
        self.version = 1
        self.validation = ToolValidation(engine=engine.Engine(), refresh_interval=refresh_interval)

        async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
            return types.ListToolsResult(tools=self.tools())

        async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
            if params.name == "flip":
                self.version += 1
                if ctx.protocol_version != "2026-07-28":
                    await ctx.session.send_tool_list_changed()
                return types.CallToolResult(content=[])
            unit = "celsius" if self.version == 1 else "kelvin"
            return types.CallToolResult(content=[], structured_content={unit: 1})

        self.server = Server("mutable", on_list_tools=list_tools, on_call_tool=call_tool)
        self.validation.install(self.server)

    def tools(self) -> list[types.Tool]:
        required = "city" if self.version == 1 else "station"
        unit = "celsius" if self.version == 1 else "kelvin"
        weather = types.Tool(
            name="weather",
            input_schema={"type": "object", "properties": {required: {"type": "string"}}, "required": [required]},
            output_schema={"type": "object", "required": [unit]},
        )
        others = [types.Tool(name=f"other-{i}", input_schema={"type": "object", "title": str(i)}) for i in range(5)]
        return [weather, types.Tool(name="flip", input_schema={"type": "object"}), *others]


def test_the_server_picks_up_a_changed_schema_and_compiles_only_it() -> None:
    mutable = Mutable(refresh_interval=0.2)

    async def main() -> None:
        # A client that never lists again: only the server's own re-read can notice the change.
        async with EngineClient(url, report_only=True) as client:
            assert not (await client.call_tool("weather", {"city": "Oslo"})).is_error
            compiled = mutable.validation.catalog.compiled
            await client.call_tool("flip", {})
            await asyncio.sleep(0.25)  # older than refresh_interval: the next call re-reads
            assert (await client.call_tool("weather", {"city": "Oslo"})).is_error
            assert not (await client.call_tool("weather", {"station": "X"})).is_error
            assert mutable.validation.catalog.compiled == compiled + 1  # the changed tool only

    with serve_app(mutable.server.streamable_http_app(host="127.0.0.1")) as url:
        run(main())


def test_a_served_listing_is_picked_up_at_once() -> None:
    mutable = Mutable(refresh_interval=3600)  # never by age: only the listing can tell

    async def main() -> None:
        async with EngineClient(url) as client:
            assert not (await client.call_tool("weather", {"city": "Oslo"})).is_error
            mutable.version = 2
            await client.list_tools()
            assert not (await client.call_tool("weather", {"station": "X"})).is_error

    with serve_app(mutable.server.streamable_http_app(host="127.0.0.1")) as url:
        run(main())


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_client_follows_list_changes(mode: str) -> None:
    """On every tools/list (both generations) and on notifications/tools/list_changed (handshake
    era): the client checks results against the current outputSchema, compiling only what changed."""
    mutable = Mutable(refresh_interval=0)

    async def main() -> None:
        async with EngineClient(url, mode=mode) as client:
            await client.list_tools()
            catalog = client.session.engine_tools
            assert (await client.call_tool("weather", {"city": "Oslo"})).structured_content == {"celsius": 1}
            compiled, listings = catalog.compiled, catalog.listings
            await client.call_tool("flip", {})
            if mode == "auto":
                await client.list_tools()  # no notification on 2026-07-28 without a subscription
            else:
                # A result is checked against the schemas held as its call is sent: the next call is
                # sent once the client has seen the notification (its handler runs in a task of its own).
                with anyio.fail_after(10):
                    while not client.session._engine_stale and catalog.listings == listings:
                        await anyio.sleep(0.01)
            result = await client.call_tool("weather", {"station": "X"})
            assert result.structured_content == {"kelvin": 1}
            assert catalog.compiled == compiled + 1

    with serve_app(mutable.server.streamable_http_app(host="127.0.0.1")) as url:
        run(main())


def test_calls_arriving_while_the_first_read_compiles_wait_for_it() -> None:
    """Twenty calls at once on a cold server: the first reads and compiles the tool list, the others
    wait for it instead of answering 'unknown tool'."""
    tools = thousand_tools()[:300]
    validation = ToolValidation(engine=engine.Engine())
    app = Server1000(tools, validation).server.streamable_http_app(host="127.0.0.1")

    async def main() -> None:
        async with Client(url) as client:
            calls = [client.call_tool(tools[i]["name"], {}) for i in range(20)]
            results = await asyncio.gather(*calls, return_exceptions=True)
        assert not [r for r in results if isinstance(r, BaseException)], results
        assert validation.catalog.listings == 1

    with serve_app(app) as url:
        run(main())

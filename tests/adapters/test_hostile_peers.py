"""What a hostile peer's names and listings cost an adapter's host: log records, metrics series and
catalog memory bounded, a refusal reported once, a refused tool in report-only mode reported on
each call (it went unchecked and unrecorded)."""

from __future__ import annotations

import asyncio
import gc
import logging
import tracemalloc
from typing import Any

import mcp_types as types
import pytest
from mcp.client import Client
from mcp.server import Server

import engine
import engine.metrics
from engine._metrics import LONGEST_TOOL_LABEL, MAX_TOOL_LABELS, OTHER_TOOLS, ToolLabels, ValidationEvent
from engine.adapters._catalog import LOGGED, ToolCatalog, logged, quoted
from engine.adapters.mcp_sdk import ToolValidation

REMOTE = {"type": "object", "properties": {"x": {"$ref": "https://e.example/s"}}}


def test_a_peer_text_is_logged_short_and_on_one_line() -> None:
    assert logged("search") == "search" and quoted("search") == "'search'"
    forged = "x\n2026-01-01 CRITICAL security: admin login"
    assert "\n" not in (logged(forged) or "") and "\\n" in (logged(forged) or "")
    long = "N" * 1_000_000
    assert len(logged(long) or "") < LOGGED + 40 and "1000000 characters" in (logged(long) or "")
    assert len(quoted(long)) < LOGGED + 40


def test_a_refusal_of_a_long_named_tool_is_a_short_record(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="engine.refused")
    ToolCatalog(side="client").absorb(
        [{"name": "N" * 1_000_000, "inputSchema": {"type": "object"}, "outputSchema": REMOTE}]
    )
    [record] = [r for r in caplog.records if r.name == "engine.refused"]
    assert len(record.getMessage()) < 5_000
    assert len(record.tool) < LOGGED + 40  # type: ignore[attr-defined]


def test_a_refusal_is_reported_once_whatever_the_listings(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="engine.refused")
    catalog = ToolCatalog(side="client")
    tools = [{"name": f"t{i}", "inputSchema": {"type": "object"}, "outputSchema": REMOTE} for i in range(20)]
    for _ in range(5):  # a list_changed storm: the tools come and go
        catalog.absorb(tools)
        catalog.absorb([])
    catalog.absorb([tools[0], tools[0]])  # a name listed twice is a refusal too
    messages = [r.getMessage() for r in caplog.records if r.name == "engine.refused"]
    assert len([m for m in messages if "remote-ref" in m]) == 20
    assert [m for m in messages if "listed more than once" in m] != []


def test_a_refused_tool_keeps_little() -> None:
    catalog = ToolCatalog(side="client")

    def page(i: int) -> list[dict[str, Any]]:
        return [
            {
                "name": f"t{i}_{j}",
                "inputSchema": {"type": "object"},
                "outputSchema": {"$ref": f"https://e.example/{i}/{j}"},
            }
            for j in range(500)
        ]

    logging.disable(logging.CRITICAL)
    try:
        catalog.absorb(page(0), complete=False)
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        for i in range(1, 5):
            catalog.absorb(page(i), complete=False)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
    finally:
        logging.disable(logging.NOTSET)
    assert len(catalog) == 2_500
    assert grown / 2_000 < 6_000, grown / 2_000  # 14 KB each, their refusals' tracebacks held


def test_tool_labels_are_bounded() -> None:
    labels = ToolLabels()
    assert labels("search") == "search" and labels(None) is None
    assert labels("n" * (LONGEST_TOOL_LABEL + 1)) == OTHER_TOOLS and labels("a\nb") == OTHER_TOOLS
    kept = {labels(f"tool{i}") for i in range(MAX_TOOL_LABELS + 500)}
    assert len(kept) == MAX_TOOL_LABELS and OTHER_TOOLS in kept
    recorder = engine.metrics.Recorder()
    for i in range(MAX_TOOL_LABELS + 500):
        recorder(
            ValidationEvent(tool=f"t{i}", direction="arguments", side="client", valid=True, enforced=True, seconds=0)
        )
    assert len(recorder.snapshot().validations) == MAX_TOOL_LABELS + 1


def test_prometheus_series_are_bounded() -> None:
    prometheus_client = pytest.importorskip("prometheus_client")
    from engine.metrics.prometheus import PrometheusExporter

    registry = prometheus_client.CollectorRegistry()
    exporter = PrometheusExporter(registry, "engine", tool_label=True)
    for i in range(MAX_TOOL_LABELS + 200):
        exporter(
            ValidationEvent(tool=f"t{i}" * 10, direction="result", side="client", valid=True, enforced=True, seconds=0)
        )
    exporter(
        ValidationEvent(tool="N" * 100_000, direction="result", side="client", valid=True, enforced=True, seconds=0)
    )
    scrape = prometheus_client.generate_latest(registry)
    assert scrape.count(b"engine_validations_total{") == MAX_TOOL_LABELS + 1
    assert b"N" * 1_000 not in scrape


def test_a_refused_tool_called_in_report_only_mode_is_reported(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="engine.invalid")
    ran: list[Any] = []

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(name="remote", input_schema=REMOTE)])

    async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
        ran.append(params.arguments)
        return types.CallToolResult(content=[types.TextContent(type="text", text="ran")])

    server = Server("s", on_list_tools=list_tools, on_call_tool=call_tool)
    ToolValidation(report_only=True).install(server)

    async def main() -> None:
        async with Client(server) as client:
            for arguments in ({"anything": [1, 2]}, {"x": {"deep": "junk"}}):
                assert not (await client.call_tool("remote", arguments)).is_error

    with engine.metrics.hooked(engine.metrics.Recorder()) as recorder:
        asyncio.run(main())
    assert len(ran) == 2  # report-only: the calls go on
    records = [r for r in caplog.records if r.name == "engine.invalid"]
    assert len(records) == 2 and all("report-only: would refuse" in r.getMessage() for r in records)
    assert recorder.snapshot().validations[("remote", "arguments", "server", "invalid-reported")] == 2


def test_answers_past_what_a_request_state_carries_end_the_call() -> None:
    from engine.adapters.mcp_sdk import EngineClient, elicit

    form = {"type": "object", "properties": {"v": {"type": "string"}}, "required": ["v"]}
    rounds: list[int] = []
    asked: list[str] = []

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(name="three", input_schema={"type": "object"})])

    async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
        rounds.append(1)
        for key in ("first", "second", "third"):
            await elicit(ctx, key, form, key=key)
        return types.CallToolResult(content=[types.TextContent(type="text", text="done")])

    async def on_elicit(ctx: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"v": "x" * 600_000})

    server = Server("e", on_list_tools=list_tools, on_call_tool=call_tool)
    ToolValidation().install(server)

    async def main() -> types.CallToolResult:
        async with EngineClient(server, elicitation_callback=on_elicit) as client:
            return await asyncio.wait_for(client.call_tool("three", {}), 60)

    result = asyncio.run(main())
    # The third round would write 1.2 MB of answers: the call ends saying so, no question is asked
    # twice (the state was written, then dropped on reading, and the questions asked round after round).
    text = result.content[0].text  # type: ignore[union-attr]
    assert result.is_error and "requestState" in text and asked == ["first", "second"] and len(rounds) == 3

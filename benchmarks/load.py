"""Load benchmark: many concurrent tool calls against a local MCP server, with and without the engine.

    python -m benchmarks.load [--calls 2000] [--concurrency 32] [--seconds 60] [--json]

A real server built with the official SDK (low-level ``Server`` over streamable HTTP, bound to
127.0.0.1 only) replays the recorded tool results in ``bench_data/structured/`` for the real tool
definitions in ``bench_data/tools/``; real SDK clients call it concurrently. Two modes, side by side
in one run:

- ``sdk``: the SDK as shipped — the client checks each result with python-jsonschema (a cached
  validator per tool); the low-level server checks no arguments.
- ``engine-client``: the same server; the client checks each result with the engine
  (:class:`engine.adapters.mcp_sdk.EngineClient`) — the like-for-like comparison.
- ``engine``: the adapters on both sides — the server checks arguments and results against the
  advertised schemas, the client checks results, all with the engine.

Reported per mode: calls per second, latency percentiles, and the share of wall time spent inside
validation (measured around the validating calls on both sides; server and clients share this
process). Bounded by ``--calls`` and ``--seconds``; nothing leaves the loopback interface.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import socket
import statistics
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[1] / "bench_data"


# ---------------------------------------------------------------------------------------------
# The replay server (also used by tests/adapters)


@dataclass
class ReplayTool:
    """A real tool definition and the results recorded for it, by canonical arguments."""

    definition: dict[str, Any]
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    calls: list[dict[str, Any]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return str(self.definition["name"])


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def load_replay_tools() -> list[ReplayTool]:
    """Every recorded result whose tool definition (same name, same outputSchema) is in bench_data."""
    definitions: dict[str, list[dict[str, Any]]] = {}
    for path in sorted((DATA / "tools").glob("*.json")):
        for tool in json.loads(path.read_text()):
            definitions.setdefault(tool["name"], []).append(tool)
    tools: dict[str, ReplayTool] = {}
    for record in json.loads((DATA / "structured" / "tool-results.json").read_text()):
        result = record["result"]
        if record["outputSchema"] is None or "structuredContent" not in result or result.get("isError"):
            continue
        match = [t for t in definitions.get(record["tool"], []) if t.get("outputSchema") == record["outputSchema"]]
        if not match:
            continue
        tool = tools.setdefault(record["tool"], ReplayTool(definition=match[0]))
        arguments = record["arguments"] or {}
        tool.results[canonical(arguments)] = result
        tool.calls.append(arguments)
    return list(tools.values())


Handler = Callable[[Any, Any], Awaitable[Any]]

MODES = {
    "sdk": "the SDK as shipped: the client checks results with python-jsonschema, the server checks nothing",
    "engine-client": "the client checks results with the engine (EngineClient), the server checks nothing",
    "engine": "the engine on both sides: the server checks arguments and results, the client checks results",
}


def build_server(
    tools: list[ReplayTool],
    *,
    middleware: Any = None,
    extra: Mapping[str, tuple[Any, Handler]] | None = None,
    name: str = "engine-replay",
    validation: Any = None,
) -> Any:
    """A low-level SDK ``Server`` replaying ``tools``; ``extra`` adds (Tool, handler) pairs by name.

    ``validation`` (a ``ToolValidation``) is installed on the server's handlers; ``middleware`` is
    appended to its middleware chain."""
    import mcp_types as types
    from mcp.server import Server

    by_name = {t.name: t for t in tools}
    extra = dict(extra or {})
    listed = [types.Tool.model_validate(t.definition) for t in tools] + [tool for tool, _ in extra.values()]

    legacy = [t for t in listed if t.output_schema is None or t.output_schema.get("type") == "object"]

    async def list_tools(ctx: Any, params: Any) -> Any:
        # Before 2026-07-28, structuredContent (and so outputSchema) had to be an object: older
        # sessions are not shown the tools that return arrays or primitives (an installed
        # ToolValidation does that by itself).
        if validation is not None:
            return types.ListToolsResult(tools=listed)
        return types.ListToolsResult(tools=listed if ctx.protocol_version >= "2026" else legacy)

    async def call_tool(ctx: Any, params: Any) -> Any:
        if params.name in extra:
            return await extra[params.name][1](ctx, params)
        tool = by_name.get(params.name)
        if tool is None:
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=f"Unknown tool: {params.name}")], is_error=True
            )
        recorded = tool.results.get(canonical(params.arguments or {})) or next(iter(tool.results.values()))
        return types.CallToolResult.model_validate(recorded)

    server = Server(name, on_list_tools=list_tools, on_call_tool=call_tool)
    if middleware is not None:
        server.middleware.append(middleware)
    if validation is not None:
        validation.install(server)
    return server


@contextlib.contextmanager
def serve(server: Any) -> Iterator[str]:
    """Serve ``server`` over streamable HTTP on 127.0.0.1 (a free port) in a thread; yields its URL."""
    with serve_app(server.streamable_http_app(host="127.0.0.1")) as url:
        yield url


@contextlib.contextmanager
def serve_app(app: Any, path: str = "/mcp") -> Iterator[str]:
    """Serve an ASGI app on 127.0.0.1 (a free port) in a thread; yields the URL of ``path``."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    http = uvicorn.Server(config)
    thread = threading.Thread(target=http.run, kwargs={"sockets": [sock]}, name="mcp-replay-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not http.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the local MCP server did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}{path}"
    finally:
        http.should_exit = True
        thread.join(timeout=10)
        sock.close()


# ---------------------------------------------------------------------------------------------
# Timing the validating calls


class ValidationClock:
    """Adds up the time spent inside the functions it wraps (both sides share this process)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.count = 0
        self._undo: list[Callable[[], None]] = []

    def wrap_sync(self, owner: Any, attribute: str) -> None:
        original = getattr(owner, attribute)

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start
                self.count += 1

        setattr(owner, attribute, timed)
        self._undo.append(lambda: setattr(owner, attribute, original))

    def wrap_async(self, owner: Any, attribute: str) -> None:
        original = getattr(owner, attribute)

        async def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return await original(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start
                self.count += 1

        setattr(owner, attribute, timed)
        self._undo.append(lambda: setattr(owner, attribute, original))

    def restore(self) -> None:
        while self._undo:
            self._undo.pop()()


# ---------------------------------------------------------------------------------------------
# The load


@dataclass
class Outcome:
    mode: str
    calls: int
    errors: int
    seconds: float
    latencies: list[float]
    validating_seconds: float
    validations: int

    @classmethod
    def merge(cls, outcomes: list[Outcome]) -> Outcome:
        """Rounds of one mode together: throughput and validating share from the median round,
        latency percentiles over every call."""
        middle = sorted(outcomes, key=lambda o: o.calls / o.seconds if o.seconds else 0.0)[len(outcomes) // 2]
        latencies = [x for o in outcomes for x in o.latencies]
        return cls(
            middle.mode,
            middle.calls,
            sum(o.errors for o in outcomes),
            middle.seconds,
            latencies,
            middle.validating_seconds,
            middle.validations,
        )

    def row(self) -> dict[str, Any]:
        lat = sorted(self.latencies) or [0.0]

        def pct(p: float) -> float:
            return lat[min(len(lat) - 1, int(round(p / 100 * (len(lat) - 1))))] * 1000

        return {
            "mode": self.mode,
            "calls": self.calls,
            "errors": self.errors,
            "calls_per_second": self.calls / self.seconds if self.seconds else 0.0,
            "p50_ms": pct(50),
            "p90_ms": pct(90),
            "p99_ms": pct(99),
            "mean_ms": statistics.fmean(lat) * 1000,
            "validating_share": self.validating_seconds / self.seconds if self.seconds else 0.0,
            "validations": self.validations,
            "validation_us_each": (self.validating_seconds / self.validations * 1e6) if self.validations else 0.0,
            "validation_us_per_call": (self.validating_seconds / self.calls * 1e6) if self.calls else 0.0,
        }


async def drive(
    url: str,
    mode: str,
    work: list[tuple[str, dict[str, Any]]],
    *,
    calls: int,
    concurrency: int,
    clients: int,
    seconds: float,
    engine: Any = None,
) -> tuple[int, int, list[float], float]:
    """Issue up to ``calls`` tool calls, ``concurrency`` at a time over ``clients`` sessions."""
    from mcp import Client

    latencies: list[float] = []
    errors = 0
    issued = 0
    deadline = time.monotonic() + seconds
    async with contextlib.AsyncExitStack() as stack:
        sessions = []
        for _ in range(clients):
            if mode != "sdk":
                from engine.adapters.mcp_sdk import EngineClient

                client: Any = EngineClient(url, engine=engine)
            else:
                client = Client(url)
            sessions.append(await stack.enter_async_context(client))
        for client in sessions:
            await client.list_tools()
        start = time.perf_counter()

        async def worker(index: int) -> None:
            nonlocal issued, errors
            client = sessions[index % len(sessions)]
            while issued < calls and time.monotonic() < deadline:
                name, arguments = work[issued % len(work)]
                issued += 1
                t0 = time.perf_counter()
                try:
                    result = await client.call_tool(name, arguments)
                    if result.is_error:
                        errors += 1
                except Exception:  # noqa: BLE001 - counted, the load goes on
                    errors += 1
                latencies.append(time.perf_counter() - t0)

        await asyncio.gather(*(worker(i) for i in range(concurrency)))
        elapsed = time.perf_counter() - start
    return len(latencies), errors, latencies, elapsed


def workload(tools: list[ReplayTool]) -> list[tuple[str, dict[str, Any]]]:
    """The recorded calls whose arguments conform to the advertised inputSchema (python-jsonschema
    decides, independently of the engine), so both modes do the same work."""
    import jsonschema

    work = []
    for tool in tools:
        schema = tool.definition["inputSchema"]
        checker = jsonschema.validators.validator_for(schema)(schema)
        work.extend((tool.name, arguments) for arguments in tool.calls if checker.is_valid(arguments))
    return work


def run_mode(mode: str, tools: list[ReplayTool], args: argparse.Namespace) -> Outcome:
    from mcp.client.session import ClientSession

    work = workload(tools)
    eng = validation = None
    clock = ValidationClock()
    if mode != "sdk":
        import engine
        from engine.adapters import _catalog
        from engine.adapters.mcp_sdk import ToolValidation

        eng = engine.Engine()
        if mode == "engine":
            validation = ToolValidation(engine=eng)
        clock.wrap_sync(_catalog.ToolCatalog, "validate_arguments")
        clock.wrap_sync(_catalog.ToolCatalog, "validate_structured")
    else:
        clock.wrap_async(ClientSession, "validate_tool_result")
    try:
        with serve(build_server(tools, validation=validation)) as url:
            # Warm up: connect, list, and call each tool once, outside the measurement.
            asyncio.run(drive(url, mode, work, calls=len(work), concurrency=4, clients=1, seconds=30, engine=eng))
            clock.seconds, clock.count = 0.0, 0
            done, errors, latencies, elapsed = asyncio.run(
                drive(
                    url,
                    mode,
                    work,
                    calls=args.calls,
                    concurrency=args.concurrency,
                    clients=args.clients,
                    seconds=args.seconds,
                    engine=eng,
                )
            )
    finally:
        clock.restore()
    return Outcome(mode, done, errors, elapsed, latencies, clock.seconds, clock.count)


def hook_overhead(tools: list[ReplayTool], *, repeat: int = 5) -> list[dict[str, Any]]:
    """What observability costs on the server adapter's argument check, off and on: the same
    recorded calls through ``ToolSet.validate_arguments`` alone, and through the adapter with no
    hook, an in-memory ``Recorder``, and the Prometheus exporter (when installed). Best of
    ``repeat`` passes, nanoseconds per call, side by side in one process."""
    from mcp.server.context import ServerRequestContext

    import engine
    import engine.metrics
    from engine.adapters.mcp_sdk import ToolValidation

    work = workload(tools) * 100  # every recorded call with valid arguments, many times over
    eng = engine.Engine()
    validation = ToolValidation([t.definition for t in tools], engine=eng, refresh_interval=1e9)
    asyncio.run(validation.warm_up())
    catalog = validation.catalog
    ctx: Any = ServerRequestContext(
        session=None,  # type: ignore[arg-type]
        lifespan_context={},
        protocol_version="2026-07-28",
        method="tools/call",
    )

    def core() -> None:
        for name, arguments in work:
            catalog.validate_arguments(name, arguments)

    async def adapter() -> None:
        before = validation._before
        for name, arguments in work:
            await before(ctx, name, arguments)

    def timed(fn: Callable[[], Any]) -> float:
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - start)
        return best / len(work) * 1e9

    loop = asyncio.new_event_loop()
    try:
        setups: list[tuple[str, Any]] = [("no hook (the default)", None), ("Recorder", engine.metrics.Recorder())]
        try:
            import prometheus_client

            from engine.metrics.prometheus import PrometheusExporter

            setups.append(
                (
                    "Prometheus exporter",
                    PrometheusExporter(prometheus_client.CollectorRegistry(), "bench", tool_label=True),
                )
            )
        except ImportError:
            pass
        rows = []
        for _ in range(2):  # interleaved: a burst of load from elsewhere falls on every row
            rows.append(("ToolSet.validate_arguments (core, no adapter)", timed(core)))
            for label, hook in setups:
                if hook is not None:
                    engine.metrics.add_hook(hook)
                try:
                    rows.append((f"adapter check, {label}", timed(lambda: loop.run_until_complete(adapter()))))
                finally:
                    if hook is not None:
                        engine.metrics.remove_hook(hook)
    finally:
        loop.close()
    best: dict[str, float] = {}
    for label, ns in rows:
        best[label] = min(ns, best.get(label, ns))
    base = best["ToolSet.validate_arguments (core, no adapter)"]
    return [{"path": label, "ns_per_call": ns, "vs_core": ns / base, "calls": len(work)} for label, ns in best.items()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.load", description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2000, help="tool calls per mode (default 2000)")
    parser.add_argument("--concurrency", type=int, default=32, help="calls in flight at once (default 32)")
    parser.add_argument("--clients", type=int, default=4, help="client sessions sharing the load (default 4)")
    parser.add_argument("--seconds", type=float, default=60.0, help="time bound per mode (default 60)")
    parser.add_argument(
        "--modes", default=",".join(MODES), help=f"comma-separated, from: {', '.join(MODES)} (default all)"
    )
    parser.add_argument("--rounds", type=int, default=3, help="rounds, modes alternating within each (default 3)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument(
        "--hook-overhead",
        action="store_true",
        help="only measure what metrics hooks cost on the adapter's check (no server)",
    )
    args = parser.parse_args(argv)
    if min(args.calls, args.concurrency, args.clients, args.rounds) < 1 or args.seconds <= 0:
        parser.error("--calls, --concurrency, --clients, --rounds and --seconds must be positive")
    try:
        import mcp  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        print(f"the load benchmark needs the MCP SDK: pip install 'engine[mcp]' ({exc})", file=sys.stderr)
        return 2
    tools = load_replay_tools()
    if args.hook_overhead:
        overhead = hook_overhead(tools)
        if args.json:
            print(json.dumps(overhead, indent=2))
            return 0
        print(
            f"\nMetrics hooks on the server adapter's argument check ({overhead[0]['calls']} recorded calls, "
            "best of 5 passes, one process)\n"
        )
        print("| path | ns per call | × core |")
        print("|---|---:|---:|")
        for row in overhead:
            print(f"| {row['path']} | {row['ns_per_call']:.0f} | {row['vs_core']:.2f} |")
        return 0
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    for mode in modes:
        if mode not in MODES:
            parser.error(f"unknown mode {mode!r}")
    # Modes alternate within each round, so a burst of load from elsewhere on the machine falls on
    # both rather than on one.
    outcomes: dict[str, list[Outcome]] = {mode: [] for mode in modes}
    for round_ in range(args.rounds):
        for mode in modes:
            print(
                f"round {round_ + 1}/{args.rounds}, {mode}: {args.calls} calls, {args.concurrency} in flight, "
                f"{len(tools)} real tools...",
                file=sys.stderr,
                flush=True,
            )
            outcomes[mode].append(run_mode(mode, tools, args))
    rows = [Outcome.merge(outcomes[mode]).row() for mode in modes]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(
        f"\nLoad (median of {args.rounds} rounds; latency over all calls): {len(tools)} real tools replayed "
        "over streamable HTTP on 127.0.0.1, "
        f"{args.concurrency} calls in flight over {args.clients} sessions (client and server in one process)\n"
    )
    header = (
        "mode",
        "calls",
        "errors",
        "calls/s",
        "p50 ms",
        "p90 ms",
        "p99 ms",
        "validating",
        "checks/call",
        "µs validating/call",
    )
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for r in rows:
        print(
            f"| {r['mode']} | {r['calls']} | {r['errors']} | {r['calls_per_second']:.0f} | {r['p50_ms']:.2f} | "
            f"{r['p90_ms']:.2f} | {r['p99_ms']:.2f} | {r['validating_share'] * 100:.2f}% | "
            f"{r['validations'] / r['calls'] if r['calls'] else 0:.1f} | "
            f"{r['validation_us_per_call']:.1f} |"
        )
    print("\nvalidating: share of wall time inside validation; checks/call: validations per call, where")
    for mode in modes:
        print(f"  {mode}: {MODES[mode]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``python -m benchmarks``: run the workloads, print the table, write JSON, Markdown and HTML."""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from .contenders import RAW, all_contenders, engine_backends
from .corpus import BENCH_DATA, load_corpus
from .pathological import pathological_workload
from .report import TERMINAL_WIDTH, headline, render_html, render_markdown, rich_header, rich_tables
from .results import Report
from .startup import import_times
from .timing import Budget
from .workloads import WORKLOADS, Context

__all__ = ["main"]

ALL_WORKLOADS = [*WORKLOADS, "pathological"]


def _csv(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="The engine next to msgspec's decode floor, raw jsonschema-rs, raw fastjsonschema and a "
        "cached python-jsonschema validator, on the data in bench_data/ (or --data). Figures are ratios to the floor.",
    )
    parser.add_argument(
        "--data",
        type=Path,
        default=BENCH_DATA,
        metavar="DIR",
        help="a folder laid out as bench_data/: tools/*.json (each a list of tool definitions) and, when present, "
        "structured/tool-results.json, elicitation/requested-schemas.json and pathological/ (default: bench_data/)",
    )
    parser.add_argument("--quick", action="store_true", help="a smoke run on a small subset (under a minute)")
    parser.add_argument(
        "--workloads",
        type=_csv,
        default=None,
        metavar="LIST",
        help=f"comma-separated, from: {', '.join(ALL_WORKLOADS)} (default: all)",
    )
    parser.add_argument(
        "--backends",
        type=_csv,
        default=None,
        metavar="LIST",
        help=f"engine backends to run (installed: {', '.join(engine_backends())}; default: all)",
    )
    parser.add_argument(
        "--baselines",
        type=_csv,
        default=None,
        metavar="LIST",
        help=f"raw libraries to run next to the engine ({', '.join(RAW)}; 'none' for none; default: all)",
    )
    parser.add_argument(
        "--no-import-time",
        dest="import_time",
        action="store_false",
        help="do not time `import engine` against `import jsonschema_rs, msgspec, cachetools`",
    )
    parser.add_argument("--out", type=Path, default=Path("results"), help="folder for bench.json, bench.md, bench.html")
    parser.add_argument("--json", action="store_true", help="print the JSON report on stdout instead of the table")
    parser.add_argument("--rounds", type=int, default=None, help="interleaved rounds per measurement (median kept)")
    parser.add_argument("--timeout", type=float, default=None, help="seconds a pathological case may run")
    parser.add_argument("--max-items", type=int, default=None, help="cap on items per row")
    parser.add_argument("--cases", type=_csv, default=None, metavar="LIST", help="pathological case ids to run")
    parser.add_argument(
        "--readme",
        type=Path,
        default=None,
        metavar="FILE",
        help="also put the tables, command and machine between the bench:table markers of FILE",
    )
    args = parser.parse_args(argv)
    for name in args.workloads or ():
        if name not in ALL_WORKLOADS:
            parser.error(f"unknown workload {name!r}; choose from {', '.join(ALL_WORKLOADS)}")
    installed = engine_backends()
    for name in args.backends or ():
        if name not in installed:
            parser.error(f"engine backend {name!r} is not available; installed: {', '.join(installed)}")
    if args.baselines == ["none"]:
        args.baselines = []
    for name in args.baselines or ():
        if name not in RAW:
            parser.error(f"unknown baseline {name!r}; choose from {', '.join(RAW)}")
    return args


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for package in ("engine", "msgspec", "jsonschema-rs", "fastjsonschema", "jsonschema"):
        try:
            out[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            out[package] = "not installed"
    return out


def _git_commit() -> str | None:
    try:
        proc = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            cwd=Path(__file__).resolve().parent,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.strip() or None


def _cpu() -> str | None:
    """The processor's model name, where the system says it (Linux)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        return None
    return None


def _machine() -> str:
    load = ""
    if hasattr(os, "getloadavg"):
        load = f", load {os.getloadavg()[0]:.1f} (1-minute average at the start)"
    python = f"{platform.python_implementation()} {platform.python_version()}"
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs{load}, {python}"


def run(args: argparse.Namespace) -> Report:
    from rich.console import Console
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    quick = args.quick
    names = args.workloads or ALL_WORKLOADS
    contenders = all_contenders(args.backends, args.baselines)
    budget = Budget(
        rounds=args.rounds or (3 if quick else 9),
        round_seconds=0.01 if quick else 0.015,
        contender_seconds=1.0 if quick else 3.0,
    )
    started = time.time()
    meta: dict[str, Any] = {
        "command": "python -m benchmarks " + " ".join(sys.argv[1:] if args.argv is None else args.argv),
        "machine": _machine(),
        "cpu": _cpu(),
        "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(started)),
        "quick": quick,
        "versions": _versions(),
        "commit": _git_commit(),
        "data": str(args.data),
        "floor": "msgspec.json.decode on the same bytes",
        "timing": f"timeit.Timer, calibrated loops, {budget.rounds} interleaved rounds, median",
    }
    report = Report(meta=meta, contenders=[c.name for c in contenders])
    console = Console(stderr=True)
    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=args.json and not console.is_terminal,
    ) as progress:
        task = progress.add_task(f"loading {args.data.name}", total=len(names))
        corpus = load_corpus(args.data)
        ctx = Context(
            corpus=corpus,
            data=args.data,
            contenders=contenders,
            budget=budget,
            quick=quick,
            progress=lambda text: progress.update(task, description=text),
            timeout=args.timeout or (1.0 if quick else 2.0),
            max_items=args.max_items or (30 if quick else None),
            compile_rounds=3,
            scale_seconds=2.0 if quick else 8.0,
            cases=args.cases,
        )
        for name in names:
            progress.update(task, description=name)
            began = time.perf_counter()
            workload = pathological_workload(ctx) if name == "pathological" else WORKLOADS[name](ctx)
            workload.seconds = round(time.perf_counter() - began, 2)
            report.workloads.append(workload)
            progress.advance(task)
        if args.import_time:
            progress.update(task, description="import time")
            # A fresh interpreter per import; CPU time keeps 5 runs (quick) or 11 steady on a busy machine.
            meta["import_time"] = import_times(runs=5 if quick else 11)
    report.headline = headline(report)
    meta["duration_s"] = round(time.time() - started, 1)
    return report


def write(report: Report, out: Path) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / "bench.json", "markdown": out / "bench.md", "html": out / "bench.html"}
    paths["json"].write_bytes(report.to_json())
    paths["markdown"].write_text(render_markdown(report), encoding="utf-8")
    paths["html"].write_text(render_html(report), encoding="utf-8")
    return paths


README_START, README_END = "<!-- bench:table -->", "<!-- /bench:table -->"


def update_readme(path: Path, report: Report) -> None:
    """Replace what lies between the markers in ``path`` with this run's tables."""
    text = path.read_text(encoding="utf-8")
    start, end = text.find(README_START), text.find(README_END)
    if start < 0 or end < start:
        raise SystemExit(f"{path}: no {README_START} ... {README_END} markers to fill")
    meta = report.meta
    block = (
        f"{README_START}\n"
        f"`{meta['command']}` — {meta['machine']} (shared with other work: expect noise), "
        f"{meta['started']}, {meta['duration_s']:.0f} s.\n\n{render_markdown(report, header=False)}\n"
    )
    path.write_text(text[:start] + block + text[end:], encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    args.argv = list(argv) if argv is not None else None
    report = run(args)
    paths = write(report, args.out)
    if args.readme is not None:
        update_readme(args.readme, report)
    if args.json:
        sys.stdout.buffer.write(report.to_json() + b"\n")
        return 0
    from rich.console import Console

    console = Console()
    if not console.is_terminal:  # a log file or a pipe: the width every table is made to fit
        console = Console(width=TERMINAL_WIDTH)
    width = min(console.width, TERMINAL_WIDTH)
    console.print("[bold]engine benchmarks[/]")
    for part in rich_header(report):
        console.print(part)
    console.print()
    console.print(
        "[bold]Every workload[/]: ratios to the floor (msgspec.json.decode alone on the same bytes); lower is better."
    )
    for table in rich_tables(report, width=width):
        console.print(table)
    console.print("Written: " + ", ".join(str(p) for p in paths.values()))
    return 0

"""``engine check``: how each tool's schemas compile, or why they are refused."""

from __future__ import annotations

import argparse
import io
import json
from collections.abc import Callable, Mapping
from typing import Any, TextIO, cast

import msgspec

from .._compiled import CompiledSchema
from .._config import EngineConfig
from .._engine import Engine
from .._errors import EngineError, SchemaRejected
from .._mcp import compile_tools
from .._mcp.mapping import older_versions_cannot_list
from .._mcp.tool_list import duplicate_name
from .input import EXIT_OK, EXIT_REFUSED, Target, read_json, shown, targets, tool_refusal

__all__ = ["check_schema", "guard_facts", "guard_measurements", "print_json", "run_check"]


def _why_backend(cs: CompiledSchema, config: EngineConfig) -> str:
    if config.backend != "auto":
        return "configured backend"
    if not cs.notes:
        return "the first exact backend in the auto order"
    refused = "; ".join(f"{name} refused: {why}" for name, why in cs.notes.items())
    return f"auto order ({refused})"


def guard_measurements(cs: CompiledSchema, config: EngineConfig) -> dict[str, dict[str, Any]]:
    """Each limit the guard measured on this schema: the value, the configured bound, and where
    the largest value was seen."""
    report = getattr(cs, "guard", None)
    if report is None:
        return {}
    locations: Mapping[str, str] = getattr(report, "locations", None) or {}
    out: dict[str, dict[str, Any]] = {}
    for name, value in dict(getattr(report, "measured", None) or {}).items():
        out[name] = {"measured": value, "bound": getattr(config.limits, name, None), "location": locations.get(name)}
    return out


def guard_facts(cs: CompiledSchema) -> dict[str, Any]:
    """The guard's other findings (recursion, fan-out, pattern star height...)."""
    report = getattr(cs, "guard", None)
    if report is None:
        return {}
    facts: dict[str, Any] = msgspec.to_builtins(report)
    for key in ("measured", "locations"):
        facts.pop(key, None)
    return facts


def check_schema(eng: Engine, key: str, schema: Any) -> dict[str, Any]:
    """The report for one schema: how it compiles, or why it is refused."""
    if schema is None:
        return {
            "status": "refused",
            "refusal": {
                "reason": "invalid-schema",
                "message": 'the tool has no inputSchema (MCP requires one; use {"type": "object"} for no parameters)',
                "location": "",
                "details": {},
            },
        }
    try:
        cs = eng.compile(schema)
    except SchemaRejected as exc:
        return {"status": "refused", "refusal": exc.to_dict()}
    return {
        "status": "ok",
        "dialect": cs.dialect.value,
        "backend": cs.backend,
        "why": _why_backend(cs, eng.config),
        "refused_by": dict(cs.notes),
        "guard": guard_measurements(cs, eng.config),
        "facts": guard_facts(cs),
    }


def _mcp_refusal(eng: Engine, target: Target) -> SchemaRejected | None:
    """The refusal that comes from MCP's rules on a tool's schemas (an ``inputSchema`` must be an
    object schema, ``true``/``{}`` as the configuration allows) rather than from JSON Schema
    itself: the engine's tool set decides, on this tool alone (its name may be listed again; a
    tool refused for its name is named as the report names it, so that its schemas are judged too)."""
    if target.tool is None or target.schemas.get("inputSchema") is None:
        return None
    definition = target.tool if target.refusal is None else {**target.tool, "name": target.name}
    try:
        toolset = compile_tools([definition], engine=eng)
    except EngineError:  # pragma: no cover - a list of one object with a string name is a tool list
        return None
    return next(iter(toolset.rejected.values()), None)


def _duplicate_names(found: list[Target]) -> dict[int, dict[str, Any]]:
    """A tool-level refusal for each entry whose name another entry also has, by its position in
    ``found``: MCP requires unique names, and a client cannot tell which is meant, so none is used
    (as ``compile_tools`` decides)."""
    places: dict[str, list[int]] = {}
    for position, target in enumerate(found):
        if target.tool is not None and target.refusal is None and target.index is not None:
            places.setdefault(target.name, []).append(position)
    refusals: dict[int, dict[str, Any]] = {}
    for name, positions in places.items():
        if len(positions) < 2:
            continue
        indexes = [cast(int, found[p].index) for p in positions]
        # One message and one details for all the entries (each entry's report holds them): the
        # first places named, and at most 100 indexes, however often a name repeats.
        message = duplicate_name(name, indexes, "").message
        details: dict[str, Any] = {"tool": name, "indexes": indexes[:100]}
        if len(indexes) > 100:
            details["count"] = len(indexes)
        for p in positions:
            refusals[p] = tool_refusal(message, f"{found[p].pointer}/name", details)
    return refusals


def _schema_refusal(refusal: SchemaRejected, key: str) -> dict[str, Any]:
    """A slot of a tool's report refused by MCP's rules; its location points into that schema,
    as JSON Schema refusals' do (the tool set's points into the tool)."""
    report = refusal.to_dict()
    report["location"] = (report["location"] or "").removeprefix(f"/{key}")
    return {"status": "refused", "refusal": report}


def run_check(args: argparse.Namespace, eng: Engine, out: TextIO, err: TextIO) -> int:
    kind, found = targets(read_json(args.file, "file"))
    progress = Progress(err, len(found), enabled=not args.quiet and not args.json)
    duplicates = _duplicate_names(found)
    reports = []
    for position, target in enumerate(found):
        progress.step(shown(target.name))
        schemas = {key: check_schema(eng, key, schema) for key, schema in target.schemas.items()}
        mcp = _mcp_refusal(eng, target)
        if mcp is not None:
            key = mcp.details.get("schema", "inputSchema")
            if key in schemas and schemas[key]["status"] == "ok":  # else a JSON Schema refusal says why
                schemas[key] = _schema_refusal(mcp, key)
        report: dict[str, Any] = {"name": target.name, "index": target.index, "schemas": schemas}
        refusal = target.refusal or duplicates.get(position)
        if refusal is not None:
            report["refusal"] = refusal
        # Clients before protocol 2026-07-28 cannot be sent this tool (an outputSchema that is not an object).
        if target.tool is not None and (older := older_versions_cannot_list(target.tool)) is not None:
            report["older_protocol_versions"] = older
        reports.append(report)
    progress.done()
    for report in reports:
        refused_here = "refusal" in report or any(s["status"] == "refused" for s in report["schemas"].values())
        report["status"] = "refused" if refused_here else "ok"
        if refused_here:  # refused on every protocol version: no older listing to warn of
            report.pop("older_protocol_versions", None)
    refused = [r for r in reports if r["status"] == "refused"]
    summary = {
        "file": args.file,
        "document": kind,
        "tools": len(reports),
        "refused": len(refused),
        "reasons": _count_reasons(reports),
        "unlistable_before_2026_07_28": [r["name"] for r in reports if "older_protocol_versions" in r],
        "config": {
            "backend": eng.config.backend,
            "default_dialect": eng.config.default_dialect,
            "formats": eng.config.formats,
            "regex": eng.config.regex,
        },
        "limits": msgspec.to_builtins(eng.config.limits),
    }
    if args.json:
        # --refused and --summary keep the refused tools only (the summary counts every one).
        print_json(out, {"summary": summary, "tools": reports if args.view == "all" else refused})
    else:
        _print_check(reports, summary, out, verbose=args.verbose, view=args.view)
    return EXIT_REFUSED if refused else EXIT_OK


def _count_reasons(reports: list[dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for report in reports:
        if "refusal" in report:
            counts[report["refusal"]["reason"]] = counts.get(report["refusal"]["reason"], 0) + 1
        for slot in report["schemas"].values():
            if slot["status"] == "refused":
                reason = slot["refusal"]["reason"]
                counts[reason] = counts.get(reason, 0) + 1
    return dict(sorted(counts.items()))


def _print_check(
    reports: list[dict[str, Any]], summary: dict[str, Any], terminal: TextIO, *, verbose: bool, view: str
) -> None:
    out = io.StringIO()  # written whole at the end, as a terminal may be given it (see `shown`)
    _write_check(reports, summary, out, verbose=verbose, view=view)
    terminal.write(shown(out.getvalue()))


def _write_check(
    reports: list[dict[str, Any]], summary: dict[str, Any], out: TextIO, *, verbose: bool, view: str
) -> None:
    out.write(
        f"{summary['file']}: {summary['document']}, {summary['tools']} {'tool' if summary['tools'] == 1 else 'tools'}\n"
    )
    label = _labels(reports)
    if view == "summary":
        refused = [r for r in reports if r["status"] == "refused"]
        if refused:
            out.write("\n")
        for report in refused:  # one line per entry, as the count counts them
            out.write(f"REFUSED {label(report)}: {_first_refusal(report)}\n")
    for report in reports if view != "summary" else ():
        if view == "refused" and report["status"] == "ok":
            continue
        mark = "ok     " if report["status"] == "ok" else "REFUSED"
        out.write(f"\n{mark} {label(report)}\n")
        if "refusal" in report:
            r = report["refusal"]
            out.write(f"  tool: refused ({r['reason']}) at {r['location']!r}: {r['message']}\n")
        if "older_protocol_versions" in report:
            out.write(f"  not listed to clients before 2026-07-28: {report['older_protocol_versions']}\n")
        for key, slot in report["schemas"].items():
            if slot["status"] == "refused":
                r = slot["refusal"]
                where = f" at {r['location']!r}" if r.get("location") not in (None, "") else ""
                out.write(f"  {key}: refused ({r['reason']}){where}: {r['message']}\n")
                continue
            out.write(f"  {key}: dialect {slot['dialect']}, backend {slot['backend']} ({slot['why']})\n")
            guard = slot["guard"]
            if guard:
                parts = [
                    f"{name.removeprefix('max_')} {m['measured']}" + ("" if m["bound"] is None else f"/{m['bound']}")
                    for name, m in guard.items()
                ]
                out.write("    guard (measured/limit): " + ", ".join(parts) + "\n")
                if verbose and slot["facts"]:
                    facts = (f"{k} {v}" for k, v in slot["facts"].items() if v not in ((), []))
                    out.write("    facts: " + ", ".join(facts) + "\n")
            elif verbose:
                out.write("    guard: no measurements in this build\n")
    out.write("\n")
    if not summary["tools"]:
        out.write("No tools listed: nothing to check.\n")
    elif summary["refused"]:
        reasons = ", ".join(f"{n} {reason}" for reason, n in summary["reasons"].items())
        out.write(f"{summary['refused']} of {summary['tools']} refused ({reasons}).\n")
    else:
        out.write(f"All {summary['tools']} accepted.\n")
    if summary["unlistable_before_2026_07_28"]:
        names = summary["unlistable_before_2026_07_28"]
        out.write(f"{len(names)} cannot be listed to clients before protocol 2026-07-28: {', '.join(names)}.\n")


def _labels(reports: list[dict[str, Any]]) -> Callable[[dict[str, Any]], str]:
    """How the text names each entry: its name, and its place where another entry has that name."""
    counts: dict[str, int] = {}
    for report in reports:
        counts[report["name"]] = counts.get(report["name"], 0) + 1

    def label(report: dict[str, Any]) -> str:
        name: str = report["name"]
        # Written as `shown` writes a control, a line break too: a name may not start a line of the
        # report of its own (a server could otherwise write `engine check: all tools ok`).
        one_line = name.replace("\n", "\\u000a")
        return (
            f"{one_line} (tools[{report['index']}])" if counts[name] > 1 and report["index"] is not None else one_line
        )

    return label


def _first_refusal(report: dict[str, Any]) -> str:
    """The first reason a tool is refused, in one line: ``inputSchema (remote-ref): ...``."""
    if "refusal" in report:
        r = report["refusal"]
        return f"tool ({r['reason']}): {r['message']}"
    for key, slot in report["schemas"].items():
        if slot["status"] == "refused":
            r = slot["refusal"]
            return f"{key} ({r['reason']}): {r['message']}"
    return ""


class Progress:
    """A one-line counter on standard error while long work runs, only on a terminal."""

    def __init__(self, stream: TextIO, total: int, *, enabled: bool) -> None:
        self.stream = stream
        self.total = total
        self.count = 0
        self.enabled = enabled and total > 20 and stream.isatty()

    def step(self, label: str) -> None:
        self.count += 1
        if self.enabled:
            self.stream.write(f"\r\033[Kchecking {self.count}/{self.total}: {label[:60]}")
            self.stream.flush()

    def done(self) -> None:
        if self.enabled:
            self.stream.write("\r\033[K")
            self.stream.flush()


def print_json(out: TextIO, document: Any) -> None:
    try:
        text = msgspec.json.encode(document).decode()
    except UnicodeEncodeError:
        # A lone surrogate, as a file name that is not UTF-8 arrives (os.fsdecode): written as its
        # `\udcff` escape, which JSON spells and Python reads back (`os.fsencode` gives the bytes).
        text = json.dumps(msgspec.to_builtins(document), ensure_ascii=True, separators=(",", ":"))
    out.write(text + "\n")

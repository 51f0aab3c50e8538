"""The operator's command line: ``engine check``, ``engine validate``, ``engine bench``.

Plain argparse and plain text, so the core stays lean; ``--json`` gives the same facts to machines.
Exit status: 0 when everything was accepted, 1 when anything was refused or invalid, 2 when the
command itself could not run (unreadable file, bad option, not JSON).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

import msgspec

from .compiled import CompiledSchema
from .config import EngineConfig
from .decode import decode_json
from .engine import Engine
from .errors import EngineError, SchemaRejected, ValidationFailed

__all__ = ["main"]

EXIT_OK = 0
EXIT_REFUSED = 1
EXIT_USAGE = 2

# A tools/list result from a large server is a few MB; this bounds what `check` will read.
MAX_INPUT_BYTES = 256 * 1024 * 1024

SCHEMA_KEYS = ("inputSchema", "outputSchema")


class UsageError(Exception):
    """The command cannot run: the message is printed as is, the exit status is 2."""


# --------------------------------------------------------------------------------------------
# Reading input


def read_json(path: str, what: str) -> Any:
    """The JSON document in ``path`` (``-`` is standard input), or a :class:`UsageError`."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
        else:
            with open(path, "rb") as fh:
                data = fh.read(MAX_INPUT_BYTES + 1)
    except OSError as exc:
        raise UsageError(f"cannot read the {what} {path!r}: {exc.strerror or exc}") from None
    try:
        return decode_json(data, max_bytes=MAX_INPUT_BYTES)
    except EngineError as exc:
        where = "standard input" if path == "-" else repr(path)
        raise UsageError(f"the {what} in {where} is not usable JSON: {exc.message}") from None


class Target(msgspec.Struct, frozen=True):
    """One thing `check` looks at: a tool (with its schemas) or a lone schema."""

    name: str
    schemas: dict[str, Any]
    tool: dict[str, Any] | None = None


def targets(document: Any) -> tuple[str, list[Target]]:
    """What kind of document this is, and the tools or schema in it.

    Accepts a whole JSON-RPC response to ``tools/list``, its ``result`` object, a list of tools,
    a single tool, or a single schema.
    """
    if isinstance(document, Mapping) and "jsonrpc" in document and "result" in document:
        kind, found = targets(document["result"])
        return f"JSON-RPC response ({kind})", found
    if isinstance(document, Mapping) and isinstance(document.get("tools"), list):
        return "tools/list result", _tools(document["tools"])
    if isinstance(document, list):
        return "list of tools", _tools(document)
    if isinstance(document, Mapping) and "inputSchema" in document:
        return "one tool", _tools([document])
    if isinstance(document, (Mapping, bool)):
        return "one schema", [Target(name="<schema>", schemas={"schema": document})]
    raise UsageError(
        "expected a tools/list result, a list of tools, one tool or one schema, "
        f"but the document is {type(document).__name__}"
    )


def _tools(items: Sequence[Any]) -> list[Target]:
    found = []
    for index, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise UsageError(f"tool #{index} is {type(item).__name__}, not an object")
        name = item.get("name")
        label = name if isinstance(name, str) and name else f"#{index}"
        schemas = {key: item[key] for key in SCHEMA_KEYS if key in item and item[key] is not None}
        if "inputSchema" not in item:
            schemas["inputSchema"] = None  # reported as missing
        found.append(Target(name=label, schemas=schemas, tool=dict(item)))
    return found


# --------------------------------------------------------------------------------------------
# check


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
    facts = msgspec.to_builtins(report)
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


def _mcp_refusals(eng: Engine, found: list[Target]) -> dict[str, SchemaRejected]:
    """Refusals that come from MCP's rules on tools (an ``inputSchema`` must be an object schema,
    names must be unique) rather than from JSON Schema itself: the engine's tool set decides."""
    tools = [t.tool for t in found if t.tool is not None and t.schemas.get("inputSchema") is not None]
    if not tools:
        return {}
    try:
        toolset = eng.compile_tools(tools)
    except EngineError:
        return {}
    return dict(toolset.rejected)


def run_check(args: argparse.Namespace, eng: Engine, out: TextIO, err: TextIO) -> int:
    kind, found = targets(read_json(args.file, "file"))
    progress = Progress(err, len(found), enabled=not args.quiet and not args.json)
    reports = []
    for target in found:
        progress.step(target.name)
        schemas = {key: check_schema(eng, key, schema) for key, schema in target.schemas.items()}
        reports.append({"name": target.name, "schemas": schemas})
    progress.done()
    extra = _mcp_refusals(eng, found)
    for report in reports:
        rejected = extra.get(report["name"])
        if rejected is None:
            continue
        # Attach the MCP-level refusal where no JSON Schema refusal already explains it.
        if all(s["status"] == "ok" for s in report["schemas"].values()):
            where = rejected.details.get("schema", "inputSchema") if rejected.details else "inputSchema"
            slot = report["schemas"].get(where) or report["schemas"].get("inputSchema")
            if slot is not None:
                slot["status"] = "refused"
                slot["refusal"] = rejected.to_dict()
    for report in reports:
        report["status"] = "refused" if any(s["status"] == "refused" for s in report["schemas"].values()) else "ok"
    refused = [r for r in reports if r["status"] == "refused"]
    summary = {
        "file": args.file,
        "document": kind,
        "tools": len(reports),
        "refused": len(refused),
        "reasons": _count_reasons(reports),
        "config": {"backend": eng.config.backend, "default_dialect": eng.config.default_dialect,
                   "formats": eng.config.formats, "regex": eng.config.regex},
        "limits": msgspec.to_builtins(eng.config.limits),
    }
    if args.json:
        _print_json(out, {"summary": summary, "tools": reports})
    else:
        _print_check(reports, summary, out, verbose=args.verbose)
    return EXIT_REFUSED if refused else EXIT_OK


def _count_reasons(reports: list[dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for report in reports:
        for slot in report["schemas"].values():
            if slot["status"] == "refused":
                reason = slot["refusal"]["reason"]
                counts[reason] = counts.get(reason, 0) + 1
    return dict(sorted(counts.items()))


def _print_check(reports: list[dict[str, Any]], summary: dict[str, Any], out: TextIO, *, verbose: bool) -> None:
    out.write(f"{summary['file']}: {summary['document']}, {summary['tools']} "
              f"{'tool' if summary['tools'] == 1 else 'tools'}\n")
    for report in reports:
        mark = "ok     " if report["status"] == "ok" else "REFUSED"
        out.write(f"\n{mark} {report['name']}\n")
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
    if summary["refused"]:
        reasons = ", ".join(f"{n} {reason}" for reason, n in summary["reasons"].items())
        out.write(f"{summary['refused']} of {summary['tools']} refused ({reasons}).\n")
    else:
        out.write(f"All {summary['tools']} accepted.\n")


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


def _print_json(out: TextIO, document: Any) -> None:
    out.write(msgspec.json.encode(document).decode() + "\n")


# --------------------------------------------------------------------------------------------
# validate


def run_validate(args: argparse.Namespace, eng: Engine, out: TextIO, err: TextIO) -> int:
    schema = read_json(args.schema, "schema")
    try:
        cs = eng.compile(schema)
    except SchemaRejected as exc:
        if args.json:
            _print_json(out, {"valid": None, "schema_refused": exc.to_dict()})
        else:
            where = f" at {exc.location!r}" if exc.location else ""
            err.write(f"the schema {args.schema!r} is refused ({exc.reason}){where}: {exc.message}\n")
        return EXIT_REFUSED
    source = args.instance
    try:
        if source == "-":
            data = sys.stdin.buffer.read(eng.config.limits.max_instance_bytes + 1)
        else:
            with open(source, "rb") as fh:
                data = fh.read(eng.config.limits.max_instance_bytes + 1)
    except OSError as exc:
        raise UsageError(f"cannot read the instance {source!r}: {exc.strerror or exc}") from None
    label = "standard input" if source == "-" else source
    try:
        cs.decode(data)
    except ValidationFailed as exc:
        if args.json:
            _print_json(out, {"valid": False, **exc.to_dict()})
        else:
            count = len(exc.issues)
            out.write(f"{label}: invalid, {count} issue{'s' if count != 1 else ''}"
                      f"{' (list cut short)' if exc.truncated else ''}\n")
            for issue in exc.issues:
                out.write(f"  at {issue.instance_path or '(root)'}: {issue.message}"
                          f"  [schema {issue.keyword_location or '(root)'}]\n")
        return EXIT_REFUSED
    except EngineError as exc:  # DecodeError: the instance is not acceptable JSON
        if args.json:
            _print_json(out, {"valid": False, "reason": str(exc.reason), "message": exc.message})
        else:
            out.write(f"{label}: not acceptable JSON ({exc.reason}): {exc.message}\n")
        return EXIT_REFUSED
    if args.json:
        _print_json(out, {"valid": True, "backend": cs.backend, "dialect": cs.dialect.value})
    else:
        out.write(f"{label}: valid (dialect {cs.dialect.value}, backend {cs.backend})\n")
    return EXIT_OK


# --------------------------------------------------------------------------------------------
# bench


def find_benchmarks() -> Path | None:
    """The source checkout whose ``benchmarks/`` package `engine bench` runs, if there is one."""
    candidates = [Path.cwd(), Path(__file__).resolve().parents[1]]
    for root in candidates:
        if (root / "benchmarks" / "__main__.py").is_file():
            return root
    spec = importlib.util.find_spec("benchmarks") if "benchmarks" not in sys.modules else None
    if spec is not None and spec.origin:
        return Path(spec.origin).resolve().parents[1]
    return None


def run_bench(args: argparse.Namespace, eng: Engine, out: TextIO, err: TextIO) -> int:
    root = find_benchmarks()
    if root is None:
        raise UsageError(
            "engine bench runs the benchmarks/ package of a source checkout, and none was found here. "
            "Run it from a clone of the repository (cd into it, then: engine bench), "
            "or use: python3 -m pip install nox && nox -s bench"
        )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(root), env.get("PYTHONPATH")) if p)
    passthrough = args.bench_args[1:] if args.bench_args[:1] == ["--"] else args.bench_args
    command = [sys.executable, "-m", "benchmarks", *passthrough]
    return subprocess.call(command, cwd=root, env=env)


# --------------------------------------------------------------------------------------------
# entry point


EPILOG = """\
examples:
  engine check tools.json                 vet a server's tools/list result before trusting it
  engine check tools.json --json | jq .summary
  engine check schema.json --backend jsonschema-rs --dialect draft7
  engine validate --schema schema.json --instance payload.json
  echo '{"q": 1}' | engine validate --schema schema.json -
  engine bench --quick                    the benchmark report (same as: nox -s bench -- --quick)

exit status: 0 everything accepted, 1 something refused or invalid, 2 the command could not run.
Configuration comes from --config (TOML; [tool.engine] in a pyproject.toml), then ENGINE_*
environment variables, then the options given here (highest precedence).
"""


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--config", metavar="TOML", help="read the engine configuration from this TOML file")
    common.add_argument("--backend", choices=["auto", "jsonschema-rs", "msgspec", "fastjsonschema", "jsonschema"],
                        help="compile with this backend (default: auto, the fastest exact one)")
    common.add_argument("--dialect", dest="default_dialect",
                        choices=["2020-12", "2019-09", "draft7", "draft6", "draft4"],
                        help="dialect for schemas without $schema (default: 2020-12)")
    common.add_argument("--formats", choices=["annotate", "assert"], help="treat 'format' as annotation or assertion")
    common.add_argument("--json", action="store_true", help="print one JSON document instead of text")

    parser = argparse.ArgumentParser(
        prog="engine",
        description="Compiled, hardened JSON Schema validation for MCP: "
                    "vet tool schemas, validate payloads, benchmark.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = sub.add_parser(
        "check", parents=[common], formatter_class=argparse.RawDescriptionHelpFormatter,
        help="report how each tool's schemas compile, and refuse the ones the engine will not trust",
        description="Read a tools/list result (the JSON-RPC response, its result object, a list of tools, one tool "
                    "or one schema) and report per tool and schema: dialect, the backend chosen and why, the guard's "
                    "measurements against each limit, and every refusal with its reason and location.",
        epilog="examples:\n  engine check tools.json\n  engine check - --json < tools.json\n\n"
               "exit status: 0 all accepted, 1 at least one schema refused, 2 unreadable input.",
    )
    check.add_argument("file", help="the JSON file to read ('-' for standard input)")
    check.add_argument("-q", "--quiet", action="store_true", help="no progress display")
    check.add_argument("-v", "--verbose", action="store_true", help="say when guard measurements are unavailable")
    check.set_defaults(run=run_check)

    validate = sub.add_parser(
        "validate", parents=[common], formatter_class=argparse.RawDescriptionHelpFormatter,
        help="validate one JSON instance against a schema and print every issue",
        description="Compile the schema, then parse and validate the instance, printing every issue with its "
                    "instance location, the schema keyword that said no, and a message.",
        epilog="examples:\n  engine validate --schema s.json --instance payload.json\n"
               "  curl -s https://example.invalid/x | engine validate --schema s.json -\n\n"
               "exit status: 0 valid, 1 invalid or schema refused, 2 unreadable input.",
    )
    validate.add_argument("--schema", required=True, metavar="FILE", help="the schema (JSON)")
    source = validate.add_mutually_exclusive_group()
    source.add_argument("--instance", metavar="FILE", help="the instance to validate (JSON)")
    source.add_argument("stdin", nargs="?", choices=["-"], help="read the instance from standard input")
    validate.set_defaults(run=run_validate)

    bench = sub.add_parser(
        "bench", formatter_class=argparse.RawDescriptionHelpFormatter,
        help="run the benchmark report (the same runner as nox -s bench)",
        description="Run the benchmarks/ package of this source checkout in the current Python. Arguments after "
                    "'bench' go to the runner unchanged: engine bench -- --help lists the runner's own options.",
        epilog="examples:\n  engine bench --quick\n  engine bench -- --help",
    )
    bench.add_argument("bench_args", nargs=argparse.REMAINDER, help="arguments for the benchmark runner")
    bench.set_defaults(run=run_bench)
    return parser


def _engine_from(args: argparse.Namespace) -> Engine:
    overrides = {k: getattr(args, k) for k in ("backend", "default_dialect", "formats") if getattr(args, k, None)}
    config = EngineConfig.load(getattr(args, "config", None), **overrides)
    return Engine(config)


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run the command line; returns the exit status."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["bench"] and argv[1:2] not in (["-h"], ["--help"]):
        # Everything after `bench` belongs to the runner, in order (`--` first is dropped).
        args = argparse.Namespace(command="bench", bench_args=argv[1:], run=run_bench)
    else:
        args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(out)
        return EXIT_USAGE
    if args.command == "validate":
        if args.instance is None and args.stdin is None:
            err.write("engine validate: say where the instance is: --instance FILE, or '-' for standard input\n")
            return EXIT_USAGE
        if args.instance is None:
            args.instance = "-"
    try:
        eng = _engine_from(args) if args.command != "bench" else None
        return int(args.run(args, eng, out, err))
    except UsageError as exc:
        err.write(f"engine {args.command}: {exc}\n")
        return EXIT_USAGE
    except EngineError as exc:  # configuration errors, a backend that is not installed
        err.write(f"engine {args.command}: {exc.message}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        err.write("\ninterrupted\n")
        return 130
    except BrokenPipeError:
        # The reader went away (`engine check big.json | head`): stop quietly, as other tools do.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


def main_exit() -> None:
    """Console-script entry point: run :func:`main` and exit with its status."""
    sys.exit(main())

"""The ``engine`` command's arguments."""

from __future__ import annotations

import argparse

from ..backends import backend_names
from .bench import run_bench
from .check import run_check
from .validate import run_validate

__all__ = ["EPILOG", "build_parser"]


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
    common.add_argument("--backend", choices=backend_names(),
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

"""The ``engine`` command's arguments."""

from __future__ import annotations

import argparse
from typing import NoReturn, get_args

from .._config import DialectName, backend_names
from .bench import run_bench
from .check import run_check
from .config import run_config
from .input import UsageError
from .validate import run_validate

__all__ = ["EPILOG", "Parser", "build_parser"]


class Parser(argparse.ArgumentParser):
    """argparse that raises :class:`UsageError` instead of exiting, so a bad option is reported
    like every other failure (one sentence, exit 2, and one JSON object with ``--json``)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see: {self.prog} --help)", "usage")


EPILOG = """\
examples:
  engine check tools.json                 vet a server's tools/list result before trusting it
  engine check tools.json --json | jq .summary
  engine check schema.json --backend jsonschema-rs --dialect draft7
  engine validate --schema schema.json --instance payload.json
  echo '{"q": 1}' | engine validate --schema schema.json -
  engine check tools.json --refused       only the refused tools (--summary: one line each)
  engine config                           the configuration in force here, and where each value came from
  engine bench --quick                    the benchmark report (same as: nox -s bench -- --quick)

exit status: 0 everything accepted, 1 something refused or invalid, 2 the command could not run.
Configuration, lowest precedence first: defaults, the TOML file (--config FILE, or else the nearest
pyproject.toml with a [tool.engine] table from the working directory upward), ENGINE_* environment
variables, then the options given here. `engine config` shows the result.
"""


def build_parser() -> argparse.ArgumentParser:
    common = Parser(add_help=False)
    common.add_argument(
        "--config",
        metavar="TOML",
        help="read the engine configuration from this TOML file (default: the nearest "
        "pyproject.toml with [tool.engine])",
    )
    common.add_argument(
        "--backend", choices=backend_names(), help="compile with this backend (default: auto, the fastest exact one)"
    )
    common.add_argument(
        "--dialect",
        dest="default_dialect",
        choices=get_args(DialectName),
        help="dialect for schemas without $schema (default: 2020-12)",
    )
    common.add_argument("--formats", choices=["annotate", "assert"], help="treat 'format' as annotation or assertion")
    common.add_argument("--json", action="store_true", help="print one JSON document instead of text")

    from .. import __version__

    parser = Parser(
        prog="engine",
        description="Compiled, hardened JSON Schema validation for MCP: "
        "vet tool schemas, validate payloads, benchmark.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"engine {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = sub.add_parser(
        "check",
        parents=[common],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        help="report how each tool's schemas compile, and refuse the ones the engine will not trust",
        description="Read a tools/list result (the JSON-RPC response, its result object, a list of tools, one tool "
        "or one schema) and report per tool and schema: dialect, the backend chosen and why, the guard's "
        "measurements against each limit, and every refusal with its reason and location.",
        epilog="examples:\n  engine check tools.json\n  engine check tools.json --summary\n"
        "  engine check - --json < tools.json\n\n"
        "exit status: 0 all accepted (or no tools listed), 1 at least one tool or schema refused, 2 input that "
        "is no tool list or schema (unreadable, not JSON, a JSON-RPC error response...).",
    )
    check.add_argument("file", help="the JSON file to read ('-' for standard input)")
    check.add_argument("-q", "--quiet", action="store_true", help="no progress display")
    check.add_argument("-v", "--verbose", action="store_true", help="say when guard measurements are unavailable")
    view = check.add_mutually_exclusive_group()
    view.add_argument(
        "--refused",
        dest="view",
        action="store_const",
        const="refused",
        default="all",
        help="list only the refused tools, with every reason",
    )
    view.add_argument(
        "--summary",
        dest="view",
        action="store_const",
        const="summary",
        help="one line per refused tool (its first reason), then the count",
    )
    check.set_defaults(run=run_check)

    validate = sub.add_parser(
        "validate",
        parents=[common],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        help="validate one JSON instance against a schema and print every issue",
        description="Compile the schema, then parse and validate the instance, printing every issue with its "
        "instance location, the schema keyword that said no, and a message.",
        epilog="examples:\n  engine validate --schema s.json --instance payload.json\n"
        "  curl -s https://example.invalid/x | engine validate --schema s.json -\n\n"
        "exit status: 0 valid, 1 invalid or schema refused, 2 unreadable input, or '-' for both schema and instance.",
    )
    validate.add_argument("--schema", required=True, metavar="FILE", help="the schema (JSON)")
    source = validate.add_mutually_exclusive_group()
    source.add_argument("--instance", metavar="FILE", help="the instance to validate (JSON)")
    source.add_argument("stdin", nargs="?", choices=["-"], help="read the instance from standard input")
    validate.set_defaults(run=run_validate)

    config = sub.add_parser(
        "config",
        parents=[common],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        help="print the configuration in force here and where each value came from",
        description="Load the configuration as the other commands do and print every setting with its source: "
        "a command-line option, an ENGINE_* variable, the TOML file, or the default.",
        epilog="examples:\n  engine config\n  ENGINE_FORMATS=assert engine config --json\n\n"
        "exit status: 0, or 2 when the configuration is wrong (the sentence names the setting).",
    )
    config.set_defaults(run=run_config)

    bench = sub.add_parser(
        "bench",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        help="run the benchmark report (the same runner as nox -s bench)",
        description="Run the benchmarks/ package of this source checkout in the current Python. Arguments after "
        "'bench' go to the runner unchanged: engine bench -- --help lists the runner's own options.",
        epilog="examples:\n  engine bench --quick\n  engine bench -- --help",
    )
    bench.add_argument("bench_args", nargs=argparse.REMAINDER, help="arguments for the benchmark runner")
    bench.set_defaults(run=run_bench)
    return parser

"""The operator's command line: ``engine check``, ``validate``, ``config``, ``bench``.

Plain argparse and plain text, so the core stays lean; ``--json`` gives the same facts to machines:
every outcome, failures included, is one JSON object on standard output. Exit status: 0 when
everything was accepted, 1 when anything was refused or invalid, 2 when the command itself could
not run (unreadable file, bad option, not JSON, a wrong configuration).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import warnings
from collections.abc import Sequence
from typing import TextIO

from .._engine import Engine
from .._errors import EngineError
from .bench import run_bench
from .check import print_json
from .config import resolve_from_args
from .input import EXIT_OK, EXIT_USAGE, UsageError
from .parser import build_parser

__all__ = ["main", "main_exit"]


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run the command line; returns the exit status."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    command = next((a for a in argv if not a.startswith("-")), None)
    as_json = "--json" in argv and command != "bench"
    try:
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
                raise UsageError("say where the instance is: --instance FILE, or '-' for standard input", "usage")
            if args.instance is None:
                args.instance = "-"
            if args.schema == "-" and args.instance == "-":
                # One stream: the schema would read all of it and leave the instance nothing.
                raise UsageError(
                    "only one of --schema and the instance can be '-' (standard input is read once): "
                    "give the other as a file (see: engine validate --help)",
                    "usage",
                )
        if args.command == "bench":
            return int(args.run(args, None, out, err))
        with warnings.catch_warnings():
            # A warning of the configuration (an ENGINE_* variable that names no setting) as a
            # line of the command's own, not Python's report of where in the engine it was raised.
            def show(message: Warning | str, *_: object, **__: object) -> None:
                err.write(f"engine: warning: {message}\n")

            warnings.showwarning = show
            resolved = resolve_from_args(args)
        if args.command == "config":
            return int(args.run(args, resolved, out, err))
        return int(args.run(args, Engine(resolved.config), out, err))
    except (UsageError, EngineError) as exc:  # EngineError: a wrong configuration, a backend not installed
        err.write(f"{'engine ' + command if command else 'engine'}: {exc.message}\n")
        if as_json:
            print_json(out, {"error": {"reason": str(exc.reason), "message": exc.message}, "exit": EXIT_USAGE})
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

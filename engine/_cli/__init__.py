"""The operator's command line: ``engine check``, ``engine validate``, ``engine bench``.

Plain argparse and plain text, so the core stays lean; ``--json`` gives the same facts to machines.
Exit status: 0 when everything was accepted, 1 when anything was refused or invalid, 2 when the
command itself could not run (unreadable file, bad option, not JSON).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from .._config import EngineConfig
from .._engine import Engine
from .._errors import EngineError
from .bench import run_bench
from .input import EXIT_OK, EXIT_USAGE, UsageError
from .parser import build_parser

__all__ = ["main", "main_exit"]


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

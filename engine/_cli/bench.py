"""``engine bench``: the benchmark runner of a source checkout."""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from typing import TextIO

from .._engine import Engine
from .input import UsageError

__all__ = ["find_benchmarks", "run_bench"]


def find_benchmarks() -> Path | None:
    """The source checkout whose ``benchmarks/`` package `engine bench` runs, if there is one."""
    candidates = [Path.cwd(), Path(__file__).resolve().parents[2]]
    for root in candidates:
        if (root / "benchmarks" / "__main__.py").is_file():
            return root
    spec = importlib.util.find_spec("benchmarks") if "benchmarks" not in sys.modules else None
    if spec is not None and spec.origin:
        return Path(spec.origin).resolve().parents[1]
    return None


def run_bench(args: argparse.Namespace, eng: Engine | None, out: TextIO, err: TextIO) -> int:
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

"""What ``import engine`` costs a fresh process, next to importing the libraries it is built on.

Each import runs in a new interpreter (``python -c``), interleaved with the others so load from
elsewhere hits them alike; the interpreter's own start-up (``python -c pass``) is subtracted. The
figure is the child's CPU time (user + system) where the platform reports it: on a shared machine
wall time mostly measures the wait for a core (a load of 5 on 2 cores tripled it), CPU time does not.
Bytecode is cached in a temporary folder first, as an installed package has it, so the figure is
what a user's second start costs, not the one-time compilation to bytecode.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__ = ["BASELINE", "import_times"]

BASELINE = "import jsonschema_rs, msgspec, cachetools"
"""The libraries the engine's core needs: the least an import of the engine can cost."""


def _once(code: str, env: dict[str, str]) -> float:
    try:
        import resource
    except ImportError:  # Windows: wall time
        began = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True)
        return time.perf_counter() - began
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def import_times(runs: int) -> dict[str, float | int | str]:
    """Median milliseconds of ``import engine`` and of :data:`BASELINE`, and their ratio."""
    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory(prefix="engine-bench-pyc-") as cache:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = cache
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(root), env.get("PYTHONPATH")) if p)
        codes = {"bare": "pass", "baseline": BASELINE, "engine": "import engine"}
        for code in codes.values():  # writes the bytecode cache
            _once(code, env)
        samples: dict[str, list[float]] = {name: [] for name in codes}
        for _ in range(runs):
            for name, code in codes.items():
                samples[name].append(_once(code, env))
    bare = statistics.median(samples["bare"])
    engine_s = statistics.median(samples["engine"]) - bare
    baseline_s = statistics.median(samples["baseline"]) - bare
    return {
        "engine_ms": round(engine_s * 1000, 1),
        "baseline_ms": round(baseline_s * 1000, 1),
        "ratio": round(engine_s / baseline_s, 2) if baseline_s > 0 else float("nan"),
        "baseline": BASELINE,
        "runs": runs,
        "clock": "CPU time" if _has_rusage() else "wall time",
    }


def _has_rusage() -> bool:
    try:
        import resource  # noqa: F401
    except ImportError:
        return False
    return True

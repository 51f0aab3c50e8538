"""Run one hostile call in a child process, under a CPU-time bound, a wall-clock limit and a
memory cap.

A regression in a defence must fail the test that exercises it, by name, while the call runs: a
dropped depth bound overflows the native stack (a segfault would end pytest itself), an
explanation that is never cut grows without limit (24 GB once, until the kernel killed the run),
a hang never returns for an after-the-fact time check to catch. The call runs in a forked child:

- its CPU time is bounded by the kernel (``RLIMIT_CPU``: the child is stopped with SIGXCPU when it
  has computed for ``seconds``), and measured, so a slow call fails however loaded the machine;
- the parent waits a multiple of ``seconds`` of wall-clock time for the answer and kills the child
  after that (a call that blocks without computing);
- the child's address space may grow by at most ``memory`` bytes;
- a crash is reported with the signal that ended it.

The bound is on CPU time because the test machines are shared: with six test runs on two cores
(load average 9.7, measured), a call that computes for 1 s takes 5.9 s of wall-clock time.
"""

from __future__ import annotations

import gc
import math
import multiprocessing
import resource
import signal
import time
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, TypeVar

import pytest

__all__ = ["MEMORY", "isolated"]

T = TypeVar("T")

# Room for the call beyond what the parent already maps. The catalog's heaviest cases (a
# 100,000-deep instance, an 11-level reference expansion) grow the resident set by 33 MB at most;
# 1 GiB is the point where a blow-up is a bug, well short of what starves the machine.
MEMORY = 1 << 30
# Wall-clock time the parent allows: this many times the CPU bound, plus room for the fork (about
# 20 ms idle). A call that computes is stopped by its CPU bound first (1 s of CPU took 5.9 s of
# wall-clock time at load average 9.7, measured); this catches one that blocks.
WALL_FACTOR = 10
FORK_SLACK = 2.0


def _address_space() -> int:
    """Bytes of address space this process maps now (VmSize)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmSize in /proc/self/status")


def _limit(kind: int, soft: int) -> None:
    _, hard = resource.getrlimit(kind)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(kind, (soft, hard))


def _child(writer: Connection, seconds: float, memory: int, func: Callable[..., Any], args: tuple[Any, ...]) -> None:
    # What the child inherits is not the call's to collect: without this, its first collection
    # walks the whole parent heap (the test run's, millions of objects late in a suite), writing
    # to every page of it, and that was counted as the call's CPU time (a 0.8 s case took 1.8-2.2 s
    # after a parent allocated 6 million objects; catalog cases failed their bounds that way late
    # in `nox -s tests` on an idle machine).
    gc.freeze()
    try:
        _limit(resource.RLIMIT_AS, _address_space() + memory)
        # Whole seconds only; the measured time below holds the exact bound.
        _limit(resource.RLIMIT_CPU, math.ceil(seconds + time.process_time()))
        started = time.process_time()
        result = func(*args)
        writer.send(("ok", (result, time.process_time() - started)))
    except MemoryError:
        writer.send(("memory", traceback.format_exc(limit=-8)))
    except BaseException:  # noqa: BLE001 - an assertion, pytest's Failed, anything: reported whole
        writer.send(("error", traceback.format_exc(limit=-12)))
    finally:
        writer.close()


def isolated(name: str, func: Callable[..., T], *args: Any, seconds: float, memory: int = MEMORY) -> tuple[T, float]:
    """``func(*args)`` in a forked child; returns (its result, CPU seconds it took).

    Fails the calling test, naming ``name``, if the call computes for longer than ``seconds``
    (stopped then by the kernel), blocks for ``WALL_FACTOR`` times that (killed), needs more
    than ``memory`` bytes of new address space, raises, or dies of a signal. ``func``, ``args``
    need no pickling on the way in (fork); the result does on the way out.
    """
    context = multiprocessing.get_context("fork")
    reader, writer = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(writer, seconds, memory, func, args), daemon=True)
    process.start()
    writer.close()
    wall = seconds * WALL_FACTOR + FORK_SLACK
    try:
        answered = reader.poll(wall)
        message = reader.recv() if answered else None
    except EOFError:  # the child died without a word: a signal, reported below
        message = None
        answered = True
    finally:
        reader.close()
    if not answered:
        process.kill()
        process.join()
        pytest.fail(f"{name}: no answer after {wall:.1f} s of wall-clock time; killed", pytrace=False)
    process.join(10)
    if message is None:
        code = process.exitcode
        if code == -signal.SIGXCPU:
            pytest.fail(f"{name}: computed for more than its bound of {seconds} s of CPU time; stopped", pytrace=False)
        if code is not None and code < 0:
            what = signal.Signals(-code).name
            why = "a native crash: stack overflow, failed allocation"
            pytest.fail(f"{name}: the process died of {what} ({why})", pytrace=False)
        pytest.fail(f"{name}: the process exited with code {code} without an answer", pytrace=False)
    status, payload = message
    if status == "memory":
        mib = memory >> 20
        pytest.fail(f"{name}: ran out of its {mib} MiB memory cap (a blow-up):\n{payload}", pytrace=False)
    if status == "error":
        pytest.fail(f"{name}: failed in its isolated process:\n{payload}", pytrace=False)
    result, elapsed = payload
    if elapsed > seconds:
        pytest.fail(f"{name}: took {elapsed:.2f} s of CPU time, over its bound of {seconds} s", pytrace=False)
    return result, elapsed

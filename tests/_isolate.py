"""Run one hostile call in a child process, under a wall-clock limit and a memory cap.

A regression in a defence must fail the test that exercises it, by name, while the call runs: a
dropped depth bound overflows the native stack (a segfault would end pytest itself), an
explanation that is never cut grows without limit (24 GB once, until the kernel killed the run),
a hang never returns for an after-the-fact time check to catch. The call runs in a forked child:
the parent waits at most ``seconds`` for its answer and kills it after that, the child's address
space may grow by at most ``memory`` bytes, and a crash is reported with the signal that ended it.
"""

from __future__ import annotations

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
# Forking the test process and hearing back takes about 20 ms; the kill comes this much after the
# caller's bound, so that the bound is the call's own. The call's own time is checked against the
# bound as well.
FORK_SLACK = 1.0


def _address_space() -> int:
    """Bytes of address space this process maps now (VmSize)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmSize in /proc/self/status")


def _child(writer: Connection, memory: int, func: Callable[..., Any], args: tuple[Any, ...]) -> None:
    try:
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        cap = _address_space() + memory
        if hard != resource.RLIM_INFINITY:
            cap = min(cap, hard)
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
        started = time.perf_counter()
        result = func(*args)
        writer.send(("ok", (result, time.perf_counter() - started)))
    except MemoryError:
        writer.send(("memory", traceback.format_exc(limit=-8)))
    except BaseException:  # noqa: BLE001 - an assertion, pytest's Failed, anything: reported whole
        writer.send(("error", traceback.format_exc(limit=-12)))
    finally:
        writer.close()


def isolated(
    name: str, func: Callable[..., T], *args: Any, seconds: float, memory: int = MEMORY
) -> tuple[T, float]:
    """``func(*args)`` in a forked child; returns (its result, seconds it took).

    Fails the calling test, naming ``name``, if the call takes longer than ``seconds`` (the child
    is killed then, not waited for), needs more than ``memory`` bytes of new address space, raises,
    or dies of a signal. ``func``, ``args`` and the result need no pickling on the way in (fork),
    the result does on the way out.
    """
    context = multiprocessing.get_context("fork")
    reader, writer = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(writer, memory, func, args), daemon=True)
    process.start()
    writer.close()
    try:
        answered = reader.poll(seconds + FORK_SLACK)
        message = reader.recv() if answered else None
    except EOFError:  # the child died without a word: a signal, reported below
        message = None
        answered = True
    finally:
        reader.close()
    if not answered:
        process.kill()
        process.join()
        pytest.fail(f"{name}: still running after {seconds} s (+{FORK_SLACK} s to start); killed", pytrace=False)
    process.join(10)
    if message is None:
        code = process.exitcode
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
        pytest.fail(f"{name}: took {elapsed:.2f} s, over its bound of {seconds} s", pytrace=False)
    return result, elapsed


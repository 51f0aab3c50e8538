"""The isolation helper itself: each way a hostile call can go wrong fails the test, by name."""

from __future__ import annotations

import ctypes
import faulthandler
import os
import time

import pytest

from tests._isolate import isolated


def _pid() -> int:
    return os.getpid()


def _hang() -> None:
    time.sleep(60)


def _spin() -> None:
    while True:
        pass


def _grow() -> None:
    blocks = []
    while True:
        blocks.append(bytearray(64 << 20))


def _crash() -> None:
    faulthandler.disable()  # the crash is expected: no traceback dump into the test run's output
    ctypes.string_at(0)  # reads address 0: SIGSEGV


def _wrong() -> None:
    assert 1 + 1 == 3, "arithmetic"


def test_the_call_runs_in_another_process_and_its_result_comes_back() -> None:
    pid, elapsed = isolated("pid", _pid, seconds=5)
    assert pid != os.getpid() and 0 <= elapsed < 5


@pytest.mark.timeout(20)  # killed at 7 s, not waited for (the sleep is 60 s)
def test_a_call_that_blocks_is_killed_at_the_wall_clock_limit() -> None:
    with pytest.raises(pytest.fail.Exception, match="hang: no answer after 7.0 s of wall-clock time; killed"):
        isolated("hang", _hang, seconds=0.5)


@pytest.mark.timeout(20)
def test_a_call_that_computes_past_its_bound_is_stopped_by_the_kernel() -> None:
    with pytest.raises(pytest.fail.Exception, match="spin: computed for more than its bound of 1 s of CPU time"):
        isolated("spin", _spin, seconds=1)


@pytest.mark.timeout(20)
def test_a_call_over_its_bound_by_a_fraction_of_a_second_fails_too() -> None:
    def spin_for(cpu: float) -> None:
        started = time.process_time()
        while time.process_time() - started < cpu:
            pass

    with pytest.raises(pytest.fail.Exception, match="took 0.[3-9][0-9] s of CPU time, over its bound of 0.2 s"):
        isolated("slow", spin_for, 0.3, seconds=0.2)


@pytest.mark.timeout(30)
def test_a_blow_up_stops_at_the_memory_cap() -> None:
    with pytest.raises(pytest.fail.Exception, match="grow: ran out of its 256 MiB memory cap"):
        isolated("grow", _grow, seconds=20, memory=256 << 20)


@pytest.mark.timeout(10)
def test_a_native_crash_is_reported_with_its_signal() -> None:
    with pytest.raises(pytest.fail.Exception, match="crash: the process died of SIGSEGV"):
        isolated("crash", _crash, seconds=5)


def test_an_assertion_in_the_child_fails_the_test_with_its_message() -> None:
    with pytest.raises(pytest.fail.Exception, match="(?s)wrong: failed in its isolated process.*arithmetic"):
        isolated("wrong", _wrong, seconds=5)


def test_what_the_child_inherits_is_not_collected_on_its_time() -> None:
    # The parent's heap is frozen in the child: a collection there walks only what the call makes.
    import gc

    inherited = [[] for _ in range(10_000)]
    frozen, _ = isolated("frozen", gc.get_freeze_count, seconds=5)
    assert frozen >= len(inherited)

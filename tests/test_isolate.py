"""The isolation helper itself: each way a hostile call can go wrong fails the test, by name."""

from __future__ import annotations

import ctypes
import os
import time

import pytest

from tests._isolate import isolated


def _pid() -> int:
    return os.getpid()


def _hang() -> None:
    time.sleep(60)


def _grow() -> None:
    blocks = []
    while True:
        blocks.append(bytearray(64 << 20))


def _crash() -> None:
    ctypes.string_at(0)  # reads address 0: SIGSEGV


def _wrong() -> None:
    assert 1 + 1 == 3, "arithmetic"


def test_the_call_runs_in_another_process_and_its_result_comes_back() -> None:
    pid, elapsed = isolated("pid", _pid, seconds=5)
    assert pid != os.getpid() and 0 <= elapsed < 5


@pytest.mark.timeout(10)
def test_a_hang_is_killed_at_the_bound() -> None:
    started = time.monotonic()
    with pytest.raises(pytest.fail.Exception, match="hang: still running after 0.5 s"):
        isolated("hang", _hang, seconds=0.5)
    assert time.monotonic() - started < 5  # killed, not waited for (the sleep is 60 s)


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

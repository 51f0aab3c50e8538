"""Threads making the first check of a compiled schema at once: the facts a check reads on its
first instance (what one value may meet, the bound of an unwalked instance) are filled once,
whoever comes first, and every later check reads them whole."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import engine

UNIQUE = {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True}}}
BRANCHING = {"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}}


@pytest.fixture
def quick_switches() -> Iterator[None]:
    # Threads switch after every few bytecodes, not every 5 ms: the window between a check's
    # test of its facts and their filling is then met in most trials.
    saved = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(saved)


def _at_once(call: Callable[[], Any], threads: int = 8) -> list[Any]:
    barrier = threading.Barrier(threads)
    answers: list[Any] = []

    def worker() -> None:
        barrier.wait()
        try:
            answers.append(call())
        except BaseException as exc:  # noqa: BLE001 - the answer the test compares
            answers.append(exc)

    running = [threading.Thread(target=worker) for _ in range(threads)]
    for thread in running:
        thread.start()
    for thread in running:
        thread.join()
    return answers


@pytest.mark.usefixtures("quick_switches")
@pytest.mark.parametrize(
    ("backend", "schema", "instance"),
    [("auto", UNIQUE, {"tags": ["a", "b"]}), ("fastjsonschema", BRANCHING, {"a": 1})],
    ids=["uniqueItems", "at a backend's rate"],
)
def test_a_first_check_made_by_many_threads_at_once(backend: str, schema: dict[str, Any], instance: Any) -> None:
    if backend == "fastjsonschema":
        pytest.importorskip("fastjsonschema")
    for _ in range(40):
        compiled = engine.Engine(engine.EngineConfig(backend=backend)).compile(schema)
        assert _at_once(lambda: compiled.is_valid(instance)) == [True] * 8  # noqa: B023 - called before the next
        assert compiled.is_valid(instance) is True  # and every check after them

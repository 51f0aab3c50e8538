"""Metrics hooks run once the engine holds no lock. The cache's events were emitted under its lock:
a hook reading the engine (its cache statistics, for a gauge) or compiling another schema waited
for a lock its own thread held, for ever, and every other thread's compile after it."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

import engine
import engine.metrics


def _finishes(work: Callable[[], Any]) -> bool:
    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(10)
    return not thread.is_alive()


@pytest.mark.parametrize("kind", [engine.metrics.CacheEvent, engine.metrics.CompileEvent])
def test_a_hook_may_read_the_engine_and_compile(kind: type) -> None:
    eng = engine.Engine(engine.EngineConfig(cache_size=2))
    seen: list[Any] = []
    inner = [0]

    def hook(event: Any) -> None:
        if not isinstance(event, kind):
            return
        seen.append((event, eng.cache_stats()))
        if inner[0] < 3:  # each compile of its own emits events too
            inner[0] += 1
            eng.compile({"type": "integer", "minimum": 1000 + inner[0]})

    with engine.metrics.hooked(hook):
        assert _finishes(lambda: eng.compile({"type": "integer", "minimum": 1}))
        assert _finishes(lambda: eng.compile({"type": "integer", "minimum": 1}))
        for n in range(2, 6):  # past the cache's two entries: evictions
            assert _finishes(lambda n=n: eng.compile({"type": "integer", "minimum": n}))
    assert seen
    stats = eng.cache_stats()
    assert stats.misses >= 5 and stats.size == 2  # (the hook's own compiles push the first out)


def test_every_event_still_reaches_the_hooks() -> None:
    eng = engine.Engine(engine.EngineConfig(cache_size=1))
    recorder = engine.metrics.Recorder()
    with engine.metrics.hooked(recorder):
        eng.compile({"type": "string"})
        eng.compile({"type": "string"})
        eng.compile({"type": "number"})
        with pytest.raises(engine.SchemaRejected):
            eng.compile({"type": 7})
    snapshot = recorder.snapshot()
    assert snapshot.cache == {"miss": 3, "hit": 1, "eviction": 1}
    assert snapshot.compiles == 2


def test_a_hook_added_while_a_compile_runs_is_handed_its_events_after() -> None:
    # Whether to hold the events back was decided as the compile began: a hook added meanwhile
    # was handed the eviction under the cache's lock, and its `stats()` waited on it for ever.
    from engine._cache import CompileCache

    cache: CompileCache[object] = CompileCache(1)
    cache.get_or_compile(b"first", object)
    seen: list[Any] = []

    def hook(event: Any) -> None:
        seen.append((event, cache.stats()))

    def compile_adding_the_hook() -> object:
        engine.metrics.add_hook(hook)
        return object()

    try:
        assert _finishes(lambda: cache.get_or_compile(b"second", compile_adding_the_hook))
    finally:
        engine.metrics.remove_hook(hook)
    assert [event for event, _ in seen] == [engine.metrics.CacheEvent("eviction")]


def test_a_hook_raising_an_interrupt_leaves_every_hook_every_event() -> None:
    class Stop(BaseException):
        pass

    def stopping(event: Any) -> None:
        raise Stop

    recorder = engine.metrics.Recorder()
    eng = engine.Engine(engine.EngineConfig(cache_size=4))
    with engine.metrics.hooked(stopping), engine.metrics.hooked(recorder), pytest.raises(Stop):
        eng.compile({"type": "string"})
    snapshot = recorder.snapshot()
    assert snapshot.cache == {"miss": 1} and snapshot.compiles == 1

"""The compile cache holds a bounded weight of compiled schemas, not only a bounded count: a
compiled schema holds several times its text, up to some ten megabytes for one of the largest
schemas the guard admits, and a host compiles whatever its servers send."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable
from typing import Any

import msgspec

import engine
from engine._cache import estimated_bytes
from engine._engine import PATTERN_STEP_BYTES, held_bytes, pattern_steps
from engine._patterns.analysis import WIDE_STEPS, written_out


class _Tracked:
    """Weak references to what a call returned: how many are still alive once the caller keeps
    none (whatever else the test run keeps alive is not counted)."""

    def __init__(self) -> None:
        self.refs: list[weakref.ref[Any]] = []

    def __call__(self, make: Callable[[], Any]) -> None:
        self.refs.append(weakref.ref(make()))

    def alive(self) -> int:
        gc.collect()
        return sum(1 for ref in self.refs if ref() is not None)


def _dense(i: int) -> dict[str, Any]:
    """Some 9,750 subschemas in 30 KB of text: 3.1 MB held once compiled, on this machine."""
    return {"$comment": str(i), "allOf": [{"allOf": [{} for _ in range(250)]} for _ in range(39)]}


def test_a_cache_keeps_no_more_compiled_schemas_than_its_size() -> None:
    # The lookups before the fingerprint kept their values: 467 compiled schemas stayed alive in
    # a cache of 100 (its tables remember two texts and four serialisations per entry).
    eng = engine.Engine(cache_size=100)
    tracked = _Tracked()
    for i in range(600):
        tracked(lambda i=i: eng.compile({"type": "object", "properties": {f"p{i}": {"type": "string"}}}))
        text = msgspec.json.encode({"type": "object", "properties": {f"q{i}": {"type": "string"}}})
        tracked(lambda text=text: eng.compile(text))
    assert eng.cache_stats().size == 100
    assert tracked.alive() == 100


def test_heavy_schemas_are_kept_within_the_cache_bytes() -> None:
    config = engine.EngineConfig()
    weight = held_bytes(engine.Engine(cache_size=0).compile(_dense(0)))  # what the cache weighs it at
    assert weight >= estimated_bytes(msgspec.json.encode(_dense(0)))  # the values counted, or the text
    assert weight > 8_000_000  # over-estimated: what such a schema was measured to hold
    fits = config.cache_bytes // weight
    eng = engine.Engine(config)
    kept = eng.compile(_dense(0))  # the caller's own: alive whatever the cache does
    tracked = _Tracked()
    for i in range(1, fits + 12):
        tracked(lambda i=i: eng.compile(_dense(i) if i % 2 else msgspec.json.encode(_dense(i))))
    assert eng.cache_stats().size == fits
    assert tracked.alive() == fits
    assert kept.is_valid(1)
    # The newest are found again, and answer as compiled.
    newest = fits + 11
    assert eng.compile(_dense(newest)) is eng.compile(msgspec.json.encode(_dense(newest)))
    assert eng.cache_stats().hits >= 1


def test_a_schema_heavier_than_the_cache_bytes_is_compiled_and_not_kept() -> None:
    eng = engine.Engine(cache_bytes=1_000_000)
    light = eng.compile({"type": "string"})
    heavy = eng.compile(_dense(0))
    assert heavy.is_valid(1) and eng.compile(_dense(0)) is not heavy
    assert eng.compile({"type": "string"}) is light  # the others stay
    assert eng.cache_stats().size == 1
    off = engine.Engine(cache_bytes=0)
    assert off.compile({"type": "string"}) is not off.compile({"type": "string"})
    assert off.cache_stats().size == 0


def test_the_weight_counts_text_and_values() -> None:
    assert estimated_bytes(b"{}") == 4 * 2 + 512
    assert estimated_bytes(b'{"enum":["a","b"]}') == 4 * 18 + 512 * 3
    # Three values a byte or two each weigh more than a long string.
    assert estimated_bytes(b"[{},{},{}]") > estimated_bytes(b'"' + b"x" * 300 + b'"')


def test_elicitation_forms_are_kept_within_the_cache_bytes() -> None:
    options = 9_000
    eng = engine.Engine(cache_bytes=20_000_000)

    def form(i: int) -> dict[str, Any]:
        choices = [f"option {i} {j:05d} " + "x" * 60 for j in range(options)]
        return {"type": "object", "properties": {"pick": {"type": "string", "enum": choices}}}

    weight = estimated_bytes(msgspec.json.encode(form(0)))
    tracked = _Tracked()
    for i in range(12):
        tracked(lambda i=i: engine.compile_elicitation(form(i), engine=eng))
    assert 1 <= tracked.alive() <= 20_000_000 // weight
    first = engine.compile_elicitation(form(11), engine=eng)
    assert engine.compile_elicitation(form(11), engine=eng) is first  # the newest is kept


def test_a_schema_s_patterns_weigh_what_their_automata_may_hold() -> None:
    # One pattern `^\S{990}x<i>$` in 80 bytes of text holds some 3.4 MB of automaton: weighed by
    # its text alone, 1,024 such schemas would have been kept.
    def patterned(i: int) -> dict[str, Any]:
        pattern = f"^\\S{{990}}x{i}$"
        return {"type": "object", "properties": {"p": {"type": "string", "pattern": pattern}}}

    compiled = engine.Engine(cache_size=0).compile(patterned(0))
    steps = pattern_steps(compiled)
    assert steps == WIDE_STEPS * written_out("^\\S{990}x0$")
    fits = engine.EngineConfig().cache_bytes // (PATTERN_STEP_BYTES * steps)
    assert fits < 20
    eng = engine.Engine()
    tracked = _Tracked()
    for i in range(fits + 5):
        tracked(lambda i=i: eng.compile(patterned(i)))
    assert eng.cache_stats().size == tracked.alive() <= fits
    assert pattern_steps(engine.Engine().compile({"type": "string"})) == 0  # cleared: no report built

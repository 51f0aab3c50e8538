"""A pattern a regex engine may not read one state at a time fills its automaton's cache on a long
string and keeps it. The regex crate's cache holds up to 2 MiB a pattern by default: 20 distinct
``a[ab]{20}c<i>`` checked once on 100 KB each held 66 MB. The engine builds every pattern with a
256 KB cache (``DFA_CACHE_BYTES``), refuses a schema of more than 64 distinct such patterns
(``MAX_CACHING_PATTERNS``: 400 in a 22 KB schema had held 1 GB), and weighs each at
``AUTOMATON_CACHE_BYTES`` in the compile cache and in a tool list's bound."""

from __future__ import annotations

import gc
import random

import pytest

import engine
from engine._engine import AUTOMATON_CACHE_BYTES, held_bytes
from engine._guard import MAX_CACHING_PATTERNS


def _rss() -> int:
    with open("/proc/self/status") as status:
        return int(status.read().split("VmRSS:")[1].split()[0]) * 1024


def _schema(count: int, linear: bool = False) -> dict:
    pattern = "^x{1,20}y%d$" if linear else "a[ab]{20}c%d"
    return {"type": "object", "properties": {f"p{i}": {"type": "string", "pattern": pattern % i} for i in range(count)}}


@pytest.mark.skipif(not __import__("os").path.exists("/proc/self/status"), reason="reads /proc")
def test_a_used_pattern_keeps_a_small_cache() -> None:
    limits = engine.Limits(max_validation_work=10**11)  # the check itself is what is measured
    compiled = engine.Engine(cache_size=0, limits=limits).compile(_schema(20))
    rng = random.Random(2)
    text = "".join(rng.choice("ab") for _ in range(100_000))
    instance = {f"p{i}": text + "a" + "b" * 20 + f"c{i}" for i in range(20)}
    gc.collect()
    before = _rss()
    assert compiled.is_valid(instance)
    gc.collect()
    assert _rss() - before < 35_000_000  # 66 MB with the regex crate's default cache, 11 MB measured


def test_a_schema_of_too_many_such_patterns_is_refused() -> None:
    eng = engine.Engine(cache_size=0)
    with pytest.raises(engine.SchemaRejected) as refused:
        eng.compile(_schema(MAX_CACHING_PATTERNS + 1))
    assert refused.value.reason == engine.RejectReason.UNSAFE_PATTERN
    assert refused.value.details["bound"] == MAX_CACHING_PATTERNS
    assert eng.compile(_schema(MAX_CACHING_PATTERNS)).is_valid({"p0": "abc"}) is False
    assert eng.compile(_schema(200, linear=True)).is_valid({"p3": "xxy3"})  # read one state at a time


def test_such_patterns_weigh_their_caches() -> None:
    eng = engine.Engine(cache_size=0)
    assert held_bytes(eng.compile(_schema(10))) >= 10 * AUTOMATON_CACHE_BYTES
    assert held_bytes(eng.compile(_schema(10, linear=True))) < AUTOMATON_CACHE_BYTES

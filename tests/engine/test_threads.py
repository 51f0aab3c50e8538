"""Many threads compiling and validating through one Engine: no exception, no wrong answer, each
schema compiled once."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import jsonschema

import engine

DATA = Path(__file__).parents[2] / "bench_data"
RESULTS = DATA / "structured" / "tool-results.json"
TOOLS = [DATA / "tools" / "modelcontextprotocol-servers.json", DATA / "tools" / "github-mcp-server.json"]
THREADS = 16
ROUNDS = 6


def cases() -> list[tuple[dict, object, bool]]:
    """(schema, instance, expected verdict) from recorded results, plus a broken copy of each."""
    out = []
    for record in json.loads(RESULTS.read_text()):
        schema = record["outputSchema"]
        value = record["result"].get("structuredContent")
        if schema is None or "structuredContent" not in record["result"]:
            continue
        oracle = jsonschema.validators.validator_for(schema)(schema)
        out.append((schema, value, oracle.is_valid(value)))
        broken = {"__not": "what the schema wants"} if not isinstance(value, dict) else 12345
        out.append((schema, broken, oracle.is_valid(broken)))
    for path in TOOLS:
        for tool in json.loads(path.read_text()):
            schema = tool["inputSchema"]
            cls = jsonschema.validators.validator_for(schema)
            if not cls(cls.META_SCHEMA).is_valid(schema):
                continue
            for value in ({}, {"owner": "o", "repo": "r", "path": "p"}, []):
                out.append((schema, value, cls(schema).is_valid(value)))
    return out


def test_threads_share_one_engine() -> None:
    work = cases()
    distinct = {json.dumps(schema, sort_keys=True) for schema, _, _ in work}
    assert len(distinct) > 50 and any(not ok for _, _, ok in work) and any(ok for _, _, ok in work)
    eng = engine.Engine(engine.EngineConfig(cache_size=4096))
    barrier = threading.Barrier(THREADS)
    errors: list[BaseException] = []
    wrong: list[str] = []

    def worker(offset: int) -> None:
        try:
            barrier.wait()
            for round_ in range(ROUNDS):
                # Each thread walks the cases from its own starting point, so different threads ask for
                # the same schema at the same moment and for different schemas at once.
                for i in range(len(work)):
                    schema, value, expected = work[(i + offset * 7 + round_) % len(work)]
                    # A fresh copy each time: the cache must key on content, not identity.
                    compiled = eng.compile(json.loads(json.dumps(schema)))
                    if compiled.is_valid(value) != expected:
                        wrong.append(f"is_valid disagrees on {json.dumps(value)[:80]}")
                    try:
                        compiled.validate(value)
                        verdict = True
                    except engine.ValidationFailed as exc:
                        verdict = False
                        if not exc.issues:
                            wrong.append("a failure without issues")
                    if verdict != expected:
                        wrong.append(f"validate disagrees on {json.dumps(value)[:80]}")
        except BaseException as exc:  # noqa: BLE001 - every failure in a thread is reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a worker hung"
    assert errors == []
    assert wrong == []
    stats = eng.cache_stats()
    # Each distinct schema compiled exactly once; every other request was a cache hit.
    assert stats.misses == len(distinct)
    assert stats.hits == THREADS * ROUNDS * len(work) - len(distinct)
    assert stats.size == len(distinct)

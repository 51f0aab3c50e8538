"""The compile cache: content-keyed, bounded, thread-safe, never caching a refusal as a success."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine


def test_same_content_any_key_order_hits_the_cache() -> None:
    eng = engine.Engine()
    first = eng.compile({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]})
    second = eng.compile(json.loads('{"required": ["a"], "properties": {"a": {"type": "integer"}}, "type": "object"}'))
    assert second is first
    assert (
        eng.compile(json.dumps({"required": ["a"], "type": "object", "properties": {"a": {"type": "integer"}}}))
        is first
    )
    stats = eng.cache_stats()
    assert (stats.hits, stats.misses, stats.size) == (2, 1, 1)


def test_different_content_or_registry_misses() -> None:
    eng = engine.Engine()
    a = eng.compile({"$ref": "https://example.com/x"}, registry={"https://example.com/x": {"type": "integer"}})
    b = eng.compile({"$ref": "https://example.com/x"}, registry={"https://example.com/x": {"type": "string"}})
    assert a is not b
    assert a.is_valid(1) and b.is_valid("1") and not b.is_valid(1)
    # true and 1 are different JSON values.
    assert eng.compile({"const": True}) is not eng.compile({"const": 1})


def test_options_are_part_of_the_result() -> None:
    schema = {"type": "string", "format": "email"}
    assert engine.Engine(formats="annotate").compile(schema).is_valid("not an email")
    assert not engine.Engine(formats="assert").compile(schema).is_valid("not an email")


def test_rejections_are_not_cached_and_repeat_with_the_same_reason() -> None:
    eng = engine.Engine()
    reasons = []
    for _ in range(3):
        with pytest.raises(engine.SchemaRejected) as info:
            eng.compile({"$ref": "https://evil.example/s.json"})
        reasons.append(info.value.reason)
    assert reasons == ["remote-ref"] * 3
    assert eng.cache_stats().size == 0


def test_bounded_lru() -> None:
    eng = engine.Engine(cache_size=2)
    one = eng.compile({"minimum": 1})
    eng.compile({"minimum": 2})
    eng.compile({"minimum": 3})
    assert eng.cache_stats().size == 2
    assert eng.compile({"minimum": 1}) is not one  # evicted, compiled again


def test_an_evicted_schema_is_not_found_by_its_serialisation_or_text() -> None:
    eng = engine.Engine(cache_size=1)
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    first = eng.compile(schema)
    assert eng.compile(schema) is first
    assert eng.compile(b'{"type": "object", "properties": {"a": {"type": "string"}}}') is first
    eng.compile({"minimum": 2})  # evicts the first
    again = eng.compile(schema)
    assert again is not first
    assert eng.compile({"type": "object", "properties": {"a": {"type": "string"}}}) is again
    stats = eng.cache_stats()
    assert (stats.hits, stats.misses, stats.size) == (3, 3, 1)


def test_cache_disabled() -> None:
    eng = engine.Engine(cache_size=0)
    assert eng.compile({"minimum": 1}) is not eng.compile({"minimum": 1})
    assert (eng.cache_stats().hits, eng.cache_stats().misses, eng.cache_stats().size) == (0, 2, 0)


def test_threads_compile_each_schema_once() -> None:
    eng = engine.Engine()
    schemas = [{"type": "object", "properties": {f"p{i}": {"type": "integer", "minimum": i}}} for i in range(20)]
    results: list[tuple[int, engine.CompiledSchema]] = []
    errors: list[BaseException] = []
    barrier = threading.Barrier(8)

    def work() -> None:
        try:
            barrier.wait()
            for i, schema in enumerate(schemas * 3):
                compiled = eng.compile(dict(schema))
                assert compiled.is_valid({f"p{i % 20}": i % 20})
                assert not compiled.is_valid({f"p{i % 20}": -1})
                results.append((i % 20, compiled))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    by_schema: dict[int, set[int]] = {}
    for i, compiled in results:
        by_schema.setdefault(i, set()).add(id(compiled))
    assert all(len(ids) == 1 for ids in by_schema.values())
    stats = eng.cache_stats()
    assert stats.misses == 20 and stats.hits == 8 * 60 - 20


def test_the_same_object_again_is_a_hit_until_it_changes() -> None:
    # Found by its serialisation: a change anywhere, to any JSON type, is another document.
    eng = engine.Engine()
    schema = {"type": "object", "properties": {"n": {"type": "integer", "enum": [1, 2]}}}
    first = eng.compile(schema)
    assert eng.compile(schema) is first
    # A change anywhere below is seen: the result follows the schema, never a stale compile.
    schema["properties"]["n"]["enum"].append(3)
    changed = eng.compile(schema)
    assert changed is not first and changed.is_valid({"n": 3}) and not first.is_valid({"n": 3})
    schema["properties"]["n"]["enum"][0] = True  # equal to 1 in Python, another JSON value
    assert not eng.compile(schema).is_valid({"n": 1})
    renamed = schema["properties"]
    renamed["m"] = renamed.pop("n")  # the same values under another key
    assert eng.compile(schema).is_valid({"n": "x"})
    swapped = {"type": "object", "properties": {"n": {"type": "integer"}}}
    assert not eng.compile(swapped).is_valid({"n": "x"})
    swapped["properties"] = {"n": {"type": "string"}}  # a new, unseen container
    assert eng.compile(swapped).is_valid({"n": "x"})


def test_the_same_object_changed_and_changed_back_gets_the_compile_of_its_content() -> None:
    # Each state of the object is its own document, found again by its serialisation (a type
    # change, 1 to true, is another document), never by the object's identity alone.
    eng = engine.Engine()
    schema: dict[str, Any] = {"type": "object", "properties": {"n": {"const": 1}}}
    one = eng.compile(schema)
    schema["properties"]["n"]["const"] = True
    true = eng.compile(schema)
    assert true is not one and true.is_valid({"n": True}) and not true.is_valid({"n": 1})
    schema["properties"]["n"]["const"] = 1
    assert eng.compile(schema) is one
    assert eng.compile(schema) is one
    copy = {"type": "object", "properties": {"n": {"const": True}}}
    assert eng.compile(copy) is true and eng.compile(copy) is true
    del schema["properties"]
    assert eng.compile(schema).is_valid({"n": 2})
    stats = eng.cache_stats()
    assert (stats.hits, stats.misses) == (4, 3)


def test_an_equal_object_is_found_by_its_text() -> None:
    eng = engine.Engine()
    first = eng.compile({"type": "array", "items": {"type": "string"}})
    assert eng.compile({"type": "array", "items": {"type": "string"}}) is first
    assert eng.compile(b'{"type": "array", "items": {"type": "string"}}') is first
    assert eng.compile('{"type": "array", "items": {"type": "string"}}') is first
    assert eng.compile(b'{"type": "array", "items": {"type": "string"}}') is first  # the same bytes again
    assert eng.compile({"type": "array", "items": {"type": "integer"}}) is not first
    assert eng.compile({"const": True}) is not eng.compile({"const": 1})
    stats = eng.cache_stats()
    assert (stats.hits, stats.misses) == (4, 4)


def test_a_cached_object_turned_into_a_bomb_is_still_refused() -> None:
    eng = engine.Engine()
    schema: dict = {"type": "object", "properties": {"a": {"type": "integer"}}}
    eng.compile(schema)
    node: dict = {"type": "integer"}
    for _ in range(40):
        node = {"allOf": [node, node]}
    schema["properties"]["a"] = node  # 2^40 subschemas as JSON, shared as Python objects
    with pytest.raises(engine.SchemaRejected) as refused:
        eng.compile(schema)
    assert refused.value.reason == "limit-exceeded"
    shared = {"enum": ["x" * 1000] * 1000}
    bomb = {"anyOf": [shared] * 1000}  # a megabyte string list shared a thousand ways
    with pytest.raises(engine.SchemaRejected) as refused:
        eng.compile(bomb)
    assert refused.value.details["limit"] == "max_schema_bytes"
    leaf = {"type": "string"}
    wide = {"anyOf": [leaf] * 1_000_000}  # one dict shared a million ways
    for _ in range(2):  # and again: a refusal is not remembered
        with pytest.raises(engine.SchemaRejected) as refused:
            eng.compile(wide)
        assert refused.value.details["limit"] == "max_schema_bytes"


def test_a_registry_bypasses_the_text_and_object_lookups() -> None:
    eng = engine.Engine()
    schema = {"$ref": "https://example.com/x"}
    a = eng.compile(schema, registry={"https://example.com/x": {"type": "integer"}})
    b = eng.compile(schema, registry={"https://example.com/x": {"type": "string"}})
    assert a.is_valid(1) and b.is_valid("1") and a is not b


def test_an_equal_copy_serialised_differently_is_found_by_its_text() -> None:
    eng = engine.Engine()
    first = eng.compile({"type": "object", "properties": {"a": {"type": "string"}}})
    inner = {"type": "string"}  # also held here: marshal marks it as shared, so the bytes differ
    copy = {"type": "object", "properties": {"a": inner}}
    assert eng.compile(copy) is first
    assert eng.compile(copy) is first  # its own serialisation is remembered now
    assert eng.cache_stats().hits == 2
    # Python values that are not JSON never reach a lookup table: they are refused as before.
    with pytest.raises(engine.SchemaRejected):
        eng.compile({"enum": [{1, 2}]})
    with pytest.raises(engine.SchemaRejected):
        eng.compile({"enum": [b"bytes"]})


def test_text_with_a_lone_surrogate_is_refused_not_raised() -> None:
    eng = engine.Engine()
    for text in ('"\ud800"', '{"description": "\ud800"}'):
        with pytest.raises(engine.SchemaRejected) as refused:
            eng.compile(text)
        assert refused.value.reason == "invalid-schema"
    with pytest.raises(engine.SchemaRejected):
        eng.compile({"description": "\ud800"})


scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([0.0, 1.0, -0.0]), st.sampled_from(["a", ""])
)
names = st.sampled_from(["a", "b"])
json_values = st.recursive(
    scalars, lambda c: st.lists(c, max_size=3) | st.dictionaries(names, c, max_size=2), max_leaves=8
)
schemas = st.fixed_dictionaries(
    {}, optional={"enum": st.lists(json_values, min_size=1, max_size=3), "const": json_values, "type": st.just("array")}
)


@settings(max_examples=200, deadline=None)
@given(first=schemas, second=schemas)
def test_a_cached_engine_answers_like_a_fresh_one(first: dict[str, Any], second: dict[str, Any]) -> None:
    """Whatever was compiled before, in whatever order, a schema gets the compile of its own
    content: JSON types kept apart (true is not 1, 1.0 is not 1), changes in place seen."""
    cached = engine.Engine()
    probes = [None, True, 1, 1.0, -0.0, "a", [], {}, [1], {"a": None}]

    def answers(eng: engine.Engine, schema: Any) -> Any:
        try:
            compiled = eng.compile(schema)
        except engine.SchemaRejected as refused:
            return refused.reason
        return [compiled.is_valid(p) for p in probes]

    for schema in (first, second, first):
        assert answers(cached, schema) == answers(engine.Engine(cache_size=0), schema)
    first["enum"] = [True]  # changed in place after it was cached
    assert answers(cached, first) == answers(engine.Engine(cache_size=0), first)


def test_the_byte_tables_find_keys_of_one_length_and_forget_the_oldest() -> None:
    """The tables before the fingerprint look a key up by its length first: keys of one length
    (more than it remembers per length), evicted keys, fingerprints the cache no longer holds and
    a cleared table all answer exactly, and each find is one hit counted."""
    from engine._cache import _PER_LENGTH, _Recent, _Tally

    live = {b"fp%d" % value: value for value in range(200)}
    hits = _Tally()
    size = _PER_LENGTH + 8
    table: _Recent[int] = _Recent(size, live, hits)
    keys = [bytes([i]) * 5 for i in range(_PER_LENGTH + 3)]  # all five bytes long
    for value, key in enumerate(keys):
        table.put(key, b"fp%d" % value)
    for value, key in enumerate(keys):
        assert table.find(bytes(bytearray(key))) == value  # an equal, distinct object
    assert hits.read() == len(keys)
    assert table.find(b"\xff" * 5) is None and table.find(b"") is None
    table.put(keys[-2], b"fp50")  # put again: its newest entry is found, once
    assert table.find(keys[-2]) == 50 and table.find(keys[-1]) == len(keys) - 1
    assert hits.read() == len(keys) + 2
    table.put(keys[-2], b"fp%d" % (len(keys) - 2))
    more = size + 12  # past the bound: the oldest go, the keys above and the first 12 of these
    for value in range(more):
        table.put(value.to_bytes(2, "big") * (value + 1), b"fp%d" % (100 + value))
    assert len(table) == size
    assert all(table.find(key) is None for key in keys)
    assert table.find((more - 1).to_bytes(2, "big") * more) == 100 + more - 1
    assert table.find((11).to_bytes(2, "big") * 12) is None
    assert table.find((12).to_bytes(2, "big") * 13) == 112
    del live[b"fp%d" % (100 + more - 1)]  # evicted from the cache: its key finds nothing
    assert table.find((more - 1).to_bytes(2, "big") * more) is None
    assert hits.read() == len(keys) + 4  # the count so far: two more found since
    small: _Recent[int] = _Recent(2, live, _Tally())
    for value, key in enumerate(keys[:3]):  # one length: the first goes from the table, and from
        small.put(key, b"fp%d" % value)  # the keys kept beside its length
    assert small.find(keys[0]) is None and small.find(keys[1]) == 1 and small.find(keys[2]) == 2
    one: _Recent[int] = _Recent(1, live, _Tally())
    one.put(b"a" * 5, b"fp1")
    one.put(b"b" * 6, b"fp2")  # the first dropped: its length holds nothing more
    assert one.find(b"a" * 5) is None and one.find(b"b" * 6) == 2
    assert list(one._by_length) == [6]  # noqa: SLF001


def test_the_byte_tables_hold_keys_of_a_bounded_length_in_all() -> None:
    from engine._cache import _Recent, _Tally

    live = {b"fp%d" % value: value for value in range(10)}
    table: _Recent[int] = _Recent(100, live, _Tally(), max_bytes=25)
    table.put(b"x" * 26, b"fp0")  # longer alone than the table holds: not kept
    assert table.find(b"x" * 26) is None and len(table) == 0
    for value in range(1, 6):
        table.put(bytes([value]) * 10, b"fp%d" % value)  # 10 bytes each: two fit
    assert len(table) == 2
    assert [table.find(bytes([value]) * 10) for value in range(1, 6)] == [None, None, None, 4, 5]
    table.put(bytes([4]) * 10, b"fp4")  # put again: counted once
    table.put(b"z" * 5, b"fp6")
    assert len(table) == 3 and table.find(b"z" * 5) == 6


def test_hits_are_counted_exactly_under_threads() -> None:
    eng = engine.Engine()
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    first = eng.compile(schema)
    text = json.dumps(schema).encode()
    found: list[bool] = []

    def hit() -> None:
        for i in range(500):
            found.append(eng.compile(schema if i % 2 else text) is first)
            if i % 100 == 0:
                eng.cache_stats()  # reading the count between hits changes nothing

    threads = [threading.Thread(target=hit) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(found) and len(found) == 2000
    stats = eng.cache_stats()
    assert (stats.hits, stats.misses) == (2000, 1)
    assert eng.cache_stats().hits == 2000


def test_a_long_schema_is_found_again() -> None:
    eng = engine.Engine()
    schema = {"type": "string", "description": "x" * 70_000}
    first = eng.compile(schema)
    assert eng.compile(schema) is first
    assert eng.compile({"type": "string", "description": "x" * 70_000}) is first
    assert eng.cache_stats().hits == 2


def test_the_same_object_is_found_again_after_its_first_decode() -> None:
    """The msgspec translation made on a schema's first decode keeps objects of the document,
    which changes its serialisation: it is then found by its canonical text, and its new
    serialisation remembered."""
    eng = engine.Engine()
    schema = {"type": "object", "properties": {"q": {"type": "string", "enum": ["a", "b"]}}, "required": ["q"]}
    first = eng.compile(schema)
    assert first.decode(b'{"q": "a"}') == {"q": "a"}
    for _ in range(3):
        assert eng.compile(schema) is first
    reordered = {"required": ["q"], "properties": {"q": {"enum": ["a", "b"], "type": "string"}}, "type": "object"}
    assert eng.compile(reordered) is first
    assert (eng.cache_stats().hits, eng.cache_stats().misses) == (4, 1)


def test_a_text_is_never_looked_up_among_serialisations() -> None:
    from engine._cache import CompileCache

    cache: CompileCache[str] = CompileCache(8)
    cache.get_or_compile(b"key", lambda: "compiled")
    cache.remember(b"key", "compiled", packed=b"same bytes")
    assert cache.find_value(b"same bytes") == "compiled"
    assert cache.find_text(b"same bytes") is None  # the text table is empty: nothing found there
    cache.remember(b"key", "compiled", text=b"{}")
    assert cache.find_text(b"{}") == "compiled" and cache.find_value(b"{}") is None

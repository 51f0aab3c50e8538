"""What an ``unevaluated*`` scope and recursion cost a value (``engine._levels``): a scope
evaluates its in-place subschemas again and rereads each chain below it, so scopes nested in one
another multiply (jsonschema-rs: some 2.4-2.7 times a level; eight levels over 100,000 keys took
12 s), and a recursive schema is counted level by level, its recursion unrolled, instead of every
subschema at every level."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from benchmarks.instances import is_valid_reference
from engine._dialect import Dialect
from engine._levels import reading_rate
from engine._patterns.analysis import reads_linearly
from engine._work import depth_counts
from tests.guard._weighed import refused_at_once

DRAFT = Dialect.DRAFT2020_12


def _nested(levels: int, kind: str = "anyOf") -> dict[str, Any]:
    """``levels`` scopes, each over the one inside and one property of its own."""
    schema: dict[str, Any] = {"patternProperties": {"^k": True}}
    for level in range(levels):
        schema = {kind: [schema, {"properties": {f"q{level}": True}}], "unevaluatedProperties": False}
    return schema


def _chain(length: int, scoped: bool) -> dict[str, Any]:
    """A chain of ``length`` in-place ``anyOf`` s over 50 minimums applied to every member."""
    schema: dict[str, Any] = {"additionalProperties": {"allOf": [{"minimum": i} for i in range(50)]}}
    for level in range(length):
        schema = {"anyOf": [schema, {"properties": {f"q{level}": True}}]}
    return {**schema, "unevaluatedProperties": False} if scoped else schema


def _keys(count: int) -> dict[str, int]:
    return {f"k{i}": 10**6 for i in range(count)}


@pytest.mark.parametrize("kind", ["anyOf", "allOf", "oneOf"])
def test_nested_scopes_multiply(kind: str) -> None:
    per_key = [depth_counts(_nested(levels, kind), DRAFT)[1] for levels in range(1, 8)]  # type: ignore[index]
    assert all(inner * 2.5 <= outer for inner, outer in zip(per_key, per_key[1:], strict=False)), per_key
    # Eight scopes of 17 subschemas in all over 100,000 keys: jsonschema-rs 12 s.
    refused_at_once(engine.Engine(engine.EngineConfig(cache_size=0)).compile(_nested(8, kind)).is_valid, _keys(100_000))


@pytest.mark.parametrize("levels", [1, 2, 3])
def test_a_few_scopes_answer_as_the_reference(levels: int) -> None:
    schema = _nested(levels)
    compiled = engine.Engine(engine.EngineConfig(cache_size=0)).compile(schema)
    for instance in (_keys(50), {**_keys(5), "q0": 1}, {"k": 1, "other": 2}, {"q1": 1}):
        assert compiled.is_valid(instance) is is_valid_reference(schema, instance)


def test_a_chain_under_one_scope_weighs_its_length() -> None:
    # One scope over 30 `anyOf` s: each is evaluated again for every one above it (raw
    # jsonschema-rs, 50 `anyOf` s: 0.38 s for 20,000 keys, 50 times the chain without the scope).
    eng = engine.Engine(engine.EngineConfig(cache_size=0))
    instance = _keys(50_000)
    assert eng.compile(_chain(30, scoped=False)).is_valid(instance)
    refused_at_once(eng.compile(_chain(30, scoped=True)).is_valid, instance)
    unscoped, scoped = depth_counts(_chain(30, False), DRAFT), depth_counts(_chain(30, True), DRAFT)
    assert unscoped is not None and scoped is not None and max(scoped) > 15 * max(unscoped)
    assert eng.compile(_chain(30, scoped=True)).is_valid(_keys(100))


def test_recursion_is_unrolled_level_by_level() -> None:
    tree = {"$defs": {"n": {"type": "object", "properties": {"c": {"items": {"$ref": "#/$defs/n"}}}}}}
    tree["$ref"] = "#/$defs/n"
    assert depth_counts(tree, DRAFT, levels=7) == [2, 1, 2, 1, 2, 1, 2]  # a cycle repeats
    fan = {"allOf": [{"items": {"$ref": "#"}}, {"items": {"$ref": "#"}}]}
    # Each child meets two references, each the whole schema again: twice the level above.
    assert depth_counts(fan, DRAFT, levels=5) == [3, 8, 16, 32, 64]
    # 300 properties and recursion: every subschema at every level would be 302 evaluations a
    # value (400,000 items refused); a value meets three.
    wide = {"properties": {f"p{i}": {"type": "integer"} for i in range(300)}, "items": {"$ref": "#"}}
    compiled = engine.Engine(engine.EngineConfig(cache_size=0)).compile(wide)
    assert compiled.guard is not None and compiled.guard.recursive
    assert compiled.guard.measured["max_ref_expansion"] > 256
    assert depth_counts(wide, DRAFT, levels=3) == [1, 3, 3]  # one property, or the reference and the root
    assert compiled.is_valid([0] * 400_000)


def test_recursion_through_nested_scopes_isrefused_at_once() -> None:
    # Each level of the instance re-evaluates the one below once per scope: four scopes over
    # two levels of 20,000 keys each took jsonschema-rs 1.4 s, six 64 s.
    schema: dict[str, Any] = {"properties": {"c": {"$ref": "#"}}, "patternProperties": {"^k": True}}
    for level in range(4):
        schema = {"anyOf": [schema, {"properties": {f"q{level}": True}}], "unevaluatedProperties": False}
    compiled = engine.Engine(engine.EngineConfig(cache_size=0)).compile(schema)
    assert compiled.guard is not None and compiled.guard.recursive
    refused_at_once(compiled.is_valid, {"c": _keys(20_000), **_keys(20_000)})
    small = {"c": {"k1": 1, "q3": 2}, "q0": 1}
    assert compiled.is_valid(small) is is_valid_reference(schema, small)


def test_references_by_anchor_are_counted() -> None:
    tower = {"allOf": [{"allOf": [{"minimum": i} for i in range(150)]}] * 2}
    by_pointer = {"$defs": {"t": tower}, "items": {"$ref": "#/$defs/t"}}
    by_anchor = {"$defs": {"t": {"$anchor": "t", **tower}}, "items": {"$ref": "#t"}}
    dynamic = {"$defs": {"t": {"$dynamicAnchor": "t", **tower}}, "items": {"$dynamicRef": "#t"}}
    assert depth_counts(by_pointer, DRAFT) == depth_counts(by_anchor, DRAFT) == depth_counts(dynamic, DRAFT)
    assert depth_counts(by_pointer, DRAFT) == [1, 304]
    twice = {"$defs": {"t": {"$anchor": "t"}, "u": {"$anchor": "t"}}, "items": {"$ref": "#t"}}
    assert depth_counts(twice, DRAFT) is None  # which one is not this count's to decide
    elsewhere = {"$defs": {"r": {"$id": "https://example.com/r", "$anchor": "t"}}, "items": {"$ref": "#t"}}
    assert depth_counts(elsewhere, DRAFT) is None  # the anchor is another resource's
    assert depth_counts({"$anchor": "x", "items": {"$ref": "#x"}}, Dialect.DRAFT7) is None
    recursive = {"$recursiveAnchor": True, "items": {"$recursiveRef": "#"}}
    assert depth_counts(recursive, Dialect.DRAFT2019_09, levels=3) == [1, 2, 2]  # the reference, the root
    budget = engine.EngineConfig(cache_size=0, limits={"max_validation_work": 10**7})
    compiled = engine.Engine(budget).compile({"type": "array", **by_anchor})
    refused_at_once(compiled.is_valid, list(range(100_000)))  # 304 evaluations an item
    assert compiled.is_valid([1000] * 1_000)


def test_a_scope_is_looked_at_however_few_its_subschemas() -> None:
    compiled = engine.Engine(engine.EngineConfig(cache_size=0)).compile(_nested(8))
    assert compiled.guard is not None and compiled.guard.measured["max_ref_expansion"] < 256
    assert compiled.is_valid({"k1": 1})
    refused_at_once(compiled.is_valid, _keys(100_000))


def test_a_scope_over_conditions_and_references_is_linear() -> None:
    # A file tree closed by `unevaluatedProperties`, recursing through `then`: marking reads what
    # `then`, `else` and a reference evaluated without evaluating them again (raw: 0.1 ms for 40
    # levels). Only `allOf`, `anyOf`, `oneOf` and `if` are evaluated again.
    node = {
        "type": "object",
        "properties": {"name": {"type": "string"}, "type": {"enum": ["file", "folder"]}},
        "required": ["name", "type"],
        "if": {"properties": {"type": {"const": "folder"}}},
        "then": {"properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}},
        "else": {"properties": {"size": {"type": "integer"}}},
        "unevaluatedProperties": False,
    }
    schema = {"$defs": {"node": node}, "$ref": "#/$defs/node"}
    tree: Any = {"name": "f", "type": "file", "size": 1}
    for level in range(40):
        tree = {"name": f"d{level}", "type": "folder", "children": [tree, {"name": "g", "type": "file"}]}
    compiled = engine.Engine(engine.EngineConfig(cache_size=0)).compile(schema)
    assert compiled.is_valid(tree)
    assert compiled.is_valid({**tree, "extra": 1}) is False
    counts = depth_counts(schema, DRAFT, levels=6)
    assert counts is not None and max(counts) < 30 and counts[2:4] == counts[4:6]  # a cycle, not a growth


def test_a_pattern_is_weighed_by_what_it_may_read() -> None:
    eng = engine.Engine(engine.EngineConfig(cache_size=0))
    # Its automaton may hold 2^990 states: 4-7 us a character in jsonschema-rs (400 KB: 2.4 s).
    thrashing = eng.compile({"type": "string", "pattern": "a[ab]{990}c"})
    assert thrashing.is_valid("ab" * 1_000) is False
    refused_at_once(thrashing.is_valid, "ab" * 200_000)
    refused_at_once(thrashing.decode, b'"' + b"ab" * 200_000 + b'"')
    # One state at a time: 300 strings of 990 characters (300 KB) in about a millisecond.
    linear = eng.compile({"type": "array", "items": {"type": "string", "pattern": "^[A-Za-z0-9+/]{0,990}={0,2}$"}})
    assert linear.is_valid(["A" * 990] * 300)
    assert linear.is_valid(["A" * 991] * 300) is False
    keyed = eng.compile({"type": "object", "patternProperties": {"a[ab]{990}c": True}})
    refused_at_once(keyed.is_valid, {"ab" * 200_000: 1})


def test_a_large_const_weighs_what_it_holds() -> None:
    # A `const` is compared value by value, like an `enum` member: 120 levels of 3,000 items each,
    # compared at every level of a recursive array (raw jsonschema-rs: 2.6 s with 10 of them).
    const: Any = 0
    instance: Any = 1
    for _ in range(120):
        const, instance = [0] * 300 + [const], [0] * 300 + [instance]
    schema = {"$defs": {"c": {"const": const}}, "items": {"$ref": "#"}, "allOf": [{"not": {"$ref": "#/$defs/c"}}] * 10}
    compiled = engine.Engine(engine.EngineConfig(cache_size=0)).compile(schema)
    counts = depth_counts(schema, DRAFT, levels=3)
    assert counts is not None and counts[0] > 10 * 5 * 300 * 120
    refused_at_once(compiled.is_valid, instance)
    assert compiled.is_valid([[1], 2]) is True


def test_multiple_of_weighs_what_a_huge_float_costs() -> None:
    # jsonschema-rs divides 1e305 by an integral operand in 3-4 us: 10 such keywords on 100,000
    # items took 2.8 s.
    primes = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]
    schema = {"type": "array", "items": {"type": "number", "allOf": [{"not": {"multipleOf": p}} for p in primes]}}
    compiled = engine.Engine(engine.EngineConfig(cache_size=0)).compile(schema)
    refused_at_once(compiled.is_valid, [1e305] * 100_000)
    assert compiled.is_valid([1e305] * 10) is is_valid_reference(schema, [1e305] * 10)


def test_a_pattern_that_may_thrash_is_weighed_however_few_evaluations_a_value_meets() -> None:
    # 253 evaluations a character, one subschema: under 256 a value, but a pattern of this kind
    # may thrash the automaton's cache (`[ab]{150}a[ab]{150}c` on 1 MB: jsonschema-rs 1.9 s, and
    # explaining it, validate or decode, read it again).
    pattern = "[ab]{70}a[ab]{70}c"
    compiled = engine.Engine(engine.EngineConfig(cache_size=0)).compile({"type": "string", "pattern": pattern})
    assert reading_rate(pattern) < 256
    text = "ab" * 500_000
    refused_at_once(compiled.is_valid, text)
    refused_at_once(compiled.validate, text)
    refused_at_once(compiled.decode, b'"' + text.encode() + b'"')
    assert compiled.is_valid("ab" * 100) is False
    keys = engine.Engine(engine.EngineConfig(cache_size=0)).compile({"propertyNames": {"pattern": pattern}})
    refused_at_once(keys.validate, {f"{i:04d}" + "ab" * 2_000: 1 for i in range(250)})


def test_unicode_property_classes_are_read_one_state_at_a_time() -> None:
    # Display names against a class of letters and digits: raw jsonschema-rs 0.3 ms for 345 KB.
    # (Counted, `{1,500}`, the class would be written out 500 times: refused as unsafe-pattern.)
    pattern = "^[\\p{L}\\p{N} _.'-]+$"
    assert reads_linearly(pattern) and not reads_linearly("^[^\\p{L}]+$")
    compiled = engine.Engine(engine.EngineConfig(cache_size=0)).compile(
        {"type": "array", "items": {"type": "string", "pattern": pattern}}
    )
    assert compiled.is_valid(["Zoë Ångström 42"] * 20_000)

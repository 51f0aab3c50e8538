"""A schema the guard clears by its text and counts alone (``guard.cleared``) is one the guard's
walk passes, and its report, made when first asked for, is the one the walk makes at compile time.

Checked on every pinned case (corpus, JSON-Schema-Test-Suite, catalog, malformed), under the
default limits and under limits tight enough that the walk refuses many of them, and on
generated schemas under generated limits.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine import _guard as guard
from engine._dialect import Dialect, detect_dialect
from engine._explain import EXPLAIN_FRAMES
from engine._intake import load_schema
from engine.backends._msgspec_decide import DEEPEST
from tests.guard.guard_cases import corpus

CASES = [(name, schema, default) for name, schema, registry, config, default in corpus() if not registry and not config]

TIGHT = [
    {},
    {"max_branches": 2, "max_properties": 3, "max_enum": 2},
    {"max_schema_depth": 4, "max_eval_depth": 3},
    {"max_subschemas": 6, "max_ref_expansion": 5},
    {"max_pattern_length": 0, "max_unevaluated_nesting": 0},
]


def judged(schema: Any, dialect: Dialect, config: engine.EngineConfig) -> tuple[bool, Any]:
    """(whether the guard clears the schema unwalked, the walk's report or refusal)."""
    intake = load_schema(schema, config.limits)
    cleared = intake.canonical is not None and guard.cleared(
        intake.canonical, intake.size.depth, intake.values, intake.widest, dialect, config.limits
    )
    try:
        report: Any = guard.inspect(intake.schema, dialect, {}, config, document=intake.size)
    except engine.SchemaRejected as exc:
        report = exc
    return cleared, report


def test_bounds_it_relies_on() -> None:
    # A cleared schema's report is compared only with bounds its depth cannot reach.
    assert guard.CLEARED_DEPTH <= DEEPEST
    assert guard.CLEARED_DEPTH <= EXPLAIN_FRAMES


@pytest.mark.parametrize("overrides", TIGHT, ids=[",".join(o) or "defaults" for o in TIGHT])
def test_cleared_schemas_pass_the_walk(overrides: dict[str, int]) -> None:
    config = engine.EngineConfig(limits=engine.Limits(**overrides))
    cleared = refused = 0
    for name, schema, default in CASES:
        try:
            dialect = detect_dialect(schema, Dialect(default), {})
            is_cleared, report = judged(schema, dialect, config)
        except engine.SchemaRejected:
            continue  # refused at intake: never reaches the guard
        if isinstance(report, engine.SchemaRejected):
            refused += 1
            assert not is_cleared, (name, report)
            continue
        if is_cleared:
            cleared += 1
            assert not report.recursive and not report.exponential, name
            assert report.max_chain <= guard.CLEARED_DEPTH, name
            assert report.measured["max_pattern_length"] == 0 and report.max_star_height == 0, name
    # 686 cleared and 27 refused under the default limits; 20-27 cleared and 69-354 refused
    # under the tight sets, 686 and 58 with patterns and unevaluated scopes at nothing.
    assert cleared > (600 if not overrides or "max_pattern_length" in overrides else 15)
    assert refused > (20 if not overrides else 50)


def test_the_report_made_later_is_the_walks() -> None:
    eng = engine.Engine(engine.EngineConfig(cache_size=0))
    deferred = 0
    for name, schema, default in CASES:
        if default != "2020-12":
            continue
        try:
            compiled = eng.compile(schema)
        except engine.SchemaRejected:
            continue
        made_later = compiled._deferred_guard is not None  # noqa: SLF001 - what is pinned here
        deferred += made_later
        intake = load_schema(schema, eng.config.limits)
        walked = guard.inspect(intake.schema, compiled.dialect, {}, eng.config, document=intake.size)
        assert compiled.guard == walked, name
    assert deferred > 500


def test_what_is_not_cleared() -> None:
    config = engine.EngineConfig()
    limits = config.limits

    def cleared(schema: Any, dialect: Dialect = Dialect.DRAFT2020_12) -> bool:
        intake = load_schema(schema, limits)
        assert intake.canonical is not None
        return guard.cleared(intake.canonical, intake.size.depth, intake.values, intake.widest, dialect, limits)

    assert cleared({"type": "object", "properties": {"a": {"type": "string", "enum": ["x", "y"]}}})
    assert cleared({"$schema": "https://json-schema.org/draft/2020-12/schema", "$comment": "a $ref", "type": "string"})
    assert not cleared({"$comment": "$ref"})  # a key's spelling anywhere: walked, as before
    for schema in (
        {"properties": {"a": {"$ref": "#"}}},
        {"items": {"$id": "https://x.example/a"}},
        {"anyOf": [{"$anchor": "a"}]},
        {"$dynamicAnchor": "a", "items": True},
        {"items": {"$dynamicRef": "#a"}},
        {"items": {"$recursiveRef": "#"}},
        {"$recursiveAnchor": True},
        {"unevaluatedProperties": False},
        {"properties": {"a": {"pattern": "^a"}}},
        {"patternProperties": {"^a": True}},
        {"properties": {"pattern": {"type": "string"}}},  # a property's name: walked, as before
        {"enum": list(range(limits.max_branches + 1))},  # a container wider than a bound
    ):
        assert not cleared(schema), schema
    assert not cleared({"properties": {"id": {"type": "string"}}}, Dialect.DRAFT4)
    assert cleared({"properties": {"id": {"type": "string"}}}, Dialect.DRAFT2020_12)
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(guard.CLEARED_DEPTH):
        deep = {"items": deep}
    assert not cleared(deep)
    # Only what the intake counted: not a boolean, not a document that was walked instead.
    assert load_schema(True, limits).values == -1
    assert load_schema(msgspec.json.encode({"items": {}}), limits).values == 2 - 1


def test_a_deferred_report_explains_as_the_walks() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}, "required": ["n"]}
    later = engine.Engine(engine.EngineConfig(cache_size=0)).compile(schema)
    assert later._deferred_guard is not None  # noqa: SLF001
    with pytest.raises(engine.ValidationFailed) as failure:
        later.validate({"n": -1})
    assert [issue.instance_path for issue in failure.value.issues] == ["/n"]
    assert later.guard.measured["max_schema_depth"] == 2
    assert later.guard.locations["max_schema_depth"] == "/properties/n"


def test_a_deferred_report_reads_the_snapshot() -> None:
    schema: dict[str, Any] = {"type": "object", "properties": {"a": {"type": "string"}}}
    compiled = engine.Engine(engine.EngineConfig(cache_size=0)).compile(schema)
    schema["properties"]["a"] = {"items": {"items": {"items": {"$ref": "https://x.example/"}}}}
    assert compiled.guard.measured["max_schema_depth"] == 2


leaves = st.one_of(
    st.booleans(),
    st.fixed_dictionaries({"type": st.sampled_from(["string", "integer", "null"])}),
    st.fixed_dictionaries({"enum": st.lists(st.integers(0, 3), max_size=4)}),
    st.fixed_dictionaries({"pattern": st.sampled_from(["^a", "(a+)+$"])}),
    st.fixed_dictionaries({"$ref": st.sampled_from(["#", "#/$defs/x", "https://x.example/s"])}),
    st.just({"unevaluatedProperties": False}),
)
generated = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.fixed_dictionaries({"anyOf": st.lists(inner, min_size=1, max_size=4)}),
        st.fixed_dictionaries({"properties": st.dictionaries(st.sampled_from("abcd"), inner, max_size=4)}),
        st.fixed_dictionaries({"items": inner}),
        st.fixed_dictionaries({"not": inner}),
        st.fixed_dictionaries({"$defs": st.fixed_dictionaries({"x": inner})}),
    ),
    max_leaves=12,
)
limits = st.fixed_dictionaries(
    {},
    optional={
        name: st.integers(0, 6)
        for name in (
            "max_schema_depth",
            "max_subschemas",
            "max_branches",
            "max_properties",
            "max_enum",
            "max_ref_expansion",
            "max_eval_depth",
        )
    },
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(generated.filter(lambda s: isinstance(s, dict)), limits)
def test_generated_cleared_schemas_pass_the_walk(schema: dict[str, Any], overrides: dict[str, int]) -> None:
    config = engine.EngineConfig(limits=engine.Limits(**overrides))
    is_cleared, report = judged(schema, Dialect.DRAFT2020_12, config)
    if is_cleared:
        assert not isinstance(report, engine.SchemaRejected), report
        assert report.max_chain <= guard.CLEARED_DEPTH and not report.recursive


@pytest.mark.parametrize("given", ["bytes", "text", "bytearray"])
@pytest.mark.parametrize("cache_size", [0, 16])
def test_a_deferred_report_of_bytes_or_text_reads_them_again(given: str, cache_size: int) -> None:
    # The parsed document is the one `CompiledSchema.schema` hands out (and, cached, every later
    # compile of the same bytes): what it becomes is not what was compiled.
    data = b'{"type":"object","properties":{"a":{"type":"string"}}}'
    source: Any = {"bytes": data, "text": data.decode(), "bytearray": bytearray(data)}[given]
    compiled = engine.Engine(engine.EngineConfig(cache_size=cache_size)).compile(source)
    assert compiled._deferred_guard is not None  # noqa: SLF001
    if isinstance(source, bytearray):
        source[:] = b" " * len(source)
    compiled.schema["properties"]["a"] = {"items": {"$ref": "https://x.example/"}}
    with pytest.raises(engine.ValidationFailed) as failure:
        compiled.validate({"a": 1})
    assert [issue.instance_path for issue in failure.value.issues] == ["/a"]
    assert compiled.guard.measured["max_subschemas"] == 2

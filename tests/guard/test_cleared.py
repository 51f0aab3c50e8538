"""A schema the guard clears by its text and counts alone (``guard.cleared``) is one the guard's
walk passes, and its report, made when first asked for, is the one the walk makes at compile time.

Checked on every pinned case (corpus, JSON-Schema-Test-Suite, catalog, malformed), under the
default limits and under limits tight enough that the walk refuses many of them, and on
generated schemas under generated limits.
"""

from __future__ import annotations

import functools
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine import _guard as guard
from engine._config_values import MINIMUM
from engine._dialect import Dialect, detect_dialect
from engine._explain import EXPLAIN_FRAMES
from engine._intake import Intake, load_schema
from engine._work import depth_counts
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


def clearance(intake: Intake, dialect: Dialect, limits: engine.Limits) -> int:
    """``guard.cleared`` of a schema through intake, as the engine asks it (0: not cleared)."""
    assert intake.canonical is not None
    counts = (intake.values, intake.widest, intake.containers)
    return guard.cleared(intake.schema, intake.canonical, intake.size.depth, *counts, dialect, limits)


def judged(schema: Any, dialect: Dialect, config: engine.EngineConfig) -> tuple[int, Any]:
    """(the guard's clearance of the schema unwalked, 0 if none; the walk's report or refusal)."""
    intake = load_schema(schema, config.limits)
    cleared = clearance(intake, dialect, config.limits) if intake.canonical is not None else 0
    try:
        report: Any = guard.inspect(intake.schema, dialect, {}, config, document=intake.size)
    except engine.SchemaRejected as exc:
        report = exc
    return cleared, report


def objects(schema: Any, dialect: Dialect) -> int:
    """The subschemas of ``schema`` that are objects, references inlined (what a cleared schema's
    bound holds: ``engine._work`` reads it)."""
    counts = depth_counts(schema, dialect, comparisons=False)
    return 0 if counts is None else sum(counts)


def test_bounds_it_relies_on() -> None:
    # A cleared schema's report is compared only with bounds its depth cannot reach.
    assert guard.CLEARED_DEPTH <= DEEPEST
    assert guard.CLEARED_DEPTH <= EXPLAIN_FRAMES


@pytest.mark.parametrize("overrides", TIGHT, ids=[",".join(o) or "defaults" for o in TIGHT])
def test_cleared_schemas_pass_the_walk(overrides: dict[str, int]) -> None:
    config = engine.EngineConfig(limits=engine.Limits(**overrides))
    cleared = refused = with_references = 0
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
            with_references += '"$ref"' in msgspec.json.encode(schema).decode()
            assert not report.recursive and not report.exponential, name
            assert report.max_chain <= guard.CLEARED_DEPTH, name
            assert report.measured["max_pattern_length"] == 0 and report.max_star_height == 0, name
            # The bound it answers holds its object subschemas (the validation work bound reads it).
            assert is_cleared >= objects(schema, dialect), name
    # 711 cleared (25 with references) and 27 refused under the default limits; 20-27 cleared
    # and 69-354 refused under the tight sets, 711 and 58 with patterns and unevaluated scopes
    # at nothing.
    loose = not overrides or "max_pattern_length" in overrides
    assert cleared > (700 if loose else 15)
    assert with_references >= (25 if loose else 0)
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
        return clearance(load_schema(schema, limits), dialect, limits) > 0

    assert cleared({"type": "object", "properties": {"a": {"type": "string", "enum": ["x", "y"]}}})
    assert cleared({"$schema": "https://json-schema.org/draft/2020-12/schema", "$comment": "a $ref", "type": "string"})
    assert not cleared({"$comment": "$ref"})  # a key's spelling anywhere: walked, as before
    # A key is written `"name":`: names that only begin like a keyword's, and a keyword's name
    # quoted inside a string (escaped there), are no keys.
    assert cleared({"properties": {"patternString": {"type": "string"}, "patterns": {"type": "array"}}})
    assert cleared({"description": 'matches the "pattern": given', "type": "string"})
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
        {"propertyNames": {"pattern": "^a"}},
        {"items": {"pattern": 1}},  # not a pattern the meta-schema allows: still a key
        {"properties": {"pattern": {"type": "string"}}},  # a property's name: walked, as before
        {"enum": list(range(limits.max_branches + 1))},  # a container wider than a bound
        {"items": {"$schema": "https://json-schema.org/draft/2020-12/schema"}},  # a dialect below the root
    ):
        assert not cleared(schema), schema
        # The same behind the root's `$schema` (its first key: the rest of the text is searched).
        assert not cleared({"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}), schema
    draft7 = "http://json-schema.org/draft-07/schema#"
    assert cleared({"$schema": draft7, "type": "object", "properties": {"a": {"type": "string"}}}, Dialect.DRAFT7)
    assert not cleared({"$schema": draft7, "definitions": {"A": {"$ref": "#/definitions/A"}}}, Dialect.DRAFT7)
    assert not cleared({"$schema": "https://x.example/$id", "items": {"$id": "https://x.example/a"}})
    assert not cleared({"properties": {"id": {"type": "string"}}}, Dialect.DRAFT4)
    assert cleared({"properties": {"id": {"type": "string"}}}, Dialect.DRAFT2020_12)
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(guard.CLEARED_DEPTH):
        deep = {"items": deep}
    assert not cleared(deep)
    # Only what the intake counted: not a boolean, not a document that was walked instead.
    assert load_schema(True, limits).values == -1
    assert load_schema(msgspec.json.encode({"items": {}}), limits).values == 2 - 1


def _definitions(**definitions: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": definitions}


def test_references_to_definitions_at_the_root() -> None:
    config = engine.EngineConfig()

    def cleared(schema: Any, dialect: Dialect = Dialect.DRAFT2020_12, config: engine.EngineConfig = config) -> bool:
        is_cleared, report = judged(schema, dialect, config)
        if is_cleared:
            assert not isinstance(report, engine.SchemaRejected), report
        return is_cleared

    leaf = {"type": "string"}
    assert cleared(_definitions(A=leaf))
    assert cleared(_definitions(A={"items": {"$ref": "#/$defs/B"}}, B=leaf, Unused={"$ref": "#/$defs/B"}))
    assert cleared(_definitions(A={"anyOf": [{"$ref": "#/$defs/B"}, {"$ref": "#/$defs/B"}]}, B=True))
    legacy = {"properties": {"a": {"$ref": "#/definitions/A"}}, "definitions": {"A": leaf}}
    assert cleared(legacy, Dialect.DRAFT7)
    assert not cleared(legacy)  # `definitions` in 2020-12 is no keyword: walked
    assert not cleared(_definitions(A=leaf), Dialect.DRAFT7)
    for schema in (
        _definitions(B=leaf),  # no such definition (refused by the walk)
        _definitions(A={"$ref": "#/$defs/A"}),  # a cycle in place (refused)
        _definitions(A={"items": {"$ref": "#/$defs/A"}}),  # recursion through the instance
        _definitions(A={"$ref": "#/$defs/B"}, B={"properties": {"x": {"$ref": "#/$defs/A"}}}),
        _definitions(A={"$ref": "#"}),  # the root
        _definitions(A={"$ref": "#/$defs/B/items"}, B={"items": leaf}),  # into a definition
        {"properties": {"a": {"$ref": "#/$defs/A~1B"}}, "$defs": {"A/B": leaf}},  # a name to unescape
        {"properties": {"a": {"$ref": "#/$defs/A%20B"}}, "$defs": {"A B": leaf}},
        _definitions(A=5),  # not a schema
        {"properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": [leaf]},
        {"properties": {"$ref": {"type": "string"}}},  # a property's name
        _definitions(A={"$ref": "https://x.example/a"}),  # remote (refused)
        _definitions(A={"$anchor": "a"}),
    ):
        assert not cleared(schema), schema

    # The expansion: a chain of definitions each referring twice to the next doubles per step.
    def doubling(steps: int) -> dict[str, Any]:
        definitions: dict[str, Any] = {f"D{i}": {"anyOf": [{"$ref": f"#/$defs/D{i + 1}"}] * 2} for i in range(steps)}
        definitions[f"D{steps}"] = leaf
        return {"properties": {"a": {"$ref": "#/$defs/D0"}}, "$defs": definitions}

    small = engine.EngineConfig(limits=engine.Limits(max_ref_expansion=100))
    assert cleared(doubling(2), config=small)
    assert not cleared(doubling(6), config=small)
    walked = judged(doubling(6), Dialect.DRAFT2020_12, small)[1]
    assert isinstance(walked, engine.SchemaRejected) and walked.details["limit"] == "max_ref_expansion"
    # The chain: each definition passed adds its own depth.
    chained: dict[str, Any] = {f"C{i}": {"not": {"$ref": f"#/$defs/C{i + 1}"}} for i in range(12)}
    chained["C12"] = leaf
    assert not cleared({"$ref": "#/$defs/C0", "$defs": chained})
    # The references of a definition nothing refers to are not read: counted as the root's own.
    assert not cleared({"$ref": "#/$defs/C8", "$defs": chained})
    tail = {name: definition for name, definition in chained.items() if int(name[1:]) >= 8}
    assert cleared({"$ref": "#/$defs/C8", "$defs": tail})
    shallow = engine.EngineConfig(limits=engine.Limits(max_eval_depth=5))
    assert not cleared({"$ref": "#/$defs/C8", "$defs": tail}, config=shallow)


@pytest.mark.parametrize("name", ["a-b", "A.b_1"])
def test_a_schema_with_references_compiles_as_the_walk_has_it(name: str) -> None:
    schema = {
        "type": "object",
        "properties": {"x": {"$ref": f"#/$defs/{name}"}, "y": {"type": "array", "items": {"$ref": "#/$defs/B"}}},
        "required": ["x"],
        "$defs": {name: {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}}, "B": {"type": "integer"}},
    }
    eng = engine.Engine(engine.EngineConfig(cache_size=0))
    compiled = eng.compile(schema)
    assert compiled._deferred_guard is not None  # noqa: SLF001
    with pytest.raises(engine.ValidationFailed) as failure:
        compiled.validate({"x": {"b": "no"}, "y": [1, "no"]})
    assert sorted(issue.instance_path for issue in failure.value.issues) == ["/x/b", "/y/1"]
    assert compiled.decode(b'{"x": {"b": 1}, "y": [2]}') == {"x": {"b": 1}, "y": [2]}
    intake = load_schema(schema, eng.config.limits)
    assert compiled.guard == guard.inspect(intake.schema, compiled.dialect, {}, eng.config, document=intake.size)
    # The root, x, y, y's items, the definition and its b, and B once per reference to it.
    assert compiled.guard.measured["max_ref_expansion"] == 8


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
        name: st.integers(int(MINIMUM.get(name, 0)), 6)  # from each limit's smallest value
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
        assert is_cleared >= objects(schema, Dialect.DRAFT2020_12)


@functools.cache
def referring(later: str, earlier: str | None = None) -> st.SearchStrategy[Any]:
    """Subschemas referring to the definitions named in ``later`` (no cycle), and if ``earlier``
    is given, at places to one of those (a cycle), one never defined, or something else than a
    definition. Made once per pair: a strategy is costly to build."""
    to = st.sampled_from(later).map(lambda name: {"$ref": f"#/$defs/{name}"}) if later else st.just(True)
    leaves = [st.booleans(), st.fixed_dictionaries({"type": st.sampled_from(["string", "integer"])}), to, to]
    if earlier is not None:
        odd = [{"$ref": "#/$defs/E"}, {"$ref": "#"}, {"$ref": "#/$defs/A/items"}, {"const": {"$ref": "#/$defs/E"}}]
        leaves.append(st.sampled_from(odd + [{"$ref": f"#/$defs/{name}"} for name in earlier]))
    return st.recursive(
        st.one_of(*leaves),
        lambda inner: st.one_of(
            st.fixed_dictionaries({"anyOf": st.lists(inner, min_size=1, max_size=3)}),
            st.fixed_dictionaries({"properties": st.dictionaries(st.sampled_from("ab"), inner, max_size=2)}),
            st.fixed_dictionaries({"items": inner}),
            st.fixed_dictionaries({"not": inner}),
        ),
        max_leaves=6,
    )


@st.composite
def with_definitions(draw: st.DrawFn) -> dict[str, Any]:
    """A schema whose properties refer to its definitions, each referring on to later ones only;
    one in four refers at places to an earlier one (a cycle), one never defined, or a place that
    is not a definition."""
    names = "".join(draw(st.lists(st.sampled_from("ABCD"), unique=True, max_size=4)))
    odd = draw(st.sampled_from([True, False, False, False]))
    definitions = {
        name: draw(referring(names[i + 1 :], names[: i + 1] if odd else None)) for i, name in enumerate(names)
    }
    properties = draw(st.dictionaries(st.sampled_from("xyz"), referring(names), min_size=1, max_size=3))
    return {"properties": properties, "$defs": definitions}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    with_definitions(),
    st.sampled_from([Dialect.DRAFT2020_12, Dialect.DRAFT7]),
    st.fixed_dictionaries(
        {},
        optional={
            name: st.integers(int(MINIMUM.get(name, 0)), 40)
            for name in ("max_schema_depth", "max_subschemas", "max_properties", "max_ref_expansion", "max_eval_depth")
        },
    ),
)
def test_generated_references_cleared_pass_the_walk(
    schema: dict[str, Any], dialect: Dialect, overrides: dict[str, int]
) -> None:
    if dialect is Dialect.DRAFT7:  # the same schema, spelled as draft 7 has definitions
        schema = msgspec.json.decode(msgspec.json.encode(schema).replace(b"$defs", b"definitions"))
    config = engine.EngineConfig(limits=engine.Limits(**overrides))
    is_cleared, report = judged(schema, dialect, config)
    if is_cleared:
        assert not isinstance(report, engine.SchemaRejected), report
        assert report.max_chain <= guard.CLEARED_DEPTH and not report.recursive
        assert is_cleared >= objects(schema, dialect)


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


def _wide(width: int) -> dict[str, Any]:
    return {"allOf": [{"minimum": i, "description": "true or false"} for i in range(width)]}


WIDE = {
    "tower": {"items": _wide(250)},
    "properties": {"properties": {f"p{i}": {"type": "boolean", "default": True} for i in range(200)}},
    "referred-often": {"$defs": {"w": _wide(40)}, "items": {"allOf": [{"$ref": "#/$defs/w"}] * 10}},
    "referred-through-another": {
        "$defs": {"w": _wide(30), "v": {"allOf": [{"$ref": "#/$defs/w"}] * 5}, "unused": _wide(200)},
        "allOf": [{"$ref": "#/$defs/v"}, {"$ref": "#/$defs/v"}, {"items": {"$ref": "#/$defs/w"}}],
    },
    "enum-of-objects": {"enum": [{"a": {"b": True}} for _ in range(200)], "items": _wide(10)},
}


@pytest.mark.parametrize("name", list(WIDE))
def test_a_wide_schema_is_cleared_with_a_bound_on_its_expansion(name: str) -> None:
    # Past AMPLIFYING values the bound is the intake's count of arrays and objects, with the
    # objects each referenced definition spells; it holds the object subschemas, whatever the
    # definitions, their references and the data hold.
    config = engine.EngineConfig()
    is_cleared, report = judged(WIDE[name], Dialect.DRAFT2020_12, config)
    assert is_cleared and not isinstance(report, engine.SchemaRejected)
    assert is_cleared >= objects(WIDE[name], Dialect.DRAFT2020_12)
    assert is_cleared <= 2 * report.measured["max_ref_expansion"] + 700  # not the loose count of every value

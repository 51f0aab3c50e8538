"""The guard's whole answer, pinned: every measurement, location and fact of the report (or the
refusal's reason, message, location and details) on every corpus schema, every
JSON-Schema-Test-Suite schema, the small cases of the pathological catalog and schemas the
meta-schema refuses, as recorded in guard_reports.json. A faster walk must give the same answers.

Generated schemas are checked against invariants instead: only ``SchemaRejected`` ever escapes,
and on a plain tree the depth and the subschema count are those of a simple recursive count.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine import _guard as guard
from engine._dialect import Dialect
from tests.guard.guard_cases import FIXTURE, corpus, normalise, outcome

EXPECTED: dict[str, Any] = json.loads(FIXTURE.read_text())
CASES = list(corpus())


def test_fixture_covers_every_case() -> None:
    assert sorted(name for name, *_ in CASES) == sorted(EXPECTED)
    assert len(EXPECTED) > 2000
    kinds = {name.split(":", 1)[0] for name in EXPECTED}
    assert kinds == {"corpus", "suite", "catalog", "malformed"}


@pytest.mark.parametrize(("name", "schema", "registry", "config", "default"), CASES, ids=[c[0] for c in CASES])
def test_report_is_the_recorded_one(
    name: str, schema: Any, registry: dict[str, Any], config: dict[str, Any], default: str
) -> None:
    assert normalise(outcome(schema, registry, config, default)) == EXPECTED[name]


# -- generated schemas --------------------------------------------------------------------------

# Keywords holding one subschema, a list of them, or a map of them (2020-12), and what each holds.
ONE = ("not", "items", "additionalProperties", "contains", "if", "then", "else", "propertyNames")
LIST = ("allOf", "anyOf", "oneOf", "prefixItems")
MAP = ("properties", "patternProperties", "$defs", "dependentSchemas")
NAMES = st.sampled_from(["a", "b", "a/b", "~0", "x~1", "", "0"])
JUNK = st.one_of(st.none(), st.integers(-3, 3), st.text(max_size=3), st.lists(st.integers(), max_size=2))


def trees(leaf: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    def extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        entry = st.one_of(
            st.tuples(st.sampled_from(ONE), children),
            st.tuples(st.sampled_from(LIST), st.lists(children, max_size=3)),
            st.tuples(st.sampled_from(MAP), st.dictionaries(NAMES, children, max_size=3)),
            st.tuples(
                st.sampled_from(["type", "enum", "pattern", "title"]), st.sampled_from(["string", ["a", 1], "^a+$"])
            ),
        )
        return st.lists(entry, max_size=4).map(dict)

    return st.recursive(leaf, extend, max_leaves=25)


PLAIN = trees(st.one_of(st.booleans(), st.just({}), st.just({"type": "integer"})))
REFS = st.sampled_from(
    ["#", "#/$defs/a", "#/properties/a", "#/$defs/nope", "#a", "http://x.example/s", "urn:x", "file:///x"]
)
HOSTILE = trees(
    st.one_of(
        st.booleans(),
        JUNK,
        REFS.map(lambda ref: {"$ref": ref}),
        JUNK.map(lambda junk: {"$ref": junk}),
        st.sampled_from(
            [{"$anchor": "a"}, {"$id": "http://x.example/s"}, {"$dynamicRef": "#a"}, {"$dynamicAnchor": "a"}]
        ),
        st.sampled_from([{"unevaluatedProperties": False}, {"unevaluatedItems": {"$ref": "#"}}, {"$id": 3}]),
        st.sampled_from([{"properties": [1]}, {"items": [1, 2]}, {"allOf": {"a": 1}}, {"pattern": "(?=a)"}]),
    )
)
CONFIG = engine.EngineConfig.load(env={})


def depth_and_count(schema: Any) -> tuple[int, int]:
    """Nesting of subschemas and their number, counted recursively (the generated trees are small)."""
    if not isinstance(schema, dict):
        return 1, 1
    depth, count = 0, 1
    for keyword, value in schema.items():
        if keyword in ONE:
            children = [value]
        elif keyword in LIST:
            children = value
        elif keyword in MAP:
            children = list(value.values())
        else:
            continue
        for child in children:
            d, c = depth_and_count(child)
            depth, count = max(depth, d), count + c
    return depth + 1, count


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PLAIN)
def test_tree_measurements_are_the_recursive_ones(schema: Any) -> None:
    report = guard.inspect(schema, Dialect.DRAFT2020_12, {}, CONFIG)
    depth, count = depth_and_count(schema)
    assert report.measured["max_schema_depth"] == depth
    assert report.measured["max_subschemas"] == count
    assert report.measured["max_ref_expansion"] == count  # nothing to inline
    assert report.max_chain == depth
    assert not report.recursive


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(HOSTILE, st.sampled_from(list(Dialect)))
def test_only_schema_rejected_escapes(schema: Any, dialect: Dialect) -> None:
    try:
        report = guard.inspect(schema, dialect, {}, CONFIG)
    except engine.SchemaRejected:
        return
    assert report.measured["max_subschemas"] >= 1
    assert report.measured["max_ref_expansion"] >= 1 or report.recursive

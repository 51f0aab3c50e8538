"""The guard's tree walk reports exactly what the graph's walk reports, on every schema it takes."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine import _guard as guard
from engine._guard import tree as tree_module
from engine._guard.tree import walk_tree
from tests.corpus import corpus

CONFIG = engine.EngineConfig()
DIALECTS = list(engine.Dialect)


def both_ways(schema: Any, dialect: engine.Dialect, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    """(report or refusal through the tree walk, the same through the graph's walk)."""

    def outcome() -> Any:
        try:
            return guard.inspect(schema, dialect, {}, CONFIG, document=(100, 3))
        except engine.SchemaRejected as exc:
            return (exc.reason, exc.message, exc.location, exc.details)

    fast = outcome()
    with monkeypatch.context() as patched:
        patched.setattr(guard, "walk_tree", lambda *_: None)
        slow = outcome()
    return fast, slow


def test_same_report_on_the_real_schemas(monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmarks.corpus import load_corpus

    taken = 0
    schemas = [s for _, s in load_corpus().schemas()] + [item.schema for item in corpus()]
    for schema in schemas:
        for dialect in (engine.Dialect.DRAFT2020_12, engine.Dialect.DRAFT7, engine.Dialect.DRAFT4):
            taken += walk_tree(schema, dialect) is not None
            fast, slow = both_ways(schema, dialect, monkeypatch)
            assert fast == slow, schema
    assert taken > 1500


def test_references_resources_and_anchors_go_to_the_graph() -> None:
    assert walk_tree({"properties": {"a": {"$ref": "#"}}}, engine.Dialect.DRAFT2020_12) is None
    assert walk_tree({"items": {"$id": "https://x.example/a"}}, engine.Dialect.DRAFT2020_12) is None
    assert walk_tree({"anyOf": [{"$anchor": "a"}]}, engine.Dialect.DRAFT2020_12) is None
    assert walk_tree({"unevaluatedProperties": False}, engine.Dialect.DRAFT2020_12) is None
    plain = walk_tree({"$schema": "x", "properties": {"a/b": {"enum": [1, 2]}}}, engine.Dialect.DRAFT2020_12)
    assert plain is not None and plain.measures["max_enum"] == 2
    assert plain.locations["max_enum"] == "/properties/a~1b"


leaves = st.one_of(
    st.booleans(),
    st.fixed_dictionaries(
        {}, optional={"type": st.sampled_from(["string", "integer"]), "enum": st.lists(st.integers(), max_size=4)}
    ),
    st.fixed_dictionaries({"pattern": st.sampled_from(["^a+$", "(?=a)", "^(a|b)*$", "a{2,}"])}),
)


def nest(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    names = st.sampled_from(["a", "b", "c/d", "e~f"])
    return st.one_of(
        st.builds(lambda c: {"anyOf": c}, st.lists(children, min_size=1, max_size=3)),
        st.builds(lambda c: {"allOf": c, "type": "object"}, st.lists(children, min_size=1, max_size=3)),
        st.builds(lambda c: {"properties": c}, st.dictionaries(names, children, max_size=3)),
        st.builds(
            lambda c: {"patternProperties": c}, st.dictionaries(st.sampled_from(["^x", "(?=y)"]), children, max_size=2)
        ),
        st.builds(lambda c: {"items": c}, children),
        st.builds(lambda c: {"items": c}, st.lists(children, max_size=3)),
        st.builds(lambda c: {"not": c, "$defs": {"k": c}}, children),
        st.builds(lambda c: {"if": c, "then": c, "else": c}, children),
        st.builds(lambda c: {"dependencies": {"a": c, "b": ["a"]}}, children),
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(schema=st.recursive(leaves, nest, max_leaves=25), dialect=st.sampled_from(DIALECTS))
def test_same_report_on_random_trees(schema: Any, dialect: engine.Dialect, monkeypatch: pytest.MonkeyPatch) -> None:
    assert tree_module.walk_tree(schema, dialect) is not None
    fast, slow = both_ways(schema, dialect, monkeypatch)
    assert fast == slow


def test_limits_refuse_at_the_same_place(monkeypatch: pytest.MonkeyPatch) -> None:
    deep: Any = {"type": "string"}
    for _ in range(60):
        deep = {"properties": {"x": deep}}
    wide = {"anyOf": [{"type": "integer"}] * 300}
    for schema in (deep, wide, {"enum": list(range(20_000))}):
        fast, slow = both_ways(schema, engine.Dialect.DRAFT2020_12, monkeypatch)
        assert isinstance(fast, tuple) and fast == slow and fast[0] == "limit-exceeded"


def test_measurements_in_the_reports_order(monkeypatch: pytest.MonkeyPatch) -> None:
    schema = {"properties": {"a": {"enum": [1]}}}
    tree = walk_tree(schema, engine.Dialect.DRAFT2020_12, (10, 3))
    assert tree is not None
    fast, slow = both_ways(schema, engine.Dialect.DRAFT2020_12, monkeypatch)
    assert list(tree.measures) == list(fast.measured) == list(slow.measured)


def _over_each_limit() -> list[tuple[str, int]]:
    report = guard.inspect(SCHEMA, engine.Dialect.DRAFT2020_12, {}, CONFIG, document=(100, 3))
    return [(limit, value - 1) for limit, value in report.measured.items() if value > 0]


SCHEMA = {
    "properties": {
        "a": {"allOf": [{"not": {"type": "string", "pattern": "^ab+$"}}, {"enum": [1, 2, 3]}]},
        "b": True,
        "c": {},
    }
}


@pytest.mark.parametrize(("limit", "bound"), _over_each_limit())
def test_each_limit_over_its_bound_is_named(limit: str, bound: int, monkeypatch: pytest.MonkeyPatch) -> None:
    config = engine.EngineConfig(limits=engine.Limits(**{limit: bound}))
    outcomes = []
    for tree_walk in (True, False):
        with monkeypatch.context() as patched:
            if not tree_walk:
                patched.setattr(guard, "walk_tree", lambda *_: None)
            try:
                guard.inspect(SCHEMA, engine.Dialect.DRAFT2020_12, {}, config, document=(100, 3))
            except engine.SchemaRejected as exc:
                outcomes.append((exc.reason, exc.message, exc.location, exc.details))
            else:
                outcomes.append(None)
    assert outcomes[0] == outcomes[1]
    assert outcomes[0] is not None and outcomes[0][3]["limit"] == limit

"""References into places no walk has reached (inside `const`, `enum`, unknown keywords): each
place is walked once, whatever order the references come in, and no walk grows the graph past
`max_subschemas`.

Before: every `$ref` to a place nested in an earlier reference's place walked its whole subtree
again, and `max_subschemas` was checked only once every reference was resolved. A 624 KB schema
(a 110-deep `not` chain in a `const`, one reference to each level, deepest first) built 6.67
million nodes in 147 s and 2.1 GB before it was refused.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

import engine
from engine import _guard as guard
from engine._dialect import Dialect
from engine._guard.refs import resolve_refs
from engine._guard.walk import DEFAULT_BASE, MAX_URI_LENGTH, Graph

pytestmark = pytest.mark.timeout(60)

CONFIG = engine.EngineConfig.load(env={})


def chain(depth: int, width: int, *, deepest_first: bool = True, keyword: str = "const", leaf: Any = None) -> dict:
    """A `depth`-deep `not` chain under `keyword` (data), a `width`-wide `properties` at its
    bottom, and one reference to each level of it."""
    node: Any = {"properties": {format(j, "x"): {} for j in range(width)}} if leaf is None else leaf
    for _ in range(depth):
        node = {"not": node}
    levels = range(depth, -1, -1) if deepest_first else range(depth + 1)
    held = {keyword: node} if keyword != "enum" else {"enum": [0, node]}
    prefix = f"#/$defs/c/{keyword}" + ("/1" if keyword == "enum" else "")
    return {"$defs": {"c": held}, "allOf": [{"$ref": prefix + "/not" * i} for i in levels]}


def graph_of(schema: Any, limit: int | None = None) -> Graph:
    graph = Graph(limit)
    graph.add_document(schema, DEFAULT_BASE, Dialect.DRAFT2020_12)
    resolve_refs(graph, {}, Dialect.DRAFT2020_12)
    return graph


@pytest.mark.parametrize("keyword", ["const", "enum", "x-data"])
@pytest.mark.parametrize("deepest_first", [True, False])
def test_each_place_in_data_is_walked_once(keyword: str, deepest_first: bool) -> None:
    depth, width = 30, 200
    graph = graph_of(chain(depth, width, deepest_first=deepest_first, keyword=keyword))
    # The root, `$defs/c`, the references, and each place of the chain once (the `not` levels,
    # the `properties` holder and its entries). Deepest first, it was depth x width nodes more.
    assert len(graph.obj) == 2 + (depth + 1) + (depth + 1) + width


def test_a_place_linked_again_is_found_by_a_later_reference() -> None:
    # Deepest level first, then the top, then one in the middle: the middle one is inside the
    # top's walk, where the deepest was linked, not walked.
    schema = chain(6, 3)
    refs = schema["allOf"]
    schema["allOf"] = [refs[0], refs[-1], refs[3]]
    graph = graph_of(schema)
    assert len(graph.obj) == 2 + 3 + 7 + 3


LEAVES = [
    {"unevaluatedProperties": {"unevaluatedItems": False}, "properties": {"a": {"not": {}}}},
    {"allOf": [{"$ref": "#/$defs/c"}, {"unevaluatedItems": {"not": {"not": {}}}}]},
    {"$id": "http://x.example/", "$anchor": "a", "items": {"$ref": "#a"}, "pattern": "^a+$"},
    {"$dynamicAnchor": "d", "anyOf": [{"$dynamicRef": "#d"}, {"type": "string"}]},
]


@pytest.mark.parametrize("leaf", LEAVES)
def test_the_report_does_not_depend_on_the_references_order(leaf: dict) -> None:
    # A place linked instead of walked again is measured as if walked there: its depth and its
    # `unevaluated*` nesting count from where the enclosing walk started. (The reports are those
    # the guard gave before in the shallowest-first order; deepest first, the duplicated nodes
    # counted a recursive reference more than once in the expansion: 62 instead of 50 for the
    # `$anchor` leaf.)
    reports = []
    for order in ("deepest", "shallowest", "shuffled"):
        schema = chain(6, 0, deepest_first=order == "deepest", leaf=leaf)
        if order == "shuffled":
            refs = schema["allOf"]
            schema["allOf"] = refs[3:] + refs[:3]
        try:
            report = guard.inspect(schema, Dialect.DRAFT2020_12, {}, CONFIG)
        except engine.SchemaRejected as exc:  # the dynamic reference's loop
            reports.append((exc.reason, exc.message, exc.details))
        else:
            reports.append((report.measured, report.locations, report.recursive, report.in_place_width))
    assert reports[0] == reports[1] == reports[2]
    if leaf is LEAVES[-1]:
        assert reports[0][0] == "invalid-schema"
        return
    measured, locations, *_ = reports[0]
    assert isinstance(measured, dict) and isinstance(locations, dict)
    assert measured["max_schema_depth"] >= 8  # the chain (7) and below it
    assert locations["max_schema_depth"].startswith("/$defs/c/const" + "/not" * 6 + "/")


def test_the_graph_never_grows_past_the_limit() -> None:
    with pytest.raises(engine.SchemaRejected) as refused:
        graph_of(chain(30, 200), limit=100)
    error = refused.value
    assert error.reason == "limit-exceeded"
    assert error.details == {"limit": "max_subschemas", "measured": 101, "bound": 100}
    assert "is at least 101, over the limit of 100" in error.message


def test_the_reported_schema_is_refused_at_once() -> None:
    # A shrunken /work/redteam/compile/repro_guard_ref_rewalk.py (35 KB): it built 70,000 nodes
    # before the subschema limit was checked, and was refused for them. Each place walked once
    # is 1,976 nodes; what is over a limit is the references' expansion (35 x 1,900 inlined).
    start = time.perf_counter()
    with pytest.raises(engine.SchemaRejected) as refused:
        engine.Engine(cache_size=0).compile(engine_text(chain(36, 1900)))
    assert time.perf_counter() - start < 2
    error = refused.value
    assert error.reason == "limit-exceeded" and error.details["limit"] == "max_ref_expansion"
    assert error.details["measured"] > 36 * 1900


def test_each_place_counts_once_against_the_limit() -> None:
    # 2 + 21 + 21 + 100 places: within a limit of 144 whatever the order (deepest first it
    # counted 2,300 nodes).
    limits = {"max_subschemas": 144, "max_ref_expansion": 100_000}
    eng = engine.Engine(engine.EngineConfig.load(env={}, limits=limits), cache_size=0)
    compiled = eng.compile(engine_text(chain(20, 100)))
    assert compiled.guard is not None and compiled.guard.measured["max_subschemas"] == 144
    limits["max_subschemas"] = 143
    eng = engine.Engine(engine.EngineConfig.load(env={}, limits=limits), cache_size=0)
    with pytest.raises(engine.SchemaRejected) as refused:
        eng.compile(engine_text(chain(20, 100)))
    assert refused.value.details == {"limit": "max_subschemas", "measured": 144, "bound": 143}


def engine_text(schema: Any) -> str:
    import json

    return json.dumps(schema, separators=(",", ":"))


@pytest.mark.parametrize("defs", [False, True])
def test_a_document_over_the_limit_is_refused_by_either_walk_alike(defs: bool) -> None:
    schema: dict[str, Any] = {"allOf": [{}] * 100_000}
    if defs:
        schema["$defs"] = {}  # the graph's walk, not the tree's
    with pytest.raises(engine.SchemaRejected) as refused:
        guard.inspect(schema, Dialect.DRAFT2020_12, {}, CONFIG)
    assert refused.value.details == {"limit": "max_subschemas", "measured": 20_001, "bound": 20_000}
    assert "is at least 20001" in refused.value.message


def test_fragment_references_share_their_base_uri() -> None:
    # Under a long base URI (nested relative `$id`s), each fragment reference was joined to a
    # copy of it: 10,000 references under a 500 KB base took 27 s and gigabytes.
    node: dict[str, Any] = {"$defs": {"r": {"anyOf": [{"$ref": f"#/$defs/r/anyOf/{i}/x"} for i in range(50)]}}}
    for i in range(20):
        node = {"$id": f"x{i}" + "a" * 60 + "/", "not": node}  # a base of 1.3k characters
    graph = Graph()
    graph.add_document({"$defs": {"top": node}}, DEFAULT_BASE, Dialect.DRAFT2020_12)
    located = [graph.locate(base, ref) for _, _, base, ref in graph.refs]
    assert len({id(resource) for resource, _ in located}) == 1
    assert located[3] == (graph.refs[3][2], "/$defs/r/anyOf/3/x")


def test_many_fragment_references_under_a_long_base_are_cheap() -> None:
    node: dict[str, Any] = {"$defs": {"r": {"anyOf": [{"$ref": "#"}] * 3000}}}
    for i in range(60):
        node = {"$id": f"x{i}" + "a" * 25 + "/", "not": node}  # a base of 1.7k characters
    text = engine_text({"$defs": {"top": node}})
    start = time.perf_counter()
    with pytest.raises(engine.SchemaRejected) as refused:
        engine.Engine(cache_size=0).compile(text)
    assert time.perf_counter() - start < 2
    assert refused.value.reason == "limit-exceeded"


def test_an_identifier_resolving_to_a_very_long_uri_is_refused() -> None:
    # Nested `$id`s resolve against each other: a chain of long ones made every resource and
    # reference below them a string as long as most of the document (10 s and 1.7 GB for 35 of
    # 24 KB above 2,000 short ones).
    schema: dict[str, Any] = {"$defs": {f"d{i}": {"$id": f"b{i}"} for i in range(2000)}}
    for i in range(35):
        schema = {"$id": "x" * 24_000 + f"{i}/", "$defs": {"n": schema}}
    with pytest.raises(engine.SchemaRejected) as refused:
        engine.Engine(cache_size=0).compile(schema)
    assert refused.value.reason == "invalid-schema" and refused.value.details["bound"] == MAX_URI_LENGTH
    nested = {"$id": "http://example.com/" + "a/" * (MAX_URI_LENGTH // 2 - 20) + "s.json", "type": "string"}
    assert engine.Engine(cache_size=0).compile(nested).is_valid("x")  # within the bound
    nested["$id"] += "/" + "b" * 100
    with pytest.raises(engine.SchemaRejected):
        engine.Engine(cache_size=0).compile(nested)

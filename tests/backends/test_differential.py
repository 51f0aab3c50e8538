"""Every backend against every schema and recorded result in bench_data/: the same answer, or a
refusal at compile time with a reason."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.backends import BACKENDS, BackendRefused
from tests.conftest import EngineFor
from tests.corpus import BENCH_DATA, CorpusSchema

REFERENCE = "jsonschema-rs"
OTHERS = [name for name in BACKENDS if name != REFERENCE]


def answers(engine_for: EngineFor, backend: str, formats: str, item: CorpusSchema) -> list[bool] | str:
    try:
        cs = engine_for(backend, formats=formats).compile(item.schema)
    except BackendRefused as refusal:
        return f"refused: {refusal.why}"
    except engine.SchemaRejected as rejected:
        return f"rejected: {rejected.reason}"
    assert cs.backend == backend
    return [cs.is_valid(instance) for instance in item.instances]


@pytest.mark.parametrize("formats", ["annotate", "assert"])
def test_backends_agree_on_the_corpus(engine_for: EngineFor, corpus_schemas: list[CorpusSchema], formats: str) -> None:
    disagreements = []
    for item in corpus_schemas:
        reference = answers(engine_for, REFERENCE, formats, item)
        for backend in OTHERS:
            got = answers(engine_for, backend, formats, item)
            if isinstance(got, str) and got.startswith("refused"):
                continue
            if isinstance(reference, str) or isinstance(got, str):
                if got != reference:
                    disagreements.append((item.id, backend, reference, got))
                continue
            for instance, want, have in zip(item.instances, reference, got, strict=True):
                if want is not have:
                    disagreements.append((item.id, backend, instance, want, have))
    assert not disagreements, "\n".join(map(repr, disagreements[:30]))


def recorded_results() -> list[tuple[str, Any, Any]]:
    """(id, outputSchema, structuredContent) of every successful recorded call that has both."""
    records = json.loads((BENCH_DATA / "structured" / "tool-results.json").read_text())
    out = []
    for record in records:
        result = record.get("result") or {}
        if record.get("outputSchema") is not None and "structuredContent" in result and not result.get("isError"):
            out.append((record["id"], record["outputSchema"], result["structuredContent"]))
    return out


def test_recorded_results_conform(engine_for: EngineFor) -> None:
    # The recorded structuredContent of real servers is what each server returned for its own
    # schema: valid under every backend that accepts the schema (so the comparison above is not
    # only comparing "no"s).
    recorded = recorded_results()
    assert len(recorded) >= 20
    for backend in BACKENDS:
        checked = 0
        for record_id, schema, content in recorded:
            try:
                cs = engine_for(backend, formats="annotate").compile(schema)
            except BackendRefused:
                continue
            assert cs.is_valid(content) is True, (record_id, backend)
            checked += 1
        # The general backend and the reference accept every one of these schemas.
        if backend in ("jsonschema-rs", "jsonschema"):
            assert checked == len(recorded), backend


# -- one Python object shared by resources with different base URIs --------------------------------

SHARED_BACKENDS = ("jsonschema-rs", "fastjsonschema", "jsonschema", "msgspec", "auto")


def shared_under_two_bases(dialect: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """``S = {"$ref": "leaf"}`` is one dict placed in two resources. Under ``http://a.example/`` its
    ``leaf`` is ``minimum: 0``, under ``http://b.example/`` it is ``maximum: 3``: property ``b``
    must be checked against the second. Returns (schema, registry)."""
    shared: dict[str, Any] = {"$ref": "leaf"}
    ident = "id" if dialect == "draft4" else "$id"
    defs = "$defs" if dialect in ("2019-09", "2020-12") else "definitions"

    def resource(base: str, leaf: dict[str, Any]) -> dict[str, Any]:
        return {ident: base, defs: {"s": shared, "leaf": {ident: "leaf", **leaf}}}

    schema = {
        defs: {"A": resource("http://a.example/", {"minimum": 0}), "B": resource("http://b.example/", {"maximum": 3})},
        "properties": {"a": {"$ref": f"http://a.example/#/{defs}/s"}, "b": {"$ref": f"http://b.example/#/{defs}/s"}},
    }
    return schema, {}


def shared_in_the_registry(dialect: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The same dict inside two registry resources: ``#/$defs/leaf`` resolves in each."""
    defs = "$defs" if dialect in ("2019-09", "2020-12") else "definitions"
    shared: dict[str, Any] = {"$ref": f"#/{defs}/leaf"}
    registry = {
        "http://a.example/s.json": {defs: {"s": shared, "leaf": {"minimum": 0}}},
        "http://b.example/s.json": {defs: {"s": shared, "leaf": {"maximum": 3}}},
    }
    schema = {
        "properties": {
            "a": {"$ref": f"http://a.example/s.json#/{defs}/s"},
            "b": {"$ref": f"http://b.example/s.json#/{defs}/s"},
        }
    }
    return schema, registry


def shared_target_and_referrer(dialect: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Deeper: the shared dict refers by pointer to a sibling that is itself shared, and the
    resources reach it through an anchor-free chain of two references each."""
    defs = "$defs" if dialect in ("2019-09", "2020-12") else "definitions"
    ident = "id" if dialect == "draft4" else "$id"
    inner: dict[str, Any] = {"$ref": "leaf"}
    outer: dict[str, Any] = {"$ref": f"#/{defs}/inner"}

    def resource(base: str, leaf: dict[str, Any]) -> dict[str, Any]:
        return {ident: base, defs: {"outer": outer, "inner": inner, "leaf": {ident: "leaf", **leaf}}}

    schema = {
        defs: {
            "A": resource("http://a.example/x/", {"minimum": 0}),
            "B": resource("http://b.example/y/", {"maximum": 3}),
        },
        "properties": {
            "a": {"$ref": f"http://a.example/x/#/{defs}/outer"},
            "b": {"$ref": f"http://b.example/y/#/{defs}/outer"},
        },
    }
    return schema, {}


# (instance, valid): `a` must be >= 0 and `b` <= 3, whichever resource is reached first.
SHARED_CASES = [({"a": 1, "b": 5}, False), ({"a": -1, "b": 2}, False), ({"a": 1, "b": 2}, True), ({"a": 9}, True)]


@pytest.mark.parametrize("backend", SHARED_BACKENDS)
@pytest.mark.parametrize("dialect", ["draft4", "draft6", "draft7", "2019-09", "2020-12"])
@pytest.mark.parametrize("build", [shared_under_two_bases, shared_in_the_registry, shared_target_and_referrer])
def test_an_object_shared_under_two_base_uris_means_two_things(backend: str, dialect: str, build: Any) -> None:
    schema, registry = build(dialect)
    eng = engine.Engine(engine.EngineConfig(backend=backend, default_dialect=dialect))  # type: ignore[arg-type]
    try:
        compiled = eng.compile(schema, registry=registry)
    except BackendRefused as refusal:
        assert backend == "msgspec", refusal  # msgspec never leaves the document; the others must answer
        return
    # The same schema as bytes: the content-keyed cache must hand back an equally right validator.
    as_bytes = eng.compile(json.dumps(schema).encode(), registry=registry)
    for instance, valid in SHARED_CASES:
        assert compiled.is_valid(instance) is valid, (compiled.backend, instance)
        assert as_bytes.is_valid(instance) is valid, (as_bytes.backend, instance)
    # Compiled first from bytes (no shared objects at all), then from the shared dict: same answers.
    fresh = engine.Engine(engine.EngineConfig(backend=backend, default_dialect=dialect))  # type: ignore[arg-type]
    fresh.compile(json.dumps(schema).encode(), registry=registry)
    again = fresh.compile(schema, registry=registry)
    assert [again.is_valid(i) for i, _ in SHARED_CASES] == [v for _, v in SHARED_CASES]


leaf_schemas = st.one_of(
    st.builds(lambda n: {"minimum": n}, st.integers(-3, 3)),
    st.builds(lambda n: {"maximum": n}, st.integers(-3, 3)),
    st.builds(lambda t: {"type": t}, st.sampled_from(["integer", "string", "boolean"])),
    st.builds(lambda n: {"maxLength": n}, st.integers(0, 2)),
    st.builds(lambda v: {"const": v}, st.one_of(st.integers(-1, 1), st.sampled_from(["", "a"]))),
    st.builds(lambda v: {"not": {"const": v}}, st.integers(-1, 1)),
)
shared_shapes = st.sampled_from(
    [
        {"$ref": "leaf"},
        {"allOf": [{"$ref": "leaf"}, {"$ref": "other"}]},
        {"anyOf": [{"$ref": "leaf"}, {"$ref": "other"}]},
        {"not": {"$ref": "leaf"}},
        {"properties": {"v": {"$ref": "leaf"}}, "$ref": "other"},
        {"$ref": "#A"},  # a plain-name anchor of each resource
        {"items": {"$ref": "#A"}, "$ref": "leaf"},
    ]
)
instance_values = st.one_of(st.integers(-4, 4), st.sampled_from(["", "a", "ab", True, None]), st.just({"v": 2}))


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(
    shape=shared_shapes,
    leaves=st.lists(st.tuples(leaf_schemas, leaf_schemas), min_size=2, max_size=4),
    instances=st.lists(st.dictionaries(st.sampled_from(["p0", "p1", "p2", "p3"]), instance_values), max_size=6),
    dialect=st.sampled_from(["draft7", "2019-09", "2020-12"]),
)
def test_a_shared_object_agrees_with_its_unshared_copy(
    shape: dict[str, Any], leaves: list[tuple[Any, Any]], instances: list[Any], dialect: str
) -> None:
    """One dict (``shape``, a deep copy of it: the same object everywhere) placed in 2-4 `$id`
    resources, each with its own ``leaf`` and ``other``: every backend, given the shared dict,
    answers as the general backend does on the JSON text (where nothing is shared)."""
    shared = copy.deepcopy(shape)
    defs = "definitions" if dialect == "draft7" else "$defs"
    schema: dict[str, Any] = {defs: {}, "properties": {}}
    for k, (leaf, other) in enumerate(leaves):
        base = f"http://r{k}.example/"
        schema[defs][f"R{k}"] = {
            "$id": base,
            defs: {
                "s": shared,
                "leaf": {"$id": "leaf", **leaf},
                "other": {"$id": "other", **other},
                # The anchor "A" of this resource: `$anchor` from 2019-09, a fragment `$id` before.
                "anchored": {**({"$id": "#A"} if dialect == "draft7" else {"$anchor": "A"}), **other},
            },
        }
        schema["properties"][f"p{k}"] = {"$ref": f"{base}#/{defs}/s"}
    text = json.dumps(schema).encode()
    general = engine.Engine(engine.EngineConfig(backend="jsonschema-rs", default_dialect=dialect, cache_size=0))  # type: ignore[arg-type]
    reference = general.compile(text)
    want = [reference.is_valid(instance) for instance in instances]
    for backend in SHARED_BACKENDS:
        eng = engine.Engine(engine.EngineConfig(backend=backend, default_dialect=dialect, cache_size=0))  # type: ignore[arg-type]
        try:
            compiled = eng.compile(schema)
        except BackendRefused:
            assert backend == "msgspec"
            continue
        assert [compiled.is_valid(instance) for instance in instances] == want, (backend, schema)

"""``max_validation_work`` counts evaluations of jsonschema-rs, and a schema applying at most 256
subschemas to a value is not weighed. The opt-in Python backends take far longer over each: an
``allOf`` of 100 subschemas on each item took fastjsonschema 7 s on 900 KB and python-jsonschema
33 s on 90 KB, where jsonschema-rs answers 900 KB in a second. fastjsonschema's checks weigh each
instance's subschemas at its rate first (``Backend.evaluation_rate``); python-jsonschema counts
the keywords it applies as it runs (``KEYWORD_COST``)."""

from __future__ import annotations

import time
from typing import Any

import msgspec
import pytest

import engine
from engine.backends import SchemaSource, load_backend

ALL_OF = {
    "type": "array",
    "items": {"allOf": [{"type": ["integer", "string"], "maximum": 10**9 + i} for i in range(100)]},
}
ANY_OF = {"type": "array", "items": {"anyOf": [*({"const": 10**6 + i} for i in range(99)), {}]}}


def _engine(backend: str) -> engine.Engine:
    return engine.Engine(backend=backend, cache_size=0)


def _refused(compiled: engine.CompiledSchema, instance: Any, seconds: float) -> str:
    body = msgspec.json.encode(instance)
    messages = []
    for call in (lambda: compiled.decode(body), lambda: compiled.is_valid(instance)):
        started = time.process_time()
        with pytest.raises(engine.DecodeError) as refused:
            call()
        assert time.process_time() - started < seconds
        assert refused.value.reason == engine.DecodeReason.TOO_LARGE
        messages.append(refused.value.message)
    return messages[0]


@pytest.mark.parametrize(
    ("schema", "items", "rate"),
    [
        (ALL_OF, 450_000, 10),  # 900 KB: 7 s
        (ANY_OF, 20_000, 400),  # each item fails 99 branches: 12 s
    ],
)
def test_fastjsonschema_weighs_at_its_rate(schema: Any, items: int, rate: int) -> None:
    instance = [7] * items
    message = _refused(_engine("fastjsonschema").compile(schema), instance, 1.0)  # the check takes 7-12 s
    assert f"each costing this backend what {rate} evaluations" in message
    assert "max_validation_work (100000000)" in message, message
    # jsonschema-rs answers the same instance within the budget, and fastjsonschema a short one.
    assert _engine("jsonschema-rs").compile(schema).is_valid(instance)
    assert _engine("fastjsonschema").compile(schema).is_valid(instance[:50])


@pytest.mark.parametrize(("schema", "items"), [(ALL_OF, 45_000), (ANY_OF, 20_000)])  # 33 s; 25 s
def test_python_jsonschema_counts_what_it_applies(schema: Any, items: int) -> None:
    instance = [7] * items
    # It stops after some 100,000 keywords: about a second, two on a busy machine.
    message = _refused(_engine("jsonschema").compile(schema), instance, 4.0)
    assert "python-jsonschema was not done after 100000 keywords or 1 s of CPU time" in message
    assert "max_validation_work (100000000)" in message, message
    assert _engine("jsonschema").compile(schema).is_valid(instance[:50])


@pytest.mark.parametrize(("backend", "items"), [("fastjsonschema", 3_000), ("jsonschema", 1_000)])
def test_a_raised_budget_lets_the_python_backends_check(backend: str, items: int) -> None:
    instance = [7] * items
    with pytest.raises(engine.DecodeError):
        _engine(backend).compile(ANY_OF).is_valid(instance)
    limits = engine.Limits(max_validation_work=10**12)
    assert engine.Engine(backend=backend, cache_size=0, limits=limits).compile(ANY_OF).is_valid(instance)


def _rate(backend: str, schema: Any) -> int:
    source = SchemaSource(
        schema=schema, dialect=engine.Dialect.DRAFT2020_12, resources={}, config=engine.EngineConfig()
    )
    return load_backend(backend)().evaluation_rate(source)


@pytest.mark.parametrize(
    ("backend", "plain", "branching"),
    [("jsonschema-rs", 1, 1), ("msgspec", 1, 1), ("fastjsonschema", 10, 400), ("jsonschema", 1, 1)],
)
def test_rates(backend: str, plain: int, branching: int) -> None:
    assert _rate(backend, {"type": "object", "properties": {"a": {"minLength": 1}}}) == plain
    for keyword in ("anyOf", "oneOf", "not", "if", "contains", "enum"):
        assert _rate(backend, {"items": {keyword: [{}]}}) == branching


def test_python_jsonschema_past_the_budget_is_explained_by_jsonschema_rs() -> None:
    failing = {"type": "array", "items": {"anyOf": [*({"const": 10**6 + i} for i in range(99)), {"type": "string"}]}}

    def issues(budget: int) -> list[str]:
        config = engine.EngineConfig(limits=engine.Limits(max_validation_work=budget))
        source = SchemaSource(schema=failing, dialect=engine.Dialect.DRAFT2020_12, resources={}, config=config)
        return [issue.message for issue in load_backend("jsonschema")().compile(source).iter_issues([7] * 10)]

    assert issues(100_000_000) == ["7 is not valid under any of the given schemas"] * 10  # python-jsonschema's words
    assert issues(50_000) == ["7 is not valid under any of the schemas listed in the 'anyOf' keyword"] * 10


def _properties(count: int, subschema: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {f"p{i:05d}": subschema for i in range(count)}}


def test_fastjsonschema_declines_a_schema_of_many_objects() -> None:
    # 1,700 properties of two bounds each took it 2.6 s to build; jsonschema-rs, 0.04 s.
    started = time.process_time()
    with pytest.raises(engine.SchemaRejected) as refused:
        _engine("fastjsonschema").compile(_properties(1_700, {"minimum": 1, "maximum": 9}))
    assert time.process_time() - started < 0.5
    assert refused.value.reason == engine.RejectReason.UNSUPPORTED_BY_BACKEND
    assert "objects, over 512" in refused.value.message
    assert _engine("auto").compile(_properties(1_700, {"minimum": 1, "maximum": 9})).is_valid({"p00000": 3})
    assert _engine("fastjsonschema").compile(_properties(100, {"minimum": 1})).is_valid({"p00000": 3})


@pytest.mark.parametrize(
    ("schema", "instance"),
    [
        # Every name is tested on every object, an empty one too (2,000 names on 300,000: 16 s).
        ({"type": "array", "items": _properties(500, {"type": "integer"})}, [{}] * 300_000),
        # A key that is no property is looked up in the list of names (2,000 names, 990 KB: 2.9 s).
        ({**_properties(500, {}), "additionalProperties": {"type": "integer"}}, {f"k{i}": 1 for i in range(110_000)}),
    ],
)
def test_fastjsonschema_weighs_the_names_of_properties(schema: Any, instance: Any) -> None:
    message = _refused(_engine("fastjsonschema").compile(schema), instance, 1.0)  # the check takes 3-16 s
    assert "each costing this backend what 10 evaluations" in message
    assert _engine("fastjsonschema").compile(schema).is_valid(instance[:10] if isinstance(instance, list) else {"k": 1})


def test_python_jsonschema_stops_on_its_clock() -> None:
    # A `const` of 5,000 nested values applied 2,000 times through references: 2,000 keywords,
    # each comparing in Python (0.8 us a value): 15 s, where jsonschema-rs took 0.12 s.
    nested = [[[] for _ in range(5_000)]]
    schema = {
        "$defs": {"c": {"const": nested}, "d": {"allOf": [{"$ref": "#/$defs/c"}] * 50}},
        "allOf": [{"$ref": "#/$defs/d"}] * 40,
    }
    message = _refused(_engine("jsonschema").compile(schema), nested, 3.0)
    assert "or 1 s of CPU time" in message
    assert _engine("jsonschema").compile({**schema, "allOf": [{"$ref": "#/$defs/d"}]}).is_valid(nested)

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
    message = _refused(_engine("fastjsonschema").compile(schema), instance, 0.5)
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
    assert "python-jsonschema applied 100000 keywords" in message
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

"""The complexity budget and regex safety: each limit measured, named, configurable."""

from __future__ import annotations

import pytest

import engine
from engine._patterns import backtracking_construct, star_height

# Hostile schemas: each test ends in well under a second; a hang fails it by name.
pytestmark = pytest.mark.timeout(60)


def eng(**config: object) -> engine.Engine:
    return engine.Engine(engine.EngineConfig.load(env={}, **config))


SCHEMAS = {
    "max_schema_depth": ({"properties": {"a": {"properties": {"b": {"properties": {"c": {"type": "string"}}}}}}}, 4),
    "max_subschemas": ({"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}, 4),
    "max_branches": ({"oneOf": [{"const": 1}, {"const": 2}, {"const": 3}]}, 3),
    "max_properties": ({"properties": {"a": {}, "b": {}, "c": {}}}, 3),
    "max_enum": ({"enum": ["a", "b", "c", "d"]}, 4),
    "max_ref_expansion": ({"$defs": {"s": {"type": "string"}}, "anyOf": [{"$ref": "#/$defs/s"}] * 3}, 7),
    "max_eval_depth": ({"allOf": [{"anyOf": [{"not": {"type": "null"}}]}]}, 4),
    "max_unevaluated_nesting": ({"allOf": [{"unevaluatedProperties": False}], "unevaluatedProperties": False}, 2),
    "max_pattern_length": ({"patternProperties": {"^x-[a-z]+$": {}}}, 10),
    "max_document_depth": ({"const": [[[[1]]]]}, 5),
}


@pytest.mark.parametrize("limit", sorted(SCHEMAS))
def test_each_limit_is_measured_and_enforced_at_its_bound(limit: str) -> None:
    schema, measured = SCHEMAS[limit]
    compiled = eng(limits={limit: measured}).compile(schema)
    assert compiled.guard is not None and compiled.guard.measured[limit] == measured
    with pytest.raises(engine.SchemaRejected) as refused:
        eng(limits={limit: measured - 1}).compile(schema)
    error = refused.value
    assert error.reason == "limit-exceeded"
    assert error.details == {"limit": limit, "measured": measured, "bound": measured - 1}
    assert limit in error.message and str(measured) in error.message
    assert error.location is not None


def test_schema_bytes_for_text_and_objects() -> None:
    text = '{"description": "' + "x" * 5000 + '"}'
    with pytest.raises(engine.SchemaRejected) as refused:
        eng(limits={"max_schema_bytes": 4000}).compile(text)
    assert refused.value.details["limit"] == "max_schema_bytes"
    with pytest.raises(engine.SchemaRejected) as refused:
        eng(limits={"max_schema_bytes": 4000}).compile({"description": "x" * 5000})
    assert refused.value.details["limit"] == "max_schema_bytes"


def test_shared_python_objects_cannot_hide_an_exponential_document() -> None:
    node: dict = {"type": "integer"}
    for _ in range(64):  # 2^64 subschemas as JSON, a few kilobytes as Python objects
        node = {"allOf": [node, node]}
    with pytest.raises(engine.SchemaRejected) as refused:
        eng().compile(node)
    assert refused.value.reason == "limit-exceeded"
    assert refused.value.details["limit"] in ("max_schema_bytes", "max_document_depth")


def test_self_containing_object_is_refused() -> None:
    loop: dict = {"type": "object"}
    loop["properties"] = {"me": loop}
    with pytest.raises(engine.SchemaRejected) as refused:
        eng().compile(loop)
    assert refused.value.reason == "limit-exceeded"


def test_limits_load_from_the_environment() -> None:
    config = engine.EngineConfig.load(env={"ENGINE_LIMITS_MAX_ENUM": "2"})
    with pytest.raises(engine.SchemaRejected) as refused:
        engine.Engine(config).compile({"enum": [1, 2, 3]})
    assert refused.value.details["limit"] == "max_enum"


def test_named_backreference_is_detected() -> None:
    assert (backtracking_construct("^(?<q>['\"]).*\\k<q>$") or "").startswith("named backreference")


@pytest.mark.parametrize(
    ("pattern", "construct"),
    [
        ("^(?=.*[A-Z]).{8,}$", "lookahead"),
        ("^(?!admin)", "negative lookahead"),
        ("(?<=@)example", "lookbehind"),
        ("(?<!x)y", "negative lookbehind"),
        ("^(a)\\1$", "backreference"),
    ],
)
def test_patterns_needing_backtracking(pattern: str, construct: str) -> None:
    found = backtracking_construct(pattern)
    assert found is not None and found.startswith(construct)
    with pytest.raises(engine.SchemaRejected) as refused:
        eng().compile({"type": "string", "pattern": pattern})
    assert refused.value.reason == "unsafe-pattern"
    assert refused.value.location == "/pattern"
    with pytest.raises(engine.SchemaRejected) as refused:
        eng().compile({"patternProperties": {pattern: {}}})
    assert refused.value.reason == "unsafe-pattern"
    # Allowed, bounded, when the configuration opts in.
    eng(regex="backtracking").compile({"type": "string", "pattern": pattern})


@pytest.mark.parametrize("pattern", ["^\\d+$", "[(?=]", "\\(?=x", "^\\\\1$", "^(a+)+$", "\\x41(?:b|c)"])
def test_linear_patterns_pass(pattern: str) -> None:
    assert backtracking_construct(pattern) is None
    eng().compile({"type": "string", "pattern": pattern})


def test_linear_engine_defuses_nested_quantifiers() -> None:
    compiled = eng().compile({"type": "string", "pattern": "^(a+)+$"})
    assert not compiled.is_valid("a" * 100_000 + "!")
    assert compiled.guard is not None and compiled.guard.max_star_height == 2
    assert star_height("^(a|b)*c$") == 1 and star_height("((a*)*)*") == 3 and star_height("abc") == 0


def test_shared_objects_inside_tuples_count_too() -> None:
    node: object = {"type": "integer"}
    for _ in range(64):
        node = {"anyOf": (node, node)}
    with pytest.raises(engine.SchemaRejected) as refused:
        eng().compile({"enum": (node,)})
    assert refused.value.reason == "limit-exceeded"


def test_unevaluated_nesting_through_references() -> None:
    levels = 11
    defs = {
        f"a{i}": {
            "anyOf": [{"$ref": f"#/$defs/a{i + 1}"}, {"properties": {f"q{i}": True}}],
            "unevaluatedProperties": False,
        }
        for i in range(levels)
    }
    defs[f"a{levels}"] = {"properties": {"p": True}, "unevaluatedProperties": False}
    with pytest.raises(engine.SchemaRejected) as refused:
        eng().compile({"$defs": defs, "$ref": "#/$defs/a0"})
    assert refused.value.details["limit"] == "max_unevaluated_nesting"
    assert refused.value.details["measured"] == levels + 1

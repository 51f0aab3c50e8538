"""Differential test: the msgspec path against jsonschema-rs, on generated schemas and instances,
and on every schema and recorded result in bench_data/.

The typed path may refuse what is valid (the pipeline re-checks), but whatever it accepts must be
valid, and ``decode`` must return exactly the parsed document. The pipeline's answers must equal
jsonschema-rs's on every instance.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema_rs
import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine._decode import nesting
from tests.backends.msgspec_helpers import msgspec_validator
from tests.compiled.test_sealed import sealed_depth

DATA = Path(__file__).parents[2] / "bench_data"
ENG = engine.Engine(engine.EngineConfig(backend="msgspec", cache_size=0))
AUTO = engine.Engine(engine.EngineConfig(backend="auto", cache_size=0))

NAMES = st.sampled_from(["a", "b", "c d", "", "é", "class", "0"])
NUMBERS = st.one_of(
    st.integers(-5, 5), st.sampled_from([0.5, -1.5, 2.0, 1e300, -0.0, 2**63, -(2**63) - 1, 2**64, 3.0000001])
)
# Where ECMA-262 and Python `re` differ: Unicode digits and letters, `$` before a final newline,
# `.` and line terminators.
STRINGS = st.sampled_from(["", "a", "ab", "abc", "\u00e9\u00e9", "😀", "a\n", "\u0663", "1\r", "x_1", "A B"])
PATTERNS = st.sampled_from(["^a", "b$", "^\\d+$", "\\w", "^[a-z]*$", "^.$", "^\\s", "\\bx", "^a|b$", "(a+)+$"])
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, STRINGS)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(NAMES, inner, max_size=3)),
    max_leaves=8,
)


def _constraints(kind: str) -> st.SearchStrategy[dict[str, Any]]:
    bound = st.one_of(st.integers(-3, 3), st.sampled_from([0.5, -1.5, 2.0]))
    if kind in ("integer", "number"):
        return st.fixed_dictionaries(
            {},
            optional={
                "minimum": bound,
                "maximum": bound,
                "exclusiveMinimum": bound,
                "exclusiveMaximum": bound,
                "multipleOf": st.sampled_from([1, 2, 3]),
            },
        )
    if kind == "string":
        return st.fixed_dictionaries(
            {}, optional={"minLength": st.integers(0, 3), "maxLength": st.integers(0, 3), "pattern": PATTERNS}
        )
    return st.just({})


@st.composite
def scalar_schema(draw: st.DrawFn) -> dict[str, Any]:
    kinds = draw(
        st.lists(
            st.sampled_from(["null", "boolean", "integer", "number", "string"]), min_size=1, max_size=3, unique=True
        )
    )
    schema: dict[str, Any] = {"type": kinds[0] if len(kinds) == 1 else kinds}
    for kind in kinds:
        schema.update(draw(_constraints(kind)))
    if draw(st.booleans()) and draw(st.booleans()):
        schema = {"enum": draw(st.lists(SCALARS, min_size=1, max_size=4))} | (
            {"type": kinds} if draw(st.booleans()) else {}
        )
    return schema


SCHEMAS = st.recursive(
    st.one_of(scalar_schema(), st.just({}), st.just(True)),
    lambda inner: st.one_of(
        st.builds(
            lambda items, extra: {"type": "array", "items": items, **extra},
            inner,
            st.fixed_dictionaries({}, optional={"minItems": st.integers(0, 2), "maxItems": st.integers(0, 3)}),
        ),
        st.builds(
            lambda props, req, closed: {
                "type": "object",
                "properties": props,
                "required": [n for n in props if n in req],
                "additionalProperties": closed,
            },
            st.dictionaries(NAMES, inner, max_size=3),
            st.sets(NAMES),
            st.booleans(),
        ),
        st.builds(lambda values: {"type": "object", "additionalProperties": values}, inner),
        st.builds(lambda branches: {"anyOf": branches}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda branches: {"oneOf": branches}, st.lists(inner, min_size=1, max_size=3)),
    ),
    max_leaves=6,
)


def _near(schema: Any, draw: st.DrawFn) -> Any:
    """An instance built from the schema's own shape, so that valid instances are common."""
    if not isinstance(schema, dict):
        return draw(JSON)
    if "enum" in schema:
        return draw(st.sampled_from(schema["enum"] + [draw(JSON)]))
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = draw(st.sampled_from(kind))
    if kind == "object" and "properties" in schema:
        value = {name: _near(sub, draw) for name, sub in schema["properties"].items() if draw(st.integers(0, 4))}
        if draw(st.integers(0, 5)) == 0:
            value[draw(NAMES)] = draw(JSON)
        return value
    if kind == "object":
        return {
            name: _near(schema.get("additionalProperties", True), draw) for name in draw(st.sets(NAMES, max_size=2))
        }
    if kind == "array":
        return [_near(schema.get("items", True), draw) for _ in range(draw(st.integers(0, 3)))]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return _near(draw(st.sampled_from(schema[key])), draw)
    return draw(JSON)


@st.composite
def schema_and_instances(draw: st.DrawFn) -> tuple[Any, list[Any]]:
    schema = draw(SCHEMAS)
    instances = [_near(schema, draw) for _ in range(4)] + draw(st.lists(JSON, max_size=3))
    return schema, instances


def same_json(a: Any, b: Any) -> bool:
    """Equal as JSON documents, types included (``1`` is not ``1.0`` nor ``True``); object key
    order aside (a typed decode gives properties in the schema's order)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b) or (a != a and b != b)


def check_agreement(schema: Any, instances: list[Any], eng: engine.Engine = ENG) -> bool:
    """Compare on every instance; return whether the msgspec backend took the schema."""
    try:
        compiled = eng.compile(schema)
    except engine.SchemaRejected as refusal:
        assert refusal.reason in ("unsupported-by-backend", "invalid-schema"), refusal
        return False
    reference = jsonschema_rs.validator_for(schema, validate_formats=False)
    typed = msgspec_validator(eng, compiled) if compiled.backend == "msgspec" else None
    # A sealed schema reads long documents trusting that whatever is valid nests within its type.
    sealed = sealed_depth(compiled)
    for instance in instances:
        expected = reference.is_valid(instance)
        assert compiled.is_valid(instance) is expected, (schema, instance)
        data = json.dumps(instance).encode()
        # Short, past the short-document read, and past 4 KB (colons found one at a time). A
        # document whose strings hold colons (or with a member the types skip) sends the next ones
        # of the schema to the general read (see `engine._readers`), so later instances may be read
        # that way.
        for document in (data, data + b" " * 600, data + b" " * 5000):
            if expected:
                assert same_json(compiled.decode(document), instance)
            else:
                with pytest.raises(engine.ValidationFailed):
                    compiled.decode(document)
        if expected and sealed is not None:
            assert nesting(instance, 1000) <= sealed, (schema, instance)
        if typed is None:
            continue
        if typed.is_valid(instance):
            assert expected, ("msgspec.convert accepted an invalid instance", schema, instance)
        try:
            value = typed.decode(data)
        except (msgspec.ValidationError, msgspec.DecodeError):
            continue
        assert expected, ("typed decode accepted an invalid instance", schema, instance)
        assert same_json(value, instance), (schema, instance, value)
    return typed is not None


@settings(
    max_examples=400,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(schema_and_instances())
def test_generated(case: tuple[Any, list[Any]]) -> None:
    schema, instances = case
    check_agreement(schema, instances)


def _corpus_schemas() -> list[tuple[str, Any]]:
    schemas = []
    for path in sorted((DATA / "tools").glob("*.json")):
        for tool in json.loads(path.read_text()):
            for key in ("inputSchema", "outputSchema"):
                if isinstance(tool.get(key), (dict, bool)):
                    schemas.append((f"{path.stem}/{tool['name']}/{key}", tool[key]))
    return schemas


def test_corpus_schemas_and_results() -> None:
    taken = 0
    for _, schema in _corpus_schemas():
        samples = [{}, {"a": 1}, [], None, "x", 1]
        taken += check_agreement(schema, samples, AUTO)
    results = json.loads((DATA / "structured" / "tool-results.json").read_text())
    for entry in results:
        if entry["outputSchema"] is not None and "structuredContent" in entry["result"]:
            value = entry["result"]["structuredContent"]
            mutated = [value, {"unexpected": True}, [value], None]
            if isinstance(value, dict):
                mutated += [{**value, k: None} for k in value] + [
                    {k: v for k, v in value.items() if k != first} for first in list(value)[:1]
                ]
            taken += check_agreement(entry["outputSchema"], mutated, AUTO)
    assert taken > 50


def _corpus_patterns() -> list[str]:
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("pattern"), str) and node.get("type") == "string":
                found.add(node["pattern"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for _, schema in _corpus_schemas():
        walk(schema)
    return sorted(found)


def test_patterns() -> None:
    """ECMA-262 patterns through the typed path (where they translate exactly) against jsonschema-rs."""
    patterns = _corpus_patterns() + [
        "^a",
        "b$",
        "^\\d+$",
        "\\w",
        "^[a-z]*$",
        "^.$",
        "^\\s",
        "\\bx",
        "^a|b$",
        "(a+)+$",
        "^\\S+@\\S+$",
    ]
    strings = [
        "",
        "a",
        "ab",
        "a\n",
        "\u0663",
        "1\r",
        "x_1",
        "A B",
        "a@b",
        "my-ns",
        "a.b=c",
        "é",
        "😀",
        "12",
        "-",
        "v1.2.3",
    ]
    taken = sum(check_agreement({"type": "string", "pattern": p}, strings) for p in patterns)
    try:
        import engine._patterns  # noqa: F401
    except ImportError:
        assert taken == 0  # without the ECMA check every pattern is refused
    else:
        assert taken > len(patterns) // 2

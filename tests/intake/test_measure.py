"""The schema intake's measure: exact size and depth of a plain object, bombs refused while bounded,
anything else handed to the general path; and the same decisions as the per-value walk it replaced."""

from __future__ import annotations

import enum
import json
import math
import uuid
from collections.abc import Iterator, Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from benchmarks.corpus import load_corpus
from engine._config import Limits
from engine._intake import load_schema, measure_plain
from tests._json_depth import json_depth

pytestmark = pytest.mark.timeout(120)

SUITE = Path(__file__).resolve().parents[1] / "json-schema-test-suite" / "tests"


def limits(**bounds: int) -> Limits:
    return engine.EngineConfig.load(env={}, limits=bounds).limits


def refusal(schema: Any, bounds: Limits) -> engine.SchemaRejected:
    with pytest.raises(engine.SchemaRejected) as refused:
        load_schema(schema, bounds)
    return refused.value


def text_of(document: Any) -> bytes:
    return msgspec.json.encode(document, order="sorted")


def nested(levels: int) -> dict[str, Any]:
    """An object nesting ``levels`` deep (the root counts one)."""
    value: Any = 1
    for _ in range(levels - 1):
        value = [value]
    return {"const": value} if levels > 1 else {}


# --- bombs -------------------------------------------------------------------------------------


def _list_bomb(levels: int) -> dict[str, Any]:
    node: Any = ["x"]
    for _ in range(levels):
        node = [node, node]
    return {"const": node}


def _dict_bomb(levels: int) -> dict[str, Any]:
    node: Any = {"type": "integer"}
    for _ in range(levels):
        node = {"allOf": [node, node], "not": node}
    return node


def _bombs() -> Iterator[tuple[str, Any]]:
    yield "list shared 40 deep", _list_bomb(40)
    yield "dict shared 40 deep", _dict_bomb(40)
    yield "dict shared a million ways", {"anyOf": [{"type": "string"}] * 1_000_000}
    yield "list shared wide", {"const": [["y" * 100] * 100] * 5000}
    yield "long string shared", {"enum": ["s" * 100_000] * 1000}
    yield "long key shared", {"anyOf": [{"k" * 100_000: 1}] * 1000}
    yield "long int shared", {"enum": [10**4000] * 250_000}
    big: dict[str, Any] = {f"p{i}": {"type": "string"} for i in range(200)}
    yield "large dict shared", {"anyOf": [{"properties": big}] * 2000}


@pytest.mark.parametrize(("name", "bomb"), list(_bombs()))
def test_a_bomb_is_refused_on_size_before_it_is_written(name: str, bomb: Any) -> None:
    error = refusal(bomb, limits())
    assert error.reason == "limit-exceeded"
    assert error.details is not None and error.details["limit"] == "max_schema_bytes"
    assert error.details["measured"] > error.details["bound"] == 1_000_000
    with pytest.raises(engine.SchemaRejected):
        engine.Engine(cache_size=0).compile(bomb)


def test_a_bomb_under_a_small_limit_is_refused_too() -> None:
    bounds = limits(max_schema_bytes=100)
    for _, bomb in _bombs():
        assert refusal(bomb, bounds).details == {
            "limit": "max_schema_bytes",
            "measured": refusal(bomb, bounds).details["measured"],
            "bound": 100,
        }


def test_a_cycle_is_refused_on_depth() -> None:
    loop: dict[str, Any] = {"type": "object"}
    loop["properties"] = {"me": loop}
    error = refusal(loop, limits())
    assert error.details is not None and error.details["limit"] == "max_document_depth"


# --- depth and size at and over their limits ---------------------------------------------------


@pytest.mark.parametrize("pad", [0, 3000, 100_000])  # short, past the first buffer, past the last
@pytest.mark.parametrize("levels", [1, 2, 5, 128])
def test_depth_at_and_over_the_limit(levels: int, pad: int) -> None:
    schema = nested(levels) | ({"description": "d" * pad} if pad else {})
    size, depth = load_schema(schema, limits(max_document_depth=levels)).size
    assert (size, depth) == (len(text_of(schema)), levels)
    error = refusal(schema, limits(max_document_depth=levels - 1)) if levels > 1 else None
    if error is not None:
        assert error.details == {"limit": "max_document_depth", "measured": levels, "bound": levels - 1}
        assert "max_document_depth" in error.message


@pytest.mark.parametrize("length", [10, 1500, 3000, 70_000, 300_000])
def test_size_at_and_over_the_limit_is_the_exact_text(length: int) -> None:
    schema = {"description": "é" * (length // 2), "enum": [1.5, None, True, 'a\n"b'], "x": {"y": [[]]}}
    exact = len(text_of(schema))
    intake = load_schema(schema, limits(max_schema_bytes=exact))
    assert intake.size.bytes == exact and intake.plain and intake.canonical == text_of(schema)
    error = refusal(schema, limits(max_schema_bytes=exact - 1))
    assert error.reason == "limit-exceeded"
    assert error.details == {"limit": "max_schema_bytes", "measured": exact, "bound": exact - 1}
    assert f"{exact} bytes" in error.message and "max_schema_bytes" in error.message


def test_text_keeps_its_own_length() -> None:
    text = '{ "type" : "string" }'
    intake = load_schema(text, limits())
    assert intake.size == (len(text), 1) and intake.plain


def test_a_depth_refusal_comes_first_in_a_long_deep_document() -> None:
    schema = nested(200) | {"description": "d" * 200_000}
    assert refusal(schema, limits()).details["limit"] == "max_document_depth"


# --- documents that are not plain ----------------------------------------------------------------


class Text(str):
    pass


class Number(enum.IntEnum):
    ONE = 1


class Frozen(Mapping[str, Any]):
    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


# Python values no JSON document holds: refused at intake, whatever the cache holds.
NOT_JSON = {
    "set": {"enum": {1}},
    "frozenset": {"const": {"a": frozenset({"x"})}},
    "bytes": {"const": b"x"},
    "int key": {"properties": {1: {}}},
    "mapping": {"properties": Frozen({"a": {}})},
    "root mapping": Frozen({"type": "string"}),
    "decimal": {"const": Decimal("1.5")},  # a native encoder writes it as the string "1.5"
    "uuid": {"default": uuid.UUID(int=1)},
    "complex": {"const": [1 + 2j]},
    "str subclass value": {"type": Text("string")},
    "nan": {"const": math.nan},  # written as null
    "infinity": {"maximum": math.inf},
    "infinity in a tuple": {"enum": (1, -math.inf)},
    "nan deep": {"properties": {"a": {"default": [[{"x": math.nan}]]}}},
}

# Subclasses of JSON's types, and tuples: read as a native encoder reads them (a plain copy).
NOT_PLAIN = {
    "tuple": {"enum": (1, 2)},
    "str subclass key": {Text("type"): "string"},
    "int subclass": {"minimum": Number.ONE},
    "dict subclass": {"properties": type("D", (dict,), {})(a={})},
    "deep tuple": {"a": [[[("x",)]]]},
}


@pytest.mark.parametrize("name", sorted(NOT_JSON))
def test_a_value_no_json_document_holds_is_refused(name: str) -> None:
    for cache_size in (0, 16):
        eng = engine.Engine(cache_size=cache_size)
        eng.compile({"type": "string"})
        with pytest.raises(engine.SchemaRejected) as refused:
            eng.compile(NOT_JSON[name])
        assert refused.value.reason == "invalid-schema"
        assert "not a JSON document" in refused.value.message


def test_a_non_finite_number_in_a_long_plain_document_is_refused() -> None:
    schema = {"description": "d" * 100_000, "properties": {"a": {"default": [1.5, math.inf]}}}
    with pytest.raises(engine.SchemaRejected) as refused:
        load_schema(schema, limits())
    assert refused.value.reason == "invalid-schema" and "inf" in refused.value.message


def test_a_null_is_not_a_nan() -> None:
    intake = load_schema({"const": None, "enum": [None, 1.5, -0.0], "default": {"a": None}}, limits())
    assert intake.plain


@pytest.mark.parametrize("name", sorted(NOT_PLAIN))
def test_a_document_that_is_not_plain_is_read_as_its_plain_copy(name: str) -> None:
    schema = NOT_PLAIN[name]
    assert measure_plain(schema, limits()) is None
    intake = load_schema(schema, limits())
    copy = msgspec.json.decode(msgspec.json.encode(schema))
    assert not intake.plain and intake.schema == copy and json_depth(intake.schema) == intake.size.depth
    assert intake.canonical == text_of(copy) and intake.size.bytes == len(intake.canonical)


def test_a_long_document_that_is_not_plain_is_read_as_its_plain_copy() -> None:
    schema = {"description": "d" * 100_000, "enum": (1, 2)}
    intake = load_schema(schema, limits())
    assert not intake.plain and intake.schema == {"description": "d" * 100_000, "enum": [1, 2]}


class _HidingList(list):  # type: ignore[type-arg]
    """A list whose own methods hide its items: a native encoder reads them all."""

    def __len__(self) -> int:
        return 0

    def __iter__(self) -> Iterator[Any]:
        return iter(())


class _HidingDict(dict):  # type: ignore[type-arg]
    """A dict whose own methods hide its entries: a native encoder reads them all."""

    def values(self) -> Any:
        return []

    def items(self) -> Any:
        return []

    def __len__(self) -> int:
        return 0


def _bomb() -> Any:
    bomb: Any = ["x" * 64]
    for _ in range(40):
        bomb = [bomb, bomb]
    return bomb


@pytest.mark.parametrize("wrap", [_HidingList, lambda bomb: _HidingDict(a=bomb)], ids=["list", "dict"])
def test_a_subclass_is_weighed_by_what_it_holds(wrap: Any) -> None:
    with pytest.raises(engine.SchemaRejected) as refused:
        load_schema({"default": wrap([_bomb()])}, limits())
    assert refused.value.reason == "limit-exceeded"


def test_a_subclass_is_read_as_what_it_holds() -> None:
    # What the guard and the backends read is what its contents say, not what its methods say.
    schema = {"properties": _HidingDict(a={"type": "integer"})}
    assert load_schema(schema, limits()).schema == {"properties": {"a": {"type": "integer"}}}
    assert not engine.Engine(cache_size=0).compile(schema).is_valid({"a": "x"})


def test_a_registry_resource_is_measured_before_it_is_written() -> None:
    eng = engine.Engine(cache_size=0)
    with pytest.raises(engine.SchemaRejected) as refused:
        eng.compile({"$ref": "urn:x"}, registry={"urn:x": {"default": _bomb()}})
    assert refused.value.reason == "limit-exceeded" and "urn:x" in refused.value.message
    with pytest.raises(engine.SchemaRejected) as refused:
        eng.compile({"$ref": "urn:x"}, registry={"urn:x": {"const": Decimal(1)}})
    assert refused.value.reason == "invalid-schema"
    assert eng.compile({"$ref": "urn:x"}, registry={"urn:x": (b'{"type": "integer"}')}).is_valid(1)


def test_the_cache_never_serves_a_document_the_intake_refuses() -> None:
    # Equal texts, different values: a Decimal is written as a string.
    eng = engine.Engine()
    with pytest.raises(engine.SchemaRejected):
        eng.compile({"const": Decimal("1.5")})
    compiled = eng.compile({"const": "1.5"})
    assert compiled.is_valid("1.5") and not compiled.is_valid(1.5)
    assert eng.compile(b'{"const": "1.5"}').is_valid("1.5")


# --- the same decisions as the per-value walk it replaced -------------------------------------------


def old_measure_plain(document: Any, bounds: Limits) -> str | tuple[int, int] | None:
    """The per-value walk this measure replaced (engine/_intake.py before), as the reference: the
    limit it refuses on, the estimated size and depth, or ``None`` (not plain)."""
    max_bytes, max_depth = bounds.max_schema_bytes, bounds.max_document_depth
    size = depth = 0
    level = [document]
    while level:
        depth += 1
        if depth > max_depth:
            return "max_document_depth"
        below: list[Any] = []
        for value in level:
            if type(value) is dict:
                try:
                    size += 2 + 4 * len(value) + sum(map(len, value))
                except TypeError:
                    return None
                children: Any = value.values()
            else:
                size += 2 + len(value)
                children = value
            for child in children:
                kind = type(child)
                if kind is str:
                    size += len(child) + 2
                elif kind is dict or kind is list:
                    below.append(child)
                elif kind is not int and kind is not float and kind is not bool and child is not None:
                    return None
        if size > max_bytes:
            return "max_schema_bytes"
        level = below
    return size, depth


def decision(schema: Any, bounds: Limits) -> str | None:
    try:
        load_schema(schema, bounds)
    except engine.SchemaRejected as exc:
        assert exc.reason == "limit-exceeded"
        assert exc.details is not None
        return str(exc.details["limit"])
    return None


def same_decision(schema: dict[str, Any], bounds: Limits) -> None:
    """The new decision is what the exact text and depth say, and the old walk's wherever its size
    estimate falls on the same side of the limit as the exact text."""
    old = old_measure_plain(schema, bounds)
    assert old is not None  # every document here is plain
    new = decision(schema, bounds)
    deep = json_depth(schema) > bounds.max_document_depth
    large = len(text_of(schema)) > bounds.max_schema_bytes
    assert (new is None) == (not deep and not large)
    if deep != large:
        assert new == ("max_document_depth" if deep else "max_schema_bytes")
    if old == "max_document_depth":
        assert new == "max_document_depth" or large
    elif old == "max_schema_bytes":
        assert new is not None or not large
    else:
        assert new is None or (new == "max_schema_bytes" and large)


def _suite_schemas() -> list[Any]:
    schemas = []
    for path in sorted(SUITE.rglob("*.json")):
        for group in json.loads(path.read_text()):
            if type(group.get("schema")) is dict:
                schemas.append(group["schema"])
    return schemas


def _corpus_schemas() -> list[Any]:
    return [schema for _, schema in load_corpus().schemas() if type(schema) is dict]


@pytest.mark.parametrize("source", ["corpus", "suite"])
def test_same_decisions_as_the_old_walk(source: str) -> None:
    schemas = _corpus_schemas() if source == "corpus" else _suite_schemas()
    assert len(schemas) > 100
    for schema in schemas:
        exact, depth = len(text_of(schema)), json_depth(schema)
        intake = load_schema(schema, limits())
        assert intake.plain and intake.size == (exact, depth)
        assert intake.canonical == text_of(schema)
        old = old_measure_plain(schema, limits())
        assert old is not None and old[1] == depth
        for bounds in (
            limits(max_schema_bytes=exact, max_document_depth=depth),
            limits(max_schema_bytes=exact - 1) if exact > 2 else limits(),  # 2 bytes (`{}`) is the smallest bound
            limits(max_document_depth=depth - 1) if depth > 1 else limits(),
            limits(max_schema_bytes=max(exact // 3, 2), max_document_depth=max(depth - 1, 1)),
        ):
            same_decision(schema, bounds)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=5), inner, max_size=5),
    max_leaves=40,
)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(st.text(max_size=8), json_values, max_size=6),
    st.integers(min_value=2, max_value=3000),
    st.integers(min_value=1, max_value=12),
)
def test_same_decisions_on_generated_documents(document: dict[str, Any], max_bytes: int, max_depth: int) -> None:
    bounds = limits(max_schema_bytes=max_bytes, max_document_depth=max_depth)
    same_decision(document, bounds)
    if decision(document, bounds) is None:
        intake = load_schema(document, bounds)
        assert intake.size == (len(text_of(document)), json_depth(document)) and intake.plain


@settings(max_examples=100, deadline=None)
@given(json_values, st.integers(min_value=1, max_value=40))
def test_shared_generated_values_count_once_per_place(value: Any, copies: int) -> None:
    schema = {"anyOf": [{"const": value}] * copies}
    exact = len(text_of(schema))
    assert decision(schema, limits(max_schema_bytes=exact)) in (None, "max_document_depth")
    assert decision(schema, limits(max_schema_bytes=exact - 1)) == "max_schema_bytes"


def test_a_schema_int_of_more_digits_than_python_writes_is_refused_in_the_engines_words() -> None:
    for schema in ({"maximum": 10**5000}, {"enum": [1, -(10**5000)]}):
        with pytest.raises(engine.SchemaRejected) as refused:
            engine.compile(schema)
        assert refused.value.reason == "invalid-schema"
        assert "more digits than this interpreter writes as text" in refused.value.message
        assert "set_int_max_str_digits" not in refused.value.message
    assert engine.compile({"maximum": 10**400}).is_valid(5)  # past a float's range, within the text bound

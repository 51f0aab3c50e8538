"""The msgspec backend on the known traps, one by one."""

from __future__ import annotations

import math
from typing import Any

import msgspec
import pytest

import engine
from engine.backends import load_backend

MSGSPEC = engine.Engine(engine.EngineConfig(backend="msgspec"))
AUTO = engine.Engine(engine.EngineConfig(backend="auto"))


def typed(schema: Any, eng: engine.Engine = MSGSPEC) -> engine.CompiledSchema:
    compiled = eng.compile(schema)
    assert compiled.backend == "msgspec"
    return compiled


def refused(schema: Any, fragment: str, eng: engine.Engine = MSGSPEC) -> engine.SchemaRejected:
    with pytest.raises(engine.SchemaRejected) as refusal:
        eng.compile(schema)
    assert refusal.value.reason == "unsupported-by-backend"
    assert fragment in refusal.value.message, refusal.value.message
    return refusal.value


def test_integer_written_as_float_is_an_integer() -> None:
    cs = typed({"type": "array", "items": {"type": "integer", "minimum": 1}})
    assert cs.decode(b"[1, 2.0]") == [1, 2.0]
    assert cs.is_valid([1.0])
    with pytest.raises(engine.ValidationFailed):
        cs.decode(b"[1.5]")


def test_integers_beyond_64_bits() -> None:
    cs = typed({"type": "integer", "maximum": 10})
    assert not cs.is_valid(2**70)
    with pytest.raises(engine.ValidationFailed):
        cs.decode(str(2**70))
    assert typed({"type": "integer"}).decode(str(2**70)) == 2**70
    refused({"type": "integer", "maximum": 2**70}, "64 bits")


def test_number_bounds_exact() -> None:
    cs = typed({"type": "number", "exclusiveMinimum": 0.5, "maximum": 3})
    assert [cs.is_valid(v) for v in (0.5, 0.5000001, 1, 3, 3.0, 3.0000001)] == [False, True, True, True, True, False]
    cs = typed({"type": "integer", "minimum": 1.5, "exclusiveMaximum": 4})
    assert [cs.is_valid(v) for v in (1, 2, 3, 4)] == [False, True, True, False]
    draft4 = typed(
        {"$schema": "http://json-schema.org/draft-04/schema#", "type": "number", "minimum": 1, "exclusiveMinimum": True}
    )
    assert not draft4.is_valid(1) and draft4.is_valid(1.5)
    # NaN and infinities are not JSON numbers.
    checker = load_backend("msgspec")().compile(_source({"type": "number"}))
    assert not checker.is_valid(math.nan) and not checker.is_valid(math.inf)


def _source(schema: Any) -> Any:
    from engine._dialect import Dialect
    from engine.backends import SchemaSource

    return SchemaSource(schema=schema, dialect=Dialect.DRAFT2020_12, resources={}, config=MSGSPEC.config)


def test_duplicate_keys_judged_like_the_general_path() -> None:
    cs = typed({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False})
    # The last occurrence wins when parsed; msgspec refuses the first, the general path decides.
    assert cs.decode(b'{"a": 1, "a": "x"}') == {"a": "x"}
    with pytest.raises(engine.ValidationFailed):
        cs.decode(b'{"a": "x", "a": 1}')


def test_required_null_and_absent() -> None:
    cs = typed(
        {
            "type": "object",
            "properties": {"a": {"type": ["string", "null"]}, "b": {"type": "string"}},
            "required": ["a"],
            "additionalProperties": False,
        }
    )
    assert cs.decode(b'{"a": null}') == {"a": None}
    with pytest.raises(engine.ValidationFailed):
        cs.decode(b"{}")
    with pytest.raises(engine.ValidationFailed):
        cs.decode(b'{"a": null, "b": null}')  # optional is not nullable
    with pytest.raises(engine.ValidationFailed):
        cs.decode(b'{"a": "x", "c": 1}')


def test_open_objects_translate_optimistically() -> None:
    """An object without `additionalProperties: false` becomes a Struct that refuses unnamed
    properties: such a payload is judged again by the general backend, and nothing is lost."""
    schema = {"type": "object", "properties": {"a": {"type": "string"}, "n": {"type": "integer"}}}
    cs = typed(schema, AUTO)
    assert cs.decode(b'{"n": 1, "a": "x"}') == {"a": "x", "n": 1}
    assert list(cs.decode(b'{"n": 1, "a": "x"}')) == ["n", "a"]  # the document's key order
    assert cs.decode(b'{"a": "x", "b": [1]}') == {"a": "x", "b": [1]}  # the extra property is kept
    assert cs.decode(b'{"a": "x", "n": 2.0, "b": {"c": null}}') == {"a": "x", "n": 2.0, "b": {"c": None}}
    with pytest.raises(engine.ValidationFailed):
        cs.decode(b'{"a": 1, "b": [1]}')  # invalid with an extra property: explained by the general path
    with pytest.raises(engine.ValidationFailed):
        cs.decode(b'{"a": 1}')
    # The typed value keeps the named properties only; validity is exact all the same.
    value = cs.decode_typed(b'{"a": "x", "b": [1]}')
    assert (value.f0, value.f1) == ("x", msgspec.UNSET)
    with pytest.raises(engine.ValidationFailed):
        cs.decode_typed(b'{"a": "x", "n": "1", "b": [1]}')
    # Maps are closed: every value is kept and checked.
    cs = typed({"type": "object", "additionalProperties": {"type": "integer"}, "maxProperties": 2})
    assert cs.decode(b'{"x": 1, "y": 2}') == {"x": 1, "y": 2}
    assert not cs.is_valid({"x": 1, "y": 2, "z": 3}) and not cs.is_valid({"x": "1"})


def test_formats() -> None:
    cs = typed({"type": "string", "format": "email"})
    assert cs.decode(b'"not an email"') == "not an email"  # an annotation by default
    asserting = engine.Engine(engine.EngineConfig(backend="msgspec", formats="assert"))
    refused({"type": "string", "format": "email"}, "asserted", asserting)


def test_property_names_that_admit_every_string_constrain_nothing() -> None:
    # zod 4 writes `z.record(z.string(), V)` as an object whose `propertyNames` is `{"type": "string"}`.
    record = {"type": "object", "propertyNames": {"type": "string"}, "additionalProperties": {"type": "integer"}}
    for names in ({"type": "string"}, {"type": ["string", "null"], "description": "a key"}, True, {}):
        cs = typed({**record, "propertyNames": names})
        assert cs.decode(b'{"a": 1, "b": 2}') == {"a": 1, "b": 2}
        assert not cs.is_valid({"a": "1"}) and not cs.is_valid([])
    assert typed({"propertyNames": {"type": "string"}}).is_valid(5)  # it applies to objects only
    assert typed({"propertyNames": {"type": "string", "format": "uri"}}).is_valid({"not a uri": 1})
    asserting = engine.Engine(engine.EngineConfig(backend="msgspec", formats="assert"))
    refused({"propertyNames": {"type": "string", "format": "uri"}}, "propertyNames", asserting)
    for names in ({"type": "string", "maxLength": 2}, {"type": "integer"}, {"pattern": "^a"}, False, {"$ref": "#"}):
        refused({"type": "object", "propertyNames": names}, "propertyNames")


def test_ecma_differences_are_refused_or_exact() -> None:
    try:
        import engine._patterns  # noqa: F401
    except ImportError:
        refused({"type": "string", "pattern": "^\\d+$"}, "ECMA-262")
        return
    cs = typed({"type": "string", "pattern": "^\\d+$"})
    assert cs.decode(b'"123"') == "123"
    for bad in (b'"\\u0663"', b'"12\\n"'):  # Arabic-Indic digit; `$` before a final newline
        with pytest.raises(engine.ValidationFailed):
            cs.decode(bad)


def test_unions() -> None:
    cs = typed(
        {
            "anyOf": [
                {"type": "string", "maxLength": 2},
                {"type": "null"},
                {"type": "array", "items": {"type": "boolean"}},
            ]
        }
    )
    assert cs.decode(b'"ab"') == "ab" and cs.decode(b"null") is None and cs.decode(b"[true]") == [True]
    assert not cs.is_valid("abc") and not cs.is_valid(1)
    refused({"anyOf": [{"type": "integer"}, {"type": "number"}]}, "overlap")
    refused({"oneOf": [{"const": "a"}, {"const": "a"}]}, "same value")
    cs = typed({"anyOf": [{"const": "a"}, {"enum": ["b", 1, True, None]}]})
    assert [cs.is_valid(v) for v in ("a", "b", 1, True, None, "c", 0, False)] == [True] * 5 + [False] * 3


def test_refs() -> None:
    cs = typed({"$defs": {"n": {"type": "integer"}}, "type": "array", "items": {"$ref": "#/$defs/n"}})
    assert cs.decode(b"[1]") == [1] and not cs.is_valid(["1"])
    refused({"$defs": {"n": {"type": "array", "items": {"$ref": "#/$defs/n"}}}, "$ref": "#/$defs/n"}, "recursive")
    draft7 = typed(
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "definitions": {"n": {"type": "integer"}},
            "items": {"$ref": "#/definitions/n", "type": "string"},
            "type": "array",
        }
    )
    assert draft7.is_valid([1]) and not draft7.is_valid(["a"])  # siblings of $ref are ignored in draft 7
    refused(
        {"$defs": {"n": {"type": "integer"}}, "items": {"$ref": "#/$defs/n", "minimum": 1}, "type": "array"},
        "both apply",
    )


@pytest.mark.parametrize(
    ("schema", "fragment"),
    [
        ({"allOf": [{"type": "string"}]}, "allOf"),
        ({"type": "array", "uniqueItems": True}, "uniqueItems"),
        ({"type": "object", "patternProperties": {"a": {}}}, "patternProperties"),
        ({"type": "number", "multipleOf": 0.5}, "multipleOf"),
        ({"enum": [1.5]}, "Literal"),
        ({"enum": [[1]]}, "Literal"),
        ({"type": "object", "properties": {'a"b': {}}, "additionalProperties": False}, "msgspec field name"),
        (False, "admits nothing"),
    ],
)
def test_refusals_name_the_reason(schema: Any, fragment: str) -> None:
    refused(schema, fragment)


def _wide(width: int, **more: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {f"p{i}": {"type": "integer"} for i in range(width)}, **more}


def test_objects_wider_than_msgspec_searches_cheaply_are_refused() -> None:
    # msgspec finds a key among a type's fields by comparing it with each in turn: a document
    # listing many fields out of order would cost their square.
    typed(_wide(32))
    typed(_wide(32, required=["p0", "p1"]))  # a name listed twice counts once
    assert refused(_wide(33), "naming 33 properties (more than 32)").location == "/properties"
    assert refused(_wide(31, required=["x", "y"]), "naming 33 properties").location == "/properties"
    assert refused({"type": "object", "required": [f"r{i}" for i in range(40)]}, "naming 40").location == "/required"
    nested = refused({"type": "array", "items": _wide(33)}, "more than 32")
    assert nested.location == "/items/properties"


def test_a_wide_object_is_judged_exactly_by_the_general_backend() -> None:
    schema = _wide(300, required=["p0"])
    compiled = AUTO.compile(schema)
    assert compiled.backend == "jsonschema-rs"
    assert "more than 32" in compiled.notes["msgspec"]
    names = [f"p{i}" for i in reversed(range(300))]
    document = msgspec.json.encode({name: 1 for name in names})
    value = compiled.decode(document)
    assert list(value) == names
    assert not compiled.is_valid({name: 1 for name in names[:-1]})  # p0 missing
    with pytest.raises(engine.ValidationFailed) as failure:
        compiled.decode(document.replace(b'"p7":1', b'"p7":"1"'))
    assert [issue.instance_path for issue in failure.value.issues] == ["/p7"]

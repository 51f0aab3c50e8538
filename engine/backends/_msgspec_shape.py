"""The vocabulary of the msgspec translation: union slots, deferred types, JSON-value facts.

A translation is decided before any msgspec type exists: the translator builds *deferred* types
(:data:`Build`, a function of the :data:`Variant` wanted) and refuses whatever has no exact
meaning; only a schema that translated is ever built, and only when a decoder is first needed.
Building a type and its decoder costs tens of microseconds per object schema (``defstruct`` or
``TypedDict()``, then ``msgspec.json.Decoder``), which a cold compile of a tool list does not pay
for tools never called.
"""

from __future__ import annotations

import math
import typing
from collections.abc import Callable
from fractions import Fraction
from typing import Any, Literal

from .._keywords import ANCHORS, ANNOTATIONS, KNOWN_IN_ANY_DIALECT

__all__ = [
    "FLOAT_MAX",
    "HANDLED",
    "INT64_MAX",
    "INT64_MIN",
    "KINDS",
    "KIND_KEYWORDS",
    "NEUTRAL",
    "Build",
    "Variant",
    "WIDEST_OBJECT",
    "Refusal",
    "Shape",
    "constant",
    "exact_float",
    "is_integral",
    "is_number",
    "json_equal",
    "json_kinds_of_value",
    "same_literal",
    "short",
    "short_number",
    "slot_name",
    "slot_of_value",
]

# The most properties an object translates with. msgspec finds a key among a Struct's or a
# TypedDict's fields by comparing it with each in turn from where the last key was found: a document
# listing n fields in the schema's order costs n comparisons, one listing them in reverse n*n, and
# an unnamed key n. Past this width the general path (a hash lookup per key) costs less than the
# typed decode's worst order: at 32 short names, reversed, 1.5x decode + jsonschema-rs; at 2,000,
# 38x, a quadratic cost a hostile document chooses.
WIDEST_OBJECT = 32

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
FLOAT_MAX = 1.7976931348623157e308

# Keywords that never change whether an instance is valid (with ``formats="annotate"``, ``format``
# joins them). ``$defs``/``definitions`` are only containers: their schemas are translated when a
# ``$ref`` reaches them.
NEUTRAL = ANNOTATIONS | ANCHORS | {"$defs", "definitions"}

KINDS = ("null", "boolean", "integer", "number", "string", "array", "object")


def admits_every_name(names: Any, *, assert_formats: bool) -> bool:
    """Whether a ``propertyNames`` schema admits every string, so every property name: ``true``,
    or nothing but ``type: "string"`` and annotations (zod 4 writes ``z.record(z.string(), ...)``
    so). Such a ``propertyNames`` constrains nothing, and the translation passes over it."""
    if names is True:
        return True
    if type(names) is not dict:
        return False
    for key, value in names.items():
        if key in NEUTRAL or key not in KNOWN_IN_ANY_DIALECT:
            continue
        if key == "type" and (value == "string" or (type(value) is list and "string" in value)):
            continue
        if key == "format" and not assert_formats:
            continue
        return False
    return True


# Union slots: msgspec allows at most one type of each.
SLOTS = ("null", "bool", "int", "float", "str", "array", "object")

Variant = Literal["closed", "open", "dicts"]
"""How objects with ``properties`` are built. ``"closed"``: Structs that refuse properties the
schema does not name (also where the schema admits them: a typed decode then loses nothing, and
the type bounds how deep an accepted document nests). ``"open"``: Structs that ignore them where
the schema admits them (exact for validity; the value drops them). ``"dicts"``: TypedDicts, which
decode to plain dicts in document order and, like ``"open"``, skip the properties they do not name
(whoever reads them must show that a document had none, see ``engine._readers.counted_then_parsed``)."""

Build = Callable[[Variant], Any]
"""A msgspec type not built yet: called with the :data:`Variant` wanted, it returns the type."""


def constant(value: Any) -> Build:
    """A type that needs nothing built (``int``, ``str``, ``Any``...)."""
    return lambda _variant: value


class Refusal(Exception):
    def __init__(self, why: str, location: str) -> None:
        self.why = why
        self.location = location


class Shape:
    """A schema's meaning as msgspec union members, one per slot.

    ``types[slot]`` is a deferred type for that slot; ``literals[slot]`` a set of admitted values
    (``enum``/``const``). A slot has one or the other, never both.
    """

    __slots__ = ("any", "literals", "types")

    def __init__(self) -> None:
        self.types: dict[str, Build] = {}
        self.literals: dict[str, list[Any]] = {}
        self.any = False

    def slots(self) -> set[str]:
        return set(self.types) | set(self.literals)

    def to_type(self) -> Build:
        if self.any:
            return constant(Any)
        members: list[Build] = [self.types[slot] for slot in SLOTS if slot in self.types]
        literal_values: list[Any] = []
        for slot in SLOTS:
            for value in self.literals.get(slot, ()):
                if value is None:
                    members.append(constant(None))
                else:
                    literal_values.append(value)
        if literal_values:
            members.append(constant(Literal[tuple(literal_values)]))
        if not members:
            raise AssertionError("empty shape")  # guarded by the translator
        if len(members) == 1:
            return members[0]

        def union(variant: Variant) -> Any:
            return typing.Union[tuple(member(variant) for member in members)]  # noqa: UP007 - built at run time

        return union


def slot_of_value(value: Any) -> str | None:
    """The union slot a JSON ``enum``/``const`` value lives in, or ``None`` if msgspec's
    ``Literal`` cannot hold it exactly."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int" if INT64_MIN <= value <= INT64_MAX else None
    if isinstance(value, str):
        return "str"
    return None


def json_kinds_of_value(value: Any) -> set[str]:
    if value is None:
        return {"null"}
    if isinstance(value, bool):
        return {"boolean"}
    if isinstance(value, int):
        return {"integer", "number"}
    if isinstance(value, float):
        return {"integer", "number"} if value.is_integer() else {"number"}
    if isinstance(value, str):
        return {"string"}
    if isinstance(value, list):
        return {"array"}
    return {"object"}


# Keywords the translation reads (others known to a dialect are refused unless annotations).
HANDLED = frozenset(
    {
        "type",
        "enum",
        "const",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "maxLength",
        "minLength",
        "maxItems",
        "minItems",
        "items",
        "maxProperties",
        "minProperties",
        "required",
        "properties",
        "additionalProperties",
        "anyOf",
        "oneOf",
        "$ref",
        "pattern",
    }
)

# Keywords that constrain some kind of value (their presence makes an untyped schema more than Any).
KIND_KEYWORDS = HANDLED - {"type", "enum", "const", "anyOf", "oneOf", "$ref"}


def slot_name(slot: str) -> str:
    return {
        "null": "null",
        "bool": "boolean",
        "int": "integer",
        "float": "number",
        "str": "string",
        "array": "array",
        "object": "object",
    }.get(slot, slot)


def same_literal(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def json_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return bool(a == b)


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_integral(value: Any) -> bool:
    return is_number(value) and (isinstance(value, int) or float(value).is_integer())


def exact_float(bound: Fraction, where: str) -> float:
    try:
        value = float(bound)
    except OverflowError:
        value = math.inf
    if math.isinf(value) or Fraction(value) != bound:
        raise Refusal(f"numeric bound {short_number(bound)} is not exactly a 64-bit float", where)
    return value


def short_number(value: Fraction | int) -> str:
    text = str(value)
    return text if len(text) <= 40 else f"{text[:20]}...({len(text)} characters)"


def short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."

"""A JSON Schema translated into a msgspec type, so decoding *is* validating.

The translation is **exact or refused**. Each schema becomes a union of at most one msgspec type
per JSON kind (null, boolean, integer, number, string, array, object); constraints become
``msgspec.Meta``; ``enum``/``const`` become ``Literal``; objects with ``properties`` become Structs
built at run time; ``$ref`` s into the same document are followed. Whatever msgspec cannot say with
the same meaning (``allOf``, ``not``, conditionals, ``patternProperties``, ``uniqueItems``,
asserted ``format`` s, overlapping ``anyOf`` branches, ...) is refused with the reason and the
schema location. Patterns run through :mod:`engine._patterns`, which keeps their ECMA-262 meaning.

msgspec may be *stricter* than JSON Schema (``1.0`` for ``integer``, ``1.0`` for ``enum: [1]``,
duplicate keys): whoever uses the type re-checks every "no" with the general backend, so only
"yes" must be exact, and it is.
"""

from __future__ import annotations

import math
import typing
from collections.abc import Mapping
from fractions import Fraction
from typing import Annotated, Any, Literal
from urllib.parse import unquote

import msgspec
from msgspec import UNSET, Meta, UnsetType

from .._dialect import Dialect
from .._keywords import ANCHORS, ANNOTATIONS, KNOWN_IN_ANY_DIALECT
from .._patterns import PatternRefused
from .._patterns import translate as ecma_to_python
from .._pointer import escape, unescape
from ._contract import SchemaSource, refuse

__all__ = ["NAME", "Translation", "translate"]

NAME = "msgspec"

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
FLOAT_MAX = 1.7976931348623157e308

# Keywords that never change whether an instance is valid (with ``formats="annotate"``, ``format``
# joins them). ``$defs``/``definitions`` are only containers: their schemas are translated when a
# ``$ref`` reaches them.
NEUTRAL = ANNOTATIONS | ANCHORS | {"$defs", "definitions"}

KINDS = ("null", "boolean", "integer", "number", "string", "array", "object")

# Union slots: msgspec allows at most one type of each.
SLOTS = ("null", "bool", "int", "float", "str", "array", "object")


class _Refusal(Exception):
    def __init__(self, why: str, location: str) -> None:
        self.why = why
        self.location = location


class _Shape:
    """A schema's meaning as msgspec union members, one per slot.

    ``types[slot]`` is a full type for that slot; ``literals[slot]`` a set of admitted values
    (``enum``/``const``). A slot has one or the other, never both.
    """

    __slots__ = ("literals", "types")

    def __init__(self) -> None:
        self.types: dict[str, Any] = {}
        self.literals: dict[str, list[Any]] = {}

    def slots(self) -> set[str]:
        return set(self.types) | set(self.literals)

    def is_any(self) -> bool:
        return self.types.get("any") is not None

    def to_type(self) -> Any:
        if self.is_any():
            return Any
        members: list[Any] = []
        for slot in SLOTS:
            if slot in self.types:
                members.append(self.types[slot])
        literal_values: list[Any] = []
        for slot in SLOTS:
            for value in self.literals.get(slot, ()):
                if value is None:
                    members.append(None)
                else:
                    literal_values.append(value)
        if literal_values:
            members.append(Literal[tuple(literal_values)])
        if not members:
            raise AssertionError("empty shape")  # guarded by the translator
        if len(members) == 1:
            return members[0]
        return typing.Union[tuple(members)]  # noqa: UP007 - built at run time


def _slot_of_value(value: Any) -> str | None:
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


def _json_kinds_of_value(value: Any) -> set[str]:
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


class _Translator:
    def __init__(self, source: SchemaSource) -> None:
        self.root = source.schema
        self.dialect = source.dialect
        self.assert_formats = source.config.assert_formats
        self.refs_ignore_siblings = not source.dialect.is_modern
        self._by_pointer: dict[str, _Shape] = {}
        self._in_progress: set[str] = set()
        self._structs = 0
        self.open_at: str | None = None
        """Where the first object that admits properties the type does not name is (a typed
        decode would drop them), or ``None``."""
        self.has_structs = False

    # -- entry ---------------------------------------------------------------------------------

    def translate_root(self) -> Any:
        self._in_progress.add("")  # a `$ref: "#"` below the root is recursion
        return self.shape(self.root, "", root=True).to_type()

    # -- schemas -------------------------------------------------------------------------------

    def shape(self, schema: Any, where: str, *, root: bool = False) -> _Shape:
        if schema is True:
            return self._any()
        if schema is False:
            raise _Refusal("the schema `false` admits nothing", where)
        if not isinstance(schema, Mapping):
            raise _Refusal("a schema must be an object or a boolean", where)
        if "$ref" in schema:
            return self._ref(schema, where)
        self._check_keywords(schema, where, root=root)
        if "anyOf" in schema or "oneOf" in schema:
            return self._combination(schema, where)
        return self._simple(schema, where)

    def _check_keywords(self, schema: Mapping[str, Any], where: str, *, root: bool) -> None:
        for key in schema:
            if key not in KNOWN_IN_ANY_DIALECT or key in NEUTRAL:
                continue
            if key in _HANDLED:
                continue
            if key == "format":
                if self.assert_formats:
                    raise _Refusal(
                        f"format {schema[key]!r} is asserted and msgspec has no exact check for it",
                        f"{where}/format",
                    )
                continue
            if key == "$schema" and root:
                continue
            if key in ("$id", "id") and root:
                continue
            if key == "id" and self.dialect is not Dialect.DRAFT4:
                continue  # not a keyword before/after draft 4
            if key == "uniqueItems" and schema[key] is False:
                continue
            raise _Refusal(f"keyword `{key}` has no exact msgspec translation", f"{where}/{escape(key)}")

    def _any(self) -> _Shape:
        shape = _Shape()
        shape.types["any"] = Any
        return shape

    def _ref(self, schema: Mapping[str, Any], where: str) -> _Shape:
        ref = schema["$ref"]
        if not isinstance(ref, str):
            raise _Refusal("`$ref` must be a string", f"{where}/$ref")
        siblings = [k for k in schema if k != "$ref" and k in KNOWN_IN_ANY_DIALECT and k not in NEUTRAL]
        if not where:
            siblings = [k for k in siblings if k not in ("$schema", "$id")]
        if not self.refs_ignore_siblings:
            siblings = [k for k in siblings if not (k == "format" and not self.assert_formats)]
            if siblings:
                raise _Refusal(
                    f"`$ref` next to {', '.join(sorted(siblings))} (both apply) has no exact translation",
                    where,
                )
        # Draft 4-7: keywords beside `$ref` are ignored by the specification, so by us.
        pointer = self._local_pointer(ref, f"{where}/$ref")
        if pointer in self._in_progress:
            raise _Refusal(f"recursive `$ref` {ref!r} has no msgspec translation", f"{where}/$ref")
        cached = self._by_pointer.get(pointer)
        if cached is not None:
            return cached
        target = self._resolve(pointer, ref, f"{where}/$ref")
        self._in_progress.add(pointer)
        try:
            shape = self.shape(target, pointer, root=not pointer)
        finally:
            self._in_progress.discard(pointer)
        self._by_pointer[pointer] = shape
        return shape

    def _local_pointer(self, ref: str, where: str) -> str:
        if not ref.startswith("#"):
            raise _Refusal(f"`$ref` {ref!r} leaves the document", where)
        fragment = unquote(ref[1:])
        if fragment and not fragment.startswith("/"):
            raise _Refusal(f"`$ref` {ref!r} names an anchor; only JSON pointers are followed", where)
        return fragment

    def _resolve(self, pointer: str, ref: str, where: str) -> Any:
        node: Any = self.root
        if not pointer:
            return node
        for raw in pointer[1:].split("/"):
            part = unescape(raw)
            if isinstance(node, Mapping) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise _Refusal(f"`$ref` {ref!r} does not resolve inside the document", where)
            if isinstance(node, Mapping) and ("$id" in node or (self.dialect is Dialect.DRAFT4 and "id" in node)):
                # A nested resource changes the base URI the target's own references resolve against.
                raise _Refusal(f"`$ref` {ref!r} enters an embedded resource (`$id`)", where)
        return node

    def _combination(self, schema: Mapping[str, Any], where: str) -> _Shape:
        if "anyOf" in schema and "oneOf" in schema:
            raise _Refusal("`anyOf` together with `oneOf` has no exact translation", where)
        keyword = "anyOf" if "anyOf" in schema else "oneOf"
        siblings = [
            k
            for k in schema
            if k in KNOWN_IN_ANY_DIALECT and k not in NEUTRAL and k not in (keyword, "format", "$schema", "$id")
        ]
        if siblings:
            raise _Refusal(
                f"`{keyword}` next to {', '.join(sorted(siblings))} (both apply) has no exact translation",
                where,
            )
        branches = schema[keyword]
        combined = _Shape()
        for index, branch in enumerate(branches):
            branch_where = f"{where}/{keyword}/{index}"
            shape = self.shape(branch, branch_where)
            if shape.is_any():
                raise _Refusal(f"a `{keyword}` branch admits everything", branch_where)
            for slot, value in shape.types.items():
                if slot in combined.types or slot in combined.literals:
                    raise _Refusal(
                        f"`{keyword}` branches overlap on {_slot_name(slot)} values; msgspec unions "
                        "cannot tell them apart",
                        branch_where,
                    )
                combined.types[slot] = value
            for slot, values in shape.literals.items():
                if slot in combined.types:
                    raise _Refusal(f"`{keyword}` branches overlap on {_slot_name(slot)} values", branch_where)
                known = combined.literals.setdefault(slot, [])
                for value in values:
                    if any(_same_literal(value, other) for other in known):
                        if keyword == "oneOf":
                            raise _Refusal("`oneOf` branches admit the same value", branch_where)
                        continue
                    known.append(value)
        if not combined.slots():
            raise _Refusal(f"`{keyword}` admits nothing", where)
        return combined

    def _simple(self, schema: Mapping[str, Any], where: str) -> _Shape:
        kinds = self._kinds(schema, where)
        if "enum" in schema or "const" in schema:
            return self._literals(schema, kinds, where)
        if kinds == set(KINDS) and not any(k in _KIND_KEYWORDS for k in schema):
            return self._any()
        shape = _Shape()
        if "null" in kinds:
            shape.types["null"] = None
        if "boolean" in kinds:
            shape.types["bool"] = bool
        if "integer" in kinds or "number" in kinds:
            shape.types["int"] = self._integer(schema, where, number="number" in kinds)
        if "number" in kinds:
            shape.types["float"] = self._float(schema, where)
        if "string" in kinds:
            shape.types["str"] = self._string(schema, where)
        if "array" in kinds:
            shape.types["array"] = self._array(schema, where)
        if "object" in kinds:
            shape.types["object"] = self._object(schema, where)
        return shape

    def _kinds(self, schema: Mapping[str, Any], where: str) -> set[str]:
        declared = schema.get("type")
        if declared is None:
            return set(KINDS)
        names = [declared] if isinstance(declared, str) else list(declared)
        kinds = set()
        for name in names:
            if name not in KINDS:
                raise _Refusal(f"unknown type {name!r}", f"{where}/type")
            kinds.add(name)
        if not kinds:
            raise _Refusal("`type: []` admits nothing", f"{where}/type")
        return kinds

    def _literals(self, schema: Mapping[str, Any], kinds: set[str], where: str) -> _Shape:
        others = [k for k in schema if k in _KIND_KEYWORDS]
        if others:
            raise _Refusal(f"`enum`/`const` next to {', '.join(sorted(others))} has no exact translation", where)
        if "enum" in schema and "const" in schema:
            values = [v for v in schema["enum"] if _json_equal(v, schema["const"])]
        elif "enum" in schema:
            values = list(schema["enum"])
        else:
            values = [schema["const"]]
        shape = _Shape()
        for value in values:
            if not (_json_kinds_of_value(value) & kinds):
                continue  # excluded by `type`
            if isinstance(value, float) and value.is_integer() and INT64_MIN <= value <= INT64_MAX:
                value = int(value)  # JSON equality: 1.0 == 1; msgspec may then refuse `1.0` (re-checked)
            slot = _slot_of_value(value)
            if slot is None:
                raise _Refusal(f"enum value {_short(value)} has no msgspec Literal", where)
            known = shape.literals.setdefault(slot, [])
            if not any(_same_literal(value, other) for other in known):
                known.append(value)
        if not shape.slots():
            raise _Refusal("`enum`/`const` admits no value of the declared type", where)
        return shape

    # -- kinds ---------------------------------------------------------------------------------

    def _bounds(
        self, schema: Mapping[str, Any]
    ) -> tuple[list[Fraction], list[Fraction], list[Fraction], list[Fraction]]:
        """(>=, >, <=, <) bounds as exact fractions, whatever the dialect's spelling."""
        ge: list[Fraction] = []
        gt: list[Fraction] = []
        le: list[Fraction] = []
        lt: list[Fraction] = []
        if "minimum" in schema:
            (gt if schema.get("exclusiveMinimum") is True else ge).append(Fraction(schema["minimum"]))
        if "maximum" in schema:
            (lt if schema.get("exclusiveMaximum") is True else le).append(Fraction(schema["maximum"]))
        if _is_number(schema.get("exclusiveMinimum")):
            gt.append(Fraction(schema["exclusiveMinimum"]))
        if _is_number(schema.get("exclusiveMaximum")):
            lt.append(Fraction(schema["exclusiveMaximum"]))
        return ge, gt, le, lt

    def _integer(self, schema: Mapping[str, Any], where: str, *, number: bool) -> Any:
        ge, gt, le, lt = self._bounds(schema)
        lows = [math.ceil(b) for b in ge] + [math.floor(b) + 1 for b in gt]
        highs = [math.floor(b) for b in le] + [math.ceil(b) - 1 for b in lt]
        meta: dict[str, Any] = {}
        if lows:
            meta["ge"] = max(lows)
        if highs:
            meta["le"] = min(highs)
        for bound in meta.values():
            if not INT64_MIN <= bound <= INT64_MAX:
                raise _Refusal(f"integer bound {_short_number(bound)} does not fit in 64 bits", where)
        if "multipleOf" in schema:
            divisor = schema["multipleOf"]
            if number or not _is_integral(divisor) or not 0 < divisor <= INT64_MAX:
                raise _Refusal(
                    "`multipleOf` is only translated for integers with an integer divisor", f"{where}/multipleOf"
                )
            meta["multiple_of"] = int(divisor)
        return Annotated[int, Meta(**meta)] if meta else int

    def _float(self, schema: Mapping[str, Any], where: str) -> Any:
        ge, gt, le, lt = self._bounds(schema)
        # Finite bounds always: NaN and infinities are not JSON numbers (they can reach `is_valid`
        # from Python), and every comparison with NaN is false.
        low: tuple[str, float] = ("ge", -FLOAT_MAX)
        for op, bounds in (("ge", ge), ("gt", gt)):
            for bound in bounds:
                value = _exact_float(bound, where)
                if value > low[1] or (value == low[1] and op == "gt"):
                    low = (op, value)
        high: tuple[str, float] = ("le", FLOAT_MAX)
        for op, bounds in (("le", le), ("lt", lt)):
            for bound in bounds:
                value = _exact_float(bound, where)
                if value < high[1] or (value == high[1] and op == "lt"):
                    high = (op, value)
        limits: dict[str, Any] = {low[0]: low[1], high[0]: high[1]}
        return Annotated[float, Meta(**limits)]

    def _string(self, schema: Mapping[str, Any], where: str) -> Any:
        meta: dict[str, Any] = self._lengths(schema, "minLength", "maxLength", where)
        if "pattern" in schema:
            meta["pattern"] = self._pattern(schema["pattern"], f"{where}/pattern")
        return Annotated[str, Meta(**meta)] if meta else str

    def _pattern(self, pattern: Any, where: str) -> str:
        """The Python ``re`` source matching exactly what the ECMA-262 ``pattern`` matches
        (msgspec applies it with ``re.search``, as JSON Schema does)."""
        if not isinstance(pattern, str):
            raise _Refusal("`pattern` must be a string", where)
        try:
            return ecma_to_python(pattern)
        except PatternRefused as refusal:
            raise _Refusal(
                f"pattern {pattern!r} cannot run exactly and safely in Python `re`: {refusal.why}", where
            ) from None

    def _lengths(self, schema: Mapping[str, Any], low: str, high: str, where: str) -> dict[str, Any]:
        meta: dict[str, Any] = {}
        for keyword, name in ((low, "min_length"), (high, "max_length")):
            if keyword in schema:
                value = schema[keyword]
                if not _is_integral(value) or not 0 <= value <= INT64_MAX:
                    raise _Refusal(f"`{keyword}` must be a non-negative 64-bit integer", f"{where}/{keyword}")
                meta[name] = int(value)
        return meta

    def _array(self, schema: Mapping[str, Any], where: str) -> Any:
        items = schema.get("items", True)
        if isinstance(items, list):
            raise _Refusal("tuple-form `items` has no exact translation", f"{where}/items")
        item_type = self.shape(items, f"{where}/items").to_type() if items is not True else Any
        meta = self._lengths(schema, "minItems", "maxItems", where)
        kind = list[item_type]  # type: ignore[valid-type]
        return Annotated[kind, Meta(**meta)] if meta else kind

    def _object(self, schema: Mapping[str, Any], where: str) -> Any:
        properties = schema.get("properties", {})
        required = list(dict.fromkeys(schema.get("required", [])))
        extra = schema.get("additionalProperties", True)
        if extra == {}:
            extra = True
        if properties or required:
            if extra not in (True, False):
                raise _Refusal(
                    "`additionalProperties` with a schema next to `properties`/`required` has no exact translation",
                    f"{where}/additionalProperties",
                )
            for keyword in ("minProperties", "maxProperties"):
                if keyword in schema:
                    raise _Refusal(
                        f"`{keyword}` next to `properties`/`required` has no exact translation", f"{where}/{keyword}"
                    )
            return self._struct(properties, required, closed=extra is False, where=where)
        meta = self._lengths(schema, "minProperties", "maxProperties", where)
        if extra is False:
            meta["max_length"] = 0
            value_type: Any = Any
        elif extra is True:
            value_type = Any
        else:
            value_type = self.shape(extra, f"{where}/additionalProperties").to_type()
        kind = dict[str, value_type]
        return Annotated[kind, Meta(**meta)] if meta else kind

    def _struct(self, properties: Mapping[str, Any], required: list[str], *, closed: bool, where: str) -> Any:
        names = list(properties) + [name for name in required if name not in properties]
        must = set(required)
        fields: list[tuple[str, Any] | tuple[str, Any, Any]] = []
        rename: dict[str, str] = {}
        for index, name in enumerate(names):
            attr = f"f{index}"
            rename[attr] = name
            if name in properties:
                subschema = properties[name]
                if subschema is False and name not in must:
                    raise _Refusal(
                        "a property that must be absent has no exact translation", f"{where}/properties/{escape(name)}"
                    )
                field_type = self.shape(subschema, f"{where}/properties/{escape(name)}").to_type()
            else:
                field_type = Any
            if name in must:
                fields.append((attr, field_type))
            else:
                optional = field_type if field_type is Any else typing.Union[field_type, UnsetType]  # noqa: UP007
                fields.append((attr, optional, UNSET))
        # Required fields first: a Struct cannot have a field without default after one with.
        fields.sort(key=lambda f: len(f) == 3)
        if not closed and self.open_at is None:
            self.open_at = where
        self.has_structs = True
        self._structs += 1
        return msgspec.defstruct(
            f"Object{self._structs}",
            fields,
            rename=rename,
            forbid_unknown_fields=closed,
            gc=False,
        )


# Keywords the translation reads (others known to a dialect are refused unless annotations).
_HANDLED = frozenset(
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
_KIND_KEYWORDS = _HANDLED - {"type", "enum", "const", "anyOf", "oneOf", "$ref"}


def _slot_name(slot: str) -> str:
    return {
        "null": "null",
        "bool": "boolean",
        "int": "integer",
        "float": "number",
        "str": "string",
        "array": "array",
        "object": "object",
    }.get(slot, slot)


def _same_literal(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _json_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return bool(a == b)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_integral(value: Any) -> bool:
    return _is_number(value) and (isinstance(value, int) or float(value).is_integer())


def _exact_float(bound: Fraction, where: str) -> float:
    try:
        value = float(bound)
    except OverflowError:
        value = math.inf
    if math.isinf(value) or Fraction(value) != bound:
        raise _Refusal(f"numeric bound {_short_number(bound)} is not exactly a 64-bit float", where)
    return value


def _short_number(value: Fraction | int) -> str:
    text = str(value)
    return text if len(text) <= 40 else f"{text[:20]}...({len(text)} characters)"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class Translation(typing.NamedTuple):
    type: Any
    open_at: str | None
    """Where an object admits properties the type does not name, or ``None``."""
    has_structs: bool

    @property
    def closed(self) -> bool:
        """Every object's properties are all named by the type: a typed decode loses nothing."""
        return self.open_at is None


def translate(source: SchemaSource) -> Translation:
    """The msgspec type that means exactly ``source.schema``; :class:`BackendRefused` otherwise."""
    translator = _Translator(source)
    try:
        result = translator.translate_root()
    except _Refusal as refusal:
        raise refuse(NAME, f"{refusal.why} (at {refusal.location or 'the root'})", location=refusal.location) from None
    except (TypeError, ValueError) as exc:  # msgspec refused the type we built
        raise refuse(NAME, f"msgspec cannot represent this schema: {exc}") from None
    except RecursionError:
        raise refuse(NAME, "the schema nests too deeply to translate") from None
    return Translation(result, translator.open_at, translator.has_structs)

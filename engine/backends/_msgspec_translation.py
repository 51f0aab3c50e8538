"""A JSON Schema translated into a msgspec type, so decoding *is* validating.

The translation is **exact or refused**. Each schema becomes a union of at most one msgspec type
per JSON kind (null, boolean, integer, number, string, array, object); constraints become
``msgspec.Meta``; ``enum``/``const`` become ``Literal``; objects with ``properties`` become Structs
or TypedDicts built at run time (see ``Variant``); ``$ref`` s into the same document are
followed. Whatever msgspec cannot say with the same meaning (``allOf``, ``not``, conditionals,
``patternProperties``, ``uniqueItems``, asserted ``format`` s, overlapping ``anyOf`` branches, ...)
is refused with the reason and the schema location. Patterns run through :mod:`engine._patterns`,
which keeps their ECMA-262 meaning.

msgspec may be *stricter* than JSON Schema (``1.0`` for ``integer``, ``1.0`` for ``enum: [1]``,
duplicate keys): whoever uses the type re-checks every "no" with the general backend, so only
"yes" must be exact, and it is.
"""

from __future__ import annotations

import math
import typing
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Annotated, Any
from urllib.parse import unquote

import msgspec
from msgspec import UNSET, Meta, UnsetType

from .._dialect import Dialect
from .._keywords import KNOWN_IN_ANY_DIALECT
from .._patterns import PatternRefused
from .._patterns import translate as ecma_to_python
from .._pointer import escape, unescape
from ._contract import SchemaSource, refuse
from ._msgspec_decide import renamable
from ._msgspec_shape import (
    FLOAT_MAX,
    HANDLED,
    INT64_MAX,
    INT64_MIN,
    KIND_KEYWORDS,
    KINDS,
    NEUTRAL,
    WIDEST_OBJECT,
    Build,
    Refusal,
    Shape,
    Variant,
    admits_every_name,
    constant,
    exact_float,
    is_integral,
    is_number,
    json_equal,
    json_kinds_of_value,
    same_literal,
    short,
    short_number,
    slot_name,
    slot_of_value,
)
from ._msgspec_values import plain_converter, with_struct_inlined

__all__ = ["NAME", "Translation", "translate"]

NAME = "msgspec"


class _Translator:
    def __init__(self, source: SchemaSource) -> None:
        self.root = source.schema
        self.dialect = source.dialect
        self.assert_formats = source.config.assert_formats
        self.refs_ignore_siblings = not source.dialect.is_modern
        self._by_pointer: dict[str, Shape] = {}
        self._in_progress: set[str] = set()
        self._structs = 0
        self.open_at: str | None = None
        """Where the first object that admits properties the type does not name is (a typed
        decode would drop them), or ``None``."""
        self.closed_at: str | None = None
        """Where the first object whose properties the schema all names is (a TypedDict skips
        the others where the schema refuses them), or ``None``."""
        self.untyped_at: str | None = None
        """Where the first position that admits any value is (typed ``Any``), or ``None``."""

    # -- entry ---------------------------------------------------------------------------------

    def translate_root(self) -> Build:
        self._in_progress.add("")  # a `$ref: "#"` below the root is recursion
        return self.shape(self.root, "", root=True).to_type()

    # -- schemas -------------------------------------------------------------------------------

    def shape(self, schema: Any, where: str, *, root: bool = False) -> Shape:
        if schema is True:
            return self._any(where)
        if schema is False:
            raise Refusal("the schema `false` admits nothing", where)
        if not isinstance(schema, Mapping):
            raise Refusal("a schema must be an object or a boolean", where)
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
            if key in HANDLED:
                continue
            if key == "format":
                if self.assert_formats:
                    raise Refusal(
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
            if key == "propertyNames" and admits_every_name(schema[key], assert_formats=self.assert_formats):
                continue
            raise Refusal(f"keyword `{key}` has no exact msgspec translation", f"{where}/{escape(key)}")

    def _any(self, where: str) -> Shape:
        self._untyped(where)
        shape = Shape()
        shape.any = True
        return shape

    def _untyped(self, where: str) -> Build:
        """``Any``, for a position that admits any value at ``where``, noted in :attr:`untyped_at`."""
        if self.untyped_at is None:
            self.untyped_at = where
        return constant(Any)

    def _ref(self, schema: Mapping[str, Any], where: str) -> Shape:
        ref = schema["$ref"]
        if not isinstance(ref, str):
            raise Refusal("`$ref` must be a string", f"{where}/$ref")
        siblings = [k for k in schema if k != "$ref" and k in KNOWN_IN_ANY_DIALECT and k not in NEUTRAL]
        if not where:
            siblings = [k for k in siblings if k not in ("$schema", "$id")]
        if not self.refs_ignore_siblings:
            siblings = [k for k in siblings if not (k == "format" and not self.assert_formats)]
            if siblings:
                raise Refusal(
                    f"`$ref` next to {', '.join(sorted(siblings))} (both apply) has no exact translation",
                    where,
                )
        # Draft 4-7: keywords beside `$ref` are ignored by the specification, so by us.
        pointer = self._local_pointer(ref, f"{where}/$ref")
        if pointer in self._in_progress:
            raise Refusal(f"recursive `$ref` {ref!r} has no msgspec translation", f"{where}/$ref")
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
            raise Refusal(f"`$ref` {ref!r} leaves the document", where)
        fragment = unquote(ref[1:])
        if fragment and not fragment.startswith("/"):
            raise Refusal(f"`$ref` {ref!r} names an anchor; only JSON pointers are followed", where)
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
                raise Refusal(f"`$ref` {ref!r} does not resolve inside the document", where)
            if isinstance(node, Mapping) and ("$id" in node or (self.dialect is Dialect.DRAFT4 and "id" in node)):
                # A nested resource changes the base URI the target's own references resolve against.
                raise Refusal(f"`$ref` {ref!r} enters an embedded resource (`$id`)", where)
        return node

    def _combination(self, schema: Mapping[str, Any], where: str) -> Shape:
        if "anyOf" in schema and "oneOf" in schema:
            raise Refusal("`anyOf` together with `oneOf` has no exact translation", where)
        keyword = "anyOf" if "anyOf" in schema else "oneOf"
        siblings = [
            k
            for k in schema
            if k in KNOWN_IN_ANY_DIALECT and k not in NEUTRAL and k not in (keyword, "format", "$schema", "$id")
        ]
        if siblings:
            raise Refusal(
                f"`{keyword}` next to {', '.join(sorted(siblings))} (both apply) has no exact translation",
                where,
            )
        branches = schema[keyword]
        combined = Shape()
        for index, branch in enumerate(branches):
            branch_where = f"{where}/{keyword}/{index}"
            shape = self.shape(branch, branch_where)
            if shape.any:
                raise Refusal(f"a `{keyword}` branch admits everything", branch_where)
            for slot, value in shape.types.items():
                if slot in combined.types or slot in combined.literals:
                    raise Refusal(
                        f"`{keyword}` branches overlap on {slot_name(slot)} values; msgspec unions "
                        "cannot tell them apart",
                        branch_where,
                    )
                combined.types[slot] = value
            for slot, values in shape.literals.items():
                if slot in combined.types:
                    raise Refusal(f"`{keyword}` branches overlap on {slot_name(slot)} values", branch_where)
                known = combined.literals.setdefault(slot, [])
                for value in values:
                    if any(same_literal(value, other) for other in known):
                        if keyword == "oneOf":
                            raise Refusal("`oneOf` branches admit the same value", branch_where)
                        continue
                    known.append(value)
        if not combined.slots():
            raise Refusal(f"`{keyword}` admits nothing", where)
        return combined

    def _simple(self, schema: Mapping[str, Any], where: str) -> Shape:
        kinds = self._kinds(schema, where)
        if "enum" in schema or "const" in schema:
            return self._literals(schema, kinds, where)
        if kinds == set(KINDS) and not any(k in KIND_KEYWORDS for k in schema):
            return self._any(where)
        shape = Shape()
        if "null" in kinds:
            shape.types["null"] = constant(None)
        if "boolean" in kinds:
            shape.types["bool"] = constant(bool)
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
                raise Refusal(f"unknown type {name!r}", f"{where}/type")
            kinds.add(name)
        if not kinds:
            raise Refusal("`type: []` admits nothing", f"{where}/type")
        return kinds

    def _literals(self, schema: Mapping[str, Any], kinds: set[str], where: str) -> Shape:
        others = [k for k in schema if k in KIND_KEYWORDS]
        if others:
            raise Refusal(f"`enum`/`const` next to {', '.join(sorted(others))} has no exact translation", where)
        if "enum" in schema and "const" in schema:
            values = [v for v in schema["enum"] if json_equal(v, schema["const"])]
        elif "enum" in schema:
            values = list(schema["enum"])
        else:
            values = [schema["const"]]
        shape = Shape()
        seen: set[tuple[type, Any]] = set()  # the same literal: the same type, an equal value
        for value in values:
            if not (json_kinds_of_value(value) & kinds):
                continue  # excluded by `type`
            if isinstance(value, float) and value.is_integer() and INT64_MIN <= value <= INT64_MAX:
                value = int(value)  # JSON equality: 1.0 == 1; msgspec may then refuse `1.0` (re-checked)
            slot = slot_of_value(value)
            if slot is None:
                raise Refusal(f"enum value {short(value)} has no msgspec Literal", where)
            known = shape.literals.setdefault(slot, [])
            if (type(value), value) not in seen:  # a value with a slot is None, a bool, an int or a str
                seen.add((type(value), value))
                known.append(value)
        if not shape.slots():
            raise Refusal("`enum`/`const` admits no value of the declared type", where)
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
        if is_number(schema.get("exclusiveMinimum")):
            gt.append(Fraction(schema["exclusiveMinimum"]))
        if is_number(schema.get("exclusiveMaximum")):
            lt.append(Fraction(schema["exclusiveMaximum"]))
        return ge, gt, le, lt

    def _integer(self, schema: Mapping[str, Any], where: str, *, number: bool) -> Build:
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
                raise Refusal(f"integer bound {short_number(bound)} does not fit in 64 bits", where)
        if "multipleOf" in schema:
            divisor = schema["multipleOf"]
            if number or not is_integral(divisor) or not 0 < divisor <= INT64_MAX:
                raise Refusal(
                    "`multipleOf` is only translated for integers with an integer divisor", f"{where}/multipleOf"
                )
            meta["multiple_of"] = int(divisor)
        return constant(Annotated[int, Meta(**meta)] if meta else int)

    def _float(self, schema: Mapping[str, Any], where: str) -> Build:
        ge, gt, le, lt = self._bounds(schema)
        # Finite bounds always: NaN and infinities are not JSON numbers (they can reach `is_valid`
        # from Python), and every comparison with NaN is false.
        low: tuple[str, float] = ("ge", -FLOAT_MAX)
        for op, bounds in (("ge", ge), ("gt", gt)):
            for bound in bounds:
                value = exact_float(bound, where)
                if value > low[1] or (value == low[1] and op == "gt"):
                    low = (op, value)
        high: tuple[str, float] = ("le", FLOAT_MAX)
        for op, bounds in (("le", le), ("lt", lt)):
            for bound in bounds:
                value = exact_float(bound, where)
                if value < high[1] or (value == high[1] and op == "lt"):
                    high = (op, value)
        limits: dict[str, Any] = {low[0]: low[1], high[0]: high[1]}
        return lambda _variant: Annotated[float, Meta(**limits)]

    def _string(self, schema: Mapping[str, Any], where: str) -> Build:
        meta: dict[str, Any] = self._lengths(schema, "minLength", "maxLength", where)
        if "pattern" in schema:
            meta["pattern"] = self._pattern(schema["pattern"], f"{where}/pattern")
        if not meta:
            return constant(str)
        return lambda _variant: Annotated[str, Meta(**meta)]

    def _pattern(self, pattern: Any, where: str) -> str:
        """The Python ``re`` source matching exactly what the ECMA-262 ``pattern`` matches
        (msgspec applies it with ``re.search``, as JSON Schema does)."""
        if not isinstance(pattern, str):
            raise Refusal("`pattern` must be a string", where)
        try:
            return ecma_to_python(pattern)
        except PatternRefused as refusal:
            raise Refusal(
                f"pattern {pattern!r} cannot run exactly and safely in Python `re`: {refusal.why}", where
            ) from None

    def _lengths(self, schema: Mapping[str, Any], low: str, high: str, where: str) -> dict[str, Any]:
        meta: dict[str, Any] = {}
        for keyword, name in ((low, "min_length"), (high, "max_length")):
            if keyword in schema:
                value = schema[keyword]
                if not is_integral(value) or not 0 <= value <= INT64_MAX:
                    raise Refusal(f"`{keyword}` must be a non-negative 64-bit integer", f"{where}/{keyword}")
                meta[name] = int(value)
        return meta

    def _array(self, schema: Mapping[str, Any], where: str) -> Build:
        items = schema.get("items", True)
        if isinstance(items, list):
            raise Refusal("tuple-form `items` has no exact translation", f"{where}/items")
        item_type = self.shape(items, f"{where}/items").to_type() if items is not True else self._untyped(where)
        meta = self._lengths(schema, "minItems", "maxItems", where)

        def build(variant: Variant) -> Any:
            kind: Any = list[item_type(variant)]  # type: ignore[misc]
            return Annotated[kind, Meta(**meta)] if meta else kind

        return build

    def _object(self, schema: Mapping[str, Any], where: str) -> Build:
        properties = schema.get("properties", {})
        required = list(dict.fromkeys(schema.get("required", [])))
        extra = schema.get("additionalProperties", True)
        if extra == {}:
            extra = True
        if properties or required:
            if extra not in (True, False):
                raise Refusal(
                    "`additionalProperties` with a schema next to `properties`/`required` has no exact translation",
                    f"{where}/additionalProperties",
                )
            for keyword in ("minProperties", "maxProperties"):
                if keyword in schema:
                    raise Refusal(
                        f"`{keyword}` next to `properties`/`required` has no exact translation", f"{where}/{keyword}"
                    )
            return self._struct(properties, required, closed=extra is False, where=where)
        meta = self._lengths(schema, "minProperties", "maxProperties", where)
        if extra is False:
            meta["max_length"] = 0
            value_type = constant(Any)  # the type of no value: the object holds none
        elif extra is True:
            value_type = self._untyped(where)
        else:
            value_type = self.shape(extra, f"{where}/additionalProperties").to_type()

        def build(variant: Variant) -> Any:
            kind: Any = dict[str, value_type(variant)]  # type: ignore[misc]
            return Annotated[kind, Meta(**meta)] if meta else kind

        return build

    def _struct(self, properties: Mapping[str, Any], required: list[str], *, closed: bool, where: str) -> Build:
        unnamed = [name for name in required if name not in properties]
        if closed and unnamed:
            # A closed object that requires a name it does not list admits no object: with the
            # name it has an unnamed property, without it a required one is missing. A field for
            # it would accept what the schema refuses.
            raise Refusal(
                f"required property {short(unnamed[0])} is not among the properties of a closed object",
                f"{where}/required",
            )
        names = list(properties) + unnamed
        if len(names) > WIDEST_OBJECT:
            raise Refusal(
                f"an object naming {len(names)} properties (more than {WIDEST_OBJECT}): msgspec finds each key by "
                "comparing it with the fields in turn, so a document listing them out of order costs their square",
                f"{where}/properties" if properties else f"{where}/required",
            )
        must = set(required)
        fields: list[tuple[str, Build, bool]] = []
        rename: dict[str, str] = {}
        for index, name in enumerate(names):
            if not renamable(name):  # msgspec matches renamed fields on their UTF-8 bytes
                raise Refusal(
                    f"property name {short(name)} cannot be a msgspec field name (quotes, backslashes, control "
                    "characters or lone surrogates)",
                    f"{where}/properties/{escape(name)}" if name in properties else f"{where}/required",
                )
            attr = f"f{index}"
            rename[attr] = name
            if name in properties:
                subschema = properties[name]
                if subschema is False and name not in must:
                    raise Refusal(
                        "a property that must be absent has no exact translation", f"{where}/properties/{escape(name)}"
                    )
                field_type = self.shape(subschema, f"{where}/properties/{escape(name)}").to_type()
            else:
                field_type = self._untyped(f"{where}/required")
            fields.append((attr, field_type, name in must))
        if not closed and self.open_at is None:
            self.open_at = where
        if closed and self.closed_at is None:
            self.closed_at = where
        self._structs += 1
        title = f"Object{self._structs}"
        built: dict[Variant, Any] = {}

        def build(variant: Variant) -> Any:
            # Built once per variant: a `$ref` reached twice shares the type.
            kind = built.get(variant)
            if kind is None:
                if variant == "dicts":
                    # Optional keys are left out of the dict (no `UNSET`); the keys are the JSON names.
                    keys = {
                        rename[attr]: (typing.Required if needed else typing.NotRequired)[make(variant)]
                        for attr, make, needed in fields
                    }
                    # msgspec (0.23) matches a TypedDict's key by the UTF-8 its `str` caches, which
                    # a non-ASCII name (`日本`) holds only once something has asked for it: until
                    # then the key reads as "", and a member "" was taken for it while the real
                    # one went unchecked. Writing the names once caches their UTF-8.
                    msgspec.json.encode(list(keys))
                    kind = built[variant] = typing.TypedDict(title, keys)  # type: ignore[operator]
                    return kind
                members: list[tuple[str, Any] | tuple[str, Any, Any]] = []
                for attr, make, needed in fields:
                    field_type = make(variant)
                    if needed:
                        members.append((attr, field_type))
                    else:
                        optional = field_type if field_type is Any else typing.Union[field_type, UnsetType]  # noqa: UP007
                        members.append((attr, optional, UNSET))
                # kw_only keeps the fields in the schema's order (required and optional mixed), so
                # plain values list their keys as the schema does.
                kind = built[variant] = msgspec.defstruct(
                    title,
                    members,
                    rename=rename,
                    kw_only=True,
                    forbid_unknown_fields=closed or variant == "closed",
                    gc=False,
                )
            return kind

        return build


class Translation(typing.NamedTuple):
    build: Build
    """The msgspec type, built on call for a :data:`~engine.backends._msgspec_shape.Variant`.
    ``build("closed")``: objects that admit unnamed properties become Structs that refuse them (a
    one-pass decode that loses nothing; a payload with such a property is judged again by the
    general backend). ``build("open")``: such Structs ignore them (exact for validity, since the
    schema admits any value there; the typed value drops them). ``build("dicts")``: TypedDicts,
    which ignore them too and decode to plain dicts."""
    open_at: str | None
    """Where the first object that admits properties the schema does not name is, or ``None``."""
    closed_at: str | None
    """Where the first object whose properties the schema all names is, or ``None``: without one,
    whatever the TypedDicts of ``build("dicts")`` accept is valid (what they skip is admitted)."""
    untyped_at: str | None
    """Where the first position that admits any value is (``Any`` in the type: an untyped
    property, item or member), or ``None``."""

    def built(self, variant: Variant) -> tuple[Any, Callable[[Any], Any] | None]:
        """The type (see :attr:`build`) and the converter of its values into plain JSON values
        (``None`` when they are plain already), for callers that embed it in a larger message."""
        kind = self.build(variant)
        return kind, plain_converter(kind)

    def inlined(self, variant: Variant, source: str, namespace: dict[str, Any]) -> Callable[..., Any]:
        """The function ``source`` defines, its line ``<convert>`` turning ``s``, a value of the
        Struct ``build(variant)`` (the root must be one), into the plain dict ``out`` (see
        :func:`~engine.backends._msgspec_values.with_struct_inlined`)."""
        return with_struct_inlined(source, self.build(variant), namespace)


def translate(source: SchemaSource) -> Translation:
    """Decide the msgspec type that means exactly ``source.schema`` (built later, by
    :attr:`Translation.build`); :class:`BackendRefused` with the reason and location otherwise."""
    translator = _Translator(source)
    try:
        result = translator.translate_root()
    except Refusal as refusal:
        raise refuse(NAME, f"{refusal.why} (at {refusal.location or 'the root'})", location=refusal.location) from None
    except RecursionError:
        raise refuse(NAME, "the schema nests too deeply to translate") from None
    return Translation(result, translator.open_at, translator.closed_at, translator.untyped_at)

"""Whether a schema translates to msgspec types, decided without translating it.

A cold compile only needs the yes or no of :func:`engine.backends._msgspec_translation.translate`:
the types are built on the first decode. :func:`translates` answers yes for the schemas it can
judge in one lean walk (no shapes, no deferred types, no locations) and ``False`` for anything it
is unsure of; the caller then runs the translator itself, which either refuses with the exact
reason and location or succeeds. So the decision is the translator's own, only found faster:

- ``True`` means the translator succeeds on this schema (every rule below is one of its rules,
  never looser);
- ``False`` means nothing: the translator decides.

Not followed here (``False``): a ``$ref`` other than a plain JSON pointer, a ``false`` schema, and
every case the translator refuses.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any

from .._dialect import Dialect
from .._keywords import KNOWN_IN_ANY_DIALECT
from .._patterns import PatternRefused
from .._patterns import translate as ecma_to_python
from ._contract import SchemaSource
from ._msgspec_shape import (
    HANDLED,
    INT64_MAX,
    INT64_MIN,
    KIND_KEYWORDS,
    KINDS,
    NEUTRAL,
    WIDEST_OBJECT,
    admits_every_name,
    json_equal,
    json_kinds_of_value,
    slot_of_value,
)

__all__ = ["DEEPEST", "renamable", "translates"]


class _Unsure(Exception):
    """The walk stops: the translator decides. (A new instance each time: one raised again and
    again would chain every traceback, and the frames in them, to itself.)"""


# The union slot of each JSON kind (number takes two: integral values and the others).
_SLOTS_OF_KIND = {
    "null": ("null",),
    "boolean": ("bool",),
    "integer": ("int",),
    "number": ("int", "float"),
    "string": ("str",),
    "array": ("array",),
    "object": ("object",),
}
_ALL_KINDS = frozenset(KINDS)
_ONE_KIND = {kind: frozenset((kind,)) for kind in KINDS}
_SLOTS_OF_KINDS = {kinds: frozenset(_SLOTS_OF_KIND[kind]) for kind, kinds in _ONE_KIND.items()}
_SLOTS_OF_ONE = {kind: _SLOTS_OF_KINDS[kinds] for kind, kinds in _ONE_KIND.items()}
_NUMERIC_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
# Within these, every integer bound the translator derives (rounded by one at most) fits in 64
# bits, and every integer is exactly a 64-bit float.
_SAFE_INT = 2**53

# Characters msgspec refuses in a renamed field (matched on UTF-8 bytes): quotes, backslashes,
# control characters; and surrogates, which no UTF-8 text holds.
_UNRENAMABLE = re.compile('[\\\\"\x00-\x1f\ud800-\udfff]')


def renamable(name: str) -> bool:
    """Whether ``name`` can be a renamed msgspec field: no ``\\``, ``"``, control character or
    surrogate."""
    return _UNRENAMABLE.search(name) is None


@lru_cache(maxsize=1024)
def _pattern_translates(pattern: str) -> bool:
    try:
        ecma_to_python(pattern)
    except PatternRefused:
        return False
    return True


def translates(source: SchemaSource) -> bool:
    """``True`` when the translator is sure to take ``source.schema``; ``False`` when it may not
    (then ask it)."""
    if getattr(source.facts, "max_chain", 0) > DEEPEST:
        # The translator nests more Python calls per level than this walk: on a schema this deep
        # it may run out of stack where the walk did not, and must do so at compile time.
        return False
    dialect = source.dialect
    walk = _Walk(
        source.schema,
        assert_formats=source.config.assert_formats,
        draft4=dialect is Dialect.DRAFT4,
        legacy_refs=not dialect.is_modern,
    )
    try:
        walk.node(source.schema, root=True)
    except (_Unsure, RecursionError):
        return False
    return True


# Deeper schemas (subschemas nested, references followed, as the guard measured them) are left
# to the translator at compile time.
DEEPEST = 64

# A node's union members: ``None`` for any value, else (type slots, literal values by slot, each
# as its type and value).
_Members = tuple[frozenset[str] | set[str], dict[str, set[tuple[type, Any]]]] | None


# Keywords the translator reads itself or lets pass anywhere (``format`` too, unless asserted).
_SKIP = frozenset(NEUTRAL | HANDLED)
_SKIP_FORMAT = _SKIP | {"format"}
# A property schema made of these alone, with no `type` or one named kind, translates to that kind
# as it is (no constraint, nothing below it): accepted without a call.
_LEAF = frozenset(NEUTRAL | {"type"})
_LEAF_FORMAT = _LEAF | {"format"}


class _Walk:
    __slots__ = ("assert_formats", "by_pointer", "draft4", "leaf", "legacy_refs", "root", "skip", "visiting")

    def __init__(self, root: Any, *, assert_formats: bool, draft4: bool, legacy_refs: bool) -> None:
        self.root = root
        self.assert_formats = assert_formats
        self.draft4 = draft4
        self.legacy_refs = legacy_refs
        self.skip = _SKIP if assert_formats else _SKIP_FORMAT
        self.leaf = _LEAF if assert_formats else _LEAF_FORMAT
        self.by_pointer: dict[str, _Members] = {}
        self.visiting: set[str] = set()

    def node(self, schema: Any, *, root: bool = False) -> _Members:
        if schema is True:
            return None
        if type(schema) is not dict:
            raise _Unsure
        if "$ref" in schema:
            return self._ref(schema, root=root)
        if not schema.keys() <= self.skip:
            for key in schema:
                if key in self.skip or key not in KNOWN_IN_ANY_DIALECT:
                    continue
                if root and key in ("$schema", "$id", "id"):
                    continue
                if key == "id" and not self.draft4:
                    continue
                if key == "uniqueItems" and schema[key] is False:
                    continue
                if key == "propertyNames" and admits_every_name(schema[key], assert_formats=self.assert_formats):
                    continue
                raise _Unsure
        if "anyOf" in schema or "oneOf" in schema:
            return self._combination(schema)
        return self._simple(schema)

    def _ref(self, schema: dict[str, Any], *, root: bool) -> _Members:
        """A reference by plain JSON pointer into the document (no escapes, no embedded
        resource on the way), followed as the translator follows it."""
        ref = schema["$ref"]
        if type(ref) is not str or not ref.startswith("#/") or "%" in ref or "~" in ref:
            raise _Unsure
        if not self.legacy_refs:  # 2019-09 on: keywords beside `$ref` apply too, which is refused
            for key in schema:
                if key == "$ref" or key not in KNOWN_IN_ANY_DIALECT or key in NEUTRAL:
                    continue
                if root and key in ("$schema", "$id"):
                    continue
                if key == "format" and not self.assert_formats:
                    continue
                raise _Unsure
        pointer = ref[1:]
        if pointer in self.visiting:
            raise _Unsure  # recursion
        if pointer in self.by_pointer:
            return self.by_pointer[pointer]
        target: Any = self.root
        for part in pointer[1:].split("/"):
            if type(target) is not dict or part not in target:
                raise _Unsure
            target = target[part]
            if type(target) is dict and ("$id" in target or (self.draft4 and "id" in target)):
                raise _Unsure
        self.visiting.add(pointer)
        try:
            members = self.node(target)
        finally:
            self.visiting.discard(pointer)
        self.by_pointer[pointer] = members
        return members

    def _combination(self, schema: dict[str, Any]) -> _Members:
        if "anyOf" in schema and "oneOf" in schema:
            raise _Unsure
        keyword = "anyOf" if "anyOf" in schema else "oneOf"
        skip = NEUTRAL
        for key in schema:
            if key in KNOWN_IN_ANY_DIALECT and key not in skip and key not in (keyword, "format", "$schema", "$id"):
                raise _Unsure
        branches = schema[keyword]
        if type(branches) is not list:
            raise _Unsure
        types: set[str] = set()
        literals: dict[str, set[tuple[type, Any]]] = {}
        leaf, slots_of = self.leaf, _SLOTS_OF_ONE
        for branch in branches:
            # A branch of leaf keywords and one named kind (`{"type": "null"}`, most branches) is
            # what `node` finds for it without the calls: that kind's slots and no literal.
            kind = branch.get("type") if type(branch) is dict and branch.keys() <= leaf else None
            members = (slots_of[kind], {}) if type(kind) is str and kind in slots_of else self.node(branch)
            if members is None:
                raise _Unsure
            branch_types, branch_literals = members
            for slot in branch_types:
                if slot in types or slot in literals:
                    raise _Unsure
                types.add(slot)
            for slot, values in branch_literals.items():
                if slot in types:
                    raise _Unsure
                known = literals.setdefault(slot, set())
                if keyword == "oneOf" and not known.isdisjoint(values):
                    raise _Unsure  # two branches admit the same value
                known |= values
        if not types and not literals:
            raise _Unsure
        return types, literals

    def _simple(self, schema: dict[str, Any]) -> _Members:
        declared = schema.get("type")
        if declared is None:
            kinds: Any = _ALL_KINDS
        elif type(declared) is str:
            if declared not in _SLOTS_OF_KIND:
                raise _Unsure
            kinds = _ONE_KIND[declared]
        elif type(declared) is list and declared:
            for name in declared:
                if type(name) is not str or name not in _SLOTS_OF_KIND:
                    raise _Unsure
            kinds = frozenset(declared)
        else:
            raise _Unsure
        if "enum" in schema or "const" in schema:
            return self._literals(schema, kinds)
        constrained = not schema.keys().isdisjoint(KIND_KEYWORDS)
        if not constrained and len(kinds) == len(_ALL_KINDS):
            return None
        types = _SLOTS_OF_KINDS.get(kinds)
        if types is None:
            types = frozenset(slot for kind in kinds for slot in _SLOTS_OF_KIND[kind])
        if constrained:
            if "int" in types:
                self._integer(schema, number="float" in types)
            if "float" in types:
                self._float(schema)
            if "str" in types:
                _lengths(schema, "minLength", "maxLength")
                if "pattern" in schema:
                    pattern = schema["pattern"]
                    if type(pattern) is not str or not _pattern_translates(pattern):
                        raise _Unsure
        if "array" in types:
            self._array(schema)
        if "object" in types:
            self._object(schema)
        return types, {}

    def _literals(self, schema: dict[str, Any], kinds: frozenset[str]) -> _Members:
        for key in schema:
            if key in KIND_KEYWORDS:
                raise _Unsure
        if "enum" in schema:
            enum = schema["enum"]
            if type(enum) is not list:
                raise _Unsure
            values = [v for v in enum if json_equal(v, schema["const"])] if "const" in schema else enum
        else:
            values = [schema["const"]]
        literals: dict[str, set[tuple[type, Any]]] = {}
        for value in values:
            if json_kinds_of_value(value).isdisjoint(kinds):
                continue
            if isinstance(value, float) and value.is_integer() and INT64_MIN <= value <= INT64_MAX:
                value = int(value)
            slot = slot_of_value(value)
            if slot is None:
                raise _Unsure
            # The same literal is the same type and an equal value; those in a slot are hashable.
            literals.setdefault(slot, set()).add((type(value), value))
        if not literals:
            raise _Unsure
        return frozenset(), literals

    def _integer(self, schema: dict[str, Any], *, number: bool) -> None:
        _bounds(schema)
        if "multipleOf" in schema:
            divisor = schema["multipleOf"]
            if number or type(divisor) is not int or not 0 < divisor <= INT64_MAX:
                raise _Unsure

    def _float(self, schema: dict[str, Any]) -> None:
        _bounds(schema)

    def _array(self, schema: dict[str, Any]) -> None:
        items = schema.get("items", True)
        if type(items) is dict and items.keys() <= self.leaf:
            # Leaf keywords alone, with no `type` or one named kind: `node` accepts it as it is.
            kind = items.get("type")
            if kind is None or (type(kind) is str and kind in _SLOTS_OF_KIND):
                items = True
        if items is not True:
            self.node(items)
        _lengths(schema, "minItems", "maxItems")

    def _object(self, schema: dict[str, Any]) -> None:
        properties = schema.get("properties", {})
        required = schema.get("required", [])
        if type(properties) is not dict or type(required) is not list:
            raise _Unsure
        extra = schema.get("additionalProperties", True)
        if extra == {}:
            extra = True
        if properties or required:
            if extra is not True and extra is not False:
                raise _Unsure
            if "minProperties" in schema or "maxProperties" in schema:
                raise _Unsure
            if len(properties) + len(required) > WIDEST_OBJECT:
                raise _Unsure  # perhaps too wide (a required name may be listed too): the translator decides
            try:  # one search over every name: each character is judged on its own
                names = "".join(properties) + "".join(required)
            except TypeError:  # a name that is not a string
                raise _Unsure from None
            if _UNRENAMABLE.search(names) is not None:
                raise _Unsure
            if extra is False and not properties.keys() >= set(required):
                raise _Unsure  # a closed object requiring a name it does not list: the translator refuses
            node, leaf, kinds = self.node, self.leaf, _SLOTS_OF_KIND
            for subschema in properties.values():
                if type(subschema) is dict and subschema.keys() <= leaf:
                    kind = subschema.get("type")
                    if kind is None or (type(kind) is str and kind in kinds):
                        continue
                node(subschema)
            return
        _lengths(schema, "minProperties", "maxProperties")
        if extra is not True and extra is not False:
            self.node(extra)


def _bounds(schema: dict[str, Any]) -> None:
    """Bounds the translator turns into 64-bit integers and exact 64-bit floats (``true`` and
    ``false`` are draft 4's exclusive flags, which only qualify the other bounds)."""
    for keyword in _NUMERIC_BOUNDS:
        if keyword in schema:
            value = schema[keyword]
            if type(value) is bool and keyword.startswith("exclusive"):
                continue
            _bound(value)


def _bound(value: Any) -> None:
    kind = type(value)
    if kind is int:
        if not -_SAFE_INT <= value <= _SAFE_INT:
            raise _Unsure
    elif kind is float:
        if not math.isfinite(value) or not -_SAFE_INT <= value <= _SAFE_INT:
            raise _Unsure
    else:
        raise _Unsure


def _lengths(schema: dict[str, Any], low: str, high: str) -> None:
    for keyword in (low, high):
        if keyword in schema:
            value = schema[keyword]
            if type(value) is not int or not 0 <= value <= INT64_MAX:
                raise _Unsure

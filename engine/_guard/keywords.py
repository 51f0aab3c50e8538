"""Which keywords hold subschemas, per dialect, and how each applies them to the instance.

*In place* keywords apply their subschemas to the same instance location (``allOf``, ``not``,
``if``, ``$ref``...): a chain of them that loops never terminates. *Descending* keywords apply
their subschemas to a child of the instance (``properties``, ``items``...): a loop through them is
recursion bounded by the instance's depth. ``$defs`` / ``definitions`` only hold schemas for
``$ref``. Anything else (``enum``, ``const``, ``default``, unknown keywords) is data, not schema.
"""

from __future__ import annotations

from enum import Enum

from .._dialect import Dialect

__all__ = ["Shape", "Applies", "KEYWORDS", "ID_KEYWORD"]


class Shape(Enum):
    ONE = "one"  # a schema
    LIST = "list"  # an array of schemas
    MAP = "map"  # an object whose values are schemas
    ONE_OR_LIST = "one-or-list"  # `items` before 2020-12
    MAP_OF_SCHEMA_OR_LIST = "map-of-schema-or-list"  # draft 4-7 `dependencies`


class Applies(Enum):
    IN_PLACE = "in-place"
    DESCEND = "descend"
    HOLD = "hold"  # `$defs`: reached only through `$ref`


_COMMON = {
    "allOf": (Shape.LIST, Applies.IN_PLACE),
    "anyOf": (Shape.LIST, Applies.IN_PLACE),
    "oneOf": (Shape.LIST, Applies.IN_PLACE),
    "not": (Shape.ONE, Applies.IN_PLACE),
    "properties": (Shape.MAP, Applies.DESCEND),
    "patternProperties": (Shape.MAP, Applies.DESCEND),
    "additionalProperties": (Shape.ONE, Applies.DESCEND),
    "definitions": (Shape.MAP, Applies.HOLD),
}
_DRAFT4 = {
    **_COMMON,
    "items": (Shape.ONE_OR_LIST, Applies.DESCEND),
    "additionalItems": (Shape.ONE, Applies.DESCEND),
    "dependencies": (Shape.MAP_OF_SCHEMA_OR_LIST, Applies.IN_PLACE),
}
_DRAFT6 = {**_DRAFT4, "contains": (Shape.ONE, Applies.DESCEND), "propertyNames": (Shape.ONE, Applies.DESCEND)}
_DRAFT7 = {
    **_DRAFT6,
    "if": (Shape.ONE, Applies.IN_PLACE),
    "then": (Shape.ONE, Applies.IN_PLACE),
    "else": (Shape.ONE, Applies.IN_PLACE),
}
_DRAFT2019 = {
    **{k: v for k, v in _DRAFT7.items() if k != "dependencies"},
    "$defs": (Shape.MAP, Applies.HOLD),
    "dependentSchemas": (Shape.MAP, Applies.IN_PLACE),
    "unevaluatedItems": (Shape.ONE, Applies.DESCEND),
    "unevaluatedProperties": (Shape.ONE, Applies.DESCEND),
    "contentSchema": (Shape.ONE, Applies.HOLD),  # an annotation: never applied by a validator
}
_DRAFT2020 = {
    **{k: v for k, v in _DRAFT2019.items() if k != "additionalItems"},
    "items": (Shape.ONE, Applies.DESCEND),
    "prefixItems": (Shape.LIST, Applies.DESCEND),
}

KEYWORDS: dict[Dialect, dict[str, tuple[Shape, Applies]]] = {
    Dialect.DRAFT4: _DRAFT4,
    Dialect.DRAFT6: _DRAFT6,
    Dialect.DRAFT7: _DRAFT7,
    Dialect.DRAFT2019_09: _DRAFT2019,
    Dialect.DRAFT2020_12: _DRAFT2020,
}

ID_KEYWORD = {d: ("id" if d is Dialect.DRAFT4 else "$id") for d in Dialect}

# Keywords whose subschemas are combinator branches (counted against `max_branches`).
COMBINATORS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})

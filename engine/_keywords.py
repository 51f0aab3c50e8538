"""What each dialect's keywords are, as data: one immutable table per dialect.

Every stage that needs keyword facts reads them here (the guard's walk, the backends' translations
and lowerings); each keeps only its own policy on top (what it translates, what it refuses).

*Applicators* hold subschemas. *In place* applicators apply them to the same instance location
(``allOf``, ``not``, ``if``, ...): a chain of them that loops never terminates. *Descending* ones
apply them to a child of the instance (``properties``, ``items``, ...): a loop through them is
recursion bounded by the instance's depth. ``$defs`` / ``definitions`` only *hold* schemas for
``$ref``. Every other keyword's value is data: *assertions* decide validity from it (``type``,
``enum``, ``minimum``, ...), *annotations* never do (``title``, ``default``, ...), *identifiers*
name resources and anchors, *references* point at other schemas. ``format`` and the ``content*``
keywords assert or annotate depending on the dialect and the configuration, so they are kept apart.

The table follows what the engine's general backend (jsonschema-rs) evaluates, which is the
specification plus one legacy keyword: ``dependencies`` is still applied in 2019-09 and 2020-12
(the suite's optional dependencies-compatibility tests), so it is an applicator there too.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from types import MappingProxyType
from typing import Any

import msgspec

from ._dialect import Dialect

__all__ = [
    "subschemas",
    "ANCHORS",
    "ANNOTATIONS",
    "CONTENT",
    "KEYWORDS",
    "KNOWN_IN_ANY_DIALECT",
    "Applies",
    "DialectKeywords",
    "Shape",
]


class Shape(Enum):
    """How an applicator's value holds its subschemas."""

    ONE = "one"  # a schema
    LIST = "list"  # an array of schemas
    MAP = "map"  # an object whose values are schemas
    ONE_OR_LIST = "one-or-list"  # `items` before 2020-12
    MAP_OF_SCHEMA_OR_LIST = "map-of-schema-or-list"  # `dependencies`: a schema, or a list of names


class Applies(Enum):
    """Where an applicator's subschemas apply."""

    IN_PLACE = "in-place"
    DESCEND = "descend"
    HOLD = "hold"  # `$defs`: reached only through `$ref`


class DialectKeywords(msgspec.Struct, frozen=True):
    """The keyword facts of one dialect."""

    dialect: Dialect
    applicators: Mapping[str, tuple[Shape, Applies]]
    """Keywords whose values hold subschemas: their shape, and where they apply."""
    assertions: frozenset[str]
    """Data-valued keywords that decide validity (``format`` and ``content*`` aside)."""
    identifiers: frozenset[str]
    """``$schema``, the id keyword, anchors, ``$vocabulary``."""
    references: frozenset[str]
    """Keywords whose value is a URI reference to a schema."""
    id_keyword: str
    """``id`` in draft 4, ``$id`` after."""

    @property
    def known(self) -> frozenset[str]:
        """Every keyword the dialect gives a meaning to."""
        return frozenset(self.applicators) | self.assertions | self.identifiers | self.references | _ALWAYS

    @property
    def data(self) -> frozenset[str]:
        """Keywords whose values are data, never schemas."""
        return self.assertions | self.identifiers | ANNOTATIONS | CONTENT_DATA | {"format"}


ANNOTATIONS = frozenset(
    {"title", "description", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly"}
)
"""Keywords that never change whether an instance is valid, in any dialect."""
CONTENT = frozenset({"contentMediaType", "contentEncoding", "contentSchema"})
"""Annotations from 2019-09; draft 7 asserts ``contentMediaType`` / ``contentEncoding``."""
CONTENT_DATA = CONTENT - {"contentSchema"}
ANCHORS = frozenset({"$anchor", "$dynamicAnchor", "$recursiveAnchor"})
_ALWAYS = ANNOTATIONS | CONTENT | {"format"}

_IN_PLACE, _DESCEND, _HOLD = Applies.IN_PLACE, Applies.DESCEND, Applies.HOLD

_COMMON_APPLICATORS = {
    "allOf": (Shape.LIST, _IN_PLACE),
    "anyOf": (Shape.LIST, _IN_PLACE),
    "oneOf": (Shape.LIST, _IN_PLACE),
    "not": (Shape.ONE, _IN_PLACE),
    "properties": (Shape.MAP, _DESCEND),
    "patternProperties": (Shape.MAP, _DESCEND),
    "additionalProperties": (Shape.ONE, _DESCEND),
    "definitions": (Shape.MAP, _HOLD),
    "dependencies": (Shape.MAP_OF_SCHEMA_OR_LIST, _IN_PLACE),
}
_DRAFT4_APPLICATORS = {
    **_COMMON_APPLICATORS,
    "items": (Shape.ONE_OR_LIST, _DESCEND),
    "additionalItems": (Shape.ONE, _DESCEND),
}
_DRAFT6_APPLICATORS = {
    **_DRAFT4_APPLICATORS,
    "contains": (Shape.ONE, _DESCEND),
    "propertyNames": (Shape.ONE, _DESCEND),
}
_DRAFT7_APPLICATORS = {
    **_DRAFT6_APPLICATORS,
    "if": (Shape.ONE, _IN_PLACE),
    "then": (Shape.ONE, _IN_PLACE),
    "else": (Shape.ONE, _IN_PLACE),
}
_DRAFT2019_APPLICATORS = {
    **_DRAFT7_APPLICATORS,
    "$defs": (Shape.MAP, _HOLD),
    "dependentSchemas": (Shape.MAP, _IN_PLACE),
    "unevaluatedItems": (Shape.ONE, _DESCEND),
    "unevaluatedProperties": (Shape.ONE, _DESCEND),
    "contentSchema": (Shape.ONE, _HOLD),  # an annotation: never applied by a validator
}
_DRAFT2020_APPLICATORS = {
    **{k: v for k, v in _DRAFT2019_APPLICATORS.items() if k != "additionalItems"},
    "items": (Shape.ONE, _DESCEND),
    "prefixItems": (Shape.LIST, _DESCEND),
}

_DRAFT4_ASSERTIONS = frozenset(
    {
        "type",
        "enum",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "maxLength",
        "minLength",
        "pattern",
        "maxItems",
        "minItems",
        "uniqueItems",
        "maxProperties",
        "minProperties",
        "required",
    }
)
_DRAFT6_ASSERTIONS = _DRAFT4_ASSERTIONS | {"const"}
_DRAFT2019_ASSERTIONS = _DRAFT6_ASSERTIONS | {"maxContains", "minContains", "dependentRequired"}


def _table(
    dialect: Dialect,
    applicators: dict[str, tuple[Shape, Applies]],
    assertions: frozenset[str],
) -> DialectKeywords:
    modern = dialect.is_modern
    id_keyword = "id" if dialect is Dialect.DRAFT4 else "$id"
    identifiers = {"$schema", id_keyword}
    references = {"$ref"}
    if modern:
        identifiers |= {"$anchor", "$vocabulary"}
        identifiers |= {"$dynamicAnchor"} if dialect is Dialect.DRAFT2020_12 else {"$recursiveAnchor"}
        references |= {"$dynamicRef"} if dialect is Dialect.DRAFT2020_12 else {"$recursiveRef"}
    return DialectKeywords(
        dialect=dialect,
        applicators=MappingProxyType(applicators),
        assertions=assertions,
        identifiers=frozenset(identifiers),
        references=frozenset(references),
        id_keyword=id_keyword,
    )


KEYWORDS: Mapping[Dialect, DialectKeywords] = MappingProxyType(
    {
        Dialect.DRAFT4: _table(Dialect.DRAFT4, _DRAFT4_APPLICATORS, _DRAFT4_ASSERTIONS),
        Dialect.DRAFT6: _table(Dialect.DRAFT6, _DRAFT6_APPLICATORS, _DRAFT6_ASSERTIONS),
        Dialect.DRAFT7: _table(Dialect.DRAFT7, _DRAFT7_APPLICATORS, _DRAFT6_ASSERTIONS),
        Dialect.DRAFT2019_09: _table(Dialect.DRAFT2019_09, _DRAFT2019_APPLICATORS, _DRAFT2019_ASSERTIONS),
        Dialect.DRAFT2020_12: _table(Dialect.DRAFT2020_12, _DRAFT2020_APPLICATORS, _DRAFT2019_ASSERTIONS),
    }
)

KNOWN_IN_ANY_DIALECT: frozenset[str] = frozenset().union(*(table.known for table in KEYWORDS.values()))
"""A keyword outside this set means nothing in any supported dialect: every validator ignores it."""


def subschemas(value: Any, shape: Shape) -> list[Any]:
    """The subschemas a keyword's ``value`` of ``shape`` holds (a boolean one too)."""
    if shape is Shape.ONE:
        return [value]
    if shape is Shape.LIST or (shape is Shape.ONE_OR_LIST and type(value) is list):
        return value if type(value) is list else []
    if shape is Shape.ONE_OR_LIST:
        return [value]
    values = list(value.values()) if type(value) is dict else []
    if shape is Shape.MAP_OF_SCHEMA_OR_LIST:  # `dependencies`: a list of names is no schema
        return [v for v in values if type(v) is dict or type(v) is bool]
    return values

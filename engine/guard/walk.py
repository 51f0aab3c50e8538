"""One pass over a schema document: every subschema gets a node, every resource and anchor is
indexed, every reference is recorded, and the budget's measurements are taken on the way.

The walk is iterative (a hostile document cannot exhaust the Python stack) and visits each JSON
value at most once (a Python object shared between places is one node), so it is linear in the
document's size.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urljoin

from ..dialect import _BY_URI, Dialect
from .keywords import COMBINATORS, ID_KEYWORD, KEYWORDS, Applies, Shape

__all__ = ["DEFAULT_BASE", "Graph", "Measure", "join_uri", "split_uri"]

DEFAULT_BASE = "json-schema:///"
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")


def join_uri(base: str, ref: str) -> str:
    """``ref`` resolved against ``base`` (RFC 3986, with fragment-only and URN bases handled)."""
    if _SCHEME.match(ref):
        return ref
    if ref.startswith("#"):
        return base.split("#", 1)[0] + ref
    return urljoin(base, ref)


def split_uri(uri: str) -> tuple[str, str]:
    """(resource URI, fragment); an empty fragment and no fragment are the same resource."""
    resource, _, fragment = uri.partition("#")
    return resource, fragment


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


class Measure:
    """The largest value of one measured quantity, and the node where it was seen."""

    __slots__ = ("node", "value")

    def __init__(self) -> None:
        self.value = 0
        self.node = -1

    def see(self, value: int, node: int) -> None:
        if value > self.value:
            self.value = value
            self.node = node


class Graph:
    """The schema as a graph of nodes (one per subschema), built document by document."""

    def __init__(self) -> None:
        self.obj: list[Any] = []
        self.parent: list[int] = []
        self.token: list[str] = []  # the pointer suffix from the parent (already escaped)
        self.doc: list[str] = []  # the document (root resource URI) a node belongs to
        self.base: list[str] = []
        self.dialect: list[Dialect] = []
        self.in_place: list[list[int]] = []
        self.descend: list[list[int]] = []
        self.per_child: list[int] = []  # descending keywords of a node that may reach one child
        self.refs: list[tuple[int, str, str]] = []  # (node, keyword, absolute target URI)
        self.resources: dict[str, int] = {}
        self.anchors: dict[tuple[str, str], int] = {}
        self.dynamic_anchors: dict[str, list[int]] = {}
        self.recursive_anchors: list[int] = []
        self.patterns: list[tuple[int, str, str]] = []  # (node, keyword, pattern)
        self._by_obj: dict[int, int] = {}
        self.depth: list[int] = []
        self.unevaluated: list[int] = []
        # Measurements named after the limit that bounds them.
        self.measures: dict[str, Measure] = {
            name: Measure()
            for name in (
                "max_schema_depth",
                "max_subschemas",
                "max_branches",
                "max_properties",
                "max_enum",
                "max_unevaluated_nesting",
                "max_pattern_length",
            )
        }

    # -- locations ---------------------------------------------------------------------------

    def pointer(self, node: int) -> str:
        """JSON pointer of ``node`` inside its document (prefixed by the document URI when that
        document is not the schema itself)."""
        parts: list[str] = []
        while node >= 0 and self.parent[node] >= 0:
            parts.append(self.token[node])
            node = self.parent[node]
        where = "".join(reversed(parts))
        doc = self.doc[node] if node >= 0 else ""
        return where if not doc else f"{doc}#{where}"

    # -- the walk ----------------------------------------------------------------------------

    def node_of(self, value: Any) -> int | None:
        return self._by_obj.get(id(value)) if isinstance(value, Mapping) else None

    def add_document(self, document: Any, base: str, dialect: Dialect, *, doc: str = "") -> int:
        """Walk ``document`` (a schema resource) and return its root node."""
        root = self.walk(document, base, dialect, parent=-1, token="", doc=doc)
        self.resources.setdefault(split_uri(base)[0], root)
        return root

    def walk(self, value: Any, base: str, dialect: Dialect, *, parent: int, token: str, doc: str) -> int:
        stack: list[tuple[Any, str, Dialect, int, str, Applies | None]] = [(value, base, dialect, parent, token, None)]
        first = -1
        measures = self.measures
        depth_m, count_m, branch_m = measures["max_schema_depth"], measures["max_subschemas"], measures["max_branches"]
        props_m, enum_m, uneval_m = measures["max_properties"], measures["max_enum"], measures["max_unevaluated_nesting"]
        pattern_m = measures["max_pattern_length"]
        while stack:
            value, base, dialect, parent, token, applies = stack.pop()
            is_map = isinstance(value, Mapping)
            if is_map:
                seen = self._by_obj.get(id(value))
                if seen is not None:
                    if parent >= 0:
                        self._link(parent, seen, applies)
                    if first < 0:
                        first = seen
                    continue
            node = len(self.obj)
            self.obj.append(value)
            self.parent.append(parent)
            self.token.append(token)
            self.doc.append(doc)
            self.in_place.append([])
            self.descend.append([])
            self.per_child.append(0)
            depth = self.depth[parent] + 1 if parent >= 0 else 1
            self.depth.append(depth)
            uneval = self.unevaluated[parent] if parent >= 0 else 0
            if first < 0:
                first = node
            if parent >= 0:
                self._link(parent, node, applies)
            depth_m.see(depth, node)
            count_m.see(node + 1, 0)
            if not is_map:
                self.base.append(base)
                self.dialect.append(dialect)
                self.unevaluated.append(uneval)
                continue
            self._by_obj[id(value)] = node

            # A resource may declare its own dialect.
            schema_uri = value.get("$schema")
            if isinstance(schema_uri, str) and (parent < 0 or ID_KEYWORD[dialect] in value):
                dialect = _BY_URI.get(schema_uri, dialect)
            legacy_ref = not dialect.is_modern and isinstance(value.get("$ref"), str)
            base = self._identify(value, node, base, dialect, legacy_ref)
            self.base.append(base)
            self.dialect.append(dialect)

            for keyword in ("$ref", "$dynamicRef", "$recursiveRef"):
                ref = value.get(keyword)
                if isinstance(ref, str) and (keyword == "$ref" or dialect.is_modern):
                    self.refs.append((node, keyword, join_uri(base, ref)))

            if "unevaluatedProperties" in value or "unevaluatedItems" in value:
                uneval += 1
                uneval_m.see(uneval, node)
            self.unevaluated.append(uneval)
            enum = value.get("enum")
            if isinstance(enum, list):
                enum_m.see(len(enum), node)
            pattern = value.get("pattern")
            if isinstance(pattern, str):
                self.patterns.append((node, "pattern", pattern))
                pattern_m.see(len(pattern), node)

            per_child = 0
            for keyword, (shape, how) in KEYWORDS[dialect].items():
                sub = value.get(keyword)
                if sub is None:
                    continue
                if legacy_ref:
                    how = Applies.HOLD  # draft 4-7: `$ref` overrides its siblings
                if shape is Shape.ONE_OR_LIST:
                    shape = Shape.LIST if isinstance(sub, list) else Shape.ONE
                if shape is Shape.ONE:
                    stack.append((sub, base, dialect, node, "/" + keyword, how))
                    if how is Applies.DESCEND:
                        per_child += 1
                elif shape is Shape.LIST and isinstance(sub, list):
                    if keyword in COMBINATORS:
                        branch_m.see(len(sub), node)
                    for i in range(len(sub) - 1, -1, -1):
                        stack.append((sub[i], base, dialect, node, f"/{keyword}/{i}", how))
                    if how is Applies.DESCEND and sub:
                        per_child += 1  # each position is reached by one of them
                elif isinstance(sub, Mapping):
                    if keyword in ("properties", "patternProperties", "dependentSchemas", "dependencies"):
                        props_m.see(len(sub), node)
                    if keyword == "patternProperties":
                        for key in sub:
                            if isinstance(key, str):
                                self.patterns.append((node, "patternProperties", key))
                                pattern_m.see(len(key), node)
                        per_child += len(sub)  # every pattern may match the same name
                    elif keyword == "properties" and sub:
                        per_child += 1  # one name, one property schema
                    for key in reversed(list(sub)):
                        child = sub[key]
                        if shape is Shape.MAP_OF_SCHEMA_OR_LIST and not isinstance(child, (Mapping, bool)):
                            continue
                        stack.append((child, base, dialect, node, f"/{keyword}/{_escape(key)}", how))
            self.per_child[node] = per_child
        return first

    def add_hub(self, targets: list[int]) -> int:
        """A node standing for "any of ``targets``" (the dynamic scope of a dynamic reference)."""
        hub = len(self.obj)
        for table, value in ((self.obj, True), (self.parent, -1), (self.token, ""), (self.doc, ""), (self.base, ""),
                             (self.dialect, Dialect.DRAFT2020_12), (self.per_child, 0), (self.depth, 0),
                             (self.unevaluated, 0)):
            table.append(value)  # type: ignore[attr-defined]
        self.in_place.append(list(targets))
        self.descend.append([])
        return hub

    def _link(self, parent: int, child: int, applies: Applies | None) -> None:
        if applies is Applies.IN_PLACE:
            self.in_place[parent].append(child)
        elif applies is Applies.DESCEND:
            self.descend[parent].append(child)

    def _identify(self, value: Mapping[str, Any], node: int, base: str, dialect: Dialect, legacy_ref: bool) -> str:
        """Register the resource and anchors ``value`` declares; return its base URI."""
        ident = value.get(ID_KEYWORD[dialect])
        if isinstance(ident, str) and not legacy_ref:
            if not dialect.is_modern and ident.startswith("#"):
                # draft 4-7: a fragment-only id is a plain-name anchor in the current resource.
                if len(ident) > 1:
                    self.anchors.setdefault((split_uri(base)[0], ident[1:]), node)
            else:
                resource, fragment = split_uri(join_uri(base, ident))
                base = resource
                self.resources.setdefault(resource, node)
                if fragment and not dialect.is_modern:
                    self.anchors.setdefault((resource, fragment), node)
        if dialect.is_modern:
            resource = split_uri(base)[0]
            anchor = value.get("$anchor")
            if isinstance(anchor, str):
                self.anchors.setdefault((resource, anchor), node)
            if dialect is Dialect.DRAFT2020_12:
                dynamic = value.get("$dynamicAnchor")
                if isinstance(dynamic, str):
                    self.anchors.setdefault((resource, dynamic), node)
                    self.dynamic_anchors.setdefault(dynamic, []).append(node)
            elif value.get("$recursiveAnchor") is True:
                self.recursive_anchors.append(node)
        return base

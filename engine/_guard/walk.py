"""One pass over a schema document: every subschema gets a node, every resource and anchor is
indexed, every reference is recorded, and the budget's measurements are taken on the way.

The walk is iterative (a hostile document cannot exhaust the Python stack) and visits each JSON
value once, so it is linear in the document's size (which intake has bounded, counting a Python
object shared between places once per place). The graph never holds more nodes than its limit
(``max_subschemas``): a walk that would pass it stops there and refuses the schema.

A reference into a place no walk has reached (inside ``const``, ``enum`` or an unknown keyword)
walks that place as a subschema. A later reference to a place enclosing it walks the enclosing
place, and links the place already walked instead of walking it again (when it is reached with
the same base URI and dialect): each such place is walked once, whatever order the references
come in.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._dialect import Dialect, dialect_for_uri
from .._errors import RejectReason, SchemaRejected
from .._keywords import ANCHORS, KEYWORDS, Applies, Shape
from .._pointer import escape
from .budget import LIMIT_MEANINGS
from .uris import join_uri, split_uri

__all__ = ["DEFAULT_BASE", "MAX_URI_LENGTH", "Graph", "too_many_subschemas"]

DEFAULT_BASE = "json-schema:///"


def too_many_subschemas(count: int, bound: int) -> SchemaRejected:
    """The refusal of a walk stopped at the subschema limit: ``count`` subschemas seen so far, a
    lower bound of the schema's (the rest is not counted)."""
    return SchemaRejected(
        RejectReason.LIMIT_EXCEEDED,
        f"schema exceeds max_subschemas at the root: {LIMIT_MEANINGS['max_subschemas']} is at least "
        f"{count}, over the limit of {bound}",
        location="",
        details={"limit": "max_subschemas", "measured": count, "bound": bound},
    )


# The longest resource URI an `$id` may resolve to. Each nested `$id` resolves against the one
# above it, so a chain of long ones makes a base as long as most of the document, and every
# resource below it and every reference read against it a new string that long (35 nested `$id`s
# of 24 KB, then 2,000 short ones: 10 s and 1.7 GB), which jsonschema-rs resolves again in its
# build (9,800 short `$id`s under an 8,000-character base: 2 s of its compile). Real identifiers
# are far shorter.
MAX_URI_LENGTH = 2048


def _uri_too_long(location: str, uri: str) -> SchemaRejected:
    return SchemaRejected(
        RejectReason.INVALID_SCHEMA,
        f"the identifier at {location or 'the root'} resolves to a URI of {len(uri)} characters, "
        f"over the {MAX_URI_LENGTH} an identifier may have here",
        location=location,
        details={"uri_length": len(uri), "bound": MAX_URI_LENGTH},
    )


def _dialect_within(location: str, uri: Any, dialect: Dialect) -> SchemaRejected:
    # The backends read such a subschema in the dialect it names (where `if`, `dependentSchemas`
    # or `contains` may be keywords its resource's dialect does not have), the guard and the work
    # bound in its resource's: what they walk would not be what runs.
    return SchemaRejected(
        RejectReason.UNSUPPORTED_DIALECT,
        f"$schema at {location} names {uri!r}, not the dialect its resource is read in ({dialect.value}): "
        "a dialect may change only at the root of a resource (a subschema with its own identifier), "
        "to a dialect the engine supports",
        location=location + "/$schema",
        details={"dialect": uri if isinstance(uri, str) else repr(uri)[:200]},
    )


# Keywords whose subschemas are combinator branches (counted against `max_branches`).
COMBINATORS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})

# A schema object holding none of these takes the walk's fast path: no resource, anchor or
# reference to index, nothing to measure but its applicators.
_SPECIAL = frozenset(
    {"$id", "id", "$schema", "$ref", "$dynamicRef", "$recursiveRef",
     "enum", "pattern", "unevaluatedProperties", "unevaluatedItems"} | ANCHORS
)  # fmt: skip
# The keywords each part of that path reads: it skips a part whose keywords are all absent.
_IDENTIFYING = frozenset({"$id", "id"} | ANCHORS)
_REFERRING = frozenset({"$ref", "$dynamicRef", "$recursiveRef"})
_MEASURED = frozenset({"unevaluatedProperties", "unevaluatedItems", "enum", "pattern"})
_MAPPING_SHAPES = (Shape.MAP, Shape.MAP_OF_SCHEMA_OR_LIST)
# Bound once: an Enum member read from its class is an attribute lookup through the metaclass,
# several per keyword of every subschema in the walk below.
_IN_PLACE, _DESCEND, _HOLD = Applies.IN_PLACE, Applies.DESCEND, Applies.HOLD
_ONE, _LIST, _ONE_OR_LIST, _LEGACY_MAP = Shape.ONE, Shape.LIST, Shape.ONE_OR_LIST, Shape.MAP_OF_SCHEMA_OR_LIST
# Plain dicts: a lookup per keyword of every schema object, cheaper than the read-only views.
APPLICATORS: dict[Dialect, dict[str, tuple[Shape, Applies]]] = {d: dict(KEYWORDS[d].applicators) for d in Dialect}
# One lookup (a Dialect's hash is a Python-level call): the table and its keywords as a set.
_TABLES = {d: (APPLICATORS[d], frozenset(APPLICATORS[d])) for d in Dialect}


class Graph:
    """The schema as a graph of nodes (one per subschema), built document by document.

    Per node: its JSON value, parent and pointer token (for locations), document, base URI and
    dialect (for references reached later). Edges are kept only for nodes that have them.
    """

    def __init__(self, limit: int | None = None) -> None:
        self.limit = limit
        """The most nodes a walk may make (``max_subschemas``); ``None``: no limit."""
        self.obj: list[Any] = []
        self.parent: list[int] = []
        self.token: list[str] = []  # the pointer suffix from the parent (already escaped)
        self.doc: list[str] = []  # the document (root resource URI) a node belongs to, "" for the schema
        self.base: list[str] = []
        self.dialect: list[Dialect] = []
        self.in_place: dict[int, list[int]] = {}
        self.descend: dict[int, list[int]] = {}
        self.per_child: dict[int, int] = {}  # descending keywords of a node that may reach one child
        # (node, keyword, base URI, reference as written): resolved by `locate`, once per pair
        self.refs: list[tuple[int, str, str, str]] = []
        self.resources: dict[str, int] = {}
        # (URI, a later node declaring it again): resource URIs and anchors, judged in refs.py
        self.redeclared: list[tuple[str, int]] = []
        self.anchors: dict[tuple[str, str], int] = {}
        self.dynamic_anchors: dict[str, list[int]] = {}
        self.recursive_anchors: list[int] = []
        self.patterns: list[tuple[int, str, str]] = []  # (node, keyword, pattern)
        self._by_obj: dict[int, int] = {}
        # Places walked on a reference's demand (inside data): the id of each one's value -> its
        # nodes, and per node what a walk reaching it again needs, to link it instead: the base
        # URI and dialect it was walked with, its deepest subschema (depth below it, node) and its
        # most nested `unevaluated*` scope (count below it, node).
        self._demanded: dict[int, list[int]] = {}
        self._summary: dict[int, tuple[str, Dialect, int, int, int, int]] = {}
        # (parent, pointer suffix, node): a place linked where a walk reached it again, for the
        # lookup of later references (refs.py's `_Places`), as if it had been walked there.
        self.aliases: list[tuple[int, str, int]] = []
        self._located: dict[tuple[str, str], tuple[str, str]] = {}
        self.max_depth_seen = 0  # the deepest subschema nesting
        self.unevaluated_scopes: set[int] = set()
        self.in_place_chain = 0  # the longest in-place chain of the tree, references not followed
        # Measurements named after the limit that bounds them: (largest value, node where seen).
        self.measures: dict[str, list[int]] = {
            name: [0, -1]
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
        if node < 0:
            return ""
        parts: list[str] = []
        while self.parent[node] >= 0:
            parts.append(self.token[node])
            node = self.parent[node]
        parts.append(self.token[node])
        where = "".join(reversed(parts))
        doc = self.doc[node]
        return where if not doc else f"{doc}#{where}"

    def locate(self, base: str, ref: str) -> tuple[str, str]:
        """(resource URI, fragment) of ``ref`` read against ``base``, as ``split_uri(join_uri(base,
        ref))``. A base URI can be as long as the `$id`s nested above it (most of the document):
        each pair is resolved once, and a fragment-only reference shares its base's string
        instead of copying it (a few thousand references under a long base were gigabytes)."""
        key = (base, ref)
        found = self._located.get(key)
        if found is None:
            if ref.startswith("#"):
                found = (self._located.get((base, "#")) or (base.split("#", 1)[0], ""))[0], ref[1:]
                self._located.setdefault((base, "#"), (found[0], ""))
            else:
                found = split_uri(join_uri(base, ref))
            self._located[key] = found
        return found

    # -- the walk ----------------------------------------------------------------------------

    def node_of(self, value: Any) -> int | None:
        return self._by_obj.get(id(value)) if isinstance(value, Mapping) else None

    def add_document(self, document: Any, base: str, dialect: Dialect, *, doc: str = "") -> int:
        """Walk ``document`` (a schema resource) and return its root node."""
        root = self.walk(document, base, dialect, parent=-1, token="", doc=doc)
        self.resources.setdefault(split_uri(base)[0], root)
        return root

    def add_hub(self, targets: list[int]) -> int:
        """A node standing for "any of ``targets``" (the dynamic scope of a dynamic reference)."""
        hub = len(self.obj)
        self.obj.append(True)
        self.parent.append(-1)
        self.token.append("")
        self.doc.append("")
        self.base.append("")
        self.dialect.append(Dialect.DRAFT2020_12)
        self.in_place[hub] = list(targets)
        return hub

    def walk(self, value: Any, base: str, dialect: Dialect, *, parent: int, token: str, doc: str) -> int:
        """Index ``value`` and everything below it; returns its node."""
        obj, parents, tokens, docs, bases, dialects = (
            self.obj,
            self.parent,
            self.token,
            self.doc,
            self.base,
            self.dialect,
        )
        by_obj, measures, patterns, refs = self._by_obj, self.measures, self.patterns, self.refs
        depth_m, branch_m, props_m = measures["max_schema_depth"], measures["max_branches"], measures["max_properties"]
        enum_m, uneval_m, pattern_m = (
            measures["max_enum"],
            measures["max_unevaluated_nesting"],
            measures["max_pattern_length"],
        )
        # (value, base, dialect, parent, token, how it applies, depth, unevaluated scopes above,
        #  length of the in-place chain it ends)
        stack: list[tuple[Any, str, Dialect, int, str, Applies | None, int, int, int]] = [
            (value, base, dialect, parent, token, None, 1, 0, 1)
        ]
        longest_chain = self.in_place_chain
        in_place, descend = self.in_place, self.descend
        in_place_kind, descend_kind = _IN_PLACE, _DESCEND
        first = -1
        cap = len(obj) + (1 << 62) if self.limit is None else self.limit
        # A walk on a reference's demand (below a parent) links the places earlier such walks
        # made instead of walking them again; it keeps the deepest subschema and the most nested
        # `unevaluated*` scope it reaches (the measurements that count from where it starts), for
        # a later walk that links it.
        demanded = self._demanded if parent >= 0 else None
        start = (value, base, dialect) if parent >= 0 else None
        deepest, deepest_at, nesting, nesting_at = 0, -1, 0, -1
        # The applicator table is looked up again only when the dialect changes (an Enum's hash
        # is a Python call: once per node it was a tenth of the walk on the real tool schemas).
        table_dialect = dialect
        table, keys = _TABLES[dialect]
        while stack:
            value, base, dialect, parent, token, applies, depth, uneval, chain = stack.pop()
            is_map = type(value) is dict or isinstance(value, Mapping)
            if demanded and is_map and id(value) in demanded:
                seen = self._walked_at(value, base, dialect, parent, token)
                if seen >= 0:
                    self.aliases.append((parent, token, seen))
                    if first < 0:
                        return seen  # this very place, walked before below another node
                    self._link(parent, seen, applies)
                    _, _, height, low, scopes, scope = self._summary[seen]
                    if depth + height - 1 > deepest:  # below `seen`: `depth - 1` deeper from here
                        deepest, deepest_at = depth + height - 1, low
                        if deepest > depth_m[0]:
                            depth_m[0], depth_m[1] = deepest, low
                    if scopes and uneval + scopes > nesting:
                        nesting, nesting_at = uneval + scopes, scope
                        if nesting > uneval_m[0]:
                            uneval_m[0], uneval_m[1] = nesting, scope
                    continue
            node = len(obj)
            if node >= cap:
                raise too_many_subschemas(node + 1, cap)
            obj.append(value)
            parents.append(parent)
            tokens.append(token)
            docs.append(doc)
            if first < 0:
                first = node
            if applies is in_place_kind:
                edges = in_place.get(parent)
                if edges is None:
                    in_place[parent] = [node]
                else:
                    edges.append(node)
            elif applies is descend_kind:
                edges = descend.get(parent)
                if edges is None:
                    descend[parent] = [node]
                else:
                    edges.append(node)
            if depth > deepest:
                deepest, deepest_at = depth, node
                if depth > depth_m[0]:
                    depth_m[0], depth_m[1] = depth, node
            if chain > longest_chain:
                longest_chain = chain
            if not is_map:
                bases.append(base)
                dialects.append(dialect)
                continue
            # A Python object shared between places is a node per place (as the backends see it);
            # references into it find the first.
            by_obj.setdefault(id(value), node)

            if not _SPECIAL.isdisjoint(value):
                # Each group read only when one of its keywords is there: most such nodes hold a
                # lone `$ref`.
                if "$schema" in value:
                    schema_uri = value["$schema"]
                    named = dialect_for_uri(schema_uri) if isinstance(schema_uri, str) else None
                    if parent >= 0 and named is None:
                        # An embedded resource may declare a dialect of its own, but no other URI:
                        # a backend reads one it does not know in a default dialect of its own.
                        raise _dialect_within(self.pointer(node), schema_uri, dialect)
                    if parent < 0 or KEYWORDS[dialect].id_keyword in value:
                        dialect = named or dialect  # a resource may declare its own dialect
                    elif named is not dialect:
                        raise _dialect_within(self.pointer(node), schema_uri, dialect)
                legacy_ref = "$ref" in value and isinstance(value["$ref"], str) and not dialect.is_modern
                if not _IDENTIFYING.isdisjoint(value):
                    base = self._identify(value, node, base, dialect, legacy_ref)
                if not _REFERRING.isdisjoint(value):
                    for keyword in ("$ref", "$dynamicRef", "$recursiveRef"):
                        ref = value.get(keyword)
                        if isinstance(ref, str) and (keyword == "$ref" or dialect.is_modern):
                            refs.append((node, keyword, base, ref))
                if not _MEASURED.isdisjoint(value):
                    if "unevaluatedProperties" in value or "unevaluatedItems" in value:
                        self.unevaluated_scopes.add(node)
                        uneval += 1
                        if uneval > nesting:
                            nesting, nesting_at = uneval, node
                        if uneval > uneval_m[0]:
                            uneval_m[0], uneval_m[1] = uneval, node
                    enum = value.get("enum")
                    if isinstance(enum, list) and len(enum) > enum_m[0]:
                        enum_m[0], enum_m[1] = len(enum), node
                    pattern = value.get("pattern")
                    if isinstance(pattern, str):
                        patterns.append((node, "pattern", pattern))
                        if len(pattern) > pattern_m[0]:
                            pattern_m[0], pattern_m[1] = len(pattern), node
            else:
                legacy_ref = False
            bases.append(base)
            dialects.append(dialect)

            if dialect is not table_dialect:
                table_dialect = dialect
                table, keys = _TABLES[dialect]
            if keys.isdisjoint(value):
                continue  # a leaf (most subschemas of a tool schema): no keyword to look up one by one
            per_child = 0
            child_depth = depth + 1
            in_chain = chain + 1
            for keyword, sub in value.items():
                entry = table.get(keyword)
                if entry is None:
                    continue
                shape, how = entry
                if legacy_ref:
                    how = _HOLD  # draft 4-7: `$ref` overrides its siblings
                if shape is _ONE_OR_LIST:
                    shape = _LIST if isinstance(sub, list) else _ONE
                if shape is _ONE:
                    stack.append(
                        (
                            sub,
                            base,
                            dialect,
                            node,
                            "/" + keyword,
                            how,
                            child_depth,
                            uneval,
                            in_chain if how is _IN_PLACE else 1,
                        )
                    )
                    if how is _DESCEND:
                        per_child += 1
                elif shape is _LIST:
                    if not isinstance(sub, list):
                        continue
                    if keyword in COMBINATORS and len(sub) > branch_m[0]:
                        branch_m[0], branch_m[1] = len(sub), node
                    if not demanded and node + len(stack) + len(sub) >= cap:  # each item a node
                        raise too_many_subschemas(cap + 1, cap)
                    prefix = f"/{keyword}/"
                    c = in_chain if how is _IN_PLACE else 1
                    for i in range(len(sub) - 1, -1, -1):
                        stack.append((sub[i], base, dialect, node, prefix + str(i), how, child_depth, uneval, c))
                    if how is _DESCEND and sub:
                        per_child += 1  # each position is reached by one of them
                elif type(sub) is dict or isinstance(sub, Mapping):
                    if how is not _HOLD and len(sub) > props_m[0]:
                        props_m[0], props_m[1] = len(sub), node
                    if keyword == "patternProperties":
                        for key in sub:
                            if isinstance(key, str):
                                patterns.append((node, "patternProperties", key))
                                if len(key) > pattern_m[0]:
                                    pattern_m[0], pattern_m[1] = len(key), node
                        per_child += len(sub)  # every pattern may match the same name
                    elif keyword == "properties" and sub:
                        per_child += 1  # one name, one property schema
                    legacy_map = shape is _LEGACY_MAP
                    if not (demanded or legacy_map) and node + len(stack) + len(sub) >= cap:
                        raise too_many_subschemas(cap + 1, cap)  # each entry a node
                    prefix = f"/{keyword}/"
                    c = in_chain if how is _IN_PLACE else 1
                    for key, child in sub.items():
                        if legacy_map and not isinstance(child, (Mapping, bool)):
                            continue
                        token = prefix + (escape(key) if "/" in key or "~" in key else key)
                        stack.append((child, base, dialect, node, token, how, child_depth, uneval, c))
            if per_child:
                self.per_child[node] = per_child
        self.measures["max_subschemas"] = [len(obj), 0]
        self.in_place_chain = longest_chain  # (a walk on demand links no place: it has references)
        self.max_depth_seen = depth_m[0]
        if start is not None and isinstance(start[0], Mapping):
            self._demanded.setdefault(id(start[0]), []).append(first)
            self._summary[first] = (start[1], start[2], deepest, deepest_at, nesting, nesting_at)
        return first

    def _walked_at(self, value: Any, base: str, dialect: Dialect, parent: int, token: str) -> int:
        """The node of a place walked on demand before, that a walk now reaches below ``parent``
        (``token`` further) with ``base`` and ``dialect``: the same place read the same way. -1
        if none (another place holding the same object, or the same place read another way)."""
        where = ""
        for seen in self._demanded[id(value)]:
            start_base, start_dialect, *_ = self._summary[seen]
            if self.obj[seen] is not value or start_base != base or start_dialect is not dialect:
                continue
            if self.doc[seen] != self.doc[parent]:
                continue
            if not where:
                where = self.pointer(parent) + token
            if self.pointer(seen) == where:
                return seen
        return -1

    def _link(self, parent: int, child: int, applies: Applies | None) -> None:
        if applies is Applies.IN_PLACE:
            self.in_place.setdefault(parent, []).append(child)
        elif applies is Applies.DESCEND:
            self.descend.setdefault(parent, []).append(child)

    def _anchor(self, key: tuple[str, str], node: int) -> None:
        if self.anchors.setdefault(key, node) != node:
            self.redeclared.append((f"{key[0]}#{key[1]}", node))

    def _identify(self, value: Mapping[str, Any], node: int, base: str, dialect: Dialect, legacy_ref: bool) -> str:
        """Register the resource and anchors ``value`` declares; return its base URI."""
        ident = value.get(KEYWORDS[dialect].id_keyword)
        if isinstance(ident, str) and not legacy_ref:
            if not dialect.is_modern and ident.startswith("#"):
                # draft 4-7: a fragment-only id is a plain-name anchor in the current resource.
                if len(ident) > 1:
                    self._anchor((split_uri(base)[0], ident[1:]), node)
            else:
                resource, fragment = split_uri(join_uri(base, ident))
                if len(resource) > MAX_URI_LENGTH:
                    raise _uri_too_long(self.pointer(node), resource)
                base = resource
                if self.resources.setdefault(resource, node) != node:
                    self.redeclared.append((resource, node))
                if fragment and not dialect.is_modern:
                    self._anchor((resource, fragment), node)
        if dialect.is_modern:
            resource = split_uri(base)[0]
            anchor = value.get("$anchor")
            if isinstance(anchor, str):
                self._anchor((resource, anchor), node)
            if dialect is Dialect.DRAFT2020_12:
                dynamic = value.get("$dynamicAnchor")
                if isinstance(dynamic, str):
                    self._anchor((resource, dynamic), node)
                    self.dynamic_anchors.setdefault(dynamic, []).append(node)
            elif value.get("$recursiveAnchor") is True:
                self.recursive_anchors.append(node)
        return base

"""The guard's walk for the common case: a schema that is a plain tree.

Most real tool schemas (650 of the 675 in bench_data/) declare no reference, resource or anchor:
nothing can loop, recurse or be inlined, and every measurement is a property of the tree. For
them this walk takes the budget's measurements without building the node graph of
:mod:`engine._guard.walk` (whose per-node bookkeeping serves reference resolution): it keeps one
small frame per subschema, linked to its parent, and turns a frame into a JSON pointer only for
the few places a measurement names. A document holding anything the graph is needed for is
handed back (``None``) as soon as it is seen, and walked again by the graph.

It visits subschemas in the same order as the graph's walk, so the locations it reports are the
same.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from .._dialect import Dialect
from .._keywords import ANCHORS, Applies, Shape
from .._pointer import escape
from .walk import APPLICATORS, COMBINATORS, too_many_subschemas

__all__ = ["Tree", "walk_tree"]

# Keywords that need the graph: references, resources, anchors, and `unevaluated*` (whose cost
# depends on what is evaluated next to them); `$schema` below the root too (the graph's walk
# refuses one that names another dialect without an identifier beside it).
_NEEDS_GRAPH = frozenset(
    {"$id", "id", "$ref", "$dynamicRef", "$recursiveRef", "unevaluatedProperties", "unevaluatedItems"} | ANCHORS
)
_SPECIAL = _NEEDS_GRAPH | {"enum", "pattern", "$schema"}
# Per dialect: every keyword that makes a subschema more than a leaf to count.
_PLAIN = {dialect: frozenset(APPLICATORS[dialect]) | _SPECIAL for dialect in Dialect}

# A frame: (value, parent frame or None, keyword it sits under, its key or index there or None,
# depth, in-place chain). The pointer token is spelled only for the frames a location names.
Frame = tuple[Any, Any, str, Any, int, int]

# Bound once: an Enum member read from its class is an attribute lookup through the metaclass.
_IN_PLACE, _HOLD = Applies.IN_PLACE, Applies.HOLD
_ONE, _LIST, _ONE_OR_LIST, _LEGACY_MAP = Shape.ONE, Shape.LIST, Shape.ONE_OR_LIST, Shape.MAP_OF_SCHEMA_OR_LIST


class Tree(msgspec.Struct, frozen=True, gc=False):
    """The measurements of a tree-shaped schema, named after the limits that bound them.

    A struct, not a named tuple: made once per compile, and a named tuple's keyword constructor
    (a Python function) cost as much as walking a small schema. It refers to nothing that refers
    back to it, so the garbage collector need not track it."""

    measures: dict[str, int]
    """Limit name -> largest value: every limit a schema is held to, in the report's order (the
    document's two, the walk's seven, then the expansion and the evaluation depth)."""
    locations: dict[str, str]
    """Limit name -> JSON pointer where its largest value was seen (only those seen)."""
    in_place_chain: int
    """The longest chain of in-place applicators: the evaluation depth of a tree."""
    max_depth: int
    patterns: list[tuple[str, str, str]]
    """(JSON pointer of the schema, keyword, pattern) for every pattern."""


def pointer(frame: Frame | None) -> str:
    if frame is None or frame[1] is None:
        return ""  # the root (most locations of a small schema)
    parts: list[str] = []
    append = parts.append
    while True:
        _, parent, keyword, key, _, _ = frame
        if parent is None:
            break
        if key is None:
            append(keyword)
        elif type(key) is str:  # escaped inline: a call of escape() cost as much as the rest
            append(
                f"{keyword}/{key.replace('~', '~0').replace('/', '~1')}"
                if "~" in key or "/" in key
                else f"{keyword}/{key}"
            )
        else:
            append(f"{keyword}/{escape(key)}")
        frame = parent
    parts.append("")
    return "/".join(reversed(parts))


def walk_tree(
    schema: Any, dialect: Dialect, document: tuple[int, int] | None = None, limit: int | None = None
) -> Tree | None:
    """Measure ``schema`` if it is a plain tree; ``None`` if it needs the graph's walk.

    ``document`` (its size in bytes and nesting depth as JSON, measured at intake) is put first
    in the measurements, as the report lists them. With more than ``limit`` subschemas, the walk
    stops as soon as it knows and refuses the schema, as the graph's walk does (``measured``
    is then ``limit + 1``, "at least", whichever walk stops)."""
    cap = (1 << 62) if limit is None else limit
    table = APPLICATORS[dialect]
    applicator_keys = table.keys()
    needs_graph, special = _NEEDS_GRAPH, _SPECIAL
    in_place, hold = _IN_PLACE, _HOLD
    one, many, one_or_many, legacy_map = _ONE, _LIST, _ONE_OR_LIST, _LEGACY_MAP
    combinators = COMBINATORS
    plain = _PLAIN[dialect]
    root: Frame = (schema, None, "", None, 1, 1)
    stack: list[Frame] = [root]
    count = 0
    depth_max, depth_at = 0, root
    longest = 0
    branches, branches_at = 0, None
    props, props_at = 0, None
    enum_max, enum_at = 0, None
    pattern_max, pattern_at = 0, None
    patterns: list[tuple[Frame, str, str]] = []
    while stack:
        frame = stack.pop()
        value, _, _, _, depth, chain = frame
        count += 1
        if depth > depth_max:
            depth_max, depth_at = depth, frame
        if chain > longest:
            longest = chain
        if type(value) is not dict and (value is True or value is False or not isinstance(value, Mapping)):
            continue  # a boolean schema (judged without the ABC's isinstance, a tenth of a small walk)
        if not special.isdisjoint(value):
            if not needs_graph.isdisjoint(value) or ("$schema" in value and frame is not root):
                return None
            enum = value.get("enum")
            if isinstance(enum, list) and len(enum) > enum_max:
                enum_max, enum_at = len(enum), frame
            pattern = value.get("pattern")
            if isinstance(pattern, str):
                patterns.append((frame, "pattern", pattern))
                if len(pattern) > pattern_max:
                    pattern_max, pattern_at = len(pattern), frame
        if applicator_keys.isdisjoint(value):
            continue  # a leaf
        child_depth = depth + 1
        in_chain = chain + 1
        # Children that are leaves (a boolean, or a dict with no applicator and nothing the walk
        # reads) are counted here instead of being pushed and popped: most subschemas of a tool
        # schema are such leaves. Only the child the walk visits first (that of the last keyword)
        # can be where a new depth is reached, and only the chain's length matters for the rest.
        first: tuple[str, Any] | None = None
        deepest_chain = 0
        for keyword in filter(applicator_keys.__contains__, value):  # in the document's order
            sub = value[keyword]
            shape, how = table[keyword]
            if shape is one_or_many:
                shape = many if isinstance(sub, list) else one
            c = in_chain if how is in_place else 1
            if shape is one:
                if sub is True or sub is False or (type(sub) is dict and plain.isdisjoint(sub)):
                    count += 1
                else:
                    stack.append((sub, frame, keyword, None, child_depth, c))
                first = (keyword, None)
            elif shape is many:
                if not isinstance(sub, list):
                    continue
                if keyword in combinators and len(sub) > branches:
                    branches, branches_at = len(sub), frame
                if not sub:
                    continue
                if count + len(sub) > cap:  # each item is one more subschema
                    raise too_many_subschemas(cap + 1, cap)
                for i in range(len(sub) - 1, -1, -1):
                    item = sub[i]
                    if item is True or item is False or (type(item) is dict and plain.isdisjoint(item)):
                        count += 1
                    else:
                        stack.append((item, frame, keyword, i, child_depth, c))
                first = (keyword, 0)
            elif type(sub) is dict or isinstance(sub, Mapping):
                if how is not hold and len(sub) > props:
                    props, props_at = len(sub), frame
                if keyword == "patternProperties":
                    for key in sub:
                        if isinstance(key, str):
                            patterns.append((frame, "patternProperties", key))
                            if len(key) > pattern_max:
                                pattern_max, pattern_at = len(key), frame
                last = None
                if shape is legacy_map:
                    for key, child in sub.items():
                        if isinstance(child, (Mapping, bool)):
                            stack.append((child, frame, keyword, key, child_depth, c))
                            last = (keyword, key)
                else:
                    if count + len(sub) > cap:  # each entry is one more subschema
                        raise too_many_subschemas(cap + 1, cap)
                    for key, child in sub.items():
                        if child is True or child is False or (type(child) is dict and plain.isdisjoint(child)):
                            count += 1
                        else:
                            stack.append((child, frame, keyword, key, child_depth, c))
                        last = (keyword, key)
                if last is None:
                    continue
                first = last
            else:
                continue
            if c > deepest_chain:
                deepest_chain = c
        if first is not None:
            if child_depth > depth_max:
                depth_max, depth_at = child_depth, (None, frame, first[0], first[1], child_depth, 0)
            if deepest_chain > longest:
                longest = deepest_chain
    if count > cap:
        raise too_many_subschemas(cap + 1, cap)
    # Every measurement of the report, in the report's order, made once.
    measures = {} if document is None else {"max_schema_bytes": document[0], "max_document_depth": document[1]}
    measures["max_schema_depth"] = depth_max
    measures["max_subschemas"] = count
    measures["max_branches"] = branches
    measures["max_properties"] = props
    measures["max_enum"] = enum_max
    measures["max_unevaluated_nesting"] = 0
    measures["max_pattern_length"] = pattern_max
    measures["max_ref_expansion"] = count  # nothing to inline
    measures["max_eval_depth"] = longest
    # Spelled only where something was seen (the root holds the subschema count).
    locations = {"max_schema_depth": pointer(depth_at) if depth_at is not root else "", "max_subschemas": ""}
    if branches_at is not None:
        locations["max_branches"] = pointer(branches_at)
    if props_at is not None:
        locations["max_properties"] = pointer(props_at)
    if enum_at is not None:
        locations["max_enum"] = pointer(enum_at)
    if pattern_at is not None:
        locations["max_pattern_length"] = pointer(pattern_at)
    return Tree(
        measures=measures,
        locations=locations,
        in_place_chain=longest,
        max_depth=depth_max,
        # Most tool schemas have no pattern: a comprehension is a function call of its own.
        patterns=[(pointer(at), keyword, pattern) for at, keyword, pattern in patterns] if patterns else [],
    )

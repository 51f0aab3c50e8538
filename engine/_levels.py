"""How many evaluations one value of an instance meets, level by level, for a schema.

A schema applies its subschemas to the values of the instance: the ones in place to the value
they are written for, the descending ones to its children. The evaluations one value at level
``n`` of an instance (the root's is level 0) can meet are those of every subschema reaching that
level, references inlined, recursion unrolled:

- in-place subschemas add up; so do the descending ones that meet every child (``items``,
  ``additionalProperties``, every ``patternProperties`` pattern, ``unevaluated*``); of those that
  meet one named member or one position (``properties``, ``prefixItems``, an ``items`` array),
  the most one member meets counts;
- a subschema weighs one evaluation and what its owner adds (``weigh``: comparisons, lists of
  names); a boolean subschema weighs nothing (jsonschema-rs decides it without evaluating);
- every ``patternProperties`` pattern is tried on every key, whatever its subschema;
- an ``unevaluated*`` scope knows what its in-place subschemas evaluated by evaluating each again
  and marking, down each chain of in-place subschemas, what each evaluated: it costs their
  evaluations once more and their *rereads* (a subschema's evaluations and its in-place
  subschemas' rereads), and each child every in-place evaluation of the scope once (see
  :func:`level_counts` for the figures).

The counts are taken level by level over a graph of the schema's subschemas, so that recursion
is unrolled to the depth an instance may have: a level's counts depend only on the level above,
so once a level repeats one seen before, every level below repeats the cycle. Counts stop growing
at ``2 ** 62`` (past any budget). A reference that leads outside the document (or into a new
base), a dynamic reference that does not name a single anchor of a document without embedded
resources, or an unrolling that would take more than :data:`_STEPS` steps leaves the schema
uncounted (``None``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._dialect import Dialect
from ._keywords import KEYWORDS, Applies, Shape
from ._pointer import tokens

__all__ = ["level_counts"]

_SATURATED = 1 << 62
_STEPS = 400_000  # node visits (each with its edges) the unrolling may take: some 0.2 s at most


class _Graph:
    """The subschemas that apply from the root, each an index, with what it weighs and where its
    own subschemas apply."""

    __slots__ = ("base", "each", "edges", "entries", "every", "in_place", "order", "patterns", "scope")

    def __init__(self) -> None:
        self.base: list[int] = []  # one, and the comparisons
        self.entries: list[int] = []  # lists of names, dependencies, content read (the object's)
        self.patterns: list[int] = []  # `patternProperties` patterns: each key tries every one
        self.in_place: list[list[int]] = []
        self.every: list[list[int]] = []  # descending, meeting every child
        self.each: list[list[list[int]]] = []  # descending, one member each: the most of a group
        self.scope: list[bool] = []
        self.order: list[int] = []  # in-place subschemas before the ones that apply them
        self.edges = 0


def level_counts(
    schema: Any,
    dialect: Dialect,
    weigh: Callable[[dict[str, Any]], tuple[int, int]],
    levels: int,
) -> list[int] | None:
    """The most evaluations one value meets at each level of an instance, from the root, for at
    most ``levels`` levels (trailing levels no subschema reaches left out; at least one);
    ``weigh(node)``: what a subschema costs its value beyond one evaluation, and its object beyond
    the subschemas (lists of names, dependencies). ``None`` where the schema is not counted (see
    the module)."""
    if type(schema) is not dict:
        return [0]
    graph = _build(schema, dialect, weigh)
    if graph is None:
        return None
    return _unroll(graph, levels)


def _unroll(graph: _Graph, levels: int) -> list[int] | None:
    count = len(graph.base)
    base, entries, patterns = graph.base, graph.entries, graph.patterns
    in_place, every, each, scope = graph.in_place, graph.every, graph.each, graph.scope
    order = graph.order
    per_level = count + graph.edges
    normal = [0] * count  # each scope's own level-0 evaluations, for the per-child marking
    above: list[int] = []
    seen: dict[tuple[int, ...], int] = {}
    root: list[int] = []
    steps = 0
    for level in range(levels):
        steps += per_level
        if steps > _STEPS:
            return None
        now = [0] * count
        rereads = [0] * count
        for at in order:
            value = 0
            if level:
                for sub in every[at]:
                    value += above[sub]
                for group in each[at]:
                    value += max(above[sub] for sub in group)
                if level == 1:
                    value += patterns[at] + (normal[at] if scope[at] else 0)
            inner = reread = 0
            for sub in in_place[at]:
                inner += now[sub]
                reread += rereads[sub]
            value += inner
            if level == 0:
                value += base[at]
                normal[at] = value
                value += entries[at]
            if scope[at]:
                value += inner + reread
            if value > _SATURATED:
                value = _SATURATED
            now[at] = value
            rereads[at] = min(value + reread, _SATURATED)
        root.append(now[0])
        if not any(now):
            break
        if level:
            state = tuple(now)
            start = seen.get(state)
            if start is not None:  # this level is level `start` again: the ones after it repeat
                cycle = root[start + 1 : level + 1]
                while len(root) < levels:
                    root += cycle
                del root[levels:]
                break
            seen[state] = level
        above = now
    while len(root) > 1 and root[-1] == 0:
        root.pop()
    return root


def _build(
    schema: dict[str, Any], dialect: Dialect, weigh: Callable[[dict[str, Any]], tuple[int, int]]
) -> _Graph | None:
    keywords = KEYWORDS[dialect]
    applicators, id_keyword = keywords.applicators, keywords.id_keyword
    graph = _Graph()
    index: dict[int, int] = {}
    pending: list[dict[str, Any]] = []
    anchors: list[dict[str, dict[str, Any] | None]] = []  # built on the first named reference

    def node(sub: Any) -> int | None:
        """The index of ``sub`` (a dict), added if new; ``None`` for a boolean."""
        if type(sub) is not dict:
            return None
        at = index.get(id(sub))
        if at is None:
            at = index[id(sub)] = len(index)
            pending.append(sub)
        return at

    node(schema)
    built = 0
    while built < len(pending):
        current = pending[built]
        if built and id_keyword in current:  # a new base: its references resolve otherwise
            return None
        built += 1
        own, entries = weigh(current)
        in_place: list[int] = []
        every: list[int] = []
        each: list[list[int]] = []
        for key, value in current.items():
            if key == "$ref" or key == "$dynamicRef" or key == "$recursiveRef":
                target = _target(schema, key, value, dialect, anchors)
                if target is None:
                    return None
                at = node(target)
                if at is not None:
                    in_place.append(at)
            elif key in applicators:
                shape, applies = applicators[key]
                if applies is Applies.HOLD:
                    continue
                subs = [at for sub in _subschemas(value, shape) if (at := node(sub)) is not None]
                if applies is Applies.IN_PLACE:
                    in_place += subs
                elif key == "properties" or key == "prefixItems" or (key == "items" and type(value) is list):
                    if subs:
                        each.append(subs)
                else:
                    every += subs
        patterns = current.get("patternProperties")
        graph.base.append(1 + own)
        graph.entries.append(entries)
        graph.patterns.append(len(patterns) if type(patterns) is dict else 0)
        graph.in_place.append(in_place)
        graph.every.append(every)
        graph.each.append(each)
        graph.scope.append("unevaluatedProperties" in current or "unevaluatedItems" in current)
        graph.edges += len(in_place) + len(every) + sum(map(len, each))
    order = _in_place_order(graph.in_place)
    if order is None:
        return None
    graph.order = order
    return graph


def _in_place_order(in_place: list[list[int]]) -> list[int] | None:
    """Every index after the ones it applies in place; ``None`` on a loop (the guard refuses one)."""
    state = [0] * len(in_place)  # 0 unseen, 1 on the path, 2 placed
    order: list[int] = []
    for start in range(len(in_place)):
        if state[start]:
            continue
        stack = [(start, 0)]
        state[start] = 1
        while stack:
            at, next_edge = stack[-1]
            subs = in_place[at]
            if next_edge < len(subs):
                stack[-1] = (at, next_edge + 1)
                sub = subs[next_edge]
                if state[sub] == 1:
                    return None
                if state[sub] == 0:
                    state[sub] = 1
                    stack.append((sub, 0))
            else:
                stack.pop()
                state[at] = 2
                order.append(at)
    return order


def _target(
    schema: dict[str, Any], key: str, ref: Any, dialect: Dialect, anchors: list[dict[str, dict[str, Any] | None]]
) -> Any:
    """What a reference in ``schema`` applies: a location by JSON pointer, or, in a document
    without embedded resources, a subschema by its anchor; the root for ``$recursiveRef: "#"``;
    ``None`` where it leads elsewhere (``False`` stands for a location that is no subschema)."""
    if type(ref) is not str or not ref.startswith("#"):
        return None
    if key == "$recursiveRef":
        return schema if ref == "#" else None
    if ref == "#" or ref[1] == "/":
        return _pointed(schema, ref)
    if not dialect.is_modern:  # a plain name is an `$id` there: a resource of its own
        return None
    if not anchors:
        anchors.append(_anchors(schema, dialect))
    return anchors[0].get(ref[1:])


def _anchors(schema: dict[str, Any], dialect: Dialect) -> dict[str, dict[str, Any] | None]:
    """The subschema each anchor name (``$anchor`` or ``$dynamicAnchor``) of the root resource
    names, ``None`` for a name given twice. In a document of one resource, a dynamic reference
    resolves where a plain one does."""
    keywords = KEYWORDS[dialect]
    applicators, id_keyword = keywords.applicators, keywords.id_keyword
    named: dict[str, dict[str, Any] | None] = {}
    stack: list[Any] = [schema]
    seen: set[int] = set()
    while stack:
        current = stack.pop()
        if type(current) is not dict or id(current) in seen or (current is not schema and id_keyword in current):
            continue
        seen.add(id(current))
        for keyword in ("$anchor", "$dynamicAnchor"):
            name = current.get(keyword)
            if type(name) is str:
                named[name] = None if name in named and named[name] is not current else current
        for key, value in current.items():
            if key in applicators:
                stack += _subschemas(value, applicators[key][0])
    return named


def _subschemas(value: Any, shape: Shape) -> list[Any]:
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


def _pointed(schema: Any, ref: str) -> Any:
    node = schema
    for token in tokens(ref[1:]):
        if type(node) is dict and token in node:
            node = node[token]
        elif type(node) is list and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node

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
at the cap the caller gives (past its budget, one count is as good as another). References into
the registry's resources are followed by URI, each resource its own document (:class:`Documents`).
A reference that leads outside the documents (or into a new base), a dynamic reference that does
not name a single anchor of a document without embedded resources or beside a registry, a
registry the count may read otherwise than the backends do, or an unrolling that would take more than
:data:`_STEPS` steps (without recursion, a quarter of that: 100,000 subschemas and edges times
the levels they reach, which a chain of 4,000 definitions 257 levels deep passes) leaves the
schema uncounted (``None``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import chain, compress, repeat
from operator import is_
from typing import Any

from ._dialect import Dialect
from ._documents import Documents
from ._keywords import KEYWORDS, Applies, subschemas
from ._patterns.analysis import reads_linearly, written_out

__all__ = [
    "CHARACTERS_PER_EVALUATION",
    "HASH",
    "Levels",
    "level_counts",
    "level_weights",
    "levels_of",
    "reading_rate",
    "unique_levels",
]

_SATURATED = 1 << 62
_STEPS = 400_000  # node visits (each with its edges) the unrolling may take: some 0.2 s at most
_VALUES, _READING, _HASHING, _SUMMED = 0, 1, 2, 3  # what `_unroll` counts
_LINEAR = 2  # evaluations a pattern read in one state at a time spends on a character
_THRASH = 40  # evaluations a pattern may spend on a character, whatever its size (see `reading_rate`)
HASH = 3  # evaluations `uniqueItems` spends hashing one value (32 ns a value in jsonschema-rs)
_EVALUATED = frozenset({"allOf", "anyOf", "oneOf", "if"})  # evaluated again to be marked
_MARKED = frozenset({"then", "else", "dependentSchemas", "dependencies"})  # only marked
_PER_CHILD = frozenset({"unevaluatedProperties", "unevaluatedItems", "contains"})


class _Graph:
    """The subschemas that apply from the root, each an index, with what it weighs and where its
    own subschemas apply."""

    __slots__ = (
        "each",
        "edges",
        "evaluated",
        "every",
        "heights",
        "in_place",
        "marked",
        "nodes",
        "order",
        "key_reads",
        "per_child",
        "patterns",
        "reads",
        "scope",
        "unique",
    )

    def __init__(self) -> None:
        self.nodes: list[dict[str, Any]] = []  # what each index stands for (weighed by the caller)
        self.patterns: list[int] = []  # `patternProperties` patterns: each key tries every one
        self.in_place: list[list[int]] = []
        self.every: list[list[int]] = []  # descending, meeting every child
        self.each: list[list[list[int]]] = []  # descending, one member each: the most of a group
        self.scope: list[bool] = []
        # What marking a node's evaluations reads of the in-place ones (see the module): those
        # evaluated again (`allOf`, `anyOf`, `oneOf`, `if`), those only marked (references,
        # `then`, `else`, `dependentSchemas`), and those applied to each child again
        # (`unevaluated*`, `contains`).
        self.evaluated: list[list[int]] = []
        self.marked: list[list[int]] = []
        self.per_child: list[list[int]] = []
        self.unique: list[int] = []  # 1 for `uniqueItems: true`
        self.heights: list[int] | None = None  # levels each descends at most (`None`: recursion)
        self.reads: list[int] = []  # evaluations its `pattern` spends on a character
        self.key_reads: list[int] = []  # those its `patternProperties` spend on one of a key
        self.order: list[int] = []  # in-place subschemas before the ones that apply them
        self.edges = 0


class Levels:
    """A schema's graph of subschemas (see the module), built once and counted with any weighing:
    the counts of one schema (comparisons, number members, sharp and blunt ones) read one graph."""

    __slots__ = ("_graph", "_levels")

    def __init__(self, graph: _Graph | None, levels: int) -> None:
        self._graph, self._levels = graph, levels  # `None`: a boolean schema, which meets nothing

    def counts(
        self,
        weigh: Callable[[dict[str, Any]], tuple[int, int]],
        *,
        hashing: bool = True,
        cap: int = _SATURATED,
    ) -> tuple[list[int], list[int]] | None:
        """The most evaluations one value meets at each level of an instance, from the root
        (trailing levels no subschema reaches left out; at least one), and the most evaluations
        one character of a string or key there meets (its patterns, see :func:`reading_rate`);
        ``weigh(node)``: what a subschema costs its value beyond one evaluation, and its
        object beyond the subschemas (lists of names, dependencies); ``hashing``: with what
        ``uniqueItems`` spends hashing the values below it; ``cap``: where counts stop growing
        (past the budget, any count is as good as another). ``None`` where the unrolling takes
        too many steps (see the module)."""
        graph, levels = self._graph, self._levels
        if graph is None:
            return [0], [0]
        base: list[int] = []
        entries: list[int] = []
        for node in graph.nodes:
            own, listed = weigh(node)
            base.append(1 + own)
            entries.append(listed)
        counts = _unroll(graph, levels, base, entries, _VALUES, cap)
        reading = any(graph.reads) or any(graph.key_reads)
        reads = _unroll(graph, levels, base, entries, _READING, cap) if reading else [0]
        if counts is None or reads is None:
            return None
        if not hashing or not any(graph.unique):
            return counts, reads
        hashed = _unroll(graph, levels, base, entries, _HASHING, cap)
        if hashed is None:
            return None
        # A value is hashed by every `uniqueItems` that meets one of the arrays holding it.
        counts += [0] * (levels - len(counts))
        above = 0
        for level in range(1, levels):
            above = min(above + (hashed[level - 1] if level - 1 < len(hashed) else 0), cap)
            counts[level] += above
        while len(counts) > 1 and counts[-1] == 0:
            counts.pop()
        return counts, reads

    @property
    def nodes(self) -> list[dict[str, Any]]:
        """The subschemas that apply, the root first, in the order :meth:`summed` weighs them."""
        return [] if self._graph is None else self._graph.nodes

    def summed(self, weights: list[int], cap: int = _SATURATED) -> list[int] | None:
        """The most a value meets at each level of an instance (trailing levels none reaches left
        out; at least one), each subschema of :attr:`nodes` weighing what ``weights`` gives it
        (nothing more, its object nothing); ``None`` where the counts take too many steps."""
        graph = self._graph
        if graph is None or not any(weights):  # (most schemas, for most weighings)
            return [0]
        return _unroll(graph, self._levels, weights, [], _SUMMED, cap)

    def unique(self) -> list[int] | None:
        """The levels of an instance (the root's is 0) whose arrays a ``uniqueItems: true`` may
        meet, or ``None`` where the unrolling takes too many steps."""
        graph = self._graph
        if graph is None or not any(graph.unique):
            return []
        hashed = _unroll(graph, self._levels, [], [], _HASHING, _SATURATED)
        return None if hashed is None else [level for level, count in enumerate(hashed) if count]


def levels_of(schema: Any, dialect: Dialect, levels: int, resources: Mapping[str, Any] | None = None) -> Levels | None:
    """The graph of ``schema``'s subschemas for the first ``levels`` levels of an instance,
    references followed into the registry's ``resources`` (by URI) too, to count with
    :meth:`Levels.counts`; ``None`` where the schema is not counted (see the module)."""
    if type(schema) is not dict:
        return Levels(None, 0)
    built = _graph(schema, dialect, levels, resources)
    return None if built is None else Levels(*built)


def level_counts(
    schema: Any,
    dialect: Dialect,
    weigh: Callable[[dict[str, Any]], tuple[int, int]],
    levels: int,
    *,
    hashing: bool = True,
    cap: int = _SATURATED,
    resources: Mapping[str, Any] | None = None,
) -> tuple[list[int], list[int]] | None:
    """:meth:`Levels.counts` of :func:`levels_of` the schema, for one weighing: ``None`` where
    the schema is not counted."""
    found = levels_of(schema, dialect, levels, resources)
    return None if found is None else found.counts(weigh, hashing=hashing, cap=cap)


def unique_levels(
    schema: Any, dialect: Dialect, levels: int, resources: Mapping[str, Any] | None = None
) -> list[int] | None:
    """The levels of an instance (the root's is 0), among the first ``levels``, whose arrays a
    ``uniqueItems: true`` may meet (the subschemas that hold one, references followed into the
    registry's ``resources`` too, recursion unrolled), or ``None`` where the schema is not counted
    (see the module)."""
    found = levels_of(schema, dialect, levels, resources)
    return None if found is None else found.unique()


def _graph(
    schema: dict[str, Any], dialect: Dialect, levels: int, resources: Mapping[str, Any] | None
) -> tuple[_Graph, int] | None:
    """The graph of ``schema`` and the levels worth unrolling (as many as its height allows, or
    ``levels`` where it recurses), or ``None`` where it is not counted (see the module)."""
    documents = Documents.of(schema, dialect, resources) if resources else Documents(schema)
    if documents is None:
        return None
    graph = _build(documents, dialect, levels)
    if graph is None:
        return None
    heights = _heights(graph)  # `None`: recursive, every level may be reached
    if heights is not None:
        levels = min(levels, heights[0] + 2)
        graph.heights = heights
        if (len(graph.nodes) + graph.edges) * levels > _STEPS // 4:
            return None  # decided before any level is counted: a deep chain (see the module)
    return graph, levels


def reading_rate(pattern: str) -> int:
    """Evaluations a pattern may spend on one character: 2 where it :func:`reads_linearly` (up to
    19 ns a character: ``^[^a]{1000}$`` on text of two-byte characters); for any other, the
    regex engine runs it as an automaton of some :func:`written_out` states, and where the
    automaton's states outgrow its cache (``a[ab]{16}c``: 2^16) it reads each byte at some 350 ns
    and 9-13 ns a state (``a[ab]{990}c``: 8.5 us a byte; ``\U00020000.{300}c`` on characters beyond
    U+FFFF, 3.2-4 us, its ``.`` a sequence of byte states): an evaluation and a half a state."""
    if reads_linearly(pattern):
        return _LINEAR
    return _THRASH + written_out(pattern) * 3 // 2


def _unroll(graph: _Graph, levels: int, base: list[int], entries: list[int], mode: int, cap: int) -> list[int] | None:
    """The root's count at each level (see the module): of evaluations a value meets
    (:data:`_VALUES`, each node weighing ``base`` and its object ``entries``), of evaluations a
    character meets (:data:`_READING`), of ``uniqueItems`` hashing a value, each :data:`HASH`
    evaluations (:data:`_HASHING`), or of what ``base`` weighs each node alone (:data:`_SUMMED`:
    no key looked up, no pattern tried)."""
    count = len(graph.nodes)
    nothing = [0] * count
    if mode == _VALUES:
        patterns = graph.patterns
    elif mode == _READING:
        base, entries, patterns = graph.reads, nothing, graph.key_reads
    elif mode == _SUMMED:
        entries, patterns = nothing, nothing
    else:
        base, entries, patterns = [HASH * unique for unique in graph.unique], nothing, nothing
    counting = mode == _VALUES
    in_place, every, each, scope = graph.in_place, graph.every, graph.each, graph.scope
    evaluated, marked, per_child = graph.evaluated, graph.marked, graph.per_child
    order = graph.order
    above: list[int] = []
    seen: dict[tuple[int, ...], int] = {}
    root: list[int] = []
    steps = 0
    heights = graph.heights
    for level in range(levels):
        if heights is not None and level > 1:  # a subschema meets nothing below its height and one
            order = [at for at in order if heights[at] + 1 >= level]
        steps += len(order) + graph.edges
        if steps > _STEPS:
            return None
        now = [0] * count
        marks = [0] * count  # what marking what the node evaluated costs (see the module)
        for at in order:
            value = mark = 0
            if level:
                for sub in every[at]:
                    value += above[sub]
                for group in each[at]:
                    value += max(above[sub] for sub in group)
                for sub in per_child[at]:
                    mark += above[sub]
                if level == 1:
                    value += patterns[at]
                    mark += patterns[at] + counting  # each pattern tried on each key, looked up
            elif counting:
                mark = 1
            for sub in in_place[at]:
                value += now[sub]
            for sub in marked[at]:
                mark += marks[sub]
            for sub in evaluated[at]:
                mark += now[sub] + marks[sub]
            if level == 0:
                value += base[at] + entries[at]
            if scope[at]:
                value += mark
            now[at] = value if value < cap else cap
            marks[at] = mark if mark < cap else cap
        root.append(now[0])
        if level and not any(now):  # (level 1 may count what level 0 does not: keys)
            break
        if level and heights is None:  # (without recursion, levels run out instead)
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


def _build(documents: Documents, dialect: Dialect, levels: int) -> _Graph | None:
    """The graph of the subschemas that meet a value in the first ``levels`` levels of an
    instance: found in the order of the fewest levels they descend (in place none, a descending
    keyword one), so that what lies deeper is never read (a chain of 4,000 definitions, each a
    property of the last, is read 257 deep)."""
    keywords = KEYWORDS[dialect]
    applicators, id_keyword = keywords.applicators, keywords.id_keyword
    graph = _Graph()
    index: dict[int, int] = {}
    nodes: list[dict[str, Any]] = []
    homes: list[int] = []  # the document each is in (its references resolve there)
    depths: list[int] = []  # the fewest levels each descends from the root, as found so far
    rows: list[tuple[Any, ...] | None] = []
    queue: deque[tuple[int, int]] = deque()
    roots = {id(root) for root in documents.roots}
    shared: list[bool] = []  # one subschema in two documents: where its references lead is not one place

    def reach(sub: Any, depth: int, descends: bool, home: int) -> int | None:
        """The index of ``sub`` (in document ``home``), met ``depth`` levels down (``descends``:
        one more than the subschema naming it); ``None`` for a boolean or past the levels counted."""
        if type(sub) is not dict or depth >= levels:
            return None
        at = index.get(id(sub))
        if at is None:
            at = index[id(sub)] = len(nodes)
            nodes.append(sub)
            homes.append(home)
            depths.append(depth)
            rows.append(None)
        elif homes[at] != home:
            shared.append(True)
            return at
        elif depth >= depths[at]:
            return at
        depths[at] = depth
        if descends:
            queue.append((at, depth))
        else:  # as deep as what is being read: read before anything deeper
            queue.appendleft((at, depth))
        return at

    reach(documents.roots[0], 0, False, 0)
    while queue:
        at, depth = queue.popleft()
        if rows[at] is not None or depth > depths[at]:
            continue  # built, or found fewer levels down since
        current, home = nodes[at], homes[at]
        if id_keyword in current and id(current) not in roots:  # a new base: its references resolve otherwise
            return None
        in_place: list[int] = []
        every: list[int] = []
        each: list[list[int]] = []
        evaluated: list[int] = []
        marked: list[int] = []
        per_child: list[int] = []
        for key, value in current.items():
            if key == "$ref" or key == "$dynamicRef" or key == "$recursiveRef":
                found = documents.target(home, key, value, dialect)
                if found is None:
                    return None
                sub = reach(found[0], depth, False, found[1])
                if sub is not None:
                    in_place.append(sub)
                    marked.append(sub)
            elif key in applicators:
                shape, applies = applicators[key]
                if applies is Applies.HOLD:
                    continue
                descends = applies is not Applies.IN_PLACE
                below = depth + descends
                subs = [
                    sub for one in subschemas(value, shape) if (sub := reach(one, below, descends, home)) is not None
                ]
                if applies is Applies.IN_PLACE:
                    in_place += subs
                    if key in _EVALUATED:
                        evaluated += subs
                    elif key in _MARKED:
                        marked += subs
                elif key == "properties" or key == "prefixItems" or (key == "items" and type(value) is list):
                    if subs:
                        each.append(subs)
                else:
                    every += subs
                    if key in _PER_CHILD:
                        per_child += subs
        rows[at] = (in_place, every, each, evaluated, marked, per_child)
    if shared:
        return None
    for current, row in zip(nodes, rows, strict=True):
        if row is None:  # every node found is queued and built: never so
            return None
        in_place, every, each, evaluated, marked, per_child = row
        patterns = current.get("patternProperties")
        pattern = current.get("pattern")
        graph.nodes.append(current)
        graph.patterns.append(len(patterns) if type(patterns) is dict else 0)
        graph.in_place.append(in_place)
        graph.every.append(every)
        graph.each.append(each)
        graph.evaluated.append(evaluated)
        graph.marked.append(marked)
        graph.per_child.append(per_child)
        graph.scope.append("unevaluatedProperties" in current or "unevaluatedItems" in current)
        graph.unique.append(1 if current.get("uniqueItems") is True else 0)
        graph.reads.append(reading_rate(pattern) if type(pattern) is str else 0)
        graph.key_reads.append(sum(map(reading_rate, patterns)) if type(patterns) is dict else 0)
        graph.edges += len(in_place) + len(every) + sum(map(len, each)) + len(evaluated) + len(marked)
    order = _in_place_order(graph.in_place)
    if order is None:
        return None
    graph.order = order
    return graph


def _heights(graph: _Graph) -> list[int] | None:
    """The most levels below each subschema a chain of subschemas descends (each descending
    keyword one level, in place none), or ``None`` where a chain may descend for ever (recursion)."""
    count = len(graph.nodes)
    below = [graph.every[at] + [sub for group in graph.each[at] for sub in group] for at in range(count)]
    order = _postorder([graph.in_place[at] + below[at] for at in range(count)], [0])
    if order is None:
        return None
    height = [0] * count
    for at in order:  # each after what it applies
        deepest = max((height[sub] for sub in graph.in_place[at]), default=0)
        height[at] = max(deepest, max((height[sub] + 1 for sub in below[at]), default=0))
    return height


def _in_place_order(in_place: list[list[int]]) -> list[int] | None:
    """Every index after the ones it applies in place; ``None`` on a loop (the guard refuses one)."""
    return _postorder(in_place, range(len(in_place)))


def _postorder(edges: list[list[int]], starts: Iterable[int]) -> list[int] | None:
    """The indices reached from ``starts`` along ``edges``, each after those it leads to; ``None``
    where the edges loop."""
    state = [0] * len(edges)  # 0 unseen, 1 on the path, 2 placed
    order: list[int] = []
    for start in starts:
        if state[start]:
            continue
        stack = [(start, 0)]
        state[start] = 1
        while stack:
            at, next_edge = stack[-1]
            subs = edges[at]
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


CHARACTERS_PER_EVALUATION = 3  # a shift: a string weighs one more per 8 characters
_WIDE_LEVEL = 64  # values of an instance's level past which its types are read first
_SCALARS = frozenset({str, int, float, bool, type(None)})
_JSON = _SCALARS | {dict, list}


def level_weights(instance: Any) -> Iterator[tuple[int, int]]:
    """What each level of the JSON value ``instance`` weighs, from the top (see ``engine._work``), and
    the characters of its strings and keys (what patterns read), each counted as its UTF-8 bytes:
    a regex engine reads bytes, so a character beyond U+FFFF is four steps of its automaton
    (``\\U00020000.{300}c`` on 1 MB of such characters: 15 us a character, weighed at 2.4 where
    each was counted once); an object's keys weigh on the level of its values."""
    level = [instance]
    keys = key_characters = 0
    shift = CHARACTERS_PER_EVALUATION
    while level:
        weight, characters, keys, key_characters = len(level) + keys, key_characters, 0, 0
        below: list[Any] = []
        kinds = {*map(type, level)} if len(level) > _WIDE_LEVEL else None
        if kinds is not None and kinds <= _SCALARS:  # a wide level of scalars alone (the last), read in C
            strings = level if len(kinds) == 1 else [*compress(level, map(is_, map(type, level), repeat(str)))]
            if str in kinds:
                characters += _characters(strings)
            yield weight + (characters >> shift), characters
            return
        if kinds is not None and kinds <= _JSON:  # a wide level holding objects or arrays: its parts picked out in C
            types = [*map(type, level)]
            if str in kinds:
                characters += _characters([*compress(level, map(is_, types, repeat(str)))])
            if dict in kinds:
                objects = [*compress(level, map(is_, types, repeat(dict)))]
                keys = sum(map(len, objects))
                key_characters = _characters([*chain.from_iterable(objects)])
                below += chain.from_iterable(map(dict.values, objects))
            if list in kinds:
                below += chain.from_iterable(compress(level, map(is_, types, repeat(list))))
            yield weight + (characters >> shift), characters
            level = below
            continue
        for value in level:
            kind = type(value)
            if kind is str:
                characters += len(value) if value.isascii() else _utf8_length(value)
            elif kind is dict:
                keys += len(value)
                if all(map(str.isascii, value)):
                    key_characters += sum(map(len, value))
                else:
                    key_characters += sum(map(_utf8_length, value))
                below += value.values()
            elif kind is list:
                below += value
        yield weight + (characters >> shift), characters
        level = below


def _characters(strings: list[str]) -> int:
    """The UTF-8 bytes of ``strings`` in all (their lengths, where all are ASCII)."""
    return sum(map(len, strings)) if all(map(str.isascii, strings)) else sum(map(_utf8_length, strings))


def _utf8_length(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))

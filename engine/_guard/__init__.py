"""Stage 3, the guard: a schema's references and cost, judged before any backend sees it.

:func:`inspect` walks the schema once (and every resource it references), resolves each ``$ref``
without inlining, refuses what must never be obeyed (network and file references, reference cycles
that never descend into the instance, patterns that need backtracking, anything over a limit) and
returns a :class:`GuardReport`: each measurement by limit name, and the facts later stages use.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from gc import get_referents as referents
from typing import Any

import msgspec

from .._config import EngineConfig, FetchConfig, Limits
from .._config_values import short_repr
from .._dialect import Dialect
from .._errors import RejectReason, SchemaRejected
from .._patterns import backtracking_construct, star_height
from .._patterns.analysis import (
    CLASS_ITEMS_PER_STEP,
    MAX_WRITTEN_OUT,
    MAX_WRITTEN_OUT_IN_ALL,
    PROPERTY_STEPS,
    WIDE_STEPS,
    reads_linearly,
    written_out,
    written_out_in_all,
)
from .budget import LIMIT_MEANINGS, bounds, check, exceeded
from .graph import analyse
from .refs import Fetcher, resolve_refs
from .tree import Tree, walk_tree
from .walk import DEFAULT_BASE, Graph, too_many_subschemas

__all__ = [
    "AMPLIFYING",
    "CLEARED_DEPTH",
    "LIMIT_MEANINGS",
    "MAX_CACHING_PATTERNS",
    "DeferredReport",
    "Fetcher",
    "GuardReport",
    "cleared",
    "fetcher",
    "inspect",
]


def fetcher(config: FetchConfig) -> Fetcher:
    """The opt-in fetcher for ``config`` (only built when ``config.enabled``)."""
    from .fetch import Fetcher as HttpFetcher

    return HttpFetcher(config)


class GuardReport(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """What the guard measured on one schema.

    Not tracked by the garbage collector (it holds only numbers and strings, so it can be in no
    reference cycle): one of the eight tracked objects a compiled schema kept alive, which a tool
    set of 10,000 tools makes every full collection walk."""

    measured: dict[str, int]
    """Each measurement by the name of the limit that bounds it (``max_schema_depth``: 7, ...)."""
    locations: dict[str, str]
    """Where each measurement's largest value was seen (a JSON pointer)."""
    recursive: bool
    """Whether evaluation can go as deep as the instance (a ``$ref`` loops through a descending
    keyword). Only then are Python objects depth-checked before validation."""
    eval_depth: int
    """The longest chain of subschemas applied to one instance location."""
    fan_out: int
    """The most subschemas one schema applies to a single child of the instance, refs inlined."""
    max_chain: int
    """Without recursion, the longest chain of subschemas one evaluation can nest, refs inlined
    (the native stack the schema needs whatever the instance); ``0`` when ``recursive``."""
    in_place_width: int
    """The most subschemas applied to one instance location, refs inlined."""
    max_star_height: int
    """The deepest nesting of quantifiers in any pattern (for backends running Python ``re``)."""
    fetched: tuple[str, ...] = ()
    """URIs retrieved in opt-in fetch mode (their documents are in the resources passed on)."""
    patterns: tuple[tuple[str, int], ...] = ()
    """Each distinct pattern and the steps it takes written out (see ``engine._patterns.analysis``,
    ``written_out_in_all``): the automata a regex engine builds for the schema."""

    @property
    def exponential(self) -> str:
        """Why evaluating this schema branch by branch may take exponential time ("" if not):
        references recurse through the instance and apply two or more subschemas to one child.
        Backends that backtrack (``Backend.backtracking``) refuse such a schema."""
        if self.recursive and self.fan_out >= 2:
            return (
                f"its recursion applies {self.fan_out} subschemas to each child of the instance, so "
                "branch-by-branch evaluation grows exponentially with the instance's depth"
            )
        return ""


def inspect(
    schema: Any,
    dialect: Dialect,
    resources: Mapping[str, Any],
    config: EngineConfig,
    *,
    fetch: Fetcher | None = None,
    fetched: dict[str, Any] | None = None,
    document: tuple[int, int] | None = None,
) -> GuardReport:
    """Judge ``schema`` (already through intake and the meta-schema check).

    Raises :class:`~engine.SchemaRejected` with ``remote-ref``, ``unresolvable-ref``,
    ``invalid-schema`` (a reference cycle), ``limit-exceeded`` or ``unsafe-pattern``.
    """
    limits = config.limits
    # Definitions at the root are there to be referred to: such a schema goes to the graph's walk
    # at once, not through a tree walk that would stop at its first reference.
    if (
        not resources
        and fetch is None
        and not (type(schema) is dict and ("$defs" in schema or "definitions" in schema))
    ):
        tree = walk_tree(schema, dialect, document, limits.max_subschemas)
        if tree is not None:
            return _tree_report(tree, config, document)
    # The graph never grows past the subschema limit: a walk that would is stopped and refused
    # there (the document, a resource it references, a place a reference walks on demand).
    graph = Graph(limits.max_subschemas)
    root = graph.add_document(schema, DEFAULT_BASE, dialect)  # the root's `$id` is registered by the walk
    resolve_refs(graph, resources, dialect, fetch, fetched, limits)
    _check_walk(graph, limits)  # the dynamic scopes' hubs count too
    shape = analyse(graph, root)

    measured: dict[str, int] = {}
    if document is not None:  # measured at intake, reported here next to the rest
        measured["max_schema_bytes"], measured["max_document_depth"] = document[0], document[1]
    measured.update({name: value for name, (value, _) in graph.measures.items()})
    locations = {name: graph.pointer(node) for name, (_, node) in graph.measures.items() if node >= 0}
    measured["max_ref_expansion"] = shape.expansion
    measured["max_eval_depth"] = shape.eval_depth
    if shape.unevaluated_nesting > measured["max_unevaluated_nesting"]:
        measured["max_unevaluated_nesting"] = shape.unevaluated_nesting
        locations["max_unevaluated_nesting"] = ""
    if document is None or _over(measured, limits):
        check(measured, locations, limits)

    located = ((graph.pointer(node), keyword, pattern) for node, keyword, pattern in graph.patterns)
    heights, distinct = _check_patterns(located, config)
    return GuardReport(
        measured=measured,
        locations=locations,
        recursive=shape.recursive,
        eval_depth=shape.eval_depth,
        fan_out=shape.fan_out,
        max_chain=0 if shape.recursive else shape.longest_chain,
        in_place_width=shape.in_place_width,
        max_star_height=heights,
        fetched=tuple(fetched or ()),
        patterns=distinct,
    )


AMPLIFYING = 256
"""Evaluations on one instance value (a subschema one, an ``enum`` compared member by member more)
past which a schema's checks are weighed against ``max_validation_work`` (see
:mod:`engine._work`): at most this many a value, a check is linear in the instance within
``max_instance_bytes``."""

CLEARED_DEPTH = 32
"""The longest chain of subschemas in a document :func:`cleared` clears (one more than its depth
as JSON). A report's ``max_chain`` is at most that; the stages that read it compare it with larger
bounds only (the msgspec translation's 64, the explanation's 512 frames), so it needs no measuring
at compile time."""

# The keys that make a schema more than a tree (a reference, a resource, an anchor) where the
# canonical text holds a `$` at all, a key written as it is spelled; with a reference, the
# definition at the root it names, when it names one by a name that needs no unescaping (no `~`,
# `%`, `/`, quote or backslash). One search of the text finds them all.
_DOLLAR_KEYS = re.compile(
    rb'"\$(ref|dynamicRef|recursiveRef|id|anchor|dynamicAnchor|recursiveAnchor|schema)"'
    rb'(?::"#/(\$defs|definitions)/([A-Za-z0-9_.\-]+)")?'
)
# The same references in a definition's own text.
_DEFINITION_REFS = {
    container: re.compile(rb'"\$ref":"#/' + re.escape(container.encode()) + rb'/([A-Za-z0-9_.\-]+)"')
    for container in ("$defs", "definitions")
}
# Every byte but the three that precede a value held by a container (`:`, `,`, `[`), deleted in
# one pass to count those (three `count` passes cost more).
_NOT_BEFORE_A_VALUE = bytes(set(range(256)) - set(b":,["))
_encode = msgspec.json.encode


def cleared(
    schema: Any, text: bytes, depth: int, values: int, widest: int, containers: int, dialect: Dialect, limits: Limits
) -> int:
    """Whether ``schema`` is shown to pass the guard by its canonical ``text`` and the intake's
    counts alone (``depth``, ``values``, ``widest`` and ``containers`` as
    :class:`~engine._intake.Intake` has them), so that its report can be made later, when asked
    for (:class:`DeferredReport`): non-zero if so (a bound, see below).

    Nothing in such a schema can be refused: it holds no resource, anchor, dynamic reference,
    ``unevaluated*`` keyword or pattern (its text spells none of their keys), its references (if
    any) name definitions at the root that reach no cycle (:func:`_definitions_cleared`), and
    every measurement is bounded by a count of the document, each within its limit. The
    subschemas (and with nothing to inline, the expansion) are at most its values and the root;
    branches, properties and enum values at most the widest container's; subschema depth and the
    chain of in-place applicators at most one more than the document's depth (a boolean subschema
    is a scalar, one level below the deepest container). A text spelling a key's name elsewhere
    (a property named ``pattern``) is not cleared: :func:`inspect` walks it, as before. Each test
    is one search of the text or a comparison, and each definition a reference reaches is written
    and searched once (the walk they spare is a sixth of a cold compile, and about twice a raw
    compile for a schema with references).

    The answer is ``0`` where the schema is not cleared, and otherwise a bound on the subschemas
    that are objects, every reference inlined (a boolean one costs no evaluation: jsonschema-rs
    took 2 ms for 8,000 ``true`` s applied to each of 10,000 items): the values and the root, or,
    past :data:`AMPLIFYING`, its arrays and objects (``containers``, counted by the intake), with
    each definition a reference inlines."""
    # A boolean subschema is a scalar: subschemas nest one level deeper than containers do.
    nesting = depth + 1
    if values < 0 or nesting > limits.max_schema_depth or values >= limits.max_subschemas:
        return 0
    if widest > limits.max_branches or widest > limits.max_properties or widest > limits.max_enum:
        return 0
    # A key is written `"name":` (nothing between the quote and the colon, no letter escaped): a
    # property named `patternString` is no pattern; a property named `pattern` is walked. Searched
    # with `find`: `in` first reads its operand as an integer (a TypeError raised and cleared, a
    # third of a search of a tool schema's text), and most texts hold no `"pattern` at all.
    find = text.find
    if find(b'"pattern') >= 0 and (find(b'"pattern":') >= 0 or find(b'"patternProperties":') >= 0):
        return 0
    if find(b'"unevaluated') >= 0 or (dialect is Dialect.DRAFT4 and find(b'"id"') >= 0):
        return 0
    written: list[bytes] = []  # the definition each reference names
    at = find(b"$")
    declared = type(schema) is dict and "$schema" in schema  # the root's `$schema`, yet to be met
    if at == 2 and text.startswith(b'{"$schema":"'):
        # The root's `$schema`, its first key sorted: most schemas written by a TypeScript SDK
        # spell it and no other `$` key, whose search (below) costs them 0.8 us, 6% of a raw compile.
        at = find(b"$", find(b'"', 12))
    if at >= 0:
        container = b"$defs" if dialect.is_modern else b"definitions"
        for key, named_in, name in _DOLLAR_KEYS.findall(text):
            if key == b"schema" and declared:
                declared = False  # the root's (a `$schema` below it is walked: refused there)
                continue
            if key != b"ref" or named_in != container:
                return 0  # a resource, an anchor, another reference, a `$schema` below the root: walked
            written.append(name)
    if written:
        return _definitions_cleared(schema, written, depth, values, containers, dialect, limits)
    if nesting > CLEARED_DEPTH or nesting > limits.max_eval_depth or values >= limits.max_ref_expansion:
        return 0
    return values + 1 if values < AMPLIFYING else min(values + 1, containers)


def _definitions_cleared(
    schema: Any, written: list[bytes], depth: int, values: int, containers: int, dialect: Dialect, limits: Limits
) -> int:
    """:func:`cleared` for a schema with references (``written``: the name each one in its
    canonical text gives): its expansion bound if they keep it within the guard's bounds (``0``
    otherwise): each names a definition at the root (``$defs``, or
    ``definitions`` before 2019-09) that exists, is a schema, and reaches no cycle through other
    definitions, and the expansion and the chains they make are within their limits.

    The bounds, by the texts of the definitions referred to (each written once; together no longer
    than the document's): a definition holds at most one value per colon, comma and opening
    bracket of its text, so inlining it adds at most that and one subschema, and what its own
    references inline; the root's own part holds at most the document's values and the root. A
    chain of subschemas is at most ``depth + 1`` long in the root's part, and one more than a
    definition's own depth in each definition a chain of references passes. A reference written
    where no subschema is (in an ``enum``, a ``const``, a definition nothing refers to) is counted
    as the root's own: the bounds only grow. Only the definitions referred to are read, and a
    chain of references longer than any chain cleared stops the reading there."""
    container = "$defs" if dialect.is_modern else "definitions"
    refs = _DEFINITION_REFS[container]
    definitions = schema.get(container) if type(schema) is dict else None
    if type(definitions) is not dict:
        return 0  # no definitions to find: walked (and refused)
    longest = min(CLEARED_DEPTH, limits.max_eval_depth)
    if depth + 2 > longest:  # the root's part, and a definition at least
        return 0
    cap = limits.max_ref_expansion + 1
    # Per definition referred to: (the names its own text refers to, at most the subschemas it
    # holds, the definition); read when first reached.
    own: dict[bytes, tuple[list[bytes], int, Any, bytes]] = {}
    # Inlined size per definition, its references followed, children first (the order kept in
    # `done`); a definition met again while its own references are followed is a cycle.
    size: dict[bytes, int] = {}
    done: list[bytes] = []
    for start in set(written):
        if start in size:
            continue
        targets = _read_definition(definitions, start, refs, own)
        if targets is None:
            return 0  # no such definition, or not a schema (walked: refused)
        path = [start]
        stack = [iter(targets)]
        while stack:
            for target in stack[-1]:
                if target in size:
                    continue
                if target in path or len(path) >= longest:
                    return 0  # a cycle (walked: refused, or recursion), or a chain too long
                targets = _read_definition(definitions, target, refs, own)
                if targets is None:
                    return 0
                path.append(target)
                stack.append(iter(targets))
                break
            else:
                stack.pop()
                name = path.pop()
                targets, count, _, _ = own[name]
                size[name] = min(count + sum(map(size.__getitem__, targets)), cap)
                done.append(name)
    # The root's own references: those of the text that no definition read holds, each with how
    # often the root's part writes it.
    counts = dict.fromkeys(size, 0)
    for name in written:
        counts[name] += 1
    for targets, _, _, _ in own.values():
        for name in targets:
            counts[name] -= 1
    at_root = {name: times for name, times in counts.items() if times > 0}
    expansion = values + 1 + sum(size[name] * times for name, times in at_root.items())
    if expansion > limits.max_ref_expansion:
        return 0
    # The longest chain, first with each definition as deep as any can be (two levels below the
    # root), then, if that is too long, with each one's own depth (read level by level).
    for exact in (False, True):
        chains: dict[bytes, int] = {}
        for name in done:
            targets, _, definition, _ = own[name]
            if type(definition) is bool:
                chain = 1
            else:
                chain = _depth(definition, longest) + 1 if exact else depth - 1
            chains[name] = chain + max(map(chains.__getitem__, targets), default=0)
        if depth + 1 + max(map(chains.__getitem__, at_root), default=0) <= longest:
            break
    else:
        return 0
    if expansion > AMPLIFYING:  # tighter: the objects each text spells (see `cleared`)
        spelled: dict[bytes, int] = {}
        for name in done:
            targets, _, _, written_text = own[name]
            spelled[name] = written_text.count(b"{") + sum(map(spelled.__getitem__, targets))
        expansion = min(expansion, containers + sum(spelled[name] * times for name, times in at_root.items()))
    return expansion


def _read_definition(
    definitions: dict[str, Any],
    name: bytes,
    refs: re.Pattern[bytes],
    own: dict[bytes, tuple[list[bytes], int, Any, bytes]],
) -> list[bytes] | None:
    """The names definition ``name`` refers to, its facts kept in ``own``; ``None`` if there is no
    such definition or it is not a schema."""
    definition = definitions.get(name.decode())
    if type(definition) is bool:
        facts: tuple[list[bytes], int, Any, bytes] = ([], 1, definition, b"")
    elif type(definition) is dict:
        written = _encode(definition)
        count = len(written.translate(None, _NOT_BEFORE_A_VALUE)) + 2
        facts = (refs.findall(written), count, definition, written)
    else:
        return None
    own[name] = facts
    return facts[0]


def _depth(document: dict[str, Any], cap: int) -> int:
    """The levels of containers in a plain ``document`` (itself the first), level by level; past
    ``cap`` levels, ``cap + 1`` (deeper than any chain cleared: not read further)."""
    depth = 0
    level: list[Any] = [document]
    while level:
        depth += 1
        if depth > cap:
            break
        level = [value for value in referents(*level) if type(value) is dict or type(value) is list]
    return depth


class DeferredReport:
    """The report on a :func:`cleared` schema, made by :func:`inspect` when first asked for (for
    :attr:`CompiledSchema.guard`, or to explain an invalid instance): the same report, from the
    same document (``document()`` gives the schema as it was compiled), later. ``expansion``:
    the bound :func:`cleared` gave on the report's ``max_ref_expansion``, known before it."""

    __slots__ = ("_config", "_dialect", "_document", "_report", "_size", "expansion")

    def __init__(
        self, document: Callable[[], Any], dialect: Dialect, config: EngineConfig, size: tuple[int, int], expansion: int
    ) -> None:
        self.expansion = expansion
        self._document = document
        self._dialect = dialect
        self._config = config
        self._size = size
        self._report: GuardReport | None = None

    def __call__(self) -> GuardReport:
        report = self._report
        if report is None:
            report = self._report = inspect(self._document(), self._dialect, {}, self._config, document=self._size)
        return report


def _tree_report(tree: Tree, config: EngineConfig, document: tuple[int, int] | None) -> GuardReport:
    """The report on a schema without references: nothing recurses, nothing is inlined."""
    measured = tree.measures  # the document's measurements included, in the report's order
    locations = tree.locations
    count = measured["max_subschemas"]
    limits = config.limits
    if count > limits.max_subschemas:  # first, as the graph's walk refuses it (the tree's walk did)
        raise too_many_subschemas(limits.max_subschemas + 1, limits.max_subschemas)
    if document is None or _over(measured, limits):
        check(measured, locations, limits)
    heights, distinct = _check_patterns(tree.patterns, config) if tree.patterns else (0, ())
    return GuardReport(
        measured=measured,
        locations=locations,
        recursive=False,
        eval_depth=tree.in_place_chain,
        fan_out=0,
        max_chain=tree.max_depth,
        in_place_width=count,
        max_star_height=heights,
        patterns=distinct,
    )


def _over(measured: dict[str, int], limits: Any) -> bool:
    """Whether a measurement is over its bound, ``measured`` holding every limit in the report's
    order (the document's two first). Compared in one expression (the budget's loop was a third of
    a small schema's report); the budget names the one over, in its own order."""
    a, b, c, d, e, f, g, uneval, pattern, expansion, depth = measured.values()
    A, B, C, D, E, F, G, EXPANSION, DEPTH, UNEVAL, PATTERN = bounds(limits)  # noqa: N806
    over: bool = (
        a > A or b > B or c > C or d > D or e > E or f > F or g > G
        or uneval > UNEVAL or pattern > PATTERN or expansion > EXPANSION or depth > DEPTH
    )  # fmt: skip
    return over


MAX_CACHING_PATTERNS = 64
"""The most distinct patterns a schema may hold that a regex engine may not read one state at a
time (``reads_linearly``): each keeps its automaton's cache once a long string is checked, some
1.2 MB (40 distinct ``a[ab]{20}c<i>`` checked once on 800 KB each: 50 MB; 400 in a 22 KB schema
had held 1 GB). The real tool schemas hold at most a few."""


def _check_patterns(
    patterns: Iterable[tuple[str, str, str]], config: EngineConfig
) -> tuple[int, tuple[tuple[str, int], ...]]:
    """The deepest quantifier nesting of ``patterns`` ((location, keyword, pattern) each), and each
    distinct pattern with its steps; in linear-time mode, a pattern that needs backtracking is
    refused."""
    heights = total = 0
    distinct: dict[str, int] = {}
    caching = 0
    for where, keyword, pattern in patterns:  # a repeated pattern is answered by the analysis' cache
        heights = max(heights, star_height(pattern))
        if pattern not in distinct and not reads_linearly(pattern):
            caching += 1
            if caching > MAX_CACHING_PATTERNS:
                location = f"{where}/{keyword}"
                raise SchemaRejected(
                    RejectReason.UNSAFE_PATTERN,
                    f"the schema holds more than {MAX_CACHING_PATTERNS} distinct patterns a regex engine may not "
                    f"read one state at a time (the last at {location}): each keeps its automaton's cache, some "
                    "1.2 MB, once a long string is checked (400 such patterns in a 22 KB schema held 1 GB)",
                    location=location,
                    details={"pattern": pattern, "patterns": caching, "bound": MAX_CACHING_PATTERNS},
                )
        steps = written_out(pattern)
        weight = steps if steps > MAX_WRITTEN_OUT else written_out_in_all(pattern)
        total += weight
        distinct[pattern] = weight
        if total > MAX_WRITTEN_OUT_IN_ALL and steps <= MAX_WRITTEN_OUT:
            location = f"{where}/{keyword}"
            raise SchemaRejected(
                RejectReason.UNSAFE_PATTERN,
                f"the schema's patterns take {total} steps written out in all by {location} ({WIDE_STEPS} each "
                f"in a pattern with a class of most of Unicode, such as '.' or '\\S'), over {MAX_WRITTEN_OUT_IN_ALL}: "
                "each is an automaton a regex engine builds, in up to some 4 ms and 1 MB for 1,000 steps (200 "
                "such patterns in a 10 KB schema: 0.9 s and 290 MB; ten of '\\S{990}x': 23 MB)",
                location=location,
                details={"pattern": pattern, "steps": total, "bound": MAX_WRITTEN_OUT_IN_ALL},
            )
        if steps > MAX_WRITTEN_OUT:
            location = f"{where}/{keyword}"
            raise SchemaRejected(
                RejectReason.UNSAFE_PATTERN,
                f"pattern {short_repr(pattern)} at {location} takes {steps} steps written out (its counted "
                f"repetitions and branches, {PROPERTY_STEPS} a Unicode property class, one more a class for every "
                f"{CLASS_ITEMS_PER_STEP} characters beyond ASCII it lists), over {MAX_WRITTEN_OUT}: "
                "past that a regex engine's automaton takes milliseconds and megabytes to build, and its time "
                "on a string grows with the steps times the string's length",
                location=location,
                details={"pattern": pattern, "steps": steps, "bound": MAX_WRITTEN_OUT},
            )
        if config.regex == "linear":
            construct = backtracking_construct(pattern)
            if construct is not None:
                location = f"{where}/{keyword}"
                raise SchemaRejected(
                    RejectReason.UNSAFE_PATTERN,
                    f"pattern {pattern!r} at {location} needs a backtracking regex engine ({construct}); "
                    'refused in linear-time mode (set regex = "backtracking" to allow it, bounded by '
                    "backtrack_limit)",
                    location=location,
                    details={"pattern": pattern, "construct": construct},
                )
    return heights, tuple(distinct.items())


def _check_walk(graph: Graph, limits: Any) -> None:
    count = len(graph.obj)
    if count > limits.max_subschemas:
        raise exceeded("max_subschemas", count, limits.max_subschemas, "")

"""What the reference graph says about cost: cycles, expansion, recursion, evaluation depth.

Edges are *in place* (same instance location: applicators and references) or *descending* (a
child of the instance). Every pass is iterative and visits each node and edge a bounded number of
times, so the analysis is linear in the graph's size. Counts saturate at ``CAP``.
"""

from __future__ import annotations

from itertools import compress
from typing import Any

import msgspec

from .._errors import RejectReason, SchemaRejected
from .walk import Graph

__all__ = ["GraphFacts", "analyse"]

CAP = 1 << 62


class GraphFacts(msgspec.Struct, frozen=True, kw_only=True):
    """Cost facts of one schema graph."""

    expansion: int
    """Subschemas the schema would count with every ``$ref`` inlined (a recursive reference
    counted once)."""
    recursive: bool
    """Whether a reference loops back through a descending keyword: only then can evaluation go
    as deep as the instance."""
    eval_depth: int
    """The longest chain of schemas applied to one instance location (applicators and refs)."""
    in_place_width: int
    """The most subschemas applied to one instance location by one schema (refs inlined)."""
    fan_out: int
    """The most subschemas one schema applies to a single child of the instance (refs inlined):
    with recursion, the error path may do ``fan_out ** depth`` work on a ``depth``-deep instance."""
    reachable: int
    unevaluated_nesting: int
    """``unevaluated*`` scopes nested in place, through references (each re-evaluates what it
    wraps)."""
    longest_chain: int
    """The longest chain of subschemas one evaluation can nest, refs inlined (descending keywords
    included): the native stack a non-recursive schema needs, whatever the instance."""


_NONE: list[int] = []


def analyse(graph: Graph, root: int = 0) -> GraphFacts:
    if not graph.refs:
        # A tree: nothing loops, nothing recurses, and nothing to inline (the fast, common case).
        return GraphFacts(
            expansion=len(graph.obj),
            recursive=False,
            eval_depth=graph.in_place_chain,
            in_place_width=len(graph.obj),
            fan_out=0,
            reachable=len(graph.obj),
            longest_chain=graph.max_depth_seen,
            unevaluated_nesting=0,  # the walk measured it along the tree
        )
    in_place = graph.in_place
    n = len(graph.obj)
    # The expansion's walk reaches every node reachable from the root and sizes each (a size is
    # at least 1): the reachable nodes, in order, are those with a size.
    expansion, recursive, chain, size = _expansion(graph, root, n)
    reachable = list(compress(range(n), size))
    order = _in_place_order(graph, root, reachable)

    # Over the in-place DAG, children first. A leaf's values are set before the loop (most
    # nodes are leaves), and only the nodes with in-place children are visited one by one.
    width = [1] * n
    depth = [1] * n
    fan = [0] * n
    uneval = [0] * n
    scopes = graph.unevaluated_scopes
    for node, count in graph.per_child.items():
        fan[node] = count
    for node in scopes:
        uneval[node] = 1
    for node in order:
        children = in_place[node]
        w, d, f, u = 1, 0, fan[node], 0
        for child in children:
            w += width[child]
            f += fan[child]
            if depth[child] > d:
                d = depth[child]
            if uneval[child] > u:
                u = uneval[child]
        width[node] = w if w < CAP else CAP
        depth[node] = d + 1
        fan[node] = f if f < CAP else CAP
        uneval[node] = u + (node in scopes)
    at = reachable.__iter__
    return GraphFacts(
        expansion=expansion,
        recursive=recursive,
        eval_depth=max(map(depth.__getitem__, at()), default=1),
        in_place_width=max(map(width.__getitem__, at()), default=1),
        fan_out=max(map(fan.__getitem__, at()), default=0),
        reachable=len(reachable),
        longest_chain=chain,
        unevaluated_nesting=max(map(uneval.__getitem__, at()), default=0),
    )


def _in_place_order(graph: Graph, root: int, reachable: list[int]) -> list[int]:
    """Reachable nodes with in-place children, in-place children before parents; an in-place
    cycle is refused. A node without in-place children (most nodes) can be on no cycle and has
    nothing to compute from children: it is passed over."""
    in_place = graph.in_place
    WHITE, GREY, BLACK = 0, 1, 2
    colour = [WHITE] * len(graph.obj)  # only reachable nodes with in-place children are coloured
    order: list[int] = []
    for start in filter(in_place.__contains__, reachable):
        if colour[start] != WHITE:
            continue
        colour[start] = GREY
        path = [start]
        stack = [(start, 0)]
        while stack:
            node, i = stack[-1]
            children = in_place[node]
            if i < len(children):
                stack[-1] = (node, i + 1)
                child = children[i]
                if child not in in_place:
                    continue
                state = colour[child]
                if state == GREY:
                    raise _cycle(graph, path[path.index(child) :] + [child])
                if state == WHITE:
                    colour[child] = GREY
                    path.append(child)
                    stack.append((child, 0))
            else:
                stack.pop()
                path.pop()
                colour[node] = BLACK
                order.append(node)
    return order


def _cycle(graph: Graph, loop: list[int]) -> SchemaRejected:
    where = [graph.pointer(node) for node in loop if graph.parent[node] >= 0 or graph.obj[node] is not True]
    shown = " -> ".join(p if "#" in p else "#" + p for p in where)
    return SchemaRejected(
        RejectReason.INVALID_SCHEMA,
        f"reference cycle that never descends into the instance: {shown}; such a schema has no "
        "meaning (evaluating it would never end)",
        location=where[0] if where else "",
        details={"cycle": where},
    )


def _expansion(graph: Graph, root: int, n: int) -> tuple[int, bool, int, list[int]]:
    """Size of the schema with references inlined (memoised per target), whether any reference
    loops (an in-place loop counts too: it is refused next, by the in-place order), and the longest
    chain of subschemas one evaluation can nest (meaningful when nothing loops); and the size
    of each node, 0 for a node the root does not reach."""
    in_place, descend, nothing = graph.in_place, graph.descend, _NONE
    size = [0] * n  # 0: not computed yet
    longest = [0] * n
    on_path = [False] * n
    recursive = False
    on_path[root] = True
    # frame: [node, edges, next edge, inlined size so far, longest chain below so far]
    stack: list[list[Any]] = [[root, in_place.get(root, nothing) + descend.get(root, nothing), 0, 1, 0]]
    while stack:
        frame = stack[-1]
        node, edges, i, total = frame[0], frame[1], frame[2], frame[3]
        if i < len(edges):
            frame[2] = i + 1
            child = edges[i]
            if on_path[child]:
                recursive = True  # a recursive reference: counted once
                frame[3] = total + 1
            elif size[child]:
                total += size[child]
                frame[3] = total if total < CAP else CAP
                if longest[child] > frame[4]:
                    frame[4] = longest[child]
            else:
                below = (
                    in_place.get(child, nothing) + descend.get(child, nothing)
                    if child in in_place or child in descend
                    else nothing
                )
                if below:
                    on_path[child] = True
                    stack.append([child, below, 0, 1, 0])
                else:  # a leaf: settled at once (most nodes)
                    size[child] = longest[child] = 1
                    frame[3] = total + 1 if total < CAP else CAP
                    if frame[4] < 1:
                        frame[4] = 1
        else:
            stack.pop()
            on_path[node] = False
            size[node] = total
            longest[node] = frame[4] + 1
            if stack:
                parent = stack[-1]
                parent[3] = min(parent[3] + total, CAP)
                parent[4] = max(parent[4], longest[node])
    return size[root], recursive, longest[root], size

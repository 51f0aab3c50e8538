"""The locations of jsonschema-rs's errors with their empty tokens put back.

jsonschema-rs gives an error's instance path and evaluation path as lists of tokens, and drops the
empty ones: a failing value under the property ``""`` is reported at the root (``[]``), and the
keyword ``/properties//type`` as ``/properties/type``, which is another property's. Where the
document walked along a path meets an object holding the key ``""``, the path is read again
against it, with ``""`` tried at each such object: the first path that uses every token and ends
where the error is (at a value equal to the failing one; at the error's keyword, in a keyword's
place) is the error's. Where several paths end at equal values, the first is taken (the tokens as
given before any insertion): a location of an equal failing value. A path the walk cannot settle
within a few thousand steps is cut before its first object holding ``""``: the location of a value
holding the error's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["instance_tokens", "keyword_tokens"]

_STEPS = 4_096  # objects looked at, at most, to settle one path
_NAMES = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"})
"""Keywords whose object maps names to subschemas: the token after one is a name, not a keyword."""


def instance_tokens(
    instance: Any, tokens: list[str | int], failing: Callable[[], Any], *, member: bool = False
) -> list[str | int]:
    """``tokens`` (an error's instance path) with the empty keys it passes through put back, the
    path ending at a value equal to ``failing()`` (the error's value, read only where needed), or
    with ``member``, at an object holding such a value (an error about an object that quotes one
    of its members)."""
    if not _meets_empty_key(instance, tokens):
        return tokens
    value = failing()

    def settled(node: Any, _: list[str | int]) -> bool:
        if member:
            return isinstance(node, Mapping) and any(item == value for item in node.values())
        return bool(node == value)

    found = _search(instance, tokens, settled, lambda _: True)
    return _certain(instance, tokens) if found is None else found


def keyword_tokens(schema: Any, tokens: list[str | int], keyword: str) -> list[str | int]:
    """``tokens`` (an error's evaluation path, in ``schema``) with the empty names it passes
    through put back: the path ending at ``keyword`` in a keyword's place. A path through a
    ``$ref`` is kept as given (its target is another walk)."""
    if "$ref" in tokens or not _meets_empty_key(schema, tokens):
        return tokens

    def settled(node: Any, path: list[str | int]) -> bool:
        return bool(path) and path[-1] == keyword and _in_keyword_place(path)

    found = _search(schema, tokens, settled, lambda path: not _in_keyword_place(path))
    return _certain(schema, tokens) if found is None else found


def _certain(document: Any, tokens: list[str | int]) -> list[str | int]:
    """The tokens before the first object holding the key ``""`` on the way: the location of a
    value holding the error's, where the search could not settle which path below is its (the
    tokens as given may name another, existing location)."""
    node = document
    for at, token in enumerate(tokens):
        if isinstance(node, Mapping):
            if "" in node:
                return tokens[:at]
            node = node.get(token) if isinstance(token, str) else None
        elif isinstance(node, list) and type(token) is int and 0 <= token < len(node):
            node = node[token]
        else:
            return tokens[:at]
    return tokens


def _in_keyword_place(path: list[str | int]) -> bool:
    """Whether the last token of ``path`` (a path in a schema) names a keyword, not a property or
    a definition: it does unless the token before it is a keyword mapping names."""
    place = True  # the root's members are keywords
    for token in path[:-1]:
        place = not (place and token in _NAMES)
    return place


def _meets_empty_key(document: Any, tokens: list[str | int]) -> bool:
    """Whether an object holding the key ``""`` is on the way along ``tokens`` (or at its end)."""
    node = document
    for token in tokens:
        if isinstance(node, Mapping):
            if "" in node:
                return True
            node = node.get(token) if isinstance(token, str) else None
        elif isinstance(node, list) and type(token) is int and 0 <= token < len(node):
            node = node[token]
        else:
            return False
    return isinstance(node, Mapping) and "" in node


def _search(document: Any, tokens: list[str | int], settled: Any, empty_allowed: Any) -> list[str | int] | None:
    """The first path through ``document`` made of ``tokens`` in order, with ``""`` inserted
    before objects holding that key (where ``empty_allowed(path + [""])``), that ``settled(node,
    path)`` accepts at its end; the given tokens first, then fewer insertions before more."""
    steps = 0
    # Depth first, each state (node, tokens used, path so far); a token consumed is tried before
    # an empty key inserted, so that the path as given wins where both reach the error.
    stack: list[tuple[Any, int, list[str | int]]] = [(document, 0, [])]
    while stack:
        steps += 1
        if steps > _STEPS:
            return None
        node, used, path = stack.pop()
        if used == len(tokens) and settled(node, path):
            return path
        options: list[tuple[Any, int, list[str | int]]] = []
        if isinstance(node, Mapping) and "" in node and empty_allowed([*path, ""]):
            options.append((node[""], used, [*path, ""]))
        if used < len(tokens):
            token = tokens[used]
            if isinstance(node, Mapping) and isinstance(token, str) and token in node:
                options.append((node[token], used + 1, [*path, token]))
            elif isinstance(node, list) and type(token) is int and 0 <= token < len(node):
                options.append((node[token], used + 1, [*path, token]))
        stack.extend(options)  # the consumed token last: popped first
    return None

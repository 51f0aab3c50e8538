"""ECMA-262 patterns, run by Python ``re`` only where the answer is the same and the cost bounded.

JSON Schema ``pattern`` and ``patternProperties`` are ECMA-262 regular expressions. The backends
written in Python (``fastjsonschema``, ``jsonschema``, ``msgspec`` constraints) run them with
Python ``re``, which differs in ways that change answers (``\\d``, ``\\w`` and ``\\b`` are Unicode,
``$`` also matches before a final newline, ``.`` lets ``\\r`` through) and backtracks (a pattern
such as ``(a+)+$`` takes exponential time). A pattern is read by the strict parser of
:mod:`.parse`, checked by :mod:`.safety`, and written here as the Python pattern that matches
exactly the same strings, or refused:

    >>> translate(r"^\\d{3}$")
    '^[0-9]{3}\\\\Z'
    >>> translate(r"(a+)+")
    Traceback (most recent call last):
    ...
    engine._patterns.parse.PatternRefused: nested quantifiers: ...

API: :func:`translate` (Python source, flag-free, for libraries that compile it themselves;
it finds a match exactly where the ECMA-262 pattern does, though not always the same span),
:func:`compile_pattern` (the compiled ``re.Pattern``, cached) and :class:`PatternRefused`
(``.why`` is a sentence). Only ``re.search`` semantics are meant, as JSON Schema specifies.

Refused: backreferences, lookaround, named groups' references, ``\\p{..}``, ``\\c``, surrogate
escapes, classes of more than 64 ranges beyond U+FFFF (tried one by one on each character),
quantifiers nested inside quantified groups, alternatives that overlap under a quantifier, two
unbounded quantifiers whose character sets overlap with nothing between them to keep them apart
(``\\d*\\d*``), and unanchored patterns whose search would rescan one stretch from many starting
points (``x[a-z]*y``) -- the shapes that make a backtracking engine blow up, exponentially or
quadratically. The supported subset covers every pattern in the project's corpus of real tool
schemas. Reading, checking and writing a pattern are each linear in its length.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .parse import Atom, Group, Node, Parser, PatternRefused, Repeat
from .safety import check, restart_guard

__all__ = ["PatternRefused", "compile_pattern", "translate"]


def _emit(alternatives: list[list[Node]]) -> str:
    return "|".join("".join(_emit_node(n) for n in seq) for seq in alternatives)


def _emit_node(node: Node) -> str:
    if isinstance(node, Group):
        return "(?:" + _emit(node.alternatives) + ")"
    if not isinstance(node, Repeat):
        return node.source
    body = _emit_node(node.node)
    if node.high is None:
        quant = "*" if node.low == 0 else ("+" if node.low == 1 else f"{{{node.low},}}")
    elif node.low == 0 and node.high == 1:
        quant = "?"
    elif node.low == node.high:
        quant = f"{{{node.low}}}"
    else:
        quant = f"{{{node.low},{node.high}}}"
    return body + quant + ("?" if node.lazy else "")


def _emit_alternative(parser: Parser, sequence: list[Node]) -> str:
    prefix, sequence = restart_guard(parser, sequence)
    return prefix + "".join(_emit_node(n) for n in sequence)


@lru_cache(maxsize=4096)
def translate(pattern: str) -> str:
    """The Python ``re`` source that matches (by ``search``) exactly what ECMA-262 ``pattern``
    matches, with no flags needed; raises :class:`PatternRefused` with the reason otherwise."""
    if not isinstance(pattern, str):
        raise PatternRefused(str(pattern), "a pattern must be a string")
    parser = Parser(pattern)
    tree = parser.parse()
    check(parser, tree)
    most = max(map(_astral_ranges, (node for seq in tree for node in seq)), default=0)
    if most > _ASTRAL_RANGES:
        raise parser.refuse(
            f"a character class of {most} ranges beyond U+FFFF, which Python re tries one by one on "
            f"each character it reads (more than {_ASTRAL_RANGES})"
        )
    return "|".join(_emit_alternative(parser, seq) for seq in tree)


# Python `re` matches a class's characters within U+FFFF by a table, and tries its ranges beyond
# one at a time, for any character the table does not hold: 2,000 of them, 4 us a character.
_ASTRAL_RANGES = 64


def _astral_ranges(node: Node) -> int:
    """The most ranges beyond U+FFFF one character class of ``node`` holds."""
    if isinstance(node, Atom):
        return sum(high > 0xFFFF for _, high in node.chars)
    if isinstance(node, Repeat):
        return _astral_ranges(node.node)
    if isinstance(node, Group):
        return max((_astral_ranges(child) for seq in node.alternatives for child in seq), default=0)
    return 0


@lru_cache(maxsize=4096)
def compile_pattern(pattern: str) -> re.Pattern[str]:
    """:func:`translate`, compiled."""
    source = translate(pattern)
    try:
        return re.compile(source)
    except (re.error, OverflowError, RecursionError) as exc:  # pragma: no cover - translate emits valid syntax
        raise PatternRefused(pattern, f"Python re cannot compile the translation: {exc}") from None

"""Regular-expression safety, decided statically from the pattern's text.

jsonschema-rs runs ``pattern`` / ``patternProperties`` in a linear-time engine (``regex="linear"``,
the default). Lookaround and backreferences need a backtracking engine, whose running time a
hostile pattern controls; such patterns are refused with ``unsafe-pattern`` unless the
configuration allows ``regex="backtracking"`` (bounded by ``backtrack_limit`` steps).
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = [
    "MAX_WRITTEN_OUT",
    "MAX_WRITTEN_OUT_CLOSED",
    "backtracking_construct",
    "star_height",
    "word_boundary",
    "written_out",
]

MAX_WRITTEN_OUT = 1_000
"""The most steps a pattern may take once its counted repetitions are written out (``a{20}`` is
20 steps, ``(?:ab){3}`` 6). A linear-time engine runs a pattern as an automaton of that many steps;
searching a string anywhere in it (a pattern without anchors, or after a ``.*``) tracks every place
a match may have started, and past about 2,000 such steps (``a{2000}``) jsonschema-rs's cache of
states overflows and it falls back to a search costing the steps times the string's length: 18 s on
a string of 1 MB, against 20-40 ms for ``a{1000}`` to ``a{1750}``. The text of a pattern is bounded
by ``max_pattern_length``; its counts are bounded here."""

MAX_WRITTEN_OUT_CLOSED = 10_000
"""The same bound for a *closed* pattern (see :func:`written_out`): no match is longer than its
steps, so a search reads no more of the string than that (``^.{1,4096}$`` answers a string of 1 MB
in 0.1 ms); what remains is at worst the steps squared."""

_COUNTED = re.compile(r"\{(\d+)(,(\d*))?\}")
_CAP = 1 << 40  # products past any bound are capped: a count's digits may be many

_LOOKAROUND = {"(?=": "lookahead", "(?!": "negative lookahead", "(?<=": "lookbehind", "(?<!": "negative lookbehind"}


# Both scans read a pattern a character at a time in Python; the tools of one server repeat their
# patterns (dates, identifiers, URLs), so the answers are kept by pattern text (pure functions).
@lru_cache(maxsize=1024)
def backtracking_construct(pattern: str) -> str | None:
    """The first construct of ``pattern`` that needs backtracking, described, or ``None``."""
    if "(?" not in pattern and "\\" not in pattern:
        return None  # no lookaround without "(?", no backreference without a backslash
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        c = pattern[i]
        if c == "\\":
            nxt = pattern[i + 1] if i + 1 < n else ""
            if not in_class and nxt.isdigit() and nxt != "0":
                return f"backreference \\{nxt} at offset {i}"
            if not in_class and nxt == "k" and pattern.startswith("<", i + 2):
                return f"named backreference at offset {i}"
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
        elif c == "[":
            in_class = True
            if pattern.startswith("]", i + 1) or pattern.startswith("^]", i + 1):
                i += 2 if pattern[i + 1] == "]" else 3  # a leading ']' is literal
                continue
        elif c == "(":
            for opener, name in _LOOKAROUND.items():
                if pattern.startswith(opener, i):
                    return f"{name} at offset {i}"
        i += 1
    return None


@lru_cache(maxsize=1024)
def star_height(pattern: str) -> int:
    """How deeply quantified groups nest (``^(a+)+$`` has 2): the shape that makes a backtracking
    engine exponential. Reported for the backends that run Python ``re``."""
    if "*" not in pattern and "+" not in pattern and "{" not in pattern:
        return 0  # nothing is quantified
    depth_stack: list[int] = [0]  # per open group: the deepest quantified nesting inside it
    best = 0
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2  # an escaped character is an atom; a quantifier after it is seen next
            continue
        if in_class:
            if c == "]":
                in_class = False
            i += 1
            continue
        if c == "[":
            in_class = True
        elif c == "(":
            depth_stack.append(0)
        elif c == ")" and len(depth_stack) > 1:
            inner = depth_stack.pop()
            quantified = i + 1 < n and pattern[i + 1] in "*+{"
            height = inner + (1 if quantified else 0)
            depth_stack[-1] = max(depth_stack[-1], height)
            best = max(best, height)
        elif c in "*+" or (c == "{" and i > 0):
            depth_stack[-1] = max(depth_stack[-1], 1)
            best = max(best, 1)
        i += 1
    return best


def word_boundary(pattern: str) -> str | None:
    """The first ``\\b`` or ``\\B`` assertion of ``pattern`` (outside a class, where ``[\\b]`` is a
    backspace), described, or ``None``. ECMA-262's word boundary is ASCII-only (``\\w`` is
    ``[A-Za-z0-9_]``; with case-insensitive modifiers, that class case-folded); jsonschema-rs's is
    Unicode, so ``^\\bé`` matches ``"é"`` there and nowhere in ECMA-262."""
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        c = pattern[i]
        if c == "\\":
            if not in_class and i + 1 < n and pattern[i + 1] in "bB":
                return f"\\{pattern[i + 1]} at offset {i}"
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
        elif c == "[":
            in_class = True
            if pattern.startswith("]", i + 1) or pattern.startswith("^]", i + 1):
                i += 2 if pattern[i + 1] == "]" else 3  # a leading ']' is literal
                continue
        i += 1
    return None


@lru_cache(maxsize=1024)
def written_out(pattern: str) -> tuple[int, bool]:
    """How many steps ``pattern`` takes with its counted repetitions written out, and whether it is
    *closed*: anchored at both ends (``^...$``, no ``|`` outside a group) with no unbounded
    quantifier (``*``, ``+``, ``{n,}``), so that no match is longer than those steps.

    Each character, escape or class is one step, a group the longest of its alternatives, a counted
    repetition ``{n,m}`` its body times the larger count (``{n,}`` times ``n``: past ``n`` the body
    loops), ``*``, ``+`` and ``?`` the body once. An upper bound: the characters that open a group
    (``?:``, a name) count as steps too. A pattern without ``{`` takes at most one step per
    character."""
    if "{" not in pattern:
        return len(pattern), False  # within max_pattern_length: whether it is closed does not matter
    # Per open group: [steps of the alternative being read, the longest alternative so far,
    # steps of the last thing read (what a quantifier repeats)].
    stack: list[list[int]] = [[0, 0, 0]]
    unbounded = alternatives = False
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        frame = stack[-1]
        if c == "\\":
            frame[0] += 1
            frame[2] = 1
            i += 2
            continue
        if c == "[":
            j = i + 1
            if pattern.startswith("^", j):
                j += 1
            if pattern.startswith("]", j):
                j += 1  # a leading ']' is literal
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            frame[0] += 1
            frame[2] = 1
            i = j + 1
            continue
        if c == "(":
            stack.append([0, 0, 0])
        elif c == ")" and len(stack) > 1:
            inner = stack.pop()
            size = max(inner[0], inner[1])
            parent = stack[-1]
            parent[0] = min(parent[0] + size, _CAP)
            parent[2] = size
        elif c == "|":
            alternatives = alternatives or len(stack) == 1
            frame[1] = max(frame[1], frame[0])
            frame[0] = frame[2] = 0
        elif c == "{" and (counted := _COUNTED.match(pattern, i)) is not None:
            low, comma, high = counted.groups()
            unbounded = unbounded or (comma is not None and not high)
            times = max(int(low), int(high) if high else 0) if comma else int(low)
            grown = min(frame[2] * max(times, 1), _CAP)
            frame[0] = min(frame[0] + grown - frame[2], _CAP)
            frame[2] = grown
            i = counted.end()
            continue
        elif c in "*+":
            unbounded = True
        elif c != "?":
            frame[0] += 1
            frame[2] = 1
        i += 1
    while len(stack) > 1:  # an unclosed group (the meta-schema check refuses such a pattern)
        inner = stack.pop()
        stack[-1][0] += max(inner[0], inner[1])
    root = stack[0]
    escaped_end = (len(pattern) - len(pattern[:-1].rstrip("\\")) - 1) % 2 == 1
    closed = pattern.startswith("^") and pattern.endswith("$") and not escaped_end
    return max(root[0], root[1]), closed and not alternatives and not unbounded

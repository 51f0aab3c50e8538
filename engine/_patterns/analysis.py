"""Regular-expression safety, decided statically from the pattern's text.

jsonschema-rs runs ``pattern`` / ``patternProperties`` in a linear-time engine (``regex="linear"``,
the default). Lookaround and backreferences need a backtracking engine, whose running time a
hostile pattern controls; such patterns are refused with ``unsafe-pattern`` unless the
configuration allows ``regex="backtracking"`` (bounded by ``backtrack_limit`` steps).
"""

from __future__ import annotations

from functools import lru_cache

__all__ = ["backtracking_construct", "star_height", "word_boundary"]

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

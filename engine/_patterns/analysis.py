"""Regular-expression safety, decided statically from the pattern's text.

jsonschema-rs runs ``pattern`` / ``patternProperties`` in a linear-time engine (``regex="linear"``,
the default). Lookaround and backreferences need a backtracking engine, whose running time a
hostile pattern controls; such patterns are refused with ``unsafe-pattern`` unless the
configuration allows ``regex="backtracking"`` (bounded by ``backtrack_limit`` steps).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from .charsets import Ranges, overlap
from .parse import Assertion, Atom, Group, Node, Parser, PatternRefused, Repeat

__all__ = [
    "CLASS_ITEMS_PER_STEP",
    "MAX_WRITTEN_OUT",
    "MAX_WRITTEN_OUT_IN_ALL",
    "PROPERTY_STEPS",
    "backtracking_construct",
    "ecma_pattern",
    "reads_linearly",
    "rust_only",
    "spaced_count",
    "star_height",
    "word_boundary",
    "written_out",
    "written_out_in_all",
]

MAX_WRITTEN_OUT = 1_000
"""The most steps a pattern may take once written out: one per character, escape or class, a
counted repetition its body that many times (``a{20}`` is 20 steps, ``(?:ab){3}`` 9 with the ``:``),
an alternation the sum of its branches. A linear-time engine runs a pattern as an automaton of
about that many states, and it is linear in the string only while its cache of states holds: past
about 2,000 steps (``a{2000}``, or 2,000 ``a`` written out) jsonschema-rs's overflows and a search
costs the steps times the string's length (18 s on 1 MB without a match), and so does every string
a closed pattern reads (``^(?:.?){4990}$``: 0.5 s a string of 5 KB); at 1,000 (``a{1000}``,
``^(?:.?){1000}$``) 20-40 ms on 2 MB, 0.3 ms a string. Within the bound, an automaton whose
states outgrow the cache by their combinations rather than their number reads a character far
slower (``a[ab]{990}c``: 4-7 us): the validation work weighs what a pattern may read
(:func:`reads_linearly`, ``engine._levels.reading_rate``)."""

MAX_WRITTEN_OUT_IN_ALL = 10 * MAX_WRITTEN_OUT
"""The most steps all of a schema's patterns may take written out (each occurrence counted): each
is an automaton the regex engine builds at compile time (a 10 KB schema of 200 patterns
``.{990}x<i>`` took jsonschema-rs 0.9 s and 290 MB). The real tool schemas take at most 644
(seven copies of one date pattern), the OpenAPI 3.1 schema 197."""

PROPERTY_STEPS = 64
"""Steps a Unicode property class (``\\p{L}``) counts written out: a linear-time engine compiles
each copy into an automaton of the UTF-8 encodings of its hundreds of ranges (``\\p{L}{100}``
took jsonschema-rs 21 ms and some 5 MB to compile, ``\\p{L}{300}`` over its size limit; an
ASCII class's copy, 0.2 us; ``[^a]`` or ``.``, 3-4 us)."""

WIDE_STEPS = 8
"""What each step of a pattern holding a class of most of Unicode (``.``, ``[^...]``, ``\\S``,
``\\W``, ``\\D``, ``\\s``, or any class of more than 256 characters beyond U+07FF, however it
is written) counts toward the steps of a schema's patterns in all: each copy of such a class is
an automaton of UTF-8 ranges (``\\S{990}``: 8 ms and some 2.3 MB to compile in jsonschema-rs,
``[a-z]{990}`` 0.6 ms), so ten such patterns of 990 steps, within the bound in all as plain
steps, made each 600-byte schema 23 MB and 120 ms (a list of 200 such tools passed 4 GB). Every
step of such a pattern is counted so (an upper bound): the real tool schemas' patterns take at
most 5,152 so counted."""
_WIDE = re.compile(r"[.]|\\[SWDs]|\[\^")

CLASS_ITEMS_PER_STEP = 4
"""A class counts one step more for every this many characters, escapes or range ends beyond
ASCII it lists: each copy of it is an automaton of their UTF-8 encodings, one to four bytes each
with no prefix in common where they are scattered (a class of 256 code points beyond U+FFFF,
each its own range, took some 24 KB a copy in jsonschema-rs, ten times a copy of ``\\S``: 30
patterns of 300 copies, as one step each, kept 215 MB and 2 s of compile for a 32 KB schema). So
counted, it takes 65 steps, as many as a Unicode property class."""
# A code point escape in a class: `\u{...}`, `\uXXXX` (either half of a surrogate pair) or `\xHH`.
_CLASS_CODE_POINT = re.compile(r"\\u\{([0-9A-Fa-f]+)\}|\\u([0-9A-Fa-f]{4})|\\x([0-9A-Fa-f]{2})")

# A counted repetition as jsonschema-rs reads one: it allows whitespace inside the braces, where
# ECMA-262 (Annex B) reads `{ 2 }` as the literal text.
_COUNTED = re.compile(r"\{\s*(\d+)\s*(,\s*(\d*)\s*)?\}")
_CODE_POINT = re.compile(r"\\u\{[0-9A-Fa-f]+\}")
_CAP = 1 << 40  # products past any bound are capped: a count's digits may be many

_LOOKAROUND = {"(?=": "lookahead", "(?!": "negative lookahead", "(?<=": "lookbehind", "(?<!": "negative lookbehind"}


# Both scans read a pattern a character at a time in Python; the tools of one server repeat their
# patterns (dates, identifiers, URLs), so the answers are kept by pattern text (pure functions).
@lru_cache(maxsize=1024)
def backtracking_construct(pattern: str) -> str | None:
    """The first construct of ``pattern`` that needs backtracking, described, or ``None``."""
    if "(?" not in pattern and "\\" not in pattern:
        return None  # no lookaround without "(?", no backreference without a backslash
    for i in _outside_classes(pattern):
        c = pattern[i]
        if c == "\\":
            nxt = pattern[i + 1 : i + 2]
            if nxt.isdigit() and nxt != "0":
                return f"backreference \\{nxt} at offset {i}"
            if nxt == "k" and pattern.startswith("<", i + 2):
                return f"named backreference at offset {i}"
        elif c == "(":
            for opener, name in _LOOKAROUND.items():
                if pattern.startswith(opener, i):
                    return f"{name} at offset {i}"
    return None


def _outside_classes(pattern: str) -> Iterator[int]:
    """The offsets of ``pattern`` that are read outside a character class: each character, and
    each escape by its backslash (the character it escapes is not given)."""
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        c = pattern[i]
        if not in_class:
            yield i
        if c == "\\":
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
    for i in _outside_classes(pattern):
        if pattern[i] == "\\" and pattern[i + 1 : i + 2] in ("b", "B"):
            return f"\\{pattern[i + 1]} at offset {i}"
    return None


@lru_cache(maxsize=1024)
def written_out_in_all(pattern: str) -> int:
    """What ``pattern`` counts toward :data:`MAX_WRITTEN_OUT_IN_ALL`: its :func:`written_out` steps,
    each :data:`WIDE_STEPS` where it holds a class of most of Unicode."""
    steps = written_out(pattern)
    return steps * WIDE_STEPS if _WIDE.search(pattern) is not None or _spans_unicode(pattern) else steps


_WIDE_CODE_POINTS = 256  # beyond U+07FF, where a class's UTF-8 takes three or four bytes a character


def _spans_unicode(pattern: str) -> bool:
    """Whether a class of ``pattern`` covers more than :data:`_WIDE_CODE_POINTS` code points
    beyond U+07FF however it is written (``[\x01-\U0010ffff]`` spells no ``.`` nor ``[^``); a
    pattern the strict parser refuses is read by its text alone."""
    try:
        tree = Parser(pattern).parse()
    except PatternRefused:
        return False
    stack: list[Node] = [node for sequence in tree for node in sequence]
    while stack:
        node = stack.pop()
        if isinstance(node, Repeat):
            stack.append(node.node)
        elif isinstance(node, Group):
            stack += [child for sequence in node.alternatives for child in sequence]
        elif isinstance(node, Atom):
            wide = sum(high - max(low, 0x800) + 1 for low, high in node.chars if high >= 0x800)
            if wide > _WIDE_CODE_POINTS:
                return True
    return False


def written_out(pattern: str) -> int:
    """How many steps ``pattern`` takes written out (see :data:`MAX_WRITTEN_OUT`): each character,
    escape or class one, a Unicode property class (``\\p{L}``, ``\\P{N}``, alone or in a class)
    :data:`PROPERTY_STEPS`, an alternation the sum of its branches, a counted repetition ``{n,m}``
    its body times the larger count (``{n,}`` times ``n``: past ``n`` the body loops), ``*``,
    ``+`` and ``?`` the body once. An upper bound: the characters that open a group (``?:``, a
    name) count as steps too."""
    if len(pattern) <= MAX_WRITTEN_OUT and "{" not in pattern:
        return len(pattern)  # at most one step per character
    # Per open group: [steps read so far, steps of the last thing read (what a quantifier repeats)].
    stack: list[list[int]] = [[0, 0]]
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        frame = stack[-1]
        if c == "\\":
            named = _PROPERTY.match(pattern, i)
            step = PROPERTY_STEPS if named is not None else 1
            frame[0] += step
            frame[1] = step
            point = _CODE_POINT.match(pattern, i) if named is None else None  # `\u{999}`: one character
            i = named.end() if named is not None else point.end() if point is not None else i + 2
            continue
        if c == "[":
            j = i + 1
            if pattern.startswith("^", j):
                j += 1
            if pattern.startswith("]", j):
                j += 1  # a leading ']' is literal
            step, beyond = 1, 0  # and the items beyond ASCII (see `CLASS_ITEMS_PER_STEP`)
            while j < n and pattern[j] != "]":
                if pattern[j] == "\\":
                    if (named := _PROPERTY.match(pattern, j)) is not None:
                        step += PROPERTY_STEPS
                        j = named.end()
                        continue
                    if (point := _CLASS_CODE_POINT.match(pattern, j)) is not None:
                        beyond += int(point.group(1) or point.group(2) or point.group(3), 16) > 0x7F
                        j = point.end()
                        continue
                    j += 2
                    continue
                beyond += pattern[j] > "\x7f"
                j += 1
            step += beyond // CLASS_ITEMS_PER_STEP
            frame[0] += step
            frame[1] = step
            i = j + 1
            continue
        if c == "(":
            stack.append([0, 0])
        elif c == ")" and len(stack) > 1:
            size = stack.pop()[0]
            parent = stack[-1]
            parent[0] = min(parent[0] + size, _CAP)
            parent[1] = size
        elif c == "|":
            frame[1] = 0  # the branches add up: what follows starts another
        elif c == "{" and (counted := _COUNTED.match(pattern, i)) is not None:
            low, comma, high = counted.groups()
            times = max(int(low), int(high) if high else 0) if comma else int(low)
            grown = min(frame[1] * max(times, 1), _CAP)
            frame[0] = min(frame[0] + grown - frame[1], _CAP)
            frame[1] = grown
            i = counted.end()
            continue
        elif c not in "*+?":
            frame[0] += 1
            frame[1] = 1
        i += 1
    while len(stack) > 1:  # an unclosed group (the meta-schema check refuses such a pattern)
        size = stack.pop()[0]
        stack[-1][0] += size
    return stack[0][0]


def spaced_count(pattern: str) -> str | None:
    """The first counted repetition of ``pattern`` with whitespace in its braces, described, or
    ``None``: jsonschema-rs repeats ``x{ 2 }`` twice, ECMA-262 reads it as the text ``x{ 2 }``."""
    for i in _outside_classes(pattern):  # an escaped brace, or one in a class, is text to both
        counted = _COUNTED.match(pattern, i) if pattern[i] == "{" else None
        if counted is not None and any(c.isspace() for c in counted.group()):
            return f"{counted.group()!r} at offset {i}"
    return None


# Outside a class: `\A`, `\z`, a global inline flag group, or a count right after another
# quantifier (`a{1,}{2}`, `a*{2}`); `\p`/`\P` without a brace is found by `_UNBRACED_PROPERTY`,
# in classes too.
_RUST_ONLY = re.compile(r"\\[Az]|\(\?[a-zA-Z-]+\)|(?:[*+?]|\{\d+(?:,\d*)?\})\??\{\d+(?:,\d*)?\}")


def ecma_pattern(pattern: str) -> bool:
    """Whether ``pattern`` is ECMA-262 (with the ``u`` flag) as the engine's own parser reads it
    (a few valid constructs it refuses, backreferences and control escapes, answer no)."""
    try:
        Parser(pattern).parse()
    except (PatternRefused, RecursionError):
        return False
    return True


def rust_only(pattern: str) -> str | None:
    """The first construct of ``pattern`` that Rust's regex syntax reads and ECMA-262 (with the
    ``u`` flag) refuses or reads otherwise, described, or ``None``: ``\\A``, ``\\z`` (anchors in Rust,
    the letters in ECMA-262 without ``u``), ``\\pL`` (a class without braces, in a class too:
    ``[\\pL]`` is letters to Rust, a syntax error to ECMA-262), ``(?s)`` (a global flag), a count
    right after another quantifier (``a{1,}{2}``)."""
    for i in _outside_classes(pattern):
        found = _RUST_ONLY.match(pattern, i)
        if found is not None:
            return f"{found.group()!r} at offset {i}"
    for i in _escapes(pattern):
        found = _UNBRACED_PROPERTY.match(pattern, i)
        if found is not None:
            return f"{found.group()!r} at offset {i}"
    return None


_UNBRACED_PROPERTY = re.compile(r"\\[pP](?!\{)")


def _escapes(pattern: str) -> Iterator[int]:
    """The offsets of ``pattern``'s escapes, in classes or not (an escaped backslash is one)."""
    at = pattern.find("\\")
    while at >= 0:
        yield at
        at = pattern.find("\\", at + 2)


@lru_cache(maxsize=1024)
def reads_linearly(pattern: str) -> bool:
    """Whether a linear-time engine reads ``pattern`` in one state of its automaton after each
    character (or a few, within a group of words), whatever the string, so that its automaton is
    no larger than the pattern written out. The pattern is anchored at its start (``^``; ``$``
    last, if anywhere) and is either one sequence of characters and classes, each repeated or
    not, and groups of words, where a repetition of varying length (``*``, ``+``, ``?``,
    ``{n,m}``), or a group of words of different lengths, does not share a character with what
    may follow it (``^\\d{4}-\\d{2}$``, ``^[A-Za-z0-9+/]{0,998}={0,2}$``, ``^(get|put|post)$``);
    or deterministic as written (:func:`_deterministic`: ``^[a-z0-9]+(?:-[a-z0-9]+)*$``, 1.7 ns
    a character in jsonschema-rs on 2 MB). Any other may be in many states at once, and its
    automaton may outgrow the engine's cache of states: ``a[ab]{16}c`` (2^16 states) took
    jsonschema-rs 370 ns a character, ``a[ab]{990}c`` 4-7 us, where ``a[ab]{8}c`` took 5 ns."""
    if not pattern.startswith("^"):
        return False  # not parsed: 200 unanchored patterns of 3 KB took 0.3 s to parse
    try:
        alternatives = Parser(_any_for_properties(pattern)).parse()
    except (PatternRefused, RecursionError):
        return False
    if len(alternatives) != 1:
        return False
    sequence = alternatives[0]
    if not sequence or not isinstance(sequence[0], Assertion) or sequence[0].source != "^":
        return False
    steps = sequence[1:]
    return _one_way(steps) or _deterministic(steps)


def _one_way(steps: list[Node]) -> bool:
    """:func:`reads_linearly` for one sequence of characters, classes and groups of words."""
    for at, node in enumerate(steps):
        if isinstance(node, Assertion):
            if node.source == "\\Z" and at == len(steps) - 1:
                continue
            return False
        if isinstance(node, Atom):
            continue
        if isinstance(node, Group):  # words: `^(get|put|post)$`, a trie of their characters
            words = node.alternatives
            if not all(isinstance(step, Atom) for word in words for step in word):
                return False
            if len({len(word) for word in words}) == 1:
                continue  # one length: nothing after it is read two ways
            chars = node.all
        elif not isinstance(node, Repeat) or not isinstance(node.node, Atom):
            return False
        elif node.high is not None and node.low == node.high:
            continue  # a fixed count: one way through
        else:
            chars = node.node.chars
        for after in steps[at + 1 :]:
            if isinstance(after, Assertion):
                break
            first = after.node.chars if isinstance(after, Repeat) and isinstance(after.node, Atom) else after.all
            if overlap(chars, first):
                return False
            if not (isinstance(after, Repeat) and after.low == 0):
                break  # what follows this one is read after it
    return True


# The positions (characters and classes, repetitions written out) a pattern's automaton is
# built from, at most: as many as a pattern may take written out (`MAX_WRITTEN_OUT`).
_POSITIONS = 1_000
_ALIKE = 64  # positions that may follow one another, compared pair by pair at most


class _TooLarge(Exception):
    pass


# (may match nothing, the positions a match may start with, the positions it may end with)
_Part = tuple[bool, list[int], list[int]]


def _deterministic(steps: list[Node]) -> bool:
    """Whether the anchored sequence ``steps`` (``$`` last, if anywhere) is deterministic as
    written: in its position automaton (each character or class of the pattern, repetitions
    written out, is a position), the positions a match may start with, and those that may follow
    any one position, never share a character. Then, whatever the string, one position at most
    is live after each character: the automaton a linear-time engine builds has a state per
    position (``^[A-Z][A-Z0-9_]+-\\d+(?:-\\d+)*$``; ``^(?:\\d[a-z]{0,998})*$``: 1.7 ns a
    character; with 500 classes of 4-byte characters, 13 ns). Counted repetitions are written out
    nested (``a{0,3}`` as ``(?:a(?:a(?:a)?)?)?``), as a deterministic reading needs."""
    if steps and isinstance(steps[-1], Assertion) and steps[-1].source == "\\Z":
        steps = steps[:-1]
    chars: list[Ranges] = []
    follow: list[list[int]] = []

    def then(a: _Part, b: _Part) -> _Part:
        for position in a[2]:
            follow[position] = _few(follow[position] + b[1])
        return a[0] and b[0], _few(a[1] + b[1]) if a[0] else a[1], _distinct(b[2] + a[2]) if b[0] else b[2]

    def sequence(nodes: list[Node]) -> _Part:
        part: _Part = (True, [], [])
        for node in nodes:
            part = then(part, built(node))
        return part

    def built(node: Node) -> _Part:
        if isinstance(node, Atom):
            if len(chars) >= _POSITIONS:
                raise _TooLarge
            chars.append(node.chars)
            follow.append([])
            return False, [len(chars) - 1], [len(chars) - 1]
        if isinstance(node, Group):
            parts = [sequence(alternative) for alternative in node.alternatives]
            return (
                any(p[0] for p in parts),
                _few([i for p in parts for i in p[1]]),
                _distinct([i for p in parts for i in p[2]]),
            )
        if isinstance(node, Repeat):
            part: _Part = (True, [], [])
            for _ in range(node.low):
                part = then(part, built(node.node))
            if node.high is None:
                _, first, last = built(node.node)
                for position in last:
                    follow[position] = _few(follow[position] + first)
                return then(part, (True, first, last))
            rest: _Part = (True, [], [])
            for _ in range(node.high - node.low):
                _, first, last = then(built(node.node), rest)
                rest = (True, first, last)
            return then(part, rest)
        raise _TooLarge  # an assertion within: not read here

    try:
        first = sequence(steps)[1]
    except _TooLarge:
        return False
    return _apart(first, chars) and all(_apart(after, chars) for after in follow)


def _few(positions: list[int]) -> list[int]:
    """``positions`` (without repeats once long); past :data:`_ALIKE` distinct ones the pattern is
    taken as not deterministic at once (they would start a match or follow a position: compared
    pair by pair, too many), so that no list grows with the square of the positions (a tower of
    900 optional classes: 34 ms)."""
    if len(positions) > _ALIKE:
        positions = list(dict.fromkeys(positions))
        if len(positions) > _ALIKE:
            raise _TooLarge
    return positions


def _distinct(positions: list[int]) -> list[int]:
    """``positions`` without repeats once long (where a match may end: any number of them)."""
    return list(dict.fromkeys(positions)) if len(positions) > _ALIKE else positions


def _apart(positions: list[int], chars: list[Ranges]) -> bool:
    """Whether no two of ``positions`` share a character."""
    distinct = sorted(set(positions))
    if len(distinct) > _ALIKE:
        return False
    return not any(overlap(chars[a], chars[b]) for i, a in enumerate(distinct) for b in distinct[i + 1 :])


# A Unicode property escape, with braces or, as Rust also reads it, one letter (`\pL`).
_PROPERTY = re.compile(r"\\[pP](?:\{[^}]*\}|[A-Za-z])")


def _any_for_properties(pattern: str) -> str:
    """``pattern`` with each Unicode property escape (``\\p{L}``, ``\\P{N}``) read as any
    character: a larger set only finds more overlaps, so a pattern read as linear this way is.
    In a negated class (``[^\\p{L}]``) any character would leave none: such a pattern is kept
    as it is (and refused)."""
    if "\\p{" not in pattern and "\\P{" not in pattern:
        return pattern
    out: list[str] = []
    at, in_class, negated = 0, False, False
    while at < len(pattern):
        c = pattern[at]
        if c == "\\":
            found = _PROPERTY.match(pattern, at)
            if found is not None:
                if negated:
                    return pattern
                out.append("\\u0000-\\u{10FFFF}" if in_class else "[\\u0000-\\u{10FFFF}]")
                at = found.end()
                continue
            out.append(pattern[at : at + 2])
            at += 2
            continue
        if c == "[" and not in_class:
            in_class, negated = True, pattern.startswith("^", at + 1)
        elif c == "]" and in_class:
            in_class = negated = False
        out.append(c)
        at += 1
    return "".join(out)

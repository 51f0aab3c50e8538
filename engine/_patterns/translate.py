"""ECMA-262 patterns, run by Python ``re`` only where the answer is the same and the cost bounded.

JSON Schema ``pattern`` and ``patternProperties`` are ECMA-262 regular expressions. The backends
written in Python (``fastjsonschema``, ``jsonschema``, ``msgspec`` constraints) run them with
Python ``re``, which differs in ways that change answers (``\\d`` and ``\\w`` are Unicode, ``$``
also matches before a final newline, ``.`` lets ``\\r`` through) and backtracks (a pattern such as
``(a+)+$`` takes exponential time). This module reads a pattern with a strict ECMA parser and
either writes the Python pattern that matches exactly the same strings, or refuses:

    >>> translate(r"^\\d{3}$")
    '^[0-9]{3}\\\\Z'
    >>> translate(r"(a+)+")
    Traceback (most recent call last):
    ...
    engine._patterns.translate.PatternRefused: nested quantifiers: ...

API: :func:`translate` (Python source, flag-free, for libraries that compile it themselves;
it finds a match exactly where the ECMA-262 pattern does, though not always the same span),
:func:`compile_pattern` (the compiled ``re.Pattern``, cached) and :class:`PatternRefused`
(``.why`` is a sentence). Only ``re.search`` semantics are meant, as JSON Schema specifies.

Refused: backreferences, lookaround, named groups' references, ``\\p{..}``, ``\\c``, surrogate
escapes, quantifiers nested inside quantified groups, alternatives that overlap under a quantifier,
two unbounded quantifiers whose character sets overlap with nothing between them to keep them apart
(``\\d*\\d*``), and unanchored patterns whose search would rescan one stretch from many starting
points (``x[a-z]*y``) -- the shapes that make a backtracking engine blow up, exponentially or
quadratically. The supported subset covers every pattern in the project's corpus of real tool
schemas.
"""

from __future__ import annotations

import re
from functools import lru_cache

import msgspec

__all__ = ["PatternRefused", "compile_pattern", "translate"]

MAX_CODE_POINT = 0x10FFFF
MAX_REPEAT = 1000
"""Largest ``{n,m}`` bound accepted: beyond it compiled programs grow large in every engine."""


class PatternRefused(ValueError):
    """``pattern`` cannot be run by Python ``re`` with ECMA-262 answers at bounded cost."""

    def __init__(self, pattern: str, why: str) -> None:
        super().__init__(f"{why}: {pattern!r}")
        self.pattern = pattern
        self.why = why


# Character sets as sorted, disjoint, inclusive code point ranges.
Ranges = tuple[tuple[int, int], ...]


def _norm(ranges: list[tuple[int, int]]) -> Ranges:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return tuple(out)


def _negate(ranges: Ranges) -> Ranges:
    out, start = [], 0
    for lo, hi in ranges:
        if lo > start:
            out.append((start, lo - 1))
        start = hi + 1
    if start <= MAX_CODE_POINT:
        out.append((start, MAX_CODE_POINT))
    return tuple(out)


def _overlap(a: Ranges, b: Ranges) -> bool:
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i][1] < b[j][0]:
            i += 1
        elif b[j][1] < a[i][0]:
            j += 1
        else:
            return True
    return False


DIGIT: Ranges = ((0x30, 0x39),)
WORD: Ranges = _norm([(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)])
# ECMA-262 WhiteSpace and LineTerminator code points.
SPACE: Ranges = _norm(
    [
        (0x09, 0x0D),
        (0x20, 0x20),
        (0xA0, 0xA0),
        (0x1680, 0x1680),
        (0x2000, 0x200A),
        (0x2028, 0x2029),
        (0x202F, 0x202F),
        (0x205F, 0x205F),
        (0x3000, 0x3000),
        (0xFEFF, 0xFEFF),
    ]
)
LINE_TERMINATORS: Ranges = _norm([(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)])
DOT: Ranges = _negate(LINE_TERMINATORS)
ANY: Ranges = ((0, MAX_CODE_POINT),)
_CLASS_ESCAPES = {"d": DIGIT, "D": _negate(DIGIT), "w": WORD, "W": _negate(WORD), "s": SPACE, "S": _negate(SPACE)}
_CONTROL_ESCAPES = {"t": 0x09, "n": 0x0A, "v": 0x0B, "f": 0x0C, "r": 0x0D}
_SYNTAX = set("^$\\.*+?()[]{}|/")
_NOT_BOUNDARY = r"(?:(?<=[0-9A-Z_a-z])(?=[0-9A-Z_a-z])|(?<![0-9A-Z_a-z])(?![0-9A-Z_a-z]))"


def _emit_ranges(ranges: Ranges) -> str:
    if ranges == ANY:
        return r"[\s\S]"
    if not ranges:
        return "(?!)"
    parts = []
    for lo, hi in ranges:
        parts.append(_emit_char(lo) if lo == hi else f"{_emit_char(lo)}-{_emit_char(hi)}")
    return "[" + "".join(parts) + "]"


def _emit_char(cp: int) -> str:
    ch = chr(cp)
    if ch.isascii() and ch.isalnum():
        return ch
    return f"\\x{cp:02x}" if cp < 0x100 else (f"\\u{cp:04x}" if cp < 0x10000 else f"\\U{cp:08x}")


# --- The parse tree: just what translation and the safety checks need. ---
# msgspec structs, not dataclasses: creating five dataclasses cost 10 ms of `import engine`.


class _Atom(msgspec.Struct):
    chars: Ranges  # the characters one step of this atom may consume
    source: str  # the Python text for it


class _Assertion(msgspec.Struct):
    source: str


class _Group(msgspec.Struct):
    alternatives: list[list[_Node]]


class _Repeat(msgspec.Struct):
    node: _Atom | _Group
    low: int
    high: int | None  # None: unbounded
    lazy: bool


_Node = _Atom | _Assertion | _Group | _Repeat


class _Parser(msgspec.Struct):
    pattern: str
    pos: int = 0
    depth: int = 0
    names: set[str] = msgspec.field(default_factory=set)

    def refuse(self, why: str) -> PatternRefused:
        return PatternRefused(self.pattern, why)

    def peek(self) -> str | None:
        return self.pattern[self.pos] if self.pos < len(self.pattern) else None

    def take(self) -> str:
        ch = self.pattern[self.pos]
        self.pos += 1
        return ch

    def parse(self) -> list[list[_Node]]:
        alternatives = self.disjunction()
        if self.pos != len(self.pattern):
            raise self.refuse(f"unbalanced {self.pattern[self.pos]!r} at offset {self.pos}")
        return alternatives

    def disjunction(self) -> list[list[_Node]]:
        alternatives = [self.sequence()]
        while self.peek() == "|":
            self.take()
            alternatives.append(self.sequence())
        return alternatives

    def sequence(self) -> list[_Node]:
        nodes: list[_Node] = []
        while (ch := self.peek()) is not None and ch not in "|)":
            atom = self.term()
            nodes.append(self.quantified(atom))
        return nodes

    def quantified(self, node: _Node) -> _Node:
        ch = self.peek()
        if ch is None or ch not in "*+?{":
            return node
        if isinstance(node, (_Assertion, _Repeat)):
            raise self.refuse("a quantifier must follow a character, a class or a group")
        if ch == "*":
            self.take()
            low, high = 0, None
        elif ch == "+":
            self.take()
            low, high = 1, None
        elif ch == "?":
            self.take()
            low, high = 0, 1
        else:
            low, high = self.braces()
        lazy = self.peek() == "?"
        if lazy:
            self.take()
        if self.peek() in ("*", "+", "?", "{"):
            raise self.refuse("a quantifier cannot follow a quantifier")
        return _Repeat(node, low, high, lazy)

    def braces(self) -> tuple[int, int | None]:
        m = re.compile(r"\{([0-9]+)(?:(,)([0-9]*))?\}").match(self.pattern, self.pos)
        if m is None:
            raise self.refuse("'{' that is not a quantifier {n}, {n,} or {n,m} (an error in Unicode mode)")
        self.pos = m.end()
        low = int(m.group(1))
        high: int | None = low if m.group(2) is None else (int(m.group(3)) if m.group(3) else None)
        if low > MAX_REPEAT or (high is not None and high > MAX_REPEAT):
            raise self.refuse(f"repetition bound over {MAX_REPEAT}")
        if high is not None and high < low:
            raise self.refuse("quantifier {n,m} with m < n")
        return low, high

    def term(self) -> _Node:
        ch = self.take()
        if ch == "^":
            return _Assertion("^")
        if ch == "$":
            return _Assertion(r"\Z")
        if ch == ".":
            return _Atom(DOT, _emit_ranges(DOT))
        if ch == "(":
            return self.group()
        if ch == "[":
            return self.char_class()
        if ch == "\\":
            return self.atom_escape()
        if ch in "*+?{":
            raise self.refuse(f"nothing to repeat at offset {self.pos - 1}")
        if ch in "]}":
            raise self.refuse(f"lone {ch!r} (an error in Unicode mode)")
        return self.literal(ord(ch))

    def literal(self, cp: int) -> _Atom:
        if 0xD800 <= cp <= 0xDFFF:
            raise self.refuse("surrogate code points are matched differently by ECMA-262 and Python")
        return _Atom(((cp, cp),), _emit_char(cp))

    def group(self) -> _Group:
        if self.pattern.startswith("?:", self.pos):
            self.pos += 2
        elif self.pattern.startswith("?<", self.pos) and not self.pattern.startswith(("?<=", "?<!"), self.pos):
            end = self.pattern.find(">", self.pos)
            name = self.pattern[self.pos + 2 : end] if end > 0 else ""
            if not re.fullmatch(r"[A-Za-z_$][A-Za-z0-9_$]*", name):
                raise self.refuse("malformed group name")
            if name in self.names:
                raise self.refuse("duplicate group name")
            self.names.add(name)
            self.pos = end + 1
        elif self.peek() == "?":
            raise self.refuse("lookaround assertions are refused (unbounded backtracking)")
        self.depth += 1
        if self.depth > 32:
            raise self.refuse("groups nested deeper than 32")
        alternatives = self.disjunction()
        self.depth -= 1
        if self.peek() != ")":
            raise self.refuse("unterminated group")
        self.take()
        return _Group(alternatives)

    def atom_escape(self) -> _Node:
        if self.peek() is None:
            raise self.refuse("pattern ends with a backslash")
        ch = self.peek()
        if ch == "b":
            self.take()
            # ECMA word boundaries are ASCII; the scoped flag keeps the pattern flag-free.
            return _Assertion("(?a:\\b)")
        if ch == "B":
            self.take()
            # Python's \B never matches an empty string; ECMA's does. Spelled out instead, with
            # one-character lookaround only (constant cost).
            return _Assertion(_NOT_BOUNDARY)
        if ch is not None and ch in "123456789":
            raise self.refuse("backreferences are refused (unbounded backtracking)")
        if ch == "k":
            raise self.refuse("named backreferences are refused (unbounded backtracking)")
        ranges = self.class_escape()
        return _Atom(
            ranges,
            _emit_ranges(ranges) if len(ranges) != 1 or ranges[0][0] != ranges[0][1] else _emit_char(ranges[0][0]),
        )

    def class_escape(self) -> Ranges:
        """After a backslash, outside or inside a class: the characters the escape stands for."""
        ch = self.take()
        if ch in _CLASS_ESCAPES:
            return _CLASS_ESCAPES[ch]
        if ch in _CONTROL_ESCAPES:
            return ((_CONTROL_ESCAPES[ch],) * 2,)
        if ch == "0":
            if self.peek() is not None and self.peek().isdigit():  # type: ignore[union-attr]
                raise self.refuse("octal escapes are not allowed in Unicode mode")
            return ((0, 0),)
        if ch == "x":
            m = re.compile(r"[0-9A-Fa-f]{2}").match(self.pattern, self.pos)
            if m is None:
                raise self.refuse("malformed \\x escape")
            self.pos = m.end()
            cp = int(m.group(), 16)
            return ((cp, cp),)
        if ch == "u":
            m = re.compile(r"[0-9A-Fa-f]{4}|\{([0-9A-Fa-f]{1,6})\}").match(self.pattern, self.pos)
            if m is None:
                raise self.refuse("malformed \\u escape")
            self.pos = m.end()
            cp = int(m.group(1) or m.group(), 16)
            if cp > MAX_CODE_POINT:
                raise self.refuse("code point out of range")
            if 0xD800 <= cp <= 0xDFFF:
                raise self.refuse("surrogate escapes are matched differently by ECMA-262 and Python")
            return ((cp, cp),)
        if ch in "pP":
            raise self.refuse("Unicode property escapes \\p{..} are not supported by Python re")
        if ch == "c":
            raise self.refuse("control escapes \\cX are refused")
        if ch in _SYNTAX or ch == "-":
            return ((ord(ch), ord(ch)),)
        raise self.refuse(f"unknown escape \\{ch} (an error in Unicode mode)")

    def char_class(self) -> _Atom:
        negated = self.peek() == "^"
        if negated:
            self.take()
        ranges: list[tuple[int, int]] = []
        while True:
            ch = self.peek()
            if ch is None:
                raise self.refuse("unterminated character class")
            if ch == "]":
                self.take()
                break
            low = self.class_atom()
            if self.peek() == "-" and self.pattern[self.pos + 1 : self.pos + 2] not in ("]", ""):
                self.take()
                high = self.class_atom()
                if len(low) != 1 or len(high) != 1 or low[0][0] != low[0][1] or high[0][0] != high[0][1]:
                    raise self.refuse("a class escape cannot bound a range (an error in Unicode mode)")
                if high[0][0] < low[0][0]:
                    raise self.refuse("character range out of order")
                ranges.append((low[0][0], high[0][0]))
            else:
                ranges.extend(low)
        result = _norm(ranges)
        if negated:
            result = _negate(result)
        return _Atom(result, _emit_ranges(result))

    def class_atom(self) -> Ranges:
        ch = self.take()
        if ch == "\\":
            if self.peek() == "b":
                self.take()
                return ((0x08, 0x08),)
            if self.peek() == "B":
                raise self.refuse("\\B inside a class is an error")
            return self.class_escape()
        cp = ord(ch)
        if 0xD800 <= cp <= 0xDFFF:
            raise self.refuse("surrogate code points are matched differently by ECMA-262 and Python")
        return ((cp, cp),)


# --- Safety: the shapes that make a backtracking matcher slow. ---


def _first_chars(node: _Node) -> Ranges | None:
    """Characters that may start a match of ``node``; ``None`` when it can match empty."""
    if isinstance(node, _Atom):
        return node.chars
    if isinstance(node, _Assertion):
        return None
    if isinstance(node, _Repeat):
        return _first_chars(node.node) if node.low > 0 else None
    sets: list[tuple[int, int]] = []
    for alternative in node.alternatives:
        first = _first_of_sequence(alternative)
        if first is None:
            return None
        sets.extend(first)
    return _norm(sets)


def _first_of_sequence(nodes: list[_Node]) -> Ranges | None:
    sets: list[tuple[int, int]] = []
    for node in nodes:
        first = _first_chars(node)
        if first is not None:
            return _norm(sets + list(first))
        if isinstance(node, _Repeat):
            inner = _first_chars(node.node)
            if inner is None:
                return None
            sets.extend(inner)
    return None


def _all_chars(node: _Node) -> Ranges:
    if isinstance(node, _Atom):
        return node.chars
    if isinstance(node, _Assertion):
        return ()
    if isinstance(node, _Repeat):
        return _all_chars(node.node)
    return _norm([r for alt in node.alternatives for n in alt for r in _all_chars(n)])


def _has_quantifier(node: _Node) -> bool:
    if isinstance(node, _Repeat):
        return True
    if isinstance(node, _Group):
        return any(_has_quantifier(n) for alt in node.alternatives for n in alt)
    return False


def _is_run(node: _Node) -> bool:
    """A step that may consume a long stretch of characters."""
    if isinstance(node, _Repeat):
        return node.high is None or node.high > _LONG_RUN or _is_run(node.node)
    if isinstance(node, _Group):
        return any(_is_run(n) for alt in node.alternatives for n in alt)
    return False


_LONG_RUN = 16


def _check(parser: _Parser, alternatives: list[list[_Node]]) -> None:
    for sequence in alternatives:
        _check_sequence(parser, sequence)


def _check_sequence(parser: _Parser, sequence: list[_Node]) -> None:
    pending: list[Ranges] = []  # runs not yet separated from what follows
    for node in sequence:
        inner = node.node if isinstance(node, _Repeat) else node
        if isinstance(inner, _Group):
            _check(parser, inner.alternatives)
        if isinstance(node, _Repeat) and (node.high is None or node.high > 1):
            if _has_quantifier(node.node) and not _delimited(node.node):
                raise parser.refuse("nested quantifiers: a repeated group contains a quantifier")
            if isinstance(node.node, _Group):
                _check_disjoint_alternatives(parser, node.node)
        if _is_run(node):
            chars = _all_chars(node)
            # A run that must start with a character no earlier run can consume is kept apart
            # from them by that character.
            start = _first_chars(node.node if isinstance(node, _Repeat) else node) or chars
            for earlier in pending:
                if _overlap(earlier, start):
                    raise parser.refuse("overlapping quantifiers: two repetitions can match the same characters")
            pending.append(chars)
        elif isinstance(node, (_Atom, _Group)) or (isinstance(node, _Repeat) and node.low > 0):
            # A mandatory step keeps earlier runs apart from later ones when none of them can
            # consume the characters it starts with.
            first = _first_chars(node)
            if first is not None:
                pending = [p for p in pending if _overlap(p, first)]


def _delimited(group: _Atom | _Group) -> bool:
    """Whether each repetition of ``group`` starts with a character that nothing repeated inside
    it can consume, as in ``(?:,[a-z]+)*``: then every iteration begins at a delimiter, and the
    repetition cannot split a string in more than one way."""
    if not isinstance(group, _Group) or len(group.alternatives) != 1 or not group.alternatives[0]:
        return False
    head, *rest = group.alternatives[0]
    if isinstance(head, _Atom):
        delimiter = head.chars
    elif (
        isinstance(head, _Repeat)
        and isinstance(head.node, _Atom)
        and head.low >= 1
        and head.high is not None
        and head.high <= _LONG_RUN
    ):
        delimiter = head.node.chars
    else:
        return False
    for node in rest:
        if not _has_quantifier(node):
            continue
        inner = node.node if isinstance(node, _Repeat) else node
        if isinstance(inner, _Group) and _has_quantifier(inner):
            return False  # three levels of repetition: not analysed, refused
        if _overlap(_all_chars(node), delimiter):
            return False
    return True


def _check_disjoint_alternatives(parser: _Parser, group: _Group) -> None:
    if len(group.alternatives) < 2:
        return
    seen: list[Ranges] = []
    for alternative in group.alternatives:
        first = _first_of_sequence(alternative)
        if first is None:
            raise parser.refuse("a repeated alternation with an empty alternative")
        for other in seen:
            if _overlap(first, other):
                raise parser.refuse("a repeated alternation whose alternatives can start alike")
        seen.append(first)


def _is_unbounded(node: _Node) -> bool:
    if isinstance(node, _Repeat):
        return node.high is None or _is_unbounded(node.node)
    if isinstance(node, _Group):
        return any(_is_unbounded(n) for alt in node.alternatives for n in alt)
    return False


def _restart_guard(parser: _Parser, sequence: list[_Node]) -> tuple[str, list[_Node]]:
    """``search`` retries a pattern at every position. Where an unbounded repetition could be
    scanned again from each of many starting points (``[a-z]*b`` or ``x[a-z]*y`` on a long run of
    letters), Python's backtracking search takes quadratic time. Returns a prefix and the steps to
    emit for one top-level alternative, keeping the search linear, or refuses:

    * leading steps that may repeat zero times are dropped: ``R*X`` matches somewhere exactly
      where ``X`` does (JSON Schema only asks whether there is a match);
    * an anchored alternative (``^``) is tried once; a repetition that ends the alternative
      matches as soon as it is reached;
    * a leading ``R+`` gets a lookbehind so that attempts start only where a stretch of ``R``
      starts: a match from inside a stretch implies one from its start, so no answer changes;
    * otherwise the step just before the first unbounded repetition must take characters that
      cannot occur inside it, so that each stretch is scanned once.
    """
    while sequence and isinstance(sequence[0], _Repeat) and sequence[0].low == 0:
        sequence = sequence[1:]
    before: Ranges | None = None  # characters the step just before may end with; None: the start
    for index, node in enumerate(sequence):
        if isinstance(node, _Assertion):
            if node.source == "^":
                return "", sequence
            before = ANY if before is None else before
            continue
        if _is_unbounded(node):
            if index == len(sequence) - 1 and isinstance(node, _Repeat) and not _has_quantifier(node.node):
                return "", sequence  # nothing after it can fail: the first attempt that reaches it matches
            if before is None:
                if isinstance(node, _Repeat) and isinstance(node.node, _Atom):
                    return "(?<!" + _emit_ranges(node.node.chars) + ")", sequence
                raise parser.refuse("an unanchored pattern starting with a repeated group (quadratic search)")
            if _overlap(before, _all_chars(node)):
                raise parser.refuse(
                    "an unanchored repetition that the preceding character can also match "
                    "(quadratic search); anchor the pattern with ^"
                )
            return "", sequence
        chars = _all_chars(node)
        mandatory = isinstance(node, _Atom) or (isinstance(node, (_Repeat, _Group)) and _first_chars(node) is not None)
        last = node.node.chars if isinstance(node, _Repeat) and isinstance(node.node, _Atom) else chars
        if mandatory:
            before = last
        else:
            before = ANY if before is None else _norm(list(before) + list(chars))
    return "", sequence


def _emit_alternative(parser: _Parser, sequence: list[_Node]) -> str:
    prefix, sequence = _restart_guard(parser, sequence)
    return prefix + "".join(_emit_node(n) for n in sequence)


# --- Emitting Python source. ---


def _emit(alternatives: list[list[_Node]]) -> str:
    return "|".join("".join(_emit_node(n) for n in seq) for seq in alternatives)


def _emit_node(node: _Node) -> str:
    if isinstance(node, (_Atom, _Assertion)):
        return node.source
    if isinstance(node, _Group):
        return "(?:" + _emit(node.alternatives) + ")"
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


@lru_cache(maxsize=4096)
def translate(pattern: str) -> str:
    """The Python ``re`` source that matches (by ``search``) exactly what ECMA-262 ``pattern``
    matches, with no flags needed; raises :class:`PatternRefused` with the reason otherwise."""
    if not isinstance(pattern, str):
        raise PatternRefused(str(pattern), "a pattern must be a string")
    parser = _Parser(pattern)
    tree = parser.parse()
    _check(parser, tree)
    return "|".join(_emit_alternative(parser, seq) for seq in tree)


@lru_cache(maxsize=4096)
def compile_pattern(pattern: str) -> re.Pattern[str]:
    """:func:`translate`, compiled."""
    source = translate(pattern)
    try:
        return re.compile(source)
    except (re.error, OverflowError, RecursionError) as exc:  # pragma: no cover - translate emits valid syntax
        raise PatternRefused(pattern, f"Python re cannot compile the translation: {exc}") from None

"""ECMA-262 patterns (Unicode mode) read by a strict parser into a small tree: just what the
safety checks and the Python translation need. Each node carries, computed once when it is built,
the facts the checks ask about (first characters, every character, whether it repeats), so that
checking a pattern is linear in its length."""

from __future__ import annotations

import re

import msgspec

from .charsets import DIGIT, DOT, MAX_CODE_POINT, SPACE, WORD, Ranges, emit_char, emit_ranges, negate, norm

__all__ = [
    "LONG_RUN",
    "MAX_REPEAT",
    "Assertion",
    "Atom",
    "Group",
    "Node",
    "Parser",
    "PatternRefused",
    "Repeat",
    "first_of_sequence",
]

MAX_REPEAT = 1000
"""Largest ``{n,m}`` bound accepted: beyond it compiled programs grow large in every engine."""

LONG_RUN = 16
"""A repetition allowing more than this many steps counts as a run that may consume a long
stretch of characters."""

_CLASS_ESCAPES = {"d": DIGIT, "D": negate(DIGIT), "w": WORD, "W": negate(WORD), "s": SPACE, "S": negate(SPACE)}
_CONTROL_ESCAPES = {"t": 0x09, "n": 0x0A, "v": 0x0B, "f": 0x0C, "r": 0x0D}
_SYNTAX = set("^$\\.*+?()[]{}|/")
_NOT_BOUNDARY = r"(?:(?<=[0-9A-Z_a-z])(?=[0-9A-Z_a-z])|(?<![0-9A-Z_a-z])(?![0-9A-Z_a-z]))"
_QUANTIFIER = re.compile(r"\{([0-9]+)(?:(,)([0-9]*))?\}")
_HEX2 = re.compile(r"[0-9A-Fa-f]{2}")
_UNICODE_ESCAPE = re.compile(r"[0-9A-Fa-f]{4}|\{([0-9A-Fa-f]{1,6})\}")
_GROUP_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


class PatternRefused(ValueError):
    """``pattern`` cannot be run by Python ``re`` with ECMA-262 answers at bounded cost."""

    def __init__(self, pattern: str, why: str) -> None:
        super().__init__(f"{why}: {pattern!r}")
        self.pattern = pattern
        self.why = why


# Plain classes with slots, not dataclasses: creating the node dataclasses cost about 10 ms of
# `import engine`, for fields computed once in the constructor anyway.


class Atom:
    __slots__ = ("all", "chars", "first", "quantified", "run", "source", "unbounded")

    def __init__(self, chars: Ranges, source: str) -> None:
        self.chars = chars  # the characters one step of this atom may consume
        self.source = source  # the Python text for it
        self.first: Ranges | None = chars  # characters a match may start with; None: may be empty
        self.all: Ranges = chars  # every character a match may contain
        self.quantified = False  # holds a quantifier
        self.run = False  # may consume a long stretch
        self.unbounded = False  # may consume any length


class Assertion:
    __slots__ = ("all", "first", "quantified", "run", "source", "unbounded")

    def __init__(self, source: str) -> None:
        self.source = source
        self.first: Ranges | None = None
        self.all: Ranges = ()
        self.quantified = False
        self.run = False
        self.unbounded = False


class Group:
    __slots__ = ("all", "alternatives", "first", "firsts", "quantified", "run", "unbounded")

    def __init__(self, alternatives: list[list[Node]]) -> None:
        self.alternatives = alternatives
        self.firsts = [first_of_sequence(alternative) for alternative in self.alternatives]  # per alternative
        self.first: Ranges | None = (
            None if any(f is None for f in self.firsts) else norm(r for f in self.firsts for r in f or ())
        )
        children = [n for alternative in self.alternatives for n in alternative]
        self.all: Ranges = norm(r for n in children for r in n.all)
        self.quantified: bool = any(n.quantified for n in children)
        self.run: bool = any(n.run for n in children)
        self.unbounded: bool = any(n.unbounded for n in children)


class Repeat:
    __slots__ = ("all", "first", "high", "lazy", "low", "node", "quantified", "run", "unbounded")

    def __init__(self, node: Atom | Group, low: int, high: int | None, lazy: bool) -> None:
        self.node = node
        self.low = low
        self.high = high  # None: unbounded
        self.lazy = lazy
        self.quantified = True
        self.first: Ranges | None = self.node.first if self.low > 0 else None
        self.all: Ranges = self.node.all
        self.run: bool = self.high is None or self.high > LONG_RUN or self.node.run
        self.unbounded: bool = self.high is None or self.node.unbounded


Node = Atom | Assertion | Group | Repeat


def first_of_sequence(nodes: list[Node]) -> Ranges | None:
    """Characters a match of ``nodes`` in order may start with; ``None`` when it may be empty."""
    sets: list[tuple[int, int]] = []
    for node in nodes:
        if node.first is not None:
            return norm(sets + list(node.first))
        if isinstance(node, Repeat):
            inner = node.node.first
            if inner is None:
                return None
            sets.extend(inner)
    return None


class Parser(msgspec.Struct):
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

    def parse(self) -> list[list[Node]]:
        alternatives = self.disjunction()
        if self.pos != len(self.pattern):
            raise self.refuse(f"unbalanced {self.pattern[self.pos]!r} at offset {self.pos}")
        return alternatives

    def disjunction(self) -> list[list[Node]]:
        alternatives = [self.sequence()]
        while self.peek() == "|":
            self.take()
            alternatives.append(self.sequence())
        return alternatives

    def sequence(self) -> list[Node]:
        nodes: list[Node] = []
        while (ch := self.peek()) is not None and ch not in "|)":
            atom = self.term()
            nodes.append(self.quantified(atom))
        return nodes

    def quantified(self, node: Node) -> Node:
        ch = self.peek()
        if ch is None or ch not in "*+?{":
            return node
        if isinstance(node, (Assertion, Repeat)):
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
        return Repeat(node, low, high, lazy)

    def braces(self) -> tuple[int, int | None]:
        m = _QUANTIFIER.match(self.pattern, self.pos)
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

    def term(self) -> Node:
        ch = self.take()
        if ch == "^":
            return Assertion("^")
        if ch == "$":
            return Assertion(r"\Z")
        if ch == ".":
            return Atom(DOT, emit_ranges(DOT))
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

    def literal(self, cp: int) -> Atom:
        if 0xD800 <= cp <= 0xDFFF:
            raise self.refuse("surrogate code points are matched differently by ECMA-262 and Python")
        return Atom(((cp, cp),), emit_char(cp))

    def group(self) -> Group:
        if self.pattern.startswith("?:", self.pos):
            self.pos += 2
        elif self.pattern.startswith("?<", self.pos) and not self.pattern.startswith(("?<=", "?<!"), self.pos):
            end = self.pattern.find(">", self.pos)
            name = self.pattern[self.pos + 2 : end] if end > 0 else ""
            if not _GROUP_NAME.fullmatch(name):
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
        return Group(alternatives)

    def atom_escape(self) -> Node:
        if self.peek() is None:
            raise self.refuse("pattern ends with a backslash")
        ch = self.peek()
        if ch == "b":
            self.take()
            # ECMA word boundaries are ASCII; the scoped flag keeps the pattern flag-free.
            return Assertion("(?a:\\b)")
        if ch == "B":
            self.take()
            # Python's \B never matches an empty string; ECMA's does. Spelled out instead, with
            # one-character lookaround only (constant cost).
            return Assertion(_NOT_BOUNDARY)
        if ch is not None and ch in "123456789":
            raise self.refuse("backreferences are refused (unbounded backtracking)")
        if ch == "k":
            raise self.refuse("named backreferences are refused (unbounded backtracking)")
        ranges = self.class_escape()
        return Atom(
            ranges,
            emit_ranges(ranges) if len(ranges) != 1 or ranges[0][0] != ranges[0][1] else emit_char(ranges[0][0]),
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
            m = _HEX2.match(self.pattern, self.pos)
            if m is None:
                raise self.refuse("malformed \\x escape")
            self.pos = m.end()
            cp = int(m.group(), 16)
            return ((cp, cp),)
        if ch == "u":
            m = _UNICODE_ESCAPE.match(self.pattern, self.pos)
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

    def char_class(self) -> Atom:
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
        result = norm(ranges)
        if negated:
            result = negate(result)
        return Atom(result, emit_ranges(result))

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

"""The shapes that make a backtracking matcher (Python ``re``) slow, found on the parse tree.

Every check reads the facts each node computed when it was built and visits each node once, so
checking a pattern is linear in its length: a 2,000-character pattern of 1,000 distinct runs
(``a+b+c+...``) took 70 ms when each run was compared with every earlier one, and takes under
5 ms now.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

from .charsets import ANY, Ranges, emit_ranges, norm, overlap
from .parse import LONG_RUN, Assertion, Atom, Group, Node, Parser, Repeat

__all__ = ["check", "restart_guard"]

_MAX_PENDING = 4
"""Runs kept apart one by one; beyond this many still pending, the rest are merged into one set
(which can only refuse more, never less: the merged set stays pending while any of its runs
would). No pattern of the corpus has more than 3 pending runs; each kept run costs one set
comparison per later run (16 made a 1,000-run pattern's check 3 times slower than 4)."""


class _Union:
    """A growing set of code points (sorted, disjoint ranges) that answers "does this set
    overlap you" by binary search: adding and asking both cost O(k log n) for a set of k ranges,
    so a pattern with many runs is checked in O(n log n), not by comparing every pair."""

    __slots__ = ("highs", "lows")

    def __init__(self) -> None:
        self.lows: list[int] = []
        self.highs: list[int] = []

    def add(self, ranges: Ranges) -> None:
        lows, highs = self.lows, self.highs
        for lo, hi in ranges:
            i = bisect_left(highs, lo - 1)  # first range that ends at or after lo - 1
            j = bisect_right(lows, hi + 1)  # ranges from i to j touch [lo, hi]
            if i < j:
                lo, hi = min(lo, lows[i]), max(hi, highs[j - 1])
            lows[i:j] = [lo]
            highs[i:j] = [hi]

    def overlaps(self, ranges: Ranges) -> bool:
        lows, highs = self.lows, self.highs
        for lo, hi in ranges:
            k = bisect_left(highs, lo)  # the first range ending at or after lo
            if k < len(lows) and lows[k] <= hi:
                return True
        return False


def check(parser: Parser, alternatives: list[list[Node]]) -> None:
    """Refuse nested quantifiers, overlapping alternatives under a quantifier, and unbounded
    repetitions that nothing keeps apart."""
    for sequence in alternatives:
        _check_sequence(parser, sequence)


MAX_SPLITS = 1024
"""The most ways adjacent short repetitions of varying length over the same characters may split a
stretch between them (the product of their lengths' choices): ``a?`` 27 times, then ``a{27}``,
took Python ``re`` 7 s on 27 characters, doubling with each ``a?``."""


def _check_sequence(parser: Parser, sequence: list[Node]) -> None:
    pending: list[Ranges] = []  # runs not yet separated from what follows
    merged: _Union | None = None  # runs past _MAX_PENDING, as one set
    varying: _Union | None = None  # short repetitions of varying length not yet separated
    splits = 1  # the ways they may split what they match between them
    for node in sequence:
        inner = node.node if isinstance(node, Repeat) else node
        if isinstance(inner, Group):
            check(parser, inner.alternatives)
        if isinstance(node, Repeat) and (node.high is None or node.high > 1):
            if node.node.quantified and not _delimited(node.node):
                raise parser.refuse("nested quantifiers: a repeated group contains a quantifier")
            if isinstance(node.node, Group):
                _check_disjoint_alternatives(parser, node.node)
        if node.run:
            # A run that must start with a character no earlier run can consume is kept apart
            # from them by that character.
            start = (node.node.first if isinstance(node, Repeat) else node.first) or node.all
            for earlier in pending:
                if overlap(earlier, start):
                    raise parser.refuse("overlapping quantifiers: two repetitions can match the same characters")
            if merged is not None and merged.overlaps(start):
                raise parser.refuse("overlapping quantifiers: two repetitions can match the same characters")
            if len(pending) < _MAX_PENDING:
                pending.append(node.all)
            else:
                merged = merged or _Union()
                merged.add(node.all)
        elif isinstance(node, (Atom, Group)) or (isinstance(node, Repeat) and node.low > 0):
            # A mandatory step keeps earlier runs apart from later ones when none of them can
            # consume the characters it starts with.
            first = node.first
            if first is not None:
                pending = [p for p in pending if overlap(p, first)]
                if merged is not None and not merged.overlaps(first):
                    merged = None
                if varying is not None and not varying.overlaps(first):
                    varying, splits = None, 1
        choices = _choices(node)
        if choices > 1:
            # Short, but of varying length (or a choice of alternatives): many such over the same
            # characters split a stretch in exponentially many ways, each of which a backtracking
            # matcher may try.
            if varying is None:
                varying = _Union()
            elif varying.overlaps(node.all):
                splits *= choices
                if splits > MAX_SPLITS:
                    raise parser.refuse(
                        f"optional or varying repetitions over the same characters split a stretch in more "
                        f"than {MAX_SPLITS} ways"
                    )
            varying.add(node.all)


def _choices(node: Node) -> int:
    """The ways ``node`` (not a run: those are checked above) may match: a repetition of varying
    length its lengths' choices (times its own node's, once), a group those of its alternatives,
    each the product of its nodes'; 1 for anything else."""
    if isinstance(node, Repeat):
        if node.run or node.high is None:
            return 1
        return (node.high - node.low + 1) * _choices(node.node) if node.low < node.high else _choices(node.node)
    if isinstance(node, Group):
        total = 0
        for alternative in node.alternatives:
            ways = 1
            for child in alternative:
                ways = min(ways * _choices(child), MAX_SPLITS + 1)
            total += ways
        return min(total, MAX_SPLITS + 1) if len(node.alternatives) > 1 or total > 1 else 1
    return 1


def _delimited(group: Atom | Group) -> bool:
    """Whether each repetition of ``group`` starts with a character that nothing repeated inside
    it can consume, as in ``(?:,[a-z]+)*``: then every iteration begins at a delimiter, and the
    repetition cannot split a string in more than one way."""
    if not isinstance(group, Group) or len(group.alternatives) != 1 or not group.alternatives[0]:
        return False
    head, *rest = group.alternatives[0]
    if isinstance(head, Atom):
        delimiter = head.chars
    elif (
        isinstance(head, Repeat)
        and isinstance(head.node, Atom)
        and head.low >= 1
        and head.high == head.low  # a count that varies splits a run of delimiters many ways: `(a{1,2}){1,200}`
        and head.high <= LONG_RUN
    ):
        delimiter = head.node.chars
    else:
        return False
    for node in rest:
        if not node.quantified:
            continue
        inner = node.node if isinstance(node, Repeat) else node
        if isinstance(inner, Group) and inner.quantified:
            return False  # three levels of repetition: not analysed, refused
        if overlap(node.all, delimiter):
            return False
    return True


def _check_disjoint_alternatives(parser: Parser, group: Group) -> None:
    """Under a quantifier, alternatives must start with different characters. One sorted sweep
    over every alternative's first characters: two ranges that overlap belong to different
    alternatives, since each alternative's own ranges are disjoint."""
    if len(group.alternatives) < 2:
        return
    ranges: list[tuple[int, int]] = []
    for first in group.firsts:
        if first is None:
            raise parser.refuse("a repeated alternation with an empty alternative")
        ranges.extend(first)
    ranges.sort()
    reach = -1
    for lo, hi in ranges:
        if lo <= reach:
            raise parser.refuse("a repeated alternation whose alternatives can start alike")
        reach = max(reach, hi)


def restart_guard(parser: Parser, sequence: list[Node]) -> tuple[str, list[Node]]:
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
    skip = 0
    while skip < len(sequence) and isinstance(sequence[skip], Repeat) and sequence[skip].low == 0:  # type: ignore[union-attr]
        skip += 1
    sequence = sequence[skip:]
    # The characters the step just before may end with, as pieces merged only when needed
    # (once, at the first unbounded repetition); None: the start of the pattern.
    before: list[Ranges] | None = None
    for index, node in enumerate(sequence):
        if isinstance(node, Assertion):
            if node.source == "^":
                return "", sequence
            before = [ANY] if before is None else before
            continue
        if node.unbounded:
            if index == len(sequence) - 1 and isinstance(node, Repeat) and not node.node.quantified:
                return "", sequence  # nothing after it can fail: the first attempt that reaches it matches
            if before is None:
                if isinstance(node, Repeat) and isinstance(node.node, Atom):
                    return "(?<!" + emit_ranges(node.node.chars) + ")", sequence
                raise parser.refuse("an unanchored pattern starting with a repeated group (quadratic search)")
            if overlap(norm(r for piece in before for r in piece), node.all):
                raise parser.refuse(
                    "an unanchored repetition that the preceding character can also match "
                    "(quadratic search); anchor the pattern with ^"
                )
            return "", sequence
        mandatory = isinstance(node, Atom) or (isinstance(node, (Repeat, Group)) and node.first is not None)
        last = node.node.chars if isinstance(node, Repeat) and isinstance(node.node, Atom) else node.all
        if mandatory:
            before = [last]
        elif before is None:
            before = [ANY]
        else:
            before.append(node.all)
    return "", sequence

"""Counted repetitions are bounded by what they take written out: a pattern's text is short
(``max_pattern_length``), but ``a{20000}`` is an automaton of 20,000 steps, and an unanchored
search with it cost jsonschema-rs 3.9 s on a string of 20 KB."""

from __future__ import annotations

import time

import pytest

import engine
from engine._patterns.analysis import MAX_WRITTEN_OUT, MAX_WRITTEN_OUT_CLOSED, written_out


@pytest.mark.parametrize(
    ("pattern", "steps", "closed"),
    [
        ("a{20}", 20, False),
        ("(?:ab){3}", 9, False),  # the ":" of "(?:" counted: an upper bound
        ("(ab|cde){3}", 9, False),
        ("(?:(?:\\w{30}){30}){30}", 27930, False),
        ("^[0-9a-fA-F]{32}$", 34, True),
        ("^.{1,4096}$", 4098, True),
        ("^.*a{20}$", 23, False),  # unbounded: a match may start anywhere
        ("a|^b{5}$", 7, False),  # an alternative outside a group is not anchored
        ("^a{5}\\$", 7, False),  # an escaped dollar is no anchor
        ("[{]{5}", 5, False),
        ("\\{5}", 3, False),
        ("x{", 2, False),
    ],
)
def test_steps_written_out(pattern: str, steps: int, closed: bool) -> None:
    assert written_out(pattern) == (steps, closed)


@pytest.mark.parametrize(
    ("pattern", "bound"),
    [
        ("a{20000}", MAX_WRITTEN_OUT),
        ("[a-z]{1001}", MAX_WRITTEN_OUT),
        ("(?:a{100}){100}", MAX_WRITTEN_OUT),
        ("^.*a{2000}$", MAX_WRITTEN_OUT),
        ("^a{20000}$", MAX_WRITTEN_OUT_CLOSED),
        ("a{99999999999999999999}", MAX_WRITTEN_OUT),
    ],
)
@pytest.mark.parametrize("where", ["pattern", "patternProperties", "propertyNames"])
def test_long_counted_repetitions_are_refused(pattern: str, bound: int, where: str) -> None:
    schema = {
        "pattern": {"properties": {"q": {"type": "string", "pattern": pattern}}},
        "patternProperties": {"patternProperties": {pattern: True}},
        "propertyNames": {"propertyNames": {"pattern": pattern}},
    }[where]
    for regex in ("linear", "backtracking"):
        with pytest.raises(engine.SchemaRejected) as info:
            engine.Engine(regex=regex, cache_size=0).compile(schema)
        assert info.value.reason == "unsafe-pattern"
        assert info.value.details["bound"] == bound and info.value.details["steps"] > bound


@pytest.mark.parametrize(
    "pattern", ["a{1000}", "^.{1,4096}$", "^[A-Za-z0-9+/]{0,4096}={0,2}$", "^\\d{4}-\\d{2}-\\d{2}$"]
)
def test_what_stays_within_answers_long_strings_at_once(pattern: str) -> None:
    compiled = engine.Engine(backend="jsonschema-rs", cache_size=0).compile({"type": "string", "pattern": pattern})
    text = ("a" * 999 + "b") * 200  # 200 KB, no match of a{1000} anywhere
    started = time.process_time()
    compiled.is_valid(text)
    assert time.process_time() - started < 2


def test_a_long_pattern_without_counts_is_bounded_by_its_length_alone() -> None:
    long = "".join(chr(0x100 + i) + "+" for i in range(1000))  # 2,000 characters, no count
    assert written_out(long) == (2000, False)
    engine.Engine(cache_size=0).compile({"pattern": long})
    # Counts may take a pattern to the length of its own text, not past it.
    engine.Engine(cache_size=0).compile({"pattern": "b" * 1496 + "a{4}"})  # 1,500 steps and characters
    with pytest.raises(engine.SchemaRejected) as info:
        engine.Engine(cache_size=0).compile({"pattern": "b" * 1496 + "a{600}"})
    assert info.value.details["bound"] == 1502 and info.value.details["steps"] == 2096

"""Patterns are bounded by what they take written out: a pattern's text is short
(``max_pattern_length``), but ``a{20000}`` is an automaton of 20,000 steps, and an unanchored
search with it cost jsonschema-rs 3.9 s on a string of 20 KB; 1,999 ``a`` written out cost 3.8 s
on 200 KB, and ``^(?:.?){4990}$`` 0.5 s on each string of 5 KB."""

from __future__ import annotations

import time
from typing import Any

import pytest

import engine
from engine._patterns.analysis import (
    CLASS_ITEMS_PER_STEP,
    MAX_WRITTEN_OUT,
    MAX_WRITTEN_OUT_IN_ALL,
    PROPERTY_STEPS,
    WIDE_STEPS,
    reads_linearly,
    rust_only,
    spaced_count,
    written_out,
    written_out_in_all,
)


@pytest.mark.parametrize(
    ("pattern", "steps"),
    [
        ("a{20}", 20),
        ("(?:ab){3}", 9),  # the ":" of "(?:" counted: an upper bound
        ("(ab|cde){3}", 15),  # branches add up
        ("^\\u{999}$", 3),  # a code point, not `u` 999 times
        ("\\u{41}{3}", 3),
        ("(?:(?:\\w{30}){30}){30}", 27930),
        ("^[0-9a-fA-F]{32}$", 34),
        ("^(?:.?){4990}$", 9982),
        ("a{ 20000 }", 20000),  # jsonschema-rs reads whitespace in the braces
        ("a{1, 3000}", 3000),
        ("[{]{5}", 5),
        ("\\{5}", 3),
        ("x{", 2),
        ("a" * 1999, 1999),
    ],
)
def test_steps_written_out(pattern: str, steps: int) -> None:
    assert written_out(pattern) == steps


@pytest.mark.parametrize(
    ("pattern", "steps"),
    [
        ("\\p{L}", PROPERTY_STEPS),
        ("\\P{Lu}{3}", 3 * PROPERTY_STEPS),
        ("[a\\p{L}\\p{N}]{2}", 2 * (1 + 2 * PROPERTY_STEPS)),
        ("^[\\p{L}\\p{N} _.'-]{1,500}$", 2 + 500 * (1 + 2 * PROPERTY_STEPS)),
        ("\\\\p{L}{2}", 6),  # an escaped backslash, then `p{L}` as text, its `}` twice
    ],
)
def test_a_unicode_property_class_counts_what_its_automaton_does(pattern: str, steps: int) -> None:
    # Each copy compiles to an automaton of its hundreds of ranges' UTF-8 encodings: `\\p{L}{100}`
    # took jsonschema-rs 21 ms and 5 MB, `\\p{L}{200}` in every tool of a 18 KB list 9 s and 2 GB.
    assert written_out(pattern) == steps


@pytest.mark.parametrize(
    "pattern", ["\\p{L}{200}", "\\P{L}{500}", "[\\p{L}\\p{N}]{500}", "^[\\p{L}\\p{N} _.'-]{1,500}$"]
)
def test_counted_unicode_property_classes_are_refused_at_once(pattern: str) -> None:
    engine.Engine(cache_size=0).compile({"type": "string", "pattern": "^a{2}$"})  # a first compile's imports
    started = time.process_time()
    with pytest.raises(engine.SchemaRejected) as info:
        engine.Engine(cache_size=0).compile({"type": "string", "pattern": pattern})
    assert info.value.reason == "unsafe-pattern" and "Unicode property class" in info.value.message
    assert time.process_time() - started < 0.05  # before any regex engine builds it
    assert engine.Engine(cache_size=0).compile({"type": "string", "pattern": "^\\p{L}{1,15}$"}).is_valid("Zoë")


@pytest.mark.parametrize(
    "pattern",
    [
        "a{20000}",
        "a{ 20000 }",
        "[a-z]{1001}",
        "(?:a{100}){100}",
        "^.*a{2000}$",
        "^a{20000}$",
        "^(?:.?){4990}$",
        "a" * 1999,
        "." * 1999,
        "(a{600}|b{600})",
        "a{99999999999999999999}",
    ],
)
@pytest.mark.parametrize("where", ["pattern", "patternProperties", "propertyNames"])
def test_long_automata_are_refused(pattern: str, where: str) -> None:
    schema = {
        "pattern": {"properties": {"q": {"type": "string", "pattern": pattern}}},
        "patternProperties": {"patternProperties": {pattern: True}},
        "propertyNames": {"propertyNames": {"pattern": pattern}},
    }[where]
    for regex in ("linear", "backtracking"):
        with pytest.raises(engine.SchemaRejected) as info:
            engine.Engine(regex=regex, cache_size=0).compile(schema)
        assert info.value.reason == "unsafe-pattern"
        assert info.value.details["bound"] == MAX_WRITTEN_OUT and info.value.details["steps"] > MAX_WRITTEN_OUT


def test_a_count_with_whitespace_in_its_braces_is_refused_where_it_means_two_things() -> None:
    # jsonschema-rs repeats `x{ 2 }`; ECMA-262 (Annex B) and python-jsonschema read it as text.
    assert spaced_count("^x{ 2 }$") == "'{ 2 }' at offset 2" and spaced_count("x{2}") is None
    assert spaced_count("\\{ 2 }") is None  # an escaped brace is text to both
    for backend in ("auto", "jsonschema-rs"):
        with pytest.raises(engine.SchemaRejected) as info:
            engine.Engine(backend=backend, cache_size=0).compile({"type": "string", "pattern": "^x{ 2 }$"})
        assert info.value.reason == "unsupported-by-backend" and info.value.location == "/pattern"


@pytest.mark.parametrize("pattern", ["a{1000}", "^(?:.?){495}$", "^[A-Za-z0-9+/]{0,998}$", "^\\d{4}-\\d{2}-\\d{2}$"])
def test_what_stays_within_answers_long_strings_at_once(pattern: str) -> None:
    # The regex engine's own time, past the validation-work estimate: a pattern that may be in
    # many states at once is weighed as if its automaton outgrew the engine's cache (`a{1000}` and
    # `^(?:.?){495}$` do not: 5 ms and 16 us here, estimated at some 700 evaluations a character).
    limits = engine.Limits(max_validation_work=10**12)
    compiled = engine.Engine(backend="jsonschema-rs", cache_size=0, limits=limits).compile(
        {"type": "array", "items": {"type": "string", "pattern": pattern}}
    )
    texts = [("a" * 999 + "b") * 200, *(["a" * 990] * 100)]  # 200 KB with no match of a{1000}, then 100 KB
    started = time.process_time()
    compiled.is_valid(texts)
    assert time.process_time() - started < 2


@pytest.mark.parametrize(
    "pattern",
    [
        "^a\\z",
        "\\Aa",
        "^\\pL$",
        "^\\PL$",
        "^a{1,}{2}$",
        "a*{2}",
        "^(?s).$",
        "(?i)a",
        "^[\\pL]$",
        "[a\\PN]",
        "[\\pL\\p{N}]",
    ],
)
def test_rust_only_syntax_is_refused_where_it_means_something_else(pattern: str) -> None:
    # jsonschema-rs reads these as Rust's regex syntax; ECMA-262 (with `u`) refuses them or reads
    # other characters, and python-jsonschema raises.
    assert rust_only(pattern) is not None
    with pytest.raises(engine.SchemaRejected) as info:
        engine.Engine(cache_size=0).compile({"type": "string", "pattern": pattern})
    assert info.value.reason == "unsupported-by-backend" and info.value.location == "/pattern"


@pytest.mark.parametrize(
    "pattern",
    ["^\\p{L}+$", "[\\z]", "\\\\z", "(?i:a)", "(?:a)", "(?<n>a)", "a*?", "a{2}?", "a??", "[\\\\pL]", "[\\p{L}]"],
)
def test_ecma_syntax_is_not_taken_for_rust_only(pattern: str) -> None:
    assert rust_only(pattern) is None


@pytest.mark.parametrize(
    ("pattern", "linear"),
    [
        ("^\\d{4}-\\d{2}-\\d{2}$", True),
        ("^[A-Za-z0-9+/]{0,998}={0,2}$", True),
        ("^[a-z][a-z0-9_]{0,63}$", True),
        ("^a+$", True),
        ("^[a-z]*[a-z0-9]$", False),  # where the run ends is not known until the string does
        ("a[ab]{16}c", False),  # unanchored: a match may start at any `a`
        ("^(get|put|post)$", True),  # words: a trie
        ("^(?:ab|cd)+$", True),  # deterministic: each character has one place to go
        ("^(?:ab|a)b$", False),  # after `a`, is `b` the word's or what follows?
        ("^(?:ab|a)c$", True),
        ("^a|b$", False),
        ("^a$b", False),
        # Deterministic as written (one position live after each character), though repeated groups.
        ("^[A-Z][A-Z0-9_]+-\\d+(?:-\\d+)*$", True),
        ("^[a-z0-9]+(?:-[a-z0-9]+)*$", True),
        ("^(a[ab]{16}c)*$", True),
        ("^a[ab]{990}c", True),  # anchored: the class's 990 positions follow one another
        ("^(?:\\d[a-z]{0,998})*$", True),  # written out nested: `[a-z]` or the next `\\d`
        ("^a{0,3}$", True),
        ("^a?a?$", False),  # the second `a` or the first?
        ("^(?:[ab]x[ab]y){0,250}[ab]{1,500}$", False),  # after `y`, another `[ab]x` or the last run?
        ("^[a-zA-Z0-9_.-]+\\.(png|svg|gif)$", False),  # a `.` in the run, or the extension's?
        ("^(?:a|b)*b$", False),
        ("^(?:(?:[\\u0100-\\u{10FFFF}][a-z]){499}1)*$", True),  # 999 positions: under the bound
        ("^(?:(?:[\\u0100-\\u{10FFFF}][a-z]){500}1)*$", False),  # 1,001: over it
        ("^(?=a)a", False),
        ("^x\\b", False),
    ],
)
def test_which_patterns_are_read_one_state_at_a_time(pattern: str, linear: bool) -> None:
    assert reads_linearly(pattern) is linear


def test_a_schema_s_patterns_are_bounded_in_all() -> None:
    # 200 patterns of 990 steps each in a 10 KB schema: 0.9 s and 290 MB to compile in jsonschema-rs,
    # one automaton each (a 1 MB schema of them, a hundred times that).
    def schema(count: int, dialect: str | None = None) -> dict[str, Any]:
        properties = {f"p{i}": {"type": "string", "pattern": f".{{990}}x{i}"} for i in range(count)}
        return {"type": "object", "properties": properties, **({"$schema": dialect} if dialect else {})}

    engine.Engine(cache_size=0).compile(schema(1))  # what a first compile imports, imported
    for dialect in (None, "http://json-schema.org/draft-04/schema#", "http://json-schema.org/draft-07/schema#"):
        started = time.process_time()
        with pytest.raises(engine.SchemaRejected) as info:
            engine.Engine(cache_size=0).compile(schema(200, dialect))
        assert time.process_time() - started < 0.05  # before any regex engine builds one
        refusal = info.value
        assert refusal.reason == "unsafe-pattern" and "in all" in refusal.message
        assert refusal.details["bound"] == MAX_WRITTEN_OUT_IN_ALL and refusal.details["steps"] > MAX_WRITTEN_OUT_IN_ALL
        assert refusal.location is not None and refusal.location.startswith("/properties/p")
    assert engine.Engine(cache_size=0).compile(schema(1)).is_valid({"p0": "y" * 990 + "x0"})  # 7,936 steps counted


@pytest.mark.parametrize(
    "wide", [".", "\\S", "\\W", "\\D", "\\s", "[^a]", "[\x01-\t\x0b-\U0010ffff]", "[\u0800-\u0900]"]
)
def test_a_class_of_most_of_unicode_counts_more_in_all(wide: str) -> None:
    # Each copy of such a class is an automaton of UTF-8 ranges: ten patterns `\S{990}x<i>`, 9,910
    # plain steps in a 600-byte schema, compiled in 120 ms to 23 MB (200 such tools: over 4 GB).
    def schema(unit: str, count: int) -> dict[str, Any]:
        properties = {f"p{i}": {"type": "string", "pattern": f"^{unit}{{990}}x{i}$"} for i in range(count)}
        return {"type": "object", "properties": properties}

    assert written_out_in_all(f"^{wide}{{990}}x1$") == WIDE_STEPS * written_out(f"^{wide}{{990}}x1$")
    with pytest.raises(engine.SchemaRejected) as info:
        engine.Engine(cache_size=0).compile(schema(wide, 10))
    assert info.value.reason == "unsafe-pattern" and "in all" in info.value.message
    assert engine.Engine(cache_size=0).compile(schema(wide, 1))  # one: 7,952 steps counted
    assert engine.Engine(cache_size=0).compile(schema("[a-z]", 10))  # an ASCII class: 9,960 steps


@pytest.mark.parametrize("narrow", ["[a-z]", "[é-ü]", "[\u4e00-\u4eff]", "\\d"])
def test_a_narrow_class_counts_its_steps(narrow: str) -> None:
    # At most 256 characters beyond U+07FF: an automaton of few UTF-8 ranges.
    assert written_out_in_all(f"^{narrow}{{990}}x1$") == written_out(f"^{narrow}{{990}}x1$")


_SCATTERED = "".join(chr(0x10000 + i * 4000 + 7) for i in range(256))  # each its own 4-byte range


@pytest.mark.parametrize(
    ("pattern", "steps"),
    [
        (f"[{_SCATTERED}]{{1}}", 1 + 256 // CLASS_ITEMS_PER_STEP),
        (f"[{_SCATTERED}]", 258),  # short and uncounted: one step a character, an upper bound
        (f"[{_SCATTERED}]{{3}}x", 3 * (1 + 256 // CLASS_ITEMS_PER_STEP) + 1),
        ("[äöü]{10}", 10),  # three items: a copy of few short encodings
        ("[äöüß]{10}", 10 * 2),
        ("[\\u00e4\\u00f6\\u00fc\\u00df]{10}", 10 * 2),  # escapes count as what they spell
        ("[\\ud83d\\ude00-\\ud83d\\ude4f]{10}", 10 * 2),  # each half of a pair, both range ends
        ("[\\u{1F600}-\\u{1F64F}\\x80\\xff]{10}", 10 * 2),
        ("[\\u0041-\\u005a\\x41]{10}", 10),  # ASCII escapes: none
    ],
)
def test_a_class_listing_characters_beyond_ascii_counts_their_encodings(pattern: str, steps: int) -> None:
    # Each copy is an automaton of the UTF-8 encodings it lists: 256 scattered code points beyond
    # U+FFFF made some 24 KB a copy in jsonschema-rs, and 30 patterns of 300 copies counted as one
    # step each (9,030 in all) kept 215 MB and took 2 s to compile from a 32 KB schema (a tool list
    # of 27 such tools, 875 KB, aborted the process out of memory).
    assert written_out(pattern) == steps


def test_scattered_code_points_repeated_are_refused_at_once() -> None:
    schema = {"type": "object", "properties": {"p": {"type": "string", "pattern": f"[{_SCATTERED}]{{300}}x"}}}
    engine.Engine(cache_size=0).compile({"type": "string", "pattern": "^a{2}$"})  # a first compile's imports
    started = time.process_time()
    with pytest.raises(engine.SchemaRejected) as info:
        engine.Engine(cache_size=0).compile(schema)
    assert time.process_time() - started < 0.05  # before any regex engine builds one
    assert info.value.reason == "unsafe-pattern"
    tools = [{"name": f"t{i}", "inputSchema": schema} for i in range(3)]
    assert all(refusal.reason == "unsafe-pattern" for refusal in engine.compile_tools(tools).rejected.values())
    few = {"type": "string", "pattern": f"^[{_SCATTERED}]{{3}}$"}
    assert engine.Engine(cache_size=0).compile(few).is_valid(_SCATTERED[:3])


def test_a_property_class_without_braces_in_a_class_is_refused_before_it_is_built() -> None:
    # `[\pL]` is letters to Rust and a syntax error to ECMA-262; counted as one step, 94 patterns
    # `^[\pL]{100}x<i>$` in a 5.5 KB schema took 4.6 s to compile and kept 478 MB.
    properties = {f"p{i}": {"type": "string", "pattern": f"^[\\pL]{{100}}x{i}$"} for i in range(94)}
    assert written_out("^[\\pL]{100}x1$") == 2 + 100 * (1 + PROPERTY_STEPS) + 2
    engine.Engine(cache_size=0).compile({"type": "string", "pattern": "^a{2}$"})  # a first compile's imports
    started = time.process_time()
    with pytest.raises(engine.SchemaRejected) as info:
        engine.Engine(cache_size=0).compile({"type": "object", "properties": properties})
    assert time.process_time() - started < 0.05
    assert info.value.reason in ("unsafe-pattern", "unsupported-by-backend")
    one = {"type": "object", "properties": {"p": {"type": "string", "pattern": "^[\\pL]{3}x$"}}}
    with pytest.raises(engine.SchemaRejected) as alone:
        engine.Engine(cache_size=0).compile(one)
    assert alone.value.reason == "unsupported-by-backend" and alone.value.location == "/properties/p/pattern"

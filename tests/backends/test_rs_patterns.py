"""The jsonschema-rs backend refuses a word-boundary pattern wherever it is, and looks for one only
when the document's text can hold it."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine._intake import canonical_text
from engine.backends._jsonschema_rs import _may_hold_inexact_pattern

ENG = engine.Engine(backend="jsonschema-rs", cache_size=0)


@pytest.mark.parametrize(
    "schema",
    [
        {"pattern": r"\bword"},
        {"properties": {"a": {"pattern": r"x\B"}}},
        {"patternProperties": {r"^\bk": {}}},
        {"$defs": {"unused": {"pattern": r"(\b)"}}},
        {"x-unknown": {"pattern": r"\b"}},
        # `$schema` respelled for the backend: the pipeline's text is of the schema as written
        {"$schema": "https://json-schema.org/draft/2020-12/schema#", "pattern": r"\bword"},
        {"$schema": "http://json-schema.org/draft-07/schema", "items": {"pattern": r"x\B"}},
    ],
)
def test_word_boundaries_are_refused_wherever_they_are(schema: dict[str, Any]) -> None:
    assert _may_hold_inexact_pattern(schema)
    with pytest.raises(engine.SchemaRejected) as refused:
        ENG.compile(schema)
    assert "word boundary" in refused.value.message


@pytest.mark.parametrize(
    ("schema", "instance"),
    [
        ({"pattern": r"\\b"}, "\\b"),  # an escaped backslash, then b
        ({"description": "a \\b in prose", "pattern": "^a$"}, "a"),
    ],
)
def test_a_backslash_b_elsewhere_is_looked_at_and_accepted(schema: dict[str, Any], instance: str) -> None:
    assert _may_hold_inexact_pattern(schema)
    compiled = ENG.compile(schema)
    assert compiled.is_valid(instance) and not compiled.is_valid("zzz")


def test_text_without_a_pattern_that_can_differ_is_not_walked() -> None:
    for schema in (
        {"pattern": r"^\d+$"},
        {"description": "\b is a backspace", "type": "string"},
        {"description": r"\b, x{ 2 }, (?s) in prose", "type": "string"},  # no pattern: not looked at
        True,
    ):
        assert not _may_hold_inexact_pattern(schema)
        ENG.compile(schema)


def test_the_sorted_text_gives_the_answer_of_the_encoding() -> None:
    # The pipeline passes the canonical (key-sorted) text it fingerprinted; the search reads it
    # instead of encoding the schema again, and must answer exactly as it would have.
    from benchmarks.corpus import load_corpus
    from tests.corpus import corpus

    schemas = [s for _, s in load_corpus().schemas()] + [item.schema for item in corpus()]
    schemas += [
        {"b": "\\", "pattern": "b"},
        {"pattern": "\\", "b": "\\B"},
        {"pattern": "\\\\b"},
        {"k\\": {"pattern": "b"}},
    ]
    schemas += [{"pattern": "x{ 2 }"}, {"pattern": "(?s)a"}, {"pattern": "a{1,}{2}"}, {"p": "x{ 2 }"}]
    schemas += [{"z": {"pattern": r"\bw"}, "a": 1}, {"patternProperties": {r"^\Bk": {}}}]
    held = 0
    for schema in schemas:
        answer = _may_hold_inexact_pattern(schema)
        assert _may_hold_inexact_pattern(schema, canonical_text(schema)) == answer, schema
        held += answer
    assert held >= 4

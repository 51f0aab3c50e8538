"""The lean decision of the msgspec backend (:mod:`engine.backends._msgspec_decide`): it says yes
only where the translator takes the schema, so deciding early and translating on first use
changes no answer, no refusal and no reason."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

import engine
from engine._dialect import Dialect, detect_dialect, normalise_schema_uri
from engine.backends import BackendRefused, SchemaSource
from engine.backends._msgspec import MsgspecBackend, MsgspecValidator
from engine.backends._msgspec_decide import _Unsure, _Walk, renamable, translates
from engine.backends._msgspec_translation import translate
from tests.conformance.suite import DIALECTS, SUITE
from tests.corpus import corpus

CONFIGS = (engine.EngineConfig(), engine.EngineConfig(formats="assert"))


def _suite_schemas() -> Iterator[tuple[Any, Dialect]]:
    for folder, dialect in DIALECTS.items():
        for path in sorted((SUITE / "tests" / folder).rglob("*.json")):
            for case in json.loads(path.read_text()):
                yield case["schema"], Dialect(dialect)


def _schemas() -> list[tuple[Any, Dialect]]:
    default = Dialect(engine.EngineConfig().default_dialect)
    return [(c.schema, default) for c in corpus()] + list(_suite_schemas())


def _source(schema: Any, dialect: Dialect, config: engine.EngineConfig) -> SchemaSource | None:
    try:
        dialect = detect_dialect(schema, dialect, {})
    except engine.SchemaRejected:
        return None
    return SchemaSource(schema=normalise_schema_uri(schema, dialect), dialect=dialect, resources={}, config=config)


def test_a_yes_is_the_translators_yes() -> None:
    sure = 0
    for schema, dialect in _schemas():
        for config in CONFIGS:
            source = _source(schema, dialect, config)
            if source is None or not translates(source):
                continue
            sure += 1
            try:
                translate(source)
            except BackendRefused as exc:  # pragma: no cover - the failure this test exists for
                pytest.fail(f"decided yes, translator refused: {exc.why}: {json.dumps(schema)[:300]}")
    assert sure > 2000  # most of the corpus and the suite is decided without translating


HARD = [
    {"type": "object", "properties": {"a\\b": {"type": "string"}}},
    {"type": "object", "properties": {"a": {"type": "string"}}, "required": ['q"']},
    {"type": "object", "properties": {"\x01": True}},
    {"type": "object", "properties": {"a": False}},
    {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "integer"}},
    {"type": "object", "properties": {"a": {}}, "minProperties": 1},
    {"anyOf": [{"type": "string"}, {"type": "string", "maxLength": 3}]},
    {"anyOf": [{"type": "string"}, {"enum": ["x"]}]},
    {"anyOf": [{"enum": ["x"]}, {"type": "string"}]},
    {"oneOf": [{"enum": ["x", 1]}, {"const": "x"}]},
    {"anyOf": [{"enum": ["x", 1]}, {"const": "x"}]},
    {"oneOf": [{"enum": [1]}, {"enum": [True]}]},
    {"anyOf": [{"type": "string"}, True]},
    {"anyOf": []},
    {"anyOf": [{"type": "string"}], "type": "string"},
    {"anyOf": [{"type": "string"}], "oneOf": [{"type": "null"}]},
    {"type": "integer", "minimum": 2**63},
    {"type": "integer", "maximum": 9.3e18},
    {"type": "number", "minimum": 2**60 + 1},
    {"type": "number", "multipleOf": 2},
    {"type": "integer", "multipleOf": 2.5},
    {"multipleOf": 2},
    {"type": "integer", "exclusiveMinimum": 1.5, "maximum": 3},
    {"type": "string", "pattern": "(?<=a)b"},
    {"type": "string", "pattern": "^\\p{L}+$"},
    {"type": "string", "pattern": "^[a-z]+$", "format": "email"},
    {"type": "array", "items": [{"type": "string"}]},
    {"type": "array", "items": False},
    {"type": "array", "uniqueItems": True},
    {"type": "array", "uniqueItems": False, "items": {"enum": [1.0, 2, None, 2.5]}},
    {"enum": [{"a": 1}]},
    {"enum": [1, 1.0, True, "1"], "type": ["integer", "boolean"]},
    {"enum": ["a"], "const": "b"},
    {"enum": ["a"], "minLength": 1},
    {"type": []},
    {"type": "strin"},
    {"$defs": {"a": {"type": "string"}}, "$ref": "#/$defs/a"},
    {"$defs": {"a": {"type": "string"}}, "properties": {"x": {"$ref": "#/$defs/a", "maxLength": 2}}},
    {"$defs": {"a": {"type": "string"}}, "anyOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}]},
    {"$defs": {"a": {"items": {"$ref": "#/$defs/a"}}}, "$ref": "#/$defs/a"},
    {"$defs": {"a": {"$id": "x", "type": "string"}}, "properties": {"x": {"$ref": "#/$defs/a"}}},
    {"$defs": {"a%20b": {"type": "string"}}, "properties": {"x": {"$ref": "#/$defs/a%2520b"}}},
    {"properties": {"x": {"$ref": "#/$defs/missing"}}},
    {"properties": {"x": {"$ref": "#/properties/y"}, "y": {"type": "integer"}}},
    {"properties": {"x": {"$ref": "#"}}},
    {"$anchor": "a", "properties": {"x": {"$ref": "#a"}}},
    {"not": {"type": "string"}},
    {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(33)}},
    {"type": "object", "properties": {f"p{i}": {} for i in range(31)}, "required": ["x", "y"]},
    {"type": "object", "properties": {f"p{i}": {} for i in range(30)}, "required": ["p1", "p2", "p3"]},
    {"unknownKeyword": 1, "type": "string"},
    {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$ref": "#/definitions/a",
        "maxLength": 2,
        "definitions": {"a": {"type": "string"}},
    },
]


@pytest.mark.parametrize("schema", HARD, ids=lambda s: json.dumps(s)[:60])
@pytest.mark.parametrize("formats", ["annotate", "assert"])
def test_every_case_near_a_refusal_is_decided_as_the_translator_decides(schema: Any, formats: str) -> None:
    config = engine.EngineConfig(formats=formats)  # type: ignore[arg-type]
    source = _source(schema, Dialect(config.default_dialect), config)
    assert source is not None
    if translates(source):
        translate(source)  # does not raise


def test_renamable_is_the_msgspec_rule() -> None:
    for name in ("a", "with space", "é", "😀", "\x7f", ""):
        assert renamable(name)
    for name in ("a\\b", 'q"', "\x00", "x\x1f", "\ud800", "a\udfff"):
        assert not renamable(name)


def _compiled(schema: Any, decide: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Any]:
    with monkeypatch.context() as patch:
        if not decide:
            patch.setattr("engine.backends._msgspec.translates", lambda source: False)
        try:
            compiled = engine.Engine(cache_size=0).compile(schema)
        except engine.SchemaRejected as exc:
            return "rejected", (exc.reason, exc.message, exc.location)
    return compiled.backend, dict(compiled.notes)


def test_deciding_early_changes_no_answer_and_no_refusal(monkeypatch: pytest.MonkeyPatch) -> None:
    schemas = [c.schema for c in corpus()] + HARD
    for schema in schemas:
        assert _compiled(schema, True, monkeypatch) == _compiled(schema, False, monkeypatch), json.dumps(schema)[:300]


@pytest.mark.parametrize("folder", sorted(DIALECTS))
def test_deciding_early_changes_nothing_on_the_suite(folder: str, monkeypatch: pytest.MonkeyPatch) -> None:
    dialect = DIALECTS[folder]
    for path in sorted((SUITE / "tests" / folder).glob("*.json")):
        for case in json.loads(path.read_text()):
            outcomes = []
            for decide in (True, False):
                with monkeypatch.context() as patch:
                    if not decide:
                        patch.setattr("engine.backends._msgspec.translates", lambda source: False)
                    try:
                        compiled = engine.Engine(cache_size=0, default_dialect=dialect).compile(case["schema"])
                    except engine.SchemaRejected as exc:
                        outcomes.append(("rejected", exc.reason, exc.message, exc.location))
                    else:
                        outcomes.append((compiled.backend, tuple(sorted(compiled.notes.items()))))
            assert outcomes[0] == outcomes[1], f"{path.name}: {case['description']}"


def test_the_translation_is_made_on_first_use() -> None:
    schema = {
        "type": "object",
        "properties": {"n": {"type": "integer"}, "s": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
    }
    config = engine.EngineConfig()
    source = _source(schema, Dialect(config.default_dialect), config)
    assert source is not None
    validator = MsgspecBackend().compile(source)
    assert validator._translation is None  # decided, not translated
    assert validator.decode(b'{"n": 1, "s": null}') == {"n": 1, "s": None}
    assert validator.translation.open_at == ""
    compiled = engine.Engine(cache_size=0).compile(schema)
    assert compiled.backend == "msgspec"
    assert compiled.decode(b'{"n": 1, "s": "x", "extra": 2}') == {"n": 1, "s": "x", "extra": 2}
    with pytest.raises(engine.ValidationFailed):
        compiled.decode(b'{"n": "x"}')
    assert compiled.decode_typed(b'{"n": 2}').f0 == 2


def test_an_unsure_walk_keeps_nothing_alive() -> None:
    import gc

    from engine.backends import _msgspec_decide

    config = engine.EngineConfig()
    source = _source({"not": {"type": "string"}}, Dialect(config.default_dialect), config)
    assert source is not None
    for _ in range(50):
        assert not translates(source)
    gc.collect()
    assert not [o for o in gc.get_objects() if type(o) is _msgspec_decide._Walk]


def test_a_deep_schema_is_translated_at_compile_time() -> None:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(70):
        schema = {"type": "object", "properties": {"a": schema}}
    eng = engine.Engine(limits={"max_schema_depth": 200, "max_document_depth": 400, "max_eval_depth": 400})
    compiled = eng.compile(schema)
    assert compiled.backend == "msgspec"
    validator = compiled._typed
    assert isinstance(validator, MsgspecValidator)
    assert validator._translation is not None  # not left for the first decode


def test_leaf_shortcuts_find_what_the_whole_walk_finds() -> None:
    # `_object`, `_array` and `_combination` settle a subschema of leaf keywords without calling
    # `node`. With no keyword taken for a leaf, every subschema is walked: the answers and the
    # union members found must be the same.
    def walked(source: SchemaSource, shortcuts: bool) -> Any:
        walk = _Walk(
            source.schema,
            assert_formats=source.config.assert_formats,
            draft4=source.dialect is Dialect.DRAFT4,
            legacy_refs=not source.dialect.is_modern,
        )
        if not shortcuts:
            walk.leaf = frozenset()
        try:
            return walk.node(source.schema, root=True)
        except (_Unsure, RecursionError):
            return "unsure"

    from benchmarks.corpus import load_corpus

    default = Dialect(engine.EngineConfig().default_dialect)
    schemas = _schemas() + [(s, default) for _, s in load_corpus().schemas()] + [(s, default) for s in HARD]
    decided = 0
    for schema, dialect in schemas:
        for config in CONFIGS:
            source = _source(schema, dialect, config)
            if source is None:
                continue
            found = walked(source, True)
            assert found == walked(source, False), json.dumps(schema)[:300]
            decided += found != "unsure"
    assert decided > 2000

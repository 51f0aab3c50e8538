"""The plan: which backend checks a schema, who explains, re-checks and decodes, who refused and
why; and that the registry is the only list of backends."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import msgspec
import pytest

import engine
import engine.backends as registry
from engine._cli.parser import build_parser
from engine._dialect import normalise_schema_uri
from engine._plan import candidates, plan
from engine.backends import Backend, BackendRefused, BackendValidator, Entry, SchemaSource, refuse
from engine.backends._msgspec_translation import translate

CONFIG = engine.EngineConfig()
RECURSIVE_ANYOF = {
    "anyOf": [
        {"type": "array", "items": {"$ref": "#"}},
        {"type": "array", "items": {"$ref": "#"}},
        {"type": "integer"},
    ]
}
OPEN = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
CLOSED = {**OPEN, "additionalProperties": False}


def source(schema: Any, dialect: engine.Dialect = engine.Dialect.DRAFT2020_12) -> SchemaSource:
    report = engine._guard.inspect(schema, dialect, {}, CONFIG)
    return SchemaSource(schema=schema, dialect=dialect, resources={}, config=CONFIG, facts=report)


def test_auto_takes_msgspec_for_a_closed_schema_and_leaves_objects_to_the_general_backend() -> None:
    chosen = plan(source(CLOSED), candidates("auto"))
    assert chosen.backend == "msgspec" and dict(chosen.refused) == {}
    # msgspec decodes bytes in one pass; Python objects are checked and explained by jsonschema-rs.
    assert chosen.decoder is not None and chosen.decoder(b'{"q": "x"}') == {"q": "x"}
    assert type(chosen.checker).__name__ == "JsonschemaRsValidator"
    assert chosen.explainer is chosen.checker and chosen.fallback is None
    assert chosen.checker.is_valid({"q": "x"}) and not chosen.checker.is_valid({"q": "x", "extra": 1})


def test_an_open_object_is_translated_and_no_type_is_built_at_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    """Open objects are translated optimistically (a Struct that refuses unnamed properties, whose
    refusals the general backend judges again); the plan decides, and builds no msgspec type."""

    def must_not_run(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("a msgspec type was built at compile time")

    monkeypatch.setattr("engine.backends._msgspec_translation.msgspec.defstruct", must_not_run)
    chosen = plan(source(OPEN), candidates("auto"))
    closed_around_open = {"type": "object", "properties": {"a": OPEN}, "additionalProperties": False}
    nested = plan(source(closed_around_open), candidates("auto"))
    monkeypatch.undo()
    assert chosen.backend == "msgspec" and dict(chosen.refused) == {} and chosen.fallback is None
    assert nested.backend == "msgspec"
    assert chosen.decoder is not None and chosen.decoder(b'{"q": "x"}') == {"q": "x"}
    with pytest.raises(msgspec.ValidationError):  # an unnamed property: judged again, by the pipeline
        chosen.decoder(b'{"q": "x", "extra": 1}')


def test_the_translation_decides_on_the_corpus_without_building() -> None:
    from benchmarks.corpus import load_corpus

    msgspec_backend = candidates("msgspec").order[0]
    taken = total = 0
    for _, schema in load_corpus().schemas():
        src = source(schema)
        total += 1
        if msgspec_backend.refusal(src) is not None:
            continue
        try:
            validator = msgspec_backend.compile(src)
        except BackendRefused:
            continue
        assert validator._plain is None  # built on first use only
        taken += 1
    assert taken > 0.9 * total  # open objects included: most real schemas translate


def test_auto_records_each_refusal_with_its_reason() -> None:
    chosen = plan(source({"allOf": [{"type": "string"}, {"maxLength": 3}]}), candidates("auto"))
    assert chosen.backend == "jsonschema-rs"
    assert "allOf" in chosen.refused["msgspec"]


def test_a_configured_backend_that_refuses_is_the_answer() -> None:
    with pytest.raises(BackendRefused) as refused:
        plan(source({"allOf": [{"type": "string"}]}), candidates("msgspec"))
    assert refused.value.backend == "msgspec" and "allOf" in refused.value.why


def test_backtracking_backends_refuse_exponential_recursion(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("fastjsonschema", "jsonschema"):
        with pytest.raises(BackendRefused) as refused:
            plan(source(RECURSIVE_ANYOF), candidates(name))
        assert "grows exponentially" in refused.value.why and "backtracks" in refused.value.why
    # Under auto, with the Python backends first, the plan moves on to the general backend.
    order = ("fastjsonschema", "jsonschema", "jsonschema-rs", "msgspec")
    monkeypatch.setattr(registry, "BACKENDS", {name: registry.BACKENDS[name] for name in order})
    chosen = plan(source(RECURSIVE_ANYOF), candidates("auto"))
    assert chosen.backend == "jsonschema-rs" and set(chosen.refused) == {"fastjsonschema", "jsonschema"}
    # A non-recursive schema is theirs: fastjsonschema does not explain, python-jsonschema does.
    fast = plan(source({"type": "string"}), candidates("auto"))
    assert fast.backend == "fastjsonschema" and fast.explainer is not fast.checker
    reference = plan(source({"type": "string"}), candidates("jsonschema"))
    assert reference.backend == "jsonschema" and reference.explainer is reference.checker


def test_a_configured_general_backend_has_no_fallback_and_explains_itself() -> None:
    chosen = plan(source(OPEN), candidates("jsonschema-rs"))
    assert chosen.backend == "jsonschema-rs" and chosen.explainer is chosen.checker
    assert chosen.fallback is None and chosen.decoder is None and dict(chosen.refused) == {}


# -- a backend added to the registry ---------------------------------------------------------------


class _EvenValidator(BackendValidator):
    def is_valid(self, instance: Any) -> bool:
        return isinstance(instance, int) and instance % 2 == 0

    def iter_issues(self, instance: Any) -> Iterator[engine.Issue]:
        if not self.is_valid(instance):
            yield engine.Issue(instance_path="", keyword_location="", keyword="even", message="not even")


class EvenBackend(Backend):
    """Takes only ``{"type": "integer", "multipleOf": 2}`` under draft 7."""

    name: ClassVar[str] = "even"
    dialects: ClassVar[frozenset[engine.Dialect]] = frozenset({engine.Dialect.DRAFT7})
    explains: ClassVar[bool] = False

    def compile(self, source: SchemaSource) -> BackendValidator:
        if source.schema != {"$schema": "http://json-schema.org/draft-07/schema#", "type": "integer", "multipleOf": 2}:
            raise refuse(self.name, "only even integers")
        return _EvenValidator()


@pytest.fixture
def with_even(monkeypatch: pytest.MonkeyPatch) -> None:
    added = {"even": Entry(__name__, "EvenBackend", "pytest", None), **registry.BACKENDS}
    monkeypatch.setattr(registry, "BACKENDS", added)


@pytest.mark.usefixtures("with_even")
def test_one_registry_line_is_enough_for_config_cli_and_auto() -> None:
    # Configuration: keyword, environment and TOML layers all validate against the registry.
    assert engine.EngineConfig(backend="even").backend == "even"
    assert engine.EngineConfig.load(env={"ENGINE_BACKEND": "even"}).backend == "even"
    with pytest.raises(engine.ConfigError, match="one of auto, even, msgspec"):
        engine.EngineConfig(backend="odd")
    # The command line offers it.
    args = build_parser().parse_args(["check", "--backend", "even", "schema.json"])
    assert args.backend == "even"
    # A configured backend compiles; its failures are explained by the general backend.
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "integer", "multipleOf": 2}
    cs = engine.Engine(backend="even").compile(draft7)
    assert cs.backend == "even" and cs.is_valid(4) and not cs.is_valid(3)
    with pytest.raises(engine.ValidationFailed) as failed:
        cs.validate(3)
    assert failed.value.issues[0].keyword == "multipleOf"
    # auto tries it first and says why it refused the others.
    assert engine.Engine().compile(draft7).backend == "even"
    chosen = engine.Engine().compile({"type": "integer"})
    assert chosen.backend == "msgspec" and "does not support the 2020-12 dialect" in chosen.notes["even"]


def test_the_registry_is_the_only_list_of_names() -> None:
    assert registry.backend_names() == ("auto", *registry.BACKENDS)
    actions = {a.dest: a for a in build_parser()._subparsers._group_actions[0].choices["check"]._actions}  # type: ignore[union-attr]
    assert tuple(actions["backend"].choices) == registry.backend_names()
    with pytest.raises(engine.BackendUnavailable, match="choose one of: auto, msgspec"):
        registry.load_backend("nope")


def test_the_typed_decoder_is_planned_once_and_reused_by_the_mcp_layer(monkeypatch: pytest.MonkeyPatch) -> None:
    chosen = plan(source(CLOSED), candidates("auto"))
    assert chosen.typed is None  # msgspec builds its types on first use; the MCP layer asks then
    assert plan(source(OPEN), candidates("auto")).backend == "msgspec"
    calls: list[Any] = []

    def counted(src: SchemaSource) -> Any:
        calls.append(src)
        return translate(src)

    monkeypatch.setattr("engine.backends._msgspec.translate", counted)
    tools = engine.compile_tools(
        [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": CLOSED}], engine=engine.Engine()
    )
    # The plan only decided that the output schema translates; it is translated on first use, once.
    assert [c.schema for c in calls].count(CLOSED) == 0
    result = tools.validate_result("t", b'{"content": [], "structuredContent": {"q": "x"}}')
    assert result.structured_content == {"q": "x"}
    tools.validate_result("t", b'{"content": [], "structuredContent": {"q": "y"}}')
    assert [c.schema for c in calls].count(CLOSED) == 1
    with pytest.raises(engine.ValidationFailed):
        tools.validate_result("t", b'{"content": [], "structuredContent": {"q": 1}}')


# -- the decision put off until first use ---------------------------------------------------------


def test_auto_compiles_without_deciding_on_msgspec(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under ``auto`` a compile neither walks nor translates for msgspec: the decision waits until
    the first document is read or ``backend`` is asked for, and is then what the plan decides."""

    def must_not_run(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("the msgspec decision ran at compile time")

    monkeypatch.setattr("engine.backends._msgspec.translates", must_not_run)
    monkeypatch.setattr("engine.backends._msgspec.translate", must_not_run)
    eng = engine.Engine()
    taken = eng.compile(OPEN)
    refused = eng.compile({"allOf": [{"type": "string"}, {"maxLength": 3}]})
    # Python objects never need the decision: the general backend checks them either way.
    assert taken.is_valid({"q": "x"}) and not refused.is_valid("long")
    monkeypatch.undo()
    assert taken.backend == "msgspec" and taken.notes == {}
    assert taken.decode(b'{"q": "x", "extra": 1}') == {"q": "x", "extra": 1}
    # A refusal found on first use: the general backend, with the reason, as the plan says.
    assert refused.decode(b'"abc"') == "abc"
    with pytest.raises(engine.ValidationFailed):
        refused.decode(b'"abcd"')
    assert refused.backend == "jsonschema-rs" and "allOf" in refused.notes["msgspec"]
    assert repr(refused) == "<CompiledSchema backend='jsonschema-rs' dialect='2020-12'>"


def test_a_configured_msgspec_backend_still_refuses_at_compile() -> None:
    with pytest.raises(engine.SchemaRejected) as refused:
        engine.Engine(backend="msgspec").compile({"allOf": [{"type": "string"}]})
    assert refused.value.reason == engine.RejectReason.UNSUPPORTED_BY_BACKEND


def _corpus_and_suite() -> list[tuple[str, Any, str]]:
    """Every corpus schema (2020-12) and every distinct schema of the suite's draft 7 and 2020-12
    tests, with the dialect it is read in."""
    import json

    from benchmarks.corpus import load_corpus
    from tests.conformance.suite import iter_tests

    found: list[tuple[str, Any, str]] = [(label, schema, "2020-12") for label, schema in load_corpus().schemas()]
    for folder, dialect in (("draft7", "draft7"), ("draft2020-12", "2020-12")):
        seen = set()
        for test in iter_tests(folder):
            text = json.dumps(test.schema, sort_keys=True)
            if text not in seen:
                seen.add(text)
                found.append((test.id, test.schema, dialect))
    return found


def test_the_deferred_decision_is_the_plans_on_every_corpus_and_suite_schema() -> None:
    """The backend and refusal notes decided on first use, asked for directly or reached by
    reading a document, equal the plan's eager answer on every schema."""
    compared = 0
    for label, schema, dialect in _corpus_and_suite():
        for first_use in ("backend", "decode"):
            eng = engine.Engine(cache_size=0, default_dialect=dialect)  # type: ignore[arg-type]
            try:
                compiled = eng.compile(schema)
            except engine.SchemaRejected:
                continue
            if first_use == "decode":
                try:
                    compiled.decode(b"{}")
                except engine.EngineError:
                    pass
            src = SchemaSource(
                schema=normalise_schema_uri(schema, compiled.dialect),
                dialect=compiled.dialect,
                resources={},
                config=eng.config,
                facts=compiled.guard,
            )
            eager = plan(src, candidates("auto"))
            assert (compiled.backend, compiled.notes) == (eager.backend, dict(eager.refused)), label
            compared += 1
    assert compared > 1500


def test_threads_reading_first_documents_at_once_agree_on_the_decision() -> None:
    import threading

    for schema, backend in ((OPEN, "msgspec"), ({"allOf": [{"type": "object"}, {"required": ["q"]}]}, "jsonschema-rs")):
        compiled = engine.Engine().compile(schema)
        barrier = threading.Barrier(8)
        answers: list[Any] = []

        def first_read(
            compiled: Any = compiled, barrier: threading.Barrier = barrier, answers: list[Any] = answers
        ) -> None:
            barrier.wait()
            answers.append((compiled.decode(b'{"q": "x", "n": 1}'), compiled.backend))

        threads = [threading.Thread(target=first_read) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert answers == [({"q": "x", "n": 1}, backend)] * 8
        with pytest.raises(engine.EngineError):
            compiled.decode(b'{"n": 1}' if backend == "jsonschema-rs" else b'{"q": 1}')

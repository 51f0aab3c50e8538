"""The warm-up of a compiled schema's reader: through its short path (what ``ToolSet`` reads),
a schema that may translate to msgspec types reads its first ``WARM_DOCUMENTS`` documents on the
general path (the parse, the backend's check) and builds its typed reader on the next, which
becomes ``decode`` and, in place, the short path. A tool called a few times never pays for the
types; nor does an elicitation form answered once or twice, and a form asked for again is the one
compiled before.

The rest of the suite builds the typed reader on a schema's first document (see
``tests/conftest.py``); these tests run with the warm-up on."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

import engine
import engine._compiled
from engine.backends import SchemaSource
from engine.backends._msgspec_translation import Translation, translate
from tests.corpus import BENCH_DATA

WARM = 3

SCHEMA = {
    "type": "object",
    "properties": {"q": {"type": "string"}, "n": {"type": "integer", "minimum": 0}},
    "required": ["q"],
}


@pytest.fixture(autouse=True)
def _warming(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine._compiled, "WARM_DOCUMENTS", WARM)


@pytest.fixture
def translations(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The schemas translated, in order, while the test runs."""
    made: list[Any] = []

    def counted(source: SchemaSource) -> Translation:
        made.append(source.schema)
        return translate(source)

    monkeypatch.setattr("engine.backends._msgspec.translate", counted)
    return made


def _fresh() -> engine.Engine:
    return engine.Engine(engine.EngineConfig(cache_size=0))


def test_the_shipped_setting_warms_up() -> None:
    # The suite's own setting is 0 (see tests/conftest.py): what ships is read in a fresh process.
    shipped = subprocess.run(
        [sys.executable, "-c", "import engine._compiled as c; print(c.WARM_DOCUMENTS)"],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parents[2],
    )
    assert int(shipped.stdout) == 4


def test_a_tool_reads_its_first_documents_on_the_general_path(translations: list[Any]) -> None:
    tools = engine.compile_tools([{"name": "t", "inputSchema": SCHEMA}], engine=_fresh())
    for n in range(WARM):
        assert tools.validate_arguments("t", b'{"q": "x", "n": %d}' % n) == {"q": "x", "n": n}
    assert translations == []
    compiled = tools.tool("t").input
    path = compiled.short_path()
    parse = path[0]
    assert tools.validate_arguments("t", b'{"n": 1, "q": "y"}') == {"n": 1, "q": "y"}
    assert translations == [SCHEMA]
    # The short path the tool set keeps is the built reader's now, in place: its typed decode.
    assert compiled.short_path() is path and path[0] is not parse and path[1] > 0 and path[2] is not None
    assert compiled.backend == "msgspec"
    for n in range(10):
        assert tools.validate_arguments("t", b'{"q": "z", "n": %d}' % n) == {"q": "z", "n": n}
    assert translations == [SCHEMA]


def test_a_tool_whose_documents_all_fail_takes_up_its_built_reader() -> None:
    tools = engine.compile_tools([{"name": "t", "inputSchema": SCHEMA}], engine=_fresh())
    for _ in range(WARM + 1):
        with pytest.raises(engine.ValidationFailed):
            tools.validate_arguments("t", b'{"q": 1}')
    path = tools.tool("t").input.short_path()
    assert path[2] is not None  # built on the last of them, which it refused
    bound = tools._from_bytes["t"]  # noqa: SLF001 - the short path the inline read is bound to
    assert bound[:-1] == tuple(path) and bound[-1] is path


def test_decode_is_built_when_asked_for_and_settles_a_warming_path(translations: list[Any]) -> None:
    at_once = _fresh().compile(SCHEMA)
    assert at_once.decode(b'{"q": "x"}') == {"q": "x"}
    assert translations == [SCHEMA]  # `decode` itself does not warm up: it is the built reader
    warming = _fresh().compile(SCHEMA)
    path = warming.short_path()
    read = path[4]
    assert read(b'{"q": "x"}') == {"q": "x"} and len(translations) == 1
    assert warming.decode(b'{"q": "y"}') == {"q": "y"}
    assert len(translations) == 2 and warming.short_path() is path and path[2] is not None
    # A caller who kept the warming reader reads through the built one: nothing is built again.
    for _ in range(WARM + 2):
        assert read(b'{"q": "z"}') == {"q": "z"}
    assert len(translations) == 2


def test_every_document_is_judged_alike_before_during_and_after_the_warm_up() -> None:
    documents = [
        b'{"q": "x"}',
        b'{"q": 1}',
        b'{"q": "x", "n": -1}',
        b'{"q": "x", "extra": {"deep": [1, 2]}}',
        b'{"q": "x:y", "n": 2}',
        b"[1]",
        b'{"q": "x"',
        b'{"q": "\xff"}',
        b'{"q": "' + b"long " * 200 + b'"}',
    ]
    reference = engine.Engine(engine.EngineConfig(backend="jsonschema-rs", cache_size=0)).compile(SCHEMA)
    for rotation in range(len(documents)):
        compiled = _fresh().compile(SCHEMA)
        path = compiled.short_path()
        order = documents[rotation:] + documents[:rotation]
        for data in order * 2:
            assert _outcome(path[4], data) == _outcome(reference.decode, data), data


def _outcome(read: Any, data: Any) -> Any:
    try:
        return ("value", read(data))
    except engine.ValidationFailed as failure:
        return ("invalid", failure.message, [msgspec.structs.asdict(issue) for issue in failure.issues])
    except engine.DecodeError as error:
        return ("not read", error.reason, str(error))


def _corpus_tools() -> Iterator[dict[str, Any]]:
    for path in sorted((BENCH_DATA / "tools").glob("*.json")):
        for tool in json.loads(path.read_text()):
            if (
                isinstance(tool, dict)
                and isinstance(tool.get("inputSchema"), dict)
                and isinstance(tool.get("name"), str)
            ):
                yield tool


def test_tool_arguments_through_the_warm_up_are_judged_as_the_general_path_judges_them() -> None:
    """Every corpus tool, called from bytes past its warm-up with arguments that pass and fail,
    answers as the general backend does on every call (the short path changes under the caller)."""
    tools = list(_corpus_tools())
    fresh = engine.compile_tools(tools, engine=_fresh())
    general = engine.compile_tools(tools, engine=engine.Engine(engine.EngineConfig(backend="jsonschema-rs")))
    checked = 0
    for tool in tools:
        name = tool["name"]
        if name in fresh.rejected or name in general.rejected:
            continue
        properties = tool["inputSchema"].get("properties") or {}
        first = next(iter(properties), "x")
        calls = [b"{}", json.dumps({first: 1}).encode(), json.dumps({first: "a"}).encode(), b'{"": null}']
        for data in calls * (WARM + 1):
            assert _outcome(lambda d, n=name: fresh.validate_arguments(n, d), data) == _outcome(
                lambda d, n=name: general.validate_arguments(n, d), data
            ), (name, data)
            checked += 1
    assert checked > 5000


def test_threads_settle_a_schema_once(translations: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    settled: list[Any] = []
    settle = engine._compiled.CompiledSchema._settle

    def slow_settle(self: Any, path: Any) -> Any:
        settled.append(self)
        time.sleep(0.02)  # the other threads reach the build meanwhile
        return settle(self, path)

    monkeypatch.setattr(engine._compiled.CompiledSchema, "_settle", slow_settle)
    compiled = _fresh().compile(SCHEMA)
    read = compiled.short_path()[4]
    tools = engine.compile_tools([{"name": "t", "inputSchema": SCHEMA}], engine=_fresh())
    start = threading.Barrier(8)
    wrong: list[Any] = []

    def work(index: int) -> None:
        start.wait()
        for n in range(40):
            data = b'{"q": "t%d", "n": %d}' % (index, n)
            if read(data) != {"q": f"t{index}", "n": n}:
                wrong.append(data)  # pragma: no cover - the failure this test exists for
            if tools.validate_arguments("t", data) != {"q": f"t{index}", "n": n}:
                wrong.append(data)  # pragma: no cover - the failure this test exists for

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []
    assert translations == [SCHEMA, SCHEMA]  # once for each compiled schema
    assert len(settled) == 2


@pytest.mark.parametrize("documents", [0, WARM, WARM + 1])
def test_a_warming_schema_is_freed_when_dropped(documents: int) -> None:
    # The warming reader holds its schema weakly: a compiled schema holding a reader that holds
    # it would be a cycle, freed only by a collection.
    compiled = _fresh().compile(SCHEMA)
    path = compiled.short_path()
    for _ in range(documents):
        path[4](b'{"q": "x"}')
    del path
    gone = weakref.ref(compiled)
    gc.disable()
    try:
        del compiled
        assert gone() is None
    finally:
        gc.enable()


def test_a_reader_kept_past_its_schema_reads_on_the_general_path() -> None:
    compiled = _fresh().compile(SCHEMA)
    read = compiled.short_path()[4]
    del compiled
    gc.collect()
    for n in range(WARM + 3):
        assert read(b'{"q": "x", "n": %d}' % n) == {"q": "x", "n": n}
    with pytest.raises(engine.ValidationFailed):
        read(b'{"q": 1}')


def test_results_build_no_typed_reader_on_their_first_calls(translations: list[Any]) -> None:
    output = {"type": "object", "properties": {"rows": {"type": "array", "items": SCHEMA}}, "required": ["rows"]}
    tools = engine.compile_tools(
        [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": output}], engine=_fresh()
    )
    rows = [{"q": "x" * 40, "n": n} for n in range(40)]  # long enough for the output schema's reader
    data = json.dumps({"content": [], "structuredContent": {"rows": rows}}).encode()
    for _ in range(WARM + 3):
        assert tools.validate_result("t", data).structured_content == {"rows": rows}
    # Read whole and checked by the backend, a result needs no typed read of its own (the exact
    # path and a refused result's slice read through the output schema's short path).
    for _ in range(WARM):  # refused inline: read again, and explained, through the output schema's reader
        with pytest.raises(engine.ValidationFailed) as failure:
            tools.validate_result("t", data.replace(b'"n": 7', b'"n": -7'))
        assert [issue.instance_path for issue in failure.value.issues] == ["/structuredContent/rows/7/n"]
    assert translations == []


FORM = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "mail": {"type": "string", "format": "email"},
        "size": {"type": "string", "enum": ["s", "m", "l"]},
    },
    "required": ["name"],
}


@pytest.fixture
def form_translations(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    made: list[Any] = []
    translation = engine._mcp.elicitation.msgspec_translation

    def counted(source: SchemaSource) -> Any:
        made.append(source.schema)
        return translation(source)

    monkeypatch.setattr(engine._mcp.elicitation, "msgspec_translation", counted)
    return made


def test_a_form_reads_its_first_answers_on_the_general_path(form_translations: list[Any]) -> None:
    form = engine.compile_elicitation(FORM, engine=_fresh())
    answers = [
        b'{"action": "accept", "content": {"name": "Ada", "size": "m", "extra": 1}}',
        b'{"action": "accept", "content": {"name": "Ada", "mail": "not a mail"}}',
        b'{"action": "accept", "content": {"name": ""}}',
        b'{"action": "decline"}',
        b'{"action": "accept", "content": {"name": "Ada", "mail": "ada@example.org"}}',
        {"action": "accept", "content": {"name": "Bo"}},
        b'{"action": "accept"',
    ]
    reference = engine.compile_elicitation(FORM, engine=engine.Engine(engine.EngineConfig(cache_size=0)))
    reference.decode_result = reference._reader()  # type: ignore[method-assign]  # the built reader from the first
    assert len(form_translations) == 1
    kept = form.decode_result  # a caller keeping the warming reader: it becomes the built one
    for index, answer in enumerate(answers * 3):
        if index == WARM:
            assert len(form_translations) == 1  # the form's first answers built nothing
        expected = _outcome(reference.decode_result, answer)
        assert _outcome(lambda a: form.decode_result(a), answer) == expected, answer
        if index >= WARM:
            assert _outcome(kept, answer) == expected, answer
    assert len(form_translations) == 2  # the form's, once, and the reference's


def test_an_equal_form_asked_for_again_is_the_form_compiled_before(form_translations: list[Any]) -> None:
    eng = engine.Engine()
    form = engine.compile_elicitation(FORM, engine=eng)
    for _ in range(WARM + 1):
        form.decode_result(b'{"action": "accept", "content": {"name": "Ada"}}')
    again = engine.compile_elicitation(json.loads(json.dumps(FORM)), engine=eng)
    assert again is form and len(form_translations) == 1  # an equal copy
    assert again.decode_result(b'{"action": "accept", "content": {"name": "Bo"}}').content == {"name": "Bo"}
    assert len(form_translations) == 1
    assert engine.compile_elicitation({**FORM, "required": []}, engine=eng) is not form
    # Its properties in another order: another form, whose content comes in its own order.
    reordered = {**FORM, "properties": dict(reversed(FORM["properties"].items()))}
    other = engine.compile_elicitation(reordered, engine=eng)
    assert other is not form and other.fields == ("size", "mail", "name")
    assert list(other.schema["properties"]) == ["size", "mail", "name"] and other.schema == FORM
    assert list(form.schema["properties"]) == ["name", "mail", "size"]
    answer = b'{"action": "accept", "content": {"name": "Ada", "size": "s"}}'
    assert list(other.decode_result(answer).content) == ["size", "name"]
    assert list(form.decode_result(answer).content) == ["name", "size"]
    assert engine.compile_elicitation(json.dumps(FORM).encode(), engine=eng) is form  # its text
    for _ in range(2):  # a refused form is refused each time it is asked for
        with pytest.raises(engine.SchemaRejected):
            engine.compile_elicitation({**FORM, "$ref": "#"}, engine=eng)
    other = engine.Engine()
    assert engine.compile_elicitation(FORM, engine=other) is not form  # forms belong to their engine
    uncached = engine.Engine(engine.EngineConfig(cache_size=0))
    assert engine.compile_elicitation(FORM, engine=uncached) is not engine.compile_elicitation(FORM, engine=uncached)


def test_threads_asking_for_the_short_path_at_once_get_one(monkeypatch: pytest.MonkeyPatch) -> None:
    # Callers keep the list: two made for one schema would each warm up and build its reader.
    make = engine._compiled.CompiledSchema._warming_path

    def slow(self: Any) -> Any:
        time.sleep(0.01)  # the other threads ask meanwhile
        return make(self)

    monkeypatch.setattr(engine._compiled.CompiledSchema, "_warming_path", slow)
    compiled = _fresh().compile(SCHEMA)
    start = threading.Barrier(6)
    paths: list[Any] = []

    def ask() -> None:
        start.wait()
        paths.append(compiled.short_path())

    threads = [threading.Thread(target=ask) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(paths) == 6 and all(path is paths[0] for path in paths)

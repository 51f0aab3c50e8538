"""Choosing a backend by configuration; what happens when its package is missing; the same
error shape whichever backend ran."""

from __future__ import annotations

import importlib.util
import re
import sys

import pytest

import engine
from engine.backends import BACKENDS, BackendRefused, auto_order
from tests.corpus import corpus

PYTHON_BACKENDS = {"fastjsonschema": "fastjsonschema", "jsonschema": "jsonschema"}


@pytest.mark.parametrize("backend", ["jsonschema-rs", "fastjsonschema", "jsonschema"])
def test_backend_is_chosen_by_keyword_environment_and_toml(backend: str, tmp_path: pytest.TempPathFactory) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    by_keyword = engine.Engine(backend=backend)
    by_env = engine.Engine(engine.EngineConfig.load(env={"ENGINE_BACKEND": backend}))
    toml = tmp_path / "pyproject.toml"  # type: ignore[operator]
    toml.write_text(f'[tool.engine]\nbackend = "{backend}"\n')
    by_toml = engine.Engine(engine.EngineConfig.load(toml, env={}))
    for eng in (by_keyword, by_env, by_toml):
        cs = eng.compile(schema)
        assert cs.backend == backend
        assert cs.is_valid({"n": 1}) and not cs.is_valid({"n": "1"})


@pytest.mark.parametrize(("backend", "module"), PYTHON_BACKENDS.items())
def test_missing_package_names_the_package_and_the_extra(
    backend: str, module: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry = BACKENDS[backend]
    monkeypatch.setitem(sys.modules, module, None)  # `import module` now raises ImportError
    monkeypatch.delitem(sys.modules, importlib.util.resolve_name(entry.module, "engine.backends"), raising=False)
    with pytest.raises(engine.BackendUnavailable) as missing:
        engine.Engine(backend=backend)
    assert f"'{entry.package}'" in missing.value.message
    assert f"pip install 'engine[{entry.extra}]'" in missing.value.message
    # auto goes on without it, and says why.
    eng = engine.Engine(backend="auto")
    assert backend in eng.unavailable
    assert eng.compile({"type": "string"}).is_valid("x")


def test_auto_prefers_the_first_exact_backend_and_explains_the_others() -> None:
    assert auto_order() == ("msgspec", "jsonschema-rs", "fastjsonschema", "jsonschema")
    eng = engine.Engine(backend="auto")
    simple = eng.compile({"type": "string"})
    assert simple.backend == "msgspec" and simple.notes == {}
    composed = eng.compile({"allOf": [{"type": "string"}, {"maxLength": 3}]})
    assert composed.backend == "jsonschema-rs"
    assert "allOf" in composed.notes["msgspec"]


def test_refusal_is_explained_and_auto_moves_on(monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.backends as registry

    # With the Python backends first, a schema fastjsonschema cannot honour goes to the next one.
    reordered = {name: BACKENDS[name] for name in ("fastjsonschema", "jsonschema", "jsonschema-rs", "msgspec")}
    monkeypatch.setattr(registry, "BACKENDS", reordered)
    eng = engine.Engine(backend="auto")
    cs = eng.compile({"type": "object", "unevaluatedProperties": False, "properties": {"a": {}}})
    assert cs.backend == "jsonschema"
    assert "unevaluatedProperties" in cs.notes["fastjsonschema"]
    cs = eng.compile({"type": "string", "pattern": "^\\p{L}+$"})
    assert cs.backend == "jsonschema-rs"
    assert set(cs.notes) == {"fastjsonschema", "jsonschema"}
    assert all("\\p{" in why for why in cs.notes.values())
    assert cs.is_valid("été") and not cs.is_valid("1")


def test_a_chosen_backend_that_refuses_raises_with_the_reason() -> None:
    eng = engine.Engine(backend="fastjsonschema")
    with pytest.raises(BackendRefused) as refused:
        eng.compile({"unevaluatedProperties": False})
    assert refused.value.reason == "unsupported-by-backend"
    assert refused.value.backend == "fastjsonschema"
    assert "unevaluatedProperties" in refused.value.message
    assert isinstance(refused.value, engine.SchemaRejected)


@pytest.mark.parametrize("form", ["date", "email", "uuid", "regex"])
def test_python_jsonschema_refuses_to_assert_a_format_it_asserts_otherwise(form: str) -> None:
    # Python's datetime refuses `0000-01-01`, which RFC 3339 (and jsonschema-rs) accept.
    eng = engine.Engine(backend="jsonschema", formats="assert", cache_size=0)
    with pytest.raises(BackendRefused) as refused:
        eng.compile({"format": form})
    assert refused.value.backend == "jsonschema" and repr(form) in refused.value.message
    assert engine.Engine(formats="assert", cache_size=0).compile({"format": "date"}).is_valid("0000-02-29")


POINTER = re.compile(r"^(/([^~/]|~[01])*)*$")


def issue_locations(backend: str) -> dict[str, list[set[tuple[str, str]]]]:
    # A generous time budget: the issue lists are compared whole, and a loaded machine must not cut
    # one backend's explanation short (the work budget, which is deterministic, still applies).
    eng = engine.Engine(backend=backend, limits={"max_explain_seconds": 120.0})
    found: dict[str, list[set[tuple[str, str]]]] = {}
    for item in corpus():
        try:
            cs = eng.compile(item.schema)
        except engine.SchemaRejected:
            continue
        per_instance = []
        for instance in item.instances:
            try:
                cs.validate(instance)
                per_instance.append(set())
            except engine.ValidationFailed as failure:
                for issue in failure.issues:
                    assert isinstance(issue, engine.Issue)
                    assert POINTER.match(issue.instance_path) and POINTER.match(issue.keyword_location)
                    assert issue.message and issue.keyword
                per_instance.append({(i.instance_path, i.keyword_location) for i in failure.issues})
        found[item.id] = per_instance
    return found


def test_issues_have_the_same_shape_and_locations_whichever_backend_ran() -> None:
    reference = issue_locations("jsonschema-rs")
    for backend in ("msgspec", "fastjsonschema", "jsonschema"):
        got = issue_locations(backend)
        # Under a single backend a schema it refuses is rejected; the others must match.
        assert got.keys() <= reference.keys() and len(got) > 100
        different = [key for key in got if got[key] != reference[key]]
        assert not different, different[:10]
    assert sum(len(s) > 0 for v in reference.values() for s in v) > 1000


def test_choosing_python_jsonschema_gets_its_own_explanations() -> None:
    schema = {
        "type": "object",
        "required": ["z"],
        "properties": {"a": {"$ref": "#/$defs/n"}},
        "$defs": {"n": {"type": "integer"}},
    }
    with pytest.raises(engine.ValidationFailed) as reference:
        engine.Engine(backend="jsonschema").compile(schema).validate({"a": "x"})
    with pytest.raises(engine.ValidationFailed) as general:
        engine.Engine(backend="jsonschema-rs").compile(schema).validate({"a": "x"})
    # python-jsonschema's wording, the engine's locations (through the $ref).
    assert {i.message for i in reference.value.issues} == {"'z' is a required property", "'x' is not of type 'integer'"}
    assert {i.keyword_location for i in reference.value.issues} == {"/required", "/properties/a/$ref/type"}
    assert {(i.instance_path, i.keyword_location, i.keyword) for i in reference.value.issues} == {
        (i.instance_path, i.keyword_location, i.keyword) for i in general.value.issues
    }

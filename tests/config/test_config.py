"""EngineConfig: keyword arguments over environment over TOML, validated field by field."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

import engine
from engine import ConfigError, EngineConfig
from engine.backends import backend_names


def test_defaults() -> None:
    config = EngineConfig()
    assert (config.backend, config.default_dialect, config.formats) == ("auto", "2020-12", "annotate")
    assert config.cache_size > 0 and not config.fetch.enabled


def test_precedence_kwargs_over_env_over_toml(tmp_path: Path) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(
        '[project]\nname = "x"\n\n[tool.engine]\nbackend = "jsonschema-rs"\nformats = "assert"\ncache_size = 7\n'
        "[tool.engine.limits]\nmax_schema_depth = 10\nmax_issues = 5\n"
    )
    env = {"ENGINE_FORMATS": "annotate", "ENGINE_LIMITS_MAX_SCHEMA_DEPTH": "20", "PATH": "/bin"}
    config = EngineConfig.load(pyproject, env=env, cache_size=9)
    assert config.backend == "jsonschema-rs"  # TOML only
    assert config.formats == "annotate"  # env over TOML
    assert config.cache_size == 9  # kwargs over TOML
    assert config.limits.max_schema_depth == 20  # env over TOML, nested
    assert config.limits.max_issues == 5  # TOML, nested, untouched by env


def test_own_toml_file_uses_top_level(tmp_path: Path) -> None:
    path = tmp_path / "engine.toml"
    path.write_text('default_dialect = "draft7"\n[fetch]\nenabled = true\nallow_hosts = ["schemas.example"]\n')
    config = EngineConfig.load(path, env={})
    assert config.default_dialect == "draft7"
    assert config.fetch.enabled and config.fetch.allow_hosts == ("schemas.example",)


def test_env_lists_and_bools() -> None:
    config = EngineConfig.load(env={"ENGINE_FETCH_ALLOW_HOSTS": "a.example, b.example", "ENGINE_FETCH_ENABLED": "true"})
    assert config.fetch.allow_hosts == ("a.example", "b.example") and config.fetch.enabled


@pytest.mark.parametrize(
    ("kwargs", "field", "message"),
    [
        ({"backend": "nope"}, "backend", "backend: 'nope' is not one of " + ", ".join(backend_names())),
        ({"default_dialect": "draft3"}, "default_dialect", "default_dialect: 'draft3' is not one of 2020-12, 2019-09"),
        ({"formats": "strict"}, "formats", "formats: 'strict' is not one of annotate, assert"),
        ({"cache_size": "many"}, "cache_size", "cache_size: 'many' is not an integer >= 0"),
        ({"cache_size": -5}, "cache_size", "cache_size: -5 is not an integer >= 0"),
        ({"cache_size": True}, "cache_size", "cache_size: True is not an integer >= 0"),
        ({"allow_empty_input_schema": "yes"}, "allow_empty_input_schema", "'yes' is not true or false"),
        ({"backtrack_limit": 0}, "backtrack_limit", "backtrack_limit: 0 is not an integer >= 1"),
        ({"limits": {"max_schema_depth": -1}}, "limits.max_schema_depth", "limits.max_schema_depth: -1 is not"),
        ({"limits": {"max_explain_seconds": 0}}, "limits.max_explain_seconds", "0 is not a number > 0"),
        ({"fetch": {"allow_hosts": "a.example"}}, "fetch.allow_hosts", "'a.example' is not a list of strings"),
        ({"fetch": {"total_timeout": float("nan")}}, "fetch.total_timeout", "nan is not a number > 0"),
        ({"limits": 5}, "limits", "limits: 5 is not a table of Limits fields"),
    ],
)
def test_every_field_is_checked_on_construction(kwargs: dict[str, object], field: str, message: str) -> None:
    """The same sentence whether the object is built directly or loaded; it names the field and
    the allowed values, and the error is typed with a machine-readable reason."""
    with pytest.raises(ConfigError) as loaded:
        EngineConfig.load(False, env={}, **kwargs)
    assert message in loaded.value.message and loaded.value.field == field
    assert loaded.value.reason == "invalid-config" and isinstance(loaded.value, engine.EngineError)
    assert loaded.value.to_dict()["allowed"]
    if field.startswith(("limits.", "fetch.")):
        section, name = field.split(".")
        struct = engine.Limits if section == "limits" else engine.FetchConfig
        value = kwargs[section][name]  # type: ignore[index]
        with pytest.raises(ConfigError) as direct:
            struct(**{name: value})
        assert direct.value.field == field and message.split(": ", 1)[-1] in direct.value.message
        with pytest.raises(ConfigError) as table:  # the section as a table of its fields
            EngineConfig(**kwargs)  # type: ignore[arg-type]
        assert table.value.field == field and table.value.message == direct.value.message
    elif field != "limits":
        with pytest.raises(ConfigError) as direct:
            EngineConfig(**kwargs)  # type: ignore[arg-type]
        assert direct.value.message == loaded.value.message


def test_backend_names_come_from_the_registry() -> None:
    from engine._config import backend_names
    from engine.backends import BACKENDS

    assert backend_names() == ("auto", *BACKENDS)
    for name in backend_names():
        assert EngineConfig(backend=name).backend == name


def test_unknown_setting_is_named() -> None:
    with pytest.raises(ConfigError, match=r"^unknown: unknown setting; the top-level settings are backend, "):
        EngineConfig.load(False, env={}, unknown=1)
    with pytest.raises(ConfigError, match=r"^limits.max_depth: unknown setting; the limits settings are "):
        EngineConfig.load(False, env={}, limits={"max_depth": 1})


def test_environment_errors_name_the_variable() -> None:
    cases = {
        "ENGINE_FORMATS": ("bogus", "ENGINE_FORMATS: 'bogus' is not one of annotate, assert"),
        "ENGINE_CACHE_SIZE": ("-5", "ENGINE_CACHE_SIZE: '-5' is not an integer >= 0"),
        "ENGINE_LIMITS_MAX_ISSUES": ("lots", "ENGINE_LIMITS_MAX_ISSUES: 'lots' is not an integer >= 1"),
        "ENGINE_FETCH_ENABLED": ("maybe", "ENGINE_FETCH_ENABLED: 'maybe' is not true or false"),
    }
    for variable, (raw, message) in cases.items():
        with pytest.raises(ConfigError) as info:
            EngineConfig.load(False, env={variable: raw})
        assert info.value.message == message
        assert info.value.source == "environment"


def test_toml_errors_name_the_file_and_key(tmp_path: Path) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.engine]\nformats = "bogus"\n')
    with pytest.raises(ConfigError) as info:
        EngineConfig.load(pyproject, env={})
    assert info.value.message == f"{pyproject} [tool.engine] formats: 'bogus' is not one of annotate, assert"
    own = tmp_path / "engine.toml"
    own.write_text("[limits]\nmax_issues = -1\n")
    with pytest.raises(ConfigError) as info:
        EngineConfig.load(own, env={})
    assert info.value.message == f"{own} limits.max_issues: -1 is not an integer >= 1"


def test_direct_construction_takes_a_section_as_a_table_of_its_fields() -> None:
    assert EngineConfig(limits={"max_issues": 5}) == EngineConfig(limits=engine.Limits(max_issues=5))  # type: ignore[arg-type]
    fetch = EngineConfig(fetch={"enabled": True, "allow_hosts": ["a.example"]})  # type: ignore[arg-type]
    assert fetch.fetch == engine.FetchConfig(enabled=True, allow_hosts=("a.example",)) and hash(fetch)
    with pytest.raises(ConfigError) as unknown:
        EngineConfig(limits={"max_isues": 5})  # type: ignore[arg-type]
    assert unknown.value.field == "limits.max_isues" and "unknown setting" in unknown.value.message
    with pytest.raises(ConfigError) as keyed:
        EngineConfig(limits={1: 5})  # type: ignore[arg-type]
    assert keyed.value.field == "limits" and "is not a Limits (or a table of its fields)" in keyed.value.message


def test_direct_construction_normalises_sequences_and_numbers() -> None:
    fetch = engine.FetchConfig(allow_hosts=["a.example"], connect_timeout=2)  # type: ignore[arg-type]
    assert fetch.allow_hosts == ("a.example",) and isinstance(fetch.connect_timeout, float)
    assert hash(EngineConfig(fetch=fetch))  # frozen and hashable


def test_unknown_env_setting_warns_not_fails() -> None:
    with pytest.warns(UserWarning, match="ENGINE_COLOUR"):
        config = EngineConfig.load(env={"ENGINE_COLOUR": "blue"})
    assert config == EngineConfig()


def test_unreadable_toml(tmp_path: Path) -> None:
    bad = tmp_path / "engine.toml"
    bad.write_text("backend = ")
    with pytest.raises(ConfigError, match=r"engine.toml: cannot be read as TOML \(Invalid value"):
        EngineConfig.load(bad, env={})
    with pytest.raises(ConfigError, match=r"missing.toml: cannot be read as TOML \(No such file or directory\)"):
        EngineConfig.load(tmp_path / "missing.toml", env={})


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (b"\xff", "not UTF-8 text: byte 0 cannot start a character"),
        (b"cache_size = " + b"1" * 5000, "a number with more digits than this interpreter reads"),
        (b"x = " + b"[" * 5000 + b"]" * 5000, "arrays or tables nested too deeply to read"),
    ],
)
def test_a_file_no_toml_parser_reads_is_a_config_error(tmp_path: Path, text: bytes, why: str) -> None:
    for name in ("engine.toml", "pyproject.toml"):
        path = tmp_path / name
        path.write_bytes(text)
        with pytest.raises(ConfigError) as info:
            EngineConfig.load(path, env={})
        assert info.value.message == f"{path}: cannot be read as TOML ({why})"


def test_a_pyproject_whose_tool_is_no_table_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    for text in ("tool = 1\n", "[tool]\nengine = 5\n"):
        path.write_text(text)
        with pytest.raises(ConfigError, match=r"\[tool.engine\]: must be a table"):
            EngineConfig.load(path, env={})


def test_engine_reads_kwargs_and_replace() -> None:
    eng = engine.Engine(default_dialect="draft7", formats="assert")
    assert eng.config.default_dialect == "draft7" and eng.config.assert_formats
    assert eng.config.replace(formats="annotate").formats == "annotate"
    assert engine.Engine(EngineConfig(), cache_size=3).config.cache_size == 3


def test_nearest_pyproject_with_tool_engine_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.engine]\nformats = "assert"\n')
    inner = tmp_path / "pkg" / "sub"
    inner.mkdir(parents=True)
    # A pyproject.toml without [tool.engine] on the way up is passed over, as ruff and mypy do.
    (tmp_path / "pkg" / "pyproject.toml").write_text('[project]\nname = "inner"\n')
    monkeypatch.chdir(inner)
    assert EngineConfig.load(env={}).formats == "assert"
    assert engine.Engine(EngineConfig.load(env={})).config.assert_formats
    assert EngineConfig.load(False, env={}).formats == "annotate"  # discovery off
    assert EngineConfig.load(env={"ENGINE_FORMATS": "annotate"}).formats == "annotate"  # env over the file
    own = tmp_path / "engine.toml"
    own.write_text('backend = "jsonschema-rs"\n')
    named = EngineConfig.load(own, env={})
    assert (named.backend, named.formats) == ("jsonschema-rs", "annotate")  # a named file replaces discovery


def test_resolve_says_where_each_value_came_from(tmp_path: Path) -> None:
    from engine._config import find_pyproject, resolve

    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.engine]\nformats = "assert"\n[tool.engine.limits]\nmax_issues = 7\n')
    (tmp_path / "a").mkdir()
    assert find_pyproject(tmp_path / "a") == pyproject
    resolved = resolve(env={"ENGINE_CACHE_SIZE": "3"}, cwd=tmp_path / "a", backend="jsonschema-rs")
    assert resolved.file == str(pyproject) and resolved.searched_from == str(tmp_path / "a")
    assert resolved.sources["formats"] == resolved.sources["limits.max_issues"] == f"{pyproject} [tool.engine]"
    assert resolved.sources["cache_size"] == "ENGINE_CACHE_SIZE"
    assert resolved.sources["backend"] == "keyword"
    assert resolved.sources["regex"] == resolved.sources["fetch.enabled"] == "default"
    assert resolved.config.limits.max_issues == 7 and resolved.config.cache_size == 3
    nothing = resolve(env={}, cwd="/")
    assert nothing.file is None and set(nothing.sources.values()) == {"default"}


def test_replace_checks_only_what_changes_and_merges_sections() -> None:
    base = EngineConfig(limits=engine.Limits(max_issues=5))
    copy = base.replace(formats="assert", limits={"max_schema_depth": 9})
    assert (copy.formats, copy.limits.max_schema_depth, copy.limits.max_issues) == ("assert", 9, 5)
    with pytest.raises(ConfigError, match=r"^limits.max_issues: -1 is not an integer >= 1$"):
        base.replace(limits={"max_issues": -1})
    with pytest.raises(ConfigError, match=r"^regex: 'fast' is not one of linear, backtracking$"):
        base.replace(regex="fast")


@pytest.mark.parametrize(
    ("name", "why"),
    [("a\x00b.toml", "the path holds a NUL character"), ("\ud800.toml", "no file name here can spell")],
)
def test_a_path_no_file_can_have_is_said_so(name: str, why: str) -> None:
    with pytest.raises(ConfigError) as info:
        EngineConfig.load(name, env={})
    assert why in info.value.message and repr(name) in info.value.message
    assert info.value.message.isprintable()  # the path quoted with escapes


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_a_named_pipe_no_one_writes_to_is_read_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "engine.toml"
    os.mkfifo(fifo)
    found: list[object] = []
    reader = threading.Thread(target=lambda: found.append(EngineConfig.load(fifo, env={})), daemon=True)
    reader.start()
    reader.join(20)
    if reader.is_alive():  # held in `open`: a writer's open lets it go, so the thread ends
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(5)
        pytest.fail("EngineConfig.load waited for a writer on a named pipe")
    assert found == [EngineConfig()]  # no writer: an empty file, the defaults


@pytest.mark.parametrize("field", ["max_validation_work", "max_explain_work", "max_instance_bytes"])
def test_an_integer_setting_past_a_machine_word_is_refused(field: str) -> None:
    with pytest.raises(ConfigError) as info:
        EngineConfig(limits={field: 10**400})
    assert info.value.message.endswith(" and <= 9223372036854775807"), info.value.message
    variable = f"ENGINE_LIMITS_{field.upper()}"
    with pytest.raises(ConfigError, match=variable):
        EngineConfig.load(False, env={variable: "9" * 400})
    assert getattr(EngineConfig(limits={field: 2**63 - 1}).limits, field) == 2**63 - 1


def test_the_largest_validation_work_compiles_on_every_backend() -> None:
    for backend in backend_names():
        compiled = engine.Engine(engine.EngineConfig(backend=backend, limits={"max_validation_work": 2**63 - 1}))
        assert compiled.compile({"type": "integer"}).is_valid(3)

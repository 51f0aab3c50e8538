"""EngineConfig: keyword arguments over environment over TOML, validated field by field."""

from __future__ import annotations

from pathlib import Path

import pytest

import engine
from engine import ConfigError, EngineConfig


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
    "kwargs",
    [{"backend": "nope"}, {"default_dialect": "draft3"}, {"formats": "strict"}, {"cache_size": "many"}, {"unknown": 1}],
)
def test_bad_values_are_config_errors(kwargs: dict[str, object]) -> None:
    with pytest.raises(ConfigError) as info:
        EngineConfig.load(env={}, **kwargs)
    assert isinstance(info.value, engine.EngineError)
    assert "invalid engine configuration" in str(info.value)


def test_unknown_env_setting_warns_not_fails() -> None:
    with pytest.warns(UserWarning, match="ENGINE_COLOUR"):
        config = EngineConfig.load(env={"ENGINE_COLOUR": "blue"})
    assert config == EngineConfig()


def test_unreadable_toml(tmp_path: Path) -> None:
    bad = tmp_path / "engine.toml"
    bad.write_text("backend = ")
    with pytest.raises(ConfigError):
        EngineConfig.load(bad, env={})
    with pytest.raises(ConfigError):
        EngineConfig.load(tmp_path / "missing.toml", env={})


def test_engine_reads_kwargs_and_replace() -> None:
    eng = engine.Engine(default_dialect="draft7", formats="assert")
    assert eng.config.default_dialect == "draft7" and eng.config.assert_formats
    assert eng.config.replace(formats="annotate").formats == "annotate"
    assert engine.Engine(EngineConfig(), cache_size=3).config.cache_size == 3

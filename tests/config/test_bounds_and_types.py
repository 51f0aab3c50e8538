"""Wrong types, unknown fields and values past what native code takes: a ConfigError, at once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

import engine
from engine import ConfigError, EngineConfig, FetchConfig, Limits
from engine._config import engine_config

# The depth bounds: native code and Python's encoders recurse once a level (a list 1,500 deep
# raised a bare `RecursionError` where `max_instance_depth` allowed it).
DEPTHS = ("max_document_depth", "max_schema_depth", "max_eval_depth", "max_instance_depth")


@pytest.mark.parametrize(
    ("section", "name", "value", "allowed"),
    [
        ("", "backtrack_limit", 2**64, "an integer >= 1 and <= 4294967295"),
        ("", "backtrack_limit", 2**32, "an integer >= 1 and <= 4294967295"),
        ("fetch", "total_timeout", 1e308, "a number > 0 and <= 86400"),
        ("fetch", "total_timeout", 10**400, "a number > 0 and <= 86400"),
        ("fetch", "connect_timeout", 1e308, "a number > 0 and <= 86400"),
        ("fetch", "connect_timeout", float("inf"), "a number > 0 and <= 86400"),
        ("limits", "max_explain_seconds", 1e308, "a number > 0 and <= 86400"),
        ("limits", "max_explain_seconds", 86_400.5, "a number > 0 and <= 86400"),
        *(("limits", depth, 513, f"an integer >= {int(depth != 'max_instance_depth')} and <= 512") for depth in DEPTHS),
    ],
    ids=[
        "backtrack_limit-2**64",
        "backtrack_limit-2**32",
        "total_timeout-1e308",
        "total_timeout-10**400",
        "connect_timeout-1e308",
        "connect_timeout-inf",
        "max_explain_seconds-1e308",
        "max_explain_seconds-over-a-day",
        *(f"{depth}-513" for depth in DEPTHS),
    ],
)
def test_values_past_what_native_code_takes_are_refused(section: str, name: str, value: Any, allowed: str) -> None:
    """The backtrack limit reaches jsonschema-rs as a machine word and a timeout reaches the clock,
    sockets and locks: past their range they raised OverflowError at every compile (or fetch, or
    explanation); now the configuration is refused, from every source, naming the range."""
    dotted = f"{section}.{name}" if section else name
    keyword: dict[str, Any] = {section: {name: value}} if section else {name: value}
    variable = f"ENGINE_{section.upper()}_{name.upper()}" if section else f"ENGINE_{name.upper()}"
    attempts = [
        lambda: EngineConfig.load(False, env={}, **keyword),
        lambda: EngineConfig.load(False, env={variable: repr(value)}),
        lambda: engine.Engine(**keyword),
        lambda: (Limits if section == "limits" else FetchConfig if section else EngineConfig)(**{name: value}),
    ]
    for attempt in attempts:
        with pytest.raises(ConfigError) as refused:
            attempt()
        assert refused.value.field == dotted and refused.value.allowed == allowed
        assert refused.value.message.endswith(f"is not {allowed}")


@pytest.mark.parametrize("text", ["1_000", "١٢", "+ 5", "0x10", "1e3"])
def test_an_integer_from_the_environment_is_ascii_digits(text: str) -> None:
    # `int()` reads underscores and the digits of every script: the environment spells digits.
    with pytest.raises(ConfigError) as refused:
        EngineConfig.load(False, env={"ENGINE_LIMITS_MAX_ISSUES": text})
    assert refused.value.field == "limits.max_issues"
    assert EngineConfig.load(False, env={"ENGINE_LIMITS_MAX_ISSUES": " 7 "}).limits.max_issues == 7


@pytest.mark.parametrize("setting", ["ENGINE_CACHE_SIZE", "ENGINE_LIMITS_MAX_ISSUES", "ENGINE_BACKTRACK_LIMIT"])
def test_an_integer_from_the_environment_past_the_digits_python_reads(setting: str) -> None:
    # `int()` refuses more than 4300 digits with a ValueError: a setting refuses them with a reason.
    with pytest.raises(ConfigError) as refused:
        EngineConfig.load(False, env={setting: "9" * 4301})
    assert refused.value.reason == "invalid-config"
    assert refused.value.message.startswith(setting)


@pytest.mark.parametrize("text", ["1_0", "nan", "inf", "٠.5", "0x1p-2"])
def test_a_number_from_the_environment_is_ascii_digits(text: str) -> None:
    with pytest.raises(ConfigError) as refused:
        EngineConfig.load(False, env={"ENGINE_LIMITS_MAX_EXPLAIN_SECONDS": text})
    assert refused.value.field == "limits.max_explain_seconds"
    loaded = EngineConfig.load(False, env={"ENGINE_LIMITS_MAX_EXPLAIN_SECONDS": "2.5e-1"})
    assert loaded.limits.max_explain_seconds == 0.25


# Each limit's smallest value, where zero refused every schema (or every instance, or fetched
# document) or listed a made-up issue; the other counts take 0 ("none").
SMALLEST = {
    "max_schema_bytes": 2,
    "max_document_depth": 1,
    "max_schema_depth": 1,
    "max_subschemas": 1,
    "max_ref_expansion": 1,
    "max_eval_depth": 1,
    "max_instance_bytes": 1,
    "max_issues": 1,
}


def _every_source(section: str, name: str, value: int) -> list[Any]:
    """Building a configuration with ``section.name = value``, each way one arrives."""
    struct = Limits if section == "limits" else FetchConfig
    variable = f"ENGINE_{section.upper()}_{name.upper()}"
    return [
        lambda: EngineConfig.load(False, env={}, **{section: {name: value}}),
        lambda: EngineConfig.load(False, env={variable: str(value)}),
        lambda: engine.Engine(**{section: {name: value}}),
        lambda: EngineConfig().replace(**{section: {name: value}}),
        lambda: EngineConfig(**{section: {name: value}}),
        lambda: struct(**{name: value}),
    ]


@pytest.mark.parametrize(
    ("section", "name", "smallest"), [*(("limits", n, v) for n, v in SMALLEST.items()), ("fetch", "max_bytes", 2)]
)
def test_values_below_a_limits_smallest_are_refused_from_every_source(section: str, name: str, smallest: int) -> None:
    """`limits={"max_issues": 0}` was accepted, and an invalid instance then failed with one
    made-up issue (no keyword, "instance is invalid"); a zero byte, depth or count bound
    refused every schema or instance. Now the configuration is refused, naming the range."""
    maximum = engine._config_values.MAXIMUM.get(name)
    allowed = f"an integer >= {smallest}" + (f" and <= {maximum:.0f}" if maximum is not None else "")
    for value in (smallest - 1, -1):
        for attempt in _every_source(section, name, value):
            with pytest.raises(ConfigError) as refused:
                attempt()
            assert refused.value.field == f"{section}.{name}" and refused.value.allowed == allowed
            assert refused.value.message.endswith((f" {value} is not {allowed}", f" '{value}' is not {allowed}"))
    assert getattr(getattr(EngineConfig(**{section: {name: smallest}}), section), name) == smallest


def test_the_smallest_limits_still_compile_and_explain() -> None:
    smallest = engine.Engine(limits=SMALLEST, cache_size=0)
    compiled = smallest.compile({})
    assert compiled.decode(b"0") == 0
    with pytest.raises(engine.ValidationFailed) as failed:
        engine.Engine(limits={"max_issues": 1}).compile({"type": "string"}).validate(1)
    (issue,) = failed.value.issues
    assert issue.keyword == "type" and not failed.value.truncated


def test_the_largest_values_accepted_work() -> None:
    eng = engine.Engine(regex="backtracking", backtrack_limit=2**32 - 1, cache_size=0)
    compiled = eng.compile({"type": "string", "pattern": "^(?=a)a+$"})
    assert compiled.is_valid("aa") and not compiled.is_valid("b")
    slow = engine.Engine(limits={"max_explain_seconds": 86_400}, cache_size=0)
    with pytest.raises(engine.ValidationFailed):  # the explanation's budget is computed from it
        slow.compile({"type": "object", "properties": {"a": {"type": "string"}}}).validate({"a": 1})
    fetch = FetchConfig(connect_timeout=86_400, total_timeout=86_400)
    assert (fetch.connect_timeout, fetch.total_timeout) == (86_400.0, 86_400.0)


@pytest.mark.parametrize(
    ("build", "field", "message"),
    [
        (lambda: EngineConfig(bogus=1), "bogus", "bogus: unknown setting; the top-level settings are backend, "),
        (lambda: Limits(bogus=1), "limits.bogus", "limits.bogus: unknown setting; the limits settings are max_"),
        (lambda: FetchConfig(bogus=1), "fetch.bogus", "fetch.bogus: unknown setting; the fetch settings are enabled, "),
        (lambda: EngineConfig("x"), None, "EngineConfig takes its settings as keyword arguments, not 1 by position"),
        (lambda: Limits(5, 6), None, "Limits takes its settings as keyword arguments, not 2 by position"),
    ],
)
def test_unknown_fields_and_positional_arguments_are_config_errors(build: Any, field: str | None, message: str) -> None:
    """As `Engine(bogus=1)` and `EngineConfig.load(bogus=1)` say it (msgspec raised a TypeError)."""
    with pytest.raises(ConfigError) as refused:
        build()
    assert refused.value.message.startswith(message)
    assert refused.value.field == field and refused.value.reason == "invalid-config"
    assert refused.value.allowed and ", " in refused.value.allowed  # the settings there are
    if field == "bogus":
        with pytest.raises(ConfigError) as by_engine:
            engine.Engine(bogus=1)  # type: ignore[call-arg]
        assert by_engine.value.message.startswith(message)


TOP_LEVEL = (
    "backend, default_dialect, formats, cache_size, cache_bytes, regex, backtrack_limit, allow_empty_input_schema, "
    "limits, fetch"
)


def test_an_unknown_setting_lists_the_same_settings_however_the_configuration_arrives(tmp_path: Path) -> None:
    """`EngineConfig(bogus=1)` listed `limits` and `fetch` among the top-level settings, while
    `Engine(None, bogus=1)`, `config.replace(bogus=1)` and a TOML file left them out."""
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text("[tool.engine]\nbogus = 1\n")
    own = tmp_path / "engine.toml"
    own.write_text("bogus = 1\n")
    attempts = {
        "EngineConfig": lambda: EngineConfig(bogus=1),
        "Engine": lambda: engine.Engine(None, bogus=1),  # type: ignore[call-arg]
        "replace": lambda: EngineConfig().replace(bogus=1),  # type: ignore[call-arg]
        "load": lambda: EngineConfig.load(False, env={}, bogus=1),  # type: ignore[call-arg]
        "pyproject": lambda: EngineConfig.load(pyproject, env={}),
        "own file": lambda: EngineConfig.load(own, env={}),
    }
    for how, attempt in attempts.items():
        with pytest.raises(ConfigError) as refused:
            attempt()
        assert refused.value.message.endswith(f"bogus: unknown setting; the top-level settings are {TOP_LEVEL}"), how
        assert refused.value.allowed == TOP_LEVEL and refused.value.field == "bogus", how


def test_the_structs_still_build_copy_and_pickle() -> None:
    import copy
    import pickle

    config = EngineConfig(formats="assert", limits=Limits(max_issues=3), fetch=FetchConfig(max_redirects=1))
    assert pickle.loads(pickle.dumps(config)) == config
    assert copy.deepcopy(config) == config
    assert msgspec.structs.replace(config, cache_size=2).cache_size == 2
    assert config.replace(limits={"max_issues": 4}).limits.max_issues == 4


@pytest.mark.parametrize(
    ("config", "instead"),
    [
        ("x", "build one with EngineConfig(...) or EngineConfig.load()"),
        (5, "build one with EngineConfig(...) or EngineConfig.load()"),
        (Limits(), "pass it by name: Engine(limits=Limits(...))"),
        (FetchConfig(), "pass it by name: Engine(fetch=FetchConfig(...))"),
        ({}, "pass settings as keyword arguments: Engine(**settings)"),
        ({"formats": "assert"}, "pass settings as keyword arguments: Engine(**settings)"),
    ],
)
def test_an_engines_config_must_be_an_engine_config(config: Any, instead: str) -> None:
    """What `Engine(config, **overrides)` runs with: anything but an EngineConfig (or None) is a
    ConfigError saying what to pass, not an AttributeError later, nor `{}` read as the defaults."""
    with pytest.raises(ConfigError) as refused:
        engine_config(config, {})
    assert refused.value.message.startswith("config: ") and instead in refused.value.message
    assert "is not an EngineConfig; " in refused.value.message


def test_engine_config_applies_overrides() -> None:
    assert engine_config(None, {}) == EngineConfig()
    assert engine_config(None, {"formats": "assert"}).formats == "assert"
    base = EngineConfig(cache_size=3)
    assert engine_config(base, {}) is base
    assert engine_config(base, {"limits": {"max_issues": 2}}).limits.max_issues == 2
    with pytest.raises(ConfigError, match=r"^bogus: unknown setting"):
        engine_config(base, {"bogus": 1})


@pytest.mark.parametrize(
    "kwargs",
    [
        {"cache_size": -(10**5000)},
        {"backend": "x" * 1_000_000},
        {"limits": {"max_issues": ["x" * 1_000_000] * 1000}},
        {"fetch": {"allow_hosts": [["x"] * 1000] * 1000}},
        {"limits": "x" * 1_000_000},
    ],
)
def test_refused_values_are_shown_shortened(kwargs: dict[str, Any]) -> None:
    """A value is shown in a few dozen characters: an int past 4300 digits made `repr` raise
    ValueError, and a long one made a message as long."""
    with pytest.raises(ConfigError) as refused:
        EngineConfig.load(False, env={}, **kwargs)
    assert len(refused.value.message) < 600


def test_load_checks_its_own_arguments() -> None:
    with pytest.raises(ConfigError, match=r"^toml: 123 is not the path of a TOML file"):
        EngineConfig.load(123, env={})  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"^env: \[\(\.\.\.\)\] is not a mapping of environment"):
        EngineConfig.load(False, env=[("ENGINE_FORMATS", "assert")])  # type: ignore[arg-type]
    # A key that is not a string names no ENGINE_* variable: passed over, as other programs' are.
    assert EngineConfig.load(False, env={1: "x", "ENGINE_FORMATS": "assert"}).formats == "assert"  # type: ignore[dict-item]


@pytest.mark.parametrize("config", ["x", engine.Limits(), {}, 3], ids=["str", "limits", "dict", "int"])
def test_an_engine_takes_an_engine_config_or_none(config: object) -> None:
    with pytest.raises(engine.ConfigError) as refused:
        engine.Engine(config)  # type: ignore[arg-type]
    assert "EngineConfig" in str(refused.value)
    assert engine.Engine(None).config == engine.EngineConfig()


class _HostileInt(int):
    """An int whose comparisons and hash raise: the engine compares and hashes its settings."""

    def __lt__(self, other: object) -> bool:
        raise RuntimeError("called")

    __le__ = __gt__ = __ge__ = __lt__

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("called")

    def __hash__(self) -> int:
        raise RuntimeError("called")


class _HostileStr(str):
    def __eq__(self, other: object) -> bool:
        raise RuntimeError("called")

    def __hash__(self) -> int:
        raise RuntimeError("called")


def test_subclasses_of_int_and_str_are_kept_as_the_plain_values_they_hold() -> None:
    config = engine.EngineConfig(
        limits={"max_issues": _HostileInt(5), "max_explain_seconds": _HostileInt(2)},
        cache_size=_HostileInt(8),
        backend=_HostileStr("auto"),
        fetch={"allow_hosts": [_HostileStr("a.example")]},
    )
    assert type(config.limits.max_issues) is int and config.limits.max_issues == 5
    assert type(config.limits.max_explain_seconds) is float and type(config.cache_size) is int
    assert type(config.backend) is str and type(config.fetch.allow_hosts[0]) is str
    compiled = engine.Engine(config).compile({"type": "integer"})
    with pytest.raises(engine.ValidationFailed):
        compiled.validate("x")

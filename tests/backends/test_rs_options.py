"""The jsonschema-rs backend passes its options by position: the same options as by name."""

from __future__ import annotations

import inspect

import jsonschema_rs
import pytest

import engine
from engine.backends._jsonschema_rs import _PARAMETERS, _options, _positional, _positional_for

CONFIGS = [
    ("linear", 10_000, False),
    ("linear", 10_000, True),
    ("backtracking", 50, False),
    ("backtracking", 10_000, True),
]


def test_the_installed_signature_is_read() -> None:
    assert _PARAMETERS is not None
    assert [p.name for p in _PARAMETERS][:2] == ["formats", "validate_formats"]


@pytest.mark.parametrize(("regex", "limit", "formats"), CONFIGS)
def test_each_option_in_its_place_and_defaults_between(regex: str, limit: int, formats: bool) -> None:
    positional = _positional(regex, limit, formats)
    assert positional is not None
    by_name = _options(regex, limit, formats)
    signature = inspect.signature(jsonschema_rs.Draft202012Validator)
    bound = signature.bind(None, *positional)
    for name, value in bound.arguments.items():
        if name == "schema":
            continue
        expected = by_name.get(name, signature.parameters[name].default)
        assert value is expected or value == expected, name
    assert set(by_name) <= set(bound.arguments)


@pytest.mark.parametrize(("regex", "limit", "formats"), CONFIGS)
def test_same_answers_as_by_name(regex: str, limit: int, formats: bool) -> None:
    positional = _positional(regex, limit, formats)
    assert positional is not None
    schemas = [
        {"type": "string", "format": "email"},
        {"pattern": "^(?=a)"},
        {"pattern": "^(a+)+$"},
        {"type": "string", "format": "date"},
    ]
    instances = ["not an email", "a@example.com", "aaaa", "b", "2026-13-45", 3]
    for dialect in engine.Dialect:
        cls = dialect.rs_validator_class
        for schema in schemas:
            outcomes = []
            for args, kwargs in ((positional, {}), ((), _options(regex, limit, formats))):
                try:
                    validator = cls(schema, *args, **kwargs)
                except jsonschema_rs.ValidationError as exc:
                    outcomes.append(("refused", exc.message))
                    continue
                outcomes.append(tuple(validator.is_valid(i) for i in instances))
            assert outcomes[0] == outcomes[1], (dialect, schema)


def test_looked_up_once_per_configuration() -> None:
    config = engine.EngineConfig(regex="backtracking", backtrack_limit=77)
    first = _positional_for(config)
    assert first is _positional_for(config)
    assert first == _positional("backtracking", 77, False)
    assert _positional_for(engine.EngineConfig()) == _positional("linear", 10_000, False)


def test_registry_still_passed_by_name() -> None:
    eng = engine.Engine(backend="jsonschema-rs", cache_size=0)
    uri = "https://example.com/s.json"
    cs = eng.compile({"$ref": uri}, registry={uri: {"type": "integer"}})
    assert cs.is_valid(3) and not cs.is_valid("3")

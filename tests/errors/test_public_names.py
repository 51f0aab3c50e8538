"""Errors are named where they are imported from: a traceback reads ``engine.ConfigError``, and a
pickled error comes back as the same class."""

from __future__ import annotations

import importlib
import pickle
import traceback

import pytest

import engine

ERRORS = [
    ("engine", "BackendUnavailable"),
    ("engine", "ConfigError"),
    ("engine", "DecodeError"),
    ("engine", "EngineError"),
    ("engine", "SchemaRejected"),
    ("engine", "UnknownTool"),
    ("engine", "ValidationFailed"),
    ("engine.backends", "BackendRefused"),
    ("engine.adapters.mcp_sdk", "InvalidToolResult"),
    ("engine.adapters.mcp_sdk", "InputRequired"),
]


@pytest.mark.parametrize(("module", "name"), ERRORS)
def test_an_error_is_named_by_its_public_module(module: str, name: str) -> None:
    if module.startswith("engine.adapters"):
        pytest.importorskip("mcp", reason="the MCP SDK is not installed")
    kind = getattr(importlib.import_module(module), name)
    assert (kind.__module__, kind.__qualname__) == (module, name)


def test_tracebacks_and_pickles_use_the_public_names() -> None:
    with pytest.raises(engine.ConfigError) as config:
        engine.Engine(bogus=1)
    assert traceback.format_exception_only(config.type, config.value)[0].startswith("engine.ConfigError: ")
    with pytest.raises(engine.SchemaRejected) as refused:
        engine.compile({"type": "string", "pattern": "\\bword"})
    line = traceback.format_exception_only(refused.type, refused.value)[0]
    assert line.startswith("engine.backends.BackendRefused: ")
    for error in (config.value, refused.value):
        again = pickle.loads(pickle.dumps(error))
        assert type(again) is type(error) and str(again) == str(error)


def test_a_message_quoting_a_huge_value_is_cut_in_its_middle() -> None:
    uri = "https://schemas.example/" + "a" * 500_000
    with pytest.raises(engine.SchemaRejected) as info:
        engine.compile({"$ref": uri})
    message = info.value.message
    assert len(message) <= 2_000 and str(info.value) == message
    assert " characters cut) ... " in message and message.endswith("in fetch.allow_hosts)")  # the why is kept
    assert info.value.details["uri"] == uri  # the data stays whole
    tools = engine.compile_tools([{"name": "t", "inputSchema": {"type": "object"}}])
    with pytest.raises(engine.UnknownTool) as unknown:
        tools.validate_arguments("n" * 100_000, {})
    assert len(unknown.value.message) <= 2_000 and unknown.value.name == "n" * 100_000
    schema = engine.compile({"type": "object", "additionalProperties": {"type": "integer"}})
    with pytest.raises(engine.ValidationFailed) as failed:
        schema.validate({"k" * 300_000: "x"})
    assert len(failed.value.message) <= 2_000 and failed.value.message.endswith('is not of type "integer"')
    assert failed.value.issues[0].instance_path == "/" + "k" * 300_000
    oddly_named = type("T" * 100_000, (), {})  # a Python value's type, named at length
    with pytest.raises(engine.DecodeError) as refused_value:
        schema.validate({"a": oddly_named()})
    assert len(refused_value.value.message) <= 2_000 and refused_value.value.reason == "not-json"

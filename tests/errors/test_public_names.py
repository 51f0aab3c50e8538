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

"""A wrong argument to the public API is refused where it is given, with a sentence naming it,
not an ``AttributeError`` from deep inside on first use."""

from __future__ import annotations

from typing import Any

import pytest

import engine


@pytest.mark.parametrize(
    ("given", "instead"),
    [
        ("jsonschema-rs", "; a backend is chosen with engine=engine.Engine(backend=...)"),
        (engine.EngineConfig(), "; build the engine from it: engine=engine.Engine(config)"),
        ({"backend": "auto"}, "; build one from the settings: engine=engine.Engine(**settings)"),
        (3, ""),
    ],
)
def test_engine_arguments_take_an_engine(given: Any, instead: str) -> None:
    """A configuration (or its settings) where the engine goes says how to build the engine."""
    for build in (
        lambda: engine.compile_tools([], engine=given),
        lambda: engine.compile_elicitation({"type": "object", "properties": {}}, engine=given),
    ):
        with pytest.raises(TypeError) as refused:
            build()
        assert str(refused.value) == (
            f"engine= takes an engine.Engine (or None for the default engine), not {type(given).__name__}{instead}"
        )


@pytest.mark.parametrize("registry", [[1], "https://a.example/x", (("https://a.example/x", {}),)])
def test_a_registry_is_a_mapping(registry: Any) -> None:
    with pytest.raises(engine.SchemaRejected) as info:
        engine.Engine().compile({"$ref": "https://a.example/x"}, registry=registry)
    assert info.value.reason == "invalid-schema" and "registry maps URIs to resources" in info.value.message


def test_invalid_arguments_result_takes_a_validation_failure() -> None:
    with pytest.raises(TypeError, match="takes the ValidationFailed or DecodeError raised, not a ValueError"):
        engine.invalid_arguments_result(ValueError("x"), "tool")  # type: ignore[arg-type]


def test_messages_name_python_types_and_json_values_plainly() -> None:
    anything = engine.compile({})
    for value, sentence in (
        ({"a": b"x"}, "it holds an object of type 'bytes'"),
        ({"a": object()}, "it holds an object of type 'object'"),
        ({1: 2}, "an object key is of type 'int', not a string"),
    ):
        with pytest.raises(engine.DecodeError) as info:
            anything.validate(value)
        assert info.value.message.endswith(sentence) and info.value.reason == "not-json"
    with pytest.raises(engine.DecodeError) as far:
        anything.decode(b"[1, 2e400]")
    assert far.value.message == "a number is beyond the range of a 64-bit float (at `$[1]`)"
    with pytest.raises(engine.ValidationFailed) as capped:
        engine.Engine(limits={"max_issues": 1}).compile({"required": ["a", "b"]}).validate({})
    assert capped.value.message.endswith("(list truncated)") and "0 more" not in capped.value.message


@pytest.mark.parametrize("name", [["a"], {"a": 1}, 5, None])
def test_a_tool_name_that_is_not_a_string_is_said_so(name: Any) -> None:
    tools = engine.compile_tools(
        [{"name": "a", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}}], engine=engine.Engine()
    )
    calls = [
        lambda: tools.tool(name),
        lambda: tools.validate_arguments(name, {}),
        lambda: tools.validate_arguments(name, b"{}"),
        lambda: tools.validate_result(name, b'{"content": [], "structuredContent": {}}'),
        lambda: tools.validate_result(name, {"content": [], "structuredContent": {}}),
        lambda: tools.validate_structured(name, {}),
    ]
    for call in calls:
        with pytest.raises(TypeError, match=f"^name: a tool's name is a string, not {type(name).__name__}$"):
            call()


def test_an_unknown_name_is_echoed_within_bounds() -> None:
    import msgspec

    tools = engine.compile_tools([{"name": "a", "inputSchema": {"type": "object"}}], engine=engine.Engine())
    for name, echoed in (("b\ud800c", "b\ufffdc"), ("x" * 10_000_000, "x" * engine._errors.NAME_ECHOED)):
        with pytest.raises(engine.UnknownTool) as unknown:
            tools.validate_arguments(name, {})
        error = unknown.value.to_jsonrpc_error()
        assert error["data"]["tool"] == echoed
        msgspec.json.encode(error)  # UTF-8 spells it
        assert unknown.value.name == name  # the exception keeps what it was given

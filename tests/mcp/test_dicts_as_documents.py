"""A result or an elicitation answer given as a Python value answers as its JSON document does:
held to JSON whole first (every member, those the reader skips included, within the bounds the
bytes are held to), as the bytes are parsed whole first; and an instance bound admitting no level
refuses every object, given as bytes or as a value."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

import engine


def _outcome(call: Any, *args: Any) -> Any:
    try:
        value = call(*args)
    except engine.ValidationFailed as failure:
        return "invalid", failure.message, [(i.instance_path, i.keyword_location) for i in failure.issues]
    except engine.DecodeError as error:
        return "refused", str(error.reason)
    return "valid", repr(value)


def _deep(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = [value]
    return value


_OBJECT = {"type": "object", "properties": {"a": {"type": "integer"}}}


@pytest.mark.parametrize("max_depth", [3, 8, 256])
def test_a_result_given_as_a_dict_answers_as_its_bytes(max_depth: int) -> None:
    eng = engine.Engine(engine.EngineConfig(limits={"max_instance_depth": max_depth}))
    tools = engine.compile_tools(
        [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": _OBJECT}], engine=eng
    )
    bare = engine.compile_tools([{"name": "t", "inputSchema": {"type": "object"}}], engine=eng)
    checked = 0
    for levels in (max_depth - 1, max_depth, max_depth + 1, max_depth + 2, 300):
        deep = _deep(levels)
        for structured in ({"a": 1}, {"a": "x"}):
            results = [
                {"content": [], "structuredContent": structured, "extra": deep},
                {"content": [], "structuredContent": structured, "resultType": deep},
                {"content": [], "structuredContent": structured, "_meta": {"d": deep}},
                {"content": [{"type": "text", "text": "x", "d": deep}], "structuredContent": structured},
                {"jsonrpc": "2.0", "id": deep, "result": {"content": [], "structuredContent": structured}},
                {"jsonrpc": "2.0", "id": 1, "result": {"content": [], "structuredContent": structured, "x": deep}},
            ]
            for result in results:
                for toolset in (tools, bare):
                    expected = _outcome(toolset.validate_result, "t", json.dumps(result).encode())
                    assert _outcome(toolset.validate_result, "t", result) == expected, (levels, result)
                    checked += 1
    assert checked == 5 * 2 * 6 * 2


@pytest.mark.parametrize("value", [float("nan"), float("inf"), {1, 2}, (1, 2), b"x", "\ud800", {1: "a"}])
def test_a_value_no_json_document_holds_anywhere_in_a_result_or_an_answer_is_refused(value: Any) -> None:
    tools = engine.compile_tools([{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": _OBJECT}])
    form = engine.compile_elicitation({"type": "object", "properties": {"a": {"type": "string"}}})
    ok = {"content": [], "structuredContent": {"a": 1}}
    for result in (
        {**ok, "extra": value},
        {**ok, "resultType": value},
        {**ok, "_meta": {"k": value}},
        {"jsonrpc": "2.0", "id": value, "result": ok},
        {"jsonrpc": "2.0", "id": 1, "result": {**ok, "x": [value]}},
    ):
        with pytest.raises(engine.DecodeError):
            tools.validate_result("t", result)
    for answer in (
        {"action": "accept", "content": {"a": "x"}, "_meta": {"k": value}},
        {"action": "accept", "content": {"a": "x"}, "other": value},
        {"action": "decline", "_meta": value},
    ):
        with pytest.raises(engine.DecodeError):
            form.decode_result(answer)


@pytest.mark.parametrize("max_depth", [1, 2, 3, 8, 256])
def test_an_answer_given_as_a_dict_answers_as_its_bytes(max_depth: int) -> None:
    """The answer around the content is one level beyond the bound, as a result's envelope is:
    the content nests up to ``max_instance_depth`` levels, given as bytes or as a dict."""
    eng = engine.Engine(engine.EngineConfig(limits={"max_instance_depth": max_depth}))
    schema = {"type": "object", "properties": {"c": {"type": "array", "items": {"type": "string", "enum": ["a"]}}}}
    form = engine.compile_elicitation(schema, engine=eng)
    checked = 0
    for levels in sorted({0, max(max_depth - 2, 0), max_depth - 1, max_depth, max_depth + 1, 300}):
        deep = _deep(levels)
        for answer in (
            {"action": "accept", "content": {"c": ["a"]}},
            {"action": "accept", "content": {"c": {}}},
            {"action": "accept", "content": {"c": ["a"], "other": deep}},
            {"action": "accept", "content": {"c": ["a"]}, "_meta": {"d": deep}},
            {"action": "accept", "content": {"c": ["a"]}, "other": deep},
            {"action": "cancel", "_meta": deep},
        ):
            expected = _outcome(form.decode_result, json.dumps(answer).encode())
            for _ in range(2):
                assert _outcome(form.decode_result, answer) == expected, (levels, answer)
                assert _outcome(form.decode_result, json.dumps(answer)) == expected, (levels, answer)
            checked += 1
    # a flat answer is within any bound that admits its content
    assert _outcome(form.decode_result, b'{"action":"accept","content":{"c":["a"]}}')[0] == (
        "valid" if max_depth >= 2 else "refused"
    )
    assert checked >= 24


def _every_entry(eng: engine.Engine, schema: dict[str, Any]) -> Callable[[Any], dict[str, Any]]:
    """The answer of every entry a value reaches on ``eng``, as a value and as its bytes, each
    called twice (the first call binds a tool's readers): arguments, a result's
    ``structuredContent``, an elicitation answer's content and the compiled schema itself."""
    compiled = eng.compile(schema)
    tools = engine.compile_tools([{"name": "t", "inputSchema": schema, "outputSchema": schema}], engine=eng)
    form = engine.compile_elicitation({"type": "object", "properties": {"a": {"type": "string"}}}, engine=eng)

    def answers(value: Any) -> dict[str, Any]:
        data = json.dumps(value).encode()
        result = {"content": [], "structuredContent": value}
        calls: dict[str, Callable[[], Any]] = {
            "validate": lambda: compiled.validate(value),
            "is_valid": lambda: compiled.is_valid(value),
            "decode": lambda: compiled.decode(data),
            "arguments": lambda: tools.validate_arguments("t", value),
            "arguments bytes": lambda: tools.validate_arguments("t", data),
            "structured": lambda: tools.validate_structured("t", value),
            "result": lambda: tools.validate_result("t", result),
            "result bytes": lambda: tools.validate_result("t", json.dumps(result).encode()),
            "answer": lambda: form.decode_result({"action": "accept", "content": value}),
        }
        return {name: [_outcome(call) for _ in range(2)] for name, call in calls.items()}

    return answers


def test_an_instance_bound_of_no_level_refuses_every_object() -> None:
    eng = engine.Engine(engine.EngineConfig(limits={"max_instance_depth": 0}))
    answers = _every_entry(eng, _OBJECT)
    for value in ({}, {"a": "x"}, {"a": 1}):
        for name, got in answers(value).items():
            assert got == [("refused", "too-deep")] * 2, (name, value)
    assert eng.compile(_OBJECT).is_valid(1) is False  # a scalar has no level: judged by the schema


@pytest.mark.parametrize("where", ["result", "answer"])
def test_with_no_issue_explained_the_failure_says_where_the_instance_is(where: str) -> None:
    eng = engine.Engine(engine.EngineConfig(limits={"max_explain_work": 0}))
    if where == "result":
        tools = engine.compile_tools(
            [{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": _OBJECT}], engine=eng
        )
        document: Any = {"content": [], "structuredContent": {"a": "x"}}
        call, at = (lambda d: tools.validate_result("t", d)), "/structuredContent"
    else:
        form = engine.compile_elicitation({"type": "object", "properties": {"a": {"type": "integer"}}}, engine=eng)
        document, call, at = {"action": "accept", "content": {"a": "x"}}, form.decode_result, "/content"
    for given in (
        document,
        json.dumps(document).encode(),
        json.dumps(document),
        json.dumps({**document, "meta": None}),
    ):
        for _ in range(2):
            with pytest.raises(engine.ValidationFailed) as caught:
                call(given)
            assert [i.instance_path for i in caught.value.issues] == [at], given
            assert caught.value.issues[0].message.startswith("instance is invalid; explaining"), given
            assert caught.value.truncated


_SHAPES: list[Any] = [
    {"content": ["x"], "structuredContent": {}},
    {"content": "x", "structuredContent": {}},
    {"content": [], "structuredContent": {}, "isError": "yes"},
    {"content": [], "structuredContent": {}, "_meta": []},
    {"jsonrpc": 2, "id": 1, "result": {"content": [], "structuredContent": {}}},
    {"jsonrpc": "2.0", "id": 1, "result": None},
    {"jsonrpc": "2.0", "id": 1},
    {"jsonrpc": "2.0", "id": 1, "error": {"code": 1, "message": "x"}},
    {"content": [], "result": 3},
    [],
    None,
    12,
]


@pytest.mark.parametrize("result", _SHAPES, ids=[json.dumps(s)[:40] for s in _SHAPES])
def test_a_result_of_the_wrong_shape_is_refused_as_its_bytes_are(result: Any) -> None:
    tools = engine.compile_tools([{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}}])
    expected = _outcome(tools.validate_result, "t", json.dumps(result).encode())
    assert expected[0] == "invalid"
    assert _outcome(tools.validate_result, "t", result) == expected


@pytest.mark.parametrize("max_depth", [1, 2, 5])
def test_structured_content_without_an_output_schema_is_bounded_as_in_a_result(max_depth: int) -> None:
    """`validate_structured` answers as `validate_result` of `{"content": [], "structuredContent":
    value}`: the value is an instance, the envelope one of the two levels a result has beyond it."""
    eng = engine.Engine(engine.EngineConfig(limits={"max_instance_depth": max_depth}))
    tools = engine.compile_tools([{"name": "t", "inputSchema": {"type": "object"}}], engine=eng)
    for levels in range(max_depth + 4):
        value = {"v": _deep(levels)}
        expected = _outcome(tools.validate_result, "t", {"content": [], "structuredContent": value})
        assert _outcome(tools.validate_structured, "t", value)[0] == expected[0], levels
        assert expected == _outcome(tools.validate_result, "t", json.dumps({"content": [], "structuredContent": value}))


@pytest.mark.parametrize("limit", [64, 65, 200, 201])
def test_the_densest_document_within_the_size_bound_is_admitted_as_a_value(limit: int) -> None:
    """``[0,0,...]`` holds ``n`` items and the array in ``2 * n + 1`` bytes: the most values a
    document of the size bound holds, admitted as a value as its bytes are; one more is refused."""
    eng = engine.Engine(engine.EngineConfig(limits={"max_instance_bytes": limit}))
    compiled = eng.compile({"type": "array"})
    items = (limit - 1) // 2
    for value in ([0] * items, [0] * (items + 1)):
        data = json.dumps(value, separators=(",", ":")).encode()
        expected = "valid" if len(data) <= limit else "refused"
        assert _outcome(compiled.validate, value)[0] == _outcome(compiled.decode, data)[0] == expected, len(value)


@pytest.mark.parametrize("limit", [64, 65, 4096])
def test_a_value_far_longer_than_the_size_bound_is_refused_as_its_bytes_are(limit: int) -> None:
    """The size bound of a value is a count of its values, and its strings and keys by the length
    of its msgpack pass: a string or a key far longer than the bound is refused as too large at
    every entry, as its document is; values whose document fits are admitted."""
    eng = engine.Engine(engine.EngineConfig(limits={"max_instance_bytes": limit}))
    answers = _every_entry(eng, {"type": "object"})
    long = "é" * (limit * 4)
    for value in ({"a": long}, {long: 1}, {"a": {"b": [long]}}, {"a": [1.5] * 2, "b": long}):
        assert len(json.dumps(value).encode()) > limit
        for name, got in answers(value).items():
            assert got == [("refused", "too-large")] * 2, (name, value)
    compiled = eng.compile({"type": "object"})
    assert _outcome(compiled.validate, "x" * (limit * 2)) == ("refused", "too-large")
    fits = {"a": "x" * (limit // 2 - 10)}
    assert _outcome(compiled.validate, fits)[0] == _outcome(compiled.decode, json.dumps(fits).encode())[0] == "valid"

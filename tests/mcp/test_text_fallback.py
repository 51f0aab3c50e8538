"""The SEP-2106 text fallback read from hostile content: a text block is parsed and compared with
``structuredContent`` whatever it holds, and nothing it holds raises anything but the typed
refusal (a block nesting past the parser's own bound is no fallback)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

import engine

TOOLS = [
    {"name": "checked", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}},
    {"name": "unchecked", "inputSchema": {"type": "object"}},
]


def _result(text: str, structured: Any) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "structuredContent": structured}


@pytest.mark.parametrize("tool", ["checked", "unchecked"])
@pytest.mark.parametrize("form", ["bytes", "dict"])
def test_a_text_block_nesting_past_the_parser_is_no_fallback(tool: str, form: str) -> None:
    tools = engine.compile_tools(TOOLS)
    result = _result("[" * 1_000 + "]" * 1_000, [1])  # msgspec's parser stops before 1,000 levels
    data = msgspec.json.encode(result) if form == "bytes" else result
    assert tools.validate_result(tool, data).structured_content == [1]  # without the rule: read as it is
    with pytest.raises(engine.ValidationFailed) as failure:
        tools.validate_result(tool, data, require_text_fallback=True)
    assert [issue.instance_path for issue in failure.value.issues] == ["/content"]


@pytest.mark.parametrize("levels", [300, 500])
def test_a_deep_value_and_its_text_are_compared_without_recursion(levels: int) -> None:
    # Compared pair by pair: a recursive comparison took two frames a level, past Python's limit
    # at 900 levels (and at 340 from a caller some frames deep).
    eng = engine.Engine(engine.EngineConfig(limits=engine.Limits(max_instance_depth=levels + 10)))
    tools = engine.compile_tools(TOOLS, engine=eng)
    text = "[" * levels + "[1,{}]" + "]" * levels
    data = msgspec.json.encode(_result(text, msgspec.json.decode(text)))
    assert tools.validate_result("checked", data, require_text_fallback=True).content[0]["text"] == text
    different = msgspec.json.encode(_result(text, msgspec.json.decode(text.replace("1,{}", "1.0,[]"))))
    with pytest.raises(engine.ValidationFailed):
        tools.validate_result("checked", different, require_text_fallback=True)


@pytest.mark.parametrize(
    ("text", "structured", "same"),
    [
        ("[1, 2.0]", [1.0, 2], True),  # one number, however written
        ("[true]", [1], False),  # true is not 1
        ("[0]", [False], False),
        ('[{"a": [1], "b": null}]', [{"b": None, "a": [1]}], True),  # key order does not matter
        ('[{"a": 1}]', [{"a": 1, "b": 2}], False),
        ("[[]]", [{}], False),
        ('["x"]', ["x"], True),
        ("[1, 2]", [1, 2, 3], False),
    ],
)
def test_the_text_is_compared_as_json(text: str, structured: Any, same: bool) -> None:
    tools = engine.compile_tools(TOOLS)
    data = msgspec.json.encode(_result(text, structured))
    if same:
        tools.validate_result("checked", data, require_text_fallback=True)
    else:
        with pytest.raises(engine.ValidationFailed):
            tools.validate_result("checked", data, require_text_fallback=True)

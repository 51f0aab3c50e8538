"""The protocol rules the adapters apply, on their own: SEP-2106's text block, what older clients
cannot list (and ``engine check`` saying so), error results that never contradict an outputSchema."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import engine
from engine._mcp.mapping import has_text_fallback, older_versions_cannot_list, text_fallback

ROOT = Path(__file__).resolve().parents[2]
ARRAY_TOOL = {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}}


@pytest.mark.parametrize(
    ("content", "structured", "present"),
    [
        ([{"type": "text", "text": "[1, 2]"}], [1, 2], True),
        ([{"type": "text", "text": "[1,2]"}], [1, 2.0], True),  # JSON numbers: 2 == 2.0
        ([{"type": "image"}, {"type": "text", "text": " 3 "}], 3, True),
        ([{"type": "text", "text": "[1]"}], [1, 2], False),
        ([{"type": "text", "text": "true"}], 1, False),  # true is not 1
        ([{"type": "text", "text": "not json"}], "not json", False),
        ([{"type": "text", "text": '"not json"'}], "not json", True),
        ([], None, False),
    ],
)
def test_the_text_block(content: list[dict[str, object]], structured: object, present: bool) -> None:
    assert has_text_fallback(content, structured) is present
    assert has_text_fallback([text_fallback(structured)], structured)


def test_validate_result_reports_a_missing_text_block() -> None:
    tools = engine.compile_tools([ARRAY_TOOL])
    with pytest.raises(engine.ValidationFailed) as info:
        tools.validate_result("t", b'{"content": [], "structuredContent": [1]}', require_text_fallback=True)
    assert info.value.issues[0].instance_path == "/content" and "SEP-2106" in info.value.issues[0].message
    with pytest.raises(engine.ValidationFailed):
        tools.validate_result("t", {"content": [], "structuredContent": [1]}, require_text_fallback=True)
    ok = tools.validate_result(
        "t", {"content": [{"type": "text", "text": "[1]"}], "structuredContent": [1]}, require_text_fallback=True
    )
    assert ok.structured_content == [1]
    # Off by default, and never asked of error results.
    assert tools.validate_result("t", b'{"content": [], "structuredContent": [1]}').structured_content == [1]
    tools.validate_result("t", {"content": [], "structuredContent": [1], "isError": True}, require_text_fallback=True)


def test_what_older_clients_cannot_list() -> None:
    assert older_versions_cannot_list(ARRAY_TOOL) is not None
    assert older_versions_cannot_list({"name": "o", "inputSchema": {"type": "object"}}) is None
    assert "inputSchema" in (older_versions_cannot_list({"name": "e", "inputSchema": {}}) or "")


def test_engine_check_names_the_tools_older_clients_cannot_list(tmp_path: Path) -> None:
    listing = tmp_path / "tools.json"
    listing.write_text(json.dumps({"tools": [ARRAY_TOOL, {"name": "fine", "inputSchema": {"type": "object"}}]}))
    text = subprocess.run(
        [sys.executable, "-m", "engine", "check", str(listing)], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert text.returncode == 0, text.stderr
    assert "not listed to clients before 2026-07-28" in text.stdout
    assert "1 cannot be listed to clients before protocol 2026-07-28: t." in text.stdout
    report = subprocess.run(
        [sys.executable, "-m", "engine", "check", str(listing), "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert json.loads(report.stdout)["summary"]["unlistable_before_2026_07_28"] == ["t"]


def test_invalid_arguments_result_for_a_tool_with_an_output_schema() -> None:
    failure = engine.ValidationFailed(
        [
            engine.Issue(
                instance_path="/q", keyword_location="/properties/q/type", keyword="type", message="1 is not a string"
            )
        ]
    )
    with_details = engine.invalid_arguments_result(failure, "search")
    assert with_details["structuredContent"]["error"]["issues"][0]["instancePath"] == "/q"
    plain = engine.invalid_arguments_result(failure, "search", structured_content=False)
    assert "structuredContent" not in plain and plain["isError"] is True
    assert plain["content"] == with_details["content"]

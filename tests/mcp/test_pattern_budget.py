"""A tool list's patterns in all: once the distinct patterns of the tools compiled take more than
``MAX_LIST_STEPS`` steps written out, a later tool whose definition spells a pattern is refused
uncompiled (each pattern is an automaton the regex engine builds: 550 tools of one `\\S{990}<i>`
each took 9 s and 1.3 GB). A pattern repeated across tools counts once; tools without one
compile whatever the list holds; the real tool lists are far within the bound."""

from __future__ import annotations

from typing import Any

import engine
from benchmarks.corpus import load_corpus
from engine._mcp.pattern_budget import MAX_LIST_STEPS


def _tool(name: str, pattern: str | None) -> dict[str, Any]:
    field: dict[str, Any] = {"type": "string"}
    if pattern is not None:
        field["pattern"] = pattern
    return {"name": name, "inputSchema": {"type": "object", "properties": {"a": field}}}


def test_tools_past_the_bound_refused_uncompiled() -> None:
    listed = [_tool(f"t{i}", rf"\S{{990}}{i}") for i in range(60)]  # 7,920 steps each
    listed.append(_tool("plain", None))
    tools = engine.compile_tools({"tools": listed})
    compiled = [f"t{i}" for i in range(60) if f"t{i}" not in tools.rejected]
    assert compiled == [f"t{i}" for i in range(len(compiled))]  # the first ones, in order
    assert 0 < len(compiled) * 7_920 - MAX_LIST_STEPS <= 7_920  # up to the tool that passed the bound
    for i in range(len(compiled), 60):
        refusal = tools.rejected[f"t{i}"]
        assert refusal.reason == engine.RejectReason.UNSAFE_PATTERN
        assert refusal.details["bound"] == MAX_LIST_STEPS
        assert refusal.details["steps"] > MAX_LIST_STEPS
    assert tools.validate_arguments("t0", {"a": "x" * 990 + "0"}) == {"a": "x" * 990 + "0"}
    assert tools.validate_arguments("plain", {"a": "any"}) == {"a": "any"}  # no pattern: compiled


def test_a_schema_repeated_across_tools_counts_once() -> None:
    listed = [_tool(f"t{i}", r"\S{990}x") for i in range(200)]  # one compiled schema, from the cache
    tools = engine.compile_tools(listed)
    assert not tools.rejected
    assert tools.validate_arguments("t199", {"a": "y" * 990 + "x"})


def test_a_pattern_in_schemas_that_differ_counts_in_each() -> None:
    # jsonschema-rs builds the automaton for every validator holding the pattern.
    listed = []
    for i in range(60):
        tool = _tool(f"t{i}", r"\S{990}x")
        tool["inputSchema"]["properties"][f"p{i}"] = {"type": "integer"}
        listed.append(tool)
    tools = engine.compile_tools(listed)
    assert tools.rejected
    assert all(refusal.reason == engine.RejectReason.UNSAFE_PATTERN for refusal in tools.rejected.values())


def test_real_tool_lists_compile_whole() -> None:
    lists: dict[str, list[dict[str, Any]]] = {}
    for tool in load_corpus().tools:
        lists.setdefault(tool.source, []).append(tool.definition)
    assert lists
    for source, listed in lists.items():
        tools = engine.compile_tools(listed)
        refused = [r for r in tools.rejected.values() if "tool list's patterns" in r.message]
        assert not refused, source

"""A tool list in all. Once ``MAX_LIST_SCHEMAS`` distinct schemas are compiled, every later tool is
refused uncompiled (each takes some 110 us: 170,000 tools of one small, distinct schema each took
19 s). Once the distinct patterns of the tools compiled take more than
``MAX_LIST_STEPS`` steps written out, a later tool whose definition spells a pattern is refused
uncompiled (each pattern is an automaton the regex engine builds: 550 tools of one `\\S{990}<i>`
each took 9 s and 1.3 GB). Once the tools compiled are estimated to hold more than
``MAX_LIST_BYTES``, every later tool is (a tool set keeps every tool it compiled: 495 tools of
2,000 properties ``{"not": {}}``, a 22 MB list, held 971 MB). A schema repeated across tools counts once; the real
tool lists are far within both bounds."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from benchmarks.corpus import load_corpus
from engine._mcp import list_budget
from engine._mcp.list_budget import MAX_LIST_STEPS


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
        refused = [r for r in tools.rejected.values() if "the tool list's" in r.message]
        assert not refused, source


def _heavy(name: str, width: int) -> dict[str, Any]:
    properties = {f"{name}_{j}": {"not": {}} for j in range(width)}
    return {"name": name, "inputSchema": {"type": "object", "properties": properties}}


def test_tools_past_the_memory_bound_refused_uncompiled(monkeypatch: pytest.MonkeyPatch) -> None:
    bound = 20_000_000  # the mechanism, on a smaller list than the 1 GiB the default takes
    monkeypatch.setattr(list_budget, "MAX_LIST_BYTES", bound)
    listed = [_heavy(f"t{i}", 300) for i in range(60)]  # some 0.5 MB estimated each
    listed.append({"name": "plain", "inputSchema": {"type": "object"}})
    tools = engine.compile_tools({"tools": listed})
    compiled = [f"t{i}" for i in range(60) if f"t{i}" not in tools.rejected]
    assert 0 < len(compiled) < 60
    assert compiled == [f"t{i}" for i in range(len(compiled))]  # the first ones, in order
    for name in [*(f"t{i}" for i in range(len(compiled), 60)), "plain"]:  # every later tool
        refusal = tools.rejected[name]
        assert refusal.reason == engine.RejectReason.LIMIT_EXCEEDED
        assert refusal.details["limit"] == "tool list bytes"
        assert refusal.details["measured"] > bound == refusal.details["bound"]
    with pytest.raises(engine.ValidationFailed):
        tools.validate_arguments("t0", {"t0_1": 1})  # `not: {}` refuses every value


def test_a_heavy_schema_repeated_across_tools_counts_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(list_budget, "MAX_LIST_BYTES", 20_000_000)
    heavy = _heavy("shared", 300)["inputSchema"]
    tools = engine.compile_tools([{"name": f"t{i}", "inputSchema": heavy} for i in range(100)])
    assert not tools.rejected


def _small(i: int) -> dict[str, Any]:
    return {"name": f"t{i}", "inputSchema": {"type": "object", "properties": {f"a{i}": {"type": "string"}}}}


def test_tools_past_the_schema_count_refused_uncompiled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(list_budget, "MAX_LIST_SCHEMAS", 50)  # the mechanism, on a short list
    listed = [_small(i) for i in range(40)]
    listed += [{**_small(i), "outputSchema": {"type": "object", "required": [f"r{i}"]}} for i in range(40, 80)]
    listed.append({"name": "same", "inputSchema": {"type": "object"}})  # equal to no earlier schema
    tools = engine.compile_tools({"tools": listed})
    # 40 tools of one schema, then 5 of two: the 50th schema is the last compiled.
    assert sorted(tools, key=lambda name: int(name[1:])) == [f"t{i}" for i in range(45)]
    refused = {name: tools.rejected[name] for name in [*(f"t{i}" for i in range(45, 80)), "same"]}
    assert len(tools.rejected) == len(refused)
    for refusal in refused.values():
        assert refusal.reason == engine.RejectReason.LIMIT_EXCEEDED
        assert refusal.details == {"limit": "tool list schemas", "measured": 50, "bound": 50}
    assert len({id(refusal) for refusal in refused.values()}) == 1  # one refusal for them all
    with pytest.raises(engine.SchemaRejected) as caught:
        tools.validate_arguments("t79", {})
    assert caught.value.reason == engine.RejectReason.LIMIT_EXCEEDED
    assert "t79" in caught.value.message
    assert tools.validate_arguments("t0", {"a0": "x"}) == {"a0": "x"}


def test_equal_schemas_count_once_toward_the_schema_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(list_budget, "MAX_LIST_SCHEMAS", 50)
    shared = _small(0)["inputSchema"]
    tools = engine.compile_tools([{"name": f"t{i}", "inputSchema": dict(shared)} for i in range(500)])
    assert not tools.rejected

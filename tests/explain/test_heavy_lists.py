"""Long lists of names and values on the error path: a ``required`` of 20,000 names, or an
``enum`` of 10,000 values, is one evaluation for ``is_valid`` but thousands of errors (or one error
holding a copy of the list) for the backend that explains. The explanation weighs them before it
starts, and names the missing ones itself where a list is long.

The hostile shapes run in a child process with an address-space cap, as the combinator tower's do
(see test_explain.py), so that a regression fails the named test instead of exhausting the machine.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from typing import Any

import msgspec
import pytest

import engine
import engine._explain as explain_module
from engine._explain import budget as explain_budget
from tests.explain._probe import TIMED_FAILURE

NAMES = [f"p{i}" for i in range(20_000)]

# Each took seconds and gigabytes to explain before the lists were weighed (measured on the shared
# 2-core machine): 21.7 s and 6.3 GB; 6.7 s and 1.3 GB; 2.1 s and 1.5 GB; 4.7 s and 2.5 GB; 9 s and
# 3.4 GB. Now each takes milliseconds.
HEAVY_SHAPES: dict[str, tuple[dict[str, Any], Any]] = {
    "required of 20,000 names, an object of 2,000 members": (
        {"type": "object", "required": NAMES},
        {f"k{i}": i for i in range(2_000)},
    ),
    "items with a required of 1,000 names, 1,000 empty objects": (
        {"type": "object", "properties": {"a": {"type": "array", "items": {"required": NAMES[:1_000]}}}},
        {"a": [{}] * 1_000},
    ),
    "items in an enum of 10,000 long strings, 1,000 integers": (
        {
            "type": "object",
            "properties": {"a": {"type": "array", "items": {"enum": [f"{i:092d}" for i in range(10_000)]}}},
        },
        {"a": list(range(1_000))},
    ),
    "dependentRequired of 20,000 names, 300 members": (
        {"type": "object", "dependentRequired": {"a": NAMES}},
        {"a": 1, **{f"k{i}": i for i in range(300)}},
    ),
    "a required of 1,000 names reached through 1,000 references": (
        {
            "type": "object",
            "allOf": [{"allOf": [{"$ref": "#/$defs/r"}] * 200}] * 5,
            "$defs": {"r": {"required": NAMES[:1_000]}},
        },
        {},
    ),
    "required of 20,000 names, an object nesting 50 levels": (
        {"type": "object", "required": NAMES},
        json.loads('{"a":' * 50 + "{}" + "}" * 50),
    ),
}

PROBE = (
    textwrap.dedent(
        """
    import json, resource, sys, time
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    import engine
    schema, instance, entry = json.load(sys.stdin)
    if entry == "validate":
        call, argument = engine.compile(schema).validate, instance
    else:
        tools = engine.compile_tools([{"name": "t", "inputSchema": schema}])
        call, argument = (lambda data: tools.validate_arguments("t", data)), json.dumps(instance).encode()
    """
    )
    + TIMED_FAILURE
    + textwrap.dedent(
        """
    print(json.dumps({"seconds": elapsed, "peak_mib": peak, "issues": [i.message for i in issues],
                      "truncated": truncated}))
    """
    )
)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("entry", ["validate", "arguments"])
@pytest.mark.parametrize("shape", list(HEAVY_SHAPES))
def test_long_lists_are_explained_in_bounded_time_and_memory(shape: str, entry: str) -> None:
    schema, instance = HEAVY_SHAPES[shape]
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        input=json.dumps([schema, instance, entry]),  # a megabyte of schema: over what argv takes
        capture_output=True,
        text=True,
        timeout=100,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout)
    # max_explain_seconds (1 s) and one bounded step, with room for a busy shared machine.
    assert report["seconds"] < 3.0, {k: v for k, v in report.items() if k != "issues"}
    assert report["peak_mib"] < 400, {k: v for k, v in report.items() if k != "issues"}
    # Real issues, max_issues (100) of them, the list marked cut where more were left (the enum of
    # 10,000 strings of 92 digits copies 920 KB an error, weighed by its characters too: 94 issues
    # and the one that says where the list was cut).
    messages = report["issues"]
    expected = 95 if "long strings" in shape else 100
    assert len(messages) == expected and report["truncated"], (len(messages), report["truncated"])
    if "enum" in shape:
        assert all("is not one of" in message for message in messages if "explanation truncated" not in message)
    else:
        assert messages == [f'"p{i}" is a required property' for i in range(100)]


def test_the_weight_of_a_schema_is_its_longest_list() -> None:
    weight = explain_budget.error_weight
    assert weight(({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},)) == 1
    assert weight(({"required": NAMES[:7], "enum": list(range(62))},)) == 1  # short lists: as before
    assert weight(({"required": NAMES},)) == 1 + 20_000 // 8 + sum(map(len, NAMES)) // 16_384  # their characters
    assert weight(({"const": "x" * 900_000},)) == 1 + 900_000 // 16_384  # one value, 900,000 characters copied
    assert weight(({"dependentRequired": {"a": NAMES[:800], "b": NAMES[:800]}},)) == 1 + 1_600 // 8
    assert weight(({"enum": [{"a": [1, 2]}] * 640},)) == 1 + (640 * 4 + 1) // 64  # every value copied
    assert weight(({"const": list(range(6_400))},)) == 1 + 6_401 // 64
    # Wherever the list is: under definitions, a property named like a keyword, a second document.
    assert weight(({"properties": {"default": {"properties": {"examples": {"required": NAMES[:80]}}}}},)) == 11
    assert weight(({}, {"$defs": {"x": {"required": NAMES[:80]}}})) == 11
    # Under a property named `enum` or `const`, a subschema is counted as that keyword's values (what
    # they hold is not walked again): its names weigh an eighth of what they would, never nothing.
    assert weight(({"properties": {"enum": {"required": NAMES[:640]}}},)) == 1 + 643 // 64


def test_a_heavy_schema_is_not_explained_whole_where_its_errors_would_not_fit() -> None:
    report = engine.compile({"type": "object", "required": NAMES}).guard
    allowance = explain_budget.opening(engine.EngineConfig().limits)
    weight = explain_budget.error_weight(({"required": NAMES},))
    # Unweighed, a 2,000-member object (some 20,000 bytes) fitted the budget whole.
    wide = {f"k{i}": i for i in range(2_000)}
    assert explain_module._whole_cost(report, wide, 0, allowance, 20_000) <= allowance
    assert explain_module._whole_cost(report, wide, 0, allowance, 20_000, weight) > allowance
    assert explain_module._whole_cost(report, wide, 0, allowance, None, weight) > allowance
    assert explain_module._explained_whole(report, allowance, weight) < 10


@pytest.mark.parametrize(
    ("dialect", "dependent"),
    [("https://json-schema.org/draft/2020-12/schema", True), ("http://json-schema.org/draft-07/schema#", False)],
)
def test_missing_names_are_those_the_whole_explanation_gives(dialect: str, dependent: bool) -> None:
    # A list long enough to be named here (over 8 names), an object small enough for the whole
    # explanation: the two agree, keyword locations, order and words. Draft 7 has no
    # dependentRequired (an unknown keyword asserts nothing); every dialect reads dependencies.
    schema = {
        "$schema": dialect,
        "type": "object",
        "properties": {"o": {"required": NAMES[:12], "dependentRequired": {"x": NAMES[20:30]}, "minProperties": 9}},
        "dependencies": {"y": NAMES[40:50]},
    }
    instance = {"o": {"x": 1, "p3": 2, "p25": 3}, "y": 1}
    compiled = engine.compile(schema)
    with pytest.raises(engine.ValidationFailed) as whole:
        compiled.validate(instance)
    hurried = engine.Engine(engine.EngineConfig.load(env={}, limits={"max_explain_work": 200}))
    with pytest.raises(engine.ValidationFailed) as pieces:
        hurried.compile(schema).validate(instance)
    assert not whole.value.truncated and not pieces.value.truncated
    assert sorted(map(msgspec.structs.astuple, whole.value.issues)) == sorted(
        map(msgspec.structs.astuple, pieces.value.issues)
    )
    named = [i for i in pieces.value.issues if i.keyword == "required"]
    assert [i.message for i in named if i.keyword_location == "/properties/o/required"] == [
        f'"{name}" is a required property' for name in NAMES[:12] if name != "p3"
    ]
    assert any(i.keyword_location == "/properties/o/dependentRequired" for i in named) is dependent
    assert len([i for i in named if i.keyword_location == "/dependencies"]) == 10


def test_a_long_message_is_cut_saying_how_long_it_was() -> None:
    # A backend's message quotes the failing value and what the keyword lists; a host hands it to
    # a model as the tool's error text.
    compiled = engine.compile(
        {"type": "object", "properties": {"n": {"type": "integer"}, "e": {"enum": NAMES[:5_000]}}}
    )
    with pytest.raises(engine.ValidationFailed) as failure:
        compiled.validate({"n": "y" * 100_000, "e": "nope"})
    messages = {issue.instance_path: issue.message for issue in failure.value.issues}
    assert len(messages["/n"]) < explain_budget.MAX_MESSAGE + 60
    assert messages["/n"].startswith('"yyy') and messages["/n"].endswith("(message cut: 100027 characters)")
    assert messages["/e"] == '"nope" is not one of "p0", "p1" or 4998 other candidates'  # jsonschema-rs's own
    tools = engine.compile_tools(
        [{"name": "t", "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}}}]
    )
    with pytest.raises(engine.ValidationFailed) as failure:
        tools.validate_arguments("t", {"n": "y" * 100_000})
    text = engine.invalid_arguments_result(failure.value, "t")["content"][0]["text"]
    assert len(text) < 1_200
    with pytest.raises(engine.ValidationFailed) as failure:  # a short message is kept whole
        compiled.validate({"n": "y"})
    assert [issue.message for issue in failure.value.issues] == ['"y" is not of type "integer"']


def test_a_value_too_large_to_quote_is_explained_without_quoting_it() -> None:
    # jsonschema-rs words `additionalProperties: false` as one issue naming every unexpected
    # property: 2.7 s for the 4.5 million of a 63 MiB object. Past what the budget may quote, each
    # failing keyword is one issue naming no value, and the list says it was cut.
    import time

    schema = {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
        "additionalProperties": False,
        "required": ["a", "c"],
        "minProperties": 1,
    }
    compiled = engine.Engine(engine.EngineConfig(cache_size=0)).compile(schema)
    wide = {"a": 1, **{f"k{i}": i for i in range(300_000)}}
    started = time.process_time()
    with pytest.raises(engine.ValidationFailed) as failed:
        compiled.validate(wide)
    assert time.process_time() - started < 1.0
    issues = failed.value.issues
    assert failed.value.truncated
    by_keyword = {issue.keyword: issue for issue in issues}
    assert by_keyword["additionalProperties"].keyword_location == "/additionalProperties"
    assert "too many to quote" in by_keyword["additionalProperties"].message
    assert by_keyword["required"].keyword_location == "/required"
    assert by_keyword["type"].instance_path == "/a"  # a named property is still explained as before
    assert "minProperties" not in by_keyword  # a keyword the value meets has no issue
    with pytest.raises(engine.ValidationFailed) as decoded:
        compiled.decode(msgspec.json.encode(wide))
    assert {issue.keyword for issue in decoded.value.issues} >= {"additionalProperties", "required", "type"}
    # A value the budget may quote is explained by the backend, its message naming what it holds.
    with pytest.raises(engine.ValidationFailed) as small:
        compiled.validate({"a": "x", "z": 2})
    messages = {issue.keyword: issue.message for issue in small.value.issues}
    assert messages["additionalProperties"] == "Additional properties are not allowed ('z' was unexpected)"
    assert not small.value.truncated

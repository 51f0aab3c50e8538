"""Invalid arguments, and invalid elicitation answers, are explained alike whatever their form:
bytes read inline by the typed decode or by the general mode, text, a dict screened inline, and
the compiled schema's own `validate` and `decode`. Every issue (location, keyword, message), the
truncation and the message are the same; only what reads the document differs."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

import jsonschema_rs
import msgspec
import pytest

import engine
from benchmarks.instances import valid_instance

TOOL_FILES = sorted((Path(__file__).parents[2] / "bench_data" / "tools").glob("*.json"))
_WRONG = {"string": 12, "integer": "x", "number": "x", "boolean": "x", "array": 1, "object": 1, "null": 0}


def _invalid_variants(schema: dict[str, Any], seed: dict[str, Any]) -> list[dict[str, Any]]:
    """The valid ``seed`` made invalid: a property of the wrong type, two, a required one missing,
    and a wrong one beside a property the schema does not name."""
    typed = [
        (name, _WRONG[sub["type"]])
        for name, sub in (schema.get("properties") or {}).items()
        if isinstance(sub, dict) and isinstance(sub.get("type"), str) and sub["type"] in _WRONG
    ]
    variants = [{**seed, name: wrong} for name, wrong in typed[:2]]
    if len(typed) >= 2:
        variants.append({**seed, **dict(typed[:2])})
    required = [name for name in schema.get("required") or [] if name in seed]
    if required:
        variants.append({name: value for name, value in seed.items() if name != required[0]})
    if typed:
        variants.append({**seed, typed[0][0]: typed[0][1], "zz_extra": "h://x:y"})
    return variants


def _failure(call: Any, argument: Any) -> Any:
    try:
        call(argument)
    except engine.ValidationFailed as failure:
        issues = [(i.instance_path, i.keyword_location, i.keyword, i.message) for i in failure.issues]
        return failure.message, failure.truncated, issues
    raise AssertionError(f"accepted: {argument!r}")


@pytest.mark.parametrize("path", TOOL_FILES, ids=lambda p: p.name)
def test_invalid_arguments_are_explained_alike_in_every_form(path: Path) -> None:
    tools = json.loads(path.read_text())
    # A time budget no run reaches: the explanations compared are bounded by their work alone
    # (a loaded machine would otherwise cut one of two at random).
    eng = engine.Engine(engine.EngineConfig(limits={"max_explain_seconds": 600}))
    checked = 0
    for mode in ("typed", "general"):
        toolset = engine.compile_tools(tools, engine=eng)
        for tool in tools:
            name, schema = tool["name"], tool["inputSchema"]
            if name in toolset.rejected or not isinstance(schema, dict):
                continue
            seed = valid_instance(schema)
            if not isinstance(seed, dict):
                continue
            oracle = jsonschema_rs.validator_for(schema)
            compiled = toolset.tool(name).input
            validate = partial(toolset.validate_arguments, name)
            primer = {**seed, "zz_colons": "a:b:c"}
            if mode == "general" and oracle.is_valid(primer):
                # Colons in a string: the tool's next documents are read in the general mode.
                validate(msgspec.json.encode(primer))
            for value in _invalid_variants(schema, seed):
                if oracle.is_valid(value):
                    continue
                expected = _failure(compiled.validate, value)
                data = msgspec.json.encode(value)
                for _ in range(2):  # the first call of a form may bind the tool's readers
                    assert _failure(validate, data) == expected, (name, data)
                    assert _failure(validate, value) == expected, (name, value)
                    assert _failure(validate, data.decode()) == expected, (name, data)
                    assert _failure(validate, json.dumps(value, indent=1).encode()) == expected, (name, data)
                assert _failure(compiled.decode, data) == expected, (name, data)
                checked += 1
    assert checked >= 10, checked  # invalid variants explained, in both modes


FORMS = json.loads((Path(__file__).parents[2] / "bench_data" / "elicitation" / "requested-schemas.json").read_text())
_WRONG_FORMAT = {"email": "not-an-email", "uri": "no uri", "date": "2026-13-45", "date-time": "yesterday"}


@pytest.mark.parametrize("work", [*range(1, 13), 20_000])
def test_invalid_answers_are_explained_alike_in_every_form(work: int) -> None:
    """Every corpus form's answer made invalid (a field of the wrong type, two, a format broken, a
    required field missing): from bytes, text and a dict, the same failure, under the default
    budget and ones too small for the whole explanation."""
    eng = engine.Engine(engine.EngineConfig(limits={"max_explain_work": work, "max_explain_seconds": 600}))
    checked = 0
    for entry in FORMS:
        schema = entry["requestedSchema"]
        form = engine.compile_elicitation(schema, engine=eng)
        seed = valid_instance(schema)
        if not isinstance(seed, dict):
            continue
        variants = _invalid_variants(schema, seed)
        for name, prop in schema.get("properties", {}).items():
            if prop.get("format") in _WRONG_FORMAT:
                variants.append({**seed, name: _WRONG_FORMAT[prop["format"]]})
        for content in variants:
            answer = {"action": "accept", "content": content}
            # An explanation piece by piece compiles the validators of its pieces, charged to its
            # budget: under a small one, the first explanations compile a few each.
            for _ in range(12):
                _failure(form.decode_result, answer)
            expected = _failure(form.decode_result, answer)
            data = msgspec.json.encode(answer)
            for _ in range(2):
                assert _failure(form.decode_result, data) == expected, (entry["source"], data)
                assert _failure(form.decode_result, data.decode()) == expected, (entry["source"], data)
                assert _failure(form.decode_result, json.dumps(answer, indent=2).encode()) == expected
            checked += 1
    assert checked >= 30, checked

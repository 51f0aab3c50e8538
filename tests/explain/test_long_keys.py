"""Failing values under a long key: every error's path holds the key. jsonschema-rs copies the path
into each error it builds, and each issue holds it again, so an explanation weighs the keys above
the values it explains, and an issue list holds at most a mebibyte of paths past its first issue.
Before, 100 failing values under a key of 8 MB took 1.6 GB and 2.6 s to explain (20 MB aborted
the process), and ``invalid_arguments_result`` wrote 100 MB of text for 1 MB of arguments."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from typing import Any

import pytest

import engine
from engine._explain.budget import PATH_CHARACTERS, error_weight
from engine._explain.measure import PATH_CHARACTERS_PER_EVALUATION, size

NESTED: dict[str, Any] = {"type": "object", "additionalProperties": {"additionalProperties": {"type": "integer"}}}


def _arguments(key_length: int, failing: int = 100) -> bytes:
    return json.dumps({"k" * key_length: {str(i): "x" for i in range(failing)}}).encode()


def test_a_long_key_weighs_the_values_below_it() -> None:
    short = {"k": {str(i): "x" for i in range(100)}}
    long = {"k" * (PATH_CHARACTERS_PER_EVALUATION * 8): short["k"]}
    assert size(short, 1 << 30) < 300
    assert size(long, 1 << 30) >= 100 * 9  # each of the 100 values once, and once more per 1,024 characters


@pytest.mark.parametrize("key_length", [3_000, 200_000, 2_000_000])
def test_the_paths_an_explanation_holds_are_bounded(key_length: int) -> None:
    tools = engine.compile_tools([{"name": "t", "inputSchema": NESTED}])
    with pytest.raises(engine.ValidationFailed) as caught:
        tools.validate_arguments("t", _arguments(key_length))
    issues = caught.value.issues
    assert issues and all(issue.message == '"x" is not of type "integer"' for issue in issues)
    assert all(issue.instance_path.startswith("/" + "k" * key_length + "/") for issue in issues)
    held = sum(len(issue.instance_path) for issue in issues)
    assert held <= PATH_CHARACTERS + len(issues[0].instance_path)
    if key_length * 100 > PATH_CHARACTERS:
        assert caught.value.truncated and len(issues) < 100


def test_the_error_text_shows_a_long_path_cut() -> None:
    tools = engine.compile_tools([{"name": "t", "inputSchema": NESTED}])
    with pytest.raises(engine.ValidationFailed) as caught:
        tools.validate_arguments("t", _arguments(1_000_000))
    result = engine.invalid_arguments_result(caught.value, "t")
    text = result["content"][0]["text"]
    assert len(text) < 10_000 and "characters cut" in text
    paths = [issue["instancePath"] for issue in result["structuredContent"]["error"]["issues"]]
    assert all(len(path) <= 2_100 and "characters cut" in path for path in paths)  # the peer's own key, cut


_PEAK = """
import json, resource, sys
import engine
tools = engine.compile_tools([{"name": "t", "inputSchema": %r}])
document = json.dumps({"k" * 8_000_000: {str(i): "x" for i in range(100)}}).encode()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    tools.validate_arguments("t", document)
except engine.ValidationFailed as failure:
    assert failure.issues
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)
"""


def test_explaining_under_a_long_key_takes_little_memory() -> None:
    # In a process of its own: the peak of this one is whatever the suite reached before.
    script = textwrap.dedent(_PEAK % (NESTED,))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    grown_mb = int(done.stdout.split()[-1])
    assert grown_mb < 400, grown_mb  # 1.6 GB before; the 8 MB document and its parse are some 50 MB


def _long_definition(length: int) -> dict[str, Any]:
    name = "d" * length
    return {"$defs": {name: {"type": "integer"}}, "items": {"$ref": "#/$defs/" + name}}


def test_a_long_location_in_the_schema_weighs_each_error() -> None:
    assert error_weight((_long_definition(10),)) == 1
    assert error_weight((_long_definition(PATH_CHARACTERS_PER_EVALUATION * 100),)) == 101
    assert error_weight(({"$id": "urn:" + "i" * PATH_CHARACTERS_PER_EVALUATION * 3, "type": "integer"},)) == 4


_SCHEMA_PEAK = """
import json, resource
import engine
name = "d" * 300_000
compiled = engine.compile({"$defs": {name: {"type": "integer"}}, "items": {"$ref": "#/$defs/" + name}})
document = json.dumps(["x"] * 3_000).encode()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    compiled.decode(document)
except engine.ValidationFailed as failure:
    assert failure.issues
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)
"""


def test_explaining_under_a_long_schema_location_takes_little_memory() -> None:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_SCHEMA_PEAK)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    grown_mb = int(done.stdout.split()[-1])
    assert grown_mb < 400, grown_mb  # 1.7 GB before

"""What each error copies, weighed before an explanation starts: jsonschema-rs copies the value an
error is about into it, and quotes it in its message, whole (an error at a container copies the
container); a ``propertyNames`` error copies the object, once per failing name; a ``not`` error
quotes its subschema. Each was explained whole from an estimate that counted a value once: 1.5-2.6
GB and 3-5.5 s for a few megabytes (a panic raised as a raw ``RuntimeError`` past that), now
piece by piece within the budget."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Any

import pytest

import engine
from engine.backends import _jsonschema_rs, _rs_paths

_PEAK = """
import json, resource, time
import engine
{setup}
document = json.dumps(instance).encode()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.process_time()
try:
    compiled.decode(document)
except engine.ValidationFailed as failure:
    assert failure.issues
else:
    raise AssertionError("valid")
print(time.process_time() - started, (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)
"""

CASES = {
    # 100 `type` errors at the root of a 250-level array, each copying the whole array
    "a container copied by each error": """
compiled = engine.compile({"allOf": [{"type": "object", "minProperties": i} for i in range(100)]})
instance = ["s" * 63] * 195
for _ in range(250):
    instance = [instance] + ["s" * 63] * 195
""",
    # 700 names too long, each error copying the 2 MB object
    "propertyNames": """
compiled = engine.compile({"propertyNames": {"maxLength": 3}})
instance = {str(i).zfill(3) * 1000: i for i in range(700)}
""",
    # 1,000 errors each quoting a subschema of 900 KB
    "not": """
compiled = engine.compile({"items": {"not": {"description": "d" * 900_000}}})
instance = [1] * 1000
""",
}


@pytest.mark.parametrize("case", CASES)
def test_an_explanation_weighs_what_its_errors_copy(case: str) -> None:
    script = textwrap.dedent(_PEAK.format(setup=textwrap.dedent(CASES[case])))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    seconds, grown_mb = done.stdout.split()
    assert int(grown_mb) < 400, grown_mb  # 1.5-2.6 GB before


def test_a_long_schema_location_is_held_once_in_the_issue_list() -> None:
    name = "n" * 300_000
    schema = {"dependentSchemas": {name: {"properties": {f"p{i}": {"type": "integer"} for i in range(100)}}}}
    instance: dict[str, Any] = {name: 1, **{f"p{i}": "s" for i in range(100)}}
    with pytest.raises(engine.ValidationFailed) as caught:
        engine.compile(schema).validate(instance)
    issues = caught.value.issues
    first = len(issues[0].instance_path) + len(issues[0].keyword_location)
    held = sum(len(issue.instance_path) + len(issue.keyword_location) for issue in issues)
    assert held <= (1 << 20) + first and caught.value.truncated


class _Panic(BaseException):
    """What pyo3 raises for a panic in Rust: not an ``Exception``."""


def test_a_panic_while_the_errors_are_read_stops_the_explanation() -> None:
    def errors() -> Any:
        raise _Panic("allocation failed")
        yield  # a generator

    with pytest.raises(RuntimeError, match="failed to describe the errors"):
        list(_jsonschema_rs._issues(errors(), None, None))


def test_a_path_the_search_cannot_settle_is_cut_where_it_is_certain(monkeypatch: pytest.MonkeyPatch) -> None:
    # jsonschema-rs's tokens without the empty key name `/a`, which holds another value.
    instance = {"": {"a": "bad"}, "a": {"x": 1}}
    assert _rs_paths.instance_tokens(instance, ["a"], lambda: "bad") == ["", "a"]
    monkeypatch.setattr(_rs_paths, "_STEPS", 1)
    assert _rs_paths.instance_tokens(instance, ["a"], lambda: "bad") == []  # the root holds it


def test_a_deep_narrow_instance_is_explained_whole() -> None:
    # A chain of definitions, each a level deeper: each location meets two subschemas, and the one
    # failing value copies nothing large. Counted as if every subschema met every container, it
    # was cut unexplained ("work the budget cannot bound") after 0.2 s of piecewise validators.
    schema: dict[str, Any] = {
        "$defs": {f"d{i}": {"type": "object", "properties": {"x": {"$ref": f"#/$defs/d{i + 1}"}}} for i in range(400)},
        "$ref": "#/$defs/d0",
    }
    schema["$defs"]["d400"] = {"type": "object"}
    instance: Any = 1
    for _ in range(100):
        instance = {"x": instance}
    with pytest.raises(engine.ValidationFailed) as caught:
        engine.compile(schema).validate(instance)
    assert [issue.message for issue in caught.value.issues] == ['1 is not of type "object"']
    assert not caught.value.truncated

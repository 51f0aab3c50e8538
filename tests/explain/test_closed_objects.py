"""``additionalProperties: false`` beside no ``properties`` is explained as when a ``properties`` is
there: the unexpected members named. jsonschema-rs said "False schema does not allow" and quoted
the first member's value alone, never its name."""

from __future__ import annotations

from typing import Any

import pytest

import engine

CLOSED: dict[str, Any] = {"type": "object", "additionalProperties": False}
CASES = {
    "root": (CLOSED, {"path": "/etc/passwd", "x": 2}, "", "'path', 'x' were unexpected"),
    "root, one": (CLOSED, {"path": "/etc/passwd"}, "", "'path' was unexpected"),
    "nested": ({"properties": {"a": CLOSED}}, {"a": {"q": 1, "r": 2}}, "/a", "'q', 'r' were unexpected"),
    "through a reference": (
        {"$defs": {"o": CLOSED}, "properties": {"a": {"$ref": "#/$defs/o"}}},
        {"a": {"q": 1}},
        "/a",
        "'q' was unexpected",
    ),
}


@pytest.mark.parametrize("backend", ["auto", "jsonschema-rs", "jsonschema"])
@pytest.mark.parametrize("case", CASES)
def test_the_unexpected_members_are_named(case: str, backend: str) -> None:
    schema, instance, where, named = CASES[case]
    compiled = engine.Engine(engine.EngineConfig(backend=backend)).compile(schema)
    with pytest.raises(engine.ValidationFailed) as caught:
        compiled.validate(instance)
    issues = [issue for issue in caught.value.issues if issue.instance_path == where]
    assert issues, caught.value.issues
    assert any(named in issue.message and issue.keyword == "additionalProperties" for issue in issues), issues

"""The validators a piece-by-piece explanation compiles for single locations are let go: a few at a
time while it runs, all of them once it ends. Each compiles what its location reaches afresh, a
shared definition and its patterns included: a schema whose 1,000 properties referenced one
definition of a long pattern kept a copy of its 2 MB automaton per location explained, some 200 MB
for each result explained, never freed while the schema stayed cached."""

from __future__ import annotations

from typing import Any

import pytest

import engine
import engine.backends._locations as locations_module
from engine.backends._locations import _KEPT, LocationValidators

SCHEMA = {
    "$defs": {"h": {"type": "string", "pattern": "^(?:[a-z]{40}|ok)$"}},
    "properties": {f"p{i}": {"$ref": "#/$defs/h"} for i in range(1000)},
}


def _invalid() -> dict[str, Any]:
    value: dict[str, Any] = {f"p{i}": "ok" for i in range(999)}
    value["p999"] = 5  # the last one wrong
    return value


def _kept(locations: LocationValidators) -> int:
    kinds = ("_by_pointer", "_every_item", "_own", "_members_of")
    return sum(len(getattr(locations, kind)) for kind in kinds)


def test_an_explanation_keeps_few_validators_and_lets_them_go(monkeypatch: pytest.MonkeyPatch) -> None:
    most: list[int] = [0]
    made: list[LocationValidators] = []
    keep = locations_module._keep

    def counted(kept: dict[Any, Any], at: Any, validator: Any) -> None:
        keep(kept, at, validator)
        most[0] = max(most[0], len(kept))

    built = LocationValidators.__init__

    def tracked(self: LocationValidators, *args: Any) -> None:
        built(self, *args)
        made.append(self)

    monkeypatch.setattr(locations_module, "_keep", counted)
    monkeypatch.setattr(LocationValidators, "__init__", tracked)
    tools = engine.compile_tools([{"name": "t", "inputSchema": {"type": "object"}, "outputSchema": SCHEMA}])
    for _ in range(3):
        with pytest.raises(engine.ValidationFailed) as failure:
            tools.validate_structured("t", _invalid())
        assert failure.value.issues
    assert made, "the explanation went piece by piece"
    assert 1 < most[0] <= _KEPT
    assert all(_kept(locations) == 0 for locations in made)


def test_what_is_found_piece_by_piece_is_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[LocationValidators] = []
    built = LocationValidators.__init__

    def tracked(self: LocationValidators, *args: Any) -> None:
        built(self, *args)
        made.append(self)

    monkeypatch.setattr(LocationValidators, "__init__", tracked)
    compiled = engine.Engine(cache_size=0).compile(SCHEMA)
    value = _invalid()
    value["p3"] = 7
    with pytest.raises(engine.ValidationFailed) as failure:
        compiled.validate(value)
    assert made, "the explanation went piece by piece"
    assert not failure.value.truncated
    assert [(issue.instance_path, issue.keyword) for issue in failure.value.issues] == [
        ("/p3", "type"),
        ("/p999", "type"),
    ]

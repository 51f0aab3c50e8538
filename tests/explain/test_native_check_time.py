"""The explanation starts no native check it cannot afford: each is estimated by what the values it
reads meet (the subschema's evaluations a value, times the items of a range), at the validation
rate, and one that would outlast ``max_explain_seconds`` is not started (the explanation stops
there, truncated). The first check of 320,000 items meeting 302 subschemas each took a second past
the time, after the second the failing check itself took."""

from __future__ import annotations

import time
from typing import Any

import pytest

import engine
import engine._explain.budget as explain_budget
from engine.backends._locations import LocationValidators

HEAVY_ITEMS = {"type": "array", "items": {"allOf": [{"allOf": [{"minimum": 0}] * 150}] * 2}}  # 302 a value


def _failing(count: int) -> list[int]:
    items = [1] * count
    items[-1] = -1
    return items


def test_no_native_check_outlasts_the_time_left(monkeypatch: pytest.MonkeyPatch) -> None:
    budgets: list[Any] = []
    started: list[tuple[int, float]] = []  # (items read, seconds left when the check started)
    made = explain_budget.Budget.__init__

    def record_budget(self: Any, limits: Any) -> None:
        made(self, limits)
        budgets.append(self)

    checked = LocationValidators.every_item_valid

    def record_check(self: LocationValidators, at: Any, items: list[Any]) -> bool:
        started.append((len(items), budgets[-1].deadline - time.monotonic()))
        return checked(self, at, items)

    monkeypatch.setattr(explain_budget.Budget, "__init__", record_budget)
    monkeypatch.setattr(LocationValidators, "every_item_valid", record_check)
    quick = engine.Engine(engine.EngineConfig(limits=engine.Limits(max_explain_seconds=0.05)))
    with pytest.raises(engine.ValidationFailed) as caught:
        quick.compile(HEAVY_ITEMS).validate(_failing(50_000))  # a range of 50,000: some 150 ms
    assert caught.value.truncated
    assert "max_explain_seconds" in str(caught.value)
    for items, left in started:
        assert items * 302 * 1e-8 <= left, (items, left)


def test_affordable_checks_still_find_the_item() -> None:
    with pytest.raises(engine.ValidationFailed) as caught:
        engine.compile(HEAVY_ITEMS).validate(_failing(2_000))
    assert "max_explain_seconds" not in str(caught.value)  # (truncated at max_issues: 300 minimums fail)
    assert {issue.instance_path for issue in caught.value.issues} == {"/1999"}
    assert {issue.keyword for issue in caught.value.issues} == {"minimum"}


def test_a_recursive_schema_is_still_explained() -> None:
    # Its cost is not known (infinite): its checks start, as before.
    tree = {
        "$defs": {
            "n": {
                "type": "object",
                "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/n"}}, "v": {"minimum": 0}},
            }
        },
        "$ref": "#/$defs/n",
    }
    value = {"kids": [{"v": 1}] * 40 + [{"v": -1}]}
    with pytest.raises(engine.ValidationFailed) as caught:
        engine.compile(tree).validate(value)
    assert [issue.instance_path for issue in caught.value.issues] == ["/kids/40/v"]

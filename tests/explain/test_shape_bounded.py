"""An explanation weighs its instance before its clock starts: that weighing stops at the first
level holding more values than the budget allows, unread (ten million integers were read twice,
some two seconds, before a clock of 0.1 s began)."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine._explain import measure as budget


@pytest.fixture
def levels_read(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    read: list[int] = []
    level_width = budget._level_width

    def counted(level: list[Any], below: list[Any]) -> int:
        read.append(len(level))
        return level_width(level, below)

    monkeypatch.setattr(budget, "_level_width", counted)
    return read


@pytest.mark.parametrize("instance", [[[0]] * 5000, {"a": [{"b": 1}] * 5000}, [0, [[]] * 5000]])
def test_a_level_past_the_limit_is_counted_by_its_length_alone(instance: Any, levels_read: list[int]) -> None:
    widest, _ = budget.shape(instance, 100)
    assert widest > 100
    assert budget.size(instance, 100) > 100
    assert all(length <= 100 for length in levels_read)


def test_levels_within_the_limit_are_read_as_before() -> None:
    # The root, its two lists, then three values and ten more for the string of 640 characters.
    assert budget.shape([["a" * 640], [1, 2]], 1000) == (13, 2)
    assert budget.size([["a" * 640], [1, 2]], 1000) == 1 + 2 + 13


def test_a_long_list_is_explained() -> None:
    with pytest.raises(engine.ValidationFailed) as failed:
        engine.compile({"const": [1]}).validate([0] * 100_000)
    assert failed.value.issues

"""How deeply a decoded JSON value nests arrays and objects, counted plainly: the reference the
tests hold the engine's depth bounds to (the engine's own walks are what they check)."""

from __future__ import annotations

from typing import Any

__all__ = ["json_depth"]


def json_depth(value: Any) -> int:
    """The levels of arrays and objects in ``value`` (a scalar: 0; ``[]``: 1; ``{"a": [1]}``: 2)."""
    if type(value) is dict:
        return 1 + max(map(json_depth, value.values()), default=0)
    if type(value) is list:
        return 1 + max(map(json_depth, value), default=0)
    return 0

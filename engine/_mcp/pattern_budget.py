"""The patterns of a whole tool list, bounded: each is an automaton the regex engine builds.

The guard bounds one schema's patterns (``MAX_WRITTEN_OUT_IN_ALL`` steps written out); a tool list
holds as many schemas as the server sends. 550 tools of one pattern ``\\S{990}<i>`` each, every
schema within its bound (60 KB of tools/list), took 9 s and 1.3 GB to compile, as many raw
jsonschema-rs validators do (330 tools of one pattern `\\S{990}x` in schemas that differ
elsewhere, 12 s and 1.5 GB: each validator builds its own automaton). Once the patterns of the
schemas compiled so far take more than :data:`MAX_LIST_STEPS`, a later tool whose definition
spells a pattern is refused uncompiled.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from .._compiled import CompiledSchema
from .._engine import pattern_steps
from .._errors import RejectReason, SchemaRejected

__all__ = ["MAX_LIST_STEPS", "PatternBudget"]

MAX_LIST_STEPS = 250_000
"""The most steps the distinct patterns of a tool list may take written out: some 0.5 s and 70 MB
of automata (the real tool lists take at most 3,444: sentry-mcp's)."""


class PatternBudget:
    """The steps the patterns of the tools compiled so far take: each schema's distinct ones, each
    compiled schema once (jsonschema-rs builds a pattern's automaton for every validator that holds
    it; the engine's cache hands an equal schema's validator back)."""

    __slots__ = ("_seen", "_steps")

    def __init__(self) -> None:
        self._seen: set[int] = set()  # (the schemas are the tool set's: alive while it is built)
        self._steps = 0

    def spent(self, *schemas: CompiledSchema | None) -> None:
        """Count the patterns of a compiled tool's schemas."""
        for schema in schemas:
            if schema is None or id(schema) in self._seen:
                continue
            self._seen.add(id(schema))
            self._steps += pattern_steps(schema)

    def refusal(self, definition: Mapping[str, Any]) -> SchemaRejected | None:
        """Why the tool ``definition`` is refused uncompiled (its text spells a pattern, and the
        list's patterns are over the bound), or ``None``."""
        if self._steps <= MAX_LIST_STEPS:
            return None
        try:
            spelled = b'"pattern' in msgspec.json.encode(definition)
        except (TypeError, ValueError, OverflowError, RecursionError, msgspec.EncodeError):
            return None  # not JSON: refused where it is compiled, with the reason
        if not spelled:
            return None
        return SchemaRejected(
            RejectReason.UNSAFE_PATTERN,
            f"the tool list's patterns take {self._steps} steps written out in all before this tool, over "
            f"{MAX_LIST_STEPS}: each distinct pattern is an automaton a regex engine builds (550 tools of "
            "one pattern '\\S{990}<i>' each took 9 s and 1.3 GB to compile)",
            location="",
            details={"steps": self._steps, "bound": MAX_LIST_STEPS},
        )

"""A whole tool list, bounded: what its compiled tools hold, and the automata of their patterns.

The guard bounds one schema; a tool list holds as many schemas as the server sends, and a
``ToolSet`` keeps every tool it compiled. Two bounds apply to the list in all, each counting every
compiled schema once (the engine's cache hands an equal schema's compiled object back):

- what the compiled tools may hold in memory, by estimate (``engine._engine.held_bytes``): a
  tools/list of 22 MB, 495 tools of 2,000 properties ``{"not": {}}`` each, held 971 MB compiled
  (a list twice as long, twice that). Once the tools compiled are weighed at more than
  :data:`MAX_LIST_BYTES`, every later tool is refused uncompiled (``limit-exceeded``);
- the steps their distinct patterns take written out: 550 tools of one pattern ``\\S{990}<i>``
  each, every schema within its bound (60 KB of tools/list), took 9 s and 1.3 GB to compile, as
  many raw jsonschema-rs validators do (each validator builds its own automaton). Once past
  :data:`MAX_LIST_STEPS`, a later tool whose definition spells a pattern is refused uncompiled
  (``unsafe-pattern``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from .._compiled import CompiledSchema
from .._engine import held_bytes, pattern_steps
from .._errors import RejectReason, SchemaRejected

__all__ = ["MAX_LIST_BYTES", "MAX_LIST_STEPS", "ListBudget"]

MAX_LIST_BYTES = 1 << 30
"""The most the compiled tools of one list may be estimated to hold: 1 GiB. The estimate sits above
what every shape measured holds (about twice it for small tool schemas), and the real tool lists
take far less: 10,000 corpus tools compiled with no cache, 564 MB by estimate (228 MB held)."""

MAX_LIST_STEPS = 250_000
"""The most steps the distinct patterns of a tool list may take written out: some 0.5 s and 70 MB
of automata (the real tool lists take at most 3,444: sentry-mcp's)."""


class ListBudget:
    """What the tools compiled so far weigh, and the steps their patterns take: each compiled
    schema once."""

    __slots__ = ("_bytes", "_seen", "_steps")

    def __init__(self) -> None:
        self._seen: set[int] = set()  # (the schemas are the tool set's: alive while it is built)
        self._steps = 0
        self._bytes = 0

    def spent(self, *schemas: CompiledSchema | None) -> None:
        """Count a compiled tool's schemas."""
        for schema in schemas:
            if schema is None or id(schema) in self._seen:
                continue
            self._seen.add(id(schema))
            self._steps += pattern_steps(schema)
            self._bytes += held_bytes(schema)

    def carried(self, size: int) -> None:
        """Count ``size`` bytes more: what a holder of the compiled tools keeps beside each."""
        self._bytes += size

    def refusal(self, definition: Mapping[str, Any]) -> SchemaRejected | None:
        """Why the tool ``definition`` is refused uncompiled, or ``None``: the list's tools are
        over the memory bound, or its patterns over theirs and its text spells a pattern."""
        if self._bytes > MAX_LIST_BYTES:
            return SchemaRejected(
                RejectReason.LIMIT_EXCEEDED,
                f"the tool list's compiled tools are estimated to hold {self._bytes} bytes before this tool, over "
                f"{MAX_LIST_BYTES}: a tool set keeps every tool it compiled (495 tools of 2,000 properties "
                "'{\"not\": {}}' each, a 22 MB tools/list, held 971 MB)",
                location="",
                details={"limit": "tool list bytes", "measured": self._bytes, "bound": MAX_LIST_BYTES},
            )
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

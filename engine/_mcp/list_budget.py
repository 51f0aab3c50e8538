"""A whole tool list, bounded: how many schemas it compiles, what its compiled tools hold, and the
automata of their patterns.

The guard bounds one schema; a tool list holds as many schemas as the server sends, and a
``ToolSet`` keeps every tool it compiled. Three bounds apply to the list in all, each counting
every compiled schema once (the engine's cache hands an equal schema's compiled object back):

- how many distinct schemas it compiles: a tools/list of 15.8 MB, 170,000 tools of one small,
  distinct schema each, took 19 s and 1.1 GB to compile, each schema within every bound. Once
  :data:`MAX_LIST_SCHEMAS` are compiled, every later tool is refused uncompiled
  (``limit-exceeded``); tools whose schemas equal earlier ones cost a lookup and count once;

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

__all__ = ["MAX_LIST_BYTES", "MAX_LIST_SCHEMAS", "MAX_LIST_STEPS", "ListBudget"]

MAX_LIST_SCHEMAS = 20_000
"""The most distinct schemas one list may compile: some 2 s of compiling at the cold compile's
110 us (10,000 tools with an input and an output schema each; the real tool lists hold at most
a few hundred)."""

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

    __slots__ = ("_bytes", "_over", "_seen", "_steps")

    def __init__(self) -> None:
        self._seen: set[int] = set()  # (the schemas are the tool set's: alive while it is built)
        self._steps = 0
        self._bytes = 0
        # Once over the count or the memory bound, nothing more is compiled and every later tool
        # has the same refusal: one object, however many tools follow.
        self._over: SchemaRejected | None = None

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
        over the count or the memory bound, or its patterns over theirs and its text spells a pattern.
        The refusals of the first two are one object (the caller keeps it for each tool refused)."""
        if self._over is not None:
            return self._over
        if len(self._seen) >= MAX_LIST_SCHEMAS:
            self._over = SchemaRejected(
                RejectReason.LIMIT_EXCEEDED,
                f"the tool list has compiled {len(self._seen)} distinct schemas before this tool, the most one list "
                f"may: each takes some 110 us to compile (170,000 tools of one small schema each, a 15.8 MB "
                "tools/list, took 19 s)",
                location="",
                details={"limit": "tool list schemas", "measured": len(self._seen), "bound": MAX_LIST_SCHEMAS},
            )
            return self._over
        if self._bytes > MAX_LIST_BYTES:
            self._over = SchemaRejected(
                RejectReason.LIMIT_EXCEEDED,
                f"the tool list's compiled tools are estimated to hold {self._bytes} bytes before this tool, over "
                f"{MAX_LIST_BYTES}: a tool set keeps every tool it compiled (495 tools of 2,000 properties "
                "'{\"not\": {}}' each, a 22 MB tools/list, held 971 MB)",
                location="",
                details={"limit": "tool list bytes", "measured": self._bytes, "bound": MAX_LIST_BYTES},
            )
            return self._over
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

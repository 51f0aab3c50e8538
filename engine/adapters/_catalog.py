"""What both SDK adapters share: the tools a peer advertised, compiled once per listing.

SDK-neutral: tool definitions arrive here as plain JSON dicts, errors leave as engine errors, and
each adapter maps them to what its SDK expects.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import Any

from .._engine import Engine, default_engine
from .._errors import EngineError, SchemaRejected
from .._mcp import compile_tools

__all__ = ["ABSENT", "REFRESH_INTERVAL", "ToolCatalog", "nonconforming", "unavailable"]

# A server adapter re-reads its tools when a call names one it does not hold, but at most this often
# (seconds): a client cannot make the server recompile its tool set on every call by naming tools
# that do not exist.
REFRESH_INTERVAL = 1.0

ABSENT: Any = object()
"""A tool result without ``structuredContent`` (distinct from ``structuredContent: null``)."""


class ToolCatalog:
    """The latest tool listing and its compiled tool set.

    ``absorb`` is called with every listing the adapter sees. A complete listing replaces the
    catalog; a page of a paginated one adds to it. Each listing compiles into one
    :class:`engine.ToolSet`; schemas already compiled come from the engine's cache, so a listing
    that repeats the last one costs a fingerprint per schema, not a compile.
    """

    def __init__(self, engine: Engine | None = None) -> None:
        self.engine = engine if engine is not None else default_engine()
        self._lock = threading.Lock()
        self._tools: dict[str, dict[str, Any]] = {}
        self._toolset: Any = compile_tools([], engine=self.engine)
        self.listings = 0
        """How many listings were absorbed (each compiled the tool set once)."""

    def absorb(self, tools: Iterable[Mapping[str, Any]], *, complete: bool = True) -> None:
        with self._lock:
            merged: dict[str, dict[str, Any]] = {} if complete else dict(self._tools)
            for tool in tools:
                merged[str(tool["name"])] = dict(tool)
            toolset = compile_tools(list(merged.values()), engine=self.engine)
            self._tools, self._toolset = merged, toolset
            self.listings += 1

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    @property
    def toolset(self) -> Any:
        """The compiled :class:`engine.ToolSet` of the latest listing."""
        return self._toolset

    def tool(self, name: str) -> dict[str, Any] | None:
        return self._tools.get(name)

    def rejected(self, name: str) -> SchemaRejected | None:
        """Why the engine refused this tool's schemas, if it did."""
        return self._toolset.rejected.get(name)

    def has_output_schema(self, name: str) -> bool:
        tool = self._tools.get(name)
        return tool is not None and tool.get("outputSchema") is not None

    def validate_arguments(self, name: str, arguments: Any) -> Any:
        """Raises ``engine.UnknownTool``, ``engine.SchemaRejected`` or ``engine.ValidationFailed``."""
        return self._toolset.validate_arguments(name, arguments)

    def validate_structured(self, name: str, structured: Any) -> None:
        """Check a successful result's ``structuredContent`` (or its absence, :data:`ABSENT`)
        against the tool's ``outputSchema``. Raises like :meth:`validate_arguments`."""
        envelope: dict[str, Any] = {"content": [], "isError": False}
        if structured is not ABSENT:
            envelope["structuredContent"] = structured
        self._toolset.validate_result(name, envelope)


def unavailable(name: str, refusal: SchemaRejected) -> str:
    """What a server answers for a tool whose own schema the engine refused (it fails closed)."""
    return f"Tool {name!r} is unavailable: its schema was refused ({refusal.reason}): {refusal.message}"


def nonconforming(name: str, error: EngineError) -> str:
    """What a server answers when a tool's result breaks the outputSchema it advertises."""
    return f"Tool {name!r} returned structured content that does not conform to its outputSchema: {error.message}"

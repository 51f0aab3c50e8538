"""What both SDK adapters share: the tools a peer advertised, compiled once per schema.

SDK-neutral: tool definitions arrive here as plain JSON dicts, errors leave as engine errors, and
each adapter maps them to what its SDK expects.

- **Only changed schemas compile.** Each listing is compared with the last one, tool by tool: a
  tool whose ``inputSchema`` and ``outputSchema`` are the same objects or equal values keeps its
  compiled form; the others compile (through the engine's cache).
- **Never on the event loop.** :meth:`ToolCatalog.update` compiles in a worker thread, so a server
  keeps answering while a thousand tools compile; listings that race are applied in the order
  they were read.
- **Observable.** One ``engine.refused`` log record and one metrics event per refused schema; one
  ``engine.invalid`` record and one metrics event per payload that fails (see
  :mod:`engine.metrics`); a validation event per payload when a hook is installed.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

import anyio.to_thread
import msgspec

from .. import _metrics
from .._config_values import short_repr
from .._engine import Engine, engine_or_default
from .._errors import EngineError, RejectReason, SchemaRejected, UnknownTool
from .._mcp import ToolSet, compile_tools
from .._mcp.list_budget import ListBudget
from .._metrics import Direction, Side

__all__ = [
    "ABSENT",
    "Pending",
    "REFRESH_INTERVAL",
    "ReportOnly",
    "ToolCatalog",
    "ToolEntry",
    "check_session_settings",
    "checked_flag",
    "checked_interval",
    "log_invalid",
    "nonconforming",
    "observe",
    "report_only_for",
    "unavailable",
]

refused_logger = logging.getLogger("engine.refused")
invalid_logger = logging.getLogger("engine.invalid")

# A server adapter re-reads its tools when a call names one it does not hold, and when the last
# read is older than this (seconds): a changed schema is picked up within a second, and a client
# cannot make the server re-read its tool list on every call by naming tools that do not exist.
REFRESH_INTERVAL = 1.0

ABSENT: Any = object()
"""A tool result without ``structuredContent`` (distinct from ``structuredContent: null``)."""

ReportOnly = bool | Collection[str]
"""Report-only (shadow) mode: ``True`` for every tool, or the names of the tools it applies to.
A failure is logged and counted, and the call goes on unchanged."""

T = TypeVar("T")


def _never(name: str | None) -> bool:
    return False


def _always(name: str | None) -> bool:
    return True


def report_only_for(setting: ReportOnly) -> Callable[[str | None], bool]:
    """Whether a tool is in report-only mode, as a predicate; a ``TypeError`` naming the setting
    for anything but ``True``, ``False`` or a collection of tool names (checked when the adapter
    is built, not on the first call)."""
    if setting is True:
        return _always
    if setting is False:
        return _never
    if isinstance(setting, (str, bytes)) or not isinstance(setting, Collection):
        raise TypeError(f"report_only takes True, False or a collection of tool names, not {_shown(setting)}")
    names = frozenset(setting)
    odd = next((name for name in names if type(name) is not str), None)
    if odd is not None:
        raise TypeError(f"report_only takes tool names (str), not {_shown(odd)}")
    return names.__contains__


def check_session_settings(engine: object, report_only: object) -> None:
    """A client's ``engine=`` and ``report_only=``, checked where they are given: its sessions,
    which read them, are built later (when the client connects)."""
    if engine is not None:
        engine_or_default(engine)  # type: ignore[arg-type]  # raises the TypeError that says what it takes
    report_only_for(report_only)  # type: ignore[arg-type]


def checked_flag(name: str, value: object) -> bool:
    """An adapter's on/off setting: exactly ``True`` or ``False`` (``"no"`` is not false)."""
    if type(value) is not bool:
        raise TypeError(f"{name} takes True or False, not {_shown(value)}")
    return value


def checked_interval(value: object) -> float:
    """``refresh_interval``: a finite number of seconds, zero (re-read on every call) or more."""
    if not (type(value) is int or (type(value) is float and math.isfinite(value))):
        raise TypeError(f"refresh_interval takes a number of seconds, not {_shown(value)}")
    assert isinstance(value, (int, float))  # noqa: S101 - for the type checker: shown above
    if value < 0:
        raise ValueError(f"refresh_interval takes a number of seconds, zero or more, not {short_repr(value)}")
    return float(value) if value < 2**53 else math.inf  # an int past a float's range: never stale


def _shown(value: object) -> str:
    return f"{type(value).__name__} {short_repr(value)}"


ENTRY_BYTES = 8192
"""What the catalog holds for each compiled tool beside its compiled schemas (its definition, a
tool set of its own, the entry), weighed in the tool list's memory bound: an ``EngineClient`` held
7 KB a tool for 110,000 tools of one-property schemas (842 MB), of which the compiled
``outputSchema`` is estimated at 3.8 KB (the client compiles no ``inputSchema``)."""


@dataclass(frozen=True, slots=True)
class ToolEntry:
    """One listed tool: its definition, its compiled tool set, why it was refused, whether it
    declares an ``outputSchema``; and for a refused tool, what it holds (see :func:`_refused_bytes`),
    weighed once, not on every listing after."""

    definition: Mapping[str, Any]
    toolset: ToolSet
    refusal: SchemaRejected | None
    has_output: bool
    held: int = 0

    def validate_structured(self, name: str, structured: Any) -> None:
        """:meth:`ToolCatalog.validate_structured` of this tool."""
        if structured is ABSENT:  # refused where the tool declares an outputSchema, with the reason
            self.toolset.validate_result(name, {"content": [], "isError": False})
        else:
            self.toolset.validate_structured(name, structured)


@dataclass(frozen=True, slots=True)
class Pending:
    """A listing read by :meth:`ToolCatalog.plan`, waiting for its compiles."""

    ticket: int
    listing: dict[str, Mapping[str, Any] | None]
    changed: list[Mapping[str, Any]]
    complete: bool
    declared_output: frozenset[str] = frozenset()
    """The names listed more than once where one of the definitions declares an ``outputSchema``."""


def _same_schemas(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    for key in ("inputSchema", "outputSchema"):
        x, y = a.get(key), b.get(key)
        if x is not y and x != y:
            return False
    return True


class ToolCatalog:
    """The latest tool listing, compiled tool by tool.

    ``absorb`` (compiles on the calling thread) or ``await update(...)`` (compiles in a worker
    thread) is called with every listing the adapter sees. A complete listing replaces the
    catalog; a page of a paginated one adds to it.
    """

    def __init__(self, engine: Engine | None = None, *, side: Side = "server") -> None:
        self.engine = engine_or_default(engine)
        self.side: Side = side
        self._lock = threading.Lock()
        self._entries: dict[str, ToolEntry] = {}
        self._none = compile_tools([], engine=self.engine)  # the tool set of a tool refused uncompiled
        self._reported: dict[tuple[str, str, str, str], None] = {}  # see `_first_report`
        self._read = 0  # listings read, in order
        self._applied = 0  # the newest listing applied
        self.listings = 0
        """How many listings were absorbed."""
        self.compiled = 0
        """How many tool definitions were compiled (new or changed ones only)."""

    # --- listings --------------------------------------------------------------------------------

    def plan(self, tools: Iterable[Mapping[str, Any]], *, complete: bool = True) -> Pending:
        """Read a listing (cheap: a comparison per tool) and note what must compile; the listing
        takes effect at :meth:`finish`. Listings take effect in the order they were planned."""
        with self._lock:
            self._read += 1
            ticket = self._read
            current = self._entries
        listing: dict[str, Mapping[str, Any] | None] = {}  # None: listed twice
        declared_output: set[str] = set()
        for tool in tools:
            name = tool.get("name")
            if type(name) is not str:  # no call can name it: nothing to check it against
                continue
            if name in listing:
                # Neither definition is used; a result is refused where either declares an
                # output schema, since no one schema can check it.
                first = listing[name]
                if tool.get("outputSchema") is not None or (
                    first is not None and first.get("outputSchema") is not None
                ):
                    declared_output.add(name)
                listing[name] = None
            else:
                listing[name] = tool
        changed: list[Mapping[str, Any]] = []
        for listed in listing.values():
            if listed is None:
                continue
            entry = current.get(str(listed["name"]))
            if entry is None or not _same_schemas(entry.definition, listed):
                changed.append(listed)
        return Pending(ticket, listing, changed, complete, frozenset(declared_output))

    def _compile(self, pending: Pending, *, yielding: bool = False) -> dict[str, ToolEntry]:
        return self._compiled(pending.changed, self._held_after(pending), yielding=yielding)

    def _held_after(self, pending: Pending) -> ListBudget:
        """What the catalog's compiled tools that stay once ``pending`` applies weigh: a tool list's
        bounds (``engine._mcp.list_budget``) hold for the catalog in all, pages and re-listings
        included, as for one ``compile_tools`` call."""
        budget = ListBudget()
        replaced = {str(tool["name"]) for tool in pending.changed}
        for name, entry in self._entries.items():
            if name in replaced or (pending.complete and name not in pending.listing):
                continue
            if entry.refusal is not None:  # (pages of refused tools grew a catalog for ever)
                budget.carried(entry.held)
                continue
            tool = entry.toolset.tool(name)
            budget.spent(tool.input, tool.output)
            budget.carried(ENTRY_BYTES)
        return budget

    def _compiled(
        self, changed: list[Mapping[str, Any]], budget: ListBudget, *, yielding: bool = False
    ) -> dict[str, ToolEntry]:
        compiled: dict[str, ToolEntry] = {}
        for tool in changed:
            if yielding:
                time.sleep(0)  # hand the GIL to the event loop between tools, not only every 5 ms
            name = str(tool["name"])
            declared = tool.get("outputSchema") is not None
            refusal = budget.refusal(tool)
            if refusal is None:
                # A client checks results only: an inputSchema it would refuse (the server's to
                # read) must not refuse them, so it compiles the outputSchema alone.
                compiled_as = dict(tool) if self.side == "server" else {**tool, "inputSchema": {"type": "object"}}
                toolset = compile_tools([compiled_as], engine=self.engine)
                refusal = toolset.rejected.get(name)
                if refusal is None:
                    kept = toolset.tool(name)
                    budget.spent(kept.input, kept.output)
                    budget.carried(ENTRY_BYTES)
                else:  # its refusal is all it keeps: its definition weighed (a server may list many)
                    toolset = self._none
            else:  # past the list's bounds: refused uncompiled, its name all it keeps
                toolset = self._none  # (one for every refused tool)
                tool = {"name": name}
            held = 0 if refusal is None else _refused_bytes(tool)
            budget.carried(held)
            compiled[name] = ToolEntry(tool, toolset, refusal, declared, held)
            if refusal is not None:
                self._report_refusal(name, refusal)
        return compiled

    def _apply(self, pending: Pending, compiled: dict[str, ToolEntry]) -> None:
        with self._lock:
            self.listings += 1
            self.compiled += len(compiled)
            if pending.ticket < self._applied:
                return  # a newer listing was applied while this one compiled
            self._applied = pending.ticket
            entries: dict[str, ToolEntry] = {} if pending.complete else dict(self._entries)
            duplicated: list[tuple[str, SchemaRejected]] = []
            for name, tool in pending.listing.items():
                if tool is None:
                    refusal = SchemaRejected(
                        RejectReason.INVALID_SCHEMA,
                        f"tool name {name!r} is listed more than once",
                        details={"tool": name},
                    )
                    declared = name in pending.declared_output
                    definition = {"name": name}
                    entries[name] = ToolEntry(definition, self._none, refusal, declared, _refused_bytes(definition))
                    duplicated.append((name, refusal))
                    continue
                entry = compiled.get(name)
                if entry is None:
                    entry = self._entries.get(name)
                    if entry is None or not _same_schemas(entry.definition, tool):
                        # planned against an older catalog: compile it now (a cache hit, usually)
                        entry = self._compiled([tool], self._held_after(pending))[name]
                        self.compiled += 1
                entries[name] = entry
            self._entries = entries
        for name, refusal in duplicated:
            self._report_refusal(name, refusal)

    def absorb(self, tools: Iterable[Mapping[str, Any]], *, complete: bool = True) -> None:
        """Take a listing in, compiling new and changed tools on this thread."""
        pending = self.plan(tools, complete=complete)
        self._apply(pending, self._compile(pending))

    async def finish(self, pending: Pending) -> None:
        """Compile what :meth:`plan` found in a worker thread (the event loop keeps serving), then
        let the listing take effect."""
        compiled = (
            await anyio.to_thread.run_sync(partial(self._compile, yielding=True), pending) if pending.changed else {}
        )
        self._apply(pending, compiled)

    async def update(self, tools: Iterable[Mapping[str, Any]], *, complete: bool = True) -> None:
        """:meth:`plan` then :meth:`finish`: a listing with nothing new costs a comparison per tool."""
        await self.finish(self.plan(tools, complete=complete))

    def _first_report(self, name: str, refusal: SchemaRejected) -> bool:
        """Whether ``refusal`` of tool ``name`` is reported now: not if it was lately. A list's
        bound refuses every later tool with one refusal: reported once, not once a tool."""
        listwide = str(refusal.details.get("limit", "")).startswith("tool list")
        key = ("" if listwide else name, str(refusal.reason), refusal.location or "", refusal.message)
        with self._lock:
            reported = self._reported
            if key in reported:
                return False
            reported[key] = None
            if len(reported) > _REPORTED:
                del reported[next(iter(reported))]
        return True

    def _report_refusal(self, name: str, refusal: SchemaRejected) -> None:
        if not self._first_report(name, refusal):
            return
        schema = refusal.details.get("schema")
        refused_logger.warning(
            "tool %s cannot be used: its %s was refused (%s): %s",
            quoted(name),
            schema or "schema",
            refusal.reason,
            refusal.message,
            extra={
                "tool": logged(name),
                "schema": schema,
                "reason": str(refusal.reason),
                "side": self.side,
                "location": logged(refusal.location),
            },
        )
        if _metrics.hooks:
            _metrics.emit(
                _metrics.RefusalEvent(
                    tool=name,
                    schema=None if schema is None else str(schema),
                    reason=str(refusal.reason),
                    message=refusal.message,
                    side=self.side,
                )
            )

    # --- look-ups --------------------------------------------------------------------------------

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def names(self) -> list[str]:
        return list(self._entries)

    def tool(self, name: str) -> Mapping[str, Any] | None:
        """The definition as listed."""
        entry = self._entries.get(name)
        return None if entry is None else entry.definition

    def rejected(self, name: str) -> SchemaRejected | None:
        """Why the engine refused this tool's schemas, if it did."""
        entry = self._entries.get(name)
        return None if entry is None else entry.refusal

    def refusals(self) -> dict[str, SchemaRejected]:
        """Every refused tool, with the reason."""
        return {name: e.refusal for name, e in self._entries.items() if e.refusal is not None}

    def has_output_schema(self, name: str) -> bool:
        entry = self._entries.get(name)
        return entry is not None and entry.has_output

    def entry(self, name: str) -> ToolEntry | None:
        """The tool as the catalog holds it now (``None`` if it is not listed): what checks a
        result for it whatever a later listing says (the SDK keeps the schema it listed)."""
        return self._entries.get(name)

    # --- validation ------------------------------------------------------------------------------

    def validate_arguments(self, name: str, arguments: Any) -> Any:
        """Raises ``engine.UnknownTool``, ``engine.SchemaRejected`` or ``engine.ValidationFailed``."""
        entry = self._entries.get(name)
        if entry is None:
            raise UnknownTool(name)
        return entry.toolset.validate_arguments(name, arguments)

    def validate_structured(self, name: str, structured: Any) -> None:
        """Check a successful result's ``structuredContent`` (or its absence, :data:`ABSENT`)
        against the tool's ``outputSchema``. Raises like :meth:`validate_arguments`."""
        entry = self._entries.get(name)
        if entry is None:
            raise UnknownTool(name)
        entry.validate_structured(name, structured)


def _refused_bytes(definition: Mapping[str, Any]) -> int:
    """What a refused tool kept in a catalog holds, by estimate: an entry's bytes and four times its
    definition's JSON text (a definition that is no JSON value, which every schema refuses, by its
    name alone)."""
    try:
        return ENTRY_BYTES + 4 * len(msgspec.json.encode(definition))
    except (TypeError, ValueError, OverflowError, RecursionError, msgspec.EncodeError):
        return ENTRY_BYTES + 4 * len(str(definition.get("name", "")))


_REPORTED = 4_096
"""Refusals a catalog remembers as reported (the newest): one is logged and counted once, not again
on each listing that lists the tool (a list_changed storm)."""


def observe(tool: str | None, direction: Direction, side: Side, start: float, valid: bool, enforced: bool) -> None:
    """Emit one :class:`engine.metrics.ValidationEvent` (call only when ``_metrics.hooks``)."""
    _metrics.emit(
        _metrics.ValidationEvent(
            tool=tool,
            direction=direction,
            side=side,
            valid=valid,
            enforced=enforced,
            seconds=time.perf_counter() - start,
        )
    )


LOGGED = 256
"""The longest text a peer sent (a tool name, a path in its payload) a log record holds as it is."""


def logged(text: str | None) -> str | None:
    """A peer's text as a log record holds it, in its message or as an attribute: as it is where
    short and printable; otherwise quoted with escapes (a newline would forge a line of a text
    log) and cut after :data:`LOGGED` characters, saying how long it was (a name of a megabyte
    made a record of two)."""
    if text is None or (len(text) <= LOGGED and text.isprintable()):
        return text
    return quoted(text)


def quoted(text: str | None) -> str:
    """A peer's text as a message quotes it (``repr``), cut after :data:`LOGGED` characters."""
    if text is None or len(text) <= LOGGED:
        return repr(text)
    return f"{text[:LOGGED]!r}... ({len(text)} characters)"


def log_invalid(tool: str | None, direction: Direction, side: Side, error: EngineError, *, enforced: bool) -> None:
    """One ``engine.invalid`` record per payload that failed: INFO when the peer got an error,
    WARNING in report-only mode (where nothing else shows it)."""
    issues = getattr(error, "issues", ())
    invalid_logger.log(
        logging.INFO if enforced else logging.WARNING,
        "%s %s of tool %s: %s%s",
        "refused" if enforced else "report-only: would refuse",
        direction,
        quoted(tool),
        error.message,
        "" if enforced else " (passed unchanged)",
        extra={
            "tool": logged(tool),
            "direction": direction,
            "side": side,
            "enforced": enforced,
            "reason": str(getattr(error, "reason", "invalid")),
            "issues": [{"instancePath": logged(i.instance_path), "keyword": i.keyword} for i in issues],
        },
    )


def unavailable(name: str, refusal: SchemaRejected) -> str:
    """What a server answers for a tool whose own schema the engine refused (it fails closed)."""
    return f"Tool {short_repr(name)} is unavailable: its schema was refused ({refusal.reason}): {refusal.message}"


def nonconforming(name: str, error: EngineError) -> str:
    """What a server answers when a tool's result breaks the outputSchema it advertises."""
    return (
        f"Tool {short_repr(name)} returned structured content that does not conform to its outputSchema: "
        f"{error.message}"
    )

"""The client side of the SDK adapter: sessions whose tool results the engine checks."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, cast

import anyio
import mcp_types as types
from mcp.client.client import Client
from mcp.client.session import ClientSession
from mcp.shared.dispatcher import ProgressFnT

from .. import _metrics
from .._engine import Engine
from .._errors import DecodeError, EngineError, SchemaRejected, ValidationFailed
from ._catalog import (
    ReportOnly,
    ToolCatalog,
    ToolEntry,
    check_session_settings,
    log_invalid,
    logged,
    observe,
    report_only_for,
)
from ._sdk_tools import structured_content, tool_definition

logger = logging.getLogger("engine.adapters.mcp_sdk")

# The tool a call is being made to, and its entry as the session held it when the call was sent
# (`None`: not listed then): read when its result is checked, in the same task.
_SENT: ContextVar[tuple[EngineClientSession, str, ToolEntry | None] | None] = ContextVar("engine_sent", default=None)


class InvalidToolResult(RuntimeError, EngineError):
    """A tool result the engine refused. A ``RuntimeError``, like the SDK's own validation error,
    so existing callers keep working, and an :class:`~engine.EngineError` (its ``reason`` is its
    error's); ``error`` is the engine's error: a :class:`~engine.ValidationFailed` (``issues`` and
    all) for a result that breaks the tool's ``outputSchema``, a :class:`~engine.DecodeError` for
    one that is no JSON value (a NaN, a lone surrogate: the SDK's parser admits both), a
    :class:`~engine.SchemaRejected` for a tool whose ``outputSchema`` the engine refuses."""

    def __init__(self, message: str, *, tool: str, error: ValidationFailed | DecodeError | SchemaRejected) -> None:
        RuntimeError.__init__(self, message)
        self.message = message
        self.tool = tool
        self.error = error
        self.reason = str(error.reason)

    def __reduce__(self) -> tuple[Any, ...]:
        # Its keyword arguments kept: the default passes the message alone, which `__init__` refuses.
        return (_invalid_tool_result, (str(self), self.tool, self.error))


def _invalid_tool_result(
    message: str, tool: str, error: ValidationFailed | DecodeError | SchemaRejected
) -> InvalidToolResult:
    return InvalidToolResult(message, tool=tool, error=error)


class EngineClientSession(ClientSession):
    """``ClientSession`` whose tool-result validation is done by the engine.

    ``engine=`` shares a configured :class:`engine.Engine` (and its cache) between sessions (the
    process-wide engine by default); ``report_only=True`` (or a collection of tool names) logs and
    counts a non-conforming result instead of raising.
    """

    _engine_catalog: ToolCatalog
    _engine_report_only: Callable[[str | None], bool]
    _engine_pending: list[Any]
    _engine_lock: anyio.Lock
    _engine_stale: bool

    def __init__(
        self, *args: Any, engine: Engine | None = None, report_only: ReportOnly = False, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self._engine_setup(engine, report_only)

    def _engine_setup(self, engine: Engine | None, report_only: ReportOnly) -> None:
        self._engine_catalog = ToolCatalog(engine, side="client")
        self._engine_report_only = report_only_for(report_only)
        self._engine_pending = []
        self._engine_lock = anyio.Lock()
        self._engine_stale = False
        forward = self._message_handler

        async def message_handler(message: Any) -> None:
            if isinstance(message, types.ToolListChangedNotification):
                self._engine_stale = True  # the next check lists the tools again
            await forward(message)

        self._message_handler = message_handler

    @classmethod
    def upgrade(
        cls, session: ClientSession, engine: Engine | None = None, *, report_only: ReportOnly = False
    ) -> EngineClientSession:
        """Turn a session the SDK built (inside ``mcp.Client``, or FastMCP's ``Client``) into an
        engine-checked one, in place; call it before the session lists tools.

        A session of a ``ClientSession`` subclass keeps its own hooks: they run first and reach the
        engine where they call the SDK's (FastMCP's session, for one, skips the check for a call
        pinned to another tool version, and the engine checks the rest).
        """
        if isinstance(session, EngineClientSession):
            return session
        kind = type(session)
        session.__class__ = cls if kind is ClientSession else _engine_subclass(kind, cls)
        upgraded = cast(EngineClientSession, session)
        upgraded._engine_setup(engine, report_only)
        return upgraded

    @property
    def engine_tools(self) -> ToolCatalog:
        """The engine's view of the listed tools (compiled tools, refusals)."""
        return self._engine_catalog

    def _absorb_tool_listing(self, result: types.ListToolsResult, *, complete: bool) -> types.ListToolsResult:
        # The SDK calls this for every listing it receives or serves from its response cache. It is
        # synchronous: the listing is read here, and compiled off the loop before the next check.
        result = super()._absorb_tool_listing(result, complete=complete)
        self._engine_pending.append(
            self._engine_catalog.plan((tool_definition(t) for t in result.tools), complete=complete)
        )
        if complete:
            self._engine_stale = False
        return result

    async def _engine_flush(self) -> None:
        if not self._engine_pending:
            return
        async with self._engine_lock:  # listings take effect in order, before any check reads them
            while self._engine_pending:
                pending, self._engine_pending = self._engine_pending, []
                for listing in pending:
                    await self._engine_catalog.finish(listing)

    async def list_tools(self, *, params: types.PaginatedRequestParams | None = None) -> types.ListToolsResult:
        result = await super().list_tools(params=params)
        await self._engine_flush()
        return result

    async def call_tool(  # type: ignore[override]  # the SDK's overloads narrow its return by two flags
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        read_timeout_seconds: float | None = None,
        progress_callback: ProgressFnT | None = None,
        *,
        input_responses: types.InputResponses | None = None,
        request_state: str | None = None,
        meta: types.RequestParamsMeta | None = None,
        allow_input_required: bool = False,
        allow_claimed: bool = False,
    ) -> types.CallToolResult | types.InputRequiredResult | types.Result:
        """The SDK's ``call_tool``; its result is checked against the schemas the client holds for
        the tool as the call is sent (a listing a ``list_changed`` asked for is read first), so a
        server cannot drop or loosen a schema while the call runs."""
        await self._engine_flush()
        if self._engine_stale:
            self._engine_stale = False  # one listing per notification, even a paginated one
            await self.list_tools()
        sent = _SENT.set((self, name, self._engine_catalog.entry(name)))
        try:
            return await super().call_tool(
                name,
                arguments,
                read_timeout_seconds,
                progress_callback,
                input_responses=input_responses,
                request_state=request_state,
                meta=meta,
                allow_input_required=allow_input_required,
                allow_claimed=allow_claimed,
            )
        finally:
            _SENT.reset(sent)

    async def validate_tool_result(self, name: str, result: types.CallToolResult) -> None:
        await self._engine_flush()
        catalog = self._engine_catalog
        sent = _SENT.get()
        entry = sent[2] if sent is not None and sent[0] is self and sent[1] == name else None
        if self._engine_stale or name not in catalog:
            self._engine_stale = False  # one listing per notification, even a paginated one
            await self.list_tools()  # as the SDK does: a tool never listed may be new
        if entry is None:  # not listed when the call was sent (or not sent by `call_tool`)
            entry = catalog.entry(name)
        if entry is None:
            logger.warning("Tool %s not listed by server, cannot validate any structured content", logged(name))
            return
        if not entry.has_output:
            return
        hooks = _metrics.hooks
        start = time.perf_counter() if hooks else 0.0
        error: ValidationFailed | DecodeError | SchemaRejected | None = entry.refusal
        if error is None:
            try:
                entry.validate_structured(name, structured_content(result))
            except (ValidationFailed, DecodeError, SchemaRejected) as exc:
                error = exc
        enforced = not self._engine_report_only(name)
        if hooks:
            observe(name, "result", "client", start, error is None, enforced)
        if error is None:
            return
        log_invalid(name, "result", "client", error, enforced=enforced)
        if not enforced:
            return
        if not isinstance(error, SchemaRejected):
            raise InvalidToolResult(
                f"Invalid structured content returned by tool {logged(name)}: {error.message}", tool=name, error=error
            )
        raise InvalidToolResult(f"Invalid schema for tool {logged(name)}: {error.message}", tool=name, error=error)


_combined: dict[tuple[type[ClientSession], type[EngineClientSession]], type[EngineClientSession]] = {}


def _engine_subclass(kind: type[ClientSession], engine_class: type[EngineClientSession]) -> type[EngineClientSession]:
    """``kind`` with the engine's hooks behind its own: MRO kind -> engine -> ClientSession."""
    combined = _combined.get((kind, engine_class))
    if combined is None:
        combined = cast(
            type[EngineClientSession], type(f"Engine{kind.__name__}", (kind, engine_class), {"__module__": __name__})
        )
        _combined[(kind, engine_class)] = combined
    return combined


@dataclass
class EngineClient(Client):
    """``mcp.Client`` with an :class:`EngineClientSession` underneath.

    ``EngineClient(url, engine=eng)`` is used exactly like ``Client(url)``; ``report_only``
    as for :class:`EngineClientSession`.
    """

    engine: Engine | None = None
    report_only: ReportOnly = False

    def __post_init__(self) -> None:
        super().__post_init__()
        check_session_settings(self.engine, self.report_only)  # here, not when the session opens

    async def _build_session(self, exit_stack: AsyncExitStack) -> ClientSession:
        session = await super()._build_session(exit_stack)
        return EngineClientSession.upgrade(session, self.engine, report_only=self.report_only)

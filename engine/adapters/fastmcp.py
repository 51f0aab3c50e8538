"""The engine inside FastMCP (``fastmcp`` 4.x): ``pip install 'engine[fastmcp]'``.

- **Server** (:class:`EngineValidation`, a FastMCP middleware): ``tools/call`` arguments are
  validated against the ``inputSchema`` the server advertises (tools built from a raw schema,
  proxied and transformed tools included, which pydantic never sees) and the tool's
  ``structuredContent`` against its ``outputSchema`` on the way out. Schemas compile off the event
  loop, only when new or changed. Invalid arguments become an ``isError`` result with the issues;
  an unknown tool is JSON-RPC invalid-params (-32602) — FastMCP alone answers an unknown tool with
  an ``isError`` result; a result that does not conform becomes an ``isError`` result
  (``ToolError``), as FastMCP reports other tool failures. Answers go out through FastMCP and the
  SDK, shaped for the negotiated protocol version like any tool result.
- **Client** (:func:`validate_results`): a FastMCP ``Client`` whose every session checks results
  with the engine (FastMCP's own session hooks kept in front).
- **Elicitation** (:func:`elicit`): a hand-written ``requestedSchema`` asked from a tool on every
  protocol generation, the answer validated by the engine.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from .._optional import missing_dependency

try:
    import anyio
    import mcp_types as types
    from fastmcp import Client, Context
    from fastmcp.client.transports.base import TransportOptions, VersionAwareClientSession
    from fastmcp.exceptions import FastMCPError, ToolError
    from fastmcp.server.dependencies import extract_version_spec
    from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
    from fastmcp.tools.base import InputRequiredToolResult, Tool, ToolResult
    from fastmcp.utilities.versions import VersionSpec, dedupe_with_versions
    from mcp.shared.exceptions import MCPError
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    from .. import _metrics
    from .._engine import Engine
    from .._errors import DecodeError, SchemaRejected, UnknownTool, ValidationFailed
    from .._mcp import ElicitResult, compile_elicitation, invalid_arguments_result
    from .._mcp.mapping import older_versions_cannot_list
    from . import _elicit
    from ._catalog import (
        ABSENT,
        REFRESH_INTERVAL,
        ReportOnly,
        ToolCatalog,
        check_session_settings,
        checked_flag,
        checked_interval,
        log_invalid,
        logged,
        nonconforming,
        observe,
        quoted,
        report_only_for,
        unavailable,
    )
    from ._elicit import ask
    from .mcp_sdk import EngineClientSession, InputRequired
except ModuleNotFoundError as exc:
    raise missing_dependency(exc, module=__name__, needs="FastMCP (fastmcp 4.x)", extra="fastmcp") from exc

__all__ = ["EngineValidation", "InputRequired", "elicit", "tool_definition", "validate_results"]

logger = logging.getLogger("engine.adapters.fastmcp")
_PINNED = 64  # tool versions whose pinned calls keep a catalog of their own


def tool_definition(tool: Tool) -> dict[str, Any]:
    """A FastMCP tool as the plain JSON the engine compiles (the tool's own schemas)."""
    definition: dict[str, Any] = {"name": tool.name, "inputSchema": tool.parameters}
    if tool.output_schema is not None:
        definition["outputSchema"] = tool.output_schema
    return definition


class EngineValidation(Middleware):
    """Validate tool arguments and results against the advertised schemas with the engine.

    ``FastMCP(..., middleware=[EngineValidation(engine)])`` or ``server.add_middleware(...)``.
    ``report_only`` (``True`` or tool names): failures are logged and counted, calls pass
    unchanged. ``refresh_interval``: how old (seconds) the compiled view of the tool list may get
    before a call re-reads it (only changed schemas compile).
    """

    def __init__(
        self,
        engine: Engine | None = None,
        *,
        validate_results: bool = True,
        report_only: ReportOnly = False,
        refresh_interval: float = REFRESH_INTERVAL,
    ) -> None:
        self.catalog = ToolCatalog(engine, side="server")
        self.validate_results = checked_flag("validate_results", validate_results)
        self.refresh_interval = checked_interval(refresh_interval)
        self._report_only = report_only_for(report_only)
        self._listed_at: float | None = None
        self._hidden_from_older: set[str] = set()
        self._reading: anyio.Event | None = None
        self._pinned: dict[tuple[str, str], ToolCatalog] = {}  # see `_catalog_for`

    async def warm_up(self, server: Any) -> None:
        """Compile ``server``'s tools now (before serving, and before forking workers)."""
        await self._read(server)

    async def on_list_tools(
        self,
        context: MiddlewareContext[types.ListToolsRequest],
        call_next: CallNext[types.ListToolsRequest, Sequence[Tool]],
    ) -> Sequence[Tool]:
        tools = await call_next(context)
        # Merged, never taken as the whole list: a listing may be scoped to the caller.
        await self.catalog.update((tool_definition(t) for t in _highest(tools)), complete=False)
        version = _protocol_version(context)
        if version is None or version in MODERN_PROTOCOL_VERSIONS:
            return tools
        kept = []
        for tool in tools:
            why = older_versions_cannot_list(tool_definition(tool))
            if why is None:
                kept.append(tool)
            elif tool.name not in self._hidden_from_older:
                self._hidden_from_older.add(tool.name)
                logger.warning(
                    "tool %s is left out of tools/list for clients before 2026-07-28 (this one negotiated %s): %s",
                    quoted(tool.name),
                    version,
                    why,
                    extra={"tool": logged(tool.name), "protocol_version": version},
                )
        return kept

    async def _read(self, server: Any) -> None:
        previous, self._listed_at = self._listed_at, time.monotonic()
        self._reading = done = anyio.Event()
        try:
            tools = await server.list_tools(run_middleware=False)
            await self.catalog.update(tool_definition(t) for t in _highest(tools))
        except BaseException:
            self._listed_at = previous  # a failed read is none: the next call reads again
            raise
        finally:
            done.set()
            if self._reading is done:
                self._reading = None

    async def on_call_tool(
        self,
        context: MiddlewareContext[types.CallToolRequestParams],
        call_next: CallNext[types.CallToolRequestParams, ToolResult],
    ) -> ToolResult:
        name = context.message.name
        arguments = context.message.arguments or {}
        catalog = await self._catalog_for(context, name)
        enforced = not self._report_only(name)
        rejected = catalog.rejected(name)
        if rejected is not None and enforced:
            raise ToolError(unavailable(name, rejected))
        if rejected is not None:  # report-only: the call goes on unchecked, and says so
            if _metrics.hooks:
                observe(name, "arguments", "server", time.perf_counter(), False, enforced)
            log_invalid(name, "arguments", "server", rejected, enforced=enforced)
        else:
            hooks = _metrics.hooks
            start = time.perf_counter() if hooks else 0.0
            try:
                catalog.validate_arguments(name, arguments)
            except UnknownTool as exc:
                error = exc.to_jsonrpc_error()
                raise MCPError(code=error["code"], message=error["message"], data=error.get("data")) from None
            except (ValidationFailed, DecodeError) as exc:  # a NaN or a lone surrogate is no JSON value either
                if hooks:
                    observe(name, "arguments", "server", start, False, enforced)
                log_invalid(name, "arguments", "server", exc, enforced=enforced)
                if enforced:
                    answer = invalid_arguments_result(exc, name, structured_content=not catalog.has_output_schema(name))
                    return ToolResult.from_mcp_result(types.CallToolResult.model_validate(answer))
            else:
                if hooks:
                    observe(name, "arguments", "server", start, True, enforced)

        try:
            result = await call_next(context)
        except _elicit.InputRequired as request:
            return InputRequiredToolResult(types.InputRequiredResult.model_validate(request.result))
        except _elicit.StateTooLarge as exc:  # the tool's error, said to the client
            raise ToolError(exc.message) from None
        if not self.validate_results or result.is_error or not catalog.has_output_schema(name) or rejected:
            return result
        if getattr(result, "input_required", None) is not None:
            return result  # a multi-round-trip ask (SEP-2322) carries no tool output yet
        structured = result.structured_content if result.structured_content is not None else ABSENT
        hooks = _metrics.hooks
        start = time.perf_counter() if hooks else 0.0
        try:
            catalog.validate_structured(name, structured)
        except (ValidationFailed, DecodeError, SchemaRejected) as exc:
            if hooks:
                observe(name, "result", "server", start, False, enforced)
            log_invalid(name, "result", "server", exc, enforced=enforced)
            if enforced:
                raise ToolError(nonconforming(name, exc)) from None
            return result
        if hooks:
            observe(name, "result", "server", start, True, enforced)
        return result

    async def _catalog_for(self, context: MiddlewareContext[Any], name: str) -> ToolCatalog:
        server = context.fastmcp_context.fastmcp if context.fastmcp_context is not None else None
        pinned = extract_version_spec(context.message.meta if isinstance(context.message.meta, dict) else None)
        if server is not None and pinned is not None:
            # A call pinned to one version is checked against that version's own schemas.
            tool = await server.get_tool(name, version=VersionSpec(eq=pinned))
            # One catalog per tool and version, kept (the newest few): a listing that did not
            # change costs a comparison, and a refusal is reported once, not on every pinned call.
            key = (name, str(pinned))
            single = self._pinned.pop(key, None) or ToolCatalog(self.catalog.engine, side="server")
            self._pinned[key] = single
            if len(self._pinned) > _PINNED:
                del self._pinned[next(iter(self._pinned))]
            await single.update([tool_definition(tool)] if tool is not None else [])
            return single
        listed_at = self._listed_at
        if server is not None:
            now = time.monotonic()
            if (
                listed_at is None
                or now - listed_at >= self.refresh_interval
                or (name not in self.catalog and now - listed_at >= min(self.refresh_interval, REFRESH_INTERVAL))
            ):
                # First call, an old view, or a tool added since: list as the server would (unknown
                # names re-read at most once a second, so they cannot force a re-read per call).
                await self._read(server)
            elif name not in self.catalog and self._reading is not None:
                await self._reading.wait()  # the first read is still compiling: wait, do not refuse
        return self.catalog


def _protocol_version(context: MiddlewareContext[Any]) -> str | None:
    ctx = context.fastmcp_context
    rc = ctx.request_context if ctx is not None else None
    version = getattr(rc, "protocol_version", None)
    return version if isinstance(version, str) else None


def _highest(tools: Sequence[Tool]) -> list[Tool]:
    # A listing holds every version of a tool; an unpinned call reaches the highest one.
    return list(dedupe_with_versions(list(tools), lambda t: t.name))


# ---------------------------------------------------------------------------------------------
# Client

C = TypeVar("C", bound=Client[Any])


def validate_results(client: C, *, engine: Engine | None = None, report_only: ReportOnly = False) -> C:
    """Make every session ``client`` opens check tool results with the engine; returns ``client``.

    ``client = validate_results(Client(url), engine=eng)``, then use it as usual: ``call_tool``
    raises (``call_tool_mcp`` too) when a result breaks the tool's ``outputSchema``. FastMCP's own
    session rules stay in front (a call pinned to another tool version is not checked against the
    listed version's schema). ``EngineClientSession.upgrade(client.session, ...)`` does the same
    for one connected session.
    """
    check_session_settings(engine, report_only)
    base = client._transport_options.session_class if client._transport_options else VersionAwareClientSession

    class _Bound(EngineClientSession):  # the transport builds sessions without engine arguments
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, engine=engine, report_only=report_only, **kwargs)

    combined = type(f"Engine{base.__name__}", (base, _Bound), {"__module__": __name__})
    options = client._transport_options or TransportOptions()
    client._transport_options = replace(options, session_class=combined)
    return client


# ---------------------------------------------------------------------------------------------
# Elicitation


class _FastMCPInputRequired(InputRequired, FastMCPError):
    """Passes through FastMCP's tool runner untouched (it re-raises its own errors) to
    :class:`EngineValidation`, which answers the call with the ``InputRequiredResult``."""

    remedy = "add the EngineValidation middleware to the FastMCP server"

    def __init__(self, result: dict[str, Any]) -> None:
        InputRequired.__init__(self, result)
        self.log_level = logging.DEBUG  # FastMCP logs its errors at this level on the way through


async def elicit(
    ctx: Context,
    message: str,
    requested_schema: Mapping[str, Any],
    *,
    key: str = "elicitation",
    engine: Engine | None = None,
) -> ElicitResult:
    """Ask the client for input from a FastMCP tool; the answer comes back validated.

    Up to 2025-11-25 the client is sent ``elicitation/create`` and the call waits. On 2026-07-28
    the first call ends with an ``InputRequiredResult`` (:class:`EngineValidation` must be
    installed: it answers the call with it) and the client's retry finds the answer here; ``key``
    names the question. Raises :class:`engine.ValidationFailed` for an answer that does not
    conform, :class:`engine.SchemaRejected` for a form MCP does not allow.
    """
    form = compile_elicitation(dict(requested_schema), engine=engine)
    rc = ctx.request_context
    modern = rc is not None and rc.protocol_version in MODERN_PROTOCOL_VERSIONS
    request_id = ctx.request_id if rc is not None else None
    try:
        return await ask(
            modern=modern,
            form=form,
            message=message,
            requested_schema=requested_schema,
            key=key,
            responses=ctx.input_responses if modern else None,
            state=ctx.request_state if modern else None,
            send=lambda: ctx.session.elicit_form(message, dict(requested_schema), related_request_id=request_id),
            tool=None,
        )
    except _elicit.InputRequired as request:
        raise _FastMCPInputRequired(request.result) from None

"""The server side of the SDK adapter: ``tools/call`` arguments and results checked against the
advertised schemas, with answers shaped as the SDK shapes a handler's."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, cast

import anyio
import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.server.session import ServerSession
from mcp.shared.exceptions import MCPError
from mcp_types.methods import serialize_server_result
from mcp_types.version import LATEST_MODERN_VERSION, MODERN_PROTOCOL_VERSIONS

from .. import _metrics
from .._engine import Engine
from .._errors import DecodeError, SchemaRejected, UnknownTool, ValidationFailed
from .._mcp import invalid_arguments_result
from .._mcp.mapping import arguments_not_an_object, has_text_fallback, older_versions_cannot_list, text_fallback
from . import _elicit
from ._catalog import (
    ABSENT,
    REFRESH_INTERVAL,
    ReportOnly,
    ToolCatalog,
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
from ._sdk_tools import ToolLike, ToolSource, checked_source, checked_tools, structured_content, tool_definition

logger = logging.getLogger("engine.adapters.mcp_sdk")

_MAX_LISTING_PAGES = 1000  # a tools/list handler that pages forever is cut off


def _lowlevel(server: Server[Any] | Any) -> Server[Any]:
    if isinstance(server, Server):
        return server
    inner = getattr(server, "_lowlevel_server", None)  # MCPServer keeps its Server here
    if isinstance(inner, Server):
        return inner
    raise TypeError(f"install takes an mcp Server or MCPServer, not {type(server).__name__}")


class ToolValidation:
    """``tools/call`` arguments and results checked against the advertised schemas.

    ``ToolValidation(engine=eng).install(server)`` for a low-level ``Server`` or an ``MCPServer``.
    Keyword parameters:

    - ``tools``: what the server advertises, as a list of ``Tool`` models or dicts or an async
      callable returning one. By default, the installed server's own tool list (``MCPServer``'s
      ``list_tools()``, or the ``Server``'s ``tools/list`` handler).
    - ``validate_results``: check ``structuredContent`` against the ``outputSchema`` (default).
    - ``report_only``: ``True``, or tool names: failures are logged (``engine.invalid``) and
      counted, and the call goes on unchanged (shadow mode).
    - ``text_fallback``: add the ``TextContent`` block SEP-2106 requires beside an array or
      primitive ``structuredContent`` when the handler left it out (default ``True``; ``False``
      logs it instead).
    - ``refresh_interval``: how old (seconds) the compiled view of the tool list may get before a
      call re-reads it (changed schemas compile; nothing else does).

    Used as middleware (``server.middleware.append(validation)``), the adapter still checks every
    call, but cannot reach the handlers: it shapes its answers with the SDK's per-version
    serializer, and cannot keep ``tools/list`` working for older clients. Prefer :meth:`install`.
    """

    def __init__(
        self,
        tools: ToolSource | None = None,
        *,
        engine: Engine | None = None,
        validate_results: bool = True,
        report_only: ReportOnly = False,
        text_fallback: bool = True,
        refresh_interval: float = REFRESH_INTERVAL,
    ) -> None:
        self.catalog = ToolCatalog(engine, side="server")
        self.validate_results = checked_flag("validate_results", validate_results)
        self.text_fallback = checked_flag("text_fallback", text_fallback)
        self.refresh_interval = checked_interval(refresh_interval)
        self._report_only = report_only_for(report_only)
        self._source: ToolSource | None = checked_source(tools)
        self._server: Server[Any] | None = None
        self._list_handler: Callable[..., Awaitable[Any]] | None = None
        self._refreshed_at: float | None = None
        self._refreshing: anyio.Event | None = None
        self._hidden_from_older: set[str] = set()

    @property
    def engine(self) -> Engine:
        return self.catalog.engine

    # --- installation ----------------------------------------------------------------------------

    def install(self, server: Server[Any] | Any) -> ToolValidation:
        """Wrap ``server``'s ``tools/call`` and ``tools/list`` handlers (a low-level ``Server`` or an
        ``MCPServer``; register the tools first, add them later as you like). Returns ``self``."""
        low = _lowlevel(server)
        call_entry = low.get_request_handler("tools/call")
        list_entry = low.get_request_handler("tools/list")
        if call_entry is None:
            raise ValueError("the server has no tools/call handler to validate")
        if getattr(call_entry.handler, "engine_validation", None) is not None:
            raise ValueError("a ToolValidation is already installed on this server")
        self._server = low
        if self._source is None:
            mcp_list = getattr(server, "list_tools", None) if server is not low else None
            if mcp_list is not None:
                self._source = mcp_list
            elif list_entry is not None:
                self._list_handler = list_entry.handler
            else:
                raise ValueError("the server has no tools/list handler: pass tools= to ToolValidation")
        call_handler = call_entry.handler

        async def call_tool(ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams) -> HandlerResult:
            answer = await self._before(ctx, params.name, params.arguments)
            if answer is not None:
                return answer
            try:
                result = await call_handler(ctx, params)
            except _elicit.InputRequired as request:
                return types.InputRequiredResult.model_validate(request.result)
            except _elicit.StateTooLarge as exc:  # the tool's error, said to the client
                return _error_result(exc.message)
            return cast(HandlerResult, self._after(ctx, params.name, result))

        call_tool.engine_validation = self  # type: ignore[attr-defined]
        low.add_request_handler("tools/call", types.CallToolRequestParams, call_tool)
        if list_entry is not None:
            list_handler = list_entry.handler

            async def list_tools(ctx: ServerRequestContext[Any, Any], params: Any) -> HandlerResult:
                result = await list_handler(ctx, params)
                return cast(HandlerResult, await self._listed(ctx, result))

            low.add_request_handler("tools/list", list_entry.params_type, list_tools)
        return self

    async def warm_up(self) -> None:
        """Read and compile the tool list now (before serving, and before forking workers), so
        the first call does not pay for it."""
        await self.refresh()

    async def refresh(self, ctx: ServerRequestContext[Any, Any] | None = None) -> None:
        """Re-read the tools; new and changed schemas compile (off the event loop)."""
        previous, self._refreshed_at = self._refreshed_at, time.monotonic()
        self._refreshing = done = anyio.Event()
        try:
            tools = await self._read_source(ctx)
            await self.catalog.update(tool_definition(t) for t in tools)
        except BaseException:
            self._refreshed_at = previous  # a failed read is none: the next call reads again
            raise
        finally:
            done.set()
            if self._refreshing is done:
                self._refreshing = None

    async def _read_source(self, ctx: ServerRequestContext[Any, Any] | None) -> Sequence[ToolLike]:
        source = self._source
        if source is not None:
            return checked_tools(await source(), returned=True) if callable(source) else source
        handler = self._list_handler
        if handler is None:
            raise RuntimeError("ToolValidation has no tools: pass tools= or install it on a server")
        if ctx is None:
            ctx = ServerRequestContext(
                session=cast(ServerSession, None),
                lifespan_context={},
                protocol_version=LATEST_MODERN_VERSION,
                method="tools/list",
            )
        else:
            ctx = replace(ctx, method="tools/list", params={})
        tools: list[ToolLike] = []
        cursor: str | None = None
        for _ in range(_MAX_LISTING_PAGES):
            page = await handler(ctx, types.PaginatedRequestParams(cursor=cursor))
            page = page if isinstance(page, types.ListToolsResult) else types.ListToolsResult.model_validate(page)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if cursor is None:
                break
        return tools

    # --- the checks ------------------------------------------------------------------------------

    async def _before(
        self, ctx: ServerRequestContext[Any, Any], name: str, arguments: Any
    ) -> types.CallToolResult | None:
        """The adapter's own answer to a call (refused arguments, a refused tool), or ``None``."""
        catalog = self.catalog
        refreshed = self._refreshed_at
        now = time.monotonic()
        if (
            refreshed is None
            or now - refreshed >= self.refresh_interval
            or (name not in catalog and now - refreshed >= min(self.refresh_interval, REFRESH_INTERVAL))
        ):
            try:
                await self.refresh(ctx)
            except Exception as exc:  # the call cannot be checked: refused, and the next call reads again
                raise MCPError(
                    code=types.INTERNAL_ERROR,
                    message=f"the server's tool list could not be read to check the call ({type(exc).__name__})",
                    data={"reason": "tool-list-unreadable", "tool": name},
                ) from exc
        elif name not in catalog and self._refreshing is not None:
            await self._refreshing.wait()  # the first read is still compiling: wait for it, do not refuse
        enforced = not self._report_only(name)
        rejected = catalog.rejected(name)
        hooks = _metrics.hooks
        start = time.perf_counter() if hooks else 0.0
        if rejected is not None:
            if enforced:
                return _error_result(unavailable(name, rejected))
            # Report-only: the call goes on unchecked, and says so, as a failed check does.
            if hooks:
                observe(name, "arguments", "server", start, False, enforced)
            log_invalid(name, "arguments", "server", rejected, enforced=enforced)
            return None
        try:
            if arguments is None:
                arguments = {}
            elif type(arguments) is not dict:
                if not isinstance(arguments, Mapping):
                    raise arguments_not_an_object()
                try:
                    arguments = dict(arguments)
                except Exception:  # noqa: BLE001 - a mapping that cannot be read is no JSON object
                    raise arguments_not_an_object() from None
            catalog.validate_arguments(name, arguments)
        except UnknownTool as exc:
            raise _invalid_params(exc) from None
        except (ValidationFailed, DecodeError) as exc:  # a NaN or a lone surrogate is no JSON value either
            if hooks:
                observe(name, "arguments", "server", start, False, enforced)
            log_invalid(name, "arguments", "server", exc, enforced=enforced)
            if not enforced:
                return None
            return types.CallToolResult.model_validate(
                invalid_arguments_result(exc, name, structured_content=not catalog.has_output_schema(name))
            )
        if hooks:
            observe(name, "arguments", "server", start, True, enforced)
        return None

    def _after(self, ctx: ServerRequestContext[Any, Any], name: str, result: Any) -> Any:
        """The handler's result, checked; with the SEP-2106 text block where it is missing; without
        a non-object ``structuredContent`` for clients older than 2026-07-28, which cannot read it."""
        if isinstance(result, types.CallToolResult):
            if result.is_error:
                return result
            structured = structured_content(result)
            content: Sequence[Any] = result.content
        elif isinstance(result, Mapping) and "content" in result and not _is_input_required(result):
            if result.get("isError"):
                return result
            structured = result.get("structuredContent", ABSENT)
            content = result.get("content") or []
        else:
            return result  # InputRequiredResult and extension results carry no structuredContent
        if self.validate_results and self.catalog.has_output_schema(name):
            answer = self._check_result(name, structured)
            if answer is not None:
                return answer
        if structured is ABSENT or structured is None or isinstance(structured, dict):
            return result
        # An array or a primitive (SEP-2106).
        modern = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
        if isinstance(result, types.CallToolResult):
            content = [block.model_dump(by_alias=True, mode="json", exclude_none=True) for block in content]
        missing = not has_text_fallback(content, structured)
        if missing and not self.text_fallback:
            logger.warning(
                "tool %s returned non-object structuredContent without the TextContent block SEP-2106 requires",
                quoted(name),
            )
        if modern and not (missing and self.text_fallback):
            return result
        extra = [text_fallback(structured)] if missing and self.text_fallback else []
        if isinstance(result, types.CallToolResult):
            blocks = [*result.content, *(types.TextContent.model_validate(b) for b in extra)]
            update: dict[str, Any] = {"content": blocks}
            if not modern:
                update["structured_content"] = None  # left out of the wire form
            return result.model_copy(update=update)
        fixed = {**result, "content": [*content, *extra]}
        if not modern:
            fixed.pop("structuredContent", None)
        return fixed

    def _check_result(self, name: str, structured: Any) -> types.CallToolResult | None:
        hooks = _metrics.hooks
        start = time.perf_counter() if hooks else 0.0
        enforced = not self._report_only(name)
        try:
            self.catalog.validate_structured(name, structured)
        except (ValidationFailed, DecodeError, SchemaRejected) as exc:
            if hooks:
                observe(name, "result", "server", start, False, enforced)
            log_invalid(name, "result", "server", exc, enforced=enforced)
            return _error_result(nonconforming(name, exc)) if enforced else None
        if hooks:
            observe(name, "result", "server", start, True, enforced)
        return None

    async def _listed(self, ctx: ServerRequestContext[Any, Any], result: Any) -> Any:
        """A ``tools/list`` answer: its schemas picked up (changed ones compile), and the tools an
        older client cannot be sent left out of its copy."""
        listing = result if isinstance(result, types.ListToolsResult) else types.ListToolsResult.model_validate(result)
        # Merged, never taken as the whole list: a listing may be one page, or scoped to the caller.
        await self.catalog.update((tool_definition(t) for t in listing.tools), complete=False)
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return result
        kept = []
        for tool in listing.tools:
            why = older_versions_cannot_list(tool_definition(tool))
            if why is None:
                kept.append(tool)
            elif tool.name not in self._hidden_from_older:
                self._hidden_from_older.add(tool.name)
                logger.warning(
                    "tool %s is left out of tools/list for clients before 2026-07-28 (this one negotiated %s): %s",
                    quoted(tool.name),
                    ctx.protocol_version,
                    why,
                    extra={"tool": logged(tool.name), "protocol_version": ctx.protocol_version},
                )
        if len(kept) == len(listing.tools):
            return result
        return listing.model_copy(update={"tools": kept})

    # --- middleware mode -------------------------------------------------------------------------

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.method != "tools/call" or ctx.request_id is None:
            return await call_next(ctx)
        params = ctx.params or {}
        name = params.get("name")
        if not isinstance(name, str):
            return await call_next(ctx)  # the SDK's own params validation answers this
        answer = await self._before(ctx, name, params.get("arguments"))
        if answer is not None:
            return self._shape(ctx, answer)
        try:
            result = await call_next(ctx)
        except _elicit.InputRequired as request:
            return self._shape(ctx, types.InputRequiredResult.model_validate(request.result))
        except _elicit.StateTooLarge as exc:  # the tool's error, said to the client
            return self._shape(ctx, _error_result(exc.message))
        return cast(HandlerResult, self._after(ctx, name, result))

    def _shape(self, ctx: ServerRequestContext[Any, Any], result: types.Result) -> dict[str, Any]:
        """An answer made in middleware mode, shaped as the SDK's runner shapes a handler's."""
        version = ctx.protocol_version
        dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        try:
            dumped = serialize_server_result("tools/call", version, dumped)
        except (KeyError, ValueError):
            pass  # an unknown version: sent as built
        if version in MODERN_PROTOCOL_VERSIONS:
            dumped.setdefault("resultType", "complete")
            if self._server is not None:
                meta = dict(dumped.get("_meta") or {})
                meta.setdefault(types.SERVER_INFO_META_KEY, self._server.server_info_stamp)
                dumped["_meta"] = meta
        return dumped


class InputRequired(_elicit.InputRequired, MCPError):
    """Raised by :func:`elicit` on a 2026-07-28 session when the answer is not there yet.

    An installed :class:`ToolValidation` answers the call with :attr:`result` (an
    ``InputRequiredResult``); a handler running without it catches this and returns
    ``types.InputRequiredResult.model_validate(exc.result)``. Left uncaught, it reaches the client
    as a JSON-RPC error saying so (it is an ``MCPError``, which ``MCPServer`` passes through)."""

    remedy = "install ToolValidation on the server"
    """What the message tells the server's author to do (each SDK's adapter names its own)."""

    def __init__(self, result: dict[str, Any]) -> None:
        _elicit.InputRequired.__init__(self, result)
        MCPError.__init__(
            self,
            code=types.INTERNAL_ERROR,
            message="the tool asked for input (InputRequiredResult) but no engine adapter "
            f"answered with it: {self.remedy}",
        )


def _is_input_required(result: Mapping[str, Any]) -> bool:
    return result.get("resultType") == "input_required"


def _invalid_params(exc: UnknownTool) -> MCPError:
    error = exc.to_jsonrpc_error()  # code -32602, INVALID_PARAMS
    return MCPError(code=error["code"], message=error["message"], data=error.get("data"))


def _error_result(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)

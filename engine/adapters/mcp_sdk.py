"""The engine inside the official MCP Python SDK (``mcp`` 2.x): ``pip install 'engine[mcp]'``.

- **Client** (:class:`EngineClientSession`, :class:`EngineClient`): ``ClientSession`` checks every
  tool result's ``structuredContent`` with python-jsonschema. Here the tools are compiled by the
  engine, off the event loop, from every ``tools/list`` the session sees (pages and response-cache
  hits included); a ``notifications/tools/list_changed`` makes the next check list again, and only
  changed schemas compile. Failures raise :class:`InvalidToolResult` (a ``RuntimeError``, like the
  SDK's). :meth:`EngineClientSession.upgrade` also takes a session subclass (FastMCP's), keeping
  its own hooks in front of the engine's.
- **Server** (:class:`ToolValidation`): ``tools/call`` arguments are checked against the advertised
  ``inputSchema`` before any handler runs (invalid: an ``isError`` result listing the issues;
  unknown tool: JSON-RPC -32602), the handler's ``structuredContent`` against the ``outputSchema``
  after. :meth:`ToolValidation.install` wraps the server's ``tools/call`` and ``tools/list``
  handlers, so every answer the adapter makes is shaped by the SDK exactly as its own are, for the
  negotiated protocol version; ``tools/list`` keeps working for clients older than 2026-07-28
  when a tool's ``outputSchema`` is not an object (such tools are left out of their listings).
- **Elicitation** (:func:`elicit`, :class:`ElicitationForms`): a hand-written ``requestedSchema``,
  shape-checked when the form is built, the answer decoded and validated by the compiled form, on
  every protocol generation (``elicitation/create`` up to 2025-11-25, ``InputRequiredResult``
  rounds on 2026-07-28).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, replace
from typing import Any, cast

import anyio
import mcp_types as types
from mcp.client.client import Client
from mcp.client.session import ClientSession
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.server.session import ServerSession
from mcp.shared.exceptions import MCPError
from mcp_types.methods import serialize_server_result
from mcp_types.version import LATEST_MODERN_VERSION, MODERN_PROTOCOL_VERSIONS

from .. import _metrics
from .._engine import Engine, default_engine
from .._errors import EngineError, Issue, SchemaRejected, UnknownTool, ValidationFailed
from .._mcp import ElicitationForm, ElicitResult, compile_elicitation, invalid_arguments_result
from .._mcp.mapping import has_text_fallback, older_versions_cannot_list, text_fallback
from . import _elicit
from ._catalog import (
    ABSENT,
    REFRESH_INTERVAL,
    ReportOnly,
    ToolCatalog,
    log_invalid,
    nonconforming,
    observe,
    report_only_for,
    unavailable,
)
from ._elicit import ask

__all__ = [
    "ElicitationForms",
    "EngineClient",
    "EngineClientSession",
    "InputRequired",
    "InvalidToolResult",
    "ToolValidation",
    "elicit",
    "tool_definition",
]

logger = logging.getLogger("engine.adapters.mcp_sdk")

ToolLike = types.Tool | Mapping[str, Any]
ToolSource = Sequence[ToolLike] | Callable[[], Awaitable[Sequence[ToolLike]]]
"""What a server advertises: a list of ``Tool`` models or dicts, or an async callable returning one."""

_MAX_LISTING_PAGES = 1000  # a tools/list handler that pages forever is cut off


def tool_definition(tool: ToolLike) -> dict[str, Any]:
    """A tool as the plain JSON the engine compiles: name and schemas, exactly as advertised.

    Built by hand rather than with ``model_dump(exclude_none=True)``, which would also drop ``null``
    values inside the schemas (``"const": null``) and change their meaning.
    """
    if isinstance(tool, Mapping):
        return dict(tool)
    definition: dict[str, Any] = {"name": tool.name, "inputSchema": tool.input_schema}
    if tool.output_schema is not None:
        definition["outputSchema"] = tool.output_schema
    return definition


def _structured(result: types.CallToolResult) -> Any:
    """``structuredContent`` as sent: ``null`` is a value, an absent field is :data:`ABSENT`."""
    if result.structured_content is None and "structured_content" not in result.model_fields_set:
        return ABSENT
    return result.structured_content


# ---------------------------------------------------------------------------------------------
# Client side


class InvalidToolResult(RuntimeError):
    """A tool result the engine refused. A ``RuntimeError``, like the SDK's own validation error,
    so existing callers keep working; ``error`` is the engine's error (``issues`` and all)."""

    def __init__(self, message: str, *, tool: str, error: EngineError) -> None:
        super().__init__(message)
        self.tool = tool
        self.error = error


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

    def __init__(self, *args: Any, engine: Engine | None = None, report_only: ReportOnly = False,
                 **kwargs: Any) -> None:
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
        self._engine_pending.append(self._engine_catalog.plan((tool_definition(t) for t in result.tools),
                                                              complete=complete))
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

    async def validate_tool_result(self, name: str, result: types.CallToolResult) -> None:
        await self._engine_flush()
        catalog = self._engine_catalog
        if self._engine_stale or name not in catalog:
            self._engine_stale = False  # one listing per notification, even a paginated one
            await self.list_tools()  # as the SDK does: a tool never listed may be new
        if name not in catalog:
            logger.warning("Tool %s not listed by server, cannot validate any structured content", name)
            return
        if not catalog.has_output_schema(name):
            return
        hooks = _metrics.hooks
        start = time.perf_counter() if hooks else 0.0
        error: EngineError | None = catalog.rejected(name)
        if error is None:
            try:
                catalog.validate_structured(name, _structured(result))
            except (ValidationFailed, SchemaRejected) as exc:
                error = exc
        enforced = not self._engine_report_only(name)
        if hooks:
            observe(name, "result", "client", start, error is None, enforced)
        if error is None:
            return
        log_invalid(name, "result", "client", error, enforced=enforced)
        if not enforced:
            return
        if isinstance(error, ValidationFailed):
            raise InvalidToolResult(f"Invalid structured content returned by tool {name}: {error.message}",
                                    tool=name, error=error)
        raise InvalidToolResult(f"Invalid schema for tool {name}: {error.message}", tool=name, error=error)


_combined: dict[tuple[type[ClientSession], type[EngineClientSession]], type[EngineClientSession]] = {}


def _engine_subclass(kind: type[ClientSession], engine_class: type[EngineClientSession]) -> type[EngineClientSession]:
    """``kind`` with the engine's hooks behind its own: MRO kind -> engine -> ClientSession."""
    combined = _combined.get((kind, engine_class))
    if combined is None:
        combined = cast(type[EngineClientSession],
                        type(f"Engine{kind.__name__}", (kind, engine_class), {"__module__": __name__}))
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

    async def _build_session(self, exit_stack: AsyncExitStack) -> ClientSession:
        session = await super()._build_session(exit_stack)
        return EngineClientSession.upgrade(session, self.engine, report_only=self.report_only)


# ---------------------------------------------------------------------------------------------
# Server side


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
        self.validate_results = validate_results
        self.text_fallback = text_fallback
        self.refresh_interval = refresh_interval
        self._report_only = report_only_for(report_only)
        self._source: ToolSource | None = tools
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
        self._refreshed_at = time.monotonic()
        self._refreshing = done = anyio.Event()
        try:
            tools = await self._read_source(ctx)
            await self.catalog.update(tool_definition(t) for t in tools)
        finally:
            done.set()
            if self._refreshing is done:
                self._refreshing = None

    async def _read_source(self, ctx: ServerRequestContext[Any, Any] | None) -> Sequence[ToolLike]:
        source = self._source
        if source is not None:
            return await source() if callable(source) else source
        handler = self._list_handler
        if handler is None:
            raise RuntimeError("ToolValidation has no tools: pass tools= or install it on a server")
        if ctx is None:
            ctx = ServerRequestContext(session=cast(ServerSession, None), lifespan_context={},
                                       protocol_version=LATEST_MODERN_VERSION, method="tools/list")
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
        if refreshed is None or now - refreshed >= self.refresh_interval or (
            name not in catalog and now - refreshed >= min(self.refresh_interval, REFRESH_INTERVAL)
        ):
            await self.refresh(ctx)
        elif name not in catalog and self._refreshing is not None:
            await self._refreshing.wait()  # the first read is still compiling: wait for it, do not refuse
        enforced = not self._report_only(name)
        rejected = catalog.rejected(name)
        if rejected is not None:
            return _error_result(unavailable(name, rejected)) if enforced else None
        hooks = _metrics.hooks
        start = time.perf_counter() if hooks else 0.0
        try:
            if arguments is None:
                arguments = {}
            elif type(arguments) is not dict:
                if not isinstance(arguments, Mapping):
                    raise ValidationFailed([Issue(instance_path="", keyword_location="/type", keyword="type",
                                                  message="arguments must be an object")])
                arguments = dict(arguments)
            catalog.validate_arguments(name, arguments)
        except UnknownTool as exc:
            raise _invalid_params(exc) from None
        except ValidationFailed as exc:
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
            structured = _structured(result)
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
            logger.warning("tool %r returned non-object structuredContent without the TextContent block SEP-2106 "
                           "requires", name)
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
        except (ValidationFailed, SchemaRejected) as exc:
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
                logger.warning("tool %r is left out of tools/list for clients before 2026-07-28 (this one "
                               "negotiated %s): %s", tool.name, ctx.protocol_version, why,
                               extra={"tool": tool.name, "protocol_version": ctx.protocol_version})
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

    def __init__(self, result: dict[str, Any]) -> None:
        _elicit.InputRequired.__init__(self, result)
        MCPError.__init__(self, code=types.INTERNAL_ERROR,
                          message="the tool asked for input (InputRequiredResult) but no engine adapter "
                                  "answered with it: install ToolValidation on the server")


def _is_input_required(result: Mapping[str, Any]) -> bool:
    return result.get("resultType") == "input_required"


def _invalid_params(exc: UnknownTool) -> MCPError:
    error = exc.to_jsonrpc_error()  # code -32602, INVALID_PARAMS
    return MCPError(code=error["code"], message=error["message"], data=error.get("data"))


def _error_result(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


# ---------------------------------------------------------------------------------------------
# Elicitation


class ElicitationForms:
    """Elicitation forms compiled by the engine, for servers that write ``requestedSchema`` by hand.

    ``request`` checks the form's restricted shape (a refused form raises
    :class:`engine.SchemaRejected` naming the property) and builds the SDK request; ``read`` decodes
    and validates the client's answer (:class:`engine.ValidationFailed` when it does not conform).
    Most handlers need neither: :func:`elicit` does both, on every protocol generation.
    """

    def __init__(self, engine: Engine | None = None) -> None:
        self.engine = engine if engine is not None else default_engine()

    def compile(self, requested_schema: Mapping[str, Any]) -> ElicitationForm:
        return compile_elicitation(dict(requested_schema), engine=self.engine)

    def request(self, message: str, requested_schema: Mapping[str, Any]) -> types.ElicitRequest:
        """An ``elicitation/create`` request, for ``InputRequiredResult.input_requests``."""
        self.compile(requested_schema)
        return types.ElicitRequest(
            params=types.ElicitRequestFormParams(message=message, requested_schema=dict(requested_schema))
        )

    def read(self, requested_schema: Mapping[str, Any], answer: types.ElicitResult | Mapping[str, Any]) -> ElicitResult:
        """The client's answer, validated: an object with ``.action`` and ``.content``."""
        if isinstance(answer, types.ElicitResult):
            data: dict[str, Any] = {"action": answer.action}
            if answer.content is not None:
                data["content"] = answer.content
        elif isinstance(answer, Mapping):
            data = dict(answer)
        else:
            raise TypeError(f"an elicitation answer must be an ElicitResult or a dict, not {type(answer).__name__}")
        return self.compile(requested_schema).decode_result(data)


async def elicit(
    ctx: ServerRequestContext[Any, Any] | ServerSession | Any,
    message: str,
    requested_schema: Mapping[str, Any],
    *,
    key: str = "elicitation",
    engine: Engine | None = None,
    related_request_id: types.RequestId | None = None,
) -> ElicitResult:
    """Ask the client for input inside a tool handler; the answer comes back validated.

    ``ctx`` is the handler's context (a low-level handler's, or ``MCPServer``'s ``Context``). On a
    session of protocol 2025-11-25 or earlier the client is sent ``elicitation/create`` and the call
    waits for the answer. On 2026-07-28 the first call raises :class:`InputRequired` (the tool's
    answer is an ``InputRequiredResult``; an installed :class:`ToolValidation` returns it for you)
    and the client's retry finds the answer here: ``key`` names the question, so a handler can ask
    several in turn. Raises :class:`engine.ValidationFailed` when the answer does not conform to
    ``requested_schema`` (checked before anything is sent: :class:`engine.SchemaRejected` for a form
    MCP does not allow).

    Passing ``ctx.session`` instead of ``ctx`` still works on handshake-era sessions only.
    """
    form = compile_elicitation(dict(requested_schema), engine=engine)
    if not isinstance(ctx, (ServerRequestContext, ServerSession)):
        inner = getattr(ctx, "request_context", None)  # MCPServer's Context
        if not isinstance(inner, ServerRequestContext):
            raise TypeError(f"elicit takes the handler's context, not {type(ctx).__name__}")
        ctx = inner
    try:
        return await _elicit_on(ctx, form, message, requested_schema, key, related_request_id)
    except _elicit.InputRequired as request:
        if isinstance(request, InputRequired):
            raise
        raise InputRequired(request.result) from None


async def _elicit_on(
    ctx: ServerRequestContext[Any, Any] | ServerSession,
    form: ElicitationForm,
    message: str,
    requested_schema: Mapping[str, Any],
    key: str,
    related_request_id: types.RequestId | None,
) -> ElicitResult:
    if isinstance(ctx, ServerRequestContext):
        params = ctx.params or {}
        session = ctx.session
        request_id = related_request_id if related_request_id is not None else ctx.request_id
        tool = params.get("name") if ctx.method == "tools/call" else None
        return await ask(
            modern=ctx.protocol_version in MODERN_PROTOCOL_VERSIONS,
            form=form, message=message, requested_schema=requested_schema, key=key,
            responses=params.get("inputResponses"), state=params.get("requestState"),
            send=lambda: session.elicit_form(message, dict(requested_schema), related_request_id=request_id),
            tool=tool if isinstance(tool, str) else None,
        )
    server_session = ctx
    return await ask(
        modern=False, form=form, message=message, requested_schema=requested_schema, key=key, responses=None,
        state=None, tool=None,
        send=lambda: server_session.elicit_form(message, dict(requested_schema), related_request_id=related_request_id),
    )

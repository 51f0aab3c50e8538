"""The engine inside FastMCP (``fastmcp`` 4.x): ``pip install 'engine[fastmcp]'``.

:class:`EngineValidation` is a FastMCP middleware. It replaces nothing FastMCP does on the server by
default — a ``FunctionTool`` still coerces its arguments with pydantic — but puts a strict check in
front of it: ``tools/call`` arguments are validated against the ``inputSchema`` the server
advertises (tools built from a raw schema, proxied and transformed tools included, which pydantic
never sees), and the tool's ``structuredContent`` against its ``outputSchema`` on the way out.
Schemas are compiled by the engine once per tool listing.

Error mapping: invalid arguments become a ``CallToolResult`` with ``isError: true`` carrying the
issues; an unknown tool is JSON-RPC invalid-params (-32602) — FastMCP alone answers an unknown
tool with an ``isError`` result; a result that does not conform becomes an ``isError`` result
(``ToolError``), as FastMCP reports other tool failures.

On the client side FastMCP's ``Client`` runs on the official SDK's ``ClientSession``; see
:mod:`engine.adapters.mcp_sdk` for engine-validated results there.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

import mcp_types as types
from fastmcp.exceptions import ToolError
from fastmcp.server.dependencies import extract_version_spec
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools.base import Tool, ToolResult
from fastmcp.utilities.versions import VersionSpec, dedupe_with_versions
from mcp.shared.exceptions import MCPError

from .._engine import Engine
from .._errors import SchemaRejected, UnknownTool, ValidationFailed
from .._mcp import invalid_arguments_result
from ._catalog import ABSENT, REFRESH_INTERVAL, ToolCatalog, nonconforming, unavailable

__all__ = ["EngineValidation", "tool_definition"]

logger = logging.getLogger("engine.adapters.fastmcp")


def tool_definition(tool: Tool) -> dict[str, Any]:
    """A FastMCP tool as the plain JSON the engine compiles (the tool's own schemas)."""
    definition: dict[str, Any] = {"name": tool.name, "inputSchema": tool.parameters}
    if tool.output_schema is not None:
        definition["outputSchema"] = tool.output_schema
    return definition


class EngineValidation(Middleware):
    """Validate tool arguments and results against the advertised schemas with the engine.

    ``FastMCP(..., middleware=[EngineValidation(engine)])`` or ``server.add_middleware(...)``.
    """

    def __init__(self, engine: Engine | None = None, *, validate_results: bool = True) -> None:
        self.catalog = ToolCatalog(engine)
        self.validate_results = validate_results
        self._listed_at: float | None = None

    async def on_list_tools(
        self,
        context: MiddlewareContext[types.ListToolsRequest],
        call_next: CallNext[types.ListToolsRequest, Sequence[Tool]],
    ) -> Sequence[Tool]:
        tools = await call_next(context)
        self._absorb(tools)
        return tools

    def _absorb(self, tools: Sequence[Tool]) -> None:
        # A listing holds every version of a tool; an unpinned call reaches the highest one.
        self.catalog.absorb(tool_definition(t) for t in dedupe_with_versions(list(tools), lambda t: t.name))
        self._listed_at = time.monotonic()

    async def on_call_tool(
        self,
        context: MiddlewareContext[types.CallToolRequestParams],
        call_next: CallNext[types.CallToolRequestParams, ToolResult],
    ) -> ToolResult:
        name = context.message.name
        arguments = context.message.arguments or {}
        catalog = await self._catalog_for(context, name)
        rejected = catalog.rejected(name)
        if rejected is not None:
            raise ToolError(unavailable(name, rejected))
        try:
            catalog.validate_arguments(name, arguments)
        except UnknownTool as exc:
            error = exc.to_jsonrpc_error()
            raise MCPError(code=error["code"], message=error["message"], data=error.get("data")) from None
        except ValidationFailed as exc:
            return ToolResult.from_mcp_result(types.CallToolResult.model_validate(invalid_arguments_result(exc, name)))

        result = await call_next(context)
        if not self.validate_results or result.is_error or not catalog.has_output_schema(name):
            return result
        if getattr(result, "input_required", None) is not None:
            return result  # a multi-round-trip ask (SEP-2322) carries no tool output yet
        structured = result.structured_content if result.structured_content is not None else ABSENT
        try:
            catalog.validate_structured(name, structured)
        except (ValidationFailed, SchemaRejected) as exc:
            logger.warning("tool %r returned a result that does not conform to its outputSchema: %s", name, exc.message)
            raise ToolError(nonconforming(name, exc)) from None
        return result

    async def _catalog_for(self, context: MiddlewareContext[Any], name: str) -> ToolCatalog:
        server = context.fastmcp_context.fastmcp if context.fastmcp_context is not None else None
        pinned = extract_version_spec(context.message.meta if isinstance(context.message.meta, dict) else None)
        if server is not None and pinned is not None:
            # A call pinned to one version is checked against that version's own schemas.
            tool = await server.get_tool(name, version=VersionSpec(eq=pinned))
            single = ToolCatalog(self.catalog.engine)
            single.absorb([tool_definition(tool)] if tool is not None else [])
            return single
        listed_at = self._listed_at
        if server is not None and (
            listed_at is None or (name not in self.catalog and time.monotonic() - listed_at >= REFRESH_INTERVAL)
        ):
            # First call before any listing, or a tool added since: list as the server would (at
            # most once a second for unknown names, so they cannot force a recompile per call).
            self._absorb(await server.list_tools(run_middleware=False))
        return self.catalog

"""The engine inside the official MCP Python SDK (``mcp`` 2.x): ``pip install 'engine[mcp]'``.

What it replaces:

- **Client** (:class:`EngineClientSession`, :class:`EngineClient`): ``ClientSession`` checks every
  tool result's ``structuredContent`` with python-jsonschema (a validator built lazily per tool,
  ``best_match`` over ``iter_errors`` on each call). Here the tool set is compiled by the engine once
  per ``tools/list`` (pages and cache hits included, through the SDK's own listing hook) and each
  result is checked by the compiled validator. Failures still raise ``RuntimeError`` (as
  :class:`InvalidToolResult`, which carries the engine's issues), so callers see the SDK's contract.
- **Server** (:class:`ToolValidation`): the low-level ``Server`` does not check arguments at all,
  and ``MCPServer`` checks them with pydantic models of the Python signature rather than against the
  advertised ``inputSchema``. This middleware checks ``tools/call`` arguments against the advertised
  schema before any handler runs (invalid: a ``CallToolResult`` with ``isError: true`` and the
  issues; unknown tool: JSON-RPC invalid-params, -32602), and the handler's ``structuredContent``
  against the advertised ``outputSchema`` before it leaves.
- **Elicitation** (:class:`ElicitationForms`, :func:`elicit`): ``elicit_with_validation`` needs a
  pydantic model; a raw ``requestedSchema`` answer goes unchecked. Here the form's restricted shape
  is checked when it is built and each answer is decoded and validated by the compiled form, for
  server-to-client requests (handshake-era sessions) and for ``InputRequiredResult`` rounds
  (2026-07-28).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp.client.client import Client
from mcp.client.session import ClientSession
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.session import ServerSession
from mcp.shared.exceptions import MCPError

from .._engine import Engine, default_engine
from .._errors import EngineError, Issue, SchemaRejected, UnknownTool, ValidationFailed
from .._mcp import compile_elicitation, invalid_arguments_result
from ._catalog import ABSENT, REFRESH_INTERVAL, ToolCatalog, nonconforming, unavailable

__all__ = [
    "ElicitationForms",
    "EngineClient",
    "EngineClientSession",
    "InvalidToolResult",
    "ToolValidation",
    "elicit",
    "tool_definition",
]

logger = logging.getLogger("engine.adapters.mcp_sdk")

ToolLike = types.Tool | Mapping[str, Any]
ToolSource = Sequence[ToolLike] | Callable[[], Awaitable[Sequence[ToolLike]]]


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

    Pass ``engine=`` to share a configured :class:`engine.Engine` (and its cache) between sessions;
    by default the process-wide engine is used.
    """

    _engine_catalog: ToolCatalog

    def __init__(self, *args: Any, engine: Engine | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._engine_catalog = ToolCatalog(engine)

    @classmethod
    def upgrade(cls, session: ClientSession, engine: Engine | None = None) -> EngineClientSession:
        """Turn a session the SDK built (for example inside ``mcp.Client``) into this class, in place.

        Must be called before the session lists tools. The session keeps all its state; only the
        two validation hooks change.
        """
        if isinstance(session, cls):
            return session
        if type(session) is not ClientSession:
            # A subclass has validation hooks of its own that this would silently replace.
            raise TypeError(f"upgrade takes a plain ClientSession, not {type(session).__name__}; "
                            "subclass EngineClientSession instead")
        session.__class__ = cls
        session._engine_catalog = ToolCatalog(engine)  # type: ignore[attr-defined]
        return session  # type: ignore[return-value]

    @property
    def engine_tools(self) -> ToolCatalog:
        """The engine's view of the listed tools (compiled tool set, refusals)."""
        return self._engine_catalog

    def _absorb_tool_listing(self, result: types.ListToolsResult, *, complete: bool) -> types.ListToolsResult:
        # The SDK calls this for every listing it receives or serves from its response cache.
        result = super()._absorb_tool_listing(result, complete=complete)
        self._engine_catalog.absorb((tool_definition(t) for t in result.tools), complete=complete)
        return result

    async def validate_tool_result(self, name: str, result: types.CallToolResult) -> None:
        catalog = self._engine_catalog
        if name not in catalog:
            await self.list_tools()  # as the SDK does: a tool never listed may be new
        if name not in catalog:
            logger.warning("Tool %s not listed by server, cannot validate any structured content", name)
            return
        if not catalog.has_output_schema(name):
            return
        rejected = catalog.rejected(name)
        if rejected is not None:
            raise InvalidToolResult(f"Invalid schema for tool {name}: {rejected.message}", tool=name, error=rejected)
        try:
            catalog.validate_structured(name, _structured(result))
        except ValidationFailed as exc:
            raise InvalidToolResult(
                f"Invalid structured content returned by tool {name}: {exc.message}", tool=name, error=exc
            ) from None
        except SchemaRejected as exc:
            raise InvalidToolResult(f"Invalid schema for tool {name}: {exc.message}", tool=name, error=exc) from None


@dataclass
class EngineClient(Client):
    """``mcp.Client`` with an :class:`EngineClientSession` underneath.

    ``EngineClient(url, engine=eng)`` is used exactly like ``Client(url)``.
    """

    engine: Engine | None = None

    async def _build_session(self, exit_stack: AsyncExitStack) -> ClientSession:
        session = await super()._build_session(exit_stack)
        return EngineClientSession.upgrade(session, self.engine)


# ---------------------------------------------------------------------------------------------
# Server side


class ToolValidation:
    """Server middleware: ``tools/call`` arguments and results checked against the advertised schemas.

    ``tools`` is what the server advertises: a list of ``Tool`` models (or dicts), or an async
    callable returning one (``MCPServer.list_tools`` fits). It is read and compiled once, and read
    again when a call names a tool the catalog does not hold (a tool added since) or after
    :meth:`refresh`. Register with ``Server.middleware.append(ToolValidation(...))`` or
    ``MCPServer(..., middleware=[...])``.
    """

    def __init__(
        self,
        tools: ToolSource,
        *,
        engine: Engine | None = None,
        validate_results: bool = True,
    ) -> None:
        self.catalog = ToolCatalog(engine)
        self._source = tools
        self._refreshed_at: float | None = None
        self.validate_results = validate_results

    async def refresh(self) -> None:
        """Re-read the tools from the source given at construction (after a list change)."""
        source = self._source
        self._refreshed_at = time.monotonic()
        tools = await source() if callable(source) else source
        self.catalog.absorb(tool_definition(t) for t in tools)

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.method != "tools/call" or ctx.request_id is None:
            return await call_next(ctx)

        params = ctx.params or {}
        name = params.get("name")
        if not isinstance(name, str):
            return await call_next(ctx)  # the SDK's own params validation answers this
        arguments = params.get("arguments")
        if arguments is not None and not isinstance(arguments, Mapping):
            # Never decoded here (a JSON text is not an object): refused like any invalid arguments.
            issue = Issue(instance_path="", keyword_location="/type", keyword="type",
                          message="arguments must be an object")
            return types.CallToolResult.model_validate(invalid_arguments_result(ValidationFailed([issue]), name))
        if self._refreshed_at is None or (name not in self.catalog and _stale(self._refreshed_at)):
            await self.refresh()
        catalog = self.catalog
        rejected = catalog.rejected(name)
        if rejected is not None:
            logger.error("tool %r cannot be called: its schema was refused: %s", name, rejected.message)
            return _error_result(unavailable(name, rejected))
        try:
            catalog.validate_arguments(name, arguments if arguments is not None else {})
        except UnknownTool as exc:
            raise _invalid_params(exc) from None
        except ValidationFailed as exc:
            return types.CallToolResult.model_validate(invalid_arguments_result(exc, name))

        result = await call_next(ctx)
        if self.validate_results:
            return self._checked_result(name, result)
        return result

    def _checked_result(self, name: str, result: HandlerResult) -> HandlerResult:
        if isinstance(result, types.CallToolResult):
            if result.is_error:
                return result
            structured = _structured(result)
        elif isinstance(result, Mapping) and "content" in result:
            if result.get("isError"):
                return result
            structured = result.get("structuredContent", ABSENT)
        else:
            return result  # InputRequiredResult and extension results carry no structuredContent
        if not self.catalog.has_output_schema(name):
            return result
        try:
            self.catalog.validate_structured(name, structured)
        except (ValidationFailed, SchemaRejected) as exc:
            logger.warning("tool %r returned a result that does not conform to its outputSchema: %s", name, exc.message)
            return _error_result(nonconforming(name, exc))
        return result


def _stale(refreshed_at: float) -> bool:
    return time.monotonic() - refreshed_at >= REFRESH_INTERVAL


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
    """

    def __init__(self, engine: Engine | None = None) -> None:
        self.engine = engine if engine is not None else default_engine()

    def compile(self, requested_schema: Mapping[str, Any]) -> Any:
        return compile_elicitation(dict(requested_schema), engine=self.engine)

    def request(self, message: str, requested_schema: Mapping[str, Any]) -> types.ElicitRequest:
        """An ``elicitation/create`` request, for ``InputRequiredResult.input_requests``."""
        self.compile(requested_schema)
        return types.ElicitRequest(
            params=types.ElicitRequestFormParams(message=message, requested_schema=dict(requested_schema))
        )

    def read(self, requested_schema: Mapping[str, Any], answer: types.ElicitResult | Mapping[str, Any]) -> Any:
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
    session: ServerSession,
    message: str,
    requested_schema: Mapping[str, Any],
    *,
    engine: Engine | None = None,
    related_request_id: types.RequestId | None = None,
) -> Any:
    """Ask the client for input over a handshake-era session and return the validated answer.

    The engine's counterpart of ``mcp.server.elicitation.elicit_with_validation`` for a schema
    written as JSON rather than a pydantic model. Raises :class:`engine.ValidationFailed` when the
    answer does not conform to ``requested_schema``.
    """
    forms = ElicitationForms(engine)
    forms.compile(requested_schema)
    answer = await session.elicit_form(message, dict(requested_schema), related_request_id=related_request_id)
    return forms.read(requested_schema, answer)

"""Elicitation through the SDK: hand-written forms compiled by the engine, asked from a tool
handler on every protocol generation, the answer validated."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.session import ServerSession
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from .._engine import Engine, engine_or_default
from .._mcp import ElicitationForm, ElicitResult, compile_elicitation
from . import _elicit
from ._elicit import ask
from ._sdk_server import InputRequired


class ElicitationForms:
    """Elicitation forms compiled by the engine, for servers that write ``requestedSchema`` by hand.

    ``request`` checks the form's restricted shape (a refused form raises
    :class:`engine.SchemaRejected` naming the property) and builds the SDK request; ``read`` decodes
    and validates the client's answer (:class:`engine.ValidationFailed` when it does not conform).
    Most handlers need neither: :func:`elicit` does both, on every protocol generation.
    """

    def __init__(self, engine: Engine | None = None) -> None:
        self.engine = engine_or_default(engine)

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
            form=form,
            message=message,
            requested_schema=requested_schema,
            key=key,
            responses=params.get("inputResponses"),
            state=params.get("requestState"),
            send=lambda: session.elicit_form(message, dict(requested_schema), related_request_id=request_id),
            tool=tool if isinstance(tool, str) else None,
        )
    server_session = ctx
    return await ask(
        modern=False,
        form=form,
        message=message,
        requested_schema=requested_schema,
        key=key,
        responses=None,
        state=None,
        tool=None,
        send=lambda: server_session.elicit_form(message, dict(requested_schema), related_request_id=related_request_id),
    )

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

from .._optional import missing_dependency

try:
    from ._sdk_client import EngineClient, EngineClientSession, InvalidToolResult
    from ._sdk_elicit import ElicitationForms, elicit
    from ._sdk_server import InputRequired, ToolValidation
    from ._sdk_tools import ToolLike, ToolSource, tool_definition
except ModuleNotFoundError as exc:
    raise missing_dependency(exc, module=__name__, needs="the MCP Python SDK (mcp 2.x)", extra="mcp") from exc

for _error in (InvalidToolResult, InputRequired):  # a traceback names them where they are imported from
    _error.__module__ = __name__
del _error

__all__ = [
    "ElicitationForms",
    "EngineClient",
    "EngineClientSession",
    "InputRequired",
    "InvalidToolResult",
    "ToolLike",
    "ToolSource",
    "ToolValidation",
    "elicit",
    "tool_definition",
]

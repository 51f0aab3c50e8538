"""A tool list compiled into a :class:`~engine._mcp.tools.ToolSet`: each tool's schemas compiled
once, the tools refused kept with their reasons."""

from __future__ import annotations

import gc
from collections.abc import Mapping, Sequence
from typing import Any

from .._config_values import short_repr
from .._decode import decode_json
from .._engine import Engine, engine_or_default
from .._errors import DecodeError, RejectReason, SchemaRejected
from .list_budget import ListBudget
from .mapping import is_jsonrpc, listed_no_tools
from .tools import CompiledTool, ToolSet

__all__ = ["compile_tools", "duplicate_name"]

# What `true` / `{}` stand for as an inputSchema: MCP arguments are always a JSON object.
_NO_PARAMETERS: dict[str, Any] = {"type": "object"}


def compile_tools(tools: Any, *, engine: Engine | None = None) -> ToolSet:
    """Compile a tool set from a list of tool dicts, or a ``tools/list`` result (``{"tools": [...]}``
    or the whole JSON-RPC response) as a dict or JSON bytes, on ``engine`` (the default engine when
    omitted). Each tool's schemas compile once; a tool whose schemas are refused is in
    :attr:`ToolSet.rejected` with the reason, and the others work.

    Raises :class:`~engine.SchemaRejected` (``invalid-schema``) when ``tools`` is no tool list,
    bytes or text that are not acceptable JSON included, as :meth:`Engine.compile` refuses a
    schema's: the tool list is what the schemas come in."""
    engine = engine_or_default(engine)
    limits = engine.config.limits
    if issubclass(type(tools), (bytes, bytearray, memoryview, str)):  # not `isinstance`: `__class__` may lie
        try:
            tools = decode_json(tools, max_bytes=limits.max_schema_bytes * 16)
        except DecodeError as exc:
            raise SchemaRejected(
                RejectReason.INVALID_SCHEMA,
                f"the tool list is not acceptable JSON: {exc.message}",
                location="",
                details={"decode_reason": str(exc.reason)},
            ) from None
    tool_list, at = _tool_list(tools)
    compiled: dict[str, CompiledTool] = {}
    rejected: dict[str, SchemaRejected] = {}
    # Compiling a list allocates long-lived objects only; the collector's passes over them while it
    # runs (about a fifth of compiling 10,000 tools) free nothing. Paused for the loop if it was
    # running, so that garbage is collected as usual afterwards.
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        _compile_each(engine, tool_list, at, compiled, rejected)
    finally:
        if paused:
            gc.enable()
    return ToolSet(compiled, rejected, engine=engine)


def _compile_each(
    engine: Engine,
    tool_list: Sequence[Any],
    at: str,
    compiled: dict[str, CompiledTool],
    rejected: dict[str, SchemaRejected],
) -> None:
    """``at``: the list's place in the document given."""
    first: dict[str, int] = {}  # each name's first index
    repeated: dict[str, list[int]] = {}  # every index of a name listed more than once
    unnamed: list[int] = []
    budget = ListBudget()
    for index, definition in enumerate(tool_list):
        # Not `isinstance`: an object can claim any class through `__class__`.
        name = definition.get("name") if issubclass(type(definition), Mapping) else None
        if not isinstance(name, str):
            unnamed.append(index)
            continue
        earlier = first.get(name)
        if earlier is not None:  # noted in O(1): a name repeated 20,000 times is one list
            repeated.setdefault(name, [earlier]).append(index)
            compiled.pop(name, None)
            rejected.pop(name, None)
            continue
        first[name] = index
        refused = budget.refusal(definition)
        if refused is not None:  # (not raised: one refusal may stand for many tools)
            rejected[name] = refused
            continue
        try:
            tool = compiled[name] = _compile_tool(engine, name, definition)
            budget.spent(tool.input, tool.output)
        except SchemaRejected as refusal:
            # Kept without its traceback: its frames (the guard's walk of the schema) held some
            # 14 KB a refused tool, and a server may list refused tools without end.
            refusal.__traceback__ = refusal.__context__ = refusal.__cause__ = None
            rejected[name] = refusal
    for name, indexes in repeated.items():
        rejected[name] = duplicate_name(name, indexes, f"{at}/{indexes[-1]}/name")
    for index in unnamed:
        key = f"<tools[{index}]>"
        if key in first:  # a tool really named so keeps its name
            key += " (an entry with no name)"
        rejected[key] = SchemaRejected(
            RejectReason.INVALID_SCHEMA, f"tools[{index}] is not a tool definition with a string name",
            location=f"{at}/{index}", details={"index": index},
        )  # fmt: skip


def duplicate_name(name: str, indexes: list[int], location: str) -> SchemaRejected:
    """The refusal of a name listed at each of ``indexes`` (two or more): the message names the
    first few places, ``details`` every one."""
    shown = [f"tools[{i}]" for i in indexes[:5]]
    if len(indexes) > 5:
        places = ", ".join(shown) + f" and {len(indexes) - 5} more"
    else:
        places = ", ".join(shown[:-1]) + f" and {shown[-1]}"
    listed = "more than once" if len(indexes) == 2 else f"{len(indexes)} times"
    return SchemaRejected(
        RejectReason.INVALID_SCHEMA,
        f"tool name {short_repr(name)} is listed {listed} ({places}): MCP requires unique names, and "
        + ("neither is used" if len(indexes) == 2 else "none is used"),
        location=location, details={"tool": name, "indexes": indexes},
    )  # fmt: skip


def _tool_list(tools: Any) -> tuple[Sequence[Any], str]:
    """The tools listed, and where the list is in the document given (a JSON pointer)."""
    at = ""
    if is_jsonrpc(tools):  # a JSON-RPC response: its result, or why it has none
        if "error" in tools:
            raise SchemaRejected(RejectReason.INVALID_SCHEMA, listed_no_tools(tools["error"]), location="/error")
        tools = tools.get("result")
        at = "/result"
    if issubclass(type(tools), Mapping):
        tools = tools.get("tools")
        at += "/tools"
    if not issubclass(type(tools), list):
        raise SchemaRejected(
            RejectReason.INVALID_SCHEMA,
            'expected a list of tools, a tools/list result ({"tools": [...]}) or a JSON-RPC response carrying one',
        )
    return list.copy(tools), at  # its items as the list holds them, whatever it overrides


def _compile_tool(engine: Engine, name: str, definition: Mapping[str, Any]) -> CompiledTool:
    input_schema = definition.get("inputSchema")
    if input_schema is True or input_schema == {}:
        if not engine.config.allow_empty_input_schema:
            raise _refusal(
                name,
                "inputSchema",
                SchemaRejected(
                    RejectReason.INVALID_SCHEMA,
                    "inputSchema is `true`/`{}`, which this engine is configured to refuse (allow_empty_input_schema)",
                    location="",
                ),
            )
        input_schema = _NO_PARAMETERS
    elif not isinstance(input_schema, Mapping) or input_schema.get("type") != "object":
        what = "missing" if input_schema is None else "not an object schema"
        raise _refusal(
            name,
            "inputSchema",
            SchemaRejected(
                RejectReason.INVALID_SCHEMA,
                f'inputSchema is {what}: MCP requires `type: "object"` at its root',
                location="/type" if isinstance(input_schema, Mapping) else "",
            ),
        )
    try:
        compiled_input = engine.compile(input_schema)
    except SchemaRejected as refusal:
        raise _refusal(name, "inputSchema", refusal) from None
    output_schema = definition.get("outputSchema")
    compiled_output = None
    if output_schema is not None:
        try:
            compiled_output = engine.compile(output_schema)
        except SchemaRejected as refusal:
            raise _refusal(name, "outputSchema", refusal) from None
    return CompiledTool(name=name, definition=definition, input=compiled_input, output=compiled_output)


def _refusal(tool: str, which: str, refusal: SchemaRejected) -> SchemaRejected:
    details = {**refusal.details, "tool": tool, "schema": which}
    location = f"/{which}{refusal.location or ''}"
    return SchemaRejected(
        refusal.reason, f"{which} of tool {tool!r}: {refusal.message}", location=location, details=details
    )

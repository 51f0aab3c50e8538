"""The SDK's tool models as the engine reads them: a tool's definition exactly as advertised, and
a result's ``structuredContent`` as sent."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import mcp_types as types

from ._catalog import ABSENT

ToolLike = types.Tool | Mapping[str, Any]
ToolSource = Sequence[ToolLike] | Callable[[], Awaitable[Sequence[ToolLike]]]
"""What a server advertises: a list of ``Tool`` models or dicts, or an async callable returning one."""


def checked_tools(tools: object, *, returned: bool = False) -> Sequence[ToolLike]:
    """A list of tools as given (``Tool`` models or dicts); a ``TypeError`` saying what is wrong
    otherwise, raised where the list is given rather than on the first call that reads it.
    ``returned``: the list came from the ``tools=`` callable."""
    if isinstance(tools, (str, bytes, Mapping)) or not isinstance(tools, Sequence):
        if returned:
            raise TypeError(f"the tools= callable returned {type(tools).__name__}, not a list of Tool models or dicts")
        kind = type(tools).__name__
        raise TypeError(f"tools= takes a list of Tool models or dicts, or an async callable returning one, not {kind}")
    for index, tool in enumerate(tools):
        where = "the tools= callable's list" if returned else "tools="
        if not isinstance(tool, (types.Tool, Mapping)):
            raise TypeError(f"{where} item {index} is {type(tool).__name__}: a tool is a Tool model or a dict")
        if isinstance(tool, Mapping) and type(tool.get("name")) is not str:
            raise TypeError(f"{where} item {index} has no name: a tool's name is a string")
    return tools


def checked_source(tools: object) -> ToolSource | None:
    """``ToolValidation``'s ``tools=``: ``None``, an async callable, or a list :func:`checked_tools` reads."""
    if tools is None or callable(tools):
        return tools  # a callable's list is checked when it is read
    return checked_tools(tools)


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


def structured_content(result: types.CallToolResult) -> Any:
    """``structuredContent`` as sent: ``null`` is a value, an absent field is :data:`ABSENT`."""
    if result.structured_content is None and "structured_content" not in result.model_fields_set:
        return ABSENT
    return result.structured_content

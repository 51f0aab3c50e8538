"""The MCP layer: tool sets (arguments and results), elicitation forms, and MCP error mapping."""

from __future__ import annotations

from .elicitation import ElicitationForm, ElicitResult, compile_elicitation
from .envelope import CallToolResult
from .mapping import invalid_arguments_result
from .tool_list import compile_tools
from .tools import CompiledTool, ToolSet

__all__ = [
    "CallToolResult",
    "CompiledTool",
    "ElicitResult",
    "ElicitationForm",
    "ToolSet",
    "compile_elicitation",
    "compile_tools",
    "invalid_arguments_result",
]

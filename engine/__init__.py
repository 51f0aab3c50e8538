"""engine: compiled, hardened JSON Schema validation for the Model Context Protocol.

    >>> import engine
    >>> cs = engine.compile({"type": "object", "required": ["q"]})
    >>> cs.is_valid({"q": 1})
    True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._cache import CacheStats
from ._compiled import CompiledSchema
from ._config import ConfigError, EngineConfig, FetchConfig, Limits
from ._dialect import Dialect
from ._engine import Engine, default_engine
from ._errors import (
    BackendUnavailable,
    DecodeError,
    DecodeReason,
    EngineError,
    Issue,
    RejectReason,
    SchemaRejected,
    UnknownTool,
    ValidationFailed,
)
from ._mcp import (
    CallToolResult,
    CompiledTool,
    ElicitationForm,
    ElicitResult,
    ToolSet,
    compile_elicitation,
    compile_tools,
    invalid_arguments_result,
)

__all__ = [
    "BackendUnavailable",
    "CacheStats",
    "CallToolResult",
    "CompiledTool",
    "CompiledSchema",
    "ConfigError",
    "DecodeError",
    "DecodeReason",
    "Dialect",
    "ElicitResult",
    "ElicitationForm",
    "Engine",
    "EngineConfig",
    "EngineError",
    "FetchConfig",
    "Issue",
    "Limits",
    "RejectReason",
    "SchemaRejected",
    "ToolSet",
    "UnknownTool",
    "ValidationFailed",
    "compile",
    "compile_elicitation",
    "compile_tools",
    "invalid_arguments_result",
]


def compile(schema: Any, *, registry: Mapping[str, Any] | None = None) -> CompiledSchema:
    """Compile ``schema`` on the default engine (configured from the environment and defaults);
    see :meth:`Engine.compile`."""
    return default_engine().compile(schema, registry=registry)



"""engine: compiled, hardened JSON Schema validation for the Model Context Protocol.

    >>> import engine
    >>> cs = engine.compile({"type": "object", "required": ["q"]})
    >>> cs.is_valid({"q": 1})
    True
"""

from __future__ import annotations

from typing import Any

from .cache import CacheStats
from .compiled import CompiledSchema
from .config import ConfigError, EngineConfig, FetchConfig, Limits
from .dialect import Dialect
from .engine import Engine, default_engine
from .errors import (
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
from .mcp import (
    CallToolResult,
    CompiledTool,
    ElicitationForm,
    ElicitResult,
    ToolSet,
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
    "invalid_arguments_result",
]


def compile(schema: Any, **kwargs: Any) -> CompiledSchema:
    """Compile ``schema`` on the default engine (configured from the environment and defaults)."""
    return default_engine().compile(schema, **kwargs)

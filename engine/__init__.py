"""engine: compiled, hardened JSON Schema validation for the Model Context Protocol.

    >>> import engine
    >>> cs = engine.compile({"type": "object", "required": ["q"]})
    >>> cs.is_valid({"q": 1})
    True

The core (engines, compiled schemas, configuration, errors) is imported with the package; the MCP
layer (``compile_tools``, ``compile_elicitation`` and their types) on first use, so a program that
only validates plain schemas never pays for it. ``engine.__version__`` comes from the installed
package's metadata.
"""

import typing as _typing
from collections.abc import Mapping as _Mapping

from ._cache import CacheStats
from ._compiled import CompiledSchema
from ._config import ConfigError, EngineConfig, FetchConfig, Limits
from ._dialect import Dialect
from ._engine import Engine
from ._engine import default_engine as _default_engine
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

# Errors are named as they are imported: a traceback reads `engine.ConfigError`, not the private
# module that defines it (pickles name them so too, and `engine` serves each name).
for _error in (
    BackendUnavailable,
    ConfigError,
    DecodeError,
    EngineError,
    SchemaRejected,
    UnknownTool,
    ValidationFailed,
):
    _error.__module__ = __name__
del _error

if _typing.TYPE_CHECKING:
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

    __version__: str

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
    "__version__",
    "compile",
    "compile_elicitation",
    "compile_tools",
    "invalid_arguments_result",
]

# Names served on first access (PEP 562): the MCP layer costs a third of the import otherwise.
_LAZY = {
    "CallToolResult": "._mcp",
    "CompiledTool": "._mcp",
    "ElicitResult": "._mcp",
    "ElicitationForm": "._mcp",
    "ToolSet": "._mcp",
    "compile_elicitation": "._mcp",
    "compile_tools": "._mcp",
    "invalid_arguments_result": "._mcp",
}


def __getattr__(name: str) -> _typing.Any:
    if name == "__version__":
        from ._version import version

        value: _typing.Any = version()
    elif name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    else:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def compile(schema: _typing.Any, *, registry: _Mapping[str, _typing.Any] | None = None) -> CompiledSchema:
    """Compile ``schema`` on the default engine (configured from the environment, the nearest
    ``pyproject.toml`` with a ``[tool.engine]`` table, and defaults)."""
    return _default_engine().compile(schema, registry=registry)

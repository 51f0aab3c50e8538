"""What the command line reads: JSON files (or standard input), and what kind of document each is."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from .._decode import decode_json
from .._errors import EngineError

__all__ = ["EXIT_OK", "EXIT_REFUSED", "EXIT_USAGE", "MAX_INPUT_BYTES", "Target", "UsageError", "read_json", "targets"]

EXIT_OK = 0
EXIT_REFUSED = 1
EXIT_USAGE = 2

# A tools/list result from a large server is a few MB; this bounds what `check` will read.
MAX_INPUT_BYTES = 256 * 1024 * 1024

SCHEMA_KEYS = ("inputSchema", "outputSchema")


class UsageError(Exception):
    """The command cannot run: the message is printed as is, the exit status is 2."""


def read_json(path: str, what: str) -> Any:
    """The JSON document in ``path`` (``-`` is standard input), or a :class:`UsageError`."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
        else:
            with open(path, "rb") as fh:
                data = fh.read(MAX_INPUT_BYTES + 1)
    except OSError as exc:
        raise UsageError(f"cannot read the {what} {path!r}: {exc.strerror or exc}") from None
    try:
        return decode_json(data, max_bytes=MAX_INPUT_BYTES)
    except EngineError as exc:
        where = "standard input" if path == "-" else repr(path)
        raise UsageError(f"the {what} in {where} is not usable JSON: {exc.message}") from None


class Target(msgspec.Struct, frozen=True):
    """One thing `check` looks at: a tool (with its schemas) or a lone schema."""

    name: str
    schemas: dict[str, Any]
    tool: dict[str, Any] | None = None


def targets(document: Any) -> tuple[str, list[Target]]:
    """What kind of document this is, and the tools or schema in it.

    Accepts a whole JSON-RPC response to ``tools/list``, its ``result`` object, a list of tools,
    a single tool, or a single schema.
    """
    if isinstance(document, Mapping) and "jsonrpc" in document and "result" in document:
        kind, found = targets(document["result"])
        return f"JSON-RPC response ({kind})", found
    if isinstance(document, Mapping) and isinstance(document.get("tools"), list):
        return "tools/list result", _tools(document["tools"])
    if isinstance(document, list):
        return "list of tools", _tools(document)
    if isinstance(document, Mapping) and "inputSchema" in document:
        return "one tool", _tools([document])
    if isinstance(document, (Mapping, bool)):
        return "one schema", [Target(name="<schema>", schemas={"schema": document})]
    raise UsageError(
        "expected a tools/list result, a list of tools, one tool or one schema, "
        f"but the document is {type(document).__name__}"
    )


def _tools(items: Sequence[Any]) -> list[Target]:
    found = []
    for index, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise UsageError(f"tool #{index} is {type(item).__name__}, not an object")
        name = item.get("name")
        label = name if isinstance(name, str) and name else f"#{index}"
        schemas = {key: item[key] for key in SCHEMA_KEYS if key in item and item[key] is not None}
        if "inputSchema" not in item:
            schemas["inputSchema"] = None  # reported as missing
        found.append(Target(name=label, schemas=schemas, tool=dict(item)))
    return found

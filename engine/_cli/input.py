"""What the command line reads: JSON files (or standard input), and what kind of document each is."""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from .._config_values import UnusablePath, read_at_most
from .._decode import decode_json
from .._errors import DecodeError, DecodeReason
from .._intake import json_type
from .._keywords import ANNOTATIONS, KNOWN_IN_ANY_DIALECT
from .._mcp.mapping import is_jsonrpc, listed_no_tools

__all__ = [
    "EXIT_OK",
    "EXIT_REFUSED",
    "EXIT_USAGE",
    "MAX_INPUT_BYTES",
    "NOT_JSON",
    "Target",
    "UsageError",
    "describe_decode_error",
    "looks_like_tool",
    "read_bytes",
    "read_json",
    "shown",
    "targets",
    "tool_refusal",
    "tools_document",
]

EXIT_OK = 0
EXIT_REFUSED = 1
EXIT_USAGE = 2

# A tools/list result from a large server is a few MB; this bounds what `check` will read.
MAX_INPUT_BYTES = 256 * 1024 * 1024

SCHEMA_KEYS = ("inputSchema", "outputSchema")


# Decode failures that mean "this is not JSON" (the command cannot run: exit 2); the others
# (too large, too deep, a number out of range) are JSON the limits refuse.
NOT_JSON = frozenset({DecodeReason.MALFORMED_JSON, DecodeReason.INVALID_UTF8, DecodeReason.NON_FINITE_NUMBER})


def shown(text: str) -> str:
    """``text`` as a terminal may be given it: every character it would act on rather than show
    (a control, a direction override: not printable) written as its ``\\u`` escape, newlines kept.
    Names, keys and values in the output come from schemas and documents nobody vetted."""
    if text.replace("\n", "").isprintable():
        return text
    return "".join(c if c.isprintable() or c == "\n" else f"\\u{ord(c):04x}" for c in text)


class UsageError(Exception):
    """The command cannot run: the message is printed as is, the exit status is 2; ``reason`` is
    the machine-readable cause (``unreadable-file``, ``malformed-json``, ``not-a-schema``, ...)."""

    def __init__(self, message: str, reason: str = "usage") -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason


def label_of(path: str) -> str:
    return "standard input" if path == "-" else path


def read_bytes(path: str, what: str, limit: int) -> bytes:
    """Up to ``limit + 1`` bytes of ``path`` (``-`` is standard input), or a :class:`UsageError`."""
    try:
        if path == "-":
            return sys.stdin.buffer.read(limit + 1)
        return read_at_most(path, limit + 1)  # a named pipe no one writes to reads as empty
    except OSError as exc:
        raise UsageError(f"cannot read the {what} {path!r}: {exc.strerror or exc}", "unreadable-file") from None
    except UnusablePath as exc:
        raise UsageError(f"cannot read the {what} {path!r}: {exc}", "unreadable-file") from None


def read_json(path: str, what: str) -> Any:
    """The JSON document in ``path`` (``-`` is standard input), or a :class:`UsageError`."""
    data = read_bytes(path, what, MAX_INPUT_BYTES)
    if len(data) > MAX_INPUT_BYTES:  # read one byte past the bound: no more
        raise UsageError(
            f"{label_of(path)} is refused: it is longer than the 256 MiB the command reads of a {what}",
            str(DecodeReason.TOO_LARGE),
        )
    try:
        return decode_json(data, max_bytes=MAX_INPUT_BYTES)
    except DecodeError as exc:
        raise UsageError(describe_decode_error(label_of(path), exc, data), str(exc.reason)) from None


_BYTE = re.compile(r"\s*\(byte (\d+)\)")
_PREFIXES = ("not valid JSON text: ", "not valid JSON: ", "JSON is malformed: ")


def describe_decode_error(label: str, exc: DecodeError, data: bytes | str) -> str:
    """One sentence for a document that could not be decoded: what is wrong, and where as a line
    and column (editors show those, not byte offsets)."""
    text = exc.message
    for prefix in _PREFIXES:
        text = text.removeprefix(prefix)
    if exc.reason not in NOT_JSON:
        return f"{label} is refused: {text}"
    raw = data.encode() if isinstance(data, str) else data
    match = _BYTE.search(text)
    if match is not None:
        offset = int(match.group(1))
        text = text[: match.start()] + text[match.end() :]
    elif "truncated" in text:
        offset, text = len(raw), "the document ends before it is complete"
    else:
        return f"{label} is not valid JSON: {text}"
    line = raw.count(b"\n", 0, offset) + 1
    column = offset - (raw.rfind(b"\n", 0, offset) + 1) + 1
    return f"{label} is not valid JSON: {text.strip()} at line {line}, column {column}"


class Target(msgspec.Struct, frozen=True):
    """One thing `check` looks at: a tool (with its schemas) or a lone schema."""

    name: str
    schemas: dict[str, Any]
    tool: dict[str, Any] | None = None
    """The tool's definition; ``None`` for a lone schema or a list entry that is no object."""
    index: int | None = None
    """The tool's position in its list (``None`` for one tool or one schema given alone)."""
    pointer: str = ""
    """Where the tool is in the document read (a JSON pointer): ``/result/tools/3``, ``/3``, ``""``."""
    refusal: dict[str, Any] | None = None
    """Why the entry itself (not one of its schemas) cannot be used: no object, no string name."""


# Keywords that make an object a schema rather than a tool. A tool shares the annotations
# (`title`, `description`...) with JSON Schema, so those decide nothing.
SCHEMA_KEYWORDS = KNOWN_IN_ANY_DIALECT - ANNOTATIONS


def looks_like_tool(value: Any) -> bool:
    """A tool definition rather than a schema: an object with an ``inputSchema`` or
    ``outputSchema``, or with a ``name`` and no JSON Schema keyword but the annotations (so
    ``{"name": "x"}`` is a tool without ``inputSchema``, not a schema that accepts anything)."""
    if not isinstance(value, Mapping):
        return False
    if "inputSchema" in value or "outputSchema" in value:
        return True
    return "name" in value and SCHEMA_KEYWORDS.isdisjoint(value)


def targets(document: Any) -> tuple[str, list[Target]]:
    """What kind of document this is, and the tools or schema in it (see docs/cli.md for the rules).

    Accepts a whole JSON-RPC response to ``tools/list``, its ``result`` object, a list of tools,
    a single tool, or a single schema; anything else, a JSON-RPC error response included, is a
    :class:`UsageError`.
    """
    if is_jsonrpc(document):
        return "JSON-RPC response (tools/list result)", _tools(_jsonrpc_tools(document), "/result/tools")
    if isinstance(document, Mapping) and "tools" in document:
        return "tools/list result", _tools(_tool_list(document["tools"], "the document's"), "/tools")
    if isinstance(document, list):
        return "list of tools", _tools(document, "")
    if looks_like_tool(document):
        return "one tool", [_tool(document, None, "")]
    if isinstance(document, (Mapping, bool)):
        return "one schema", [Target(name="<schema>", schemas={"schema": document})]
    raise UsageError(
        "expected a tools/list result, a list of tools, one tool or one schema, "
        f"but the document is {json_type(document)}",
        "wrong-document",
    )


def _jsonrpc_tools(response: Mapping[str, Any]) -> Any:
    """The tool list of a JSON-RPC response to ``tools/list``, or a :class:`UsageError` saying why
    the message holds none (an error response, a request, a result of another kind)."""
    if "error" in response:
        raise UsageError(f"the document is {listed_no_tools(response['error'])} to check", "jsonrpc-error")
    if "result" not in response:
        raise UsageError(
            "the document is a JSON-RPC message with neither a result nor an error (a request or a "
            "notification?), not a response to tools/list",
            "wrong-document",
        )
    result = response["result"]
    if not isinstance(result, Mapping) or "tools" not in result:
        what = "an object without a tools member" if isinstance(result, Mapping) else json_type(result)
        raise UsageError(
            f'the JSON-RPC response\'s result is {what}, not a tools/list result ({{"tools": [...]}})',
            "wrong-document",
        )
    return _tool_list(result["tools"], "the JSON-RPC result's")


def _tool_list(tools: Any, whose: str) -> list[Any]:
    if not isinstance(tools, list):
        raise UsageError(f"{whose} tools member is {json_type(tools)}, not a list of tools", "wrong-document")
    return tools


def tools_document(document: Any) -> str | None:
    """What kind of tool document this is (a tools/list result, a tool, a JSON-RPC message...), or
    ``None`` when it can be a schema: ``validate --schema`` must not take a tool list for a schema
    that, having no keyword it knows, accepts anything. The rules are those of :func:`targets`."""
    if is_jsonrpc(document):
        if "error" in document:
            return "JSON-RPC error response"
        result = document.get("result")
        return (
            "JSON-RPC response (tools/list result)"
            if isinstance(result, Mapping) and "tools" in result
            else "JSON-RPC message"
        )
    if isinstance(document, Mapping) and "tools" in document:
        return "tools/list result"
    if isinstance(document, list) and document and all(map(looks_like_tool, document)):
        return "list of tools"
    if looks_like_tool(document):
        return "tool"
    return None


def _tools(items: Sequence[Any], at: str) -> list[Target]:
    """The entries of a tool list found at ``at`` in the document."""
    return [_tool(item, index, f"{at}/{index}") for index, item in enumerate(items)]


def _tool(item: Any, index: int | None, pointer: str) -> Target:
    """One entry of a tool list (``index`` its place), or the one tool given alone (``None``)."""
    place = "the tool" if index is None else f"tools[{index}]"
    if not isinstance(item, Mapping):
        # Refused on its own, named as `compile_tools` names it; the other entries are checked.
        return Target(
            name="<tool>" if index is None else f"<{place}>",
            schemas={},
            index=index,
            pointer=pointer,
            refusal=tool_refusal(f"{place} is {json_type(item)}, not a tool definition (an object)", pointer),
        )
    name = item.get("name")
    named = isinstance(name, str) and name != ""
    schemas = {key: item[key] for key in SCHEMA_KEYS if key in item and item[key] is not None}
    if "inputSchema" not in item:
        schemas["inputSchema"] = None  # reported as missing
    refusal = None
    if not named:
        problem = (
            f"{place} has no name: MCP requires every tool to have a non-empty string name"
            if name is None or name == ""
            else f"{place} has a name that is {type(name).__name__}, not a string: MCP requires a string"
        )
        refusal = tool_refusal(problem, f"{pointer}/name")
    label = name if isinstance(name, str) and named else ("<tool>" if index is None else f"<{place}>")
    return Target(name=label, schemas=schemas, tool=dict(item), index=index, pointer=pointer, refusal=refusal)


def tool_refusal(message: str, location: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"reason": "invalid-tool", "message": message, "location": location, "details": details or {}}

"""What the command line reads: JSON files (or standard input), and what kind of document each is."""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from .._decode import decode_json
from .._errors import DecodeError, DecodeReason
from .._intake import json_type

__all__ = [
    "EXIT_OK",
    "EXIT_REFUSED",
    "EXIT_USAGE",
    "MAX_INPUT_BYTES",
    "NOT_JSON",
    "Target",
    "UsageError",
    "describe_decode_error",
    "read_bytes",
    "read_json",
    "shown",
    "targets",
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
        with open(path, "rb") as fh:
            return fh.read(limit + 1)
    except OSError as exc:
        raise UsageError(f"cannot read the {what} {path!r}: {exc.strerror or exc}", "unreadable-file") from None


def read_json(path: str, what: str) -> Any:
    """The JSON document in ``path`` (``-`` is standard input), or a :class:`UsageError`."""
    data = read_bytes(path, what, MAX_INPUT_BYTES)
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
    index: int | None = None
    """The tool's position in its list."""
    problem: str | None = None
    """Why the tool itself (not one of its schemas) cannot be used: no name."""


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
        f"but the document is {json_type(document)}",
        "wrong-document",
    )


def tools_document(document: Any) -> str | None:
    """What kind of tool document this is (a tools/list result, a tool...), or ``None`` when it
    can be a schema: ``validate --schema`` must not take a tool list for a schema that, having no
    keyword it knows, accepts anything."""
    if isinstance(document, Mapping) and "jsonrpc" in document and isinstance(document.get("result"), Mapping):
        inner = tools_document(document["result"])
        return None if inner is None else f"JSON-RPC response ({inner})"
    if isinstance(document, Mapping) and isinstance(document.get("tools"), list):
        return "tools/list result"
    if isinstance(document, list) and document and all(isinstance(t, Mapping) and "inputSchema" in t for t in document):
        return "list of tools"
    if isinstance(document, Mapping) and "inputSchema" in document and isinstance(document.get("name"), str):
        return "one tool"
    return None


def _tools(items: Sequence[Any]) -> list[Target]:
    found = []
    for index, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise UsageError(f"tool #{index} is {type(item).__name__}, not an object", "wrong-document")
        name = item.get("name")
        named = isinstance(name, str) and name != ""
        schemas = {key: item[key] for key in SCHEMA_KEYS if key in item and item[key] is not None}
        if "inputSchema" not in item:
            schemas["inputSchema"] = None  # reported as missing
        problem = None
        if not named:
            problem = (
                f"tool #{index} has no name: MCP requires every tool to have a non-empty string name"
                if name is None or name == ""
                else f"tool #{index} has a name that is {type(name).__name__}, not a string: MCP requires a string"
            )
        label = name if isinstance(name, str) and named else f"#{index} (no name)"
        found.append(Target(name=label, schemas=schemas, tool=dict(item), index=index, problem=problem))
    return found

"""Engine errors as MCP answers, and the protocol's rules on what a result or a listing may carry.

Invalid tool arguments are a tool error the model can read and correct (a ``CallToolResult`` with
``isError: true``), not a protocol error; an unknown tool is a JSON-RPC invalid-params error
(:meth:`engine.UnknownTool.to_jsonrpc_error`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec
from msgspec import UNSET

from .._config_values import short_repr
from .._errors import DecodeError, DecodeReason, Issue, ValidationFailed, bounded_message
from .._slow_numbers import SCREENED_PAST, far_exponents_in_texts_over
from .envelope import CallToolResult

__all__ = [
    "JSONRPC_MEMBERS",
    "has_text_fallback",
    "invalid_arguments_result",
    "is_jsonrpc",
    "listed_no_tools",
    "older_versions_cannot_list",
    "text_fallback",
    "with_text_fallback",
]


JSONRPC_MEMBERS = frozenset({"jsonrpc", "result", "error"})
"""Members only a JSON-RPC message has: none is a tool list's member or a JSON Schema keyword."""


def is_jsonrpc(document: Any) -> bool:
    """A JSON-RPC message: an object with a ``jsonrpc``, ``result`` or ``error`` member."""
    return isinstance(document, Mapping) and not JSONRPC_MEMBERS.isdisjoint(document)


def listed_no_tools(error: Any) -> str:
    """What a JSON-RPC error response to ``tools/list`` is, its ``error`` shown short (a server's
    words, of any size or kind: an int past the interpreter's text limit has no text)."""
    said = f" {short_repr(error.get('code'))}: {short_repr(error.get('message'))}" if isinstance(error, Mapping) else ""
    return f"a JSON-RPC error response (error{said}), not a tools/list result: the server listed no tools"


def arguments_not_an_object() -> ValidationFailed:
    """The failure of tool-call arguments that are not a JSON object (MCP's ``inputSchema`` has
    ``type: "object"`` at its root)."""
    return ValidationFailed(
        [Issue(instance_path="", keyword_location="/type", keyword="type", message="arguments must be an object")]
    )


def invalid_arguments_result(
    error: ValidationFailed | DecodeError, tool: str | None = None, *, structured_content: bool = True
) -> dict[str, Any]:
    """The ``CallToolResult`` dict a server returns for arguments that failed validation.

    ``content`` holds one text block a model can act on, listing every issue. With
    ``structured_content=True`` (for a tool that declares no ``outputSchema``),
    ``structuredContent.error`` carries the machine-readable details. Pass ``False`` for a tool
    that declares an ``outputSchema``: clients that check ``structuredContent`` even on error
    results (the TypeScript SDK's ``callTool`` does) would refuse an error object their schema
    does not describe, and the model would never see the message.

    A :class:`DecodeError` (arguments that are no JSON value: bytes that do not parse, a NaN, a
    lone surrogate...) is answered the same way, with its sentence and no issues; its reason is
    ``structuredContent.error.decode``.
    """
    if not isinstance(error, (ValidationFailed, DecodeError)):
        raise TypeError(
            f"invalid_arguments_result takes the ValidationFailed or DecodeError raised, not a {type(error).__name__}"
        )
    subject = f"tool {short_repr(tool)}" if tool else "the tool"  # a name of any length, shown short
    if isinstance(error, DecodeError):
        text = f"Invalid arguments for {subject}: {error.message}"
        result: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": True}
        if structured_content:
            details: dict[str, Any] = {"reason": "invalid-arguments", "tool": tool, "issues": [], "truncated": False}
            result["structuredContent"] = {"error": {**details, "decode": str(error.reason), "message": error.message}}
        return result
    lines = [f"Invalid arguments for {subject}:"]
    for issue in error.issues:  # a path holds every key above the value: a long one is shown cut
        lines.append(f"- at {bounded_message(issue.instance_path) or '(root)'}: {issue.message}")
    if error.truncated:
        lines.append("- (more issues not listed)")
    result = {"content": [{"type": "text", "text": "\n".join(lines)}], "isError": True}
    if structured_content:
        issues = [
            {
                "instancePath": bounded_message(issue.instance_path),  # the peer's keys: an 8 MB one echoed whole
                "keywordLocation": issue.keyword_location,
                "keyword": issue.keyword,
                "message": issue.message,
            }
            for issue in error.issues
        ]
        result["structuredContent"] = {
            "error": {"reason": "invalid-arguments", "tool": tool, "issues": issues, "truncated": error.truncated}
        }
    return result


# --- SEP-2106: structuredContent that is not an object ------------------------------------------

_MAX_FALLBACK_TEXT = 16 * 1024 * 1024  # a text block is parsed only to compare it: bounded


def has_text_fallback(content: Sequence[Any], structured: Any) -> bool:
    """Whether ``content`` has a ``TextContent`` block holding ``structured`` as JSON.

    SEP-2106: a result whose ``structuredContent`` is an array or a primitive must carry the
    serialized JSON in a text block too, for clients that cannot read non-object structured
    content. Compared as JSON values, so spacing and key order do not matter."""
    texts = [
        text
        for block in content
        if isinstance(block, Mapping)
        and block.get("type") == "text"
        and isinstance(text := block.get("text"), str)
        and len(text) <= _MAX_FALLBACK_TEXT
    ]
    if sum(map(len, texts)) > SCREENED_PAST and far_exponents_in_texts_over(texts):
        # Each text is parsed: their numbers are screened together (see `engine._decode`).
        raise DecodeError(
            DecodeReason.TOO_LARGE,
            "the result's text blocks hold too many numbers with a decimal exponent of 289 or more to parse "
            "them for its text fallback",
        )
    for text in texts:
        try:
            value = msgspec.json.decode(text)
        except (msgspec.DecodeError, RecursionError):  # not JSON, or nesting past msgspec's own bound
            continue
        # Python's `==` (in C) says "not the same" wherever JSON's does: it only also takes true
        # for 1. A value it finds equal is compared as JSON.
        if value == structured and _same_json(value, structured):
            return True
    return False


def _same_json(a: Any, b: Any) -> bool:
    """JSON equality (1 and 1.0 are the same number, true is not 1), pair by pair from a stack:
    a text block's value may nest as deep as the parser allows."""
    pairs = [(a, b)]
    while pairs:
        a, b = pairs.pop()
        if isinstance(a, bool) or isinstance(b, bool):
            if type(a) is not type(b) or a != b:
                return False
        elif isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                return False
            pairs += zip(a, b, strict=True)
        elif isinstance(a, dict) and isinstance(b, dict):
            if a.keys() != b.keys():
                return False
            pairs += ((a[k], b[k]) for k in a)
        elif isinstance(a, (list, dict)) or isinstance(b, (list, dict)) or a != b:
            return False
    return True


def with_text_fallback(result: CallToolResult) -> CallToolResult:
    """``result``, or :class:`ValidationFailed` (at ``/content``) when its ``structuredContent`` is
    an array or a primitive without the SEP-2106 text block. Error results are not checked."""
    structured = result.structured_content
    if result.is_error or structured is UNSET or isinstance(structured, dict):
        return result
    if not has_text_fallback(result.content, structured):
        raise ValidationFailed(
            [
                Issue(
                    instance_path="/content",
                    keyword_location="",
                    keyword="content",
                    message="structuredContent is not an object, so the result must also carry it as JSON in a "
                    "TextContent block (SEP-2106), for clients that cannot read it",
                )
            ]
        )
    return result


def text_fallback(structured: Any) -> dict[str, Any]:
    """The ``TextContent`` block SEP-2106 asks for: ``structured`` serialized as JSON."""
    return {"type": "text", "text": msgspec.json.encode(structured).decode()}


# --- Listings older protocol versions can read --------------------------------------------------

_OLDER_VERSIONS = "protocol versions before 2026-07-28"


def older_versions_cannot_list(tool: Mapping[str, Any]) -> str | None:
    """Why clients of protocol versions before 2026-07-28 cannot be sent this tool, or ``None``.

    Up to 2025-11-25 a tool's ``outputSchema`` (like its ``inputSchema``) must be an object
    schema: ``type: "object"`` at the root, ``properties`` an object, ``required`` a list of
    strings. SEP-2106 (2026-07-28) allows any schema; a listing that carries such a tool to an older
    client does not conform, and the official SDK's server refuses to send it at all."""
    for which in ("inputSchema", "outputSchema"):
        schema = tool.get(which)
        if schema is None and which == "outputSchema":
            continue
        problem = _not_an_object_schema(schema)
        if problem is not None:
            return f"its {which} {problem}, which {_OLDER_VERSIONS} do not allow"
    return None


def _not_an_object_schema(schema: Any) -> str | None:
    if not isinstance(schema, Mapping):
        return "is not a JSON object"
    if schema.get("type") != "object":
        return 'does not have `type: "object"` at its root'
    properties = schema.get("properties")
    if properties is not None and not isinstance(properties, Mapping):
        return "has `properties` that is not an object"
    required = schema.get("required")
    if required is not None and (not isinstance(required, list) or not all(isinstance(r, str) for r in required)):
        return "has `required` that is not a list of strings"
    return None

"""The ``CallToolResult`` envelope, decoded by msgspec with ``structuredContent`` left raw.

The envelope is decoded in one pass; ``structuredContent`` stays a :class:`msgspec.Raw` slice of
the input until the tool's compiled validator decodes it, so no byte is parsed twice. A JSON
``null`` there is a value (``Raw(b"null")``), not an absence (``UNSET``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
from msgspec import UNSET, UnsetType

from .._decode import syntax_error
from .._errors import DecodeError, DecodeReason, Issue, ValidationFailed

__all__ = ["CallToolResult", "decode_envelope", "decode_whole", "decode_wire", "envelope_from_dict"]


class CallToolResult(msgspec.Struct, kw_only=True, omit_defaults=True, rename="camel"):
    """A decoded, validated ``CallToolResult``.

    ``structured_content`` is ``UNSET`` when the result has none; ``None`` when it is JSON
    ``null``. ``msgspec.to_builtins(result)`` gives the wire form back (``structuredContent``,
    ``isError``, ``_meta``).
    """

    content: list[dict[str, Any]] = []
    structured_content: Any | UnsetType = UNSET
    is_error: bool = False
    meta: dict[str, Any] | UnsetType = msgspec.field(default=UNSET, name="_meta")

    @property
    def has_structured_content(self) -> bool:
        return self.structured_content is not UNSET


class _WireResult(msgspec.Struct, kw_only=True, rename="camel", gc=False):
    content: list[dict[str, Any]] = []
    structured_content: msgspec.Raw | UnsetType = UNSET
    is_error: bool = False
    meta: dict[str, Any] | UnsetType = msgspec.field(default=UNSET, name="_meta")


class _WireResponse(msgspec.Struct, kw_only=True, rename="camel", gc=False):
    """A CallToolResult, or a whole JSON-RPC response carrying one: one decode covers both."""

    content: list[dict[str, Any]] = []
    structured_content: msgspec.Raw | UnsetType = UNSET
    is_error: bool = False
    meta: dict[str, Any] | UnsetType = msgspec.field(default=UNSET, name="_meta")
    jsonrpc: str | UnsetType = UNSET
    result: _WireResult | UnsetType = UNSET
    error: Any | UnsetType = UNSET


_decode_wire = msgspec.json.Decoder(_WireResponse).decode
decode_wire: Callable[[bytes | bytearray | memoryview | str], _WireResponse] = _decode_wire
"""The envelope with ``structuredContent`` raw, unchecked: raises msgspec's errors as they are,
and a JSON-RPC response is returned whole (see :func:`decode_envelope`, which says what is wrong)."""


class _WholeResult(msgspec.Struct, kw_only=True, rename="camel", gc=False):
    content: list[dict[str, Any]] = []
    structured_content: Any | UnsetType = UNSET
    is_error: bool = False
    meta: dict[str, Any] | UnsetType = msgspec.field(default=UNSET, name="_meta")


class _WholeResponse(msgspec.Struct, kw_only=True, rename="camel", gc=False):
    """`_WireResponse` with ``structuredContent`` decoded in the same pass, as a plain value."""

    content: list[dict[str, Any]] = []
    structured_content: Any | UnsetType = UNSET
    is_error: bool = False
    meta: dict[str, Any] | UnsetType = msgspec.field(default=UNSET, name="_meta")
    jsonrpc: str | UnsetType = UNSET
    result: _WholeResult | UnsetType = UNSET
    error: Any | UnsetType = UNSET


decode_whole: Callable[[bytes | bytearray | memoryview | str], _WholeResponse] = msgspec.json.Decoder(
    _WholeResponse
).decode
"""The envelope in one pass, ``structuredContent`` a plain value (``msgspec.json.decode`` of its
slice), unchecked and unbounded: raises msgspec's errors as they are; a JSON-RPC response is
returned whole (its ``result`` is the result). Every document :func:`decode_wire` refuses, it
refuses too (it decodes, where that one skips)."""


def decode_envelope(data: bytes | bytearray | memoryview | str, *, max_bytes: int) -> _WireResult | _WireResponse:
    """The envelope of ``data`` with ``structuredContent`` raw. Malformed JSON is a
    :class:`DecodeError`; a wrong envelope shape a :class:`ValidationFailed` naming the field."""
    if len(data) > max_bytes:
        raise DecodeError(DecodeReason.TOO_LARGE, f"document is {len(data)} bytes, over the limit of {max_bytes}")
    try:
        wire = _decode_wire(data)
    except msgspec.ValidationError as exc:
        raise envelope_failure(str(exc)) from None
    except (msgspec.DecodeError, RecursionError, UnicodeEncodeError) as exc:
        raise syntax_error(exc, data) from None
    if wire.jsonrpc is not UNSET:
        if wire.error is not UNSET:
            raise envelope_failure("the JSON-RPC response carries an error, not a CallToolResult")
        if wire.result is UNSET:
            raise envelope_failure("the JSON-RPC response has no result")
        return wire.result
    return wire


def envelope_from_dict(result: Any) -> CallToolResult:
    """A ``CallToolResult`` dict (or a JSON-RPC response dict carrying one) as the typed envelope,
    ``structured_content`` as given."""
    if isinstance(result, dict) and "jsonrpc" in result:
        if "error" in result:
            raise envelope_failure("the JSON-RPC response carries an error, not a CallToolResult")
        result = result.get("result")
    if not isinstance(result, dict):
        raise envelope_failure(f"a CallToolResult is a JSON object, not {type(result).__name__}")
    content = result.get("content", [])
    if not isinstance(content, list) or not all(isinstance(block, dict) for block in content):
        raise envelope_failure("`content` must be an array of content-block objects", "/content")
    is_error = result.get("isError", False)
    if not isinstance(is_error, bool):
        raise envelope_failure("`isError` must be a boolean", "/isError")
    meta = result.get("_meta", UNSET)
    if meta is not UNSET and not isinstance(meta, dict):
        raise envelope_failure("`_meta` must be an object", "/_meta")
    return CallToolResult(
        content=content,
        structured_content=result.get("structuredContent", UNSET),
        is_error=is_error,
        meta=meta,
    )


def envelope_failure(message: str, path: str = "") -> ValidationFailed:
    if " - at `$" in message:  # msgspec's "Expected `array`, got `str` - at `$.content`"
        message, _, where = message.partition(" - at `$")
        path = "/" + where.rstrip("`").lstrip(".").replace(".", "/").replace("[", "/").replace("]", "")
    return ValidationFailed(
        [
            Issue(
                instance_path=path,
                keyword_location="",
                keyword="CallToolResult",
                message=f"not a CallToolResult: {message}",
            )
        ]
    )

"""The ``CallToolResult`` envelope, decoded by msgspec with ``structuredContent`` left raw.

The envelope is decoded in one pass; ``structuredContent`` stays a :class:`msgspec.Raw` slice of
the input until the tool's compiled validator decodes it, so no byte is parsed twice. A JSON
``null`` there is a value (``Raw(b"null")``), not an absence (``UNSET``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from itertools import repeat
from typing import Any

import msgspec
from msgspec import UNSET, UnsetType

from .._decode import as_bytes, json_levels, syntax_error
from .._errors import Issue, ValidationFailed

__all__ = [
    "SHALLOW_NESTING",
    "CallToolResult",
    "decode_lenient",
    "decode_whole",
    "decode_wire",
    "envelope_from_dict",
    "shape_failure",
    "shallow_decoder",
]


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


def _envelope(structured: Any, *, forbid_unknown: bool, value: Any = Any) -> Any:
    """The msgspec type of a CallToolResult, or of a whole JSON-RPC response carrying one (one
    decode covers both), with ``structuredContent`` typed ``structured`` (``msgspec.Raw`` for the
    slice, ``Any`` for a plain value) and every other untyped value (a content block's members,
    ``_meta``'s, ``resultType``, a response's ``id`` and ``error``) typed ``value``.
    ``forbid_unknown``: the readers of the hot path refuse fields they do not name, since msgspec
    skips an unknown field's value without checking it (invalid UTF-8, a number out of range, any
    depth); a JSON-RPC response's ``id`` is named for that."""
    options: dict[str, Any] = {
        "kw_only": True,
        "rename": "camel",
        "gc": False,
        "forbid_unknown_fields": forbid_unknown,
    }
    result = msgspec.defstruct(
        "CallToolResultWire",
        [
            ("content", list[dict[str, value]], msgspec.field(default_factory=list)),
            ("structured_content", structured | UnsetType, UNSET),
            ("is_error", bool, False),
            ("meta", dict[str, value] | UnsetType, msgspec.field(default=UNSET, name="_meta")),
            # Every result of a 2026-07-28 session carries `resultType`: named, so that the hot
            # path reads such a result in one pass (read as the exact path reads it: any value).
            ("result_type", value | UnsetType, UNSET),
        ],
        **options,
    )
    return msgspec.defstruct(
        "CallToolResponseWire",
        [
            ("jsonrpc", str | UnsetType, UNSET),
            ("id", value | UnsetType, UNSET),
            ("result", result | UnsetType, UNSET),
            ("error", value | UnsetType, UNSET),
        ],
        bases=(result,),
        **options,
    )


decode_wire: Callable[[bytes | bytearray | memoryview | str], Any] = msgspec.json.Decoder(
    _envelope(msgspec.Raw, forbid_unknown=True)
).decode
"""The envelope with ``structuredContent`` raw, unchecked: raises msgspec's errors as they are
(an unknown field among them), and a JSON-RPC response is returned whole (see
:func:`shape_failure`, which says what is wrong with any result)."""

decode_whole: Callable[[bytes | bytearray | memoryview | str], Any] = msgspec.json.Decoder(
    _envelope(Any, forbid_unknown=True)
).decode
"""The envelope in one pass, ``structuredContent`` a plain value (``msgspec.json.decode`` of its
slice), unchecked and unbounded: raises msgspec's errors as they are; a JSON-RPC response is
returned whole (its ``result`` is the result). Every document :func:`decode_wire` refuses, it
refuses too (it decodes, where that one skips)."""


_SHALLOW_LEVELS = 4
SHALLOW_NESTING = 4 + _SHALLOW_LEVELS
"""The most levels a document :func:`shallow_decoder`'s decoder reads nests: a response, its
result, the content array, a block, and the levels of a value in it (``structuredContent``,
``_meta``, ``resultType``, ``id`` and ``error`` sit higher)."""


@cache
def shallow_decoder() -> Callable[[bytes | bytearray | memoryview | str], Any]:
    """:func:`decode_whole` for a result whose every untyped value nests at most four levels, which
    it shows as it decodes: the same fields and values, and a ``msgspec.ValidationError`` for one
    nesting deeper (as for what :func:`decode_whole` refuses). A long result so read nests at most
    :data:`SHALLOW_NESTING` levels, with no look at its values after the decode. Built on first
    use (a few milliseconds: msgspec reads the unions' every branch), once."""
    value = json_levels(_SHALLOW_LEVELS)
    decode: Callable[[bytes | bytearray | memoryview | str], Any] = msgspec.json.Decoder(
        _envelope(value, forbid_unknown=True, value=value)
    ).decode
    return decode


# The shape of any envelope (see `shape_failure`): any other field allowed, every untyped value raw.
_decode_shape = msgspec.json.Decoder(_envelope(msgspec.Raw, forbid_unknown=False, value=msgspec.Raw)).decode

decode_lenient: Callable[[bytes | bytearray | memoryview | str], Any] = msgspec.json.Decoder(
    _envelope(Any, forbid_unknown=False)
).decode
"""The envelope in one pass, ``structuredContent`` a plain value, any other field allowed and
skipped unread (so the document must be parsed too, for its every byte to be held to JSON): every
occurrence of a member it names is typed, a duplicate key's included, as on the exact path."""


def shape_failure(data: bytes | bytearray | memoryview | str) -> ValidationFailed | None:
    """What is wrong with the shape of the envelope of ``data``, a document known to be JSON
    within the bounds (parsed whole already), as the envelope's decoder says it, naming the field
    and what it expected; ``None`` if its shape is right. Every untyped value is skipped unread:
    the document is not parsed a second time (a 1 MiB result holding its numbers of exponent 300
    took 2 s a parse)."""
    data = as_bytes(data)  # a view of wider items or strided as its bytes, a subclass by what it holds
    try:
        wire = _decode_shape(data)
    except msgspec.ValidationError as exc:
        return envelope_failure(str(exc))
    except (msgspec.DecodeError, RecursionError, UnicodeEncodeError) as exc:  # pragma: no cover - parsed before
        raise syntax_error(exc, data) from None
    if wire.jsonrpc is not UNSET:
        if wire.error is not UNSET:
            return envelope_failure("the JSON-RPC response carries an error, not a CallToolResult")
        if wire.result is UNSET:
            return envelope_failure("the JSON-RPC response has no result")
    return None


def envelope_from_dict(result: Any) -> CallToolResult:
    """A ``CallToolResult`` dict (or a JSON-RPC response dict carrying one) as the typed envelope,
    ``structured_content`` as given; a wrong shape is a :class:`ValidationFailed` naming the field,
    as :func:`shape_failure` says of the same document in bytes. Fields it does not name are
    allowed, as there. One type reads both forms there, so here too a response's own members
    named like a result's, and a bare result's ``result`` member, are held to a result's types."""
    at = ""  # where the result read is
    # Kinds read from `type()`, not `isinstance`: an object can claim any class through `__class__`.
    if issubclass(type(result), dict):
        if "jsonrpc" in result and not isinstance(result["jsonrpc"], str):
            raise envelope_failure("`jsonrpc` must be a string", "/jsonrpc")
        inner = result.get("result", UNSET)
        if inner is not UNSET and not issubclass(type(inner), dict):
            raise envelope_failure(f"`result` must be an object, not {type(inner).__name__}", "/result")
        if "jsonrpc" in result:
            _fields(result)
            if "error" in result:
                raise envelope_failure("the JSON-RPC response carries an error, not a CallToolResult")
            if inner is UNSET:
                raise envelope_failure("the JSON-RPC response has no result")
            result, at = inner, "/result"  # its fields are read below, once
        elif inner is not UNSET:
            _fields(inner, "/result")
    if not issubclass(type(result), dict):
        raise envelope_failure(f"a CallToolResult is a JSON object, not {type(result).__name__}")
    content, is_error, meta = _fields(result, at)
    return CallToolResult(
        content=[] if content is _NO_CONTENT else content,
        structured_content=result.get("structuredContent", UNSET),
        is_error=is_error,
        meta=meta,
    )


def _fields(result: dict[str, Any], at: str = "") -> tuple[Any, bool, Any]:
    """A result's ``content``, ``isError`` and ``_meta``, each of its type (``at``: where the
    result is)."""
    get = result.get
    content = get("content", _NO_CONTENT)
    if not issubclass(type(content), list) or not all(map(issubclass, map(type, content), repeat(dict))):
        raise envelope_failure("`content` must be an array of content-block objects", f"{at}/content")
    is_error = get("isError", False)
    if is_error is not False and is_error is not True:
        raise envelope_failure("`isError` must be a boolean", f"{at}/isError")
    meta = get("_meta", UNSET)
    if meta is not UNSET and not issubclass(type(meta), dict):
        raise envelope_failure("`_meta` must be an object", f"{at}/_meta")
    return content, is_error, meta


_NO_CONTENT: list[Any] = []  # never handed out: a result without content gets a list of its own


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

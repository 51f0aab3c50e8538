"""Stage 1: the raw schema document. Parse it (bounded) and fingerprint it for the cache."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import msgspec

from .config import Limits
from .errors import DecodeError, DecodeReason, RejectReason, SchemaRejected

__all__ = ["fingerprint", "load_schema"]

_encode_sorted = msgspec.json.Encoder(order="sorted").encode


def load_schema(schema: Any, limits: Limits) -> Any:
    """The schema as a JSON value; bytes and text are parsed here, within the size limit."""
    if isinstance(schema, (bytes, bytearray, memoryview, str)):
        from .decode import decode_json  # the same bounded parser as payloads

        size = len(schema.encode() if isinstance(schema, str) else schema)
        if size > limits.max_schema_bytes:
            raise _too_large(size, limits)
        try:
            schema = decode_json(schema, max_bytes=limits.max_schema_bytes)
        except DecodeError as exc:
            reason = RejectReason.LIMIT_EXCEEDED if exc.reason == DecodeReason.TOO_DEEP else RejectReason.INVALID_SCHEMA
            raise SchemaRejected(reason, f"schema document is not acceptable JSON: {exc.message}") from None
    if not isinstance(schema, (Mapping, bool)):
        raise SchemaRejected(
            RejectReason.INVALID_SCHEMA,
            f"a schema must be a JSON object or a boolean, not {_json_type(schema)}",
            location="",
        )
    return schema


def _too_large(size: int, limits: Limits) -> SchemaRejected:
    return SchemaRejected(
        RejectReason.LIMIT_EXCEEDED,
        f"schema document is {size} bytes, over the limit of {limits.max_schema_bytes} (max_schema_bytes)",
        location="",
        details={"limit": "max_schema_bytes", "measured": size, "bound": limits.max_schema_bytes},
    )


def fingerprint(schema: Any, registry: Mapping[str, Any] | None) -> bytes:
    """A digest of the schema's content and its registry's: equal for equal JSON, whatever the
    key order or the object identity."""
    digest = hashlib.blake2b(digest_size=20)
    try:
        digest.update(_encode_sorted(schema))
        if registry:
            digest.update(b"\x00registry\x00")
            digest.update(_encode_sorted(dict(registry)))
    except (TypeError, msgspec.EncodeError, RecursionError, ValueError) as exc:
        raise SchemaRejected(
            RejectReason.INVALID_SCHEMA,
            f"schema is not a JSON document: {exc}",
        ) from None
    return digest.digest()


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    return {int: "an integer", float: "a number", str: "a string", list: "an array"}.get(type(value), type(value).__name__)

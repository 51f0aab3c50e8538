"""Stage 1: the raw schema document. Parse it (bounded) and fingerprint it for the cache."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import msgspec

from ._config import Limits
from ._errors import DecodeError, DecodeReason, RejectReason, SchemaRejected

__all__ = [
    "DocumentSize",
    "Intake",
    "canonical_text",
    "encode",
    "fingerprint",
    "load_schema",
    "measure_document",
    "measure_plain",
]

_encode_sorted = msgspec.json.Encoder(order="sorted").encode
encode = msgspec.json.encode
"""The schema's JSON text in its own key order: the cache's exact key for an equal document."""


# What a JSON encoder writes as an array (a shared container in any of them counts once per place).
_ARRAYS = frozenset({list, tuple, set, frozenset})


class DocumentSize(NamedTuple):
    bytes: int
    """The document's size: exact for bytes and text, a lower bound of its JSON encoding for objects."""
    depth: int
    """Nesting depth of arrays and objects (a scalar has depth 0)."""


def measure_document(document: Any, limits: Limits, known_bytes: int | None = None) -> DocumentSize:
    """Size and depth of a JSON value, refused with ``limit-exceeded`` as soon as either is over
    its limit. Iterative and bounded: a Python object graph that shares containers (an
    exponentially large "JSON" document in a few kilobytes of memory) is cut off at the size limit
    before anything encodes it."""
    max_bytes, max_depth = limits.max_schema_bytes, limits.max_document_depth
    size = 0
    depth = 0
    level: list[Any] = [document] if isinstance(document, (Mapping, list)) else []
    while level:  # level by level: the depth is the number of levels
        depth += 1
        if depth > max_depth:
            raise _too_deep(depth, limits)
        below: list[Any] = []
        for value in level:
            if type(value) in _ARRAYS:
                size += 2 + len(value)
                children: Any = value
            else:  # a mapping
                try:
                    size += 2 + 4 * len(value) + sum(map(len, value))
                except TypeError:  # a key that is not a string: the fingerprint refuses it
                    size += 2 + 4 * len(value)
                children = value.values()
            for child in children:
                kind = type(child)
                if kind is str:
                    size += len(child) + 2
                elif kind is dict or kind in _ARRAYS:
                    below.append(child)
                elif kind is not int and kind is not float and kind is not bool and isinstance(child, Mapping):
                    below.append(child)
        if known_bytes is None and size > max_bytes:
            raise _too_large(size, limits, estimated=True)
        level = below
    return DocumentSize(known_bytes if known_bytes is not None else size, depth)


def measure_plain(document: Any, limits: Limits, known_bytes: int | None = None) -> DocumentSize | None:
    """:func:`measure_document` for a *plain* document, made of ``dict`` s with string keys,
    ``list`` s, strings, numbers, booleans and ``None`` (anything decoded from JSON); ``None`` for
    any other document. Same sizes, same refusals: a shared container counts once per place, so a
    bomb is cut off at the size limit."""
    max_bytes, max_depth = limits.max_schema_bytes, limits.max_document_depth
    size = 0
    depth = 0
    level = [document]
    while level:
        depth += 1
        if depth > max_depth:
            raise _too_deep(depth, limits)
        below: list[Any] = []
        push = below.append
        for value in level:
            if type(value) is dict:
                try:
                    size += 2 + 4 * len(value) + sum(map(len, value))
                except TypeError:  # a key without a length: not JSON, the general path says so
                    return None
                children: Any = value.values()
            else:
                size += 2 + len(value)
                children = value
            for child in children:
                kind = type(child)
                if kind is str:
                    size += len(child) + 2
                elif kind is dict or kind is list:
                    push(child)
                elif kind is not int and kind is not float and kind is not bool and child is not None:
                    return None
        if known_bytes is None and size > max_bytes:
            raise _too_large(size, limits, estimated=True)
        level = below
    return DocumentSize(known_bytes if known_bytes is not None else size, depth)


class Intake(NamedTuple):
    schema: Any
    """The schema as a JSON value (parsed here from bytes or text)."""
    size: DocumentSize
    plain: bool
    """Made of dicts, lists, strings, numbers, booleans and ``None`` only (see :func:`measure_plain`)."""


def load_schema(schema: Any, limits: Limits) -> Intake:
    """The schema as a JSON value and its measured size; bytes and text are parsed here, within
    the size and depth limits."""
    known: int | None = None
    if type(schema) is not dict:  # a dict, the common case, has no text to parse and is an object
        if isinstance(schema, (bytes, bytearray, memoryview, str)):
            from ._decode import decode_json  # the same bounded parser as payloads

            try:
                size = len(schema.encode() if isinstance(schema, str) else schema)
            except UnicodeEncodeError as exc:  # a lone surrogate: no JSON text holds it
                raise SchemaRejected(
                    RejectReason.INVALID_SCHEMA, f"schema text is not valid Unicode: {exc}", location=""
                ) from None
            known = size
            if size > limits.max_schema_bytes:
                raise _too_large(size, limits)
            try:
                schema = decode_json(schema, max_bytes=limits.max_schema_bytes)
            except DecodeError as exc:
                if exc.reason == DecodeReason.TOO_DEEP:
                    raise _too_deep(limits.max_document_depth + 1, limits) from None
                raise SchemaRejected(
                    RejectReason.INVALID_SCHEMA, f"schema document is not acceptable JSON: {exc.message}"
                ) from None
        if not isinstance(schema, (Mapping, bool)):
            raise SchemaRejected(
                RejectReason.INVALID_SCHEMA,
                f"a schema must be a JSON object or a boolean, not {_json_type(schema)}",
                location="",
            )
    if type(schema) is dict:
        plain = measure_plain(schema, limits, known)
        if plain is not None:
            return Intake(schema, plain, True)
    return Intake(schema, measure_document(schema, limits, known), False)


def _too_large(size: int, limits: Limits, *, estimated: bool = False) -> SchemaRejected:
    what = f"at least {size} bytes as JSON" if estimated else f"{size} bytes"
    return SchemaRejected(
        RejectReason.LIMIT_EXCEEDED,
        f"schema document is {what}, over the limit of {limits.max_schema_bytes} (max_schema_bytes)",
        location="",
        details={"limit": "max_schema_bytes", "measured": size, "bound": limits.max_schema_bytes},
    )


def _too_deep(depth: int, limits: Limits) -> SchemaRejected:
    return SchemaRejected(
        RejectReason.LIMIT_EXCEEDED,
        f"schema document nests {depth} levels deep, over the limit of {limits.max_document_depth} "
        "(max_document_depth)",
        location="",
        details={"limit": "max_document_depth", "measured": depth, "bound": limits.max_document_depth},
    )


_blake2b: Callable[..., Any] | None = None


def canonical_text(document: Any) -> bytes:
    """The JSON text of ``document`` with every object's keys sorted: the same for equal JSON,
    whatever the key order or the object identity. Refused with ``invalid-schema`` if it is not
    JSON."""
    try:
        return _encode_sorted(document)
    except (TypeError, msgspec.EncodeError, RecursionError, ValueError) as exc:
        raise SchemaRejected(
            RejectReason.INVALID_SCHEMA,
            f"schema is not a JSON document: {exc}",
        ) from None


def fingerprint(text: bytes, registry: Mapping[str, Any] | None) -> bytes:
    """A digest of a schema's :func:`canonical_text` and its registry's: equal for equal JSON."""
    global _blake2b
    if _blake2b is None:
        # Imported on first use: loading OpenSSL's hashlib is a tenth of `import engine` otherwise.
        from hashlib import blake2b

        _blake2b = blake2b
    digest = _blake2b(text, digest_size=20)
    if registry:
        digest.update(b"\x00registry\x00")
        digest.update(canonical_text(dict(registry)))
    digested: bytes = digest.digest()
    return digested


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    return {int: "an integer", float: "a number", str: "a string", list: "an array"}.get(
        type(value), type(value).__name__
    )

"""Stage 1: the raw schema document. Parse it (bounded) and fingerprint it for the cache."""

from __future__ import annotations

import gc
from collections.abc import Mapping
from itertools import chain
from operator import is_
from typing import Any, NamedTuple

import msgspec

from ._config import Limits
from ._errors import DecodeError, DecodeReason, RejectReason, SchemaRejected

__all__ = ["DocumentSize", "Intake", "Snapshot", "encode", "fingerprint", "load_schema", "measure_document"]

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


class Snapshot:
    """Every container of a document of plain ``dict`` s and ``list`` s, and what each holds.

    :meth:`unchanged` proves, in a few native passes and without descending anything, that the
    document still holds the same values: if every container still holds equal keys and the same
    values (by identity, in order), the root does, and so does everything below it (strings and
    numbers cannot change). The snapshot keeps those objects alive, so no identity it compares can
    be reused by another object.
    """

    __slots__ = ("_dicts", "_keys", "_lists", "_values")

    def __init__(self, dicts: list[dict[str, Any]], lists: list[list[Any]]) -> None:
        self._dicts = dicts
        self._lists = lists
        self._keys, self._values = _contents(dicts, lists)

    def unchanged(self) -> bool:
        keys, values = _contents(self._dicts, self._lists)
        # Keys are strings: an equal key is the same key. Values are compared by identity: an
        # equal value may be another JSON value (True == 1) or a container the snapshot misses.
        return keys == self._keys and len(values) == len(self._values) and all(map(is_, values, self._values))


def _values_by_iteration(*containers: Any) -> list[Any]:
    return [*chain.from_iterable(c.values() if type(c) is dict else c for c in containers)]


def _referents_are_values() -> bool:
    """Whether ``gc.get_referents`` of plain dicts and lists is every one of their values and
    items (how CPython traverses them, lists backwards); checked on this interpreter rather than
    assumed. The order only has to be the same each time, which it is for unchanged containers."""
    probe: list[Any] = [[], 1, "s", 2.5, None, True]
    mapping = {"a": probe[0], "b": 1, "c": "x", "d": None}
    got = gc.get_referents(mapping, probe, {})
    expected = [*mapping.values(), *probe]
    return sorted(map(id, got)) == sorted(map(id, expected))


# One native call instead of an iteration per container: 0.6 us against 1.4 us on the average
# tool schema in bench_data/ (10 dicts, 57 keys and values).
_values = gc.get_referents if _referents_are_values() else _values_by_iteration


def _contents(dicts: list[dict[str, Any]], lists: list[list[Any]]) -> tuple[list[str], list[Any]]:
    return [*chain.from_iterable(dicts)], _values(*dicts, *lists)


def measure_plain(
    document: Any, limits: Limits, known_bytes: int | None = None
) -> tuple[DocumentSize, list[dict[str, Any]], list[list[Any]]] | None:
    """:func:`measure_document` for a document made of ``dict`` s with string keys, ``list`` s,
    strings, numbers, booleans and ``None`` (anything decoded from JSON), which also lists every
    container (for a :class:`Snapshot`); ``None`` for any other document. Same sizes, same
    refusals: a shared container counts once per place, so a bomb is cut off at the size limit."""
    max_bytes, max_depth = limits.max_schema_bytes, limits.max_document_depth
    size = 0
    depth = 0
    dicts: list[dict[str, Any]] = []
    lists: list[list[Any]] = []
    level = [document]
    while level:
        depth += 1
        if depth > max_depth:
            raise _too_deep(depth, limits)
        below: list[Any] = []
        push = below.append
        for value in level:
            if type(value) is dict:
                dicts.append(value)
                try:
                    size += 2 + 4 * len(value) + sum(map(len, value))
                except TypeError:  # a key without a length: not JSON, the general path says so
                    return None
                children: Any = value.values()
            else:
                lists.append(value)
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
    return DocumentSize(known_bytes if known_bytes is not None else size, depth), dicts, lists


class Intake(NamedTuple):
    schema: Any
    """The schema as a JSON value (parsed here from bytes or text)."""
    size: DocumentSize
    containers: tuple[list[dict[str, Any]], list[list[Any]]] | None
    """For a plain document, its dicts and lists (to take a :class:`Snapshot` of)."""


def load_schema(schema: Any, limits: Limits) -> Intake:
    """The schema as a JSON value and its measured size; bytes and text are parsed here, within
    the size and depth limits."""
    known: int | None = None
    if isinstance(schema, (bytes, bytearray, memoryview, str)):
        from ._decode import decode_json  # the same bounded parser as payloads

        size = len(schema.encode() if isinstance(schema, str) else schema)
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
            return Intake(schema, plain[0], plain[1:])
    return Intake(schema, measure_document(schema, limits, known), None)


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


def fingerprint(schema: Any, registry: Mapping[str, Any] | None) -> bytes:
    """A digest of the schema's content and its registry's: equal for equal JSON, whatever the
    key order or the object identity."""
    # Imported on first use: loading OpenSSL's hashlib is a tenth of `import engine` otherwise.
    from hashlib import blake2b

    digest = blake2b(digest_size=20)
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
    return {int: "an integer", float: "a number", str: "a string", list: "an array"}.get(
        type(value), type(value).__name__
    )

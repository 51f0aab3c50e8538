"""Stage 1: the raw schema document. Parse it (bounded) and fingerprint it for the cache."""

from __future__ import annotations

import marshal
import sys
from collections.abc import Callable, Mapping
from itertools import chain, repeat
from math import isfinite
from operator import length_hint
from typing import Any, NamedTuple

import msgspec

from ._config import Limits
from ._errors import DecodeError, DecodeReason, RejectReason, SchemaRejected
from ._instance import referents
from ._slow_numbers import SCREENED_PAST, far_exponents_over

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

_sorted_encoder = msgspec.json.Encoder(order="sorted")
_encode_sorted = _sorted_encoder.encode
_encode_sorted_into = _sorted_encoder.encode_into
_decode = msgspec.json.decode
_marshal = marshal.dumps
encode = msgspec.json.encode
"""The schema's JSON text in its own key order: the cache's exact key for an equal document."""


# What a JSON encoder writes as an array (a shared container in any of them counts once per place).
_ARRAYS = frozenset({list, tuple, set, frozenset})
# What a plain document holds, and what of it nests.
_PLAIN = frozenset({dict, list, str, int, float, bool, type(None)})
_CONTAINERS = frozenset({dict, list})
_SCALARS_BUT_FLOAT = _PLAIN - _CONTAINERS - {float}  # floats are read apart (see `_shape`)
# The buffers a plain object is written into, smallest first (each is zeroed when made): one whose
# text fits is read from its text, a longer one is walked first. The first holds every corpus
# schema (the longest is 7 KB): a text that outgrows a buffer is written twice, which cost more
# than zeroing a larger buffer (2 KB first: the first ten corpus tools' compile 2.5-2.9x raw;
# 8 KB first: 2.4-2.8x; the whole corpus unchanged).
_BUFFERS = (1 << 13, 1 << 16)


class DocumentSize(NamedTuple):
    bytes: int
    """The document's size: exact for bytes and text and for plain objects (their compact JSON
    text), a lower bound of its JSON encoding for other objects."""
    depth: int
    """Nesting depth of arrays and objects (a scalar has depth 0)."""


def measure_document(document: Any, limits: Limits, known_bytes: int | None = None) -> DocumentSize:
    """Size and depth of a JSON value, refused with ``limit-exceeded`` as soon as either is over
    its limit, and with ``invalid-schema`` at a value no JSON document holds. Iterative and
    bounded: a Python object graph that shares containers (an exponentially large "JSON" document
    in a few kilobytes of memory) is cut off at the size limit before anything encodes it.

    A JSON value here is a ``dict`` with ``str`` keys, a ``list`` or ``tuple``, a ``str``, an
    ``int``, a finite ``float``, a ``bool`` or ``None``. A subclass of one of these is read as
    the native JSON encoder and jsonschema-rs read it, by its own contents through the C-level
    methods of its base, whatever methods it overrides: a ``list`` subclass whose ``__len__``
    says 0 is weighed by the items it holds. Anything else (a ``Decimal``, a ``set``, ``bytes``,
    another kind of mapping) is refused: an encoder would write it as some other JSON value (a
    ``Decimal`` as a string, a NaN as ``null``), and the schema compiled would not be the one
    its text says."""
    max_bytes, max_depth = limits.max_schema_bytes, limits.max_document_depth
    bound = max_bytes if known_bytes is None else sys.maxsize
    size = 0
    depth = 0
    # Kinds read from `type()`, not `isinstance`: an object can claim any class through
    # `__class__`, and the base's C-level methods below would refuse it with a TypeError.
    level: list[Any] = [document] if issubclass(type(document), _JSON_CONTAINERS) else []
    if not level:
        _json_scalar(document)
    while level:  # level by level: the depth is the number of levels
        depth += 1
        if depth > max_depth:
            raise _too_deep(depth, limits)
        below: list[Any] = []
        for value in level:
            if issubclass(type(value), dict):
                keys = dict.keys(value)
                if not all(map(issubclass, map(type, keys), repeat(str))):
                    raise _not_json("an object key that is not a string")
                size += 2 + 4 * dict.__len__(value) + sum(map(str.__len__, keys))
                children: Any = dict.values(value)
            else:  # a list or a tuple: its items, as a native encoder reads them
                children = list.copy(value) if issubclass(type(value), list) else tuple.__getitem__(value, slice(None))
                size += 2 + len(children)
            # Weighed before its children are read: a level of many places sharing one wide
            # container is refused once its entries pass the bound, not once all are queued.
            if size > bound:
                raise _too_large(size, limits, estimated=True)
            for child in children:
                kind = type(child)
                if kind is str:
                    size += len(child) + 2
                elif kind is dict or kind is list or kind is tuple:
                    below.append(child)
                elif kind is int or kind is bool or child is None:
                    pass
                elif kind is float:
                    if not isfinite(child):
                        raise _non_finite(child)
                elif issubclass(kind, _JSON_CONTAINERS):
                    below.append(child)
                else:
                    size += _json_scalar(child)
        if size > bound:
            raise _too_large(size, limits, estimated=True)
        level = below
    return DocumentSize(known_bytes if known_bytes is not None else size, depth)


_JSON_CONTAINERS = (dict, list, tuple)


def _json_scalar(value: Any) -> int:
    """The least bytes ``value`` takes as JSON, or ``invalid-schema`` if no JSON value is it
    (see :func:`measure_document`)."""
    kind = type(value)  # not `isinstance`: an object can claim any class through `__class__`
    if issubclass(kind, str):
        return str.__len__(value) + 2
    if issubclass(kind, float):
        if not isfinite(value):
            raise _non_finite(value)
        return 1
    if issubclass(kind, int) or value is None:  # a bool is an int
        return 1
    raise _not_json(f"a value of type {kind.__name__}")


def _not_json(what: str) -> SchemaRejected:
    return SchemaRejected(
        RejectReason.INVALID_SCHEMA,
        f"schema is not a JSON document: it holds {what}, which no JSON document holds",
        location="",
    )


def _non_finite(value: float) -> SchemaRejected:
    return SchemaRejected(
        RejectReason.INVALID_SCHEMA,
        f"schema is not a JSON document: it holds the number {value!r}, which JSON has no number for "
        "(an encoder would write it as null)",
        location="",
    )


def measure_plain(document: Any, limits: Limits, known_bytes: int | None = None) -> DocumentSize | None:
    """:func:`measure_document` for a *plain* document, made of ``dict`` s with keys exactly
    ``str``, ``list`` s, strings, numbers, booleans and ``None`` (anything decoded from JSON);
    ``None`` for any other document. The depth is exact; the size is a lower bound of the compact
    JSON text (``known_bytes`` when given), refused over the size limit. A shared container counts
    once per place, and a level is read only once the bytes of its entries are counted, so a bomb
    is refused within about ``max_schema_bytes`` values read, whatever its expansion.

    Level by level, a few C calls per level rather than Python steps per value (as
    :mod:`._instance` walks instances): ``referents`` reads a level's children at once, their types
    are one set and ``length_hint`` weighs them all (a string its length, a container its entries,
    a number nothing)."""
    max_depth = limits.max_document_depth
    bound = limits.max_schema_bytes if known_bytes is None else sys.maxsize
    kind = type(document)
    if kind is not dict and kind is not list:
        return None
    level: list[Any] = [document]
    objects = kind is dict  # whether the level holds objects only
    # The text is at least, level by level: its containers' brackets and commas (one byte per
    # container and one per entry, the entries counted by the level above, the root's here), its
    # keys, and its strings; a container's entries are weighed with the level above it.
    size = len(document)
    depth = 0
    while level:
        depth += 1
        if depth > max_depth:
            raise _too_deep(depth, limits)
        entries = sum(map(len, level))
        children = _children(level, entries)
        if children is None:
            return None  # not JSON: the general path says so
        dicts = level if objects else [node for node in level if type(node) is dict]
        kinds = {*map(type, children)}
        if not kinds <= _PLAIN:
            return None
        size += len(level) + sum(map(len, chain.from_iterable(dicts))) + sum(map(length_hint, children))
        if int in kinds:  # a long int is many digits (and one shared many times, a bomb)
            ints = [child for child in children if type(child) is int]
            size += max(0, 3 * (sum(map(int.bit_length, ints)) - len(ints)) // 10 - len(ints))
        if size > bound:
            raise _too_large(size, limits, estimated=True)
        objects = list not in kinds
        level = [child for child in children if type(child) in _CONTAINERS] if kinds & _CONTAINERS else []
    return DocumentSize(known_bytes if known_bytes is not None else size, depth)


def _children(level: list[Any], entries: int) -> list[Any] | None:
    """The values of a level of dicts and lists (``entries`` of them), or ``None`` if a key is not
    exactly a ``str``."""
    children = referents(*level)
    if len(children) == entries:
        return children
    # A key that is not exactly a str was read with the values (or `referents` reads nothing here).
    dicts = [node for node in level if type(node) is dict]
    if not {*map(type, chain.from_iterable(dicts))} <= {str}:
        return None
    lists = [node for node in level if type(node) is not dict]
    return [*chain.from_iterable(map(dict.values, dicts)), *chain.from_iterable(lists)]


class Intake(NamedTuple):
    schema: Any
    """The schema as a JSON value (parsed here from bytes or text)."""
    size: DocumentSize
    plain: bool
    """Made of dicts, lists, strings, numbers, booleans and ``None`` only (see :func:`measure_plain`)."""
    canonical: bytes | None
    """:func:`canonical_text` of a plain object, which gave its exact size; ``None`` for the others."""
    values: int = -1
    """How many values the document's arrays and objects hold in all (so it holds no more
    subschemas than one more than this), where the intake counted them (a short plain
    document); ``-1`` elsewhere."""
    widest: int = -1
    """The most values one array or object holds, where counted; ``-1`` elsewhere."""
    containers: int = -1
    """The arrays and objects the document holds, itself included, where counted (every subschema
    but a boolean one is an object); ``-1`` elsewhere."""
    fractions: int = -1
    """``1`` if the document holds a number with a fraction (``0.5``; ``1.0`` has none), ``0`` if
    not, where counted; ``-1`` elsewhere."""


def load_schema(schema: Any, limits: Limits) -> Intake:
    """The schema as a JSON value and its measured size; bytes and text are parsed here, within
    the size and depth limits."""
    known: int | None = None
    if type(schema) is not dict:  # a dict, the common case, has no text to parse and is an object
        # Kinds read from `type()`: an object can claim any class through `__class__`.
        if issubclass(type(schema), (bytes, bytearray, memoryview, str)):
            from ._decode import as_bytes, decode_json  # the same bounded parser as payloads

            if type(schema) is memoryview:
                try:
                    viewed = schema.nbytes  # measured before a strided view is copied
                except ValueError:  # released
                    raise SchemaRejected(
                        RejectReason.INVALID_SCHEMA,
                        "schema is a released memoryview: it holds no bytes to read",
                        location="",
                    ) from None
                if viewed > limits.max_schema_bytes:
                    raise _too_large(viewed, limits)
            schema = as_bytes(schema)  # a memoryview measured in bytes, not in items
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
                if exc.reason == DecodeReason.TOO_LARGE:  # (numbers it would be slow to parse)
                    raise SchemaRejected(RejectReason.LIMIT_EXCEEDED, exc.message, location="") from None
                raise SchemaRejected(
                    RejectReason.INVALID_SCHEMA, f"schema document is not acceptable JSON: {exc.message}"
                ) from None
        if not isinstance(schema, (Mapping, bool)):
            raise SchemaRejected(
                RejectReason.INVALID_SCHEMA,
                f"a schema must be a JSON object or a boolean, not {json_type(schema)}",
                location="",
            )
    if type(schema) is dict:
        read = _read_plain(schema, limits, known)
        if read is not None:
            return Intake(schema, read[0], True, *read[1:])
    measured = measure_document(schema, limits, known)
    if type(schema) is bool:
        return Intake(schema, measured, False, None)
    # Held to JSON values and bounded: now a plain copy, read as its text says, so that the
    # guard, the fingerprint and every backend read one document (a subclass's overridden
    # methods, which the guard would call and a native reader would not, are never called).
    try:
        encoded = encode(schema)
        if len(encoded) > SCREENED_PAST and far_exponents_over(encoded):
            raise SchemaRejected(
                RejectReason.LIMIT_EXCEEDED,
                "schema holds too many numbers with an exponent of 289 or more, each of which takes msgspec "
                "some 10 us to parse",
                location="",
            )
        copy = _decode(encoded)
    except (TypeError, ValueError, msgspec.EncodeError, msgspec.DecodeError, RecursionError) as exc:
        raise SchemaRejected(RejectReason.INVALID_SCHEMA, f"schema is not a JSON document: {_why(exc)}") from None
    text = _text(copy)
    if text is None:  # pragma: no cover - a plain copy always has a text
        raise _not_json("a value no JSON text spells")
    if known is None and len(text) > limits.max_schema_bytes:
        raise _too_large(len(text), limits)
    return Intake(copy, DocumentSize(len(text) if known is None else known, measured.depth), False, text)


def _read_plain(
    document: Any, limits: Limits, known: int | None
) -> tuple[DocumentSize, bytes | None, int, int, int, int] | None:
    """The size, depth and canonical text of a plain object, and where they were counted the
    values it holds, the most one container holds, its containers and whether it holds a fraction
    (else -1 each), or ``None`` for any other.

    An object is first written into a small buffer that cannot grow: a bomb stops the encoder once
    the buffer is full, having written a few kilobytes of its expansion. A text that fits gives
    the exact size at the cost of the canonical text the fingerprint needs anyway, and the depth
    and types are read level by level (:func:`_shape`). A longer object is walked and weighed
    first (:func:`measure_plain`), then written: a bomb is refused before anything encodes more
    of it than the buffers hold."""
    # Parsed from text, a document is no larger than its text: it is written at once.
    text = _text_within(document, limits.max_schema_bytes) if known is None else _text(document)
    if text is not None:
        # Floats are rare in a schema: its few are checked where found, not its text searched for `null`.
        shape = _shape(document, limits, finite=known is None)
        if shape is not None:
            return DocumentSize(len(text) if known is None else known, shape[0]), text, *shape[1:]
    measured = measure_plain(document, limits, known)  # says which documents are plain
    if measured is None:
        return None
    if text is None:
        text = _text(document)  # bounded now: the walk weighed every place a shared object takes
    if text is None:
        return measured, None, -1, -1, -1, -1  # not JSON text: `canonical_text` refuses it with the reason
    if known is None and _may_be_non_finite(text):
        _check_finite(document)
    if known is None:
        if len(text) > limits.max_schema_bytes:
            raise _too_large(len(text), limits)
        measured = DocumentSize(len(text), measured.depth)
    return measured, text, -1, -1, -1, -1


def _text(document: Any) -> bytes | None:
    try:
        return _encode_sorted(document)
    except (TypeError, msgspec.EncodeError, RecursionError, ValueError):
        return None


def _text_within(document: Any, max_bytes: int) -> bytes | None:
    """The canonical text of ``document`` if it is short (:data:`_BUFFERS`) and within
    ``max_bytes``; ``None`` otherwise (longer, or not JSON text)."""
    for size in _BUFFERS:
        buffer = bytearray(size if size <= max_bytes else max_bytes + 1)
        view = memoryview(buffer)  # while a view is held the buffer cannot grow: once full, the encoder stops
        try:
            _encode_sorted_into(document, buffer)
        except BufferError:
            if size > max_bytes:
                return None
            continue
        except (TypeError, msgspec.EncodeError, RecursionError, ValueError):
            return None
        finally:
            view.release()
        return bytes(buffer) if len(buffer) <= max_bytes else None
    return None


def _shape(document: dict[str, Any], limits: Limits, *, finite: bool = False) -> tuple[int, int, int, int, int] | None:
    """The depth of ``document``, whose text is known to be short, how many values its arrays and
    objects hold in all, the most one of them holds, how many there are and whether it holds a
    number with a fraction (1 or 0); ``None`` unless it is shown to hold the JSON types only;
    refused with ``limit-exceeded`` past ``max_document_depth``.
    Level by level: the values of a level read in one C call, the next level being every value
    that is not exactly a JSON scalar, which must then be exactly a dict or a list (one loop: a
    tool schema's levels hold a few values each, where a comprehension and a set of types cost
    a third more). A key that is not exactly a ``str`` is read with the values: then more values
    were read than the containers hold, counted once at the end. Floats (rare in a schema) are
    read apart; with ``finite`` (a document not parsed from text), a NaN or an infinity is refused."""
    max_depth = limits.max_document_depth
    scalars = _SCALARS_BUT_FLOAT
    fractions = 0
    level: list[Any] = [document]
    containers: list[Any] = []
    read = 0
    depth = 0
    while level:
        depth += 1
        if depth > max_depth:
            raise _too_deep(depth, limits)
        containers += level
        children = referents(*level)
        read += len(children)
        level = []
        floats = []  # read once the level is known to hold JSON types only
        for child in children:
            kind = type(child)
            if kind in scalars:
                continue
            if kind is dict or kind is list:
                level.append(child)
            elif kind is float:
                floats.append(child)
            else:
                return None
        if floats:
            if finite:
                _check_floats(floats)
            fractions = fractions or not all(map(float.is_integer, floats))
    lengths = [*map(len, containers)]
    return (depth, read, max(lengths), len(lengths), int(fractions)) if read == sum(lengths) else None


def _may_be_non_finite(text: bytes) -> bool:
    """Whether the canonical text of an object may hold a NaN or an infinity: the native encoder
    writes them as ``null``, so a text without one holds neither (one substring search)."""
    return text.find(b"null") >= 0  # `in` first tries its operand as an integer: a third slower


def _check_finite(document: Any) -> None:
    """Refuse a plain document holding a NaN or an infinity, level by level in a few C calls."""
    level: list[Any] = [document]
    while level:
        children = referents(*level)
        _check_floats(children)
        level = [child for child in children if type(child) in _CONTAINERS]


def _check_floats(values: list[Any]) -> None:
    floats = [value for value in values if type(value) is float]
    if floats and not all(map(isfinite, floats)):
        raise _non_finite(next(value for value in floats if not isfinite(value)))


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


def _why(exc: BaseException) -> str:
    """What an encoder's refusal says, in the engine's words where Python's would advise a fix."""
    if isinstance(exc, ValueError) and "integer string conversion" in str(exc):
        return "it holds an integer of more digits than this interpreter writes as text"
    return str(exc)


def canonical_text(document: Any) -> bytes:
    """The JSON text of ``document`` with every object's keys sorted: the same for equal JSON,
    whatever the key order or the object identity. Refused with ``invalid-schema`` if it is not
    JSON."""
    try:
        return _encode_sorted(document)
    except (TypeError, msgspec.EncodeError, RecursionError, ValueError) as exc:
        raise SchemaRejected(
            RejectReason.INVALID_SCHEMA,
            f"schema is not a JSON document: {_why(exc)}",
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


_JSON_TYPES = {
    dict: "an object",
    list: "an array",
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "a boolean",
}


def json_type(value: Any) -> str:
    """What a JSON value is, in words ("an integer", "null"); a Python type's name otherwise."""
    if value is None:
        return "null"
    return _JSON_TYPES.get(type(value), f"an object of type {type(value).__name__!r}")

"""Python objects handed in as instances get the bounds bytes get, before any backend sees them.

A decoded JSON document is a tree of dicts, lists, strings, finite numbers, booleans and ``None``,
no deeper and no larger than its bytes allow. A Python object may be anything: a list holding
itself forty times over (2**40 values in 41 objects: jsonschema-rs aborts the process, or walks it
for ever), a NaN, a lone surrogate, a set, a key that is not a string. :func:`admit` refuses what
no JSON document decodes to, with the reason its bytes would get:

- ``too-deep``: nesting beyond the bound (``max_instance_depth``, less where a schema recurses);
- ``too-large``: more values than a document of ``max_instance_bytes`` holds (each value takes at
  least two bytes with its separator), counted with shared objects counted every time they occur;
- ``non-finite-number``: NaN or an infinity;
- ``invalid-utf8``: a string or key with a lone surrogate (no UTF-8 document spells it);
- ``not-json``: any other type (sets, bytes, tuples, non-dict mappings...) or a key that is not a
  string.

The walk goes level by level and every step of a level runs in C (``map``, ``filter``, ``chain``):
a Python step per level, not per value. A flat object of scalars (430 of the 487 argument objects
in ``bench_data/``) is one level.
"""

from __future__ import annotations

from itertools import chain, compress
from math import isfinite
from typing import Any

import msgspec

from ._errors import DecodeError, DecodeReason

__all__ = ["admit", "max_values"]

_encode = msgspec.json.encode
_SCALARS = frozenset({str, int, float, bool, type(None)})
_CONTAINERS = frozenset({dict, list})
_JSON = _SCALARS | _CONTAINERS
_is_container = _CONTAINERS.__contains__


def max_values(max_bytes: int) -> int:
    """The most values a JSON document of ``max_bytes`` bytes can hold (``[0,0,...]``)."""
    return max(1, max_bytes // 2)


def admit(value: Any, max_depth: int, max_values: int) -> None:
    """Return if ``value`` is a JSON value within the bounds; raise :class:`DecodeError` otherwise."""
    kind = type(value)
    if kind is dict:
        kinds = set(map(type, value.values()))
        if kinds <= _SCALARS:
            # An object of scalars (most tool arguments), inline: a frame is 50-80 ns of ~800.
            # Nothing nests, so only its keys, strings and floats need a look: joining the keys
            # stops at one that is not a string; `msgspec.json.encode` (a C pass over every
            # string) raises on a lone surrogate; floats are looked at only when there is one.
            if len(value) >= max_values:
                raise _too_many(max_values)
            try:
                "".join(value)
            except TypeError:
                raise _bad_key(value) from None
            try:
                _encode(value)
            except UnicodeEncodeError as exc:
                raise _surrogate(exc) from None
            if float in kinds and not all(isfinite(v) for v in value.values() if type(v) is float):
                raise _non_finite()
        else:
            _walk(value, max_depth, max_values)
            _no_surrogates(value)
    elif kind is list:
        _walk(value, max_depth, max_values)
        _no_surrogates(value)
    elif kind is str:
        _strings((value,))
    elif kind is float:
        if not isfinite(value):
            raise _non_finite()
    elif kind not in _SCALARS:
        raise _not_json(kind)


def _bad_key(keys: Any) -> DecodeError:
    bad = next(key for key in keys if type(key) is not str)
    return DecodeError(DecodeReason.NOT_JSON, f"object key {bad!r} is a {type(bad).__name__}, not a string")


def _too_many(max_values: int) -> DecodeError:
    return DecodeError(
        DecodeReason.TOO_LARGE,
        f"instance holds more than {max_values} values (shared objects count each time they occur), over "
        "what a document within max_instance_bytes holds",
    )


def _walk(value: dict[Any, Any] | list[Any], max_depth: int, max_values: int) -> None:
    level: list[Any] = [value]
    depth = 0
    count = 1
    while level:
        depth += 1
        if depth > max_depth:
            raise _too_deep(max_depth)
        count += sum(map(len, level))
        if count > max_values:
            raise _too_many(max_values)
        if len(level) > 1 and len(set(map(id, level))) != len(level):
            # The same object more than once: walk each object once, with how often it occurs.
            _walk_shared(level, depth, count, max_depth, max_values)
            return
        level = _children(level)


def _walk_shared(level: list[Any], depth: int, count: int, max_depth: int, max_values: int) -> None:
    """The walk over objects that occur more than once: every distinct object is looked at once
    and weighed by its occurrences, so `x = [x, x]` forty times costs forty steps, not 2**40."""
    weights: dict[int, list[Any]] = {}
    for node in level:
        _weigh(weights, node, 1)
    while True:
        _children([node for node, _ in weights.values()])  # the checks of every key and scalar
        following: dict[int, list[Any]] = {}
        for node, weight in weights.values():
            for child in node.values() if type(node) is dict else node:
                if _is_container(type(child)):
                    _weigh(following, child, weight)
        if not following:
            return
        weights = following
        depth += 1
        if depth > max_depth:
            raise _too_deep(max_depth)
        count += sum(len(node) * weight for node, weight in weights.values())
        if count > max_values:
            raise _too_many(max_values)


def _weigh(weights: dict[int, list[Any]], node: Any, weight: int) -> None:
    entry = weights.get(id(node))
    if entry is None:
        weights[id(node)] = [node, weight]
    else:
        entry[1] += weight


def _children(level: list[Any]) -> list[Any]:
    """Check the keys and scalars one level down from ``level`` (strings are checked for lone
    surrogates afterwards, in one encode pass); return its containers."""
    dicts = [node for node in level if type(node) is dict]
    if dicts:
        keys = list(chain.from_iterable(dicts))
        try:
            "".join(keys)  # a key that is not a string stops the join
        except TypeError:
            raise _bad_key(keys) from None
        children = list(chain.from_iterable(map(dict.values, dicts)))
        if len(dicts) != len(level):
            children.extend(chain.from_iterable(node for node in level if type(node) is not dict))
    else:
        children = list(chain.from_iterable(level))
    kinds = set(map(type, children))
    if not kinds <= _JSON:
        raise _not_json(next(iter(kinds - _JSON)))
    if float in kinds and not all(map(isfinite, [child for child in children if type(child) is float])):
        raise _non_finite()
    if not kinds & _CONTAINERS:
        return []
    return list(compress(children, map(_is_container, map(type, children))))


def _too_deep(max_depth: int) -> DecodeError:
    return DecodeError(DecodeReason.TOO_DEEP, f"instance nests more than {max_depth} levels deep")


def _no_surrogates(value: Any) -> None:
    """After the walk has bounded ``value``: one encode pass in C over every string and key."""
    try:
        _encode(value)
    except UnicodeEncodeError as exc:
        raise _surrogate(exc) from None


def _strings(texts: tuple[str, ...]) -> None:
    for text in texts:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise _surrogate(exc) from None


def _surrogate(exc: UnicodeEncodeError) -> DecodeError:
    return DecodeError(
        DecodeReason.INVALID_UTF8, f"a string holds a lone surrogate, which no UTF-8 document spells: {exc}"
    )


def _non_finite() -> DecodeError:
    return DecodeError(DecodeReason.NON_FINITE_NUMBER, "NaN and Infinity are not JSON numbers")


def _not_json(kind: type) -> DecodeError:
    return DecodeError(DecodeReason.NOT_JSON, f"instance is not a JSON value: it holds a {kind.__name__}")

"""Python objects handed in as instances get the bounds bytes get, before any backend sees them.

A decoded JSON document is a tree of dicts, lists, strings, finite numbers, booleans and ``None``,
no deeper and no larger than its bytes allow. A Python object may be anything: a list holding
itself forty times over (2**40 values in 41 objects: jsonschema-rs aborts the process, or walks it
for ever), a NaN, a lone surrogate, a set, a key that is not a string. :func:`admit` refuses what
no JSON document decodes to, with the reason its bytes would get:

- ``too-deep``: nesting beyond the bound (``max_instance_depth``, less where a schema recurses);
- ``too-large``: more values than a document of ``max_instance_bytes`` holds (each value takes at
  least two bytes with its separator), counted with shared objects counted every time they occur;
  or strings and keys whose JSON is surely longer than that document (:func:`within_size`, from
  the length of the msgpack pass below);
- ``non-finite-number``: NaN or an infinity;
- ``invalid-utf8``: a string or key with a lone surrogate (no UTF-8 document spells it);
- ``not-json``: any other type, subclasses of the JSON types included (sets, bytes, tuples,
  non-dict mappings, ``bool``-like ints...), or a key that is not exactly a ``str``.

The walk goes level by level.
``gc.get_referents(*level)`` reads the children of a whole level in one C call: the items of a
list, and the values of a dict whose keys are all exactly ``str`` (CPython keeps such a dict's keys
in a table of their own and does not visit them); a dict with any other key has its keys visited
too, so a level whose children outnumber its lengths has its keys read one by one. Whether this
interpreter behaves so is checked once, on import; where it does not, every level is read one by
one. A level of up to 32 values is read in one loop (2 to 24 values: 0.5-0.9x the time of the
sets); a larger one, or one with anything wrong in it, by the list of its children's types: their
set says what is wrong, and the strings, floats and containers are picked out by it in C
(``compress``), not by a loop in Python. The next level is the dicts and lists among them. A level
of more than a few objects is searched for shared ones, and from there every distinct object is
walked once, weighed by how often it occurs (`x = [x, x]` forty times is refused in some forty
steps). Lone surrogates are found by one ``msgspec.msgpack.encode`` pass over the whole value once
its size is known to be bounded. A flat object of strings, integers, booleans and nulls (428 of the
485 argument objects in ``bench_data/``) is checked inline by :func:`bind_is_valid` and
:func:`bind_checked`: its referents (one C call), whether :data:`PLAIN_SCALARS` holds their types
(no set is built), and the surrogate pass. Anything else, floats included, is walked.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Callable
from itertools import chain, compress, repeat
from math import isfinite
from operator import is_
from typing import Any

import msgspec

from ._errors import DecodeError, DecodeReason
from ._instance_refusals import (
    TOO_MANY_DIGITS,
    bad_key,
    changed_while_read,
    non_finite,
    not_json,
    surrogate,
    too_deep,
    too_long,
    too_many,
    unspelled,
    within_size,
)

__all__ = [
    "FLOATS",
    "LARGE",
    "LONG",
    "LONG_PAST",
    "WRITTEN_AS_IT_IS",
    "PLAIN_SCALARS",
    "TOO_MANY_DIGITS",
    "admit",
    "bind_checked",
    "bind_is_valid",
    "changed_while_read",
    "flat_limit",
    "floats_by_level",
    "json_values",
    "large_integers",
    "large_integers_by_level",
    "level_children",
    "max_values",
    "only_plain_scalars",
    "referents",
    "unsigned_past_63_bits",
    "walk",
    "within_size",
]

_encode = msgspec.msgpack.encode  # binary: no float or escape formatting, UTF-8 of every str
_encode_json = msgspec.json.encode  # for ints msgpack cannot hold (beyond 64 bits)
_SCALARS = frozenset({str, int, float, bool, type(None)})
PLAIN_SCALARS = frozenset({str, int, bool, type(None)})
"""The scalar types whose type alone shows a JSON value (a float must also be finite): an object
of these, its keys all exactly ``str``, needs only the surrogate pass."""
only_plain_scalars = PLAIN_SCALARS.issuperset
"""Whether :data:`PLAIN_SCALARS` holds every type an iterable gives: the bound method, a lookup less
on the hot path than ``PLAIN_SCALARS.issuperset`` (a flat dict's screen: 0.92x the time)."""
_CONTAINERS = frozenset({dict, list})
_is_container = _CONTAINERS.__contains__
_JSON = _SCALARS | _CONTAINERS
_SHARED_AFTER = 8  # objects in a level before it is searched for shared ones
_SMALL_LEVEL = 32  # values in a level up to which it is read in one loop (see `walk`)
LARGE = 1
"""The flag of :func:`walk` and :func:`admit` for a value holding an integer past 63 bits."""
LONG = 2
"""The flag of :func:`walk` for a value whose msgpack pass wrote more than :data:`LONG_PAST` bytes: it
is checked as a document as long as the size bound is (``HotPath.sized``), its work weighed."""
FLOATS = 2  # the floats a value holds are counted from this bit up (`flags >> FLOATS`)
LONG_PAST = 1 << 19  # no shorter value holds half a mebibyte of values
_UNSIGNED_PAST_63_BITS = re.compile(rb"\xcf[\x80-\xff]")
WRITTEN_AS_IT_IS = 16
"""The values a JSON value may hold (an object of scalars, its members) before the characters of its
strings and keys are counted, each time it occurs, ahead of the msgpack pass (see :func:`walk`)."""


def _no_children(*_nodes: Any) -> list[Any]:
    return []


def _referents_probe() -> Callable[..., list[Any]]:
    """``gc.get_referents`` if it reads a level as the walk expects; otherwise a reader that finds
    nothing, so that every non-empty level has its keys and children read one by one."""

    class Text(str):
        __slots__ = ()

    read = gc.get_referents
    values: list[Any] = [None, True, 1, 2.5, "v", [], {}]
    plain = dict(zip("abcdefg", values, strict=True))
    try:
        ok = (
            read(plain) == values
            and all(map(lambda a, b: a is b, read(plain), values))
            and len(read({1: "x", "a": None})) == 4
            and len(read({None: 1})) == 2
            and len(read({Text("k"): 1})) == 2
            and len(read({"a": 1, True: 2})) == 4
            and sorted(map(repr, read([1, "x", None], {"k": 2.5}))) == sorted(map(repr, [1, "x", None, 2.5]))
        )
    except Exception:  # noqa: BLE001 - any surprise means the one-by-one reader  # pragma: no cover
        ok = False
    return read if ok else _no_children  # pragma: no branch


_referents = _referents_probe()
referents = _referents
"""The values of dicts and lists in one C call (only the values where every key is exactly a
``str``); where the interpreter reads otherwise, nothing, so that a caller comparing the count
with the lengths reads one by one. The schema intake walks with it too."""


def max_values(max_bytes: int) -> int:
    """The most values a JSON document of ``max_bytes`` bytes can hold: ``[0,0,...]``, ``n`` items
    and the array in ``2 * n + 1`` bytes (``max_bytes`` is never negative)."""
    return (max_bytes + 1) // 2 or 1  # no call to `max`: it runs once a compile


def json_values(value: Any, limit: int) -> int:
    """How many values the JSON value ``value`` holds (itself included), counted up to one past
    ``limit`` (a schema's ``enum`` or ``const``, weighed by what reads it)."""
    count, stack = 0, [value]
    while stack and count <= limit:
        item = stack.pop()
        count += 1
        if type(item) is dict:
            stack.extend(item.values())
        elif type(item) is list:
            stack.extend(item)
    return count


def flat_limit(max_depth: int, max_values: int) -> int:
    """The members a dict checked inline as an object of scalars may hold (fewer than this): the
    values bound, and none where the depth bound admits no level (the walk then refuses it)."""
    return max_values if max_depth >= 1 else 0


def admit(value: Any, max_depth: int, max_values: int) -> int:
    """Return if ``value`` is a JSON value within the bounds, what it holds that may be weighed
    (see :func:`walk`: 0 for nothing); raise :class:`DecodeError` otherwise."""
    kind = type(value)
    if kind is dict or kind is list:
        return walk(value, _referents(value), max_depth, max_values)
    if kind is str:
        try:
            size = len(value.encode("utf-8")) + 2  # its quotes
        except UnicodeEncodeError as exc:
            raise surrogate(exc) from None
        if size > max_values << 1:
            raise too_long(size, max_values)
    elif kind is float:
        if not isfinite(value):
            raise non_finite()
        return 1 << FLOATS  # one float
    elif kind is int:
        if value.bit_length() > _SPELLED_BITS:
            _no_surrogates(value)
        return 0 if _WORD_LEAST <= value <= _WORD_MOST else LARGE
    elif kind not in _SCALARS:
        raise not_json(kind)
    return False


def bind_is_valid(
    check: Callable[[Any], bool],
    refusal: Callable[[BaseException], Exception],
    max_depth: int,
    max_values: int,
    screened: Callable[[Any], bool] | None = None,
    floated: Callable[[Any, int], bool] | None = None,
    sized: Callable[[Any, int], bool] | None = None,
    cheap: int = -1,
) -> Callable[[Any], bool]:
    """``check`` (a backend's answer on a JSON value) behind :func:`admit`; what it raises
    (``ValueError``, ``TypeError``, ``RecursionError``) becomes ``refusal(exc)``. An object of
    scalars is checked without a call. ``screened``: the check of a value the screen found no
    integer past 64 bits nor float in (``check`` where not given); ``floated``: that of a value
    holding floats but no such integer, given how many (``screened`` where not given); ``sized``:
    that of a :data:`LONG` value, given a length it is checked as, where that is over ``cheap``
    (``check`` where not given; see ``HotPath``)."""
    return _bind(check, refusal, None, max_depth, max_values, screened, floated, sized, cheap)


def bind_checked(
    check: Callable[[Any], bool],
    refusal: Callable[[BaseException], Exception],
    failure: Callable[[Any], Exception],
    max_depth: int,
    max_values: int,
    screened: Callable[[Any], bool] | None = None,
    floated: Callable[[Any, int], bool] | None = None,
    sized: Callable[[Any, int], bool] | None = None,
    cheap: int = -1,
) -> Callable[[Any], Any]:
    """Like :func:`bind_is_valid`, returning ``instance`` when valid and raising ``failure(instance)``
    otherwise."""
    return _bind(check, refusal, failure, max_depth, max_values, screened, floated, sized, cheap)


def _bind(
    check: Callable[[Any], bool],
    refusal: Callable[[BaseException], Exception],
    failure: Callable[[Any], Exception] | None,
    max_depth: int,
    max_values: int,
    screened: Callable[[Any], bool] | None,
    floated: Callable[[Any, int], bool] | None,
    sized: Callable[[Any, int], bool] | None,
    cheap: int,
) -> Callable[[Any], Any]:
    """The bound check of :func:`bind_is_valid` (``failure`` is ``None``: the answer returned) and
    of :func:`bind_checked` (the instance returned, or ``failure(instance)`` raised)."""
    flat = min(flat_limit(max_depth, max_values), WRITTEN_AS_IT_IS + 1)  # more members: walked
    plain = check if screened is None else screened

    long = max_values << 1  # the length a long value is checked as: the size bound
    if sized is None or long <= cheap:  # as long a document is not weighed: no more is a value
        sized = None

    def bound(instance: Any) -> Any:
        # :func:`admit`, an object of scalars read in one pass; what it holds to weigh.
        large = 0
        if type(instance) is dict:
            children = _referents(instance)
            if len(children) == len(instance) < flat and only_plain_scalars(map(type, children)):
                try:
                    packed = len(_encode(instance))
                except UnicodeEncodeError as exc:
                    raise surrogate(exc) from None
                except OverflowError:
                    packed, large = _no_surrogates(instance), LARGE
                except (TypeError, ValueError, RuntimeError) as exc:  # screened plain: changed since
                    raise changed_while_read(exc) from None
                if packed > max_values << 1:
                    within_size(packed, len(instance) + 1, max_values)
                large |= LONG if packed > LONG_PAST else 0  # a long string or key: weighed as a long document
            else:
                large = walk(instance, children, max_depth, max_values)
        else:
            large = admit(instance, max_depth, max_values)
        try:
            if not large or (floated is None and not large & (LARGE | LONG)):
                valid = plain(instance)
            elif large & LONG and sized is not None:
                valid = sized(instance, long)
            else:
                valid = check(instance) if large & (LARGE | LONG) else floated(instance, large >> FLOATS)  # type: ignore[misc]
        except (ValueError, TypeError, RuntimeError) as exc:
            raise refusal(exc) from None
        if failure is None:
            return valid
        if valid:
            return instance
        raise failure(instance)

    return bound


def walk(root: dict[Any, Any] | list[Any], children: list[Any], max_depth: int, max_values: int) -> int:
    """:func:`admit` for a dict or list, ``children`` being what :data:`referents` read of it:
    what it holds that jsonschema-rs may compare slowly (see ``engine._numbers``), as flags:
    :data:`LARGE` where it holds an integer past 64 bits (the msgpack pass refuses one),
    :data:`LONG` where it is long enough for its validation work to be weighed, and the floats it
    holds (each time it occurs) shifted left by :data:`FLOATS`."""
    try:
        if max_depth < 1:  # the root is a level
            raise too_deep(max_depth)
        level: list[Any] = [root]
        depth = 1
        size = len(root)  # how many values the level holds
        count = 1 + size
        if count > max_values:
            raise too_many(max_values)
        # The characters of every string and key, each time it occurs, once the value holds more than
        # a few values: the msgpack pass below writes each occurrence, so one long string held many
        # times (a list of 3,500 references to one of 1 MB) would take gigabytes to write; past the
        # size bound it is refused before. A value of fewer is written as it is (at most that many
        # times what its longest string holds): counting costs a fifth of a small walk.
        text, written = 0, WRITTEN_AS_IT_IS
        floats = 0
        while True:
            if len(children) != size:  # a key that is not exactly a str was read with the values
                children = _one_by_one(level)
            # Up to some 30 children, one loop (inline: a call a level less) costs less than building
            # the type sets (on 2 to 24 values, 0.5-0.9x the time): the dicts and lists among them, or
            # `None` for the sets to say what is wrong. A larger level is read by its list of types,
            # in C: its set, then the strings, floats and containers picked out by it (`compress`),
            # not by a loop in Python.
            small: list[Any] | None = None
            strings = -1  # the characters of the strings, where read with the types
            if size <= _SMALL_LEVEL:
                small = []
                for child in children:
                    kind = type(child)
                    if kind is str or kind is int or kind is bool or child is None:
                        continue
                    if kind is dict or kind is list:
                        small.append(child)
                    elif kind is float:
                        if not isfinite(child):
                            raise non_finite()
                        floats += 1
                    else:
                        small = None
                        break
            if small is None:
                types = [*map(type, children)]
                kinds = {*types}
                if not kinds <= _JSON:
                    raise not_json(next(iter(kinds - _JSON)))
                if float in kinds:  # (a level of floats alone is read as it is)
                    found = children if len(kinds) == 1 else [*compress(children, map(is_, types, repeat(float)))]
                    floats += _finite(found)
                if str not in kinds:
                    strings = 0
                elif len(kinds) == 1:  # strings alone
                    strings = sum(map(len, children))
                else:
                    strings = sum(map(len, compress(children, map(is_, types, repeat(str)))))
                if not kinds <= _SCALARS:
                    small = [*compress(children, map(_is_container, types))]
            if count > written:
                if strings < 0:
                    strings = sum([len(child) for child in children if type(child) is str])
                text += _key_characters(level) + strings
                if text > max_values << 1:
                    raise too_long(text, max_values)
            if not small:  # the last level
                break
            level = small
            depth += 1
            if depth > max_depth:
                raise too_deep(max_depth)
            if len(level) == 1:  # the commonest level below the root: one object or array
                only = level[0]
                size = len(only)
                count += size
                if count > max_values:
                    raise too_many(max_values)
                children = _referents(only)
                continue
            size = sum(map(len, level))
            count += size
            if count > max_values:  # before the level is read: shared objects read more than they hold
                raise too_many(max_values)
            if len(level) > _SHARED_AFTER and len({*map(id, level)}) != len(level):
                # The same object more than once: walk each object once, with how often it occurs.
                # (A level of a few objects is walked as it is: however they are shared, reading it
                # takes work in proportion to the values it adds to the bounded count.)
                count, shared, shared_floats = _walk_shared(level, depth, count, max_depth, max_values)
                if text + shared > max_values << 1:
                    raise too_long(text + shared, max_values)
                floats += shared_floats
                break
            children = _referents(*level)
        large = 0
        try:
            packed = len(_encode(root))  # one pass in C over every string and key, now that the count is bounded
        except UnicodeEncodeError as exc:
            raise surrogate(exc) from None
        except OverflowError:
            packed, large = _no_surrogates(root), LARGE
        if packed > max_values << 1:
            within_size(packed, count, max_values)
        return floats << FLOATS | large | (LONG if packed > LONG_PAST else 0)
    except (TypeError, ValueError, RuntimeError) as exc:  # not the screen's refusals: a value changed
        raise changed_while_read(exc) from None


def _no_surrogates(value: Any) -> int:
    """The surrogate pass for a value holding an int beyond 64 bits, which JSON encodes; the
    length of its compact JSON (read by :func:`within_size` as a msgpack length: a looser bound).
    An int this interpreter writes as no text (over ``sys.get_int_max_str_digits()`` digits) is
    refused: no document spells it here, and the backends read it otherwise."""
    try:
        size = len(_encode_json(value))
    except UnicodeEncodeError as exc:
        raise surrogate(exc) from None
    except ValueError:
        raise unspelled() from None
    except (TypeError, RuntimeError) as exc:  # screened: changed since
        raise changed_while_read(exc) from None
    if size > _LONGEST_INTEGER:  # long enough to hold an integer no document is read with
        _long_integers(value)
    return size


_LONGEST_INTEGER = 4_300
"""The longest integer a document is read with, in characters, its sign included (msgspec's bound:
``-(10**4299)``, 4,301 characters, is refused from bytes, so it is refused as a value too)."""


def _long_integers(value: Any) -> None:
    # Decided by the bits where they tell (writing 4,300 digits takes 0.2 ms): under 2^14280 an
    # integer has 4,299 digits at most, from 2^14285 on 4,301 at least.
    for item in large_integers(value, _SURELY_SHORT):
        bits = item.bit_length()
        if bits > _SURELY_LONG or len(str(item)) > _LONGEST_INTEGER:
            raise DecodeError(DecodeReason.NUMBER_OUT_OF_RANGE, TOO_MANY_DIGITS)


_SURELY_SHORT, _SURELY_LONG = 14_280, 14_285


def large_integers(value: Any, bits: int) -> list[int]:
    """The integers of more than ``bits`` bits ``value`` holds (see :func:`large_integers_by_level`)."""
    return [*chain.from_iterable(large_integers_by_level(value, bits))]


def large_integers_by_level(value: Any, bits: int) -> list[list[int]]:
    """The integers of more than ``bits`` bits ``value`` holds at each level (see :func:`floats_by_level`)."""
    found = [
        [item for item in integers if item.bit_length() > bits]
        if integers and max(map(int.bit_length, integers)) > bits
        else []
        for integers in _by_level(value, int)
    ]
    while found and not found[-1]:
        found.pop()
    return found


def floats_by_level(value: Any) -> list[list[float]]:
    """The floats ``value`` holds at each level (the root's is 0; none past the last holding one),
    each level's values sorted by type in C (60 MB read value by value took seconds)."""
    return _by_level(value, float)


def _by_level(value: Any, kind: type) -> list[list[Any]]:
    found: list[list[Any]] = []
    level = [value]
    while level:
        kinds = [*map(type, level)]
        found.append([*compress(level, map(is_, kinds, repeat(kind)))])
        containers = [*compress(level, map(_CONTAINERS.__contains__, kinds))]
        level = level_children(containers) if containers else []
    while found and not found[-1]:
        found.pop()
    return found


def level_children(level: list[Any]) -> list[Any]:
    """The values of the dicts and the items of the lists of ``level`` (JSON values): one C call
    where the interpreter reads them so (see :data:`referents`)."""
    children = _referents(*level)
    return children if len(children) == sum(map(len, level)) else _one_by_one(level)


_SPELLED_BITS = 14_000
_WORD_LEAST, _WORD_MOST = -(1 << 63), (1 << 64) - 1  # the integers msgpack holds
"""Every int of at most this many bits is written as text (4,300 digits, Python's default bound
of ``int`` to ``str``, take some 14,284 bits): a longer one is tried (see :func:`_no_surrogates`)."""


def _one_by_one(level: list[Any]) -> list[Any]:
    """The children of ``level`` read without ``_referents``; every key must be exactly a ``str``."""
    dicts = [node for node in level if type(node) is dict]
    if not dicts:
        return list(chain.from_iterable(level))
    keys = list(chain.from_iterable(dicts))
    if not {*map(type, keys)} <= {str}:
        raise bad_key(keys)
    children = list(chain.from_iterable(map(dict.values, dicts)))
    if len(dicts) != len(level):
        children.extend(chain.from_iterable(node for node in level if type(node) is not dict))
    return children


def _read(level: list[Any]) -> None:
    """Check the keys and scalars one level down from ``level``."""
    children = level_children(level)
    types = [*map(type, children)]
    kinds = {*types}
    if not kinds <= _JSON:
        raise not_json(next(iter(kinds - _JSON)))
    if float in kinds:
        _finite([*compress(children, map(is_, types, repeat(float)))])


def _walk_shared(level: list[Any], depth: int, count: int, max_depth: int, max_values: int) -> tuple[int, int, int]:
    """The walk over objects that occur more than once: every distinct object is looked at once
    and weighed by its occurrences, so `x = [x, x]` forty times costs forty steps, not 2**40.
    The values counted, the characters of the strings and keys below ``level`` and the floats
    there (each time they occur), returned."""
    weights: dict[int, list[Any]] = {}
    for node in level:
        _weigh(weights, node, 1)
    text = floats = 0  # the characters of their strings and keys, and their floats, each time they occur
    while True:
        _read([node for node, _ in weights.values()])  # the checks of every key and scalar
        following: dict[int, list[Any]] = {}
        for node, weight in weights.values():
            values = node.values() if type(node) is dict else node
            text += weight * (_key_characters([node]) + sum(len(child) for child in values if type(child) is str))
            floats += weight * sum(type(child) is float for child in values)
            for child in values:
                if type(child) in _CONTAINERS:
                    _weigh(following, child, weight)
        if not following:
            return count, text, floats
        weights = following
        depth += 1
        if depth > max_depth:
            raise too_deep(max_depth)
        count += sum(len(node) * weight for node, weight in weights.values())
        if count > max_values:
            raise too_many(max_values)


def unsigned_past_63_bits(packed: bytes) -> int:
    """:data:`LARGE` where a msgpack pass may hold an integer from 2^63 to 2^64 - 1 (``0xcf`` and a
    byte of 0x80 or more, maybe inside a string: a bound), which jsonschema-rs compares with each
    member of an ``enum`` of integers (0.5 us a member); 0 otherwise."""
    return LARGE if packed.find(b"\xcf") >= 0 and _UNSIGNED_PAST_63_BITS.search(packed) else 0


def _key_characters(level: list[Any]) -> int:
    """The characters of the keys of the dicts in ``level`` (every key exactly a ``str``)."""
    if len(level) == 1:
        only = level[0]
        return sum(map(len, only)) if type(only) is dict else 0
    return sum(map(len, chain.from_iterable(compress(level, map(is_, map(type, level), repeat(dict))))))


def _weigh(weights: dict[int, list[Any]], node: Any, weight: int) -> None:
    entry = weights.get(id(node))
    if entry is None:
        weights[id(node)] = [node, weight]
    else:
        entry[1] += weight


def _finite(floats: list[float]) -> int:
    """How many ``floats`` there are, every one finite (or refused)."""
    if not all(map(isfinite, floats)):
        raise non_finite()
    return len(floats)

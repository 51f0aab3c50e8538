"""What ``uniqueItems`` may cost jsonschema-rs beyond one hash a value: items that hash alike.

jsonschema-rs checks an array of up to 15 items pair by pair (at most 105 comparisons, each
stopping at the shorter side), and a longer one through a set of its items' hashes, comparing the
items that hash alike pair by pair. Its hash of a number is the double it rounds to; of an array,
its items' hashes written one after another, with no length or mark of its own (``[]`` adds
nothing: ``[[1], 2]``, ``[1, [2]]`` and ``[[[1, 2]]]`` hash as ``[1, 2]`` does, and so does the item
``[1, 2]`` of an object's pair); of an object, its pairs' hashes combined. Two kinds of distinct
items hash alike in numbers:

- integers past 2^53 that round to one double (:func:`colliding_integers`);
- arrays and objects whose runs of scalars are alike (:func:`colliding_structures`): 50,000
  distinct arrays of brackets alone (1.4 MB) took 28 s, 20,000 of them inside one tool argument
  4.7 s.

Each estimate is charged against the validation-work budget of :mod:`engine._work`, on every
instance of a schema that holds ``uniqueItems: true``; a short instance's msgpack shows it holds
neither kind, and nothing is walked.
"""

from __future__ import annotations

import re
from itertools import compress, repeat
from typing import Any

import msgspec

from ._errors import DecodeError, DecodeReason
from ._instance import large_integers, level_children

__all__ = ["colliding_integers", "colliding_structures"]

_PAIR = 100  # evaluations a pair of large integers hashing alike costs (0.6 us near 2^70)
_EXACT_BITS = 53  # integers a double holds exactly: up to 2^53
_STRUCTURE_PAIR = 4  # evaluations a pair of distinct items hashing alike costs at least (22 ns)
_OVERFLOW = 1 << 62  # the length taken for an instance msgpack cannot hold: past any budget
_CONTAINERS = frozenset({list, dict})
_LONG_DIGITS = re.compile(rb"\d{16}")
_encode_json = msgspec.json.encode
_HASHED = 16  # items from which an array is checked through its items' hashes
# Objects' keys in order (an object's hash does not depend on it); an integer past 64 bits, which
# msgspec writes too, is one of the large integers weighed on their own.
_written = msgspec.json.Encoder(order="sorted").encode


def colliding_integers(instance: Any, packed: bytes | None, budget: int) -> None:
    """Refuse ``instance`` if ``uniqueItems`` could compare its large integers pair by pair past
    ``budget``. Integers past 2^53 that round to the same double collide and are compared pair by
    pair, slowly (4,000 consecutive integers near 2^70: 5.2 s; 200 of 4,000 digits: 8.6 s; spaced
    apart, 2 ms). The estimate: for each group of integers rounding alike, half its size squared
    pairs, each 100 evaluations and one more per 200 of the square of its digits (0.6 us a pair
    near 2^70, 430 us at 4,000 digits). msgpack spells an integer past 2^32 after one of two bytes
    (``packed``: its msgpack, ``None`` where an integer is past 64 bits): few of them, and nothing
    is walked."""
    if packed is not None:
        candidates = packed.count(b"\xcf") + packed.count(b"\xd3")
        if candidates * candidates * (_PAIR // 2) <= budget:
            return
        # The marker bytes are in strings too (UTF-8 `π` is CF 80): the JSON text's runs of 16
        # digits or more (in C) are the integers past 2^53, and more (a string's digits).
        candidates = len(_LONG_DIGITS.findall(_encode_json(instance)))
        if candidates * candidates * (_PAIR // 2) <= budget:
            return
    groups: dict[float | None, list[int]] = {}
    for value in large_integers(instance, _EXACT_BITS):
        try:
            key: float | None = float(value)
        except OverflowError:  # past any double: all alike
            key = None
        group = groups.setdefault(key, [0, 0])
        group[0] += 1
        group[1] = max(group[1], value.bit_length())
    work = 0
    for count, bits in groups.values():
        digits = bits * 30_103 // 100_000 + 1  # decimal digits of an integer of `bits` bits
        work += count * count // 2 * (_PAIR + digits * digits // 200)
    if work > budget:
        raise DecodeError(
            DecodeReason.TOO_LARGE,
            f"instance is too large for this schema: uniqueItems could compare its large integers "
            f"pair by pair (those past 2^53 that round to one double hash alike), some {work} "
            f"evaluations, more than {budget} (max_validation_work)",
        )


def colliding_structures(instance: Any, packed: bytes | None, budget: int, levels: list[int] | None = None) -> None:
    """Refuse ``instance`` if ``uniqueItems`` could compare distinct arrays or objects that hash
    alike pair by pair past ``budget``. Every array of 16 items or more holding an array or an
    object has its items grouped by their runs of scalars: each item's canonical text without
    its brackets and commas (alike wherever jsonschema-rs's hashes are, and more often: a string
    holding a bracket). A group of ``n`` items costs ``n * n / 2`` pairs of 4 evaluations, each
    reading up to the shorter item (``n / 2`` times the bytes of the group's texts), and writing
    the texts one evaluation a byte (an array inside another is written once more for each).
    Arrays are read level by level from the root, so that the widest is weighed first, at the
    instance ``levels`` a ``uniqueItems`` may meet (every level where ``None``: a 250-deep tower of
    such arrays was written 250 times over, 7.7 s, against a schema checking the root). msgpack
    spells an array of 16 items or more after one of two bytes: an instance whose ``packed``
    msgpack holds neither is not walked."""
    # msgpack spells an array of 16 items or more after one of two bytes (which a string or a
    # number may also hold): once as many such arrays are found, none is left below.
    markers = _OVERFLOW if packed is None else packed.count(b"\xdc") + packed.count(b"\xdd")
    # The instance's text is at most six bytes for each of its msgpack (a control character
    # escaped): ``n`` items whose texts hold ``text`` bytes in all cost at most ``2 n^2 + n text / 2``.
    text = _OVERFLOW if packed is None else 6 * len(packed) + 16
    work = 0
    level: list[Any] = [instance] if type(instance) is list or type(instance) is dict else []
    depth, deepest = 0, _OVERFLOW if levels is None else max(levels, default=-1)
    while level and markers > 0 and depth <= deepest:
        for node in level:
            count = len(node) if type(node) is list else 0
            if count < _HASHED or (levels is not None and depth not in levels):
                continue
            markers -= 1
            if count * (2 * count + text // 2) + text // 8 > budget - work:
                work += _pairs(node)
                if work > budget:
                    raise DecodeError(
                        DecodeReason.TOO_LARGE,
                        "instance is too large for this schema: uniqueItems could compare distinct "
                        "items that hash alike pair by pair (jsonschema-rs hashes an array as its "
                        f"items' hashes one after another: [[1], 2] as [1, [2]]), some {work} "
                        f"evaluations, more than {budget} (max_validation_work)",
                    )
        if markers <= 0 or depth >= deepest:
            return
        children = level_children(level)
        level = [*compress(children, map(_CONTAINERS.__contains__, map(type, children)))]
        depth += 1


def _pairs(items: list[Any]) -> int:
    """What hashing ``items`` costs beyond a hash each: the texts written, and the pairs of each
    group of items alike (see :func:`colliding_structures`); nothing where no item can hash like
    another it differs from."""
    if _CONTAINERS.isdisjoint(map(type, items)):  # in C: an array of 30 million scalars is common
        return 0
    whole = _written(items)
    # jsonschema-rs hashes `false` as `0`, `true` as `5e-324` and `null` as the double whose bits
    # are 3221225473 (its hasher reads a byte, a word and a double alike): `[0, false]` and
    # `[false, 0]`, or `{"a": 0}` and `{"a": false}`, hash alike too (2^14 such items: 3.6 s).
    alike = _hashed_alike(whole)
    if whole.count(b"[") == 1 and not alike:  # no array below, no such scalar: distinct items hash apart
        return 0
    texts = [*map(_written, items)]
    runs = [*map(bytes.translate, texts, repeat(None), repeat(b"[],"))]
    if alike:
        runs = [*map(_as_hashed, runs)]
    work = sum(map(len, runs))  # each text written, a byte an evaluation (its keys sorted)
    if len(set(runs)) == len(runs):
        return work
    # Only distinct items that hash alike are compared on: two equal ones end the check at once.
    distinct: dict[bytes, set[bytes]] = {}
    for run, text in zip(runs, texts, strict=True):
        distinct.setdefault(run, set()).add(text)
    for run, alike_texts in distinct.items():
        count = len(alike_texts)
        if count > 1:  # each pair reads up to the shorter of two texts alike
            work += count * count * (_STRUCTURE_PAIR + len(run)) // 2
    return work


_ZERO = re.compile(rb"[\[:,]-?0(?:\.0)?[\],}]")


def _hashed_alike(text: bytes) -> bool:
    """Whether the text of the items may hold a value hashed like another it differs from: a
    `false`, an empty object (its pairs' hashes combined: none) and a zero, a `true` and `5e-324`,
    a `null` and the double of bits 3221225473."""
    zeros = (b"false" in text) + (b"{}" in text) + (_ZERO.search(text) is not None)
    return zeros > 1 or (b"true" in text and b"5e-324" in text) or (b"null" in text and b"1.5914968437e-314" in text)


def _as_hashed(run: bytes) -> bytes:
    """``run`` with each scalar spelled as the number jsonschema-rs hashes it as (and more: a
    string holding the words, `10.0` as `10`; alike more often only weighs more)."""
    return (
        run.replace(b"false", b"0")
        .replace(b"{}", b"0")
        .replace(b"0.0", b"0")
        .replace(b"true", b"5e-324")
        .replace(b"null", b"1.5914968437e-314")
    )

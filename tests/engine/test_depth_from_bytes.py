"""``within_depth``: the depth of a JSON document read from its bytes. It may say "not shown"
(the parsed value is then walked), but it never says a document nests within a bound it exceeds."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine._decode import check_depth, decoded_nesting, held_nesting, nesting, within_depth
from engine._errors import DecodeError

# Strings full of what the byte reading must see through: brackets, quotes, escapes.
TRICKY = st.text(alphabet=st.sampled_from(list('[]{}"\\/ab \n\u00e9\u2028\U0001f600')), max_size=6)

values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=False, allow_infinity=False) | TRICKY,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TRICKY, inner, max_size=4),
    max_leaves=30,
)


def spellings(value: Any) -> list[bytes]:
    """The same value as different encoders write it."""
    return [
        msgspec.json.encode(value),
        json.dumps(value).encode(),
        json.dumps(value, ensure_ascii=False).encode(),
        json.dumps(value, indent=1).encode(),
    ]


@settings(max_examples=400, deadline=None, derandomize=True)
@given(values)
def test_never_says_within_a_bound_the_document_exceeds(value: Any) -> None:
    depth = nesting(value, 10_000)
    for data in spellings(value):
        for bound in range(depth + 2):
            if within_depth(data, bound):
                assert depth <= bound, (data, bound)
            if within_depth(data.decode(), bound):
                assert depth <= bound, (data, bound)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(values)
def test_shows_the_depth_of_an_ordinary_document(value: Any) -> None:
    """The reading is exact for a document of ordinary shape, whatever its strings hold."""
    depth = nesting(value, 10_000)
    for data in spellings(value):
        assert within_depth(data, depth)
        if depth:
            assert not within_depth(data, depth - 1) or len(data) <= depth - 1


@pytest.mark.parametrize(
    ("data", "bound", "shown"),
    [
        (b'["[[[[", 1]', 1, True),  # brackets in a string are not structure
        (b'["]", [[1]], "["]', 2, False),  # strings whose brackets would hide a level if counted
        (b'["]", [[1]], "["]', 3, True),
        (b'{"]": [[1]], "[": 2}', 2, False),  # the same in keys
        (b'{"]": [[1]], "[": 2}', 3, True),
        (b'[["\\"[[[", 1]]', 2, True),  # an escaped quote before brackets in a string
        (b'[["\\"[[[", 1]]', 1, False),
        (b'[["\\\\", [1]]]', 3, True),  # an escaped backslash closes the string
        (b'[["\\\\", [1]]]', 2, False),
        (b'[["\\u005b\\u005b\\u005b"]]', 2, True),  # escaped brackets are not brackets
        (b"[" + b"[1]," * 300 + b"[]]", 2, True),
        (b"[" + b"[1]," * 300 + b"[]]", 1, False),
        (b'{"a": {"b": {"c": []}}, "d": "' + b"x" * 300 + b'"}', 4, True),
        (b'{"a": {"b": {"c": []}}, "d": "' + b"x" * 300 + b'"}', 3, False),
    ],
)
def test_examples(data: bytes, bound: int, shown: bool) -> None:
    assert within_depth(data, bound) is shown
    assert within_depth(bytearray(data), bound) is shown
    assert within_depth(memoryview(data), bound) is shown
    assert within_depth(data.decode(), bound) is shown


def test_a_narrow_deep_rest_is_left_to_the_walk() -> None:
    """Passes that remove little of a long rest stop: the answer is "not shown", soon."""
    narrow = b"[" * 250 + b"]" * 250
    data = b"[" + b",".join([narrow] * 40) + b"]"
    assert not within_depth(data, 256)
    assert nesting(msgspec.json.decode(data), 300) == 251


def test_a_wide_document_within_the_bound_is_shown() -> None:
    records = [{"id": i, "name": f"item {i}", "tags": ["a", "b"]} for i in range(2000)]
    data = msgspec.json.encode(records)
    assert within_depth(data, 3)
    assert not within_depth(data, 2)
    with_brackets = msgspec.json.encode([{**r, "name": f"item [{r['id']}] {{"} for r in records])
    assert within_depth(with_brackets, 3)  # brackets in strings are not structure
    assert not within_depth(with_brackets, 2)


def test_strings_holding_brackets_everywhere_are_left_to_the_walk() -> None:
    """Each string with a bracket, kept apart from the next by structure, is a piece to split on:
    past one per 16 bytes, no copy is made and the walk decides."""
    data = b"[" + b",".join([b'["["]'] * 5000) + b"]"
    assert not within_depth(data, 2)
    assert nesting(msgspec.json.decode(data), 10) == 2


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(values, max_size=4))
def test_the_bound_from_decoded_values_is_exact_or_one_over(items: list[Any]) -> None:
    """``held_nesting``: the depth of an array holding decoded values, from their referents a
    level at a time; never under the depth, and over it by one at most (an empty array or object
    at the bottom is not seen)."""
    decoded = msgspec.json.decode(msgspec.json.encode(items))
    exact = nesting(decoded, 10_000)
    assert exact <= held_nesting(decoded, 10_000) <= exact + 1


@pytest.mark.parametrize(
    ("items", "exact"),
    [([], 1), ([1, "x"], 1), ([[]], 2), ([{}], 2), ([{"a": []}], 3), ([{"a": [1]}], 3), ([[[[[]]]]], 5)],
)
def test_the_bound_from_decoded_values_at_the_bottom(items: list[Any], exact: int) -> None:
    assert nesting(items, 100) == exact
    assert held_nesting(items, 100) in (exact, exact + 1)
    assert held_nesting(items, exact - 1) > exact - 1  # past `stop`: returned as soon as passed


@settings(max_examples=400, deadline=None, derandomize=True)
@given(values, st.integers(0, 8))
def test_the_depth_of_a_decoded_value_is_counted_exactly(value: Any, below: int) -> None:
    """``decoded_nesting``: the exact depth of a decoded value, up to ``stop``, from one referents
    call a level (empty arrays and objects at the bottom included); ``check_depth`` refuses a
    value exactly when it nests past the bound."""
    decoded = msgspec.json.decode(msgspec.json.encode(value))
    exact = nesting(decoded, 10_000)
    for stop in {0, 1, max(exact - below, 0), exact, exact + 1, exact + 5}:
        assert decoded_nesting(decoded, stop) == min(exact, stop), (decoded, stop)
    for bound in {0, max(exact - 1, 0), exact, exact + 1}:
        if exact > bound:
            with pytest.raises(DecodeError):
                check_depth(decoded, bound)
        else:
            check_depth(decoded, bound)


@pytest.mark.parametrize("depth", [1, 2, 255, 256, 257, 258, 600])
def test_a_deep_chain_is_counted_exactly(depth: int) -> None:
    for bottom in (b"", b"1", b"{}", b'{"a":[]}'):
        data = b"[" * depth + bottom + b"]" * depth
        decoded = msgspec.json.decode(data)
        exact = nesting(decoded, 10_000)
        assert decoded_nesting(decoded, 10_000) == exact
        assert decoded_nesting(decoded, 256) == min(exact, 256)

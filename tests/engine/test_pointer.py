"""JSON pointers: every location the engine reports is built by `pointer`, joined at once where no
token needs escaping and token by token where one does."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine._pointer import escape, pointer, tokens

# Names of every kind a schema or an instance holds: plain, with `~` and `/` (escaped), empty,
# numeric, and array indexes.
parts = st.lists(
    st.one_of(
        st.text(alphabet=st.sampled_from("ab~/01 é"), max_size=4),
        st.integers(min_value=0, max_value=12),
    ),
    max_size=5,
)


@settings(max_examples=500, deadline=None)
@given(parts=parts)
def test_a_pointer_escapes_each_token_and_reads_back(parts: list[str | int]) -> None:
    expected = "".join("/" + escape(part) for part in parts)
    assert pointer(parts) == expected
    assert pointer(tuple(parts)) == expected
    assert pointer(iter(parts)) == expected  # any iterable, read once
    assert tokens(pointer(parts)) == [str(part) for part in parts]


def test_pointers_the_reports_use() -> None:
    assert pointer([]) == ""
    assert pointer(["properties", "owner", "type"]) == "/properties/owner/type"
    assert pointer(["items", 0, "a/b", "m~n"]) == "/items/0/a~1b/m~0n"
    assert pointer(["", ""]) == "//"
    assert pointer(["a/"]) == "/a~1"  # as many slashes as tokens: one is inside a name

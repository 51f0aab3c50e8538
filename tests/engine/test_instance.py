"""The bounds of a JSON document held to Python objects (engine._instance), on every entry point
and on both ways of reading a level (``gc.get_referents``, and one by one where it is not used):
hostile values in flat and nested objects, in places no schema looks, against a plain recursive
reference."""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine import DecodeError, _instance
from engine._mcp import tools as tools_module

DEPTH = 6
VALUES = 40

Entry = Callable[[Any], Any]


class Text(str):
    pass


class Number(int):
    pass


class Real(float):
    pass


class Mapping(dict):  # type: ignore[type-arg]
    pass


class Items(list):  # type: ignore[type-arg]
    pass


class Colour(enum.IntEnum):
    RED = 1


class Slots:
    def __init__(self) -> None:
        self.name = "x"
        self.size = 3


def _refuse(_exc: BaseException) -> Exception:
    return RuntimeError("the backend raised")


def _fail(_instance_: Any) -> Exception:
    return engine.ValidationFailed([])


def entries(max_depth: int = DEPTH, max_values: int = VALUES) -> list[Entry]:
    """``admit``, the two bound calls (around a check that accepts everything), and a tool's
    arguments (whose commonest objects are screened inline, see ``ToolSet.validate_arguments``)."""

    def admit(value: Any) -> None:
        _instance.admit(value, max_depth, max_values)

    def accept(_value: Any) -> bool:
        return True

    limits = engine.Limits(max_instance_depth=max_depth, max_instance_bytes=2 * max_values)
    tools = engine.compile_tools(
        [{"name": "t", "inputSchema": {"type": "object"}}], engine=engine.Engine(cache_size=0, limits=limits)
    )
    tools.validate_arguments("t", {})  # binds the tool's readers: the calls below take the inline path

    def arguments(value: Any) -> None:
        if type(value) is dict:
            tools.validate_arguments("t", value)
        else:  # not an object: refused by the schema, once admitted
            _instance.admit(value, max_depth, max_values)

    return [
        admit,
        _instance.bind_is_valid(accept, _refuse, max_depth, max_values),
        _instance.bind_checked(accept, _refuse, _fail, max_depth, max_values),
        arguments,
    ]


@pytest.fixture(params=["referents", "one-by-one", "type-sets"])
def reader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each test runs with the level reader the interpreter gets, with the one-by-one reader
    every other interpreter gets, and with every level read by type sets (as levels of more than
    a few values are), none in the small levels' loop."""
    if request.param == "type-sets":
        monkeypatch.setattr(_instance, "_SMALL_LEVEL", -1)
    if request.param == "one-by-one":
        monkeypatch.setattr(_instance, "_referents", _instance._no_children)
        monkeypatch.setattr(tools_module, "referents", _instance._no_children)
    yield request.param


def test_this_interpreter_reads_levels_in_one_call() -> None:
    import gc

    assert _instance._referents is gc.get_referents


def _reason(entry: Entry, value: Any) -> str | None:
    try:
        entry(value)
    except DecodeError as error:
        return str(error.reason)
    return None


def _general_but_str_keys() -> dict[Any, Any]:
    """A dict whose table was made for any key (one was an int) that now holds only str keys."""
    value: dict[Any, Any] = {1: "gone", "a": 1}
    del value[1]
    return value


ADMITTED: list[Any] = [
    {},
    [],
    {"a": 1, "b": "x", "c": None, "d": True, "e": 2.5, "f": -0.0},
    {"a": [], "b": {}, "c": [[]], "d": [{}]},
    {"é": "ü", "k": "\U0001f600", "\uffff": 1},
    [1, "x", None, 1.5, [2, {"a": "b"}]],
    _general_but_str_keys(),
    {"a": _general_but_str_keys()},
    Slots().__dict__,
    {"a": Slots().__dict__},
    {"big": 10**40, "small": -(2**63) - 1, "s": "é"},
    {"a": [2**64, {"b": -(10**30), "c": "ü"}]},
    "text",
    1.5,
    10**40,
    10**4000,  # past a float's range, within what Python writes as text
    {"a": [-(2**100)]},
    None,
    True,
]


@pytest.mark.parametrize("value", ADMITTED, ids=[str(i) for i in range(len(ADMITTED))])
def test_json_values_are_admitted(reader: str, value: Any) -> None:
    for entry in entries():
        assert _reason(entry, value) is None


def _shared_list(levels: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(levels):
        value = [value, value]
    return value


def _shared_dict(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(levels):
        value = {"a": value, "b": value, "c": 1}
    return value


def _nested_lists(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def _nested_dicts(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = {"k": value, "n": 1}
    return value


def _in_places(bad: Any) -> list[Any]:
    """``bad`` as the value of a flat object, deep in a nested one, in a list, and beside a
    nested object in a level with several objects."""
    return [
        {"a": 1, "b": bad},
        {"a": {"b": [1, {"c": bad}]}},
        [1, [2, bad]],
        {"x": [{"p": 1}, {"q": bad}, {"r": 2}], "y": {"z": 1}},
        [{"k": i} for i in range(10)] + [{"k": bad}],
    ]


def _keyed(key: Any) -> list[Any]:
    return [{key: 1}, {"a": 1, key: 1}, {"a": {"b": [{key: "x"}]}}, [{"a": 1}, {key: 2}], {"a": {key: {"b": 1}}}]


_NOT_STR_KEYS: list[Any] = [1, None, True, 1.5, (1,), Text("k"), b"k", frozenset()]

HOSTILE: list[tuple[Any, str]] = [
    *[(value, "non-finite-number") for bad in (float("nan"), float("inf"), float("-inf")) for value in _in_places(bad)],
    *[(value, "invalid-utf8") for bad in ("\ud800", "a\udfffb") for value in _in_places(bad)],
    *[(value, "invalid-utf8") for bad in ("\ud800", "x\udc00") for value in _keyed(bad)],
    *[
        (value, "not-json")
        for bad in (
            (1, 2),
            {1, 2},
            frozenset(),
            b"x",
            bytearray(b"x"),
            1j,
            object(),
            Text("x"),
            Number(1),
            Real(1.5),
            Real("nan"),
            Mapping(a=1),
            Items([1]),
            Colour.RED,
            ...,
        )
        for value in _in_places(bad)
    ],
    *[(value, "not-json") for key in _NOT_STR_KEYS for value in _keyed(key)],
    # ints of more digits than Python writes as text (4,300 by default): no document spells them here
    *[(value, "number-out-of-range") for bad in (10**5000, -(10**4400)) for value in _in_places(bad)],
    ({"a": [1, {"b": 10**5000}], "c": "x"}, "number-out-of-range"),
    (10**5000, "number-out-of-range"),
    # ints beyond 64 bits take the other surrogate pass
    ({"big": 10**40, "s": "\ud800"}, "invalid-utf8"),
    ({"big": 2**64, "\udc00": 1}, "invalid-utf8"),
    ({"a": [10**40, {"k": "x\udfff"}]}, "invalid-utf8"),
    ({"a": [-(10**40), {"\ud800": 1}]}, "invalid-utf8"),
    (Text("x"), "not-json"),
    (Number(1), "not-json"),
    (Real(2.0), "not-json"),
    (Mapping(a=1), "not-json"),
    (Items([1]), "not-json"),
    ((1, 2), "not-json"),
    ("\ud800", "invalid-utf8"),
    (float("nan"), "non-finite-number"),
    (_shared_list(40), "too-large"),
    (_shared_dict(40), "too-large"),
    ({"a": [[list(range(10))] * 5]}, "too-large"),
    ([list(range(30)), list(range(30))], "too-large"),
    (_nested_lists(DEPTH + 1), "too-deep"),
    (_nested_dicts(DEPTH + 1), "too-deep"),
    ({"a": _nested_lists(DEPTH)}, "too-deep"),
]


@pytest.mark.parametrize(("value", "reason"), HOSTILE, ids=[f"{i}-{r}" for i, (_, r) in enumerate(HOSTILE)])
def test_hostile_values_are_refused_with_their_reason(reader: str, value: Any, reason: str) -> None:
    for entry in entries():
        assert _reason(entry, value) == reason, entry


def test_a_dict_holding_itself_is_too_deep(reader: str) -> None:
    value: dict[str, Any] = {"a": 1}
    value["self"] = value
    listed: list[Any] = [1]
    listed.append(listed)
    for entry in entries():
        assert _reason(entry, value) == "too-deep"
        assert _reason(entry, listed) == "too-deep"


@pytest.mark.parametrize("make", [_nested_lists, _nested_dicts])
def test_depth_exactly_at_the_bound(reader: str, make: Callable[[int], Any]) -> None:
    for entry in entries():
        assert _reason(entry, make(DEPTH)) is None
        assert _reason(entry, make(DEPTH + 1)) == "too-deep"
    for entry in entries(max_depth=1):
        assert _reason(entry, {"a": 1, "b": "x"}) is None
        assert _reason(entry, {"a": []}) == "too-deep"
        assert _reason(entry, [[]]) == "too-deep"


def test_values_exactly_at_the_bound(reader: str) -> None:
    # The root counts as one value: an object of 39 scalars holds 40 (its keys of one character:
    # the characters of its keys count too, against the bytes of the bound's document).
    flat = {chr(65 + i): i for i in range(VALUES - 1)}
    nested = {"a": list(range(VALUES - 3)), "b": 1}  # 1 + 2 + 37
    for entry in entries():
        assert _reason(entry, flat) is None
        assert _reason(entry, {**flat, "one more": 1}) == "too-large"
        assert _reason(entry, nested) is None
        assert _reason(entry, {**nested, "c": 1}) == "too-large"
        assert _reason(entry, list(range(VALUES - 1))) is None
        assert _reason(entry, list(range(VALUES))) == "too-large"


def test_shared_objects_count_each_time_they_occur(reader: str) -> None:
    part = [1, 2, 3]  # 3 values, occurring 12 times: 1 + 12 + 36 = 49 values
    for entry in entries():
        assert _reason(entry, [part] * 12) == "too-large"
        assert _reason(entry, [part] * 9) is None  # 1 + 9 + 27 = 37
        assert _reason(entry, {"a": part, "b": part}) is None
        assert _reason(entry, [[part] * 3] * 3) is None  # 1 + 3 + 9 + 27 = 40
        assert _reason(entry, [[part] * 3] * 3 + [1]) == "too-large"


def test_a_few_objects_shared_many_times_over_are_counted_before_they_are_read(reader: str) -> None:
    big = list(range(1000))
    for entry in entries(max_values=5000):
        assert _reason(entry, [big] * 8) == "too-large"  # 1 + 8 + 8000
        assert _reason(entry, {"a": [big] * 4}) is None  # 1 + 1 + 4 + 4000
        assert _reason(entry, {"a": [big] * 4, "b": big}) == "too-large"


def test_shared_objects_are_checked_once_and_still_checked(reader: str) -> None:
    for bad, reason in ((float("nan"), "non-finite-number"), ("\ud800", "invalid-utf8"), ({1}, "not-json")):
        shared = [{"a": bad}] * 12
        for entry in entries(max_values=10**6):
            assert _reason(entry, [shared, shared]) == reason
            assert _reason(entry, {"a": shared}) == reason
    keyed = [{1: "x"}] * 12
    for entry in entries(max_values=10**6):
        assert _reason(entry, [keyed]) == "not-json"


def test_a_bomb_is_refused_quickly() -> None:
    """Forty levels of `x = [x, x]` with a bound the count only reaches at 2**30 values: refused
    without walking them."""
    for entry in entries(max_depth=100, max_values=2**30):
        assert _reason(entry, _shared_list(40)) == "too-large"
        assert _reason(entry, _shared_dict(40)) == "too-large"


def test_keys_are_checked_in_dicts_read_one_by_one() -> None:
    """A level holding a dict with a key other than an exact str is read one by one: its other
    dicts and lists are still checked."""
    for entry in entries():
        assert _reason(entry, [{1: "x"}, {"a": float("nan")}]) == "not-json"
        assert _reason(entry, [_general_but_str_keys(), {"a": float("nan")}]) == "non-finite-number"
        assert _reason(entry, [_general_but_str_keys(), [{2}]]) == "not-json"
        assert _reason(entry, [_general_but_str_keys(), ["\ud800"]]) == "invalid-utf8"


def test_the_bound_calls_answer_like_the_check() -> None:
    def refuse(_value: Any) -> bool:
        return False

    def explode(_value: Any) -> bool:
        raise ValueError("no")

    assert _instance.bind_is_valid(refuse, _refuse, DEPTH, VALUES)({"a": 1}) is False
    with pytest.raises(engine.ValidationFailed):
        _instance.bind_checked(refuse, _refuse, _fail, DEPTH, VALUES)({"a": [1]})
    value = {"a": 1}
    assert _instance.bind_checked(lambda _: True, _refuse, _fail, DEPTH, VALUES)(value) is value
    for bound in (
        _instance.bind_is_valid(explode, _refuse, DEPTH, VALUES),
        _instance.bind_checked(explode, _refuse, _fail, DEPTH, VALUES),
    ):
        for instance in ({"a": 1}, [1]):
            with pytest.raises(RuntimeError):
                bound(instance)


# -- against a plain reference ----------------------------------------------------------------


def _faults(value: Any, max_depth: int, max_values: int) -> set[str]:
    """Every reason a value is refused for, found by recursion (shared objects expanded)."""
    found: set[str] = set()
    count = 0

    def visit(node: Any, depth: int) -> None:
        nonlocal count
        count += 1
        kind = type(node)
        if kind is dict or kind is list:
            if depth + 1 > max_depth:
                found.add("too-deep")
                return
            if kind is dict:
                for key in node:
                    if type(key) is not str:
                        found.add("not-json")
                    elif not _encodes(key):
                        found.add("invalid-utf8")
            for child in node.values() if kind is dict else node:
                visit(child, depth + 1)
        elif kind is str:
            if not _encodes(node):
                found.add("invalid-utf8")
        elif kind is float:
            if node != node or node in (float("inf"), float("-inf")):
                found.add("non-finite-number")
        elif kind not in (int, bool, type(None)):
            found.add("not-json")

    visit(value, 0)
    if count > max_values:
        found.add("too-large")
    return found


def _json_length(value: Any) -> int:
    import msgspec

    return len(msgspec.json.encode(value))


def _encodes(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=4),
)
_BAD = st.sampled_from(
    [float("nan"), float("inf"), "\ud800", Text("t"), Number(2), Real(0.5), (1,), {1}, b"b", Colour.RED, Mapping()]
)
_KEYS = st.one_of(st.text(max_size=3), st.sampled_from([1, None, True, Text("k"), "\udc00", (1,)]))


def _values(scalars: st.SearchStrategy[Any], keys: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=5),
            st.dictionaries(keys, inner, max_size=5),
            # the same object several times in one container
            inner.flatmap(lambda shared: st.lists(st.just(shared), min_size=2, max_size=4)),
        ),
        max_leaves=30,
    )


@settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(
    value=st.one_of(_values(_SCALARS, st.text(max_size=3)), _values(st.one_of(_SCALARS, _BAD), _KEYS)),
    max_depth=st.integers(1, 5),
    max_values=st.integers(1, 60),
    one_by_one=st.booleans(),
    small_level=st.sampled_from([-1, 2, 32]),
)
def test_refused_exactly_when_the_reference_finds_a_fault(
    value: Any, max_depth: int, max_values: int, one_by_one: bool, small_level: int
) -> None:
    faults = _faults(value, max_depth, max_values)
    saved = _instance._referents
    saved_small = _instance._SMALL_LEVEL
    _instance._SMALL_LEVEL = small_level  # levels read in a loop up to this size, by type sets above
    if one_by_one:
        _instance._referents = tools_module.referents = _instance._no_children
    # A value whose compact JSON is longer than a document within the size bound (at most twice
    # `max_values` bytes) may be refused as too large: its msgpack length shows it where it is
    # far longer (see `within_size`); a value within it never is.
    long = not faults and _json_length(value) > 2 * max_values
    try:
        for entry in entries(max_depth, max_values):
            reason = _reason(entry, value)
            if faults:
                assert reason in faults, (reason, faults)
            else:
                assert reason is None or (long and reason == "too-large"), (reason, value)
    finally:
        _instance._referents = tools_module.referents = saved
        _instance._SMALL_LEVEL = saved_small


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ({"name": "a", "extra": {Text("k"): 1}}, "not-json"),
        ({"name": "a", Text("k"): 1}, "not-json"),
        ({"name": "a", "extra": [Mapping(a=1)]}, "not-json"),
        ({"name": Text("a")}, "not-json"),
        ({"name": "a", "extra": Colour.RED}, "not-json"),
        ({"name": "a", "n": Real("inf")}, "not-json"),
        ({"name": "a", "n": float("inf")}, "non-finite-number"),
        ({"name": "a", "n": 10**5000}, "number-out-of-range"),
        ({"name": "a", "extra": {"deep": [-(10**5000)]}}, "number-out-of-range"),
        ({"name": "a", "\udc00": 1}, "invalid-utf8"),
        ({"name": "a", "extra": {"deep": ["\ud800"]}}, "invalid-utf8"),
        ({"name": "a", "extra": _shared_list(40)}, "too-large"),
        ({"name": "a", "extra": _nested_dicts(300)}, "too-deep"),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_tool_arguments_as_dicts_are_held_to_json(value: Any, reason: str) -> None:
    schema = {"type": "object", "properties": {"name": {"type": "string"}}}
    tools = engine.compile_tools([{"name": "t", "inputSchema": schema}])
    for _ in range(2):  # the first call binds the tool's readers, the second takes them
        with pytest.raises(DecodeError) as error:
            tools.validate_arguments("t", value)
        assert error.value.reason == reason
    assert tools.validate_arguments("t", {"name": "a", "extra": {"k": [1, 2.5, None]}}) == {
        "name": "a",
        "extra": {"k": [1, 2.5, None]},
    }


def _held(value: Any) -> tuple[int, bool]:
    """The floats a JSON value holds, each time it occurs, and whether it holds an integer
    msgpack cannot (outside -2^63 .. 2^64 - 1)."""
    kind = type(value)
    if kind is float:
        return 1, False
    if kind is int:
        return 0, not -(1 << 63) <= value <= (1 << 64) - 1
    if kind is dict or kind is list:
        held = [_held(child) for child in (value.values() if kind is dict else value)]
        return sum(floats for floats, _ in held), any(large for _, large in held)
    return 0, False


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(
    value=st.recursive(
        st.one_of(_SCALARS, st.integers(-(1 << 70), 1 << 70)),
        lambda inner: st.one_of(
            st.lists(inner, max_size=40),
            st.dictionaries(st.text(max_size=3), inner, max_size=40),
            inner.flatmap(lambda shared: st.lists(st.just(shared), min_size=2, max_size=4)),
        ),
        max_leaves=120,
    ),
    small_level=st.sampled_from([-1, 2, 32]),
)
def test_the_walk_counts_floats_and_large_integers(value: Any, small_level: int) -> None:
    # What the walk holds for the weighing: every float each time it occurs, and whether an
    # integer past 64 bits is there; levels read in one loop or by their types agree.
    saved = _instance._SMALL_LEVEL
    _instance._SMALL_LEVEL = small_level
    try:
        held = _instance.admit(value, 64, 1 << 20)
    finally:
        _instance._SMALL_LEVEL = saved
    floats, large = _held(value)
    assert held >> _instance.FLOATS == floats
    assert bool(held & _instance.LARGE) == large

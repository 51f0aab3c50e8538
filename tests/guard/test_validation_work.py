"""A schema that applies many subschemas to one value has its instances weighed before they are
checked (``engine._work``): an instance whose check could take more than ``max_validation_work``
evaluations is refused with ``too-large``, whichever way it is handed in; one within it gets the
backend's own answer; a schema applying at most ``AMPLIFYING`` subschemas to a value is never
weighed."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import engine
from benchmarks.instances import is_valid_reference
from engine._dialect import Dialect
from engine._guard import AMPLIFYING
from engine._instance import large_integers
from engine._levels import reading_rate
from engine._numbers import compares_in_turn
from engine._patterns.analysis import reads_linearly
from engine._work import LOOK, _patterns, depth_counts, level_weights, reading_counts, weighs_more
from tests.corpus import corpus

WORK = 1_000_000


def _engine(work: int = WORK) -> engine.Engine:
    return engine.Engine(engine.EngineConfig(cache_size=0, limits={"max_validation_work": work}))


def _tower(width: int, height: int) -> dict[str, Any]:
    """``width * height`` minimums, all applied to the value the tower meets (no reference)."""
    return {"allOf": [{"allOf": [{"minimum": -(i * height + j)} for j in range(height)]} for i in range(width)]}


# Each applies about 1,000 subschemas to every item of an array: the cleared document, its tower
# written once in `$defs` and referred to, and one the guard walks (a pattern in it).
AMPLIFIERS = {
    "cleared": {"type": "array", "items": _tower(20, 50)},
    "referred": {
        "type": "array",
        "items": {"allOf": [{"$ref": "#/$defs/tower"}] * 4},
        "$defs": {"tower": _tower(10, 25)},
    },
    "walked": {"type": "array", "items": {**_tower(20, 50), "pattern": "^x"}},
}


def _refused(call: Any, *args: Any) -> engine.DecodeError:
    with pytest.raises(engine.DecodeError) as refused:
        call(*args)
    assert refused.value.reason == engine.DecodeReason.TOO_LARGE
    assert "max_validation_work" in refused.value.message
    return refused.value


@pytest.mark.parametrize("name", list(AMPLIFIERS))
def test_an_amplifying_schema_weighs_its_instances(name: str) -> None:
    compiled = _engine().compile(AMPLIFIERS[name])
    assert compiled.guard is not None and compiled.guard.measured["max_ref_expansion"] > AMPLIFYING
    small, large = [1] * 200, [1] * 5_000  # about 0.2 and 5 million evaluations
    assert compiled.is_valid(small) and compiled.decode(msgspec.json.encode(small)) == small
    assert not compiled.is_valid([1, -(10**6)])  # the backend's answer, within the budget
    for call, value in (
        (compiled.is_valid, large),
        (compiled.validate, large),
        (compiled.checked, large),
        (compiled.decode, msgspec.json.encode(large)),
        (compiled.decode, msgspec.json.encode(large).decode()),
    ):
        _refused(call, value)
    # The budget given is the one weighed against: the same instance passes a larger one.
    assert _engine(10**8).compile(AMPLIFIERS[name]).is_valid(large)


def test_the_default_budget_stops_what_took_seconds() -> None:
    # 9,250 minimums applied to each item: jsonschema-rs took 8.7 s over 100,000 items.
    schema = {"type": "array", "items": _tower(250, 37)}
    compiled = engine.Engine(engine.EngineConfig(cache_size=0)).compile(schema)
    refusal = _refused(compiled.decode, msgspec.json.encode([100] * 100_000))
    assert "more than 100000000 evaluations" in refusal.message and "up to 9501 on one value" in refusal.message
    assert compiled.is_valid([100] * 1_000)


def test_strings_weigh_by_their_length() -> None:
    # Every pattern reads the whole string, at the rate it may read a character.
    patterns = [{"pattern": f"^a*(?:x{i})?$"} for i in range(200)]
    schema = {"type": "string", "allOf": [{"allOf": patterns}, {"allOf": patterns}]}
    schema = {"allOf": [schema, {"allOf": [{"maxLength": 10**9 + i} for i in range(100)]}]}
    per_character = 2 * sum(reading_rate(p["pattern"]) for p in patterns)
    budget = 3 * 8_000 * per_character
    compiled = _engine(budget).compile(schema)
    assert reading_counts(schema, Dialect.DRAFT2020_12) == [per_character]
    assert compiled.is_valid("a" * 8_000)
    _refused(compiled.is_valid, "a" * 40_000)
    # A long key is read too (by `propertyNames` and `patternProperties`).
    keyed = _engine(budget).compile({"propertyNames": schema})
    assert keyed.is_valid({"a" * 8_000: 1})
    _refused(keyed.is_valid, {"a" * 40_000: 1})
    assert reading_counts({"patternProperties": {"^a": {}, "^b": {}}}, Dialect.DRAFT2020_12) == [
        0,
        reading_rate("^a") + reading_rate("^b"),
    ]


def test_a_recursive_schema_weighs_the_whole_instance() -> None:
    schema = {"$defs": {"node": {**_tower(10, 30), "items": {"$ref": "#/$defs/node"}}}, "$ref": "#/$defs/node"}
    compiled = _engine().compile(schema)
    assert compiled.guard is not None and compiled.guard.recursive
    narrow: Any = 1
    for _ in range(100):
        narrow = [narrow, 2]  # 300 values, 3 on the widest level
    assert compiled.is_valid(narrow)
    deep: Any = 1
    for _ in range(200):
        deep = [deep, *range(20)]  # 4,201 values, at most 21 on one level
    # Some 311 subschemas a value: 3,215 values in all are within the budget, not 4,201.
    _refused(compiled.is_valid, deep)


def test_tool_calls_and_results_are_weighed() -> None:
    tower = AMPLIFIERS["cleared"]
    tools = engine.compile_tools(
        [
            {"name": "t", "inputSchema": {"type": "object", "properties": {"xs": tower}}, "outputSchema": {
                "type": "object", "properties": {"xs": tower}}},
        ],
        engine=_engine(),
    )  # fmt: skip
    small, large = {"xs": [1] * 200}, {"xs": [1] * 5_000}
    assert tools.validate_arguments("t", small) == small
    assert tools.validate_arguments("t", msgspec.json.encode(small)) == small
    _refused(tools.validate_arguments, "t", large)
    _refused(tools.validate_arguments, "t", msgspec.json.encode(large))
    result = {"content": [], "structuredContent": large}
    _refused(tools.validate_result, "t", msgspec.json.encode(result))
    _refused(tools.validate_result, "t", result)
    _refused(tools.validate_structured, "t", large)
    assert tools.validate_structured("t", small) == small


def _past_64_bits(value: Any) -> bool:
    """Whether ``value`` holds an integer jsonschema-rs holds as its digits (past 64 bits)."""
    return bool(large_integers(value, 63))


def _hash_alike(value: Any) -> bool:
    """Whether two integers past 2^53 in ``value`` round to one double."""
    stack, seen = [value], set()
    while stack:
        item = stack.pop()
        if type(item) is int and item.bit_length() > 53:
            key = float(item) if item.bit_length() < 1024 else None
            if key in seen:
                return True
            seen.add(key)
        elif type(item) is dict:
            stack += item.values()
        elif type(item) is list:
            stack += item
    return False


def test_what_applies_few_subschemas_to_a_value_is_never_weighed() -> None:
    # With no work at all allowed, every corpus schema answers on its probes as with the default
    # budget: none applies more than AMPLIFYING subschemas to one value.
    starved, default = _engine(0), _engine(10**8)
    checked = 0
    for case in corpus():
        try:
            compiled, reference = starved.compile(case.schema), default.compile(case.schema)
        except engine.SchemaRejected:
            continue
        for probe in case.instances:
            try:
                expected = reference.is_valid(probe)
            except engine.DecodeError:
                continue  # not a JSON value within the bounds (an integer past 64 bits for some)
            try:
                answer = compiled.is_valid(probe)
            except engine.DecodeError as refused:  # more than no work: a pair under `uniqueItems`,
                # or characters read by a pattern that may be in many states at once
                thrashes = not all(map(reads_linearly, _patterns(case.schema)))
                compared = "past 64 bits" in refused.message and _past_64_bits(probe)
                assert thrashes or compared or ("uniqueItems" in refused.message and _hash_alike(probe)), case.id
                continue
            assert answer == expected, case.id
            checked += 1
    assert checked > 10_000
    # A thousand properties: each member meets one of them.
    members = {"properties": {f"p{i}": {"type": "integer", "minimum": 0} for i in range(1_000)}}
    assert starved.compile(members).is_valid({f"p{i}": i for i in range(1_000)})
    wide = {"type": "array", "items": _tower(16, 16)}  # 256 minimums and the tower's 17 allOf
    assert starved.compile({"type": "array", "items": _tower(15, 15)}).is_valid([1] * 10_000)
    _refused(starved.compile(wide).is_valid, [1])


def test_level_weights() -> None:
    # What each level weighs, and the characters its strings and keys hold (keys on the level of
    # their object's values).
    assert list(level_weights(5)) == [(1, 0)]
    assert list(level_weights("x" * 17)) == [(3, 17)]
    assert list(level_weights({"a" * 16: ["y" * 8, 1], "b": None})) == [(1, 0), (2 + 2 + 2, 17), (2 + 1, 8)]
    assert list(level_weights([[], {}, [[1]]])) == [(1, 0), (3, 0), (1, 0), (1, 0)]


def _level_weights_one_by_one(instance: Any) -> list[tuple[int, int]]:
    """What :func:`level_weights` gives, value by value."""
    found, level, keys, key_characters = [], [instance], 0, 0
    while level:
        weight, characters, below = len(level) + keys, key_characters, []
        keys = key_characters = 0
        for value in level:
            if type(value) is str:
                characters += len(value.encode("utf-8", "surrogatepass"))
            elif type(value) is dict:
                keys += len(value)
                key_characters += sum(len(key.encode("utf-8", "surrogatepass")) for key in value)
                below += value.values()
            elif type(value) is list:
                below += value
        found.append((weight + (characters >> 3), characters))
        level = below
    return found


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(
    st.lists(
        st.one_of(st.text(max_size=12), st.integers(), st.floats(allow_nan=False), st.booleans(), st.none()),
        min_size=60,
        max_size=150,
    ),
    st.booleans(),
)
def test_a_wide_level_of_scalars_weighs_as_read_value_by_value(values: list[Any], nested: bool) -> None:
    # A level of more than 64 scalars is read by its types, in C: the same weights.
    instance = {"k\u00e9y": values} if nested else values
    assert list(level_weights(instance)) == _level_weights_one_by_one(instance)
    strings = [value for value in values if type(value) is str]
    assert list(level_weights(strings)) == _level_weights_one_by_one(strings)


_CONTAINER = st.recursive(
    st.one_of(st.text(max_size=6), st.integers(), st.booleans(), st.none()),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=4), inner, max_size=4)),
    max_leaves=6,
)


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.lists(_CONTAINER, min_size=65, max_size=80), st.booleans())
def test_a_wide_level_of_containers_weighs_as_read_value_by_value(values: list[Any], shared: bool) -> None:
    # A level of more than 64 values holding objects or arrays is read by its types, in C too.
    instance = [values[0]] * 100 + values if shared else values
    assert list(level_weights(instance)) == _level_weights_one_by_one(instance)
    assert list(level_weights({"k\u00e9y": instance})) == _level_weights_one_by_one({"k\u00e9y": instance})


def test_only_the_levels_a_schema_reaches_are_weighed() -> None:
    # 1,000 subschemas applied to the root alone: a million items meet none of them.
    compiled = _engine().compile(_tower(20, 50))
    assert compiled.is_valid([1] * 1_000_000)
    assert not compiled.is_valid(-(10**6))
    # Under `properties`, they apply to one member's value (level 1): a wide array elsewhere in
    # the object is on level 2, which no subschema reaches; the level's other members weigh (the
    # estimate is by level, not by member).
    shallow = _engine().compile({"properties": {"n": _tower(20, 50)}})
    assert shallow.is_valid({"n": 5, "other": [[1] * 100_000]})
    _refused(shallow.is_valid, {"n": 5, **{f"k{i}": i for i in range(2_000)}})


def test_depth_counts() -> None:
    draft = Dialect.DRAFT2020_12
    assert depth_counts(True, draft) == [0]  # a boolean subschema costs nothing
    assert depth_counts({"type": "object"}, draft) == [1]
    two = {"properties": {"a": {"items": {"type": "string"}}, "b": True}, "allOf": [{}, {"not": {}}]}
    assert depth_counts(two, draft) == [4, 1, 1]  # a member meets one of `properties`
    assert depth_counts({"allOf": [True, False, {"not": True}]}, draft) == [2]
    every = {"properties": {"a": {}, "b": {}}, "additionalProperties": {}, "patternProperties": {"x": {}, "y": {}}}
    assert depth_counts(every, draft) == [1, 6]  # each pattern tried on each key, and its subschema
    assert depth_counts({"prefixItems": [{}, {"items": {}}], "items": {"not": {}}}, draft) == [1, 3, 1]
    branches = {"allOf": [{"properties": {"a": {}}}, {"properties": {"a": {"not": {}}, "b": {}}}]}
    assert depth_counts(branches, draft) == [3, 3]  # each branch's widest member, added up
    # A definition is counted where each reference inlines it, not where it is written.
    referred = {"$defs": {"d": {"items": {}}}, "items": {"$ref": "#/$defs/d"}, "allOf": [{"$ref": "#/$defs/d"}]}
    assert depth_counts(referred, draft) == [3, 3, 1]
    # Two triggers looked up, one name required, one subschema and the root.
    assert depth_counts({"dependencies": {"a": ["b"], "c": {"items": {}}}}, Dialect.DRAFT7) == [5, 1]
    assert depth_counts({"items": [{}, {"items": {}}]}, Dialect.DRAFT7) == [1, 1, 1]
    # A reference elsewhere, a dynamic one, a new base: not counted (every level is weighed).
    assert depth_counts({"$ref": "https://example.com/s"}, draft) is None
    assert depth_counts({"items": {"$ref": "#anchor"}}, draft) is None
    assert depth_counts({"$dynamicRef": "#meta"}, draft) is None
    assert depth_counts({"items": {"$id": "https://example.com/x", "$ref": "#/a"}}, draft) is None
    assert depth_counts({"$ref": "#/$defs/missing"}, draft) is None


def test_an_enum_compared_member_by_member_weighs_by_its_members() -> None:
    # jsonschema-rs compares a number with each member of such an enum in turn (1-2 us a member).
    floats = [i + 0.5 for i in range(300)]
    compiled = _engine().compile({"type": "array", "items": {"enum": floats}})
    assert compiled.is_valid([299.5] * 10) and not compiled.is_valid([1.0])
    _refused(compiled.is_valid, [299.5] * 20)  # 20 values of 300 number comparisons each: 1.2 million
    _refused(compiled.decode, msgspec.json.encode([299.5] * 20))
    mixed = _engine().compile({"type": "array", "items": {"enum": [*range(150), "x", None, {"a": 1}]}})
    assert mixed.is_valid([None] * 100)
    # Integers past 64 bits are compared in turn too.
    big = _engine().compile({"type": "array", "items": {"enum": [2**70 + i for i in range(300)]}})
    _refused(big.is_valid, [5] * 20)
    # An array or object member costs what it holds: a comparison reads up to the shorter side.
    lists = [[*range(999), i] for i in range(50)]  # 50 members of 1,000 values: some 250,000 a value
    long = _engine().compile({"type": "array", "items": {"enum": lists}})
    assert long.is_valid([lists[-1]] * 3)
    _refused(long.is_valid, [lists[-1]] * 5)


def test_an_enum_looked_up_is_never_weighed() -> None:
    # Strings only, or integers only: jsonschema-rs looks the value up (an integer, in an enum of
    # integers; a float is compared with every member: `engine._floats`).
    starved = _engine(0)
    for enum in ([f"v{i}" for i in range(10_000)], list(range(-5_000, 5_000)), ['a"b', "c\\d", ""]):
        compiled = starved.compile({"type": "array", "items": {"enum": enum}})
        assert compiled.is_valid([enum[-1]] * 1_000)
        if type(enum[0]) is str:
            assert not compiled.is_valid([1.5])
        else:
            _refused(compiled.is_valid, [1.5])


def test_a_recursive_schema_counts_each_enum_once_a_value() -> None:
    floats = [i + 0.5 for i in range(300)]
    node = {"anyOf": [{"type": "array", "items": {"$ref": "#/$defs/n"}}, {"enum": floats}]}
    compiled = _engine().compile({"$defs": {"n": node}, "$ref": "#/$defs/n"})
    assert compiled.guard is not None and compiled.guard.recursive
    assert compiled.is_valid([[0.5], 1.5, [2.5, [3.5]]])  # 7 values of some 60,000 evaluations each
    _refused(compiled.is_valid, [0.5] * 20)


@pytest.mark.parametrize(
    ("document", "compared"),
    [
        ({"enum": ["a", 'q"uote', "back\\slash", "[]"]}, False),
        ({"enum": [1, -2, 10**17]}, False),
        ({"properties": {"enum": {"type": "string"}}}, False),  # a property named enum
        ({"description": 'the "enum":[1.5] keyword'}, False),  # in a string: escaped quotes
        ({"enum": []}, False),
        ({"enum": [1.5]}, True),
        ({"enum": [10**19]}, True),
        ({"enum": ["a", None]}, True),
        ({"enum": [1, "a"]}, True),
        ({"enum": [True, False]}, True),
        ({"enum": [{"a": 1}]}, True),
        ({"items": {"enum": ["a"]}, "allOf": [{"enum": [[1]]}]}, True),
        ({"const": 1.5}, False),  # a number with a fraction is found by the intake (see below)
    ],
)
def test_which_texts_may_compare_in_turn(document: dict[str, Any], compared: bool) -> None:
    # The compile-time gate reads the canonical text; a schema it passes keeps its backend's check.
    text = msgspec.json.encode(document, order="sorted")
    assert compares_in_turn(text) is compared


def _leaf(kind: str, n: int) -> dict[str, Any]:
    return {
        "minimum": {"minimum": -n},
        "maximum": {"maximum": 1000 + n},
        "type": {"type": ["integer", "string", "array", "object"]},
        "pattern": {"pattern": f"^(?:a|x{n})*$"},
        "enum": {"not": {"enum": [n + 0.5, None, "zz"]}},
    }[kind]


@st.composite
def _amplifiers(draw: st.DrawFn) -> dict[str, Any]:
    """An allOf tower of 1-30 x 1-30 leaves (1-10 x 1-30 with patterns), put at the root, under
    `items`, under a property, or in two nested `unevaluated*` scopes."""
    width, height = draw(st.integers(1, 30)), draw(st.integers(1, 30))
    kinds = draw(st.lists(st.sampled_from(["minimum", "maximum", "type", "pattern", "enum"]), min_size=1, max_size=3))
    if "pattern" in kinds:  # two copies of 300 patterns at most: within the 10,000 steps all of them may take
        width = min(width, 10)
    tower = {
        "allOf": [
            {"allOf": [_leaf(kinds[(i + j) % len(kinds)], i * height + j) for j in range(height)]} for i in range(width)
        ]
    }
    where = draw(st.sampled_from(["root", "items", "property", "referred", "scoped"]))
    if where == "scoped":  # evaluated again for the scope, each key against what it evaluated
        scoped = {"anyOf": [{"properties": {"p": tower, "q": True}}, {"items": tower}], "unevaluatedProperties": False}
        return {"anyOf": [scoped, {"required": ["r"]}], "unevaluatedProperties": {"type": "integer"}}
    if where == "items":
        return {"type": "array", "items": tower}
    if where == "property":
        return {"properties": {"p": tower, "q": {"items": tower}}}
    if where == "referred":
        return {"$defs": {"t": tower}, "items": {"$ref": "#/$defs/t"}, "properties": {"p": {"$ref": "#/$defs/t"}}}
    return tower


_VALUES = st.one_of(st.integers(-5, 5), st.just("a" * 20), st.just("b"), st.just(1.5), st.none())
_INSTANCES = st.one_of(
    _VALUES,
    st.lists(_VALUES, max_size=200),
    st.fixed_dictionaries({}, optional={"p": _VALUES, "q": st.lists(_VALUES, max_size=50), "r": _VALUES}),
)


@given(_amplifiers(), _INSTANCES, st.sampled_from([0, 1_000, 50_000, 10**8]))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_weighed_check_refuses_or_answers_as_the_reference(schema: dict[str, Any], instance: Any, work: int) -> None:
    # Within the budget every way of handing the instance in gets the reference's answer; over it,
    # every way gets the same refusal.
    compiled = _engine(work).compile(schema)
    expected = is_valid_reference(schema, instance)
    answers = []
    for call, value in ((compiled.is_valid, instance), (compiled.decode, msgspec.json.encode(instance))):
        try:
            result = call(value)
        except engine.DecodeError as refused:
            assert refused.reason == engine.DecodeReason.TOO_LARGE and "max_validation_work" in refused.message
            answers.append("too-large")
        except engine.ValidationFailed:
            answers.append(False)
        else:
            answers.append(True if call is compiled.decode else result)
    assert answers[0] == answers[1]
    assert answers[0] in ("too-large", expected)
    event("refused" if answers[0] == "too-large" else "answered")
    if work == 10**8:  # these instances are small: the default budget takes them all
        assert answers[0] == expected


def test_an_unevaluated_keyword_weighs_its_in_place_subschemas_on_each_child() -> None:
    # 250 anyOf branches of one property each: jsonschema-rs read every branch's annotations for
    # each of an object's 250 members (740 us an object), and evaluates each branch again to
    # know what it evaluated. Each branch: itself and its `required` on the object (2), its
    # property on one member (1); marking one: itself, and each key looked up (1 and 1). The
    # scope: its own 1 and the branches' 500, and marking: itself, each branch again and marked.
    branches = [{"properties": {f"p{i}": {"type": "integer"}}, "required": [f"p{i}"]} for i in range(250)]
    schema = {"type": "array", "items": {"anyOf": branches, "unevaluatedProperties": False}}
    assert depth_counts(schema, Dialect.DRAFT2020_12) == [1, 501 + (1 + 250 * 3), 250 + (1 + 250 * 2)]
    compiled = _engine().compile(schema)
    member = {f"p{i}": i for i in range(250)}
    assert compiled.is_valid([member])
    _refused(compiled.is_valid, [member] * 10)


@pytest.mark.parametrize(
    "keyword", ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "const"]
)
def test_a_numeric_keyword_with_a_fraction_weighs_400(keyword: str) -> None:
    # jsonschema-rs compares with an operand that has a fraction in 1.6-3.7 us (`minimum: 0.5`,
    # `multipleOf: 0.01`, `const: 1.5`), with an integral one in under 0.1 us. 100 of them, well
    # under 256 subschemas, are weighed: some 40,000 evaluations a value.
    fractions = {"type": "array", "items": {"anyOf": [{keyword: i + 0.25} for i in range(100)]}}
    compiled = _engine().compile(fractions)
    compiled.is_valid([1] * 20)  # within the budget: answered
    _refused(compiled.is_valid, [1] * 30)
    integral = {"type": "array", "items": {"anyOf": [{keyword: float(i + 1)} for i in range(100)]}}
    if keyword == "multipleOf":  # against a huge float any operand is slow: 3-4 us at 1e305
        _refused(_engine(0).compile(integral).is_valid, [1])
    else:
        _engine(0).compile(integral).is_valid([1] * 1_000)  # 1.0 has no fraction: never weighed


def test_a_small_divisor_weighs_the_digits_it_shifts() -> None:
    # `multipleOf: 5e-324` divides in 14-18 us a value (34 us against an integer of 300 digits),
    # where 0.01 takes some 3: 200,000 floats (4.9 MB) took 8.9 s, weighed as 400 evaluations each.
    from engine._comparisons import comparisons as _comparisons

    assert _comparisons({"multipleOf": 0.01}) == _comparisons({"multipleOf": 0.5}) == 400
    assert _comparisons({"multipleOf": 1e-10}) == 400 + 40 * 10
    assert _comparisons({"multipleOf": 5e-324}) == 400 + 40 * 323
    tiny = _engine(100_000_000).compile({"type": "array", "items": {"multipleOf": 5e-324}})
    _refused(tiny.is_valid, [1.5] * 10_000)  # 130 million evaluations
    assert tiny.is_valid([1.5] * 2_000)
    assert _engine(100_000_000).compile({"type": "array", "items": {"multipleOf": 0.01}}).is_valid([1.5] * 10_000)


DRAFT7 = "http://json-schema.org/draft-07/schema#"
# Costs an object pays whatever its subschemas weigh: every trigger of a dependency is looked up,
# every pattern tried on every key, content read as its media type (2,000 of the first kinds on
# 600,000 empty objects, or on 170,000 keys, took jsonschema-rs 2.5-9 s).
WIDE_ENTRIES = {
    "dependentRequired": {"items": {"dependentRequired": {f"p{k}": ["x"] for k in range(400)}}},
    "dependentSchemas true": {"items": {"dependentSchemas": {f"p{k}": True for k in range(400)}}},
    "dependencies names": {"$schema": DRAFT7, "items": {"dependencies": {f"p{k}": ["x"] for k in range(400)}}},
    "dependencies false": {"$schema": DRAFT7, "items": {"dependencies": {f"p{k}": False for k in range(400)}}},
    "required": {"items": {"required": [f"p{k}" for k in range(400)]}},
    "patternProperties true": {"items": {"patternProperties": {f"^q{k}$": True for k in range(400)}}},
}


@pytest.mark.parametrize("name", list(WIDE_ENTRIES))
def test_entries_weigh_whatever_their_subschemas_weigh(name: str) -> None:
    compiled = _engine().compile(WIDE_ENTRIES[name])
    small, large = [{"a": 1}] * 20, [{"a": 1}] * 5_000
    compiled.is_valid(small)  # answered
    _refused(compiled.is_valid, large)
    _refused(compiled.decode, msgspec.json.encode(large))


def test_content_read_as_a_media_type_weighs_per_byte() -> None:
    # Draft 7 asserts `contentMediaType`: each of 40 branches parsed a 2 MB string (2.9 s in all).
    schema = {"$schema": DRAFT7, "allOf": [{"contentMediaType": "application/json", "minLength": k} for k in range(40)]}
    compiled = _engine().compile(schema)
    assert compiled.is_valid(msgspec.json.encode([1] * 50).decode())
    _refused(compiled.is_valid, msgspec.json.encode([1] * 50_000).decode())
    # 2020-12 annotates content only: nothing to weigh.
    annotated = _engine(0).compile({"allOf": [{"contentMediaType": "application/json"} for _ in range(40)]})
    assert annotated.is_valid("not json" * 10_000)


def test_which_schemas_are_looked_at() -> None:
    draft = Dialect.DRAFT2020_12

    def looked(schema: Any, dialect: Dialect = draft) -> bool:
        from engine._intake import load_schema

        intake = load_schema(schema, engine.Limits())
        assert intake.canonical is not None
        counts = (intake.values, intake.widest, intake.containers, intake.fractions)
        return bool(weighs_more(intake.canonical, counts, dialect, schema) & LOOK)

    assert not looked({"type": "object", "properties": {"a": {"type": "integer", "minimum": 0, "maximum": 1.0}}})
    assert looked({"type": "number", "maximum": 1.5})  # a fraction
    assert looked({"default": 0.5})  # anywhere: looked at once, nothing weighed after
    assert looked({"required": [f"p{k}" for k in range(300)]})  # a container past 256
    assert not looked({"required": [f"p{k}" for k in range(200)]})
    assert looked({"contentMediaType": "application/json"}, Dialect.DRAFT7)
    assert not looked({"contentMediaType": "application/json"})
    assert looked({"enum": [1, None]})
    # A `const` array or object, wherever it is; not a string that spells a bracket.
    assert looked({"properties": {"a": {"const": "x"}, "b": {"const": [1]}}})
    assert looked({"properties": {"a": {"const": 1}, "b": {"const": {}}}})
    assert not looked({"properties": {"a": {"const": "["}, "b": {"const": "{"}, "c": {"const": None}}})
    assert looked({"properties": {"const": {"type": "object"}}})  # a property so named: the text cannot tell
    assert looked({"multipleOf": 3})
    # A pattern that may not be read one state at a time; a property named `pattern` is no pattern.
    assert looked({"properties": {"a": {"pattern": "^(a|ab)*c$"}}})
    assert not looked({"properties": {"a": {"pattern": "^[a-z]{1,8}$"}}})
    assert not looked({"properties": {"pattern": {"type": "string"}}})


def test_a_schema_the_guard_cleared_is_weighed_alike() -> None:
    # A cleared schema's text spells no pattern key, so `weighs_more` skips that search for it:
    # the answer is the same on every corpus schema, whichever way it is asked.
    from engine._guard import cleared
    from engine._intake import load_schema

    limits, draft, asked = engine.Limits(), Dialect.DRAFT2020_12, 0
    for case in corpus():
        intake = load_schema(case.schema, limits)
        if intake.canonical is None or not isinstance(intake.schema, dict):
            continue
        counts = (intake.values, intake.widest, intake.containers, intake.fractions)
        text, depth = intake.canonical, intake.size.depth
        if cleared(intake.schema, text, depth, *counts[:3], draft, limits):
            asked += 1
            assert weighs_more(text, counts, draft, intake.schema, cleared=True) == weighs_more(
                text, counts, draft, intake.schema
            ), case.id
    assert asked > 400


def test_a_short_instance_is_not_walked() -> None:
    # Its msgpack length bounds what its levels weigh: 1,000 required names (1,001 evaluations an
    # object) against one object of 1,000 members is far under the budget, whatever its shape.
    names = [f"p{i}" for i in range(1_000)]
    compiled = engine.Engine(engine.EngineConfig(cache_size=0)).compile({"type": "object", "required": names})
    member = dict.fromkeys(names, 1)
    assert compiled.is_valid(member)
    walked: list[Any] = []
    import engine._work as work

    original = work.level_weights
    try:
        work.level_weights = lambda instance: walked.append(instance) or original(instance)  # type: ignore[assignment]
        assert compiled.is_valid(member)
    finally:
        work.level_weights = original
    assert walked == []


def test_what_the_root_alone_meets_is_weighed_by_the_root_alone() -> None:
    # A long `required` at the root: one value meets 1,000 evaluations, the rest one or two each.
    # Nothing is encoded or walked to bound the instance's length (a 1,000-property call paid a
    # msgpack pass, 14% of it), and a string at the root still weighs its characters.
    import engine._work as work

    names = [f"p{i}" for i in range(1_000)]
    compiled = _engine().compile({"properties": dict.fromkeys(names, {"type": "string"}), "required": names})
    packed: list[Any] = []
    original = work._packed
    try:
        work._packed = lambda instance: packed.append(instance) or original(instance)  # type: ignore[assignment]
        assert compiled.is_valid(dict.fromkeys(names, "x"))
        assert not compiled.is_valid(dict.fromkeys(names[1:], "x"))
        assert compiled.is_valid([{"p0": 1}] * 100_000)  # not an object: each item meets nothing
    finally:
        work._packed = original
    assert packed == []
    lengths = [{"allOf": [{"maxLength": 10**9 + 100 * i + j} for j in range(100)]} for i in range(10)]
    tower = _engine().compile({"allOf": lengths})  # 1,010 subschemas meet a string at the root
    assert tower.is_valid("x" * 1_000)
    _refused(tower.is_valid, "x" * 100_000)  # each evaluation once more per 8 characters


def test_a_cleared_schema_is_counted_no_higher_than_its_subschemas_in_all() -> None:
    # A schema the guard cleared is first weighed by its subschemas in all, each as heavy as its
    # heaviest object, and its levels counted only for an instance that estimate does not clear:
    # sound only if the levels never count more, which every cleared corpus schema shows.
    from engine._guard import cleared
    from engine._intake import load_schema
    from engine._levels import HASH
    from engine._work import _counts, _heaviest, _weigh

    limits, draft, asked = engine.Limits(), Dialect.DRAFT2020_12, 0
    shapes = [
        {"type": "array", "items": {"uniqueItems": True, "items": {"uniqueItems": True, "enum": [[1], [2, 3]]}}},
        {"properties": {f"p{i}": {"properties": {"q": {"const": [i, {"k": i}]}}} for i in range(300)}},
        {"items": {"items": {"items": {"dependentRequired": {f"k{i}": ["a", "b"] for i in range(100)}}}}},
    ]
    for schema in [case.schema for case in corpus()] + shapes:
        intake = load_schema(schema, limits)
        if intake.canonical is None or not isinstance(intake.schema, dict):
            continue
        counts = (intake.values, intake.widest, intake.containers, intake.fractions)
        expansion = cleared(intake.schema, intake.canonical, intake.size.depth, *counts[:3], draft, limits)
        counted = _counts(intake.schema, draft, _weigh, limits.max_instance_depth + 1, 1 << 62)
        if not expansion or counted is None:
            continue
        asked += 1
        per_value = expansion * (1 + _heaviest(intake.schema, _weigh))
        hashing = HASH * per_value if b'"uniqueItems":true' in intake.canonical else 0
        assert max(counted[0]) + max(counted[1]) <= per_value + hashing * limits.max_instance_depth, schema
        assert max(counted[0][:1]) <= per_value or hashing  # the root alone
    assert asked > 400


def test_a_cleared_schema_counts_its_levels_only_for_an_instance_that_needs_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import engine._work as work

    counted: list[int] = []
    real = work._counts
    monkeypatch.setattr(work, "_counts", lambda *args: counted.append(1) or real(*args))
    inner = {"properties": {f"q{j}": {"type": "integer"} for j in range(20)}}
    wide = {"type": "array", "items": {"properties": {f"p{i}": inner for i in range(20)}}}  # 422 subschemas
    compiled = _engine(100_000_000).compile(wide)
    assert compiled.guard is not None and compiled.guard.measured["max_ref_expansion"] > AMPLIFYING
    assert compiled.is_valid([{"p1": {"q1": 1}}] * 10) and not counted  # the estimate clears it
    # Counted once, then kept, by each weigher: what a value meets, and a value long enough for
    # its count of values to weigh (the size of its msgpack pass).
    assert compiled.is_valid([{"p1": {"q1": 1}}] * 100_000) and counted == [1, 1]
    assert compiled.is_valid([{"p1": {"q1": 1}}] * 100_001) and counted == [1, 1]

"""The counts that weigh an instance follow references into the registry's resources by URI, each
resource its own document, as they follow a JSON pointer within the schema: a schema whose
definitions sit in a registry weighs what the same schema with them inline weighs. Before, any
registry made every subschema count at every level, as heavy as the heaviest object anywhere: 200
uint256 amounts (16 KB) beside an `enum` of 300 chain ids were refused, which raw jsonschema-rs
checks in 0.4 ms.

Where the count might read a reference otherwise than the backends do, it does not count: a
resource in another dialect, one whose own ``$id`` moves its base, two documents under one URI
spelled two ways, a dynamic reference beside a registry, a relative reference from a base that is
not hierarchical. Integers past 64 bits are weighed by what their level of the instance meets."""

from __future__ import annotations

import json
import random
from typing import Any

import jsonschema_rs
import msgspec
import pytest

import engine
from engine._dialect import Dialect, detect_dialect
from engine._levels import level_counts
from engine._numbers import comparisons_met
from engine._work import _weigh
from tests.corpus import corpus
from tests.guard._weighed import refused_at_once

D2020 = Dialect.DRAFT2020_12
TYPES = "https://example.com/types.json"
DEFS = {
    "uint256": {"type": "integer", "minimum": 0, "maximum": 2**256 - 1},
    "chain": {"type": "integer", "enum": list(range(1, 301))},
}
HEAVY = {"enum": [k + 0.5 for k in range(9_990)] + [9]}


def _engine() -> engine.Engine:
    return engine.Engine(engine.EngineConfig(cache_size=0))


def _transfer(base: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "to": {"type": "string"},
            "amounts": {"type": "array", "items": {"$ref": f"{base}#/$defs/uint256"}},
            "chainId": {"$ref": f"{base}#/$defs/chain"},
        },
    }


def _amounts(count: int, digits: int) -> bytes:
    amount = str(10 ** (digits - 1) + 12_345)
    return f'{{"to":"0x{"a" * 40}","chainId":137,"amounts":[{",".join([amount] * count)}]}}'.encode()


@pytest.mark.parametrize("where", ["inline", "registry"])
def test_amounts_meet_what_their_level_meets(where: str) -> None:
    if where == "inline":
        compiled = _engine().compile({**_transfer(""), "$defs": DEFS})
    else:
        compiled = _engine().compile(_transfer(TYPES), registry={TYPES: {"$defs": DEFS}})
    # 2,000 amounts of 77 digits: each meets its range (2 comparisons and its subschema), not the
    # 300 chain ids beside them (refused before, at 5.2e8 evaluations; raw: 4 ms).
    data = _amounts(2_000, 77)
    assert compiled.decode(data)["amounts"][0] == 10**76 + 12_345
    rust = jsonschema_rs.validator_for(_transfer(TYPES), registry=jsonschema_rs.Registry([(TYPES, {"$defs": DEFS})]))
    assert rust.is_valid(msgspec.json.decode(data))
    # 2,000 of 4,300 digits (each comparison some 0.7 ms raw): over the budget still.
    refused_at_once(compiled.decode, _amounts(2_000, 4_300))


def test_a_registry_reference_is_counted_where_it_leads() -> None:
    schema = {"type": "array", "items": {"$ref": "https://example.com/s/a.json"}}
    registry = {
        "https://example.com/s/a.json": {"allOf": [{"$ref": "b.json#/$defs/h"}]},  # relative to its own URI
        "https://example.com/s/b.json": {"$defs": {"h": HEAVY}},
    }
    compiled = _engine().compile(schema, registry=registry)
    refused_at_once(compiled.decode, msgspec.json.encode([9] * 2_000))
    assert compiled.is_valid([9] * 3) and not compiled.is_valid([8])
    counted = level_counts(schema, D2020, _weigh, 8, resources=registry)
    assert counted is not None and counted[0][1] > 1_000


def _split(schema: dict[str, Any], keyword: str, uri: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """``schema`` with its definitions moved into a registry resource at ``uri``, and the root's
    pointers into them made absolute; ``None`` where a reference inside them leads elsewhere."""
    defs = schema[keyword]
    prefix = f'"#/{keyword}/'
    if '"$ref":"#' in json.dumps(defs, separators=(",", ":")).replace(f'"$ref":{prefix}', ""):
        return None
    rest = {key: value for key, value in schema.items() if key != keyword}
    text = json.dumps(rest).replace(prefix, f'"{uri}#/{keyword}/')
    return json.loads(text), {uri: {keyword: defs}}


def _comparable(counts: Any) -> Any:
    return None if counts is None else (counts[0], counts[1])


def test_the_corpus_counts_alike_with_its_definitions_in_a_registry() -> None:
    split_count = 0
    for item in corpus():
        schema = item.schema
        for keyword in ("$defs", "definitions"):
            if type(schema) is not dict or type(schema.get(keyword)) is not dict:
                continue
            split = _split(schema, keyword, "https://example.com/defs.json")
            if split is None:
                continue
            root, registry = split
            dialect = detect_dialect(schema, D2020)
            inline = level_counts(schema, dialect, _weigh, 257)
            assert inline is not None, item.id
            assert _comparable(level_counts(root, dialect, _weigh, 257, resources=registry)) == inline, item.id
            met = comparisons_met(schema, {}, dialect, 257, 1, 1, 10**9)
            assert comparisons_met(root, registry, dialect, 257, 1, 1, 10**9) == met, item.id
            compiled, apart = _engine().compile(schema), _engine().compile(root, registry=registry)
            for instance in item.instances:
                assert apart.is_valid(instance) == compiled.is_valid(instance), item.id
            split_count += 1
    assert split_count >= 20


def _definitions(rng: random.Random, count: int) -> dict[str, Any]:
    """Definitions referring to later ones: in place, as items, as properties, with comparisons."""
    defs: dict[str, Any] = {}
    for at in range(count):
        later = [f"#/$defs/d{k}" for k in range(at + 1, count)]
        node: dict[str, Any] = {"minimum": rng.randrange(5)} if rng.random() < 0.5 else {"enum": [1, 2.5, "x"]}
        if later:
            picks = rng.sample(later, min(len(later), rng.randrange(1, 4)))
            node["allOf"] = [{"$ref": ref} for ref in picks[:-1]]
            node[rng.choice(["items", "additionalProperties", "not"])] = {"$ref": picks[-1]}
            if rng.random() < 0.3:
                node["properties"] = {"p": {"$ref": rng.choice(later)}, "q": {"uniqueItems": True}}
        defs[f"d{at}"] = node
    return defs


@pytest.mark.parametrize("seed", range(40))
def test_generated_definitions_count_alike_in_a_registry(seed: int) -> None:
    rng = random.Random(seed)
    schema = {"type": "array", "items": {"$ref": "#/$defs/d0"}, "$defs": _definitions(rng, rng.randrange(2, 12))}
    split = _split(schema, "$defs", "urn:example:defs") if seed % 2 else None
    if split is None:  # references within the definitions stay as they are: absolute in the root
        root = json.loads(json.dumps(schema).replace('"#/$defs/d0"', f'"{TYPES}#/$defs/d0"', 1))
        root.pop("$defs")
        registry = {TYPES: {"$defs": schema["$defs"]}}
    else:
        root, registry = split
    inline = level_counts(schema, D2020, _weigh, 30)
    assert inline is not None
    assert _comparable(level_counts(root, D2020, _weigh, 30, resources=registry)) == inline
    assert comparisons_met(root, registry, D2020, 30, 1, 1, 10**9) == comparisons_met(
        schema, {}, D2020, 30, 1, 1, 10**9
    )


_LIGHT = {"$defs": {"a": {"type": "integer"}}}


@pytest.mark.parametrize(
    ("schema", "registry"),
    [
        # A resource read in another dialect (its keywords mean other things there).
        (
            {"$ref": "https://e.com/a#/$defs/a"},
            {"https://e.com/a": {"$schema": "http://json-schema.org/draft-07/schema#", **_LIGHT}},
        ),
        # A resource whose own `$id` moves its base elsewhere.
        ({"$ref": "https://e.com/a#/$defs/a"}, {"https://e.com/a": {"$id": "https://e.com/b", **_LIGHT}}),
        # The schema's `$id` is a resource's URI: a backend may take either for the other.
        ({"$id": "https://e.com/a", "$ref": "#/$defs/a"}, {"https://e.com/a": _LIGHT}),
        # One URI spelled two ways.
        ({"$ref": "https://e.com/a#/$defs/a"}, {"https://e.com/a": _LIGHT, "HTTPS://E.COM:443/x/../a": _LIGHT}),
        ({"$ref": "https://e.com/a#/$defs/a"}, {"https://e.com/a": _LIGHT, "https://e.com/%61": _LIGHT}),
        # A dynamic reference beside a registry (its scope may cross documents).
        ({"$dynamicRef": "#/$defs/a", "$defs": {"a": {}}}, {"https://e.com/a": _LIGHT}),
        # Relative, from a root without a base of its own, or from a base that is no hierarchy.
        ({"$ref": "a#/$defs/a"}, {"a": _LIGHT}),
        ({"$ref": "urn:x:y"}, {"urn:x:y": {"$ref": "z#/$defs/a"}, "urn:x:z": _LIGHT, "z": _LIGHT}),
        # An embedded resource beside a registry: its URI may be a resource's spelled otherwise
        # (`E.com`), which a backend resolves to the embedded one.
        (
            {"items": {"$ref": "https://E.com/a#/$defs/a"}, "$defs": {"r": {"$id": "https://E.com/a", **_LIGHT}}},
            {"https://e.com/a": _LIGHT},
        ),
        # A resource the registry does not hold, and a pointer to nothing.
        ({"$ref": "https://e.com/b#/$defs/a"}, {"https://e.com/a": _LIGHT}),
        ({"$ref": "https://e.com/a#/$defs/b"}, {"https://e.com/a": _LIGHT}),
    ],
)
def test_a_registry_the_count_may_misread_is_not_counted(schema: Any, registry: Any) -> None:
    assert level_counts(schema, D2020, _weigh, 8, resources=registry) is None


def test_one_object_in_two_documents_is_not_counted() -> None:
    shared = {"items": {"$ref": "#/$defs/a"}}
    registry = {"https://e.com/a": {"$defs": {"a": {"type": "integer"}, "b": shared}}}
    schema = {"allOf": [shared, {"$ref": "https://e.com/a#/$defs/b"}], "$defs": {"a": HEAVY}}
    assert level_counts(schema, D2020, _weigh, 8, resources=registry) is None


def test_numbers_within_a_value_count_at_every_level_below() -> None:
    # The chain ids' `enum` meets the chain id alone; a `const` array and `uniqueItems` compare
    # the numbers within their value, at every level below their own.
    beside = {"properties": {"chain": {"enum": list(range(300))}, "amounts": {"items": {"minimum": 0}}}}
    assert comparisons_met(beside, {}, D2020, 8, 1, 1, 10**9) == [1, 301, 2]
    const = {"properties": {"a": {"const": [[1, 2.5], {"b": 3}]}}}
    assert comparisons_met(const, {}, D2020, 4, 1, 1, 10**9) == [1, 4, 3, 3]
    unique = {"items": {"uniqueItems": True}}
    assert comparisons_met(unique, {}, D2020, 4, 1, 1, 10**9) == [1, 8, 7, 7]
    # Each integer of 4,300 digits costs 144,753 evaluations a comparison: 100 of them two levels
    # below a `const` of 300 numbers, past the budget.
    schema = {"properties": {"a": {"const": [[k + 0.5 for k in range(300)]]}}}
    compiled = _engine().compile(schema)
    refused_at_once(compiled.decode, msgspec.json.encode({"a": [[10**4299] * 100]}))
    assert not compiled.is_valid({"a": [[10**40]]}) and compiled.is_valid({"a": [[k + 0.5 for k in range(300)]]})


@pytest.mark.parametrize(
    ("schema", "registry"),
    [
        (
            {"$ref": "https://e.com/a#/$defs/a"},
            {"https://e.com/a": {"$schema": "https://json-schema.org/draft/2020-12/schema", **_LIGHT}},
        ),
        ({"$ref": "https://e.com/a#/$defs/a"}, {"https://e.com/a": {"$id": "https://e.com/a", **_LIGHT}}),
        ({"$id": "https://e.com/r", "$ref": "a#/$defs/a"}, {"https://e.com/a": _LIGHT}),
        ({"$ref": "https://e.com/a#/$defs/a"}, {"https://e.com/a": _LIGHT, "https://e.com/b": _LIGHT}),
        ({"$ref": "urn:x:y"}, {"urn:x:y": {"$ref": "urn:x:z#/$defs/a"}, "urn:x:z": _LIGHT}),
    ],
)
def test_a_registry_read_as_the_backends_read_it_is_counted(schema: Any, registry: Any) -> None:
    # Beside each case above, the same registry without what makes it ambiguous.
    counted = level_counts(schema, D2020, _weigh, 8, resources=registry)
    assert counted is not None and counted[0][0] >= 2

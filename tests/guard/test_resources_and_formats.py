"""The work bound where the levels are not counted and where formats are asserted.

Where a reference leads to a resource the levels are not counted through (an embedded ``$id``,
or a registry's the count cannot follow), every subschema is counted at every level, each as heavy
as the heaviest object of the document and its resources (lists of names, dependencies, content
read as a media type, comparisons, asserted formats), and each may hash what is below it
(``uniqueItems``); a registry's resources the count follows are counted as the document is. A
format the engine asserts at a cost weighs that cost; ``format: regex`` pairs the named groups of
the string it reads. Each case below took jsonschema-rs seconds and was accepted before; a small
instance still gets the backend's answer.
"""

from __future__ import annotations

import random
import time
from typing import Any

import jsonschema_rs
import pytest

import engine
from tests.guard._weighed import refused_at_once

DRAFT7 = "http://json-schema.org/draft-07/schema#"


def _engine(**overrides: Any) -> engine.Engine:
    return engine.Engine(engine.EngineConfig(cache_size=0), **overrides)


def _triggers(count: int) -> dict[str, Any]:
    return {"type": "object", "dependentRequired": {f"k{i}": [] for i in range(count)}}


def test_triggers_in_an_embedded_resource_are_weighed() -> None:
    # 2,000 triggers looked up in each of 600,000 empty objects: 9.7 s raw.
    schema = {"type": "array", "items": {"$ref": "urn:o"}, "$defs": {"o": {"$id": "urn:o", **_triggers(2_000)}}}
    compiled = _engine().compile(schema)
    refused_at_once(compiled.is_valid, [{}] * 600_000)
    assert compiled.is_valid([{}] * 100) and not compiled.is_valid([{"k1": 1}, 2])


def test_triggers_in_a_registry_resource_are_weighed() -> None:
    schema = {"type": "array", "items": {"$ref": "urn:o"}}
    compiled = _engine().compile(schema, registry={"urn:o": _triggers(2_000)})
    refused_at_once(compiled.is_valid, [{}] * 600_000)
    assert compiled.is_valid([{}] * 100)
    # Fewer triggers than a value may meet unweighed: looked at once, and answered.
    light = _engine().compile(schema, registry={"urn:o": _triggers(20)})
    assert light.is_valid([{}] * 100_000)


def test_content_in_an_embedded_resource_is_weighed() -> None:
    # Draft 7 reads each string as JSON once per subschema that names a media type: 2.5 s raw.
    heavy = {"allOf": [{"contentMediaType": "application/json", "title": str(i)} for i in range(200)]}
    schema = {"$schema": DRAFT7, "items": {"$ref": "urn:o"}, "definitions": {"o": {"$id": "urn:o", **heavy}}}
    compiled = _engine().compile(schema)
    item = "[" + ",".join(["1"] * 50) + "]"
    refused_at_once(compiled.is_valid, [item] * 3_000)
    assert compiled.is_valid([item] * 10)


def test_hashing_below_each_level_of_an_embedded_resource_is_weighed() -> None:
    # Each level's `uniqueItems` hashes everything below it: 250 levels over 900,000 integers, 7.3 s raw.
    node = {"type": "array", "uniqueItems": True, "items": {"anyOf": [{"type": "integer"}, {"$ref": "#"}]}}
    compiled = _engine().compile({"$ref": "urn:u", "$defs": {"u": {"$id": "urn:u", **node}}})
    deep: Any = list(range(100_000))
    for level in range(249):
        deep = [deep, -1 - level]
    refused_at_once(compiled.is_valid, deep)
    assert compiled.is_valid([[1, 2], 3]) and not compiled.is_valid([1, 1])


@pytest.mark.parametrize("where", ["embedded", "registry"])
def test_a_pattern_reached_through_many_references_is_read_once_per_reference(where: str) -> None:
    # 200 references to one resource whose pattern reads each character at some 1.4 us
    # (non-deterministic as written): a string of 90,000 characters took 25 s, accepted, when the
    # resource's patterns were counted once each.
    pattern = {"type": "string", "pattern": "^[ab]*a[ab]{300}$"}
    schema: dict[str, Any] = {"allOf": [{"$ref": "urn:p"}] * 200}
    if where == "embedded":
        schema["$defs"] = {"p": {"$id": "urn:p", **pattern}}
        compiled = _engine().compile(schema)
    else:
        compiled = _engine().compile(schema, registry={"urn:p": pattern})
    # Random letters (a periodic string keeps the regex engine's states few: read fast).
    matching = "".join(random.Random(1).choices("ab", k=90_000)) + "a" + "b" * 300
    refused_at_once(compiled.is_valid, matching)
    assert compiled.is_valid("a" + "b" * 300) and not compiled.is_valid("b" * 301)


@pytest.mark.parametrize("dialect", [DRAFT7, "http://json-schema.org/draft-06/schema#"])
def test_an_encoding_alone_is_weighed_where_the_dialect_decodes_it(dialect: str) -> None:
    # Draft 7 decodes `contentEncoding` alone, once a subschema: 250 of them on a 60 MB base64
    # string took 10 s, unweighed at 251 subschemas (only `contentMediaType` had it looked at).
    schema = {"$schema": dialect, "allOf": [{"contentEncoding": "base64", "minLength": i} for i in range(250)]}
    compiled = _engine().compile(schema)
    refused_at_once(compiled.is_valid, "QUJD" * 1_000_000)
    assert compiled.is_valid("QUJD" * 100)


def test_draft7_content_is_not_refused_at_a_few_megabytes() -> None:
    # Base64 read as JSON costs 60-72 ns a byte: 3 MB takes 0.13 s raw, and is answered.
    import base64

    schema = {"$schema": DRAFT7, "contentEncoding": "base64", "contentMediaType": "application/json"}
    text = base64.b64encode(("[" + ",".join(["1"] * 1_500_000) + "]").encode()).decode()
    assert len(text) > 3 * 2**20
    assert _engine().compile(schema).is_valid(text)


IDN = {"type": "array", "items": {"allOf": [{"format": "idn-hostname"}] * 250}}


def test_costly_formats_weigh_what_they_cost_where_asserted() -> None:
    # 250 `idn-hostname` checks on each of 50,000 short hosts: 10 s raw (100 KB: 2-3 s).
    hosts = ["\u00c3"] * 50_000
    asserted = _engine(formats="assert")
    refused_at_once(asserted.compile(IDN).is_valid, hosts)
    emails = {"type": "array", "items": {"allOf": [{"format": "idn-email"}] * 3}}  # about 1 us each
    refused_at_once(asserted.compile(emails).is_valid, ["a@b"] * 1_000_000)
    assert asserted.compile(IDN).is_valid(hosts[:100])
    assert not asserted.compile(IDN).is_valid(["-"])
    # Annotated, a format costs nothing; a cheap one asserted is not weighed either.
    assert _engine().compile(IDN).is_valid(hosts)
    cheap = {"type": "array", "items": {"allOf": [{"format": "date"}] * 250}}
    assert asserted.compile(cheap).is_valid(["2026-12-06"] * 50_000)


@pytest.mark.parametrize("form", ["uri-template", "uri-reference", "iri", "regex", "date-time", "json-pointer"])
def test_formats_that_read_every_byte_weigh_with_the_string_where_asserted(form: str) -> None:
    # 250 `uri-template` checks on one string of 16 MB: 4.4 s raw (1.1 ns a byte each), where 251
    # subschemas and no costly format kept the schema unweighed.
    schema = {"allOf": [{"format": form, "minLength": i} for i in range(250)]}
    asserted = _engine(formats="assert").compile(schema)
    refused_at_once(asserted.is_valid, "a" * 2_000_000)
    raw = jsonschema_rs.validator_for(schema, validate_formats=True)
    assert asserted.is_valid("a" * 10_000) is raw.is_valid("a" * 10_000)  # a short one is answered
    assert _engine().compile(schema).is_valid("a" * 2_000_000)  # annotated: nothing read, nothing weighed


def test_a_pattern_read_from_a_string_weighs_its_named_groups() -> None:
    # `format: regex` pairs each named group with every other: 100,000 groups took 8.5 s raw.
    schema = {"type": "string", "format": "regex"}
    groups = "".join(f"(?<n{i}>a)" for i in range(40_000))
    compiled = _engine(formats="assert").compile(schema)
    started = time.process_time()
    with pytest.raises(engine.DecodeError) as refused:
        compiled.is_valid(groups)
    assert refused.value.reason == engine.DecodeReason.TOO_LARGE and "format: regex" in refused.value.message
    assert time.process_time() - started < 0.5
    with pytest.raises(engine.DecodeError):
        compiled.decode(('"' + groups + '"').encode())
    few = "".join(f"(?<n{i}>a)" for i in range(100))
    assert compiled.is_valid(few) and not compiled.is_valid("(?<a>")
    assert _engine().compile(schema).is_valid(groups)  # annotated: never read as a pattern
    # Only what a string holds is counted: 60 is `<` in msgpack, not in JSON.
    items = _engine(formats="assert").compile({"items": {"anyOf": [{"type": "integer"}, schema]}})
    assert items.is_valid([60] * 50_000 + ["(?<a>b)"])


@pytest.mark.parametrize(
    ("schema", "registry", "instance"),
    [
        (
            {"items": {"$ref": "urn:o"}},
            {"urn:o": {"dependentRequired": {f"k{i}": ["z"] for i in range(300)}}},
            [{"k1": 1}, {}],
        ),
        ({"items": {"$ref": "urn:o"}}, {"urn:o": {"uniqueItems": True}}, [[1, 1], [2]]),
        ({"items": {"$ref": "urn:o"}}, {"urn:o": {"enum": [1.5, "a", [1]]}}, [1.5, "a", [1], 2]),
        ({"$ref": "urn:u", "$defs": {"u": {"$id": "urn:u", "uniqueItems": True}}}, None, [[1], [1]]),
    ],
)
def test_what_is_weighed_answers_as_the_reference(schema: Any, registry: Any, instance: Any) -> None:
    import jsonschema
    import referencing
    from referencing.jsonschema import DRAFT202012

    resources = [(uri, DRAFT202012.create_resource(document)) for uri, document in (registry or {}).items()]
    reference = jsonschema.Draft202012Validator(schema, registry=referencing.Registry().with_resources(resources))
    compiled = _engine().compile(schema, registry=registry)
    answers = [compiled.is_valid(value) for value in (instance, *instance)]
    assert answers == [reference.is_valid(value) for value in (instance, *instance)]
    assert False in answers  # each case holds an invalid value


def test_the_heaviest_object_is_found_without_weighing_every_one() -> None:
    # `_heaviest` weighs only the objects that hold a keyword the weights read: the same answer as
    # weighing every object, on every corpus schema, formats asserted or not.
    from engine._work import _heaviest, _weigh, _weigh_formats
    from tests.corpus import corpus

    def every(document: Any, weigh: Any) -> int:
        heaviest, stack = 0, [document]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                heaviest = max(heaviest, sum(weigh(node)))
                stack += node.values()
            elif isinstance(node, list):
                stack += node
        return heaviest

    weighed = 0
    for case in corpus():
        for weigh in (_weigh, _weigh_formats):
            found = _heaviest(case.schema, weigh)
            assert found == every(case.schema, weigh), case.id
            weighed += found > 0
    assert weighed > 100

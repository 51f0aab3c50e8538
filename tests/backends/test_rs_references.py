"""A reference the guard does not walk (under a keyword of another dialect) to a resource nobody
holds reaches jsonschema-rs, which names whichever missing resource its hash map yields first:
the refusal, its reason included, must be the same on every compile."""

from __future__ import annotations

from typing import Any

import pytest

import engine

DRAFT4 = "http://json-schema.org/draft-04/schema#"


def _outcomes(schema: Any, registry: dict[str, Any] | None = None, times: int = 40) -> set[tuple[str, str, str, str]]:
    seen = set()
    for _ in range(times):
        with pytest.raises(engine.SchemaRejected) as refused:
            engine.Engine(cache_size=0).compile(schema, registry=registry)
        refusal = refused.value
        seen.add((refusal.reason, refusal.message, str(refusal.details.get("uri")), refusal.location))
    return seen


@pytest.mark.parametrize(
    ("refs", "reason", "uri"),
    [
        # The first reference to the network, wherever it is, else the first other, in the order
        # of the canonical text.
        (["z.json", "other.json", "https://x.example/r", "a.json#/x"], "remote-ref", "https://x.example/r"),
        (["z.json", "other.json", "a.json#/x"], "unresolvable-ref", "z.json"),
        (["#/nowhere", "b.json", "https://x.example/r#/a", "http://y.example/s"], "remote-ref", "https://x.example/r"),
    ],
)
def test_the_same_refusal_every_time(refs: list[str], reason: str, uri: str) -> None:
    schema = {"$schema": DRAFT4, "prefixItems": [{"$ref": ref} for ref in refs]}
    [(said, message, named, _)] = _outcomes(schema)
    assert (said, named) == (reason, uri)
    assert repr(uri) in message


def test_a_resource_the_registry_holds_is_not_named() -> None:
    schema = {"$schema": DRAFT4, "prefixItems": [{"$ref": "https://x.example/held"}, {"$ref": "https://x.example/r"}]}
    [(reason, _, uri, _)] = _outcomes(schema, registry={"https://x.example/held": {"type": "string"}})
    assert (reason, uri) == ("remote-ref", "https://x.example/r")


@pytest.mark.parametrize(
    ("schema", "keyword", "location"),
    [
        ({"$defs": {"é": {"type": "integer"}}, "$ref": "#/$defs/é"}, "$ref", "/$ref"),
        (
            {"$defs": {"a b": {"type": "integer"}}, "properties": {"p": {"$ref": "#/$defs/a b"}}},
            "$ref",
            "/properties/p/$ref",
        ),
        ({"$id": "http://x.example/a b", "type": "integer"}, "$id", "/$id"),
    ],
)
def test_a_value_that_is_no_uri_is_an_invalid_schema_where_it_is(
    schema: dict[str, Any], keyword: str, location: str
) -> None:
    # It was `unresolvable-ref` at the root, in a sentence about `$ref` even for an `$id`.
    with pytest.raises(engine.SchemaRejected) as refused:
        engine.Engine(cache_size=0).compile(schema)
    assert refused.value.reason == "invalid-schema" and refused.value.location == location
    assert refused.value.message.startswith(f"{keyword} ") and "percent-encoded" in refused.value.message
    escaped = engine.compile({"$defs": {"é": {"type": "integer"}}, "$ref": "#/$defs/%C3%A9"})
    assert escaped.is_valid(1) and not escaped.is_valid("x")


@pytest.mark.parametrize(
    "uri",
    [
        "https://json-schema.org/draft/2020-12/meta/validation",
        "https://json-schema.org/draft/2020-12/schema",
        "https://json-schema.org/draft/2019-09/meta/core#",
        "http://json-schema.org/draft-07/schema#",
    ],
)
def test_a_registry_cannot_replace_a_published_meta_schema(uri: str) -> None:
    # Every backend reads the published meta-schemas from its own copy: a registry entry under one of
    # their URIs was walked by the guard (its refusals computed from it) and evaluated by none.
    with pytest.raises(engine.SchemaRejected) as refused:
        engine.Engine(cache_size=0).compile({"$ref": uri}, registry={uri: {"type": "integer"}})
    assert refused.value.reason == "invalid-schema" and refused.value.details["resource"] == uri
    assert engine.Engine(cache_size=0).compile({"$ref": "urn:x"}, registry={"urn:x": {"type": "integer"}}).is_valid(1)

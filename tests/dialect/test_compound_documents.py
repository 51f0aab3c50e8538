"""A compound document embeds resources that declare their own dialect (``$id`` and ``$schema``):
each is valid against its own meta-schema, not the root's (2020-12 core, 9.3.3). A 2020-12
document embedding a draft-07 resource with an array ``items`` was refused as invalid 2020-12
under the ``jsonschema`` and ``fastjsonschema`` backends, and compiled under ``auto``."""

from __future__ import annotations

from typing import Any

import pytest

import engine

DRAFT7 = "http://json-schema.org/draft-07/schema#"


def _compound(resource: dict[str, Any]) -> dict[str, Any]:
    embedded = {"$id": "http://x.example/d7", "$schema": DRAFT7, **resource}
    return {"$ref": "http://x.example/d7", "$defs": {"x": embedded}}


@pytest.mark.parametrize("backend", ["auto", "jsonschema-rs", "msgspec", "fastjsonschema", "jsonschema"])
def test_an_embedded_resource_is_checked_against_its_own_meta_schema(backend: str) -> None:
    schema = _compound({"items": [{"type": "integer"}], "additionalItems": False})
    try:
        compiled = engine.Engine(backend=backend, cache_size=0).compile(schema)
    except engine.SchemaRejected as refused:
        assert refused.reason == "unsupported-by-backend", refused  # a backend may decline it, not call it invalid
        return
    assert [compiled.is_valid(i) for i in ([1], [1, 2], ["a"])] == [True, False, False]


@pytest.mark.parametrize("backend", ["auto", "jsonschema"])
def test_an_embedded_resource_its_own_meta_schema_refuses_is_invalid(backend: str) -> None:
    with pytest.raises(engine.SchemaRejected) as refused:
        engine.Engine(backend=backend, cache_size=0).compile(_compound({"type": 5}))
    assert refused.value.reason == "invalid-schema"
    with pytest.raises(engine.SchemaRejected) as plain:  # an array `items` with no dialect of its own
        engine.Engine(backend=backend, cache_size=0).compile({"$defs": {"x": {"items": [{"type": "integer"}]}}})
    assert plain.value.reason == "invalid-schema"

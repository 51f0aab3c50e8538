"""A custom meta-schema whose ``$vocabulary`` requires format assertion: under ``formats =
"annotate"`` (the default) the schema is refused, as the specification asks of a required vocabulary
an evaluation does not apply; under ``"assert"`` the format is checked. It was compiled and every
string accepted."""

from __future__ import annotations

from typing import Any

import pytest

import engine

META = "https://meta.example/strict"
V2020 = "https://json-schema.org/draft/2020-12/vocab/"


def _meta(vocabulary: dict[str, bool], dialect: str = "https://json-schema.org/draft/2020-12/schema") -> dict[str, Any]:
    return {"$schema": dialect, "$id": META, "$vocabulary": vocabulary}


REQUIRING = {
    "2020-12 format-assertion": _meta(
        {V2020 + "core": True, V2020 + "applicator": True, V2020 + "format-assertion": True}
    ),
    "2019-09 format": _meta(
        {
            "https://json-schema.org/draft/2019-09/vocab/core": True,
            "https://json-schema.org/draft/2019-09/vocab/format": True,
        },
        "https://json-schema.org/draft/2019-09/schema",
    ),
}


@pytest.mark.parametrize("backend", ["auto", "jsonschema-rs", "msgspec"])
@pytest.mark.parametrize("meta", REQUIRING)
def test_a_required_format_assertion_is_refused_under_annotate(meta: str, backend: str) -> None:
    schema = {"$schema": META, "format": "email"}
    with pytest.raises(engine.SchemaRejected) as refused:
        engine.Engine(engine.EngineConfig(backend=backend)).compile(schema, registry={META: REQUIRING[meta]})
    assert refused.value.reason == "unsupported-dialect"
    assert "formats = 'assert'" in refused.value.message and refused.value.location == "/$schema"


@pytest.mark.parametrize("meta", REQUIRING)
def test_a_required_format_assertion_is_applied_under_assert(meta: str) -> None:
    schema = {"$schema": META, "format": "email"}
    compiled = engine.Engine(engine.EngineConfig(formats="assert")).compile(schema, registry={META: REQUIRING[meta]})
    assert not compiled.is_valid("x")
    assert compiled.is_valid("a@example.org")


def test_an_optional_format_assertion_is_an_annotation() -> None:
    meta = _meta({V2020 + "core": True, V2020 + "format-assertion": False})
    compiled = engine.compile({"$schema": META, "format": "email"}, registry={META: meta})
    assert compiled.is_valid("x")

"""Every real tool schema in bench_data/ compiles, or is refused exactly when its meta-schema says so."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

import engine

TOOLS = Path(__file__).parents[2] / "bench_data" / "tools"


def corpus() -> list[tuple[str, object]]:
    cases = []
    for path in sorted(TOOLS.glob("*.json")):
        for tool in json.loads(path.read_text()):
            for key in ("inputSchema", "outputSchema"):
                if tool.get(key) is not None:
                    cases.append((f"{path.stem}:{tool['name']}:{key}", tool[key]))
    return cases


CASES = corpus()


def meta_schema_accepts(schema: object) -> bool:
    # python-jsonschema is the oracle here, independent of the engine's own check.
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(cls.META_SCHEMA).is_valid(schema)


def test_corpus_is_large() -> None:
    assert len(CASES) > 600


@pytest.mark.parametrize(("name", "schema"), CASES, ids=[c[0] for c in CASES])
def test_real_schema(name: str, schema: object) -> None:
    eng = engine.Engine()
    if meta_schema_accepts(schema):
        compiled = eng.compile(schema)
        assert compiled.backend
    else:
        with pytest.raises(engine.SchemaRejected) as info:
            eng.compile(schema)
        assert info.value.reason == "invalid-schema"

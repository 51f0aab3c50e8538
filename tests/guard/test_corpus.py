"""Every real schema in bench_data/ (tools, recorded results, elicitation forms) still compiles
with the guard on at its defaults (or is refused as invalid-schema by its own meta-schema), with
room under every limit."""

from __future__ import annotations

from pathlib import Path

import pytest

import engine
from benchmarks.limits import schemas_in
from engine._dialect import Dialect, check_meta_schema, detect_dialect

DATA = Path(__file__).resolve().parents[2] / "bench_data"
TOOLS = [
    *sorted((DATA / "tools").glob("*.json")),
    DATA / "structured" / "tool-results.json",
    DATA / "elicitation" / "requested-schemas.json",
]
SCHEMAS = [item for path in TOOLS for item in schemas_in(path)]
ENGINE = engine.Engine(engine.EngineConfig.load(env={}))


def test_corpus_is_there() -> None:
    assert len(SCHEMAS) > 500


@pytest.mark.parametrize(("name", "schema"), SCHEMAS, ids=[name for name, _ in SCHEMAS])
def test_tool_schema_compiles(name: str, schema: object) -> None:
    try:
        compiled = ENGINE.compile(schema)
    except engine.SchemaRejected as refused:
        assert refused.reason == "invalid-schema", refused.message
        with pytest.raises(engine.SchemaRejected):
            check_meta_schema(schema, detect_dialect(schema, Dialect.DRAFT2020_12))
        return
    report = compiled.guard
    assert report is not None
    limits = engine.Limits()
    for limit, value in report.measured.items():
        # A real schema stays well inside every default (at least 4x headroom).
        assert value * 4 <= getattr(limits, limit), (limit, value)

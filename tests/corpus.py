"""Every schema in bench_data/ with the instances recorded or probed for it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH_DATA = Path(__file__).parents[1] / "bench_data"


@dataclass
class CorpusSchema:
    id: str
    schema: Any
    instances: list[Any] = field(default_factory=list)


def _probes(schema: Any) -> list[Any]:
    """Recorded examples and defaults, plus values of every JSON type, at the root and in each
    declared property: enough to exercise type, required, enum and nested checks."""
    values: list[Any] = [None, True, 0, 1, 1.0, -1, 2.5, "", "x", "2026-01-01", [], ["x"], {}, 10**20]
    probes = list(values)
    if isinstance(schema, dict):
        probes += [e for e in schema.get("examples", []) if e is not None]
        props = schema.get("properties")
        if isinstance(props, dict):
            names = list(props)
            for value in values:
                probes.append({name: value for name in names})
            for name, sub in props.items():
                if isinstance(sub, dict):
                    for key in ("default", "const"):
                        if key in sub:
                            probes.append({name: sub[key]})
                    for option in sub.get("enum", [])[:3]:
                        probes.append({name: option})
                    for example in sub.get("examples", [])[:3]:
                        probes.append({name: example})
            required = schema.get("required")
            if isinstance(required, list):
                probes.append({name: "x" for name in required})
                probes.append({name: 1 for name in required})
    return probes


def corpus() -> Iterator[CorpusSchema]:
    for path in sorted((BENCH_DATA / "tools").glob("*.json")):
        for i, tool in enumerate(json.loads(path.read_text())):
            name = tool.get("name", i)
            for key in ("inputSchema", "outputSchema"):
                if key in tool and tool[key] is not None:
                    yield CorpusSchema(f"{path.stem}/{name}/{key}", tool[key], _probes(tool[key]))
    for record in json.loads((BENCH_DATA / "structured" / "tool-results.json").read_text()):
        schema = record.get("outputSchema")
        if schema is None:
            continue
        result = record.get("result") or {}
        recorded = [result["structuredContent"]] if "structuredContent" in result else []
        yield CorpusSchema(f"structured/{record['id']}", schema, recorded + _probes(schema))
    for record in json.loads((BENCH_DATA / "elicitation" / "requested-schemas.json").read_text()):
        schema = record["requestedSchema"]
        yield CorpusSchema(f"elicitation/{record['id']}", schema, _probes(schema))


def translated(eng: Any) -> Iterator[tuple[CorpusSchema, Any]]:
    """Every corpus schema ``eng`` (an ``engine.Engine``) compiles with the msgspec backend,
    with its compiled schema."""
    import engine  # here: this module reads the corpus without the engine

    for case in corpus():
        try:
            compiled = eng.compile(case.schema)
        except engine.SchemaRejected:
            continue
        if compiled.backend == "msgspec":
            yield case, compiled

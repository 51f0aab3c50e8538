"""The schemas whose full guard outcome is pinned in guard_reports.json, and how the outcome is taken.

Write the fixture again (only when a change of the guard's answers is intended) with
``python -m tests.guard.guard_cases`` from the repository root.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

import engine
from engine import _guard as guard
from engine._dialect import Dialect, detect_dialect
from engine._intake import measure_document
from tests.conformance.suite import DIALECTS, SUITE, remotes

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = Path(__file__).with_name("guard_reports.json")
sys.path.insert(0, str(ROOT / "bench_data" / "pathological"))
from catalog import cases as catalog_cases  # noqa: E402

# Schemas the meta-schema refuses, which the guard sees first under `auto`.
MALFORMED: tuple[Any, ...] = (
    {"properties": [1]},
    {"$ref": 7},
    {"$ref": [1]},
    {"$id": 5, "items": {"$ref": "#"}},
    {"items": [1, {"$ref": 3}]},
    {"allOf": {"a": 1}},
    {"anyOf": [{"$ref": "#/nope"}]},
    {"patternProperties": {"(?=a)": True}},
    {"patternProperties": [1]},
    {"enum": 5, "pattern": 3},
    {"$defs": [1], "$ref": "#/$defs/0"},
    {"$anchor": 5, "$dynamicAnchor": [], "$dynamicRef": "#x"},
    {"unevaluatedProperties": {"unevaluatedItems": 1}},
    {"dependentSchemas": {"a": 1}, "dependencies": {"b": ["c"], "d": 5}},
    {"$schema": 5, "properties": {"a/b~c": {"$ref": "#/properties/a~1b~0c"}}},
    {"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"a": {"$ref": "#"}},
     "$ref": "#/definitions/a"},
)  # fmt: skip


def corpus() -> Iterator[tuple[str, Any, dict[str, Any], dict[str, Any], str]]:
    """(id, schema, registry, config, default dialect) for every schema pinned."""
    from benchmarks.limits import schemas_in

    data = ROOT / "bench_data"
    paths = [
        *sorted((data / "tools").glob("*.json")),
        data / "structured" / "tool-results.json",
        data / "elicitation" / "requested-schemas.json",
    ]
    for path in paths:
        for i, (name, schema) in enumerate(schemas_in(path)):
            yield f"corpus:{name}:{i}", schema, {}, {}, "2020-12"
    for folder, dialect in DIALECTS.items():
        base = SUITE / "tests" / folder
        files = sorted(base.glob("*.json")) + sorted((base / "optional").glob("*.json"))
        for file in files:
            for i, case in enumerate(json.loads(file.read_text())):
                name = f"suite:{folder}/{file.relative_to(base).as_posix()}:{i}"
                yield name, case["schema"], remotes(folder), {}, dialect
    for case in catalog_cases():
        try:
            large = len(msgspec.json.encode(case.schema)) > 50_000  # the slow pattern cases
        except RecursionError:  # nested past the encoder: refused at intake, at once
            large = False
        if not large:
            yield f"catalog:{case.name}", case.schema, case.registry, case.config, "2020-12"
    for i, schema in enumerate(MALFORMED):
        yield f"malformed:{i}", schema, {}, {}, "2020-12"


def outcome(schema: Any, registry: dict[str, Any], config: dict[str, Any], default: str) -> Any:
    """The guard's answer as the compile takes it: the report, or the refusal (everything shown)."""
    conf = engine.EngineConfig.load(env={}, **config)
    try:
        dialect = detect_dialect(schema, Dialect(default), registry)
        size = measure_document(schema, conf.limits)
        report = guard.inspect(schema, dialect, registry, conf, document=(size.bytes, size.depth))
    except engine.SchemaRejected as exc:
        return {"rejected": [str(exc.reason), exc.message, exc.location, exc.details]}
    return {
        "measured": list(report.measured.items()),  # in order: the report lists them so
        "locations": sorted(report.locations.items()),
        "recursive": report.recursive,
        "eval_depth": report.eval_depth,
        "fan_out": report.fan_out,
        "max_chain": report.max_chain,
        "in_place_width": report.in_place_width,
        "max_star_height": report.max_star_height,
        "fetched": list(report.fetched),
    }


def normalise(value: Any) -> Any:
    """As the fixture holds it (tuples become lists)."""
    return json.loads(json.dumps(value))


def write() -> None:
    table = {name: outcome(schema, registry, config, default) for name, schema, registry, config, default in corpus()}
    lines = (f"{json.dumps(name)}: {json.dumps(table[name], sort_keys=True)}" for name in sorted(table))
    FIXTURE.write_text("{\n" + ",\n".join(lines) + "\n}\n")  # one line a schema
    print(f"{len(table)} outcomes written to {FIXTURE}")


if __name__ == "__main__":
    write()

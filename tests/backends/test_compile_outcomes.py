"""Every corpus and JSON-Schema-Test-Suite schema is accepted or refused as it was before the cold
compile was made cheaper (the guard's tree walk and budget, options passed to jsonschema-rs by
position): the same reason, location and message, recorded in ``compile_outcomes.json``.

Regenerate (only when a change of outcome is intended) with
``python -c "from tests.backends.test_compile_outcomes import write; write()"``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import msgspec

import engine
from tests.conformance.suite import DIALECTS, SUITE

HERE = Path(__file__).resolve().parent
RECORD = HERE / "compile_outcomes.json"


def schemas() -> list[tuple[str, Any]]:
    """(dialect, schema) for every corpus schema (under 2020-12) and every suite test group."""
    from benchmarks.corpus import load_corpus

    found: list[tuple[str, Any]] = [("2020-12", s) for _, s in load_corpus().schemas()]
    for folder, dialect in DIALECTS.items():
        for path in sorted((SUITE / "tests" / folder).rglob("*.json")):
            groups = json.loads(path.read_text())
            found.extend((dialect, group["schema"]) for group in groups)
    return found


def outcomes() -> dict[str, list[str]]:
    """Per (dialect, canonical schema text) digest: ``["ok"]`` or the refusal (reason, location,
    message). Which backend accepts is left to the plan's own tests."""
    engines = {d: engine.Engine(cache_size=0, default_dialect=d) for d in DIALECTS.values()}
    seen: dict[str, list[str]] = {}
    for dialect, schema in schemas():
        text = msgspec.json.encode(schema, order="sorted")
        key = hashlib.sha256(dialect.encode() + b"\0" + text).hexdigest()[:24]
        try:
            engines[dialect].compile(schema)
        except engine.SchemaRejected as exc:
            seen[key] = [str(exc.reason), exc.location or "", exc.message]
        else:
            seen[key] = ["ok"]
    return seen


def write() -> None:  # pragma: no cover - run by hand
    RECORD.write_text(json.dumps(outcomes(), indent=0, sort_keys=True) + "\n")


def test_same_outcome_as_recorded() -> None:
    recorded = json.loads(RECORD.read_text())
    now = outcomes()
    assert now.keys() == recorded.keys()
    changed = {k: (recorded[k], now[k]) for k in now if now[k] != recorded[k]}
    assert not changed

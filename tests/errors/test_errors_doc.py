"""docs/errors.md lists every error the engine raises as an ``EngineError``, each with every
reason it carries (its table left out ``UnknownTool``, while saying every error derives from
``EngineError``)."""

from __future__ import annotations

from pathlib import Path

import engine

PAGE = Path(__file__).resolve().parents[2] / "docs" / "errors.md"


def _table() -> dict[str, str]:
    """The errors table of the page: each error's name and its row."""
    rows = {}
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        if line.startswith("| `"):
            name = line.split("`", 2)[1]
            rows[name] = line
    return rows


def test_every_engine_error_is_in_the_table_with_its_reasons() -> None:
    exported = {
        name
        for name in engine.__all__
        if isinstance(getattr(engine, name), type)
        and issubclass(getattr(engine, name), engine.EngineError)
        and getattr(engine, name) is not engine.EngineError
    }
    rows = _table()
    assert set(rows) == exported
    reasons: dict[str, list[str]] = {
        "SchemaRejected": [str(reason) for reason in engine.RejectReason],
        "DecodeError": [str(reason) for reason in engine.DecodeReason],
    }
    for name in exported:
        for reason in reasons.get(name) or [getattr(engine, name).reason]:
            assert f"`{reason}`" in rows[name].rsplit("|", 2)[1], (name, reason)

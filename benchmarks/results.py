"""What a run produces: rows of cells, one cell per contender, written as JSON."""

from __future__ import annotations

from typing import Any

import msgspec

__all__ = ["Cell", "Headline", "HeadlineCell", "Report", "Row", "Workload"]


class Cell(msgspec.Struct, omit_defaults=True, kw_only=True):
    status: str
    """``ok`` (timed), ``refused`` (compile-time refusal with a reason), ``error`` (the library
    raised), ``wrong`` (rejected every valid instance), ``skipped``, ``timeout``, ``crash``, ``n/a``."""
    ratio: float | None = None
    """Median time over the floor's median on the same bytes (the table's figure)."""
    median_s: float | None = None
    """Median seconds of one pass over the row's items."""
    items: int | None = None
    """Items this contender was timed on (it may refuse some)."""
    of: int | None = None
    """Items in the row."""
    outcome: str | None = None
    """Pathological cases: ``valid``, ``invalid``, ``refused:<reason>``, ``error:<type>``, ..."""
    note: str | None = None


class Row(msgspec.Struct, omit_defaults=True, kw_only=True):
    case: str
    detail: str = ""
    floor_s: float | None = None
    """Median seconds of ``msgspec.json.decode`` over the same bytes."""
    cells: dict[str, Cell] = {}
    size: int | None = None
    """Scale rows: the size on the x axis."""
    series: str | None = None
    """Scale rows: which dimension grows."""
    expect: str | None = None
    """Pathological rows: what the engine is expected to do."""


class Workload(msgspec.Struct, omit_defaults=True, kw_only=True):
    """One workload's rows; its first row is the one the headline quotes."""

    name: str
    title: str
    unit: str
    """What one timed pass is (``one pass over 489 arguments``)."""
    rows: list[Row] = []
    skipped: str | None = None
    seconds: float = 0.0
    summary: list[str] = []
    """Sentences derived from the rows (printed under the table)."""
    growth: dict[str, dict[str, float]] = {}
    """Scale: per series and contender, ``k`` in time ~ size**k between the smallest and the
    largest size it ran (1.0 grows linearly; the floor's own ``k`` is the yardstick)."""


class HeadlineCell(msgspec.Struct, omit_defaults=True, kw_only=True):
    status: str
    us: float | None = None
    """Microseconds per call (per item: one argument set, one result, one schema compiled)."""
    ratio: float | None = None
    """This library's time over the engine's: above 1 the engine is faster."""


class Headline(msgspec.Struct, omit_defaults=True, kw_only=True):
    """One line of the headline: a workload's first row, per call, engine next to the baselines."""

    workload: str
    case: str
    detail: str = ""
    items: int | None = None
    engine: str
    """The engine contender quoted (``engine[auto]`` when it ran)."""
    engine_us: float | None = None
    baselines: dict[str, HeadlineCell] = {}


class Report(msgspec.Struct, omit_defaults=True, kw_only=True):
    meta: dict[str, Any]
    contenders: list[str]
    workloads: list[Workload] = []
    headline: list[Headline] = []

    def to_json(self) -> bytes:
        return msgspec.json.format(msgspec.json.encode(self), indent=2)

"""Rendering a run: the terminal tables, Markdown (bench.md, the docs), and a self-contained HTML
page with inline SVG charts of the ratios and of the scale curves.

Every rendering leads with the headline (:func:`headline`): per call, in microseconds, what the
engine costs next to what MCP stacks run today, and the ratio. The code is generic over rows: a
workload's first row is its headline row, whatever the workload.
"""

from __future__ import annotations

import html
import math
from typing import Any

from .results import Cell, Headline, HeadlineCell, Report, Row, Workload

__all__ = [
    "BASELINES",
    "TERMINAL_WIDTH",
    "cell_text",
    "column_label",
    "growth_shown",
    "headline",
    "render_html",
    "render_markdown",
    "rich_header",
    "rich_tables",
]

TERMINAL_WIDTH = 120
"""No terminal table is wider: a wide one is split into several with the case column repeated."""

BASELINES = {
    "jsonschema": "python-jsonschema, cached (the MCP Python SDK)",
    "jsonschema-rs": "jsonschema-rs, raw",
    "fastjsonschema": "fastjsonschema, raw",
}
"""What MCP stacks run today, in the headline's order."""

_LABELS = {
    "floor": "floor",
    "jsonschema-rs": "jsonschema-rs (raw)",
    "fastjsonschema": "fastjsonschema (raw)",
    "jsonschema": "jsonschema (cached)",
}
# Okabe & Ito's palette (2008): distinct for the common colour-vision deficiencies. Grey is the
# floor; yellow, the hardest to read on white, comes last.
_COLOURS = [
    "#999999",
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#D55E00",
    "#CC79A7",
    "#56B4E9",
    "#000000",
    "#F0E442",
]


def column_label(name: str, sep: str = " ") -> str:
    if name.startswith("engine[") and name.endswith("]"):
        return f"engine{sep}{name[7:-1]}"
    return _LABELS.get(name, name).replace(" ", sep)


def _ratio(value: float) -> str:
    if value >= 100:
        return f"{value:,.0f}x"
    if value >= 10:
        return f"{value:.1f}x"
    return f"{value:.2f}x"


def cell_text(cell: Cell | None) -> str:
    """One cell as the tables show it."""
    if cell is None:
        return ""
    if cell.outcome is not None:  # a pathological case: what happened, then what it cost
        outcome = cell.outcome
        if outcome == "crash":
            text = f"crash {cell.note or ''}".strip().split(" (compile")[0]
        elif outcome == "timeout":
            text = "timeout"
        else:
            # "refused backend": this backend cannot honour the schema exactly (auto moves on).
            text = outcome.replace(":", " ", 1).replace("unsupported-by-backend", "backend")
            if cell.ratio is not None and outcome in ("valid", "invalid"):
                text += f" {_ratio(cell.ratio)}"
        return f"WRONG {text}" if cell.status == "wrong" else text
    if cell.status == "ok" and cell.ratio is not None:
        text = _ratio(cell.ratio)
        if cell.items is not None and cell.of is not None and cell.items < cell.of:
            text += f" ({cell.items}/{cell.of})"
        return text
    return cell.status


def _contenders(report: Report) -> list[str]:
    return report.contenders


# ------------------------------------------------------------------------------------- headline


def _engine_name(report: Report) -> str | None:
    engines = [n for n in report.contenders if n.startswith("engine[")]
    return "engine[auto]" if "engine[auto]" in engines else (engines[0] if engines else None)


def _per_call(cell: Cell | None) -> float | None:
    if cell is None or cell.status != "ok" or not cell.median_s or not cell.items:
        return None
    return cell.median_s / cell.items * 1e6


def headline(report: Report) -> list[Headline]:
    """The first row of every workload timed per item (not the scale curves, not the hostile
    cases): microseconds per call for the engine and each baseline, and the baseline's time over
    the engine's."""
    engine_name = _engine_name(report)
    if engine_name is None:
        return []
    lines = []
    for work in report.workloads:
        if work.name in ("scale", "pathological") or not work.rows:
            continue
        row = work.rows[0]
        engine_cell = row.cells.get(engine_name)
        engine_us = _per_call(engine_cell)
        line = Headline(
            workload=work.name,
            case=row.case,
            detail=row.detail,
            items=engine_cell.of if engine_cell else None,
            engine=engine_name,
            engine_us=engine_us,
        )
        for name in BASELINES:
            if name not in report.contenders:
                continue
            cell = row.cells.get(name)
            us = _per_call(cell)
            ratio = us / engine_us if us is not None and engine_us else None
            line.baselines[name] = HeadlineCell(status=cell.status if cell else "n/a", us=us, ratio=ratio)
        lines.append(line)
    return lines


def _us(value: float | None) -> str:
    if value is None:
        return ""
    if value >= 100:
        return f"{value:,.0f} µs"
    return f"{value:.1f} µs" if value >= 10 else f"{value:.2f} µs"


def _times(ratio: float | None) -> str:
    if ratio is None:
        return ""
    return f"{ratio:,.0f}×" if ratio >= 100 else f"{ratio:.1f}×" if ratio >= 10 else f"{ratio:.2f}×"


def _headline_case(line: Headline) -> str:
    return f"{line.workload}: {line.case}" + (f" ({line.detail})" if line.detail else "")


def _headline_cell(cell: HeadlineCell) -> str:
    if cell.us is None:
        return cell.status
    return f"{_us(cell.us)} · {_times(cell.ratio)}" if cell.ratio is not None else _us(cell.us)


HEADLINE_NOTE = (
    "Median time per call (one argument set, one result, one answer, one schema compiled), measured "
    "side by side in one process; × = that library's time ÷ the engine's: above 1 the engine is faster."
)


def _import_line(meta: dict[str, Any]) -> str | None:
    imports = meta.get("import_time")
    if not imports:
        return None
    return (
        f"import engine: {imports['engine_ms']:.0f} ms, {imports['ratio']:.2f}× `{imports['baseline']}` "
        f"({imports['baseline_ms']:.0f} ms); {imports.get('clock', 'wall time')}, medians of {imports['runs']} "
        "fresh interpreters, bytecode cached"
    )


def _header_facts(report: Report) -> list[tuple[str, str]]:
    meta = report.meta
    versions = meta.get("versions", {})
    mode = (
        "quick (a subset of every workload: a smoke run, figures are indicative)"
        if meta.get("quick")
        else ("default (every item)")
    )
    facts = [
        ("date", str(meta.get("started", ""))),
        ("commit", str(meta.get("commit") or "unknown")),
        ("machine", str(meta.get("machine", ""))),
        ("CPU", str(meta.get("cpu") or "unknown")),
        ("packages", ", ".join(f"{k} {v}" for k, v in versions.items())),
        ("mode", mode),
        ("command", f"`{meta.get('command', '')}`"),
        ("duration", f"{meta.get('duration_s', 0):.0f} s"),
    ]
    return facts


def _markdown_headline(report: Report) -> list[str]:
    lines = report.headline or headline(report)
    if not lines:
        return []
    names = list(lines[0].baselines)
    out = [
        "| workload | engine | " + " | ".join(BASELINES[n] for n in names) + " |",
        "|---|---:|" + "---:|" * len(names),
    ]
    for line in lines:
        cells = [_headline_cell(line.baselines[n]) for n in names]
        out.append(f"| {_headline_case(line)} | {_us(line.engine_us) or 'n/a'} | " + " | ".join(cells) + " |")
    out.append("")
    out.append(HEADLINE_NOTE)
    imports = _import_line(report.meta)
    if imports:
        out.append("")
        out.append(imports + ".")
    return out


def rich_header(report: Report) -> list[Any]:
    """What the terminal shows first: the run's facts, then the headline table."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    parts: list[Any] = []
    facts = Table(box=None, show_header=False, pad_edge=False)
    facts.add_column(style="bold", no_wrap=True)
    facts.add_column(overflow="fold")
    for key, value in _header_facts(report):
        facts.add_row(key, value.strip("`"))
    parts.append(facts)
    lines = report.headline or headline(report)
    if lines:
        names = list(lines[0].baselines)
        table = Table(
            title="Should I adopt it? Time per call, engine next to what MCP stacks run today",
            box=box.SIMPLE_HEAVY,
            title_justify="left",
        )
        table.add_column("workload", overflow="fold", max_width=34)
        table.add_column("engine", justify="right", no_wrap=True)
        for name in names:
            table.add_column(BASELINES[name].replace(", ", ",\n", 1), justify="right", no_wrap=True)
        for line in lines:
            table.add_row(
                _headline_case(line),
                _us(line.engine_us) or "n/a",
                *(_headline_cell(line.baselines[n]) for n in names),
            )
        parts.append(table)
        parts.append(Text(HEADLINE_NOTE))
    imports = _import_line(report.meta)
    if imports:
        parts.append(Text(imports.replace("`", "")))
    return parts


def growth_shown(work: Workload) -> tuple[dict[str, dict[str, float]], str | None]:
    """The growth exponents worth printing: only where a contender ran three sizes or more (a
    line through two points fits anything), and a sentence when some were left out."""
    counts: dict[tuple[str, str], int] = {}
    for row in work.rows:
        if row.series is None or not row.size:
            continue
        for name, cell in row.cells.items():
            if cell.median_s:
                counts[(row.series, name)] = counts.get((row.series, name), 0) + 1
    shown: dict[str, dict[str, float]] = {}
    dropped = 0
    for series, by_name in work.growth.items():
        for name, k in by_name.items():
            if counts.get((series, name), 0) >= 3:
                shown.setdefault(series, {})[name] = k
            else:
                dropped += 1
    note = None
    if dropped:
        note = "k is given only where three sizes or more were measured; with two, any curve fits"
        if not shown:
            note = "no growth exponent: this run measured two sizes per series, and a line through two fits anything"
    return shown, note


def _fits(names: list[str], build: Any, limit: int) -> list[list[str]]:
    """Contender columns in as few groups as fit ``limit`` columns when each group's table is
    built by ``build(group)``, the columns shared out evenly (the case column repeats in each)."""
    from rich.console import Console

    console = Console(width=1000)
    for count in range(1, len(names) + 1):
        size = math.ceil(len(names) / count)
        groups = [names[i : i + size] for i in range(0, len(names), size)]
        if all(console.measure(build(group)).maximum <= limit for group in groups):
            return groups
    return [[name] for name in names]


def rich_tables(report: Report, width: int = TERMINAL_WIDTH) -> list[Any]:
    """One table per workload (split by columns where it would be wider than ``width``)."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    tables: list[Any] = []
    for work in report.workloads:
        # A pathological row's floor is only the yardstick of its ratios: no column of its own.
        names = [n for n in _contenders(report) if not (work.name == "pathological" and n == "floor")]

        def build(group: list[str], work: Workload = work, title: str | None = None) -> Any:
            table = Table(title=title, box=box.SIMPLE_HEAVY, title_justify="left")
            table.add_column("case", no_wrap=True)
            for name in group:
                table.add_column(column_label(name, "\n"), justify="right", no_wrap=True)
            for row in work.rows:
                cells = []
                for name in group:
                    cell = row.cells.get(name)
                    text = cell_text(cell)
                    style = _style(cell)
                    cells.append(f"[{style}]{text}[/]" if style and text else text)
                table.add_row(row.case, *cells)
            return table

        groups = _fits(names, build, width)
        for i, group in enumerate(groups):
            part = f" (columns {i + 1} of {len(groups)})" if len(groups) > 1 else ""
            tables.append(Text(f"{work.title}{part}", style="bold" if i == 0 else ""))
            tables.append(build(group))
        tables.append(Text(work.skipped or work.unit, style="dim"))
        if work.summary:
            tables.append(Text("\n".join(work.summary) + "\n"))
        shown, note = growth_shown(work)
        if shown:

            def build_growth(group: list[str], title: str | None = None, shown: Any = shown) -> Any:
                growth = Table(title=title, box=box.SIMPLE_HEAVY, title_justify="left")
                growth.add_column("series", no_wrap=True)
                for name in group:
                    growth.add_column(column_label(name, "\n"), justify="right", no_wrap=True)
                for series, by_name in shown.items():
                    growth.add_row(series, *(_k(by_name.get(n)) for n in group))
                return growth

            tables.append(Text("How cost grows: k in time ~ size^k (1.00 = linear)"))
            for group in _fits(names, build_growth, width):
                tables.append(build_growth(group))
        if note:
            tables.append(Text(note + ".", style="dim"))
    return tables


def _k(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def _style(cell: Cell | None) -> str:
    if cell is None:
        return ""
    if cell.status in ("wrong", "crash"):
        return "bold red"
    if cell.status == "timeout":
        return "red"
    if cell.outcome and cell.outcome.startswith(("refused", "rejected")):
        return "green"
    if cell.status in ("skipped", "n/a"):
        return "dim"
    return ""


def render_markdown(report: Report, *, header: bool = True) -> str:
    """bench.md: the run's facts, the headline, then every workload's table."""
    out: list[str] = []
    if header:
        out.append("# engine benchmarks")
        out.append("")
        out.append("| | |")
        out.append("|---|---|")
        out.extend(f"| {key} | {value.replace('|', '/')} |" for key, value in _header_facts(report))
        out.append("")
    quoted = _markdown_headline(report)
    if quoted:
        out.append("**Headline** — time per call, the engine next to what MCP stacks run today.")
        out.append("")
        out.extend(quoted)
        out.append("")
    for work in report.workloads:
        names = [n for n in _contenders(report) if not (work.name == "pathological" and n == "floor")]
        out.append(f"**{work.name}** — {work.title}; {work.unit}.")
        if work.skipped:
            out.append(f"_{work.skipped}_")
        out.append("")
        out.append("| case | " + " | ".join(column_label(n) for n in names) + " |")
        out.append("|---|" + "---:|" * len(names))
        for row in work.rows:
            out.append(
                f"| {row.case} | " + " | ".join(cell_text(row.cells.get(n)).replace("|", "/") for n in names) + " |"
            )
        out.append("")
        if work.summary:
            out.extend(f"{line}." for line in work.summary)
            out.append("")
        shown, note = growth_shown(work)
        if shown:
            out.append("How cost grows: k in time ~ size^k from the smallest to the largest size (1.00 = linear).")
            out.append("")
            out.append("| series | " + " | ".join(column_label(n) for n in names) + " |")
            out.append("|---|" + "---:|" * len(names))
            for series, by_name in shown.items():
                out.append(f"| {series} | " + " | ".join(_k(by_name.get(n)) for n in names) + " |")
            out.append("")
        if note:
            out.append(f"_{note}._")
            out.append("")
    return "\n".join(out)


# -------------------------------------------------------------------------------------- HTML/SVG


def _el(tag: str, text: str | None = None, **attrs: Any) -> str:
    """One SVG element; attribute names use ``_`` for ``-``, the text is escaped."""
    rendered = " ".join(
        f'{k.rstrip("_").replace("_", "-")}="{html.escape(f"{v:.1f}" if isinstance(v, float) else str(v))}"'
        for k, v in attrs.items()
    )
    opening = f"{tag} {rendered}" if rendered else tag
    if text is None:
        return f"<{opening}/>"
    return f"<{opening}>{text}</{tag}>"


def _svg(width: float, height: float, parts: list[str], size: int) -> str:
    head = f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
    return head + f'font-family="sans-serif" font-size="{size}">' + "".join(parts) + "</svg>"


class _Axis:
    """Maps a ratio to a position: linear from 0 when the values sit within a decade or so of 1
    (a log axis squeezes the differences that matter there), log only when the range needs it."""

    def __init__(self, values: list[float], start: float, length: float, *, log: bool | None = None) -> None:
        lo, hi = min(values), max(values)
        self.log = (hi / lo > 30 or hi > 30) if log is None else log
        self.start, self.length = start, length
        self.lo: float
        self.hi: float
        if self.log:
            low = math.floor(math.log10(lo))
            high = max(math.ceil(math.log10(hi)), low + 1)
            self.lo, self.hi = float(low), float(high)
            self.ticks = [10.0**e for e in range(low, high + 1)]
        else:
            step = _nice_step(hi / 5)
            top = step * math.ceil(hi / step)
            self.lo, self.hi = 0.0, top
            self.ticks = [step * i for i in range(int(round(top / step)) + 1)]

    def __call__(self, value: float) -> float:
        if self.log:
            v = min(max(math.log10(value), self.lo), self.hi)
            return self.start + (v - self.lo) / (self.hi - self.lo) * self.length
        return self.start + min(max(value, 0.0), self.hi) / self.hi * self.length

    @property
    def caption(self) -> str:
        if self.log:
            return f"log scale: the ratios span {self.hi - self.lo:.0f} decades"
        return "linear scale"


def _nice_step(raw: float) -> float:
    exponent = math.floor(math.log10(raw)) if raw > 0 else 0
    for factor in (1, 2, 2.5, 5, 10):
        step = factor * 10.0**exponent
        if step >= raw:
            return step
    return 10.0 ** (exponent + 1)  # pragma: no cover


def _tick(value: float) -> str:
    return _ratio(value) if value else "0"


# A bar chart keeps a linear axis up to this ratio when most of its bars are below it, and cuts
# the few longer ones at the edge (their value written): 1.5x against 3x is the story there, and a
# log axis squeezes it; only when most bars are far apart is the axis logarithmic.
LINEAR_UP_TO = 30.0


def _bar_axis(ratios: list[float], start: float, length: float) -> tuple[_Axis, float | None]:
    """The axis for a bar chart and the ratio past which bars are cut (``None``: none are)."""
    near = [v for v in ratios if v <= LINEAR_UP_TO]
    if max(ratios) <= LINEAR_UP_TO:
        return _Axis([*ratios, 1.0], start, length, log=False), None
    if len(near) * 2 >= len(ratios):
        axis = _Axis([*near, 1.0], start, length, log=False)
        return axis, axis.hi
    return _Axis([*ratios, 1.0], start, length, log=True), None


def _bar_chart(work: Workload, names: list[str], colours: dict[str, str]) -> str:
    """Horizontal bars, one group per row, each labelled with its value; 1x = the floor (dashed).
    A contender with no bar says why in its place (refused, skipped, n/a)."""
    rows = [r for r in work.rows if any(_finite(c.ratio) for c in r.cells.values())]
    shown = [n for n in names if n != "floor"]
    ratios = [c.ratio for r in rows for n, c in r.cells.items() if n != "floor" and c.ratio and _finite(c.ratio)]
    if not ratios:  # nothing but the floor measured (a data folder without such documents)
        return ""
    label_w, plot_w, bar_h, gap = 230, 560, 11, 10
    group_h = bar_h * len(shown) + gap
    height = 30 + group_h * len(rows) + 34
    x, cut = _bar_axis(ratios, label_w, plot_w)
    parts = []
    for tick in x.ticks:
        if x.log or tick:
            parts.append(_el("line", x1=x(tick), y1=20, x2=x(tick), y2=height - 30, stroke="#ddd"))
        parts.append(_el("text", _tick(tick), x=x(tick), y=14, text_anchor="middle", fill="#555"))
    parts.append(_el("line", x1=x(1.0), y1=20, x2=x(1.0), y2=height - 30, stroke="#444", stroke_dasharray="3,2"))
    for i, row in enumerate(rows):
        y0 = 24 + i * group_h
        parts.append(_el("text", html.escape(row.case), x=label_w - 6, y=y0 + group_h / 2, text_anchor="end"))
        for j, name in enumerate(shown):
            cell = row.cells.get(name)
            if cell is None:
                continue
            y, text = y0 + j * bar_h, html.escape(f"{column_label(name)}: {cell_text(cell)}")
            if cell.ratio is not None and _finite(cell.ratio):
                tip = _el("title", text)
                end = x(cell.ratio)
                width = max(1.0, end - label_w)
                parts.append(_el("rect", tip, x=label_w, y=y, width=width, height=bar_h - 2, fill=colours[name]))
                if cut is not None and cell.ratio > cut:  # cut at the edge: a white break, the value written
                    low, rise = y + bar_h - 2, -(bar_h - 2)
                    mark = f"M{end - 12:.1f},{low:.1f} l4,{rise} M{end - 7:.1f},{low:.1f} l4,{rise}"
                    parts.append(_el("path", d=mark, stroke="#fff", stroke_width=2))
                parts.append(_el("text", text, x=end + 3, y=y + bar_h - 3, font_size=9, fill="#333"))
            else:
                why = f" ({html.escape(cell.note)})" if cell.note else ""
                parts.append(_el("text", text + why, x=label_w + 3, y=y + bar_h - 3, font_size=9, fill="#777"))
    scale = x.caption if cut is None else f"{x.caption}; bars past {_tick(cut)} are cut at the edge, value written"
    caption = f"ratio to the floor ({scale}); dashed: 1x, the cost of decoding the bytes"
    parts.append(_el("text", caption, x=label_w, y=height - 12, fill="#555"))
    return _svg(label_w + plot_w + 260, height, parts, 11)


def _line_chart(title: str, rows: list[Row], names: list[str], colours: dict[str, str]) -> str:
    """Ratio to the floor against size (log), one line per contender, every point labelled with
    its value; the points not measured are listed under the chart with the reason."""
    points = {
        n: [(r.size, r.cells[n].ratio) for r in rows if n in r.cells and r.size and _finite(r.cells[n].ratio)]
        for n in names
    }
    ratios = [v for pts in points.values() for _, v in pts if v]
    sizes = [r.size for r in rows if r.size]
    if not ratios or len(sizes) < 2:
        return ""
    missing: list[str] = []
    for name in names:
        gaps = [(r.size, r.cells[name]) for r in rows if name in r.cells and not _finite(r.cells[name].ratio)]
        if gaps:
            where = ", ".join(f"{size:,}" for size, _ in gaps)
            status, note = gaps[0][1].status, gaps[0][1].note
            missing.append(f"{column_label(name)}: not measured at {where} ({status}{': ' + note if note else ''})")
    w, pad = 520, 50
    h = 280 + 13 * len(missing)
    plot_bottom = 250
    px = _LogSizes(min(sizes), max(sizes), pad, w - pad - 60)
    py = _Axis(ratios, plot_bottom, -(plot_bottom - 30))
    parts = [_el("text", html.escape(title), x=w / 2, y=12, text_anchor="middle", font_weight="bold")]
    for tick in py.ticks:
        parts.append(_el("line", x1=pad, y1=py(tick), x2=w - 60, y2=py(tick), stroke="#ddd"))
        parts.append(_el("text", _tick(tick), x=pad - 4, y=py(tick) + 3, text_anchor="end", fill="#555"))
    for size in sizes:
        parts.append(_el("text", f"{size:,}", x=px(size), y=plot_bottom + 14, text_anchor="middle", fill="#555"))
    axis = f"{html.escape(title)} (log scale); ratio to the floor ({py.caption})"
    parts.append(_el("text", axis, x=w / 2, y=plot_bottom + 28, text_anchor="middle", fill="#555"))
    for name, pts in points.items():
        if not pts:
            continue
        label = html.escape(column_label(name))
        path = " ".join(f"{px(s):.1f},{py(v):.1f}" for s, v in pts if s and v)
        parts.append(
            _el("polyline", _el("title", label), points=path, fill="none", stroke=colours[name], stroke_width=2)
        )
        for s, v in pts:
            if s and v:
                tip = _el("title", f"{label} at {s:,}: {_ratio(v)}")
                parts.append(_el("circle", tip, cx=px(s), cy=py(v), r=2.5, fill=colours[name]))
                parts.append(_el("text", _ratio(v), x=px(s) + 4, y=py(v) - 3, font_size=8, fill=colours[name]))
        last_s, last_v = pts[-1]
        if last_s and last_v:
            parts.append(_el("text", label, x=px(last_s) + 4, y=py(last_v) + 8, font_size=8, fill=colours[name]))
    for i, line in enumerate(missing):
        parts.append(_el("text", html.escape(line), x=4, y=plot_bottom + 44 + 13 * i, font_size=9, fill="#555"))
    return _svg(w + 120, h, parts, 10)


class _LogSizes:
    """Sizes on a log axis (they grow tenfold per point)."""

    def __init__(self, lo: float, hi: float, start: float, length: float) -> None:
        self.lo, self.hi = math.log10(lo), max(math.log10(hi), math.log10(lo) + 1e-9)
        self.start, self.length = start, length

    def __call__(self, value: float) -> float:
        return self.start + (math.log10(value) - self.lo) / (self.hi - self.lo) * self.length


def _line_charts(work: Workload, names: list[str], colours: dict[str, str]) -> str:
    """One chart per scale series."""
    series: dict[str, list[Row]] = {}
    for row in work.rows:
        if row.series and row.size:
            series.setdefault(row.series, []).append(row)
    return "".join(_line_chart(title, rows, names, colours) for title, rows in series.items())


def _finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value) and value > 0


def render_html(report: Report) -> str:
    names = _contenders(report)
    colours = {n: _COLOURS[i % len(_COLOURS)] for i, n in enumerate(names)}
    meta = report.meta
    swatch = '<span style="display:inline-block;width:10px;height:10px;background:{}"></span>'
    legend = " ".join(
        f'<span style="margin-right:14px">{swatch.format(colours[n])} {html.escape(column_label(n))}</span>'
        for n in names
    )
    body = [
        "<!doctype html><html><head><meta charset='utf-8'><title>engine benchmarks</title>",
        "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}"
        "table{border-collapse:collapse;font-size:12px;margin:8px 0 24px}"
        "td,th{border:1px solid #ccc;padding:3px 6px;text-align:right}"
        "td:first-child,th:first-child{text-align:left}.bad{color:#b00;font-weight:bold}.good{color:#070}"
        ".dim{color:#999}small{color:#555}</style></head><body>",
        "<h1>engine benchmarks</h1>",
        f"<p><small>{html.escape(str(meta.get('command', '')))} — {html.escape(str(meta.get('machine', '')))} — "
        f"{html.escape(str(meta.get('started', '')))}, {meta.get('duration_s', 0):.0f} s. Figures are ratios to the "
        "floor (<code>msgspec.json.decode</code> alone on the same bytes), medians of interleaved rounds; lower is "
        "better.</small></p>",
        f"<p>{legend}</p>",
    ]
    facts = "".join(
        f"<tr><th>{html.escape(k)}</th><td>{html.escape(v.strip('`'))}</td></tr>" for k, v in _header_facts(report)
    )
    body.append(f"<table class='facts'>{facts}</table>")
    lines = report.headline or headline(report)
    if lines:
        baselines = list(lines[0].baselines)
        body.append("<h2>Headline: time per call, the engine next to what MCP stacks run today</h2>")
        body.append(
            "<table><tr><th>workload</th><th>engine</th>"
            + "".join(f"<th>{html.escape(BASELINES[n])}</th>" for n in baselines)
            + "</tr>"
        )
        for entry in lines:
            quoted = "".join(f"<td>{html.escape(_headline_cell(entry.baselines[n]))}</td>" for n in baselines)
            case, engine_us = html.escape(_headline_case(entry)), html.escape(_us(entry.engine_us))
            body.append(f"<tr><td>{case}</td><td>{engine_us}</td>{quoted}</tr>")
        body.append("</table>")
        body.append(f"<p><small>{html.escape(HEADLINE_NOTE)}</small></p>")
    imports = _import_line(meta)
    if imports:
        body.append(f"<p><small>{html.escape(imports.replace('`', ''))}</small></p>")
    for work in report.workloads:
        body.append(f"<h2>{html.escape(work.title)}</h2><p><small>{html.escape(work.unit)}</small></p>")
        if work.skipped:
            body.append(f"<p class='dim'>{html.escape(work.skipped)}</p>")
        if work.name == "scale":
            body.append(_line_charts(work, names, colours))
            shown, note = growth_shown(work)
            if note:
                body.append(f"<p><small>{html.escape(note)}.</small></p>")
            if shown:
                body.append("<p><small>k in time ~ size^k, smallest to largest size (1.00 = linear)</small></p>")
                body.append(
                    "<table><tr><th>series</th>" + "".join(f"<th>{html.escape(column_label(n))}</th>" for n in names)
                )
                for series, by_name in shown.items():
                    body.append(
                        f"<tr><td>{html.escape(series)}</td>" + "".join(f"<td>{_k(by_name.get(n))}</td>" for n in names)
                    )
                body.append("</table>")
        elif work.name != "pathological":
            body.append(_bar_chart(work, names, colours))
        body.append(
            "<table><tr><th>case</th>" + "".join(f"<th>{html.escape(column_label(n))}</th>" for n in names) + "</tr>"
        )
        for row in work.rows:
            cells = []
            for n in names:
                cell = row.cells.get(n)
                style = _style(cell)
                cls = "bad" if "red" in style else "good" if style == "green" else "dim" if style == "dim" else ""
                title = html.escape(cell.note or "") if cell else ""
                cells.append(f"<td class='{cls}' title='{title}'>{html.escape(cell_text(cell))}</td>")
            detail = f"<br><small>{html.escape(row.detail)}</small>" if row.detail else ""
            body.append(f"<tr><td>{html.escape(row.case)}{detail}</td>{''.join(cells)}</tr>")
        body.append("</table>")
        for sentence in work.summary:
            body.append(f"<p><small>{html.escape(sentence)}</small></p>")
    body.append("</body></html>")
    return "\n".join(body)

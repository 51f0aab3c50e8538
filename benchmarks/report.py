"""Rendering a run: the terminal table, a Markdown table (for the README), and a self-contained
HTML page with inline SVG charts of the ratios and of the scale curves."""

from __future__ import annotations

import html
import math
from typing import Any

from .results import Cell, Report, Row, Workload

__all__ = ["cell_text", "column_label", "render_html", "render_markdown", "rich_tables"]

_LABELS = {
    "floor": "floor",
    "jsonschema-rs": "jsonschema-rs (raw)",
    "fastjsonschema": "fastjsonschema (raw)",
    "jsonschema": "jsonschema (cached)",
}
_COLOURS = [
    "#888888",
    "#1f77b4",
    "#2ca02c",
    "#17becf",
    "#9467bd",
    "#8c564b",
    "#d62728",
    "#ff7f0e",
    "#e377c2",
    "#bcbd22",
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


def rich_tables(report: Report) -> list[Any]:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    tables = []
    for work in report.workloads:
        table = Table(
            title=f"{work.title}", caption=work.skipped or work.unit, box=box.SIMPLE_HEAVY, title_justify="left"
        )
        # A pathological row's floor is only the yardstick of its ratios: no column of its own.
        names = [n for n in _contenders(report) if not (work.name == "pathological" and n == "floor")]
        table.add_column("case", no_wrap=True)
        for name in names:
            table.add_column(column_label(name, "\n"), justify="right", no_wrap=True)
        for row in work.rows:
            cells = []
            for name in names:
                cell = row.cells.get(name)
                text = cell_text(cell)
                style = _style(cell)
                cells.append(f"[{style}]{text}[/]" if style and text else text)
            table.add_row(row.case, *cells)
        tables.append(table)
        if work.summary:
            tables.append(Text("\n".join(work.summary) + "\n"))
        if work.growth:
            growth = Table(
                title="How cost grows: k in time ~ size^k, smallest to largest size (1.00 = linear)",
                box=box.SIMPLE_HEAVY,
                title_justify="left",
            )
            growth.add_column("series", no_wrap=True)
            for name in names:
                growth.add_column(column_label(name, "\n"), justify="right", no_wrap=True)
            for series, by_name in work.growth.items():
                growth.add_row(series, *(_k(by_name.get(n)) for n in names))
            tables.append(growth)
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


def render_markdown(report: Report) -> str:
    out: list[str] = []
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
        if work.growth:
            out.append("How cost grows: k in time ~ size^k from the smallest to the largest size (1.00 = linear).")
            out.append("")
            out.append("| series | " + " | ".join(column_label(n) for n in names) + " |")
            out.append("|---|" + "---:|" * len(names))
            for series, by_name in work.growth.items():
                out.append(f"| {series} | " + " | ".join(_k(by_name.get(n)) for n in names) + " |")
            out.append("")
    return "\n".join(out)


# -------------------------------------------------------------------------------------- HTML/SVG


def _el(tag: str, text: str | None = None, **attrs: Any) -> str:
    """One SVG element; attribute names use ``_`` for ``-``, the text is escaped."""
    rendered = " ".join(
        f'{k.rstrip("_").replace("_", "-")}="{html.escape(f"{v:.1f}" if isinstance(v, float) else str(v))}"'
        for k, v in attrs.items()
    )
    if text is None:
        return f"<{tag} {rendered}/>"
    return f"<{tag} {rendered}>{text}</{tag}>"


def _svg(width: float, height: float, parts: list[str], size: int) -> str:
    head = f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
    return head + f'font-family="sans-serif" font-size="{size}">' + "".join(parts) + "</svg>"


class _LogAxis:
    """Maps a positive value on decades ``lo``..``hi`` (powers of ten) to ``start``..``start + length``."""

    def __init__(self, lo: float, hi: float, start: float, length: float) -> None:
        self.lo, self.hi, self.start, self.length = lo, max(hi, lo + 1e-9), start, length

    def __call__(self, value: float) -> float:
        v = min(max(math.log10(value), self.lo), self.hi)
        return self.start + (v - self.lo) / (self.hi - self.lo) * self.length


def _bar_chart(work: Workload, names: list[str], colours: dict[str, str]) -> str:
    """Horizontal bars, one group per row, log-scaled ratio axis (1x = the floor, dashed)."""
    rows = [r for r in work.rows if any(_finite(c.ratio) for c in r.cells.values())]
    if not rows:
        return ""
    shown = [n for n in names if n != "floor"]
    ratios = [c.ratio for r in rows for n, c in r.cells.items() if n != "floor" and c.ratio and _finite(c.ratio)]
    lo_exp, hi_exp = -1, math.ceil(math.log10(max(10.0, *ratios)))
    label_w, plot_w, bar_h, gap = 230, 560, 9, 10
    group_h = bar_h * len(shown) + gap
    height = 30 + group_h * len(rows) + 20
    x = _LogAxis(lo_exp, hi_exp, label_w, plot_w)
    parts = []
    for e in range(lo_exp, hi_exp + 1):
        parts.append(_el("line", x1=x(10.0**e), y1=20, x2=x(10.0**e), y2=height - 15, stroke="#ddd"))
        parts.append(_el("text", _ratio(10.0**e), x=x(10.0**e), y=14, text_anchor="middle", fill="#555"))
    parts.append(_el("line", x1=x(1.0), y1=20, x2=x(1.0), y2=height - 15, stroke="#444", stroke_dasharray="3,2"))
    for i, row in enumerate(rows):
        y0 = 24 + i * group_h
        parts.append(_el("text", html.escape(row.case), x=label_w - 6, y=y0 + group_h / 2, text_anchor="end"))
        for j, name in enumerate(shown):
            cell = row.cells.get(name)
            if cell is None:
                continue
            y, text = y0 + j * bar_h, html.escape(cell_text(cell))
            if cell.ratio is not None and _finite(cell.ratio):
                tip = _el("title", f"{html.escape(column_label(name))}: {text}")
                width = max(1.0, x(cell.ratio) - label_w)
                parts.append(_el("rect", tip, x=label_w, y=y, width=width, height=bar_h - 1, fill=colours[name]))
                parts.append(_el("text", text, x=x(cell.ratio) + 3, y=y + bar_h - 1, font_size=8, fill="#333"))
            else:
                parts.append(_el("text", text, x=label_w + 3, y=y + bar_h - 1, font_size=8, fill="#999"))
    return _svg(label_w + plot_w + 90, height, parts, 11)


def _line_chart(title: str, rows: list[Row], names: list[str], colours: dict[str, str]) -> str:
    """Ratio to the floor (log) against size (log), one line per contender."""
    points = {
        n: [(r.size, r.cells[n].ratio) for r in rows if n in r.cells and r.size and _finite(r.cells[n].ratio)]
        for n in names
    }
    ratios = [v for pts in points.values() for _, v in pts if v]
    sizes = [r.size for r in rows if r.size]
    if not ratios or len(sizes) < 2:
        return ""
    w, h, pad = 420, 260, 45
    lo_y = math.floor(math.log10(min(ratios)))
    hi_y = max(math.ceil(math.log10(max(ratios))), lo_y + 1)
    px = _LogAxis(math.log10(min(sizes)), math.log10(max(sizes)), pad, w - pad - 10)
    py = _LogAxis(lo_y, hi_y, h - pad + 15, -(h - pad - 10))
    parts = [_el("text", html.escape(title), x=w / 2, y=12, text_anchor="middle", font_weight="bold")]
    for e in range(lo_y, hi_y + 1):
        parts.append(_el("line", x1=pad, y1=py(10.0**e), x2=w - 10, y2=py(10.0**e), stroke="#ddd"))
        parts.append(_el("text", _ratio(10.0**e), x=pad - 4, y=py(10.0**e) + 3, text_anchor="end", fill="#555"))
    for size in sizes:
        parts.append(_el("text", f"{size:,}", x=px(size), y=h - 14, text_anchor="middle", fill="#555"))
    parts.append(_el("text", f"{html.escape(title)} (log)", x=w / 2, y=h - 2, text_anchor="middle", fill="#555"))
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
    return _svg(w, h, parts, 10)


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
    for work in report.workloads:
        body.append(f"<h2>{html.escape(work.title)}</h2><p><small>{html.escape(work.unit)}</small></p>")
        if work.skipped:
            body.append(f"<p class='dim'>{html.escape(work.skipped)}</p>")
        if work.name == "scale":
            body.append(_line_charts(work, names, colours))
            if work.growth:
                body.append("<p><small>k in time ~ size^k, smallest to largest size (1.00 = linear)</small></p>")
                body.append(
                    "<table><tr><th>series</th>" + "".join(f"<th>{html.escape(column_label(n))}</th>" for n in names)
                )
                for series, by_name in work.growth.items():
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
        for line in work.summary:
            body.append(f"<p><small>{html.escape(line)}</small></p>")
    body.append("</body></html>")
    return "\n".join(body)

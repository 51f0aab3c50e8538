"""The benchmark runner in its quickest mode, on a tiny subset: it runs end to end, writes every
file, and the figures it writes hang together. Speed itself is never asserted here."""

from __future__ import annotations

import functools
import io
import json
import math
import re
import timeit
from pathlib import Path

import msgspec
import pytest

from benchmarks.cli import main
from benchmarks.corpus import load_corpus
from benchmarks.instances import is_valid_reference
from benchmarks.pathological import CASES, _run_isolated, select_cases
from benchmarks.report import _Axis, cell_text, growth_shown, rich_header, rich_tables
from benchmarks.results import Report
from benchmarks.timing import Budget, calibrate, measure
from benchmarks.workloads import _loop

WORKLOADS = ["compile", "arguments", "results", "elicitation", "scale", "pathological"]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path]:
    out = tmp_path_factory.mktemp("bench")
    code = main(
        [
            "--quick",
            "--max-items",
            "4",
            "--rounds",
            "3",
            "--backends",
            "auto",
            "--baselines",
            "jsonschema-rs,jsonschema",
            "--cases",
            "redos-nested-plus,ref-cycle-root",
            "--timeout",
            # Wall-clock time: room for a worker's start and a loaded machine (the suite runs one
            # process per core); `^(a+)+$` on 32 characters backtracks in Python `re` for hours.
            "4",
            "--out",
            str(out),
            "--json",
        ]
    )
    assert code == 0
    return json.loads((out / "bench.json").read_bytes()), out


def test_every_workload_and_contender_is_reported(report: tuple[dict, Path]) -> None:
    data, out = report
    assert data["contenders"] == ["floor", "engine[auto]", "jsonschema-rs", "jsonschema"]
    assert [w["name"] for w in data["workloads"]] == WORKLOADS
    assert data["meta"]["quick"] is True and data["meta"]["duration_s"] > 0
    for work in data["workloads"]:
        assert work["rows"], work["name"]
        for row in work["rows"]:
            assert set(row["cells"]) == set(data["contenders"]), (work["name"], row["case"])
    markdown = (out / "bench.md").read_text()
    page = (out / "bench.html").read_text()
    for work in data["workloads"]:
        for row in work["rows"]:
            assert row["case"] in markdown and row["case"] in page
    assert page.count("<svg") >= 4  # compile, arguments, results, elicitation bars; scale curves


def test_ratios_are_medians_over_the_floor(report: tuple[dict, Path]) -> None:
    data, _ = report
    timed = 0
    for work in data["workloads"]:
        if work["name"] == "pathological":
            continue
        for row in work["rows"]:
            floor = row["cells"]["floor"]
            assert floor["ratio"] == 1.0 and floor["median_s"] == row["floor_s"] > 0
            for name, cell in row["cells"].items():
                if cell["status"] != "ok":
                    assert "ratio" not in cell, (row["case"], name)
                    continue
                assert cell["median_s"] > 0 and math.isfinite(cell["ratio"]) and cell["ratio"] > 0
                if cell["items"] == cell["of"]:
                    assert cell["ratio"] == pytest.approx(cell["median_s"] / row["floor_s"])
                timed += 1
    assert timed >= 20


def test_raw_libraries_and_the_engine_cover_the_real_data(report: tuple[dict, Path]) -> None:
    data, _ = report
    rows = {(w["name"], r["case"]): r for w in data["workloads"] for r in w["rows"]}
    arguments = rows[("arguments", "all bytes")]
    for name in ("engine[auto]", "jsonschema-rs", "jsonschema"):
        assert arguments["cells"][name]["status"] == "ok", name
        assert arguments["cells"][name]["items"] == arguments["cells"][name]["of"] == 4
    assert rows[("compile", "warm")]["cells"]["jsonschema"]["status"] == "n/a"
    equal = rows[("compile", "warm equal")]["cells"]["engine[auto]"]
    assert equal["status"] == "ok" and equal["items"] == equal["of"]
    tools = [r for (w, _), r in rows.items() if w == "scale" and r.get("series") == "tools"]
    assert [r["size"] for r in tools] == [10, 100]


def test_pathological_cases_end_in_an_outcome(report: tuple[dict, Path]) -> None:
    data, _ = report
    rows = {r["case"]: r for r in next(w for w in data["workloads"] if w["name"] == "pathological")["rows"]}
    redos = rows["redos-nested-plus"]["cells"]
    # Linear-time regex in jsonschema-rs; Python `re` backtracks for seconds and is killed.
    assert redos["engine[auto]"]["outcome"] == "invalid"
    assert redos["jsonschema-rs"]["outcome"] == "invalid"
    assert redos["jsonschema"]["outcome"] == "timeout" and redos["jsonschema"]["status"] == "timeout"
    for name, cell in rows["ref-cycle-root"]["cells"].items():
        if name == "floor":
            continue
        outcome = cell["outcome"]
        assert outcome in ("valid", "invalid", "timeout", "crash") or outcome.startswith(
            ("refused:", "error:", "rejected:")
        )


def test_another_data_folder_is_benchmarked_with_what_it_holds(tmp_path: Path) -> None:
    # A folder with tool definitions only (no recorded results, no forms, no catalog): the tools
    # are compiled and called, the workloads without data have no engine rows, and the report
    # is written whole, naming the folder.
    data = tmp_path / "mine"
    (data / "tools").mkdir(parents=True)
    tools = [
        {"name": "search", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}},
        {"name": "add", "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}},
    ]
    (data / "tools" / "mine.json").write_text(json.dumps(tools))
    out = tmp_path / "out"
    argv = ["--quick", "--rounds", "3", "--backends", "auto", "--baselines", "jsonschema-rs", "--no-import-time"]
    argv += ["--workloads", "compile,arguments,results,elicitation", "--data", str(data), "--out", str(out), "--json"]
    assert main(argv) == 0
    report = json.loads((out / "bench.json").read_bytes())
    assert report["meta"]["data"] == str(data)
    work = {w["name"]: w for w in report["workloads"]}
    assert work["compile"]["rows"][0]["cells"]["engine[auto]"]["items"] == 2
    assert work["compile"]["title"].endswith("in mine/")
    called = {row["case"]: row["cells"]["engine[auto]"] for row in work["arguments"]["rows"]}
    assert called["all bytes"]["items"] == 2 and called["all bytes"]["median_s"] > 0
    assert not any(row["cells"]["engine[auto]"].get("median_s") for row in work["elicitation"]["rows"])
    assert "<svg" in (out / "bench.html").read_text()


def test_a_data_folder_without_tools_is_refused_with_the_reason(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="no tools/\\*.json"):
        load_corpus(tmp_path)


def test_recorded_results_and_forms_need_no_id(tmp_path: Path) -> None:
    # Records gathered elsewhere rarely carry this corpus's ids: they are named from where they are.
    (tmp_path / "tools").mkdir()
    (tmp_path / "structured").mkdir()
    (tmp_path / "elicitation").mkdir()
    tool = {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}}
    (tmp_path / "tools" / "s.json").write_text(json.dumps([tool]))
    record = {"source": "s", "tool": "t", "arguments": {"a": 1}, "result": {"content": [], "structuredContent": {}}}
    (tmp_path / "structured" / "tool-results.json").write_text(json.dumps([record]))
    form = {"source": "s", "requestedSchema": {"type": "object", "properties": {}}}
    (tmp_path / "elicitation" / "requested-schemas.json").write_text(json.dumps([form]))
    corpus = load_corpus(tmp_path)
    assert [r.id for r in corpus.results] == ["s/t#0"] and corpus.tools[0].arguments == {"a": 1}
    assert [f.id for f in corpus.forms] == ["s#0"]
    (tmp_path / "structured" / "tool-results.json").write_text(json.dumps([{"source": "s", "tool": "t"}]))
    with pytest.raises(SystemExit, match="entry 0 has no 'result'"):
        load_corpus(tmp_path)


def test_a_crashing_contender_is_reported_not_fatal() -> None:
    case = next(c for c in CASES if c["id"] == "deep-instance-100k")
    job = {"contender": "jsonschema-rs", "schema": case["schema"], "instance": case["instance"], "payload": "object"}
    result = _run_isolated(job, timeout=20)
    # jsonschema-rs recurses natively on a 100,000-deep list and overflows the stack: the
    # subprocess dies, the runner reports it and goes on.
    assert result["outcome"] == "crash", result


def test_generated_arguments_are_valid_for_every_tool() -> None:
    corpus = load_corpus()
    with_arguments = [t for t in corpus.tools if t.arguments is not None]
    assert len(with_arguments) >= 0.9 * len(corpus.tools)
    for tool in with_arguments[::25]:
        assert is_valid_reference(tool.input_schema, tool.arguments), tool.name
    assert all(f.content is not None for f in corpus.forms)


def test_measure_tells_a_slow_call_from_a_fast_one() -> None:
    small, large = list(range(10)), list(range(5000))
    result = measure(
        {"fast": lambda: sorted(small), "slow": lambda: sorted(large)}, Budget(rounds=3, round_seconds=0.005)
    )
    assert result["slow"].median_s > 20 * result["fast"].median_s
    number, took = calibrate(timeit.Timer(lambda: sorted(large)), 0.005)
    assert number >= 1 and took >= 0.005


def test_a_pass_calls_the_engines_name_and_data_methods_with_both_arguments() -> None:
    """A partial of one argument (how a row prepares `validate_arguments(name, data)`) is called
    as its function with the name and the data; anything else is called with the data alone."""
    seen: list[tuple[object, ...]] = []

    def method(name: str, data: bytes) -> None:
        seen.append((name, data))

    def one(data: bytes) -> None:
        seen.append((data,))

    _loop([(functools.partial(method, "a"), b"1"), (functools.partial(method, "b"), b"2")])()
    assert seen == [("a", b"1"), ("b", b"2")]
    seen.clear()
    _loop([(functools.partial(method, "a"), b"1"), (one, b"2")])()  # mixed: each called as given
    assert seen == [("a", b"1"), (b"2",)]
    seen.clear()
    _loop([(functools.partial(method, data=b"1"), "a")])()  # keywords: called as given
    assert seen == [("a", b"1")]


def test_pathological_cases_are_well_formed() -> None:
    from benchmarks.pathological import CATALOG, QUICK_CASES, load_catalog
    from benchmarks.workloads import Context

    rows = [*load_catalog(CATALOG), *CASES]
    ids = [row["id"] for row in rows]
    assert len(ids) == len(set(ids))
    for row in rows:
        assert ("catalog" in row) != ("schema" in row and "instance" in row), row["id"]
        assert row.get("answer") in (None, "valid", "invalid"), row["id"]
    quick = select_cases(Context(corpus=None, contenders=[], budget=Budget(), quick=True))  # type: ignore[arg-type]
    assert len(quick) == len({row.get("case", row["id"]) for row in quick}) >= min(len(QUICK_CASES), 3)


def _loaded(report: tuple[dict, Path]) -> Report:
    _, out = report
    return msgspec.json.decode((out / "bench.json").read_bytes(), type=Report)


def test_headline_is_time_per_call_next_to_what_mcp_stacks_run(report: tuple[dict, Path]) -> None:
    data, out = report
    lines = {line["workload"]: line for line in data["headline"]}
    assert list(lines) == ["compile", "arguments", "results", "elicitation"]
    rows = {w["name"]: w["rows"][0] for w in data["workloads"]}
    for name, line in lines.items():
        engine_cell = rows[name]["cells"]["engine[auto]"]
        assert line["engine"] == "engine[auto]" and line["case"] == rows[name]["case"]
        assert line["engine_us"] == pytest.approx(engine_cell["median_s"] / engine_cell["items"] * 1e6)
        assert set(line["baselines"]) == {"jsonschema", "jsonschema-rs"}  # the baselines this run asked for
        for cell in line["baselines"].values():
            if cell["status"] == "ok":
                assert cell["ratio"] == pytest.approx(cell["us"] / line["engine_us"])
    markdown = (out / "bench.md").read_text()
    # The header, then the headline, before any workload's table.
    for key in ("| date |", "| commit |", "| machine |", "| packages |", "| mode | quick"):
        assert key in markdown
    assert "load" in markdown and "CPUs" in markdown and "jsonschema-rs 0." in markdown
    assert markdown.index("**Headline**") < markdown.index("**compile**")
    assert "python-jsonschema, cached (the MCP Python SDK)" in markdown and " µs · " in markdown
    imports = data["meta"]["import_time"]
    assert imports["engine_ms"] > 0 and imports["ratio"] == pytest.approx(
        imports["engine_ms"] / imports["baseline_ms"], rel=0.02
    )
    assert "import engine: " in markdown


def test_terminal_tables_fit_120_columns(report: tuple[dict, Path]) -> None:
    from rich.console import Console

    loaded = _loaded(report)
    console = Console(width=120, record=True, file=io.StringIO())
    for part in [*rich_header(loaded), *rich_tables(loaded)]:
        console.print(part)
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 120
    assert "…" not in text  # nothing cut short to fit
    assert text.index("Should I adopt it?") < text.index("Compile every tool schema")
    for row in loaded.workloads[0].rows:  # every cell still printed, in one part or another
        for cell in row.cells.values():
            assert cell_text(cell) in text


def test_quick_runs_fit_no_growth_exponent_to_two_points(report: tuple[dict, Path]) -> None:
    data, out = report
    scale = next(w for w in _loaded(report).workloads if w.name == "scale")
    shown, note = growth_shown(scale)
    assert shown == {} and note is not None and "two" in note
    markdown = (out / "bench.md").read_text()
    assert "How cost grows" not in markdown and "no growth exponent" in markdown


def test_charts_label_every_bar_and_use_colour_blind_safe_colours(report: tuple[dict, Path]) -> None:
    _, out = report
    page = (out / "bench.html").read_text()
    fills = set(re.findall(r'<rect [^>]*fill="(#[0-9A-Fa-f]{6})"', page))
    okabe_ito = {"#999999", "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442"}
    assert fills and fills <= okabe_ito
    # Each bar is followed by its label: the contender and the value it shows.
    bars = re.findall(r"<rect [^>]*><title>([^<]*)</title></rect><text [^>]*>([^<]*)</text>", page)
    assert bars and all(title == label for title, label in bars)
    # Every point on a scale curve carries its value.
    points = re.findall(r"<circle [^>]*><title>[^<]*: ([^<]*)</title></circle><text [^>]*>([^<]*)</text>", page)
    assert points and all(value == label for value, label in points)


def test_ratio_axis_is_linear_near_one_and_log_where_the_range_needs_it() -> None:
    near = _Axis([0.7, 1.0, 2.4, 4.1], 0, 100)
    assert not near.log and near.caption == "linear scale" and near(0) == 0 and near.ticks[0] == 0
    assert near(near.ticks[-1]) == 100 and near.ticks[-1] >= 4.1
    wide = _Axis([1.0, 5.0, 1400.0], 0, 100)
    assert wide.log and "log scale" in wide.caption and wide(1.0) < wide(10.0) < wide(1000.0)


def test_bar_axis_stays_linear_and_cuts_the_few_far_bars() -> None:
    from benchmarks.report import _bar_axis

    axis, cut = _bar_axis([1.2, 2.5, 4.0, 6.1], 0, 100)
    assert not axis.log and cut is None
    axis, cut = _bar_axis([1.2, 2.5, 4.0, 6.1, 135.0], 0, 100)  # one far bar: cut, the rest readable
    assert not axis.log and cut is not None and 6.1 <= cut < 135 and axis(135.0) == 100
    axis, cut = _bar_axis([1.2, 90.0, 400.0, 1400.0], 0, 100)  # mostly far apart: log, said
    assert axis.log and cut is None and "log scale" in axis.caption

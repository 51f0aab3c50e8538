"""The benchmark runner in its quickest mode, on a tiny subset: it runs end to end, writes every
file, and the figures it writes hang together. Speed itself is never asserted here."""

from __future__ import annotations

import json
import math
import timeit
from pathlib import Path

import pytest

from benchmarks.cli import main
from benchmarks.corpus import load_corpus
from benchmarks.instances import is_valid_reference
from benchmarks.pathological import CASES, _run_isolated, select_cases
from benchmarks.timing import Budget, calibrate, measure

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
            "1",
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

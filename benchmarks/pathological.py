"""Pathological composition: hostile schemas and payloads, each contender in a subprocess.

The cases come from ``bench_data/pathological/`` (the guard's catalog, when present) and from the
built-in list below, which covers every class the benchmark reports on. Every contender — the
engine per backend and the raw libraries alike — runs each case in its own process
(``benchmarks.isolate``) with a timeout, so a runaway case is reported as ``timeout`` and a
segfault as ``crash``, and the run goes on.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec

from .contenders import decode
from .corpus import BENCH_DATA
from .results import Cell, Row, Workload
from .workloads import Context

__all__ = ["CASES", "load_catalog", "pathological_workload"]

ROOT = Path(__file__).resolve().parent.parent


def _chain_if(n: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer", "minimum": n}
    for i in reversed(range(n)):
        schema = {"if": {"const": i}, "then": {"type": "integer"}, "else": schema}
    return schema


def _ref_bomb(levels: int) -> dict[str, Any]:
    defs: dict[str, Any] = {"d0": {"type": "string"}}
    for i in range(1, levels + 1):
        defs[f"d{i}"] = {"allOf": [{"$ref": f"#/$defs/d{i - 1}"}, {"$ref": f"#/$defs/d{i - 1}"}]}
    return {"$defs": defs, "$ref": f"#/$defs/d{levels}"}


def _unevaluated_over_anyof(levels: int) -> dict[str, Any]:
    defs: dict[str, Any] = {f"l{levels}": {"properties": {"leaf": {"type": "integer"}}}}
    for i in reversed(range(levels)):
        nxt = f"#/$defs/l{i + 1}"
        defs[f"l{i}"] = {
            "anyOf": [
                {"$ref": nxt},
                {"$ref": nxt, "properties": {f"p{i}": {"type": "integer"}}},
            ]
        }
    return {"$defs": defs, "$ref": "#/$defs/l0", "unevaluatedProperties": False}


def _one_of_all_branches(n: int) -> dict[str, Any]:
    return {
        "oneOf": [
            {"type": "object", "properties": {"kind": {"const": f"k{i}"}}, "required": ["kind"]} for i in range(n)
        ]
    }


_RECURSIVE_ANYOF = {
    "$defs": {
        "n": {
            "anyOf": [
                {"type": "array", "items": {"$ref": "#/$defs/n"}},
                {"type": "array", "items": {"$ref": "#/$defs/n"}, "minItems": 1},
            ]
        }
    },
    "$ref": "#/$defs/n",
}

# Each case: id, class, what the engine is expected to do, the instance's true answer under the
# JSON Schema semantics where one exists (a library answering otherwise is marked wrong), schema
# and instance (or build specs, see benchmarks.isolate.build), and whether the instance is handed
# over as bytes or as Python objects.
CASES: list[dict[str, Any]] = [
    {
        "id": "anyof-recursive-error-path",
        "answer": "invalid",
        "class": "nested anyOf",
        "expect": "refuse (limit) or answer within the bound",
        "schema": {"json": _RECURSIVE_ANYOF},
        "instance": {"nest": "array", "depth": 20, "leaf": "x"},
    },
    {
        "id": "oneof-every-branch",
        "answer": "valid",
        "class": "oneOf that must try every branch",
        "expect": "validate within the bound",
        "schema": {"json": _one_of_all_branches(200)},
        "instance": {"json": {"kind": "k199"}},
    },
    {
        "id": "unevaluated-over-anyof",
        "answer": "invalid",
        "class": "unevaluatedProperties over nested anyOf",
        "expect": "refuse (limit) or answer within the bound",
        "schema": {"json": _unevaluated_over_anyof(20)},
        "instance": {"json": {"leaf": 1, "p0": 1, "p19": 1, "zzz": 1}},
    },
    {
        "id": "if-then-else-chain",
        "answer": "valid",
        "class": "if/then/else chain",
        "expect": "validate within the bound",
        "schema": {"json": _chain_if(60)},
        "instance": {"json": 1000},
    },
    {
        "id": "ref-bomb-30",
        "answer": "valid",
        "class": "$ref expansion bomb ($defs doubling)",
        "expect": "refuse: limit-exceeded",
        "schema": {"json": _ref_bomb(30)},
        "instance": {"json": "x"},
    },
    {
        "id": "deep-schema-5000",
        "answer": "invalid",
        "class": "deep schema",
        "expect": "refuse: limit-exceeded",
        "schema": {"nest_schema": "properties", "depth": 5000},
        "instance": {"json": {"a": {"a": 1}}},
    },
    {
        "id": "deep-instance-100k",
        "answer": "valid",
        "class": "deep instance (Python objects) against a recursive schema",
        "expect": "reject the payload (too deep), never crash",
        "schema": {"json": {"type": "array", "items": {"$ref": "#"}}},
        "instance": {"nest": "array", "depth": 100_000, "leaf": None},
        "payload": "object",
    },
    {
        "id": "deep-instance-bytes",
        "answer": "valid",
        "class": "deep instance (bytes)",
        "expect": "reject the payload: too-deep",
        "schema": {"json": {"type": "array", "items": {"$ref": "#"}}},
        "instance": {"nest": "array", "depth": 5_000, "leaf": None},
    },
    {
        "id": "redos-nested-plus",
        "answer": "invalid",
        "class": "ReDoS ^(a+)+$",
        "expect": "validate in linear time",
        "schema": {"json": {"type": "string", "pattern": "^(a+)+$"}},
        "instance": {"repeat": "a", "times": 32, "then": "!"},
    },
    {
        "id": "redos-alternation",
        "answer": "valid",
        "class": "ReDoS ^(a|aa)+$ in patternProperties",
        "expect": "validate in linear time",
        "schema": {"json": {"type": "object", "patternProperties": {"^(a|aa)+$": {"type": "integer"}}}},
        "instance": {"json": {"a" * 40 + "!": 1}},
    },
    {
        "id": "unique-items-20k-objects",
        "answer": "invalid",
        "class": "uniqueItems on a large array",
        "expect": "validate within the bound",
        "schema": {"json": {"type": "array", "uniqueItems": True}},
        "instance": {"range": 20_000, "objects": True, "duplicate_last": True},
    },
    {
        "id": "ref-cycle-root",
        "class": '$ref cycle that never descends ({"$ref": "#"})',
        "expect": "refuse at compile time",
        "schema": {"json": {"$ref": "#"}},
        "instance": {"json": 1},
    },
    {
        "id": "ref-cycle-pair",
        "class": "$ref cycle a -> b -> a",
        "expect": "refuse at compile time",
        "schema": {"json": {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}},
        "instance": {"json": 1},
    },
    {
        "id": "remote-ref-metadata",
        "class": "$ref to a cloud metadata address",
        "expect": "refuse: remote-ref",
        "schema": {"json": {"$ref": "http://169.254.169.254/latest/meta-data/schema.json"}},
        "instance": {"json": 1},
    },
]

QUICK_CASES = ("oneof-every-branch", "ref-bomb-30", "redos-nested-plus", "ref-cycle-root")


def load_catalog(root: Path = BENCH_DATA / "pathological") -> list[dict[str, Any]]:
    """Cases from the catalog shipped in ``bench_data/pathological/``, in the runner's shape.

    Accepted: JSON files holding one case or a list of cases (or ``{"cases": [...]}``), each
    with an ``id`` (or ``name``), a ``schema`` and an ``instance`` (or ``instances``: the first is
    used), and optionally ``expect``. Entries of any other shape are left out.
    """
    cases: list[dict[str, Any]] = []
    if not root.is_dir():
        return cases
    for path in sorted(root.rglob("*.json")):
        try:
            doc = json.loads(path.read_bytes())
        except (OSError, ValueError):
            continue
        entries = doc.get("cases", [doc]) if isinstance(doc, dict) else doc if isinstance(doc, list) else []
        for i, entry in enumerate(entries):
            if not isinstance(entry, dict) or "schema" not in entry:
                continue
            instance = entry.get("instance")
            if instance is None and isinstance(entry.get("instances"), list) and entry["instances"]:
                instance = entry["instances"][0]
            if isinstance(instance, dict) and "data" in instance and len(instance) <= 3:
                instance = instance["data"]
            expect = entry.get("expect", "")
            if isinstance(expect, dict):
                expect = " ".join(f"{k}={v}" for k, v in expect.items())
            cases.append(
                {
                    "id": str(entry.get("id") or entry.get("name") or f"{path.stem}#{i}"),
                    "class": str(entry.get("class") or entry.get("category") or path.stem),
                    "expect": str(expect),
                    "answer": entry.get("answer") if entry.get("answer") in ("valid", "invalid") else None,
                    "schema": {"json": entry["schema"]},
                    "instance": {"json": instance},
                    "source": str(path.relative_to(root.parent.parent)),
                }
            )
    return cases


def _run_isolated(job: dict[str, Any], timeout: float) -> dict[str, Any]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "benchmarks.isolate"],
            input=msgspec.json.encode(job),
            capture_output=True,
            timeout=timeout,
            cwd=ROOT,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return {"outcome": "timeout", "detail": f"killed after {timeout:g} s"}
    if proc.returncode < 0:
        try:
            name = signal.Signals(-proc.returncode).name
        except ValueError:
            name = f"signal {-proc.returncode}"
        return {"outcome": "crash", "detail": name}
    if proc.returncode != 0 or not proc.stdout.strip():
        tail = proc.stderr.decode(errors="replace").strip().splitlines()
        return {"outcome": "crash", "detail": f"exit {proc.returncode}: {tail[-1][:160] if tail else ''}"}
    result: dict[str, Any] = msgspec.json.decode(proc.stdout.strip().splitlines()[-1])
    return result


def _floor_seconds(case: dict[str, Any]) -> float | None:
    from .isolate import build, encode_spec
    from .timing import Budget, measure

    try:
        data = encode_spec(case["instance"], build(case["instance"]))
        decode(data)
    except (RecursionError, msgspec.MsgspecError, ValueError):
        return None
    return measure({"floor": lambda: decode(data)}, Budget(rounds=3, round_seconds=0.01))["floor"].median_s


def pathological_workload(ctx: Context) -> Workload:
    work = Workload(
        name="pathological",
        title="Pathological composition: every contender in a subprocess with a timeout",
        unit=f"outcome, then validation time as a ratio to decoding the instance (timeout {ctx.timeout:g} s)",
    )
    catalog = load_catalog()
    cases = [*catalog, *(c for c in CASES if c["id"] not in {k["id"] for k in catalog})]
    if ctx.cases is not None:
        cases = [c for c in cases if c["id"] in ctx.cases]
    elif ctx.quick:
        cases = [c for c in cases if c["id"] in QUICK_CASES]
    names = [c.name for c in ctx.contenders if c.kind != "floor"]
    for case in cases:
        ctx.progress(f"pathological {case['id']}")
        floor_s = _floor_seconds(case)
        row = Row(case=case["id"], detail=case.get("class", ""), expect=case.get("expect") or None, floor_s=floor_s)
        row.cells["floor"] = Cell(
            status="ok" if floor_s else "n/a",
            ratio=1.0 if floor_s else None,
            median_s=floor_s,
            note=None if floor_s else "msgspec cannot decode it either",
        )
        for name in names:
            job = {
                "contender": name,
                "schema": case["schema"],
                "instance": case["instance"],
                "payload": case.get("payload", "bytes"),
            }
            result = _run_isolated(job, ctx.timeout)
            outcome = result["outcome"]
            status = outcome if outcome in ("timeout", "crash") else "ok"
            if outcome in ("valid", "invalid") and case.get("answer") not in (None, outcome):
                status = "wrong"
            validate_s = result.get("validate_s")
            ratio = validate_s / floor_s if (validate_s is not None and floor_s) else None
            row.cells[name] = Cell(
                status=status,
                outcome=outcome,
                median_s=validate_s,
                ratio=ratio,
                note=result.get("detail") or None,
            )
            if result.get("compile_s") is not None:
                row.cells[
                    name
                ].note = f"{row.cells[name].note or ''} (compile {result['compile_s'] * 1e3:.1f} ms)".strip()
        work.rows.append(row)
    return work

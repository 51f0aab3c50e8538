"""Pathological composition: hostile schemas and payloads, each contender in a subprocess.

The cases come from ``bench_data/pathological/`` (the guard's catalog, when present) and from the
built-in list below, which covers every class the benchmark reports on. Every contender — the
engine per backend and the raw libraries alike — runs each case in its own process
(``benchmarks.isolate``) with a timeout, so a runaway case is reported as ``timeout`` and a
segfault as ``crash``, and the run goes on.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import msgspec

from .contenders import decode
from .corpus import BENCH_DATA
from .isolate import catalog_module
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
# over as bytes or as Python objects. ``covered_by`` names the guard catalog's cases that stand
# for this one when the catalog is present.
CASES: list[dict[str, Any]] = [
    {
        "id": "anyof-recursive-error-path",
        "covered_by": ["recursive-anyof-explain"],
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
        "covered_by": ["unevaluated-nesting"],
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
        "covered_by": ["ref-expansion-bomb-30"],
        "answer": "valid",
        "class": "$ref expansion bomb ($defs doubling)",
        "expect": "refuse: limit-exceeded",
        "schema": {"json": _ref_bomb(30)},
        "instance": {"json": "x"},
    },
    {
        "id": "deep-schema-5000",
        "covered_by": ["schema-deep-not", "document-deep-const"],
        "answer": "invalid",
        "class": "deep schema",
        "expect": "refuse: limit-exceeded",
        "schema": {"nest_schema": "properties", "depth": 5000},
        "instance": {"json": {"a": {"a": 1}}},
    },
    {
        "id": "deep-instance-100k",
        "covered_by": ["deep-instance-recursive"],
        "answer": "valid",
        "class": "deep instance (Python objects) against a recursive schema",
        "expect": "reject the payload (too deep), never crash",
        "schema": {"json": {"type": "array", "items": {"$ref": "#"}}},
        "instance": {"nest": "array", "depth": 100_000, "leaf": None},
        "payload": "object",
    },
    {
        "id": "deep-instance-bytes",
        "covered_by": ["deep-instance-recursive"],
        "answer": "valid",
        "class": "deep instance (bytes)",
        "expect": "reject the payload: too-deep",
        "schema": {"json": {"type": "array", "items": {"$ref": "#"}}},
        "instance": {"nest": "array", "depth": 5_000, "leaf": None},
    },
    {
        "id": "redos-nested-plus",
        "covered_by": ["regex-nested-quantifier"],
        "answer": "invalid",
        "class": "ReDoS ^(a+)+$",
        "expect": "validate in linear time",
        "schema": {"json": {"type": "string", "pattern": "^(a+)+$"}},
        "instance": {"repeat": "a", "times": 32, "then": "!"},
    },
    {
        "id": "redos-alternation",
        "covered_by": ["regex-pattern-properties-redos"],
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
        "covered_by": ["ref-self"],
        "class": '$ref cycle that never descends ({"$ref": "#"})',
        "expect": "refuse at compile time",
        "schema": {"json": {"$ref": "#"}},
        "instance": {"json": 1},
    },
    {
        "id": "ref-cycle-pair",
        "covered_by": ["ref-cycle-two"],
        "class": "$ref cycle a -> b -> a",
        "expect": "refuse at compile time",
        "schema": {"json": {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}},
        "instance": {"json": 1},
    },
    {
        "id": "remote-ref-metadata",
        "covered_by": ["ref-cloud-metadata"],
        "class": "$ref to a cloud metadata address",
        "expect": "refuse: remote-ref",
        "schema": {"json": {"$ref": "http://169.254.169.254/latest/meta-data/schema.json"}},
        "instance": {"json": 1},
    },
]

QUICK_CASES = ("oneof-every-branch", "ref-bomb-30", "redos-nested-plus", "ref-cycle-root")
# The same, by the guard catalog's names, when it is present.
QUICK_CATALOG = ("ref-expansion-bomb-30", "regex-nested-quantifier", "ref-self", "recursive-anyof-explain")
CATALOG = BENCH_DATA / "pathological"


def load_catalog(folder: Path = CATALOG) -> list[dict[str, Any]]:
    """One row per payload of every case in the guard's catalog (``bench_data/pathological/``,
    read with its own ``catalog.py``); a case without payloads gets one row validating ``null``
    (the engine refuses it at compile time; the raw libraries show what they do with it)."""
    catalog = catalog_module(folder)
    if catalog is None:
        return []
    rows: list[dict[str, Any]] = []
    for case in catalog.cases():
        payloads = case.payloads or [None]
        for payload in payloads:
            expect = case.expect if payload is None else f"{case.expect}, then {payload.expect}"
            answer = payload.expect if payload is not None and payload.expect in ("valid", "invalid") else None
            rows.append(
                {
                    "id": case.name if payload is None else f"{case.name}/{payload.name}",
                    "case": case.name,
                    "class": f"{case.threat}: {case.description}",
                    "expect": expect,
                    "answer": answer,
                    "catalog": {
                        "dir": str(folder),
                        "case": case.name,
                        "payload": None if payload is None else payload.name,
                    },
                }
            )
    return rows


def select_cases(ctx: Context, folder: Path | None = None) -> list[dict[str, Any]]:
    """The catalog's cases (``folder``, by default the data folder's ``pathological/``), then the
    built-in ones for classes the catalog does not cover."""
    catalog = load_catalog(ctx.data / "pathological" if folder is None else folder)
    covered = {row["case"] for row in catalog}
    if ctx.cases is not None:  # asked for by name: any case, covered or not
        return [c for c in [*catalog, *CASES] if c["id"] in ctx.cases or c.get("case") in ctx.cases]
    own = [c for c in CASES if not covered & set(c.get("covered_by", ()))]
    cases = [*catalog, *own]
    if ctx.quick:
        quick = QUICK_CATALOG if catalog else QUICK_CASES
        first: dict[str, dict[str, Any]] = {}
        for c in cases:  # one row (the first payload) per quick case
            first.setdefault(c.get("case", c["id"]), c)
        return [first[name] for name in quick if name in first]
    return cases


class Worker:
    """One contender's subprocess, kept across cases; replaced after a timeout or a crash."""

    def __init__(self, contender: str) -> None:
        self.contender = contender
        self.proc: subprocess.Popen[bytes] | None = None
        self.stderr: Any = None

    def _start(self) -> subprocess.Popen[bytes]:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
        self.stderr = tempfile.TemporaryFile()
        return subprocess.Popen(
            [sys.executable, "-m", "benchmarks.isolate"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            cwd=ROOT,
            env=env,
        )

    def run(self, job: dict[str, Any], timeout: float) -> dict[str, Any]:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = self._start()
        proc = self.proc
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(msgspec.json.encode({**job, "contender": self.contender}) + b"\n")
            proc.stdin.flush()
        except BrokenPipeError:
            return self._crashed()
        with selectors.DefaultSelector() as selector:
            selector.register(proc.stdout, selectors.EVENT_READ)
            ready = selector.select(timeout)
        if not ready:
            self.close()
            return {"outcome": "timeout", "detail": f"killed after {timeout:g} s"}
        line = proc.stdout.readline()
        if not line:
            return self._crashed()
        result: dict[str, Any] = msgspec.json.decode(line)
        return result

    def _crashed(self) -> dict[str, Any]:
        assert self.proc is not None
        code = self.proc.wait()
        tail = b""
        if self.stderr is not None:
            self.stderr.seek(0)
            tail = self.stderr.read()[-2000:]
        self.close()
        if code < 0:
            try:
                return {"outcome": "crash", "detail": signal.Signals(-code).name}
            except ValueError:
                return {"outcome": "crash", "detail": f"signal {-code}"}
        lines = tail.decode(errors="replace").strip().splitlines()
        return {"outcome": "crash", "detail": f"exit {code}: {lines[-1][:160] if lines else ''}"}

    def close(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            for stream in (self.proc.stdin, self.proc.stdout):
                if stream is not None:
                    stream.close()
            self.proc = None
        if self.stderr is not None:
            self.stderr.close()
            self.stderr = None


def _run_isolated(job: dict[str, Any], timeout: float) -> dict[str, Any]:
    """One job in a worker of its own (for a single case, and for tests)."""
    worker = Worker(job["contender"])
    try:
        return worker.run(job, timeout)
    finally:
        worker.close()


def _payload_bytes(case: dict[str, Any]) -> bytes | None:
    """The instance's JSON bytes, for the floor; ``None`` when it has none msgspec can read."""
    from .isolate import build, encode_spec, load_catalog_case

    try:
        if "catalog" in case:
            _, _, _, payload = load_catalog_case(case)
            data = payload if isinstance(payload, bytes) else msgspec.json.encode(payload)
        else:
            data = encode_spec(case["instance"], build(case["instance"]))
        decode(data)
    except (RecursionError, msgspec.MsgspecError, ValueError, TypeError, OverflowError):
        return None
    return data


def _floor_seconds(case: dict[str, Any]) -> float | None:
    from .timing import Budget, measure

    data = _payload_bytes(case)
    if data is None:
        return None
    return measure({"floor": lambda: decode(data)}, Budget(rounds=3, round_seconds=0.01))["floor"].median_s


def pathological_workload(ctx: Context) -> Workload:
    work = Workload(
        name="pathological",
        title="Pathological composition: every contender in a subprocess with a timeout",
        unit=f"outcome, then validation time as a ratio to decoding the instance (timeout {ctx.timeout:g} s)",
    )
    cases = select_cases(ctx)
    names = [c.name for c in ctx.contenders if c.kind != "floor"]
    workers = {name: Worker(name) for name in names}
    try:
        for case in cases:
            ctx.progress(f"pathological {case['id']}")
            work.rows.append(_run_case(ctx, case, workers))
    finally:
        for worker in workers.values():
            worker.close()
    return work


def _run_case(ctx: Context, case: dict[str, Any], workers: dict[str, Worker]) -> Row:
    floor_s = _floor_seconds(case)
    row = Row(case=case["id"], detail=case.get("class", ""), expect=case.get("expect") or None, floor_s=floor_s)
    row.cells["floor"] = Cell(
        status="ok" if floor_s else "n/a",
        ratio=1.0 if floor_s else None,
        median_s=floor_s,
        note=None if floor_s else "msgspec cannot decode it either",
    )
    job = {k: case[k] for k in ("schema", "instance", "payload", "catalog") if k in case}
    for name, worker in workers.items():
        result = worker.run(job, ctx.timeout)
        outcome = result["outcome"]
        status = outcome if outcome in ("timeout", "crash") else "ok"
        if outcome in ("valid", "invalid") and case.get("answer") not in (None, outcome):
            status = "wrong"
        validate_s = result.get("validate_s")
        note = result.get("detail") or ""
        if result.get("compile_s") is not None:
            note = f"{note} (compile {result['compile_s'] * 1e3:.1f} ms)".strip()
        first_s = result.get("first_s")
        if first_s is not None and validate_s is not None and first_s > 10 * validate_s and first_s > 1e-3:
            note = f"{note} (first call {first_s * 1e3:.1f} ms)".strip()
        row.cells[name] = Cell(
            status=status,
            outcome=outcome,
            median_s=validate_s,
            ratio=validate_s / floor_s if (validate_s is not None and floor_s) else None,
            note=note or None,
        )
    return row

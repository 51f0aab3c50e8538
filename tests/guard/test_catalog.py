"""Every case of bench_data/pathological/: refused with the stated reason, or validated with the
stated outcome, within the case's time bound."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import engine
from tests._isolate import isolated

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench_data" / "pathological"))
from catalog import Case, cases  # noqa: E402

# A backstop: each case is killed at its own bound in its child process.
pytestmark = pytest.mark.timeout(120)

CASES = cases()


def test_catalog_covers_every_threat_and_reason() -> None:
    threats = {case.threat for case in CASES}
    expected = {"fetch", "cycle", "expansion", "explanation", "deep-instance", "regex", "budget", "payload", "work"}
    assert expected <= threats
    reasons = {case.expect for case in CASES}
    assert {
        "remote-ref",
        "unresolvable-ref",
        "invalid-schema",
        "limit-exceeded",
        "unsafe-pattern",
        "compiles",
    } <= reasons
    limits = {case.limit for case in CASES if case.limit}
    assert limits == set(engine._guard.LIMIT_MEANINGS)


def run_case(case: Case) -> None:
    eng = engine.Engine(engine.EngineConfig.load(env={}, **case.config))
    if case.expect != "compiles":
        with pytest.raises(engine.SchemaRejected) as refused:
            eng.compile(case.schema, registry=case.registry or None)
        assert refused.value.reason == case.expect, refused.value.message
        if case.limit:
            details = refused.value.details
            assert details["limit"] == case.limit
            assert details["measured"] > details["bound"] == getattr(eng.config.limits, case.limit)
        return
    compiled = eng.compile(case.schema, registry=case.registry or None)
    for payload in case.payloads:
        outcome, truncated = _outcome(compiled, payload.value, payload.data)
        assert outcome == payload.expect, f"{payload.name}: {outcome}"
        if payload.truncated is not None:
            assert truncated is payload.truncated, payload.name


def _outcome(compiled: engine.CompiledSchema, value: object, data: bytes | None) -> tuple[str, bool | None]:
    try:
        if data is not None:
            compiled.decode(data)
        else:
            compiled.validate(value)
    except engine.ValidationFailed as failure:
        assert failure.issues
        if value is not None:
            assert compiled.is_valid(value) is False  # a limit never turns into "valid"
        return "invalid", failure.truncated
    except engine.DecodeError as error:
        return str(error.reason), None
    if value is not None:
        assert compiled.is_valid(value) is True
    return "valid", None


# Each case runs in a child process of its own (tests/_isolate.py): killed at its time bound while
# it runs, its address space capped, a native crash reported under the case's name.


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_case(case: Case) -> None:
    isolated(case.name, run_case, case, seconds=case.bound_seconds)


BACKENDS = ("msgspec", "fastjsonschema", "jsonschema")
# Backends whose checks weigh each instance at their own rate (`Backend.evaluation_rate`).
WEIGHED_AT_RATE = frozenset({"fastjsonschema"})


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_case_through_each_backend(case: Case, backend: str) -> None:
    """Forced onto one backend, a case ends the same way, or that backend declines it."""
    isolated(f"{case.name} on {backend}", run_on_backend, case, backend, seconds=case.bound_seconds)


def run_on_backend(case: Case, backend: str) -> None:
    eng = engine.Engine(engine.EngineConfig.load(env={}, backend=backend, **case.config))
    try:
        compiled = eng.compile(case.schema, registry=case.registry or None)
    except engine.SchemaRejected as refused:
        assert refused.reason in (case.expect, "unsupported-by-backend"), refused.message
    else:
        assert case.expect == "compiles"
        for payload in case.payloads:
            at_rate = payload.at_rate if backend in WEIGHED_AT_RATE else None
            assert _outcome(compiled, payload.value, payload.data)[0] == (at_rate or payload.expect), payload.name

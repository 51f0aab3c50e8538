"""The official JSON-Schema-Test-Suite through the msgspec backend alone.

Every test either gives the suite's answer or its schema is refused with a reason; never a wrong
answer. The typed paths (``is_valid`` on objects, ``decode`` on bytes) are checked directly, without
the general backend's second opinion: they may say "no" to a valid instance (the pipeline re-checks
those), never "yes" to an invalid one.
"""

from __future__ import annotations

import json
from collections import Counter
from functools import cache

import msgspec
import pytest

import engine
from tests.backends.msgspec_helpers import msgspec_validator
from tests.conformance.suite import DIALECTS, SuiteTest, iter_tests, remotes

REQUIRED = [t for folder in DIALECTS for t in iter_tests(folder)]


@cache
def engine_for(dialect: str) -> engine.Engine:
    return engine.Engine(engine.EngineConfig(backend="msgspec", default_dialect=dialect, cache_size=4096))


def compiled_or_refusal(test: SuiteTest) -> engine.CompiledSchema | engine.SchemaRejected:
    try:
        return engine_for(test.dialect).compile(test.schema, registry=remotes(test.folder))
    except engine.SchemaRejected as exc:
        return exc


@pytest.mark.parametrize("test", REQUIRED, ids=lambda t: t.id)
def test_required(test: SuiteTest) -> None:
    outcome = compiled_or_refusal(test)
    if isinstance(outcome, engine.SchemaRejected):
        assert outcome.reason in ("unsupported-by-backend", "unresolvable-ref", "remote-ref", "invalid-schema")
        assert outcome.message
        return
    assert outcome.backend == "msgspec"
    checker = msgspec_validator(engine_for(test.dialect), outcome, remotes(test.folder))
    # The pipeline's answer is exact.
    assert outcome.is_valid(test.data) is test.valid
    if test.valid:
        assert outcome.decode(json.dumps(test.data)) == test.data
    else:
        with pytest.raises(engine.ValidationFailed):
            outcome.decode(json.dumps(test.data))
    # The typed path alone never says yes to an invalid instance.
    if not test.valid:
        assert checker.is_valid(test.data) is False
        with pytest.raises((msgspec.ValidationError, msgspec.DecodeError)):
            checker.decode(json.dumps(test.data).encode())
    else:
        try:
            value = checker.decode(json.dumps(test.data).encode())
        except (msgspec.ValidationError, msgspec.DecodeError):
            pass  # stricter than the schema: re-checked by the pipeline
        else:
            assert value == test.data


def test_share_translated() -> None:
    """Not a threshold, a regression guard: the typed path covers a real part of the suite."""
    counts: Counter[str] = Counter()
    for test in REQUIRED:
        counts["refused" if isinstance(compiled_or_refusal(test), engine.SchemaRejected) else "typed"] += 1
    assert counts["typed"] > len(REQUIRED) // 4, counts

"""The official JSON-Schema-Test-Suite through every backend in the registry, in every dialect the
backend claims: the required tests, the optional ones, and the format tests with assertion on.

Exact or refused. A backend either compiles a suite schema and then gives the suite's answer on
every path (``is_valid``; ``validate``, which raises with issues; ``decode`` on the JSON text), or
refuses the schema at compile time with a typed reason. A wrong answer fails the test. The
backend's own validator, without the pipeline around it, is held to the contract too: it never
says yes to an invalid instance, and whatever it rejects comes with an issue.

Refusals are pinned per backend and dialect (:data:`PINNED_REFUSALS`): a backend that starts
refusing more of the suite fails, so "refuse everything" can never pass as "exact".
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from functools import cache
from typing import Any, NamedTuple

import msgspec
import pytest

import engine
from engine._dialect import Dialect, normalise_schema_uri
from engine.backends import BACKENDS, Backend, BackendValidator, SchemaSource, load_backend
from tests import conftest
from tests.conformance.suite import DIALECTS, SUITE, SuiteTest, iter_tests, remotes
from tests.conftest import EngineFor

# Optional files left out, and why (also in docs/conformance.md):
# - cross-draft.json: its remotes mix drafts in one registry, which the suite's own layout serves
#   per draft folder here;
# - format-assertion.json: a custom meta-schema requiring the format-assertion vocabulary is honoured
#   only through `formats="assert"`, not from the vocabulary itself.
OPTIONAL_SKIPPED = {"cross-draft", "format-assertion"}

# Suite schemas (test cases, not instances) each backend refuses, per dialect, out of
# CASES_PER_DIALECT. Lower a pin when a backend learns more; never raise one to make a test pass.
PINNED_REFUSALS: dict[str, dict[str, int]] = {
    "jsonschema-rs": {"draft4": 0, "draft6": 0, "draft7": 0, "2019-09": 0, "2020-12": 0},
    "msgspec": {"draft4": 115, "draft6": 169, "draft7": 205, "2019-09": 319, "2020-12": 331},
    # (`uniqueItems: true` refused since its check was found to keep items in a Python set of their
    # values, whose hashes a payload can make alike: the suite's three uniqueItems schemas.)
    "fastjsonschema": {"draft4": 21, "draft6": 24, "draft7": 43, "2019-09": 139, "2020-12": 155},
    # (`date` asserted by python-jsonschema refused since it was found to refuse the year 0000 that
    # RFC 3339 allows, which the suite does not test: one more schema in drafts 7, 2019-09, 2020-12.)
    "jsonschema": {"draft4": 15, "draft6": 18, "draft7": 37, "2019-09": 52, "2020-12": 44},
}


class Run(NamedTuple):
    """One suite test under one format mode."""

    formats: str
    test: SuiteTest

    @property
    def case_key(self) -> tuple[str, str, str, str]:
        return (self.formats, self.test.folder, self.test.file, self.test.case)


def suite_runs() -> Iterator[Run]:
    for folder in DIALECTS:
        yield from (Run("annotate", t) for t in iter_tests(folder))
        yield from (Run("assert", t) for t in iter_tests(folder, optional="format"))
        for path in sorted((SUITE / "tests" / folder / "optional").glob("*.json")):
            if path.stem not in OPTIONAL_SKIPPED:
                yield from (Run("annotate", t) for t in iter_tests(folder, optional=path.stem))


RUNS = list(suite_runs())
CASES_PER_DIALECT = {
    dialect: len({run.case_key for run in RUNS if run.test.dialect == dialect}) for dialect in DIALECTS.values()
}


def claimed(backend: str) -> frozenset[Dialect] | str:
    """The dialects ``backend`` declares, or why it cannot be loaded here."""
    try:
        return load_backend(backend).dialects
    except engine.BackendUnavailable as exc:
        return exc.message


def params() -> list[Any]:
    """(backend, run) for every backend in the registry and every suite test in a dialect it claims."""
    out = []
    for backend in BACKENDS:
        dialects = claimed(backend)
        for run in RUNS:
            if isinstance(dialects, str):
                skip = pytest.mark.skip(reason=dialects)
                out.append(pytest.param(backend, run, id=f"{backend}:{run.test.id}", marks=skip))
            elif Dialect(run.test.dialect) in dialects:
                out.append(pytest.param(backend, run, id=f"{backend}:{run.formats}:{run.test.id}"))
    return out


@cache
def backend_instance(name: str) -> Backend:
    return load_backend(name)()


class Compiled(NamedTuple):
    pipeline: engine.CompiledSchema
    own: BackendValidator
    """The backend's validator alone, compiled from the same checked source."""


_outcomes: dict[tuple[str, str, str, str, str], Compiled | engine.SchemaRejected] = {}


def outcome(engine_for: EngineFor, backend: str, run: Run) -> Compiled | engine.SchemaRejected:
    """The schema of ``run`` compiled by ``backend`` (once per suite case), or its refusal."""
    key = (backend, *run.case_key)
    if key not in _outcomes:
        test = run.test
        eng = engine_for(backend, test.dialect, run.formats)
        try:
            pipeline = eng.compile(test.schema, registry=remotes(test.folder))
        except engine.SchemaRejected as refusal:
            _outcomes[key] = refusal
        else:
            source = SchemaSource(
                schema=normalise_schema_uri(pipeline.schema, pipeline.dialect),
                dialect=pipeline.dialect,
                resources=remotes(test.folder),
                config=eng.config,
                facts=pipeline.guard,
            )
            _outcomes[key] = Compiled(pipeline, backend_instance(backend).compile(source))
    return _outcomes[key]


@pytest.fixture(scope="module", autouse=True)
def release_compiled() -> Iterator[None]:
    """Thousands of compiled validators are kept for the pins; they go with this module."""
    yield
    _outcomes.clear()
    conftest.engine_for.cache_clear()


@pytest.mark.parametrize(("backend", "run"), params())
def test_suite(engine_for: EngineFor, backend: str, run: Run) -> None:
    test = run.test
    result = outcome(engine_for, backend, run)
    if isinstance(result, engine.SchemaRejected):
        # A refusal is typed, names the backend and says why; the pins below count them.
        assert isinstance(result, engine.backends.BackendRefused), result
        assert result.reason == engine.RejectReason.UNSUPPORTED_BY_BACKEND
        assert result.backend == backend and result.why
        return
    compiled, own = result
    assert compiled.backend == backend
    assert compiled.dialect.value == test.dialect or "$schema" in test.schema
    text = json.dumps(test.data)

    # The pipeline's answers are exact, on objects and on bytes.
    assert compiled.is_valid(test.data) is test.valid
    if test.valid:
        compiled.validate(test.data)
        assert compiled.decode(text) == test.data
    else:
        with pytest.raises(engine.ValidationFailed) as failure:
            compiled.validate(test.data)
        assert failure.value.issues, "an invalid instance must come with at least one issue"
        with pytest.raises(engine.ValidationFailed):
            compiled.decode(text)

    # The backend alone never says yes to an invalid instance; a typed decoder may be stricter
    # than the schema (the pipeline re-checks its refusals), never laxer.
    if not test.valid:
        assert own.is_valid(test.data) is False
        assert next(iter(own.iter_issues(test.data)), None) is not None
        if own.decode is not None:
            with pytest.raises((msgspec.ValidationError, msgspec.DecodeError)):
                own.decode(text.encode())
    elif own.decode is not None:
        try:
            value = own.decode(text.encode())
        except (msgspec.ValidationError, msgspec.DecodeError):
            pass  # stricter than the schema: re-checked by the pipeline
        else:
            assert value == test.data


@pytest.mark.parametrize("dialect", list(DIALECTS.values()))
@pytest.mark.parametrize("backend", list(BACKENDS))
def test_refusals_are_pinned(engine_for: EngineFor, backend: str, dialect: str) -> None:
    dialects = claimed(backend)
    if isinstance(dialects, str):
        pytest.skip(dialects)
    if Dialect(dialect) not in dialects:
        pytest.skip(f"{backend} does not claim {dialect}")
    pinned = PINNED_REFUSALS[backend][dialect]
    total = CASES_PER_DIALECT[dialect]
    assert pinned < total, "a pin that allows refusing every schema checks nothing"
    refused = {
        run.case_key
        for run in RUNS
        if run.test.dialect == dialect and isinstance(outcome(engine_for, backend, run), engine.SchemaRejected)
    }
    assert len(refused) <= pinned, (
        f"{backend} now refuses {len(refused)} of the {total} {dialect} suite schemas (pinned: {pinned}); "
        + "; ".join(f"{f}/{c}" for _, _, f, c in sorted(refused)[:20])
    )
    if len(refused) < pinned:
        warnings.warn(
            f"{backend} refuses {len(refused)} {dialect} suite schemas, fewer than its pin {pinned}: lower the pin",
            stacklevel=1,
        )

"""The official JSON-Schema-Test-Suite through the Python backends, every dialect.

Exact or refused: each test either gets the suite's answer from the backend, or its schema is
refused at compile time with a reason (``auto`` then moves on). A wrong answer fails the test.
"""

from __future__ import annotations

from functools import cache

import pytest

import engine
from engine.backends import BackendRefused
from tests.conformance.suite import DIALECTS, SUITE, SuiteTest, iter_tests, remotes

BACKENDS = ("fastjsonschema", "jsonschema")
REQUIRED = [t for folder in DIALECTS for t in iter_tests(folder)]


FORMAT = [t for folder in DIALECTS for t in iter_tests(folder, optional="format")]


@cache
def engine_for(backend: str, dialect: str, formats: str = "annotate") -> engine.Engine:
    return engine.Engine(engine.EngineConfig(backend=backend, default_dialect=dialect, formats=formats))


_compiled: dict[tuple[str, str, str, str, str], engine.CompiledSchema | BackendRefused] = {}


def compiled(backend: str, test: SuiteTest, formats: str = "annotate") -> engine.CompiledSchema | BackendRefused:
    key = (backend, formats, test.folder, test.file, test.case)
    if key not in _compiled:
        try:
            eng = engine_for(backend, test.dialect, formats)
            _compiled[key] = eng.compile(test.schema, registry=remotes(test.folder))
        except BackendRefused as refusal:
            _compiled[key] = refusal
    return _compiled[key]


def outcome(backend: str, test: SuiteTest, formats: str = "annotate") -> str:
    """``passed``, ``refused`` or ``failed``: what the backend made of one suite test."""
    result = compiled(backend, test, formats)
    if isinstance(result, BackendRefused):
        assert result.why and result.backend == backend
        return "refused"
    assert result.backend == backend
    return "passed" if result.is_valid(test.data) is test.valid else "failed"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("folder", list(DIALECTS))
def test_required(backend: str, folder: str) -> None:
    tests = [t for t in REQUIRED if t.folder == folder]
    wrong = [t.id for t in tests if outcome(backend, t) == "failed"]
    assert not wrong, f"{len(wrong)} wrong answers from {backend}:\n" + "\n".join(wrong[:40])


@pytest.mark.parametrize("backend", BACKENDS)
def test_optional_format_with_assertion(backend: str) -> None:
    outcomes = [(t, outcome(backend, t, "assert")) for t in FORMAT]
    wrong = [t.id for t, result in outcomes if result == "failed"]
    assert not wrong, f"{len(wrong)} wrong answers from {backend}:\n" + "\n".join(wrong[:40])


# As in test_suite_jsonschema_rs.py: cross-draft.json mixes drafts in one registry, format-assertion.json
# relies on a vocabulary declaration the engine does not read.
OPTIONAL = [
    t
    for folder in DIALECTS
    for path in sorted((SUITE / "tests" / folder / "optional").glob("*.json"))
    if path.stem not in {"cross-draft", "format-assertion"}
    for t in iter_tests(folder, optional=path.stem)
]


@pytest.mark.parametrize("backend", BACKENDS)
def test_optional(backend: str) -> None:
    # bignum, ECMA-262 regex, float overflow, dependencies compatibility, content ...: the
    # engine's answers (those of its general backend), or a refusal.
    wrong = [t.id for t in OPTIONAL if outcome(backend, t) == "failed"]
    assert not wrong, f"{len(wrong)} wrong answers from {backend}:\n" + "\n".join(wrong[:40])

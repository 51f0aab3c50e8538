"""Fixtures every test folder shares: the bench_data corpus and one engine per configuration."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from functools import cache

import pytest

import engine
import engine._compiled
from tests.corpus import CorpusSchema, corpus

EngineFor = Callable[..., engine.Engine]


@cache
def engine_for(backend: str = "auto", dialect: str = "2020-12", formats: str = "annotate") -> engine.Engine:
    """One engine per (backend, default dialect, format mode), shared by the whole run, so each
    schema is compiled once per configuration however many tests ask for it."""
    return engine.Engine(
        engine.EngineConfig(backend=backend, default_dialect=dialect, formats=formats, cache_size=4096)
    )


def pytest_collection_finish(session: pytest.Session) -> None:
    """Collection leaves some two million objects alive for the whole run (42,000 test items, the
    suite's documents, the imported SDKs), and every full collection walked them all: about a
    second each late in the run, some two minutes in all, most of it in tests that collect before
    they time a call. Frozen here, the collector walks what the tests allocate."""
    gc.collect()
    gc.freeze()


@pytest.fixture(autouse=True, scope="session")
def _readers_settled_at_once() -> Iterator[None]:
    """A compiled schema reads its first documents on the general path before it builds its typed
    reader (``WARM_DOCUMENTS``). The tests hold that reader to the exact path on a few documents
    per schema, so here it is built for the first: the warm-up itself is tested, in the default
    setting, in tests/compiled/test_warming.py (and the docs' examples run in it)."""
    default = engine._compiled.WARM_DOCUMENTS
    engine._compiled.WARM_DOCUMENTS = 0
    yield
    engine._compiled.WARM_DOCUMENTS = default


@pytest.fixture(name="engine_for", scope="session")
def engine_for_fixture() -> EngineFor:
    """``engine_for(backend, dialect="2020-12", formats="annotate")`` -> a shared engine."""
    return engine_for


@pytest.fixture(scope="session")
def corpus_schemas() -> list[CorpusSchema]:
    """Every schema in bench_data/ (tools, recorded results, elicitation forms) with its instances."""
    return list(corpus())

"""Fixtures every test folder shares: the bench_data corpus and one engine per configuration."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import pytest

import engine
from tests.corpus import CorpusSchema, corpus

EngineFor = Callable[..., engine.Engine]


@cache
def engine_for(backend: str = "auto", dialect: str = "2020-12", formats: str = "annotate") -> engine.Engine:
    """One engine per (backend, default dialect, format mode), shared by the whole run, so each
    schema is compiled once per configuration however many tests ask for it."""
    return engine.Engine(
        engine.EngineConfig(backend=backend, default_dialect=dialect, formats=formats, cache_size=4096)
    )


@pytest.fixture(name="engine_for", scope="session")
def engine_for_fixture() -> EngineFor:
    """``engine_for(backend, dialect="2020-12", formats="annotate")`` -> a shared engine."""
    return engine_for


@pytest.fixture(scope="session")
def corpus_schemas() -> list[CorpusSchema]:
    """Every schema in bench_data/ (tools, recorded results, elicitation forms) with its instances."""
    return list(corpus())

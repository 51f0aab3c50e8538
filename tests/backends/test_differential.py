"""Every backend against every schema and recorded result in bench_data/: the same answer, or a
refusal at compile time with a reason."""

from __future__ import annotations

import pytest

import engine
from engine.backends import BACKENDS, BackendRefused
from tests.conftest import EngineFor
from tests.corpus import CorpusSchema

REFERENCE = "jsonschema-rs"
OTHERS = [name for name in BACKENDS if name != REFERENCE]


def answers(engine_for: EngineFor, backend: str, formats: str, item: CorpusSchema) -> list[bool] | str:
    try:
        cs = engine_for(backend, formats=formats).compile(item.schema)
    except BackendRefused as refusal:
        return f"refused: {refusal.why}"
    except engine.SchemaRejected as rejected:
        return f"rejected: {rejected.reason}"
    assert cs.backend == backend
    return [cs.is_valid(instance) for instance in item.instances]


@pytest.mark.parametrize("formats", ["annotate", "assert"])
def test_backends_agree_on_the_corpus(
    engine_for: EngineFor, corpus_schemas: list[CorpusSchema], formats: str
) -> None:
    disagreements = []
    for item in corpus_schemas:
        reference = answers(engine_for, REFERENCE, formats, item)
        for backend in OTHERS:
            got = answers(engine_for, backend, formats, item)
            if isinstance(got, str) and got.startswith("refused"):
                continue
            if isinstance(reference, str) or isinstance(got, str):
                if got != reference:
                    disagreements.append((item.id, backend, reference, got))
                continue
            for instance, want, have in zip(item.instances, reference, got, strict=True):
                if want is not have:
                    disagreements.append((item.id, backend, instance, want, have))
    assert not disagreements, "\n".join(map(repr, disagreements[:30]))


def test_recorded_results_conform(engine_for: EngineFor, corpus_schemas: list[CorpusSchema]) -> None:
    # The recorded structuredContent of real servers is valid under every backend that accepts
    # the schema (a sanity check that the comparison above is not comparing only "no"s).
    checked = 0
    for item in corpus_schemas:
        if not item.id.startswith("structured/") or not item.instances:
            continue
        for backend in BACKENDS:
            try:
                cs = engine_for(backend).compile(item.schema)
            except BackendRefused:
                continue
            answer = cs.is_valid(item.instances[0])
            assert answer is engine_for(REFERENCE).compile(item.schema).is_valid(item.instances[0])
            checked += 1
    assert checked > 0

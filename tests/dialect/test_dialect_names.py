"""A dialect reads as the name configuration, the command line and the docs give it."""

from __future__ import annotations

import engine
from engine import Dialect


def test_a_dialect_is_its_name() -> None:
    compiled = engine.compile({"$schema": "http://json-schema.org/draft-07/schema#", "type": "string"})
    assert compiled.dialect == "draft7" and str(compiled.dialect) == "draft7" and f"{compiled.dialect}" == "draft7"
    assert {dialect: dialect.value for dialect in Dialect}["2020-12"] == "2020-12"  # hashed as its name
    assert engine.EngineConfig(default_dialect=Dialect.DRAFT6).default_dialect == "draft6"

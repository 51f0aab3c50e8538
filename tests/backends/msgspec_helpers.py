"""Reach the msgspec backend's own validator behind a compiled schema (no general-backend help)."""

from __future__ import annotations

from typing import Any

import engine
from engine._dialect import normalise_schema_uri
from engine.backends import SchemaSource
from engine.backends._msgspec import MsgspecBackend, MsgspecValidator


def msgspec_validator(eng: engine.Engine, compiled: engine.CompiledSchema, registry: Any = None) -> MsgspecValidator:
    source = SchemaSource(
        schema=normalise_schema_uri(compiled.schema, compiled.dialect),
        dialect=compiled.dialect,
        resources=dict(registry or {}),
        config=eng.config,
    )
    return MsgspecBackend().compile(source)

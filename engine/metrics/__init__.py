"""Observability for the engine and its adapters: events, hooks, and an in-memory recorder.

    >>> import engine.metrics
    >>> recorder = engine.metrics.Recorder()
    >>> engine.metrics.add_hook(recorder)          # every engine in the process reports to it
    >>> engine.metrics.remove_hook(recorder)

Ready-made exporters, each an optional extra: :mod:`engine.metrics.prometheus`
(``pip install 'engine[prometheus]'``) and :mod:`engine.metrics.opentelemetry`
(``pip install 'engine[opentelemetry]'``). With no hook installed nothing is measured or built.
"""

from __future__ import annotations

from .._metrics import (
    CacheEvent,
    CompileEvent,
    Direction,
    Event,
    Hook,
    Recorder,
    RefusalEvent,
    Side,
    Snapshot,
    ValidationEvent,
    add_hook,
    hooked,
    remove_hook,
)

__all__ = [
    "CacheEvent",
    "CompileEvent",
    "Direction",
    "Event",
    "Hook",
    "Recorder",
    "RefusalEvent",
    "Side",
    "Snapshot",
    "ValidationEvent",
    "add_hook",
    "hooked",
    "remove_hook",
]

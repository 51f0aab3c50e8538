"""What the validation-work tests ask of a refusal: ``too-large``, naming the budget, decided by
weighing the instance (well under a second of CPU), not by running the check."""

from __future__ import annotations

import gc
import time
from typing import Any

import pytest

import engine

__all__ = ["refused_at_once"]


def refused_at_once(call: Any, instance: Any) -> None:
    # Timed with the collector paused: a pass over a long test run's heap is no part of the weighing
    # (and none is made before: each cost up to two seconds late in a run, for nothing timed).
    gc.disable()
    try:
        started = time.process_time()
        with pytest.raises(engine.DecodeError) as refused:
            call(instance)
        spent = time.process_time() - started
    finally:
        gc.enable()
    assert refused.value.reason == engine.DecodeReason.TOO_LARGE
    assert "max_validation_work" in refused.value.message
    assert spent < 1.0  # weighed, not checked

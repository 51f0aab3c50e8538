"""Side-by-side timing on the standard library's :class:`timeit.Timer`.

``timeit.Timer`` runs a callable ``number`` times with the garbage collector paused and the
platform's best clock; this module only adds what a fair comparison on a shared, noisy machine
needs: each contender's loop count is calibrated, then the contenders are timed in interleaved
rounds (A B C, A B C, ...) so a burst of load from another process hits them all alike, and the
median round is kept. Before its calibration each contender runs :data:`_WARM_CALLS` times (or
for a tenth of its budget, if that is less): the first runs of a callable may build what later
calls reuse (the engine's typed readers after a schema's fifth document, its level counts after
the sixteenth long one; a library's caches), one-off costs the compile rows measure, which would
otherwise set a loop count too small for the steady state (each round then starting cold after
the other contenders ran) and keep a calibration that paid them as a sample. A contender whose
calibration is short is calibrated again until two calibrations agree on the loop count.
"""

from __future__ import annotations

import statistics
import timeit
from collections.abc import Callable, Mapping
from dataclasses import dataclass

__all__ = ["Budget", "Measurement", "calibrate", "measure"]

_WARM_CALLS = 64  # runs before the calibration: past the engine's one-off costs (at 5 and 17)
_SETTLING = 3  # calibrations after the first, until two agree


@dataclass(frozen=True, slots=True)
class Budget:
    """How long one side-by-side measurement may take."""

    rounds: int = 7
    """Interleaved rounds per contender; the median is reported."""
    round_seconds: float = 0.02
    """Target length of one round of one contender (the loop count is calibrated to it)."""
    contender_seconds: float = 3.0
    """A contender slower than this in total gets fewer rounds, down to ``min_rounds``."""
    min_rounds: int = 3


@dataclass(frozen=True, slots=True)
class Measurement:
    median_s: float
    """Median time of one call, in seconds."""
    min_s: float
    loops: int
    rounds: int


def calibrate(timer: timeit.Timer, target: float) -> tuple[int, float]:
    """The loop count (1, 2, 5, 10, 20, 50, ...) whose run takes at least ``target`` seconds,
    like :meth:`timeit.Timer.autorange` with a target of our choosing."""
    i = 1
    while True:
        for j in (1, 2, 5):
            number = i * j
            took = timer.timeit(number)
            if took >= target:
                return number, took
        i *= 10


def measure(calls: Mapping[str, Callable[[], object]], budget: Budget) -> dict[str, Measurement]:
    """Time every callable side by side; ``{name: Measurement}`` of one call each."""
    timers = {name: timeit.Timer(call) for name, call in calls.items()}
    loops: dict[str, int] = {}
    wanted: dict[str, int] = {}
    samples: dict[str, list[float]] = {name: [] for name in calls}
    for name, timer in timers.items():
        warm, spent = 0, 0.0
        while warm < _WARM_CALLS and spent < budget.contender_seconds / 10:
            spent += timer.timeit(1)
            warm += 1
        number, took = calibrate(timer, budget.round_seconds)
        spent = took
        for _ in range(_SETTLING):  # cheap to run again: the count of the steady state
            if spent >= budget.contender_seconds / 3:
                break
            again, took = calibrate(timer, budget.round_seconds)
            spent += took
            if again == number:
                break
            number = again
        loops[name] = number
        wanted[name] = max(budget.min_rounds, min(budget.rounds, int(budget.contender_seconds / took)))
        if took >= budget.round_seconds * 4:
            # A slow contender: its calibration run is already a sample worth keeping.
            samples[name].append(took / number)
    for _ in range(max(wanted.values(), default=0)):
        for name, timer in timers.items():
            if len(samples[name]) < wanted[name]:
                samples[name].append(timer.timeit(loops[name]) / loops[name])
    return {
        name: Measurement(median_s=statistics.median(values), min_s=min(values), loops=loops[name], rounds=len(values))
        for name, values in samples.items()
    }

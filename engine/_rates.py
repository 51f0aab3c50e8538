"""The checks of a backend slower than jsonschema-rs, weighed at its rate.

``max_validation_work`` counts evaluations of jsonschema-rs, and a schema applying at most
:data:`~engine._guard.AMPLIFYING` subschemas to one value is not weighed (:mod:`engine._work`).
fastjsonschema spends up to 10 times as long on a subschema, and up to 330 times where a branch
may fail (:meth:`~engine.backends.Backend.evaluation_rate`): with ``items`` an ``allOf`` of 100
subschemas it took 7 s on 900 KB, where jsonschema-rs answers in a second. A backend whose rate
is over 1 also weighs every instance by the subschemas each value meets, level by level, times
that rate (:func:`at_rate`). (python-jsonschema, slower still and in ways no count of subschemas
shows, counts what it applies as it runs: ``engine.backends._jsonschema``.)

Only the subschemas are multiplied: what jsonschema-rs alone spends more on (comparing a float
with each member of an ``enum``, what an ``unevaluated*`` scope may evaluate again beyond its
subschemas) stays weighed, unmultiplied, by :mod:`engine._work`, which wraps this check."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from ._config import Limits
from ._dialect import Dialect
from ._errors import DecodeError, DecodeReason
from ._guard import DeferredReport, GuardReport
from ._work import depth_counts, level_weights

__all__ = ["at_rate", "at_rate_of"]

_pack = msgspec.msgpack.encode
_NAMES_PER_EVALUATION = 4  # names a search compares (15-25 ns each) in what one count costs at rate 10 (100 ns)


def at_rate_of(
    check: Callable[[Any], bool],
    rate: int,
    guard: GuardReport | DeferredReport | None,
    limits: Limits,
    document: Callable[[], Any],
    dialect: Dialect,
    resources: Mapping[str, Any] | None,
) -> Callable[[Any], bool]:
    """``check``, a backend's whose evaluation costs ``rate`` of jsonschema-rs's: past 1, weighing
    each instance at that rate first (:func:`at_rate`); :func:`engine._work.bound_work` wraps it."""
    if rate <= 1 or guard is None:  # jsonschema-rs's own rate, or a boolean schema
        return check
    bound = guard.expansion if isinstance(guard, DeferredReport) else guard.measured.get("max_ref_expansion", 1)
    depth = limits.max_instance_depth + 1
    return at_rate(check, rate, limits.max_validation_work, document, dialect, bound, resources, depth)


def at_rate(
    check: Callable[[Any], bool],
    rate: int,
    budget: int,
    document: Callable[[], Any],
    dialect: Dialect,
    bound: int,
    resources: Mapping[str, Any] | None,
    levels: int,
) -> Callable[[Any], bool]:
    """``check`` (a backend's, ``rate`` times slower than jsonschema-rs), first refusing an
    instance whose values meet more than ``budget`` evaluations of jsonschema-rs at that rate:
    the subschemas each value meets at its level, and the names of the ``properties`` and
    ``patternProperties`` of those that are objects (``depth_counts``, of ``document()`` and its
    registry ``resources``, over ``levels`` levels; where a reference leaves them, ``bound``, every
    subschema at every level) times what the level weighs (:func:`~engine._work.level_weights`).
    An instance whose msgpack, which takes a byte or more for each value, key and character, is
    short enough for its values to meet the most subschemas of any level within the budget is
    not walked. Each value and key below the root also pays for a search of the widest list of
    ``properties`` names in the schema (:data:`_NAMES_PER_EVALUATION` names a count):
    fastjsonschema's code looks a key that is not a property up in the list of names, one by one
    (2,000 names beside ``additionalProperties``: an object of 110,000 keys, 990 KB, 2.9 s)."""
    per_level: list[list[int]] = []  # counted on the first instance
    unwalked: list[int] = []  # the longest msgpack that needs no walk (its most per value, once)
    allowed = budget // rate

    def weighed(instance: Any) -> bool:
        if not per_level:
            schema = document()
            found = depth_counts(
                schema, dialect, comparisons=False, levels=levels, cap=allowed + 1, resources=resources, names=True
            )
            counts = found or [bound] * levels
            # A key is looked up in the list of its object's names (the widest, for any key).
            looked_up = max(map(_widest_names, [schema, *(resources or {}).values()])) // _NAMES_PER_EVALUATION
            weights = [counts[0], *(count + looked_up for count in counts[1:])]
            # The bound first: a thread that finds `per_level` filled finds it too.
            unwalked.append(allowed // max(max(weights), 1))
            per_level.append(weights)
        counts = per_level[0]
        try:
            length = len(_pack(instance))
        except (OverflowError, TypeError, ValueError):  # an integer past 64 bits: walked
            length = allowed + 1
        if length > unwalked[0]:
            work = 0
            for depth, (weight, _) in enumerate(level_weights(instance)):
                if depth >= len(counts):
                    break  # no subschema reaches this level
                work += weight * counts[depth]
                if work > allowed:
                    raise DecodeError(
                        DecodeReason.TOO_LARGE,
                        f"instance is too large for this schema and backend: its values meet more than "
                        f"{allowed} subschemas in all, each costing this backend what {rate} evaluations "
                        f"cost jsonschema-rs, in which max_validation_work ({budget}) is counted",
                    )
        return check(instance)

    return weighed


def _widest_names(document: Any) -> int:
    """The most names one ``properties`` object of ``document`` holds."""
    widest, stack = 0, [document]
    while stack:
        node = stack.pop()
        if type(node) is dict:
            named = node.get("properties")
            if type(named) is dict:
                widest = max(widest, len(named))
            stack += node.values()
        elif type(node) is list:
            stack += node
    return widest

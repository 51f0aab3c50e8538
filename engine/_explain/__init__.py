"""Explaining an invalid instance: every issue, or a truncated list, in bounded time and memory.

The fast path answers yes or no; a "no" is explained by a reference-quality backend. Explanation
costs far more than the answer: jsonschema-rs's ``iter_errors`` builds every nested error before
the first one is returned, so its work cannot be stopped from outside once it starts. Measured on
an 813-byte schema (11 levels of ``$defs``, each an ``allOf`` of two ``$ref`` s to the level below,
applied through ``items``) with 100 short strings: ``is_valid`` 10 microseconds, ``iter_errors``
5.5 s and 370 MiB (``anyOf``: 10.7 s, 700 MiB); with 1,000 strings it did not finish. That is
26-52 microseconds per (subschema, instance value) evaluation on the error path.

So nothing is started whose cost is not known to fit the budget (``max_explain_work``
evaluations, ``max_explain_seconds``):

1. The estimate for the whole explanation is the schema's cost per instance value (the guard's
   inlined size; for recursive schemas its width times its fan-out to the power of the depth)
   times the instance's size, each evaluation weighed by the schema's longest list (a long
   ``required`` makes an error per missing name, an ``enum`` is copied into each error: see
   :func:`~.budget.error_weight`). Within budget, the explainer runs on the whole instance.
2. Otherwise the explanation goes piece by piece, recursing only into failing parts: the
   schema's own assertions are checked by a validator of just those keywords; each applicator's
   subschemas are checked by the fast ``is_valid`` of a validator compiled for that subschema's
   location (``{"$ref": "<document>#<pointer>"}``), item by item (an array's failing items found
   by halving ranges checked in one call each) and property by property; only a failing part is
   explained, whole when its own estimate fits what is left of the budget,
   piece by piece otherwise.
3. What cannot be split further within the budget (a ``patternProperties`` group, an
   ``unevaluated*`` schema, a reference outside the document) is reported as one issue that says
   the explanation was cut there, and the list is marked truncated.

The validity answer never changes: only the detail of the list is bounded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from time import monotonic
from typing import Any

from .._config import Limits
from .._decode import nesting
from .._errors import Issue, ValidationFailed
from .._guard import GuardReport
from ..backends import BackendValidator, late, locations, schema_source
from .budget import (
    EXPLAIN_FRAMES,
    INFINITE,
    SECONDS_PER_EVALUATION,
    WEIGHED_TEXT,
    Budget,
    Issues,
    collect,
    error_weight,
    failed,
    opening,
    too_costly,
)
from .measure import PATH_CHARACTERS_PER_EVALUATION, size, widest_and_nested
from .pieces import Pieces

__all__ = ["EXPLAIN_FRAMES", "SECONDS_PER_EVALUATION", "explain", "explainer_of"]


def explain(
    instance: Any,
    *,
    explainer: BackendValidator,
    guard: GuardReport | Callable[[], GuardReport] | None,
    limits: Limits,
    depth_bound: int | None,
    width: int | None = None,
    under: str = "",
    weight: int | None = None,
) -> ValidationFailed:
    """The issues that make ``instance`` (known to be invalid) invalid, within ``limits``.

    ``guard``: the schema's report, or what makes it when a compile put it off (see
    ``engine._guard.DeferredReport``). ``depth_bound`` is the schema's instance depth bound when
    it recurses (the instance's depth then matters to the cost), ``None`` otherwise. ``width``:
    at least how many values ``instance`` holds, as :func:`~.measure.size` counts them, where a
    caller knows it without a walk (the length of the document it was parsed from: every value
    takes a character or more, a key and its value four, a string two more than its length).
    ``under``: the location of ``instance`` in a document holding it, where the issues are put
    (see :meth:`ValidationFailed.under`), each built once. ``weight``: what one evaluation may
    cost on the error path (:func:`~.budget.error_weight` of the schema, weighed here where not
    given)."""
    if callable(guard):
        guard = guard()
    if weight is None:
        weight = _weight(explainer)
    depth = 0 if depth_bound is None else nesting(instance, depth_bound)
    allowance = opening(limits)
    whole = _whole_cost(guard, instance, depth, allowance, width, weight)
    if whole <= allowance:
        # The commonest explanation, and the whole of it: read at once (no budget to share).
        issues: list[Issue] = []
        deadline = monotonic() + limits.max_explain_seconds
        cut = collect(explainer.iter_issues(instance), issues, limits.max_issues, deadline, under, "")
        return failed(issues, truncated=cut, at=under)
    budget = Budget(limits)
    out = Issues(limits.max_issues)
    found = locations(explainer)
    if found is None:
        out.cut(Issue(instance_path="", keyword_location="", keyword="", message=too_costly("", "", whole)))
    else:
        try:
            Pieces.of(found).explain(instance, budget, out, guard.eval_depth if guard is not None else 1)
        finally:
            found.release()  # the schema stays cached: what it compiled here is let go
    return out.failure().under(under) if under else out.failure()


def _whole_cost(
    guard: GuardReport | None, instance: Any, depth: int, allowance: int, width: int | None, weight: int = 1
) -> int:
    """Evaluations the whole explanation may take, counted only as far as needed to pass
    ``allowance``. ``depth`` is the instance's depth where the schema's depth bound applies (0
    elsewhere); ``width``, where known, bounds the values counted (an estimate from it that fits
    ``allowance`` is taken without counting them); ``weight``, what one evaluation may cost (a
    long ``required`` or ``enum`` makes many errors, or large ones: see :func:`~.budget.error_weight`)."""
    if guard is None:
        return 0
    if depth * guard.eval_depth > EXPLAIN_FRAMES:
        return INFINITE  # the native stack, not the work, is the bound
    if guard.recursive:
        per_value = max(guard.in_place_width, 1) * weight
        for _ in range(depth):
            per_value *= max(guard.fan_out, 1)
            if per_value > allowance:
                return INFINITE
        if width is not None and width < PATH_CHARACTERS_PER_EVALUATION and per_value * width <= allowance:
            return per_value * width  # (no key long enough for its paths to weigh)
        return per_value * size(instance, allowance // per_value + 1)
    # Without recursion, each inlined subschema descends a fixed number of levels, so it meets the
    # values of one level of the instance only: the widest level bounds the values each meets.
    per_value = max(guard.measured.get("max_ref_expansion", 1), 1) * weight
    if width is not None and width < PATH_CHARACTERS_PER_EVALUATION and per_value * width <= allowance:
        # No value is larger than the whole, and no key is long enough for the paths of the
        # errors below it to weigh (see `size`).
        return per_value * width
    if weight > 1:  # an error copies the whole value it is about, not one level of it
        return per_value * size(instance, allowance // per_value + 1)
    # Evaluations: each inlined subschema meets the values of one level, the widest bounds them.
    # Copies: an error copies, and its message quotes, the whole value it is about, and a location
    # meets at most the widest in-place subschemas there are: 100 `type` errors at the root of a
    # 255-level array, each copying it, took 5.4 s and 1.6 GB counted by the widest level alone.
    in_place = max(guard.in_place_width, 1)
    widest, nested = widest_and_nested(instance, allowance // min(per_value, in_place) + 1)
    return max(per_value * widest, in_place * nested)


def explainer_of(
    explainer: BackendValidator, guard: Any, limits: Limits, depth_bound: int | None
) -> Callable[..., ValidationFailed]:
    """:func:`explain` of one schema: ``failure(instance, width=None, under="")``
    (a closure: a partial merges its keywords with the call's into a new dict on every call).

    The commonest explanation taken at once: a schema that does not recurse, and an instance
    whose length (``width``) shows its whole explanation fits the budget. :func:`explain` decides
    that on every call, from seven keywords, the guard's report and the estimate; decided here
    by one comparison, an invalid corpus tool call takes 0.88-0.90x the time."""
    # Read on the first failure, not here: every schema's reader binds its explanation, and most
    # never need it (the settings and the guard's report read here tripled the binding's cost). A
    # compile may have put the report off: made then too, once. `longest`: the longest instance
    # explained whole at once.
    settled: tuple[int, int, float, Callable[[Any], Iterator[Issue]], GuardReport | None, int] | None = None

    def failure(instance: Any, width: int | None = None, under: str = "") -> ValidationFailed:
        nonlocal settled
        if settled is None:
            report = guard() if callable(guard) else guard
            weight = _weight(explainer)
            longest = -1 if depth_bound is not None else _explained_whole(report, opening(limits), weight)
            settled = (longest, limits.max_issues, limits.max_explain_seconds, explainer.iter_issues, report, weight)
        longest, cap, seconds, iter_issues, report, weight = settled
        if width is not None and width <= longest:
            issues: list[Issue] = []
            cut = collect(iter_issues(instance), issues, cap, monotonic() + seconds, under, "")
            return failed(issues, truncated=cut, at=under)
        return explain(
            instance,
            explainer=explainer,
            guard=report,
            limits=limits,
            depth_bound=depth_bound,
            width=width,
            under=under,
            weight=weight,
        )

    return failure


def _weight(explainer: BackendValidator) -> int:
    """:func:`~.budget.error_weight` of the schema behind ``explainer``: 1 without a walk where
    its canonical text is short and spells no key the weight reads (and it has no resources)."""
    source = schema_source(explainer)
    if source is None:
        return 1
    text = source.text
    if (
        not source.resources
        and text is not None
        and len(text) < PATH_CHARACTERS_PER_EVALUATION  # no location long enough to weigh
        and not WEIGHED_TEXT.search(text)
    ):
        return 1
    source = late(source)  # a private copy, as compiled
    return error_weight((source.schema, *source.resources.values()))


def _explained_whole(guard: GuardReport | None, allowance: int, weight: int = 1) -> int:
    """The longest instance (its ``width``) whose whole explanation :func:`_whole_cost` shows to
    fit ``allowance`` by its width alone, for a schema whose depth bound does not apply; -1 where
    its recursion makes the estimate depend on more than the width."""
    if guard is None:
        return INFINITE  # no report: nothing to estimate (see `_whole_cost`)
    if guard.recursive:
        return -1
    # A longer document may hold a key whose paths weigh (see `_whole_cost`).
    widest = allowance // (max(guard.measured.get("max_ref_expansion", 1), 1) * weight)
    return min(widest, PATH_CHARACTERS_PER_EVALUATION - 1)

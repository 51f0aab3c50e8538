"""The complexity budget: each measurement the guard takes, checked against its limit.

A measurement over its bound is refused with ``limit-exceeded``, naming the limit, the measured
value, the bound, and the JSON pointer of the place in the schema where it was measured.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from .._config import Limits
from .._errors import RejectReason, SchemaRejected

__all__ = ["LIMIT_MEANINGS", "bounds", "check", "exceeded"]

LIMIT_MEANINGS: dict[str, str] = {
    "max_schema_bytes": "size of the schema document in bytes",
    "max_document_depth": "nesting depth of the schema document as JSON (arrays and objects)",
    "max_schema_depth": "nesting depth of subschemas",
    "max_subschemas": "number of subschemas in the document and the resources it references",
    "max_branches": "subschemas in one allOf / anyOf / oneOf / prefixItems / items array",
    "max_properties": "entries in one properties / patternProperties / dependentSchemas object",
    "max_enum": "values in one enum",
    "max_ref_expansion": "subschemas the schema would count with every $ref inlined",
    "max_eval_depth": "longest chain of subschemas applied to one instance location ($ref and in-place applicators)",
    "max_unevaluated_nesting": "unevaluatedProperties / unevaluatedItems scopes nested inside one another",
    "max_pattern_length": "characters in one pattern or patternProperties key",
}


def exceeded(limit: str, measured: int, bound: int, location: str) -> SchemaRejected:
    meaning = LIMIT_MEANINGS.get(limit, limit)
    where = location or "the root"
    return SchemaRejected(
        RejectReason.LIMIT_EXCEEDED,
        f"schema exceeds {limit} at {where}: {meaning} is {measured}, over the limit of {bound}",
        location=location,
        details={"limit": limit, "measured": measured, "bound": bound},
    )


def check(measured: dict[str, int], where: dict[str, str], limits: Limits) -> None:
    """Refuse the first measurement (in ``LIMIT_MEANINGS`` order) that is over its bound."""
    for limit, bound in _bounds(limits):
        value = measured.get(limit)
        if value is not None and value > bound:
            raise exceeded(limit, value, bound, where.get(limit, ""))


def bounds(limits: Limits) -> tuple[Any, ...]:
    """Every bound of ``limits``, in ``LIMIT_MEANINGS`` order (a caller holding its measurements
    in that order compares them all at once, and calls :func:`check` only if one is over)."""
    return _read(limits)[2]


def _bounds(limits: Limits) -> tuple[tuple[str, Any], ...]:
    """(limit, bound) in ``LIMIT_MEANINGS`` order."""
    return _read(limits)[1]


_Read = tuple[Limits, tuple[tuple[str, Any], ...], tuple[Any, ...]]
_last: _Read | None = None


def _read(limits: Limits) -> _Read:
    # Read once per configuration, not once per schema. The last one asked for is found by
    # identity; hashing the frozen ``Limits`` (all of its fields) on every compile cost more
    # than the check.
    global _last
    last = _last
    if last is None or last[0] is not limits:
        last = _last = _read_limits(limits)
    return last


@lru_cache(maxsize=16)
def _read_limits(limits: Limits) -> _Read:
    pairs = tuple((limit, getattr(limits, limit)) for limit in LIMIT_MEANINGS)
    return limits, pairs, tuple(bound for _, bound in pairs)

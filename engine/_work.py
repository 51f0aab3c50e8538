"""The work a check may take: an instance is weighed against a schema that amplifies it.

A schema applies each of its subschemas to some values of the instance. Most apply a few to each
value (every tool schema of the corpus at most 183, and 2,759 of the 2,760 tool schemas of the
corpus and of two lists gathered outside it at most 256), so their check costs a few evaluations
per value, linear in an instance already bounded by ``max_instance_bytes``. A schema can apply
thousands to one value (an ``allOf`` of ``allOf`` s, within every limit of the guard): 9,250 to each
item of a 400 KB array took jsonschema-rs 8.7 s, and 8,750 patterns on a 100 KB string 1.5 s; a
64 MiB instance would take half an hour. Such a schema's check (past :data:`AMPLIFYING`
subschemas a value) first weighs the instance, and one whose estimate is over
``max_validation_work`` is refused with ``too-large`` before any backend runs:

- without recursion every subschema, references inlined, meets the values of one level of the
  instance only (the root's, or as many below as descending keywords lead to it): the estimate
  is, level by level, the subschemas that reach a level times what it weighs (where a reference
  leads outside the document, every subschema at every level); with recursion, the most
  subschemas one value meets (the guard report's ``max_ref_expansion``) times the whole instance;
- a level weighs one per value and per object key, and one more per 8 characters of each string
  and key (a pattern reads every character: some 5 characters cost what one evaluation does).

A schema at or under :data:`AMPLIFYING` keeps its backend's check as it is: nothing is added to
its hot path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ._config import Limits
from ._dialect import Dialect
from ._errors import DecodeError, DecodeReason
from ._guard import AMPLIFYING, DeferredReport, GuardReport
from ._keywords import KEYWORDS, Applies, Shape
from ._pointer import tokens

__all__ = ["bound_work", "depth_counts", "level_weights"]

_CHARACTERS_PER_EVALUATION = 3  # a shift: a string weighs one more per 8 characters
_DEEPEST = 200  # reference chains and nesting past which the counts are not taken (see `depth_counts`)


def bound_work(
    check: Callable[[Any], bool],
    guard: GuardReport | DeferredReport | None,
    limits: Limits,
    document: Callable[[], Any],
    dialect: Dialect,
) -> Callable[[Any], bool]:
    """``check`` (a backend's answer on a JSON value within the instance bounds), weighing the
    instance first where the schema (``document()``, which ``guard`` reports on) applies more than
    :data:`AMPLIFYING` subschemas to one value; ``check`` itself otherwise."""
    if guard is None:  # a boolean schema
        return check
    bound = guard.expansion if isinstance(guard, DeferredReport) else guard.measured.get("max_ref_expansion", 1)
    if bound <= AMPLIFYING:
        return check
    budget = limits.max_validation_work
    # Read on the first instance weighed (a report made later is made then): the subschemas per
    # level of the instance they meet, or, with recursion, the most that meet one value, each level.
    facts: list[tuple[int, list[int] | None]] = []

    def weighed(instance: Any) -> bool:
        if not facts:
            report = guard() if isinstance(guard, DeferredReport) else guard
            per_value = report.measured.get("max_ref_expansion", 1)
            facts.append((per_value, None if report.recursive else depth_counts(document(), dialect)))
        per_value, counts = facts[0]
        if per_value > AMPLIFYING:
            work = 0
            for depth, weight in enumerate(level_weights(instance)):
                if counts is not None and depth >= len(counts):
                    break  # no subschema reaches this level
                work += weight * (per_value if counts is None else counts[depth])
                if work > budget:
                    raise _too_costly(per_value, budget)
        return check(instance)

    return weighed


def depth_counts(schema: Any, dialect: Dialect) -> list[int] | None:
    """How many subschemas of ``schema`` (a schema that does not recurse) apply at each level of
    the instance (the root's is level 0), references to its own locations inlined; ``None`` where
    a reference leads elsewhere or the counts would go past :data:`_DEEPEST` levels (the caller
    then counts every subschema at every level)."""
    applicators = KEYWORDS[dialect].applicators
    id_keyword = KEYWORDS[dialect].id_keyword
    done: dict[int, list[int]] = {}

    def counts(node: Any, chain: int) -> list[int] | None:
        if type(node) is not dict:
            return [1]
        known = done.get(id(node))
        if known is not None:
            return known
        if chain > _DEEPEST or (chain and id_keyword in node):  # a new base: its references read otherwise
            return None
        total = [1]
        for key, value in node.items():
            if key == "$ref":
                target = _local(schema, value)
                below = None if target is None else counts(target, chain + 1)
                if below is None or not _add(total, below, 0):
                    return None
            elif key in applicators:
                shape, applies = applicators[key]
                if applies is Applies.HOLD:
                    continue
                for sub in _subschemas(value, shape):
                    below = counts(sub, chain + 1)
                    if below is None or not _add(total, below, 0 if applies is Applies.IN_PLACE else 1):
                        return None
            elif key in ("$dynamicRef", "$recursiveRef"):
                return None
        done[id(node)] = total
        return total

    return counts(schema, 0)


def _add(total: list[int], below: list[int], shift: int) -> bool:
    if len(below) + shift > _DEEPEST:
        return False
    if len(total) < len(below) + shift:
        total += [0] * (len(below) + shift - len(total))
    for at, count in enumerate(below, shift):
        total[at] += count
    return True


def _subschemas(value: Any, shape: Shape) -> list[Any]:
    if shape is Shape.ONE:
        return [value]
    if shape is Shape.LIST or (shape is Shape.ONE_OR_LIST and type(value) is list):
        return value if type(value) is list else []
    if shape is Shape.ONE_OR_LIST:
        return [value]
    values = list(value.values()) if type(value) is dict else []
    if shape is Shape.MAP_OF_SCHEMA_OR_LIST:  # `dependencies`: a list of names is no schema
        return [v for v in values if type(v) is dict or type(v) is bool]
    return values


def _local(schema: Any, ref: Any) -> Any:
    """The location of ``schema`` a reference names by a JSON pointer (``#``, ``#/...``), or ``None``."""
    if type(ref) is not str or not ref.startswith("#") or (len(ref) > 1 and ref[1] != "/"):
        return None
    node = schema
    for token in tokens(ref[1:]):
        if type(node) is dict and token in node:
            node = node[token]
        elif type(node) is list and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node


def level_weights(instance: Any) -> Iterator[int]:
    """What each level of the JSON value ``instance`` weighs, from the top (see the module); an
    object's keys weigh on the level of its values."""
    level = [instance]
    keys = 0
    shift = _CHARACTERS_PER_EVALUATION
    while level:
        weight, keys = len(level) + keys, 0
        below: list[Any] = []
        for value in level:
            kind = type(value)
            if kind is str:
                weight += len(value) >> shift
            elif kind is dict:
                keys += len(value) + (sum(map(len, value)) >> shift)
                below += value.values()
            elif kind is list:
                below += value
        yield weight
        level = below


def _too_costly(per_value: int, budget: int) -> DecodeError:
    return DecodeError(
        DecodeReason.TOO_LARGE,
        f"instance is too large for this schema: its check could take more than {budget} evaluations "
        f"(max_validation_work): the schema applies up to {per_value} subschemas to one value, each to "
        "every value of the instance at its level (every value, with recursion), and a string counts "
        "once more per 8 characters",
    )

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
   times the instance's size. Within budget, the explainer runs on the whole instance.
2. Otherwise the explanation goes piece by piece, recursing only into failing parts: the
   schema's own assertions are checked by a validator of just those keywords; each applicator's
   subschemas are checked by the fast ``is_valid`` of a validator compiled for that subschema's
   location (``{"$ref": "<document>#<pointer>"}``), item by item and property by property; only
   a failing part is explained, whole when its own estimate fits what is left of the budget,
   piece by piece otherwise.
3. What cannot be split further within the budget (a ``patternProperties`` group, an
   ``unevaluated*`` schema, a reference outside the document) is reported as one issue that says
   the explanation was cut there, and the list is marked truncated.

The validity answer never changes: only the detail of the list is bounded.
"""

from __future__ import annotations

import json
import time
import weakref
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

import jsonschema_rs

from ._config import Limits
from ._decode import nesting
from ._dialect import Dialect
from ._errors import Issue, ValidationFailed
from ._guard import GuardReport
from ._keywords import KEYWORDS, Shape
from ._pointer import pointer, unescape
from .backends._contract import BackendValidator
from .backends._jsonschema_rs import JsonschemaRsValidator, issue_from_rs, rs_options

__all__ = ["EXPLAIN_FRAMES", "SECONDS_PER_EVALUATION", "explain"]

EXPLAIN_FRAMES = 512
"""Nested schema applications the error path of jsonschema-rs runs safely: it first crashed at
1,024 on a 1 MiB thread stack (building nested error contexts); a factor of two below."""

SECONDS_PER_EVALUATION = 50e-6
"""The slowest error-path evaluation measured (the ``anyOf`` tower above: 10.7 s for 206,000
evaluations); a piece is started only if its estimate, at this rate, fits the time left."""

MAX_PIECE_DEPTH = 100
"""How many levels of schema and instance the piece-by-piece explanation descends before it
reports the rest as truncated (each level is a few Python frames)."""

_INFINITE = 1 << 62
_DOCUMENT = "urn:engine:explain"
"""The URI the schema is registered under, so that any location in it can be validated alone."""

Pointer = tuple[str | int, ...]

# The pieces of each general validator, built on its first piece-by-piece explanation.
_BUILT: weakref.WeakKeyDictionary[JsonschemaRsValidator, _Pieces | bool] = weakref.WeakKeyDictionary()
"""False where a schema's locations cannot be validated alone."""


def explain(
    instance: Any,
    *,
    explainer: BackendValidator,
    guard: GuardReport | None,
    limits: Limits,
    depth_bound: int | None,
) -> ValidationFailed:
    """The issues that make ``instance`` (known to be invalid) invalid, within ``limits``.

    ``depth_bound`` is the schema's instance depth bound when it recurses (the instance's depth
    then matters to the cost), ``None`` otherwise."""
    depth = 0 if depth_bound is None else nesting(instance, depth_bound)
    budget = _Budget(limits)
    out = _Issues(limits.max_issues)
    whole = _whole_cost(guard, instance, depth, budget.allowance())
    general = _general(explainer)
    pieces = _Pieces.of(general) if general is not None else None
    if whole <= budget.allowance() or pieces is None:
        if whole > budget.allowance():
            out.cut(Issue(instance_path="", keyword_location="", keyword="", message=_too_costly("", "", whole)))
        else:
            budget.spend(whole)
            out.run(explainer.iter_issues(instance), budget, "", ())
    else:
        pieces.explain(instance, budget, out, guard.eval_depth if guard is not None else 1)
    return out.failure()


@dataclass
class _Budget:
    work: int
    deadline: float

    def __init__(self, limits: Limits) -> None:
        self.work = limits.max_explain_work
        self.deadline = time.monotonic() + limits.max_explain_seconds

    def allowance(self) -> int:
        """The most evaluations a step may start now: what is left of the work, and of the time
        at the measured rate."""
        seconds = self.deadline - time.monotonic()
        if seconds <= 0 or self.work <= 0:
            return 0
        return min(self.work, int(seconds / SECONDS_PER_EVALUATION))

    def spend(self, work: int) -> None:
        self.work -= work


@dataclass
class _Issues:
    cap: int
    issues: list[Issue] = field(default_factory=list)
    truncated: bool = False

    @property
    def full(self) -> bool:
        return self.truncated and len(self.issues) >= self.cap

    def add(self, issue: Issue) -> bool:
        """Keep ``issue``; ``False`` once the list is full (then it is marked truncated)."""
        if len(self.issues) >= self.cap:
            self.truncated = True
            return False
        self.issues.append(issue)
        return True

    def cut(self, issue: Issue) -> None:
        """The explanation stops here: say so."""
        self.truncated = True
        if len(self.issues) < self.cap:
            self.issues.append(issue)

    def run(self, issues: Iterator[Issue], budget: _Budget, path: str, location: Pointer) -> None:
        """Read the issues of one piece, each re-rooted at ``path`` / ``location``."""
        prefix = pointer(location)
        try:
            for issue in issues:
                if path or prefix:
                    issue = Issue(
                        instance_path=path + issue.instance_path,
                        keyword_location=prefix + issue.keyword_location,
                        keyword=issue.keyword,
                        message=issue.message,
                    )
                if not self.add(issue) or time.monotonic() > budget.deadline:
                    self.truncated = True
                    break
        except (ValueError, RecursionError) as exc:
            # jsonschema-rs refuses to describe a failing value that nests 256 levels or more.
            self.cut(
                Issue(
                    instance_path=path,
                    keyword_location=prefix,
                    keyword="",
                    message=f"instance is invalid; the explanation stopped: {exc}",
                )
            )

    def failure(self) -> ValidationFailed:
        if not self.issues:
            # The fast path said no but nothing was said: never report valid.
            self.issues.append(Issue(instance_path="", keyword_location="", keyword="", message="instance is invalid"))
        return ValidationFailed(self.issues, truncated=self.truncated)


def _too_costly(path: str, location: str, cost: int) -> str:
    where = f" at {path!r}" if path else ""
    against = f" against {location!r}" if location else ""
    estimate = f"an estimated {cost} evaluations" if cost < _INFINITE else "work the budget cannot bound"
    return (
        f"instance is invalid{where}{against}; explaining it further would take {estimate}, over what "
        "is left of max_explain_work / max_explain_seconds (explanation truncated)"
    )


def _general(explainer: BackendValidator) -> JsonschemaRsValidator | None:
    if isinstance(explainer, JsonschemaRsValidator):
        return explainer
    general = getattr(explainer, "general", None)  # python-jsonschema keeps jsonschema-rs for its rescue
    return general() if callable(general) else None


def _whole_cost(guard: GuardReport | None, instance: Any, depth: int, allowance: int) -> int:
    """Evaluations the whole explanation may take, counted only as far as needed to pass
    ``allowance``. ``depth`` is the instance's depth where the schema's depth bound applies (0
    elsewhere)."""
    if guard is None:
        return 0
    if depth * guard.eval_depth > EXPLAIN_FRAMES:
        return _INFINITE  # the native stack, not the work, is the bound
    if guard.recursive:
        per_value = max(guard.in_place_width, 1)
        for _ in range(depth):
            per_value *= max(guard.fan_out, 1)
            if per_value > allowance:
                return _INFINITE
        return per_value * size(instance, allowance // per_value + 1)
    # Without recursion, each inlined subschema descends a fixed number of levels, so it meets the
    # values of one level of the instance only: the widest level bounds the values each meets.
    per_value = max(guard.measured.get("max_ref_expansion", 1), 1)
    return per_value * shape(instance, allowance // per_value + 1)[0]


def shape(instance: Any, limit: int) -> tuple[int, int]:
    """(the most values on one level of ``instance``, its depth), level by level; a long string
    counts once per 64 characters (every error message quotes it), an object's keys count with its
    values. Counting stops once a level passes ``limit``."""
    level, widest, depth = [instance], 0, -1
    while level:
        depth += 1
        width, below = 0, list[Any]()
        for value in level:
            width += 1
            if isinstance(value, str):
                width += len(value) >> 6
            elif isinstance(value, Mapping):
                width += len(value)
                below.extend(value.values())
            elif isinstance(value, list):
                below.extend(value)
        widest = max(widest, width)
        if widest > limit:
            break
        level = below
    return widest, depth


def size(instance: Any, limit: int) -> int:
    """How many values ``instance`` holds, counted as :func:`shape` counts them; counting stops
    past ``limit``."""
    total = 0
    stack = [instance]
    while stack:
        value = stack.pop()
        total += 1
        if isinstance(value, str):
            total += len(value) >> 6
        elif isinstance(value, Mapping):
            total += len(value)
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        if total > limit:
            return total
    return total


def _short(instance: Any, limit: int = 80) -> str:
    """``instance`` as JSON, cut after ``limit`` characters: written piece by piece so that a
    huge or deeply nested value costs no more than the characters shown."""
    parts: list[str] = []
    length = 0
    stack: list[Any] = [instance]
    while stack and length <= limit:
        item = stack.pop()
        if isinstance(item, _Text):
            text = item.text
        elif isinstance(item, Mapping):
            text = "{"
            entries: list[Any] = [_Text("}")]
            # Keys sorted, as jsonschema-rs writes them.
            for n, (key, value) in enumerate(reversed(sorted(item.items())[:limit])):
                entries.append(value)
                entries.append(_Text(json.dumps(str(key), ensure_ascii=False) + ":"))
                if n < min(len(item), limit) - 1:
                    entries.append(_Text(","))
            stack.extend(entries)
        elif isinstance(item, list):
            text = "["
            entries = [_Text("]")]
            shown = item[:limit]
            for n, value in enumerate(reversed(shown)):
                entries.append(value)
                if n < len(shown) - 1:
                    entries.append(_Text(","))
            stack.extend(entries)
        elif isinstance(item, str):
            text = json.dumps(item[: limit + 1], ensure_ascii=False)
        else:
            try:
                text = json.dumps(item)
            except (TypeError, ValueError):
                text = repr(item)[: limit + 1]
        parts.append(text)
        length += len(text)
    text = "".join(parts)
    return text if len(text) <= limit and not stack else text[: limit - 3] + "..."


@dataclass(frozen=True, slots=True)
class _Text:
    text: str


class _Pieces:
    """Validators for single locations of one schema, compiled on demand, and the walk that
    explains an instance piece by piece."""

    def __init__(self, general: JsonschemaRsValidator) -> None:
        source = general.source
        assert source is not None
        self.root = source.schema
        self.dialect: Dialect = source.dialect
        self.keywords = KEYWORDS[source.dialect]
        self.legacy = not source.dialect.is_modern  # drafts 4-7: $ref replaces its siblings
        options = rs_options(source)
        options["registry"] = jsonschema_rs.Registry(
            [(_DOCUMENT, self.root), *source.resources.items()],
            draft=source.dialect.rs_draft,
            retriever=_deny,
        )
        self.options = options
        self._by_pointer: dict[Pointer, Any] = {}
        self._local: dict[Pointer, Any] = {}
        self._cost: dict[Pointer, tuple[int, int]] = {}
        self.eval_depth = 1
        self.nodes = sum(_count_objects(doc) for doc in (self.root, *source.resources.values()))

    @classmethod
    def of(cls, general: JsonschemaRsValidator) -> _Pieces | None:
        """The pieces of ``general``'s schema (built once), or ``None`` where a location cannot be
        validated alone: a schema with dynamic references (their meaning depends on the path
        that reached them)."""
        if general.source is None or not isinstance(general.source.schema, Mapping):
            return None
        cached = _BUILT.get(general)
        if cached is None:
            source = general.source
            if any(_has_dynamic(doc) for doc in (source.schema, *source.resources.values())):
                cached = False
            else:
                try:
                    cached = cls(general)
                except (ValueError, jsonschema_rs.ReferencingError):
                    cached = False
            _BUILT[general] = cached
        return cached if isinstance(cached, _Pieces) else None

    # -- validators for one location ---------------------------------------------------------------

    def node(self, at: Pointer) -> Any:
        node = self.root
        for token in at:
            node = node[token]
        return node

    def validator(self, at: Pointer, budget: _Budget) -> Any:
        validator = self._by_pointer.get(at)
        if validator is None:
            # A compile visits each subschema it can reach once: charged as that many evaluations.
            budget.spend(min(self.cost(at)[0], self.nodes))
            schema = {"$ref": _DOCUMENT + "#" + pointer(at)}
            validator = self._by_pointer[at] = self.dialect.rs_validator_class(schema, **self.options)
        return validator

    def valid(self, at: Pointer, instance: Any, budget: _Budget) -> bool:
        budget.spend(1)
        return bool(self.validator(at, budget).is_valid(instance))

    def local(self, at: Pointer, node: Mapping[str, Any], budget: _Budget) -> Any:
        """A validator of ``node``'s own assertions (no subschemas, so nothing to resolve)."""
        validator = self._local.get(at)
        if validator is None:
            budget.spend(10)
            keywords = self.keywords
            own = {
                k: v
                for k, v in node.items()
                if k not in keywords.applicators
                and k not in keywords.references
                and k not in keywords.identifiers
                and k not in ("minContains", "maxContains", "$dynamicAnchor", "$recursiveAnchor")
            }
            if node.get("additionalProperties") is False and "patternProperties" not in node:
                # One issue naming every unexpected property, as the whole explanation gives.
                own["properties"] = dict.fromkeys(node.get("properties", {}), True)
                own["additionalProperties"] = False
            dependencies = node.get("dependencies")
            if isinstance(dependencies, Mapping):  # its lists of names are assertions
                own["dependencies"] = {k: v for k, v in dependencies.items() if isinstance(v, list)}
            options = {k: v for k, v in self.options.items() if k != "registry"}
            validator = self._local[at] = self.dialect.rs_validator_class(own, **options)
        return validator

    # -- cost -------------------------------------------------------------------------------------

    def cost(self, at: Pointer) -> tuple[int, int]:
        """(evaluations per instance value, nesting) of the schema at ``at``, references inlined;
        infinite where references recurse or leave the document."""
        known = self._cost.get(at)
        if known is not None:
            return known
        self._cost[at] = (_INFINITE, _INFINITE)  # a cycle back here: recursion
        try:
            result = self._measure(at)
        except RecursionError:
            result = (_INFINITE, _INFINITE)
        self._cost[at] = result
        return result

    def _measure(self, at: Pointer) -> tuple[int, int]:
        node = self.node(at)
        if not isinstance(node, Mapping):
            return (1, 1)
        total, deepest = 1, 0
        for child in self._children(at, node):
            work, nesting = self.cost(child)
            total, deepest = min(total + work, _INFINITE), max(deepest, nesting)
        if "$ref" in node:
            target = self.resolve(at, node["$ref"])
            if target is None:
                return (_INFINITE, _INFINITE)
            work, nesting = self.cost(target)
            total, deepest = min(total + work, _INFINITE), max(deepest, nesting)
        return (total, deepest + 1)

    def _children(self, at: Pointer, node: Mapping[str, Any]) -> Iterator[Pointer]:
        if self.legacy and "$ref" in node:
            return
        for keyword, (shape, _) in self.keywords.applicators.items():
            if keyword not in node or keyword in ("$defs", "definitions"):
                continue
            value = node[keyword]
            if shape is Shape.ONE or (shape is Shape.ONE_OR_LIST and not isinstance(value, list)):
                yield (*at, keyword)
            elif shape in (Shape.LIST, Shape.ONE_OR_LIST) and isinstance(value, list):
                yield from ((*at, keyword, i) for i in range(len(value)))
            elif isinstance(value, Mapping):
                for name, sub in value.items():
                    if shape is Shape.MAP or not isinstance(sub, list):
                        yield (*at, keyword, name)

    def resolve(self, at: Pointer, ref: Any) -> Pointer | None:
        """The location a same-document ``$ref`` (``#`` and a JSON pointer) points to, or ``None``."""
        if not isinstance(ref, str) or not ref.startswith("#"):
            return None
        fragment = unquote(ref[1:])
        if fragment and not fragment.startswith("/"):
            return None  # an anchor
        base = self._resource_of(at)
        node = self.node(base)
        target: list[str | int] = list(base)
        for token in fragment.split("/")[1:] if fragment else []:
            name = unescape(token)
            if isinstance(node, list) and name.isdigit() and int(name) < len(node):
                node = node[int(name)]
                target.append(int(name))
            elif isinstance(node, Mapping) and name in node:
                node = node[name]
                target.append(name)
            else:
                return None
        return tuple(target)

    def _resource_of(self, at: Pointer) -> Pointer:
        """The innermost enclosing schema with its own id: the base of a ``#`` reference."""
        base: Pointer = ()
        node = self.root
        for i, token in enumerate(at):
            node = node[token]
            if isinstance(node, Mapping) and isinstance(node.get(self.keywords.id_keyword), str):
                if not node[self.keywords.id_keyword].startswith("#"):
                    base = at[: i + 1]
        return base

    # -- the walk ---------------------------------------------------------------------------------

    def explain(self, instance: Any, budget: _Budget, out: _Issues, eval_depth: int = 1) -> None:
        """``eval_depth``: the longest chain of subschemas applied to one instance location (the
        guard's measure), which bounds the native frames each level of the instance needs."""
        self.eval_depth = max(eval_depth, 1)
        self.walk((), instance, (), (), budget, out, 0)

    def walk(
        self, at: Pointer, instance: Any, path: Pointer, location: Pointer, budget: _Budget, out: _Issues, level: int
    ) -> None:
        """Explain why ``instance`` fails the schema at ``at`` (it is known to)."""
        if out.full:
            return
        node = self.node(at)
        if node is False:
            out.add(
                Issue(
                    instance_path=pointer(path),
                    keyword_location=pointer(location),
                    keyword="falseSchema",
                    message=f"False schema does not allow {_short(instance)}",
                )
            )
            return
        if not isinstance(node, Mapping):
            return
        work, nesting = self.cost(at)
        allowance = budget.allowance()
        if work < _INFINITE:
            widest, depth = shape(instance, allowance // work + 1)
            whole = work * widest
            # The native frames a piece needs: its schema's nesting, or what the instance lets it reach.
            frames = min(nesting, (depth + 1) * self.eval_depth)
            if frames <= EXPLAIN_FRAMES and whole <= allowance:
                budget.spend(whole)
                out.run(_piece_issues(self.validator(at, budget), instance), budget, pointer(path), location)
                return
        else:
            whole = _INFINITE
        if level >= MAX_PIECE_DEPTH or allowance <= 0:
            out.cut(self._cut(path, location, whole))
            return
        try:
            self.split(at, node, instance, path, location, budget, out, level + 1)
        except (ValueError, RecursionError) as exc:
            # A value nested too deeply for the validator (jsonschema-rs refuses 256 levels on its
            # error path) or for Python: the explanation ends here.
            out.cut(
                Issue(
                    instance_path=pointer(path),
                    keyword_location=pointer(location),
                    keyword="",
                    message=f"instance is invalid; the explanation stopped: {exc}",
                )
            )

    def _cut(self, path: Pointer, location: Pointer, cost: int) -> Issue:
        return Issue(
            instance_path=pointer(path),
            keyword_location=pointer(location),
            keyword="",
            message=_too_costly(pointer(path), pointer(location), cost),
        )

    def split(
        self,
        at: Pointer,
        node: Mapping[str, Any],
        instance: Any,
        path: Pointer,
        location: Pointer,
        budget: _Budget,
        out: _Issues,
        level: int,
    ) -> None:
        """Explain ``node``'s failure keyword by keyword, descending only into failing parts."""

        def fails(sub: Pointer, value: Any) -> bool:
            return not self.valid(sub, value, budget)

        def into(sub: Pointer, value: Any, sub_path: Pointer, sub_location: Pointer) -> None:
            if fails(sub, value):
                self.walk(sub, value, sub_path, sub_location, budget, out, level)

        def say(keyword: str, message: str, where: Pointer) -> None:
            out.add(
                Issue(instance_path=pointer(path), keyword_location=pointer(where), keyword=keyword, message=message)
            )

        if "$ref" in node:
            target = self.resolve(at, node["$ref"])
            if target is None:
                if fails(at, instance):
                    out.cut(self._cut(path, (*location, "$ref"), _INFINITE))
            else:
                into(target, instance, path, (*location, "$ref"))
            if self.legacy:
                return
        if any(k in node for k in ("unevaluatedProperties", "unevaluatedItems", "patternProperties")):
            # Annotations flow between these keywords and their siblings: not split.
            out.cut(self._cut(path, location, _INFINITE))
            return
        local = self.local(at, node, budget)
        budget.spend(size(instance, budget.work))
        out.run(_piece_issues(local, instance, through_ref=False), budget, pointer(path), location)
        for i, _ in enumerate(node.get("allOf", ())):
            if out.full:
                return
            into((*at, "allOf", i), instance, path, (*location, "allOf", i))
        if "anyOf" in node and all(fails((*at, "anyOf", i), instance) for i in range(len(node["anyOf"]))):
            say(
                "anyOf",
                f"{_short(instance)} is not valid under any of the schemas listed in the 'anyOf' keyword",
                (*location, "anyOf"),
            )
        if "oneOf" in node:
            passing = 0
            for i in range(len(node["oneOf"])):
                passing += not fails((*at, "oneOf", i), instance)
                if passing > 1:
                    break
            if passing != 1:
                how = "is not valid under any" if passing == 0 else "is valid under more than one"
                message = f"{_short(instance)} {how} of the schemas listed in the 'oneOf' keyword"
                say("oneOf", message, (*location, "oneOf"))
        if "not" in node and not fails((*at, "not"), instance):
            say("not", f"{_short(node['not'])} is not allowed for {_short(instance)}", (*location, "not"))
        if "if" in node and self._knows("if"):
            branch = "then" if not fails((*at, "if"), instance) else "else"
            if branch in node:
                into((*at, branch), instance, path, (*location, branch))
        if isinstance(instance, list):
            self._items(at, node, instance, path, location, into, say, budget, out)
        if isinstance(instance, Mapping):
            self._properties(at, node, instance, path, location, into, budget, out)

    def _knows(self, keyword: str) -> bool:
        return keyword in self.keywords.applicators

    def _items(
        self,
        at: Pointer,
        node: Mapping[str, Any],
        instance: list[Any],
        path: Pointer,
        location: Pointer,
        into: Any,
        say: Any,
        budget: _Budget,
        out: _Issues,
    ) -> None:
        # Which subschema each item meets: 2020-12 `prefixItems` then `items`; before it, an
        # array-valued `items` then `additionalItems`, or a schema-valued `items` for every item.
        if self._knows("prefixItems"):
            prefix_keyword, prefix, rest_keyword = "prefixItems", node.get("prefixItems"), "items"
        elif isinstance(node.get("items"), list):
            prefix_keyword, prefix, rest_keyword = "items", node["items"], "additionalItems"
        else:
            prefix_keyword, prefix, rest_keyword = "items", None, "items"
        has_rest = rest_keyword in node
        for i, item in enumerate(instance):
            if out.full or budget.allowance() <= 0:
                if not out.full:
                    out.cut(self._cut(path, location, _INFINITE))
                return
            if prefix is not None and i < len(prefix):
                into((*at, prefix_keyword, i), item, (*path, i), (*location, prefix_keyword, i))
            elif has_rest:
                into((*at, rest_keyword), item, (*path, i), (*location, rest_keyword))
        if "contains" in node and self._knows("contains"):
            passing = sum(self.valid((*at, "contains"), item, budget) for item in instance)
            low = node.get("minContains", 1) if self._knows("minContains") else 1
            high = node.get("maxContains") if self._knows("maxContains") else None
            if passing < low or (high is not None and passing > high):
                keyword = "maxContains" if passing >= low else ("minContains" if "minContains" in node else "contains")
                say("contains", f"None of {_short(instance)} are valid under the given schema", (*location, keyword))

    def _properties(
        self,
        at: Pointer,
        node: Mapping[str, Any],
        instance: Mapping[str, Any],
        path: Pointer,
        location: Pointer,
        into: Any,
        budget: _Budget,
        out: _Issues,
    ) -> None:
        properties = node.get("properties", {})
        for name, value in instance.items():
            if out.full or budget.allowance() <= 0:
                if not out.full:
                    out.cut(self._cut(path, location, _INFINITE))
                return
            if name in properties:
                into((*at, "properties", name), value, (*path, name), (*location, "properties", name))
            elif "additionalProperties" in node and node["additionalProperties"] is not False:
                into((*at, "additionalProperties"), value, (*path, name), (*location, "additionalProperties"))
            if "propertyNames" in node and self._knows("propertyNames"):
                first = len(out.issues)
                into((*at, "propertyNames"), name, path, (*location, "propertyNames"))
                # jsonschema-rs reports what a name fails as a propertyNames issue of the object.
                out.issues[first:] = [
                    Issue(
                        instance_path=i.instance_path,
                        keyword_location=i.keyword_location,
                        keyword="propertyNames",
                        message=i.message,
                    )
                    for i in out.issues[first:]
                ]
            for keyword in ("dependentSchemas", "dependencies"):
                sub = node.get(keyword, {}).get(name) if self._knows(keyword) else None
                if isinstance(sub, (Mapping, bool)):
                    into((*at, keyword, name), instance, path, (*location, keyword, name))


def _piece_issues(validator: Any, instance: Any, *, through_ref: bool = True) -> Iterator[Issue]:
    """The issues of one piece. A location is validated through ``{"$ref": location}``: its
    keyword locations start with that ``$ref``, which the caller replaces with the location."""
    for error in validator.iter_errors(instance):  # raised here, inside the caller's guard
        issue = issue_from_rs(error)
        if through_ref and issue.keyword_location.startswith("/$ref"):
            issue = Issue(
                instance_path=issue.instance_path,
                keyword_location=issue.keyword_location[5:],
                keyword=issue.keyword,
                message=issue.message,
            )
        yield issue


def _count_objects(document: Any) -> int:
    count, stack = 0, [document]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            count += 1
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return count


def _has_dynamic(document: Any) -> bool:
    stack = [document]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            if "$dynamicRef" in node or "$recursiveRef" in node:
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def _deny(uri: str) -> Any:
    raise LookupError(f"retrieval of {uri!r} is disabled")

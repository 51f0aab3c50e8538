"""The piece-by-piece explanation: a walk over the schema and the instance together that descends
only into failing parts, runs a part whole when its estimate fits the budget, and reports where it
had to stop."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import chain
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from .._errors import Issue
from .._keywords import KEYWORDS, Shape
from .._pointer import pointer, unescape
from .budget import (
    EXPLAIN_FRAMES,
    INFINITE,
    NAME_KEYWORDS,
    SPENT,
    Budget,
    Issues,
    Pointer,
    count_objects,
    location_weight,
    missing_names,
    node_weight,
    shown_pointer,
    too_costly,
)
from .measure import shape, short, size, size_and_depth

if TYPE_CHECKING:
    from ..backends import LocationValidators

__all__ = ["MAX_PIECE_DEPTH", "Pieces"]

_PER_NAME = frozenset({"propertyNames", "dependentSchemas", "dependencies"})  # read for each property of an object
_Into = Callable[[Pointer, Any, Pointer, Pointer], None]
"""Explain a value against a subschema if it fails it: (location, value, path, keyword location)."""
_Say = Callable[[str, str, Pointer], None]
"""Add one issue of the current value: (keyword, message, keyword location)."""

# The walk over each schema's locations, built on its first piece-by-piece explanation.
_BUILT: weakref.WeakKeyDictionary[LocationValidators, Pieces] = weakref.WeakKeyDictionary()

_FEW_ITEMS = 4
"""Items of a range given one by one rather than checked together (see `Pieces._failing_items`)."""

MAX_PIECE_DEPTH = 100
"""How many levels of schema and instance the piece-by-piece explanation descends before it
reports the rest as truncated (each level is a few Python frames)."""


class _Spent(Exception):  # noqa: N818 - a signal within the walk, never raised out of it
    """The budget ran out before a native check: the walk stops, and the piece being split says
    where (once: ``said``)."""

    said = False


class Pieces:
    """Validators for single locations of one schema, compiled on demand, and the walk that
    explains an instance piece by piece."""

    def __init__(self, locations: LocationValidators) -> None:
        self.locations = locations
        self.root = locations.root
        self.keywords = KEYWORDS[locations.dialect]
        self.legacy = not locations.dialect.is_modern  # drafts 4-7: $ref replaces its siblings
        self._cost: dict[Pointer, tuple[int, int]] = {}
        self.eval_depth = 1
        self.nodes = sum(count_objects(doc) for doc in (self.root, *locations.resources.values()))

    @classmethod
    def of(cls, locations: LocationValidators) -> Pieces:
        """The walk over ``locations``' schema, built once (it keeps what it measured)."""
        pieces = _BUILT.get(locations)
        if pieces is None:
            pieces = _BUILT[locations] = cls(locations)
        return pieces

    # -- one location ----------------------------------------------------------------------------

    def node(self, at: Pointer) -> Any:
        node = self.root
        for token in at:
            node = node[token]
        return node

    def _charge_compile(self, at: Pointer, budget: Budget) -> None:
        if not self.locations.compiled(at):
            # A compile visits each subschema it can reach once: charged as that many evaluations.
            budget.spend(min(self.cost(at)[0], self.nodes))

    def valid(self, at: Pointer, instance: Any, budget: Budget) -> bool:
        self._charge_compile(at, budget)
        _check_left(budget, self.cost(at)[0])
        budget.spend(1)
        return self.locations.is_valid(at, instance)

    def issues(self, at: Pointer, instance: Any, budget: Budget) -> Iterator[Issue]:
        self._charge_compile(at, budget)
        return self.locations.issues(at, instance)

    def own_issues(
        self, at: Pointer, node: Mapping[str, Any], instance: Any, budget: Budget, out: Issues
    ) -> Iterator[Issue]:
        """The issues of ``node``'s own assertions (the keywords that hold no subschema), the
        missing names of long lists ``out.cap`` at most; where the value is too large to quote
        within the budget, one issue per failing keyword, unquoted, and ``out`` marked truncated."""
        cap = out.cap
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
        weight = node_weight(node)
        missing: list[Issue] = []
        if weight and isinstance(instance, Mapping):
            # Long lists of names: the missing ones found here, an issue each as the backend words
            # it, where the backend would build an error for each, a copy of the object in each.
            missing = missing_names(own, instance, budget, "dependentRequired" in self.keywords.assertions, cap)
            for keyword in NAME_KEYWORDS:
                own.pop(keyword, None)
            weight = node_weight(own)  # what the backend still copies (an enum, a const)
        _check_left(budget)
        budget.spend(1 + weight)
        if self.locations.own_valid(at, own, instance):
            return iter(missing)
        # Each message quotes the value: charged by its size, so that a huge value is quoted few
        # times, and never past what is left (jsonschema-rs took 2.7 s to word one issue naming the
        # 4.5 million properties `additionalProperties: false` refuses in a 63 MiB object).
        allowance = budget.allowance()
        quoted = size(instance, allowance)
        if quoted > allowance:
            out.truncated = True
            return chain(missing, self._unquoted(own, instance, allowance, budget))
        budget.spend(quoted)
        return chain(missing, self.locations.own_issues(at, own, instance))

    def _unquoted(self, own: Mapping[str, Any], instance: Any, allowance: int, budget: Budget) -> Iterator[Issue]:
        """An issue for each keyword of ``own`` that ``instance`` fails (each checked alone, with
        what decides which properties are additional), its message naming no value; none checked
        once the time is spent (a lone `uniqueItems` may take seconds on the value)."""
        why = (
            f"the value holds more than {allowance} values, too many to quote within max_explain_work / "
            "max_explain_seconds (explanation truncated)"
            if allowance > 0
            else "nothing was left to quote the value with: max_explain_work / max_explain_seconds spent "
            "(explanation truncated)"
        )
        for keyword, value in own.items():
            alone = {keyword: value}
            if keyword == "additionalProperties" and "properties" in own:
                alone["properties"] = own["properties"]
            elif keyword == "properties":
                continue  # its subschemas are `true` here: it decides what is additional, no more
            if budget.out_of_time():
                return  # (the list is marked truncated already)
            if not self.locations.alone_valid(alone, instance):
                yield Issue(
                    instance_path="",
                    keyword_location=pointer((keyword,)),
                    keyword=keyword,
                    message=f"instance is invalid against {keyword}; {why}",
                )

    # -- cost -------------------------------------------------------------------------------------

    def cost(self, at: Pointer) -> tuple[int, int]:
        """(evaluations per instance value, nesting) of the schema at ``at``, references inlined;
        infinite where references recurse or leave the document."""
        known = self._cost.get(at)
        if known is not None:
            return known
        self._cost[at] = (INFINITE, INFINITE)  # a cycle back here: recursion
        try:
            result = self._measure(at)
        except RecursionError:
            result = (INFINITE, INFINITE)
        self._cost[at] = result
        return result

    def _measure(self, at: Pointer) -> tuple[int, int]:
        node = self.node(at)
        if not isinstance(node, Mapping):
            return (1, 1)
        if "propertyNames" in node and self._knows("propertyNames"):
            # An error for each failing name, each copying the object (see `error_weight`): split,
            # and the names explained one by one.
            return (INFINITE, INFINITE)
        # Long lists make many errors, or large ones; a long location is copied into each.
        weight = node_weight(node) + location_weight(at)
        total, deepest = 1 + weight, 0
        for child in self._children(at, node):
            work, nesting = self.cost(child)
            total, deepest = min(total + work, INFINITE), max(deepest, nesting)
        if total < INFINITE and "if" in node and "then" in node and "else" in node and self._knows("if"):
            # Only one of then / else is evaluated (both are finite here: each is in the total).
            total -= min(self.cost((*at, "then"))[0], self.cost((*at, "else"))[0])
        if "$ref" in node:
            target = self.resolve(at, node["$ref"])
            if target is None:
                return (INFINITE, INFINITE)
            work, nesting = self.cost(target)
            total, deepest = min(total + work, INFINITE), max(deepest, nesting)
        return (total, deepest + 1)

    def _children(self, at: Pointer, node: Mapping[str, Any]) -> Iterator[Pointer]:
        if self.legacy and "$ref" in node:
            return
        for keyword, (form, _) in self.keywords.applicators.items():
            if keyword not in node or keyword in ("$defs", "definitions"):
                continue
            value = node[keyword]
            if form is Shape.ONE or (form is Shape.ONE_OR_LIST and not isinstance(value, list)):
                yield (*at, keyword)
            elif form in (Shape.LIST, Shape.ONE_OR_LIST) and isinstance(value, list):
                yield from ((*at, keyword, i) for i in range(len(value)))
            elif isinstance(value, Mapping):
                for name, sub in value.items():
                    if form is Shape.MAP or not isinstance(sub, list):
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

    def explain(self, instance: Any, budget: Budget, out: Issues, eval_depth: int = 1) -> None:
        """``eval_depth``: the longest chain of subschemas applied to one instance location (the
        guard's measure), which bounds the native frames each level of the instance needs."""
        self.eval_depth = max(eval_depth, 1)
        try:
            self.walk((), instance, (), (), budget, out, 0)
        except _Spent:
            pass  # cut where it was spent

    def walk(
        self, at: Pointer, instance: Any, path: Pointer, location: Pointer, budget: Budget, out: Issues, level: int
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
                    message=f"False schema does not allow {short(instance)}",
                )
            )
            return
        if not isinstance(node, Mapping):
            return
        work, nesting = self.cost(at)
        allowance = budget.allowance()
        if work < INFINITE:
            # An error copies, and quotes, the whole value it is about, not one level of it.
            values, depth = size_and_depth(instance, allowance // work + 1)
            whole = work * values
            # The native frames a piece needs: its schema's nesting, or what the instance lets it reach.
            frames = min(nesting, (depth + 1) * self.eval_depth)
            if frames <= EXPLAIN_FRAMES and whole <= allowance:
                budget.spend(whole)
                out.run(self.issues(at, instance, budget), budget, pointer(path), location)
                return
        else:
            whole = INFINITE
        if level >= MAX_PIECE_DEPTH or allowance <= 0:
            out.cut(self._cut(path, location, whole))
            return
        try:
            self.split(at, node, instance, path, location, budget, out, level + 1)
        except _Spent as spent:
            if not spent.said:
                spent.said = True
                at_path, at_location = pointer(path), pointer(location)
                where = f"{shown_pointer(at_path)} against {shown_pointer(at_location)}"
                message = f"instance is invalid; the explanation stopped at {where}: {SPENT}"
                out.cut(Issue(instance_path=at_path, keyword_location=at_location, keyword="", message=message))
            raise
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
            message=too_costly(pointer(path), pointer(location), cost),
        )

    def split(
        self,
        at: Pointer,
        node: Mapping[str, Any],
        instance: Any,
        path: Pointer,
        location: Pointer,
        budget: Budget,
        out: Issues,
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
            if target is None:  # outside the document, or an anchor: not followed here
                out.cut(self._cut(path, (*location, "$ref"), INFINITE))
            else:
                into(target, instance, path, (*location, "$ref"))
            if self.legacy:
                return
        # The schema's own assertions depend on nothing else: always explained.
        out.run(self.own_issues(at, node, instance, budget, out), budget, pointer(path), location)
        if any(k in node for k in ("unevaluatedProperties", "unevaluatedItems")):
            # Annotations flow between these keywords and their siblings: the rest is not split.
            out.cut(self._cut(path, location, INFINITE))
            return
        for i, _ in enumerate(node.get("allOf", ())):
            if out.full:
                return
            into((*at, "allOf", i), instance, path, (*location, "allOf", i))
        if "anyOf" in node and all(fails((*at, "anyOf", i), instance) for i in range(len(node["anyOf"]))):
            say(
                "anyOf",
                f"{short(instance)} is not valid under any of the schemas listed in the 'anyOf' keyword",
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
                message = f"{short(instance)} {how} of the schemas listed in the 'oneOf' keyword"
                say("oneOf", message, (*location, "oneOf"))
        if "not" in node and not fails((*at, "not"), instance):
            say("not", f"{short(node['not'])} is not allowed for {short(instance)}", (*location, "not"))
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
        into: _Into,
        say: _Say,
        budget: Budget,
        out: Issues,
    ) -> None:
        # Which subschema each item meets: 2020-12 `prefixItems` then `items`; before it, an
        # array-valued `items` then `additionalItems`, or a schema-valued `items` for every item.
        if self._knows("prefixItems"):
            prefix_keyword, prefix, rest_keyword = "prefixItems", node.get("prefixItems"), "items"
        elif isinstance(node.get("items"), list):
            prefix_keyword, prefix, rest_keyword = "items", node["items"], "additionalItems"
        else:
            prefix_keyword, prefix, rest_keyword = "items", None, "items"
        head = min(len(prefix), len(instance)) if prefix is not None else 0
        # The items past the prefix that may fail, found a range at a time (see `_failing_items`).
        rest = self._failing_items((*at, rest_keyword), instance, head, budget) if rest_keyword in node else ()
        for i in chain(range(head), rest):
            if out.full or budget.allowance() <= 0:
                if not out.full:
                    out.cut(self._cut(path, location, INFINITE))
                return
            if i < head:
                into((*at, prefix_keyword, i), instance[i], (*path, i), (*location, prefix_keyword, i))
            else:
                into((*at, rest_keyword), instance[i], (*path, i), (*location, rest_keyword))
        if "contains" in node and self._knows("contains"):
            passing = 0
            for item in instance:
                if budget.allowance() <= 0:
                    out.cut(self._cut(path, (*location, "contains"), INFINITE))
                    return
                passing += self.valid((*at, "contains"), item, budget)
            low = node.get("minContains", 1) if self._knows("minContains") else 1
            high = node.get("maxContains") if self._knows("maxContains") else None
            if passing < low or (high is not None and passing > high):
                keyword = "maxContains" if passing >= low else ("minContains" if "minContains" in node else "contains")
                say("contains", f"None of {short(instance)} are valid under the given schema", (*location, keyword))

    def _failing_items(self, at: Pointer, instance: list[Any], start: int, budget: Budget) -> Iterator[int]:
        """The indexes, from ``start`` and in order, of the items that may fail the subschema at
        ``at``: a range whose items all meet it in one native check (one evaluation, as the fast
        check of a value is charged whatever it holds) is passed over, and a failing one halved,
        down to a few items given one by one (each then checked alone by the caller). One failing
        item among 10,000 is found in some thirty checks, where each item was checked from Python
        in turn (a cliff once an explanation went piece by piece). Once the budget is spent, the
        items are given one by one, for the caller to cut."""
        locations = self.locations
        per_item = self.cost(at)[0]
        if not locations.every_item_compiled(at):
            budget.spend(min(per_item, self.nodes))  # as a location's compile is charged
        ranges = [(start, len(instance))]
        while ranges:
            low, high = ranges.pop()
            if high - low <= _FEW_ITEMS or budget.allowance() <= 0:
                yield from range(low, high)
                continue
            _check_left(budget, per_item * (high - low))
            budget.spend(1)
            if locations.every_item_valid(at, instance[low:high]):
                continue
            middle = (low + high) // 2
            ranges += ((middle, high), (low, middle))  # the lower half first

    def _properties(
        self,
        at: Pointer,
        node: Mapping[str, Any],
        instance: Mapping[str, Any],
        path: Pointer,
        location: Pointer,
        into: _Into,
        budget: Budget,
        out: Issues,
    ) -> None:
        properties = node.get("properties", {})
        patterns = "patternProperties" in node and self._knows("patternProperties")
        members: Iterable[tuple[str, Any]] = instance.items()
        if not patterns and node.get("additionalProperties", False) is False and _PER_NAME.isdisjoint(node):
            # Only the properties the schema names hold anything to explain: the others (4.5 million
            # in a 63 MiB object) are passed over at once, not one by one against the clock.
            members = [(name, value) for name, value in members if name in properties]
        for name, value in members:
            if out.full or budget.allowance() <= 0:
                if not out.full:
                    out.cut(self._cut(path, location, INFINITE))
                return
            if patterns:
                # Which subschemas a property meets depends on every pattern: the property is
                # checked against the three keywords together, and explained whole or cut.
                self._member(at, node, name, value, path, location, budget, out)
            elif name in properties:
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

    def _member(
        self,
        at: Pointer,
        node: Mapping[str, Any],
        name: str,
        value: Any,
        path: Pointer,
        location: Pointer,
        budget: Budget,
        out: Issues,
    ) -> None:
        _check_left(budget)
        budget.spend(1)
        if self.locations.member_valid(at, node, name, value):
            return
        work = 1
        for keyword in ("properties", "patternProperties"):
            for key in node.get(keyword, {}):
                work = min(work + self.cost((*at, keyword, key))[0], INFINITE)
        if "additionalProperties" in node:
            work = min(work + self.cost((*at, "additionalProperties"))[0], INFINITE)
        allowance = budget.allowance()
        whole = work * shape(value, allowance // work + 1)[0] if work < INFINITE else INFINITE
        if whole > allowance:
            out.cut(self._cut((*path, name), location, whole))
            return
        budget.spend(whole)
        out.run(self.locations.member_issues(at, node, name, value), budget, pointer(path), location)


def _check_left(budget: Budget, evaluations: int = 1) -> None:
    """Before each native check: a check is charged as one evaluation whatever it reads, and a
    subschema's pattern may read a long string for a second (200 branches of one: 200 s), so the
    clock is read before every one, and none starts once the time is spent, nor one whose
    ``evaluations`` (what the values it reads meet at least, where that is known) would take
    longer than the time left (the first check of 320,000 items meeting 302 subschemas each took a second). (Spent
    work stops what is explained, not the fast checks that find where: an `anyOf` with none left
    still says that no branch holds.)"""
    left = budget.seconds_left()
    if left <= 0 or (evaluations < INFINITE and evaluations * _CHECK_SECONDS > left):
        raise _Spent  # (a recursive subschema's, infinite, is not known: its checks start)


_CHECK_SECONDS = 1e-8  # an evaluation of a native check (`max_validation_work`: 10^8, about a second)

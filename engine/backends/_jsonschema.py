"""The reference backend: python-jsonschema, offline, with ECMA-262 patterns.

Built with a ``referencing`` registry that holds the meta-schemas and the caller's resources and
refuses to retrieve anything else (python-jsonschema's default registry would ``urlopen`` any
``$ref``). Format assertion follows the configuration, and a format python-jsonschema cannot check
(its checker needs a package that is not installed) is refused under assertion rather than passed.

python-jsonschema runs patterns with Python ``re``. Every pattern in the schema and its resources
(``pattern`` values, ``patternProperties`` keys) is rewritten to its exact Python translation from
:mod:`engine._patterns` before the validator is built, so ``patternProperties``,
``additionalProperties`` and ``unevaluatedProperties`` all see ECMA-262 answers; a pattern that
cannot be translated is refused. Issues name the original patterns' locations.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from typing import Any, ClassVar

import jsonschema
import jsonschema.validators
import msgspec
import referencing.exceptions
from jsonschema import _legacy_keywords, _utils  # the evaluated keys and indexes of a scope (see `_unevaluated`)

from .. import _patterns
from .._dialect import Dialect
from .._errors import DecodeError, DecodeReason, Issue
from .._keywords import KEYWORDS
from .._pointer import pointer
from ._contract import Backend, BackendValidator, SchemaSource, late, refuse
from ._jsonschema_rs import lazy_validator
from ._resources import SPECIFICATIONS, build_registry

__all__ = ["JsonschemaBackend", "JsonschemaValidator", "translate_patterns"]

NAME = "jsonschema"


def _unique_items(validator: Any, unique: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """``uniqueItems`` as python-jsonschema words it, in one pass: its own compares every pair of
    items that do not sort (objects, arrays, mixed kinds), 5,000 objects in 21 s."""
    if unique and validator.is_type(instance, "array") and len({*map(_equality_key, instance)}) != len(instance):
        yield jsonschema.ValidationError(f"{instance!r} has non-unique elements")


def _equality_key(value: Any) -> bytes:
    """The canonical text of a JSON value, equal to another's exactly where JSON Schema says the
    values are equal: numbers by value (``1`` and ``1.0`` written alike), ``true`` and ``false``
    apart from them, objects whatever their keys' order. Text, so that the set holding them hashes
    them with the interpreter's seeded hash: a payload can make integers or tuples of them hash
    alike (20,000 such pairs took 7.4 s through a set of tuples)."""
    return _sorted_json(_integral(value))


def _integral(value: Any) -> Any:
    """``value`` with every float that is an integer written as that integer."""
    kind = type(value)
    if kind is float:
        return int(value) if value.is_integer() else value
    if kind is list:
        return [*map(_integral, value)]
    if kind is dict:
        return {key: _integral(item) for key, item in value.items()}
    return value


_sorted_json = msgspec.json.Encoder(order="sorted").encode


def _unevaluated(finders: Any) -> dict[str, Callable[..., Iterator[Any]]]:
    """``unevaluatedProperties`` and ``unevaluatedItems`` as python-jsonschema words them, each
    key or index looked up in a set. Its own look each up in the list of those evaluated, which
    holds one entry per key or index (and per applicator that evaluates it): an object of 20,000
    keys took 2.7 s, and 40,000 four times that. ``finders``: the module whose
    ``find_evaluated_*_by_schema`` collect what a scope evaluated, as the dialect reads it
    (python-jsonschema's, private; each linear in the instance)."""
    evaluated_keys, evaluated_indexes = (
        finders.find_evaluated_property_keys_by_schema,
        finders.find_evaluated_item_indexes_by_schema,
    )

    def properties(validator: Any, unevaluated: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if not validator.is_type(instance, "object"):
            return
        evaluated = set(evaluated_keys(validator, instance, schema))
        failing = [
            name
            for name, value in instance.items()
            if name not in evaluated
            and next(validator.descend(value, unevaluated, path=name, schema_path=name), None) is not None
        ]
        if failing and unevaluated is False:
            yield jsonschema.ValidationError(
                f"Unevaluated properties are not allowed ({_listed(sorted(failing, key=str))} unexpected)"
            )
        elif failing:
            yield jsonschema.ValidationError(
                "Unevaluated properties are not valid under the given schema "
                f"({_listed(failing)} unevaluated and invalid)"
            )

    def items(validator: Any, unevaluated: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if not validator.is_type(instance, "array"):
            return
        evaluated = set(evaluated_indexes(validator, instance, schema))
        failing = [item for index, item in enumerate(instance) if index not in evaluated]
        if failing:
            yield jsonschema.ValidationError(f"Unevaluated items are not allowed ({_listed(failing)} unexpected)")

    return {"unevaluatedProperties": properties, "unevaluatedItems": items}


def _listed(extras: list[Any]) -> str:
    """``'a', 'b' were`` or ``'a' was``: the extras of an error, as python-jsonschema lists them."""
    return f"{', '.join(map(repr, extras))} {'was' if len(extras) == 1 else 'were'}"


KEYWORD_COST = 1_000
"""What one keyword python-jsonschema applies to a value costs, in evaluations of jsonschema-rs
(the unit of ``Limits.max_validation_work``): 7-14 us a keyword measured (an ``allOf`` of 100
``minimum`` s, 100 ``$ref`` s, ``if`` s, failing ``anyOf`` and ``oneOf`` branches), against some
10 ns. A check counts the keywords it applies as it runs (:func:`_counted`), and stops with
``too-large`` past ``max_validation_work // KEYWORD_COST`` of them (100,000 by default: about a
second): a schema applying up to 256 subschemas to a value is not weighed beforehand
(``engine._work``), and an ``allOf`` of 100 on each item of 90 KB took python-jsonschema 33 s.

Some keywords cost far more than their count: a ``const`` compared with a nested value in
Python, a reference percent-encoded at length resolved again on every call, a failing branch
whose message writes out a long string. The check also stops once it has spent the budget's
time on its thread's clock (:data:`SECONDS_PER_EVALUATION` each: a second by default), read
every :data:`_CLOCK_EVERY` keywords (the clock costs a microsecond a read)."""

SECONDS_PER_EVALUATION = 1e-8
"""The time an evaluation of ``max_validation_work`` stands for (jsonschema-rs's rate)."""
_CLOCK_EVERY = 16

# The check under way (`None`: not counted): what it may still apply, in eighths of a keyword;
# the keywords until the clock is read; the thread's clock time past which it stops (`None`
# before the first reading); the time it may take.
_LEFT: ContextVar[list[Any] | None] = ContextVar("engine_jsonschema_keywords_left", default=None)
_clock = time.thread_time
# Keywords that apply a subschema to each item or property (a value each, a descent some 1.5 us)
# or look each key up in the schema's patterns (a search each, some 0.5 us).
_PER_CHILD = frozenset(
    {
        "items",
        "prefixItems",
        "additionalItems",
        "contains",
        "unevaluatedItems",
        "properties",
        "patternProperties",
        "additionalProperties",
        "unevaluatedProperties",
        "propertyNames",
    }
)


class _Exhausted(Exception):
    """A check applied more keywords, or took longer, than it may (see :data:`KEYWORD_COST`)."""


def _counted(name: str, keyword: Callable[..., Any]) -> Callable[..., Any]:
    """``keyword``, counting what it costs the check under way first: one, an eighth more for each
    member of a list or object it reads (an ``enum`` compares each in Python, 0.85 us), and, where it
    applies a subschema to each child of the value or searches each key, an eighth for each
    child, times one and the schema's ``patternProperties``."""
    per_child = name in _PER_CHILD

    def counted(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
        left = _LEFT.get()
        if left is not None:
            cost = 8 + (len(value) if type(value) is list or type(value) is dict else 0)
            kind = type(instance)
            if per_child and (kind is list or kind is dict):
                patterns = schema.get("patternProperties") if kind is dict else None
                cost += len(instance) * (1 + (len(patterns) if type(patterns) is dict else 0))
            left[0] -= cost
            left[1] -= 1
            if left[0] < 0:
                raise _Exhausted
            if not left[1]:
                left[1] = _CLOCK_EVERY
                now = _clock()
                if left[2] is None:  # the first reading: the deadline counts from here
                    left[2] = now + left[3]
                elif now > left[2]:
                    raise _Exhausted
        return keyword(validator, value, instance, schema)

    return counted


def _validator_class(base: Any, extra: Mapping[str, Callable[..., Any]]) -> type[Any]:
    keywords = {**base.VALIDATORS, "uniqueItems": _unique_items, **extra}
    return jsonschema.validators.extend(base, {name: _counted(name, fn) for name, fn in keywords.items()})  # type: ignore[no-any-return]


_VALIDATORS: dict[Dialect, type[Any]] = {
    Dialect.DRAFT4: _validator_class(jsonschema.Draft4Validator, {}),
    Dialect.DRAFT6: _validator_class(jsonschema.Draft6Validator, {}),
    Dialect.DRAFT7: _validator_class(jsonschema.Draft7Validator, {}),
    Dialect.DRAFT2019_09: _validator_class(jsonschema.Draft201909Validator, _unevaluated(_legacy_keywords)),
    Dialect.DRAFT2020_12: _validator_class(jsonschema.Draft202012Validator, _unevaluated(_utils)),
}
# Keywords whose values are data, never schemas: nothing under them is rewritten (``pattern`` is
# data too, but it is rewritten first).
_DATA = frozenset().union(*(table.data for table in KEYWORDS.values()))
# Keywords whose values map arbitrary names (never keywords) to subschemas.
_NAMED = frozenset({"properties", "definitions", "$defs", "dependentSchemas", "dependencies"})


# What python-jsonschema may raise instead of answering: a reference it cannot follow, a recursion
# too deep for Python, arithmetic past float range.
_FAILURES = (referencing.exceptions.Unresolvable, RecursionError, OverflowError)


def translate_patterns(node: Any, renamed: dict[str, str], path: str = "", *, modern: bool = False) -> Any:
    """A copy of schema ``node`` with every pattern in its Python translation; ``renamed`` maps
    each translated ``patternProperties`` key back to the original. Unknown keywords are walked as
    possible subschemas (a ``$ref`` may point into them)."""
    if isinstance(node, list):
        return [translate_patterns(item, renamed, f"{path}/{i}", modern=modern) for i, item in enumerate(node)]
    if not isinstance(node, Mapping):
        return node
    if modern and isinstance(node.get("dependencies"), Mapping):
        node = _modern_dependencies(node)
    out: dict[str, Any] = {}
    for key, value in node.items():
        where = f"{path}/{key}"
        if key == "pattern" and isinstance(value, str):
            out[key] = _translate(value, where)
        elif key in _DATA:
            out[key] = value
        elif key == "patternProperties" and isinstance(value, Mapping):
            table = {}
            for pattern, sub in value.items():
                python = _translate(pattern, where)
                if python in table:
                    raise refuse(NAME, "two patternProperties translate to the same Python pattern", location=where)
                renamed[python] = pattern
                table[python] = translate_patterns(sub, renamed, f"{where}/{pattern}", modern=modern)
            out[key] = table
        elif key in _NAMED and isinstance(value, Mapping):
            out[key] = {
                name: translate_patterns(sub, renamed, f"{where}/{name}", modern=modern) for name, sub in value.items()
            }
        elif key == "$ref" and isinstance(value, str) and "patternProperties" in value:
            raise refuse(NAME, "a $ref into patternProperties (its keys are rewritten)", location=where)
        else:
            out[key] = translate_patterns(value, renamed, where, modern=modern)
    return out


def _modern_dependencies(node: Mapping[str, Any]) -> dict[str, Any]:
    """2019-09 and 2020-12 dropped ``dependencies``; the engine honours it there as its general
    backend does, so it is spelled as ``dependentRequired`` / ``dependentSchemas`` for
    python-jsonschema (which ignores it)."""
    out = {k: v for k, v in node.items() if k != "dependencies"}
    required = dict(out.get("dependentRequired", {}))
    schemas = dict(out.get("dependentSchemas", {}))
    for name, value in node["dependencies"].items():
        if isinstance(value, list):
            if name in required:
                schemas[name] = (
                    {"allOf": [schemas[name], {"required": value}]} if name in schemas else {"required": value}
                )
            else:
                required[name] = value
        else:
            schemas[name] = {"allOf": [schemas[name], value]} if name in schemas else value
    if required:
        out["dependentRequired"] = required
    if schemas:
        out["dependentSchemas"] = schemas
    return out


def _has(node: Any, segment: Any) -> bool:
    if isinstance(node, Mapping):
        return segment in node
    return isinstance(node, list) and isinstance(segment, int) and 0 <= segment < len(node)


def _translate(pattern: str, where: str) -> str:
    try:
        return _patterns.translate(pattern)
    except _patterns.PatternRefused as exc:
        raise refuse(NAME, f"pattern {pattern!r} cannot run exactly in Python re: {exc.why}", location=where) from None


class JsonschemaValidator(BackendValidator):
    def __init__(
        self,
        validator: Any,
        renamed: Mapping[str, str],
        rescue: Callable[[], BackendValidator],
        spec: Any,
        budget: int,
    ) -> None:
        self._validator = validator
        self._spec = spec
        self._renamed = renamed
        self._rescue = rescue
        self._budget = budget
        self._keywords = 8 * (budget // KEYWORD_COST)  # eighths of a keyword (see `_counted`)
        self._seconds = budget * SECONDS_PER_EVALUATION

    def _counting(self) -> Any:
        """Start counting a check on this thread (the token to stop with)."""
        # The deadline is set at the first reading of the clock (it costs a microsecond, more than
        # a short check's keywords take).
        return _LEFT.set([self._keywords, _CLOCK_EVERY, None, self._seconds])

    def is_valid(self, instance: Any) -> bool:
        counting = self._counting()
        try:
            return bool(self._validator.is_valid(instance))
        except _FAILURES:
            return self._rescue().is_valid(instance)
        except _Exhausted:
            raise DecodeError(
                DecodeReason.TOO_LARGE,
                f"instance is too large for this schema: python-jsonschema was not done after "
                f"{self._keywords // 8} keywords or {self._seconds:g} s of CPU time: max_validation_work "
                f"({self._budget}) counts evaluations of jsonschema-rs, {KEYWORD_COST} a keyword, 10 ns each",
            ) from None
        finally:
            _LEFT.reset(counting)

    def general(self) -> BackendValidator:
        """The jsonschema-rs validator of the same schema (explanation too costly to run whole
        is done piece by piece with it)."""
        return self._rescue()

    def iter_issues(self, instance: Any) -> Iterator[Issue]:
        # Counted as a check is: past the budget, jsonschema-rs explains (in its own words).
        counting = self._counting()
        try:
            errors = list(self._validator.iter_errors(instance))
        except (*_FAILURES, _Exhausted):
            errors = None
        finally:
            _LEFT.reset(counting)
        if errors is None:
            yield from self._rescue().iter_issues(instance)
            return
        renamed = self._renamed
        for error in errors:
            schema_path = self._through_refs(list(error.absolute_schema_path), error)
            message = error.message
            for python, original in renamed.items():
                message = message.replace(repr(python), repr(original))
            yield Issue(
                instance_path=pointer(error.absolute_path),
                keyword_location=pointer(renamed.get(p, p) if isinstance(p, str) else p for p in schema_path),
                keyword=str(error.validator),
                message=message,
            )

    def _through_refs(self, path: list[Any], error: Any) -> list[Any]:
        """python-jsonschema leaves ``$ref`` out of schema paths; the engine's keyword locations
        (like jsonschema-rs's, and JSON Schema's output format) name each ``$ref`` crossed."""
        validator = self._validator
        node, resolver = validator.schema, validator._resolver
        out: list[Any] = []
        for index, segment in enumerate(path):
            for _ in range(64):  # a chain of $ref s, bounded
                last = index == len(path) - 1
                if _has(node, segment) and not (
                    last and isinstance(node, Mapping) and "$ref" in node and node.get(segment) != error.validator_value
                ):
                    break
                ref = node.get("$ref") if isinstance(node, Mapping) else None
                if not isinstance(ref, str):
                    return out + path[index:]
                try:
                    resolved = resolver.lookup(ref)
                except referencing.exceptions.Unresolvable:
                    return out + path[index:]
                out.append("$ref")
                node, resolver = resolved.contents, resolved.resolver
            else:
                return out + path[index:]
            out.append(segment)
            node = node[segment]
            if isinstance(node, Mapping):
                try:
                    resolver = resolver.in_subresource(self._spec.create_resource(node))
                except (AttributeError, TypeError, ValueError):
                    pass  # not a schema (a name inside "properties"): no base URI here
        return out


class JsonschemaBackend(Backend):
    name: ClassVar[str] = NAME
    dialects: ClassVar[frozenset[Dialect]] = frozenset(Dialect)
    backtracking: ClassVar[bool] = True  # branch by branch, in Python

    def compile(self, source: SchemaSource) -> JsonschemaValidator:
        self.check_dialect(source)
        source = late(source)  # python-jsonschema reads the schema while it validates: a private copy
        root = source.schema
        if isinstance(root, Mapping) and root.get("$schema") not in (None, source.dialect.meta_schema_uri):
            raise refuse(NAME, "the schema names a custom meta-schema, and python-jsonschema ignores $vocabulary")
        if source.dialect is Dialect.DRAFT2019_09:
            _check_2019_unevaluated(root, source.resources)
        if source.dialect is Dialect.DRAFT7:
            for key, _ in _iter_all(root, source.resources):
                if key in ("contentEncoding", "contentMediaType"):
                    raise refuse(
                        NAME,
                        "draft-7 contentEncoding / contentMediaType are asserted by the engine, "
                        "and python-jsonschema treats them as annotations",
                    )
        _check_anchor_lookups(root, source.resources)
        renamed: dict[str, str] = {}
        modern = source.dialect.is_modern
        try:
            schema = translate_patterns(source.schema, renamed, modern=modern)
            resources = {uri: translate_patterns(doc, renamed, modern=modern) for uri, doc in source.resources.items()}
        except RecursionError:
            raise refuse(NAME, "the schema nests too deeply to rewrite its patterns") from None
        translated = SchemaSource(schema=schema, dialect=source.dialect, resources=resources, config=source.config)
        cls = _VALIDATORS[source.dialect]
        format_checker = None
        if source.config.assert_formats:
            format_checker = cls.FORMAT_CHECKER
            _check_formats(schema, resources, format_checker)
        try:
            registry = build_registry(translated)
        except (
            referencing.exceptions.CannotDetermineSpecification,
            referencing.exceptions.Unresolvable,
            TypeError,
            ValueError,
        ) as exc:
            raise refuse(NAME, f"its resources cannot be indexed: {exc}") from None
        validator = cls(schema, registry=registry, format_checker=format_checker)
        # The pipeline has already resolved every $ref with jsonschema-rs; should python-jsonschema
        # still fail to (or recurse too deep), that answer comes from jsonschema-rs instead.
        budget = source.config.limits.max_validation_work
        return JsonschemaValidator(validator, renamed, lazy_validator(source), SPECIFICATIONS[source.dialect], budget)


# Formats python-jsonschema asserts differently from the specification (the suite's optional
# format tests show it).
_INEXACT_FORMATS = {
    "regex": "with Python re, not ECMA-262",
    "email": "by looking for an '@' only",
    "idn-email": "by looking for an '@' only",
    "uuid": "without requiring the hyphens in place",
    "date": "with Python's datetime, which refuses the year 0000 that RFC 3339 allows",
    # Checked only when the `idna` package is installed (the MCP SDKs bring it), and then it
    # accepts trailing dots and digit-first Bidi labels that the specification refuses.
    "idn-hostname": "through the idna package, which accepts trailing dots and some invalid Bidi labels",
}


def _check_2019_unevaluated(schema: Any, resources: Mapping[str, Any]) -> None:
    # python-jsonschema's 2019-09 unevaluatedProperties reads the keys of a schema-valued
    # additionalProperties / unevaluatedProperties as if they were property names.
    used = {
        key: value
        for doc in (schema, *resources.values())
        for key, value in _walk_keywords(doc)
        if key in ("unevaluatedProperties", "additionalProperties") and isinstance(value, Mapping)
    }
    if any(key == "unevaluatedProperties" for key, _ in _iter_all(schema, resources)) and used:
        raise refuse(
            NAME,
            "2019-09 unevaluatedProperties beside a schema-valued additionalProperties or "
            "unevaluatedProperties is evaluated wrongly by python-jsonschema",
        )


MAX_ANCHOR_LOOKUPS = 2_000
"""Anchors times references by anchor that python-jsonschema may be given: its registry finds an
anchor by reading the anchors of the resource each time a reference names one, on every call
(5-7 microseconds an anchor: 100 anchors and 100 such references cost 73 ms a call, 2,000 and
100 1.1 s, 5,000 and 200 six seconds). At the bound a call spends some 15 ms there."""


def _check_anchor_lookups(schema: Any, resources: Mapping[str, Any]) -> None:
    """Refuse a schema whose references by anchor would cost python-jsonschema more than
    :data:`MAX_ANCHOR_LOOKUPS` anchor reads a call."""
    anchors = lookups = 0
    for key, value in _iter_all(schema, resources):
        if not isinstance(value, str):
            continue
        fragment = value.partition("#")[2]
        if key in ("$anchor", "$dynamicAnchor") or (key in ("$id", "id") and fragment and fragment[0] != "/"):
            anchors += 1
        elif key in ("$ref", "$dynamicRef") and fragment and fragment[0] != "/":
            lookups += 1
    if anchors * lookups > MAX_ANCHOR_LOOKUPS:
        raise refuse(
            NAME,
            f"{lookups} references by anchor among {anchors} anchors: python-jsonschema reads the anchors "
            f"on every such reference of every call ({anchors * lookups} reads a call, over "
            f"{MAX_ANCHOR_LOOKUPS}); jsonschema-rs resolves them once, at compile time",
        )


def _iter_all(schema: Any, resources: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    for doc in (schema, *resources.values()):
        yield from _walk_keywords(doc)


def _walk_keywords(node: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(node, list):
        for item in node:
            yield from _walk_keywords(item)
    elif isinstance(node, Mapping):
        for key, value in node.items():
            yield key, value
            if key not in _DATA:
                yield from _walk_keywords(value)


def _check_formats(schema: Any, resources: Mapping[str, Any], checker: Any) -> None:
    known = set(checker.checkers)
    for key, value in _iter_all(schema, resources):
        if key == "format" and isinstance(value, str):
            if value in _INEXACT_FORMATS:
                raise refuse(NAME, f"format {value!r} is asserted by python-jsonschema {_INEXACT_FORMATS[value]}")
            elif value not in known:
                raise refuse(NAME, f"format {value!r} cannot be asserted (its checker's package is not installed)")

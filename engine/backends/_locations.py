"""Validators for single locations of a schema, for explaining a failure piece by piece.

The schema is registered with jsonschema-rs under a URI of its own, so that any subschema of it can
be validated alone as ``{"$ref": "<uri>#<pointer>"}``, its references resolving as in the whole.
Only where that is exact: a schema with dynamic references (``$dynamicRef``, ``$recursiveRef``)
means something that depends on the path that reached them, and has no such validators.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import quote

import jsonschema_rs

from .._dialect import Dialect
from .._errors import Issue
from .._pointer import pointer
from ._contract import BackendValidator, SchemaSource, late
from ._jsonschema_rs import JsonschemaRsValidator, issue_from_rs, rs_options

__all__ = ["LocationValidators", "locations_of"]

_DOCUMENT = "urn:engine:explain"
"""The URI the schema is registered under."""

Pointer = tuple[str | int, ...]


_KEPT = 16
"""The validators of one kind a :class:`LocationValidators` keeps at once: past it, those kept go
(a later need compiles one again, charged to that explanation's budget). Each location's validator
compiles what it reaches afresh, a shared definition and its patterns included: a schema whose
1,000 properties referenced one definition of a long pattern kept a copy of its 2 MB automaton per
location explained, 200 MB for each result explained and never freed."""


class LocationValidators:
    """Validators of single locations of one schema, compiled on demand, a few at a time, and
    released after each explanation (see :data:`_KEPT` and :meth:`release`)."""

    def __init__(self, source: SchemaSource) -> None:
        self.root: Any = source.schema
        self.dialect: Dialect = source.dialect
        self.resources = source.resources
        options = rs_options(source)
        self._plain = {k: v for k, v in options.items() if k != "registry"}
        options["registry"] = jsonschema_rs.Registry(
            [(_DOCUMENT, self.root), *source.resources.items()],
            draft=source.dialect.rs_draft,
            retriever=_deny,
        )
        self._options = options
        self._by_pointer: dict[Pointer, Any] = {}
        self._every_item: dict[Pointer, Any] = {}
        self._own: dict[Pointer, Any] = {}
        self._members_of: dict[Pointer, Any] = {}

    def compiled(self, at: Pointer) -> bool:
        """Whether the validator of ``at`` exists already (compiling one costs the subschemas it reaches)."""
        return at in self._by_pointer

    def _validator(self, at: Pointer) -> Any:
        validator = self._by_pointer.get(at)
        if validator is None:
            schema = {"$ref": _uri(at)}
            try:
                validator = self.dialect.rs_validator_class(schema, **self._options)
            except jsonschema_rs.ReferencingError as exc:  # the caller ends the explanation there
                raise ValueError(f"the location {pointer(at)!r} cannot be validated alone: {exc}") from None
            _keep(self._by_pointer, at, validator)
        return validator

    def release(self) -> None:
        """Let every validator kept go (each explanation compiles what it needs, within its budget:
        kept past it, they are memory no bound weighs). Each clear is one atomic step: a
        validator another thread is using stays alive for it."""
        for kept in (self._by_pointer, self._every_item, self._own, self._members_of):
            kept.clear()

    def is_valid(self, at: Pointer, instance: Any) -> bool:
        return bool(self._validator(at).is_valid(instance))

    def every_item_compiled(self, at: Pointer) -> bool:
        """Whether the validator of :meth:`every_item_valid` for ``at`` exists already."""
        return at in self._every_item

    def every_item_valid(self, at: Pointer, items: list[Any]) -> bool:
        """Whether every one of ``items`` meets the subschema at ``at``: one native call for them
        all (``items`` holding a schema applies it to every item, in every dialect)."""
        validator = self._every_item.get(at)
        if validator is None:
            schema = {"items": {"$ref": _uri(at)}}
            try:
                validator = self.dialect.rs_validator_class(schema, **self._options)
            except jsonschema_rs.ReferencingError as exc:  # the caller ends the explanation there
                raise ValueError(f"the location {pointer(at)!r} cannot be validated alone: {exc}") from None
            _keep(self._every_item, at, validator)
        return bool(validator.is_valid(items))

    def issues(self, at: Pointer, instance: Any) -> Iterator[Issue]:
        """The issues of ``instance`` against the subschema at ``at``, keyword locations relative to it."""
        for error in self._validator(at).iter_errors(instance):  # raised here, inside the caller's guard
            issue = issue_from_rs(error, instance)
            if issue.keyword_location.startswith("/$ref"):  # the reference to the location itself
                issue = Issue(
                    instance_path=issue.instance_path,
                    keyword_location=issue.keyword_location[5:],
                    keyword=issue.keyword,
                    message=issue.message,
                )
            yield issue

    def _own_validator(self, at: Pointer, own: Mapping[str, Any]) -> Any:
        validator = self._own.get(at)
        if validator is None:
            validator = self.dialect.rs_validator_class(dict(own), **self._plain)
            _keep(self._own, at, validator)
        return validator

    def own_valid(self, at: Pointer, own: Mapping[str, Any], instance: Any) -> bool:
        """Whether ``instance`` meets ``own``: keywords of the schema at ``at`` that hold no
        subschema (so nothing to resolve)."""
        return bool(self._own_validator(at, own).is_valid(instance))

    def alone_valid(self, keywords: Mapping[str, Any], instance: Any) -> bool:
        """Whether ``instance`` meets ``keywords`` (some of a schema's own, see :meth:`own_valid`)
        checked apart from the schema's others: compiled for this call, not kept (rare)."""
        return bool(self.dialect.rs_validator_class(dict(keywords), **self._plain).is_valid(instance))

    def own_issues(self, at: Pointer, own: Mapping[str, Any], instance: Any) -> Iterator[Issue]:
        """The issues of ``instance`` against ``own`` (see :meth:`own_valid`)."""
        for error in self._own_validator(at, own).iter_errors(instance):
            yield issue_from_rs(error, instance)

    def _members(self, at: Pointer, node: Mapping[str, Any]) -> Any:
        """A validator of the property keywords of the schema at ``at`` (``properties``,
        ``patternProperties``, ``additionalProperties``: they decide together which subschema a
        property meets), each subschema reached through a reference to its own location."""
        validator = self._members_of.get(at)
        if validator is None:
            schema: dict[str, Any] = {}
            for keyword in ("properties", "patternProperties"):
                if isinstance(node.get(keyword), Mapping):
                    schema[keyword] = {name: {"$ref": _uri((*at, keyword, name))} for name in node[keyword]}
            if "additionalProperties" in node:
                schema["additionalProperties"] = {"$ref": _uri((*at, "additionalProperties"))}
            try:
                validator = self.dialect.rs_validator_class(schema, **self._options)
            except jsonschema_rs.ReferencingError as exc:
                raise ValueError(f"the properties at {pointer(at)!r} cannot be validated alone: {exc}") from None
            _keep(self._members_of, at, validator)
        return validator

    def member_valid(self, at: Pointer, node: Mapping[str, Any], name: str, value: Any) -> bool:
        """Whether property ``name`` with ``value`` meets what the schema at ``at`` asks of it."""
        return bool(self._members(at, node).is_valid({name: value}))

    def member_issues(self, at: Pointer, node: Mapping[str, Any], name: str, value: Any) -> Iterator[Issue]:
        """The issues of property ``name``, keyword locations relative to the schema at ``at``."""
        member = {name: value}
        for error in self._members(at, node).iter_errors(member):
            issue = issue_from_rs(error, member)
            parts = list(error.evaluation_path)
            # Drop the reference that stands for each subschema: right after its keyword and name.
            at_ref = 1 if parts[:1] == ["additionalProperties"] else 2
            if len(parts) > at_ref and parts[at_ref] == "$ref":
                del parts[at_ref]
                issue = Issue(
                    instance_path=issue.instance_path,
                    keyword_location=pointer(parts),
                    keyword=issue.keyword,
                    message=issue.message,
                )
            yield issue


def _keep(kept: dict[Pointer, Any], at: Pointer, validator: Any) -> None:
    if len(kept) >= _KEPT:
        kept.clear()  # one step, safe beside another thread's lookups
    kept[at] = validator


# The locations of each general validator, built on its first piece-by-piece explanation; False
# where they cannot be validated alone.
_BUILT: weakref.WeakKeyDictionary[JsonschemaRsValidator, LocationValidators | bool] = weakref.WeakKeyDictionary()


def locations_of(explainer: BackendValidator) -> LocationValidators | None:
    """The location validators of the schema ``explainer`` was compiled from (jsonschema-rs's own,
    or the one python-jsonschema keeps for its rescue), or ``None``."""
    general: Any = explainer
    if not isinstance(general, JsonschemaRsValidator):
        rescue = getattr(explainer, "general", None)
        general = rescue() if callable(rescue) else None
    if not isinstance(general, JsonschemaRsValidator) or general.source is None:
        return None
    cached = _BUILT.get(general)
    if cached is None:
        source = late(general.source)  # read after compile time: as it was then
        if not isinstance(source.schema, Mapping) or any(
            _has_dynamic(doc) for doc in (source.schema, *source.resources.values())
        ):
            cached = False
        else:
            try:
                cached = LocationValidators(source)
            except (ValueError, jsonschema_rs.ReferencingError):
                cached = False
        _BUILT[general] = cached
    return cached if isinstance(cached, LocationValidators) else None


def _uri(at: Pointer) -> str:
    """The URI of location ``at``: its JSON pointer as a fragment, percent-encoded where a URI
    does not allow a character (``^`` in a patternProperties key, a space, any non-ASCII)."""
    return _DOCUMENT + "#" + quote(pointer(at), safe="/~!$&'()*+,;=:@-._")


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

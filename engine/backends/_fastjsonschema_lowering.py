"""The schema fastjsonschema is given: lowered to a bundled draft-7 (or draft-4) schema it cannot misread.

fastjsonschema generates Python source from a schema. Left to itself it fetches any ``$ref`` URI
with ``urlopen`` (``file:`` included), writes ``default`` values into the caller's data, names the
generated functions after ``$ref`` targets in a way that collides (``#/definitions/Strict`` and
``#/definitions/strict`` become one function, so the later definition wins), silently ignores the
2019-09 / 2020-12 keywords it does not know, and runs patterns with Python ``re`` semantics.
So the engine never gives it the caller's schema. :class:`Lowering` first rewrites the schema:

* every ``$ref`` is resolved here (``referencing``, in memory, the caller's registry only) and its
  target moved into ``definitions`` under a generated name (``r0``, ``r1``, ...), so the only
  references fastjsonschema sees are ``#/definitions/rN``: nothing to fetch, nothing to collide;
* 2019-09 / 2020-12 keywords are lowered to their draft-7 equivalent where the meaning is
  identical (``$ref`` beside other keywords -> ``allOf``, ``dependentRequired`` /
  ``dependentSchemas`` -> ``dependencies``, ``prefixItems`` / ``items`` -> ``items`` /
  ``additionalItems``; draft 4 stays draft 4) and refused
  where it is not (``unevaluated*``, ``$dynamicRef``, ``$recursiveRef``, ``minContains`` ...);
* only keywords with validation meaning are kept (annotations, ``default`` and unknown keywords
  are dropped), ``format`` is dropped when formats are annotations and the schema refused when
  they are assertions (fastjsonschema's format checks are approximations);
* every pattern must pass :mod:`engine._patterns` and is replaced by its exact Python
  translation (fastjsonschema compiles patterns with Python ``re`` while generating code).

The generated source is then checked (:func:`check_generated_code`) to call only what
fastjsonschema's code generator calls, before it is executed in a namespace of its own.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urldefrag, urljoin

import referencing
import referencing.exceptions

if TYPE_CHECKING:
    from referencing._core import Resolver

from .. import _patterns
from .._dialect import Dialect
from .._keywords import KEYWORDS, Applies, Shape
from .._pointer import escape
from ._contract import SchemaSource, refuse
from ._resources import SPECIFICATIONS, build_registry

if TYPE_CHECKING:
    from referencing._core import Resolver  # what Registry.resolver() returns; not re-exported

__all__ = ["NAME", "Lowering"]

NAME = "fastjsonschema"
DRAFT7_URI = "http://json-schema.org/draft-07/schema#"
DRAFT4_URI = "http://json-schema.org/draft-04/schema#"

# What draft 7 (the lowering's target) gives fastjsonschema: applicators by shape (``items`` and
# ``dependencies`` are lowered on their own, ``definitions`` is rebuilt), and assertions copied
# as they are (their values are data, checked by the meta-schema already).
_DRAFT7 = KEYWORDS[Dialect.DRAFT7]
_SHAPED = {
    keyword: shape
    for keyword, (shape, applies) in _DRAFT7.applicators.items()
    if applies is not Applies.HOLD and keyword not in ("items", "dependencies")
}
_ONE = tuple(k for k, shape in _SHAPED.items() if shape is Shape.ONE)
_MAP = tuple(k for k, shape in _SHAPED.items() if shape is Shape.MAP)
_LIST = tuple(k for k, shape in _SHAPED.items() if shape is Shape.LIST)
_PLAIN = tuple(sorted(_DRAFT7.assertions))
# Draft-7 keywords a dialect lacks (or means something else by): never copied from a schema of it.
_NOT_IN = {dialect: {k for k in (*_SHAPED, *_PLAIN) if k not in KEYWORDS[dialect].known} for dialect in Dialect}
# Keywords with no draft-7 equivalent: the schema is refused where one of them applies.
_REFUSED = {
    "unevaluatedProperties": "unevaluatedProperties has no draft-7 equivalent",
    "unevaluatedItems": "unevaluatedItems has no draft-7 equivalent",
    "$dynamicRef": "$dynamicRef has no draft-7 equivalent",
    "$recursiveRef": "$recursiveRef has no draft-7 equivalent",
    "minContains": "minContains has no draft-7 equivalent",
    "maxContains": "maxContains has no draft-7 equivalent",
}


class Lowering:
    """Rewrites a schema of any supported dialect into a self-contained draft-7 schema with the
    same meaning, or refuses. ``patterns`` maps the Python translation of every pattern used
    (``pattern`` values and ``patternProperties`` keys) to the ECMA-262 original."""

    def __init__(self, source: SchemaSource) -> None:
        self.source = source
        self.dialect = source.dialect
        self.modern = source.dialect.is_modern
        self.assert_formats = source.config.assert_formats
        self.spec = SPECIFICATIONS[source.dialect]
        self.definitions: dict[str, Any] = {}
        self._names: dict[tuple[str, str], str] = {}
        self.patterns: dict[str, str] = {}

    def lower(self) -> Any:
        source = self.source
        root = source.schema
        if isinstance(root, Mapping) and root.get("$schema") not in (None, self.dialect.meta_schema_uri):
            raise refuse(NAME, "the schema names a custom meta-schema (vocabularies are not supported)")
        for uri, resource in source.resources.items():
            declared = resource.get("$schema") if isinstance(resource, Mapping) else None
            if (
                declared is not None
                and declared != self.dialect.meta_schema_uri
                and declared.rstrip("#") != self.dialect.meta_schema_uri.rstrip("#")
            ):
                raise refuse(NAME, f"the referenced resource {uri!r} is written in another dialect")
        try:
            registry = build_registry(source)
            resource = self.spec.create_resource(root)
            base = self.spec.id_of(root) or "urn:engine:root" if isinstance(root, Mapping) else "urn:engine:root"
            registry = registry.with_resource(base, resource).crawl()
            resolver = registry.resolver(base_uri=base)
        except (
            referencing.exceptions.Unresolvable,
            referencing.exceptions.CannotDetermineSpecification,
            TypeError,
            ValueError,
        ) as exc:
            raise refuse(NAME, f"its references cannot be indexed: {exc}") from None
        lowered = self.schema(root, resolver, "")
        if isinstance(lowered, bool):
            lowered = {} if lowered else {"not": {}}
        # Draft 4 stays draft 4 (its integers exclude 1.0, its exclusiveMaximum is a boolean);
        # every later dialect becomes draft 7.
        target = DRAFT4_URI if self.dialect is Dialect.DRAFT4 else DRAFT7_URI
        out = {"$schema": target, **lowered}
        if self.definitions:
            out["definitions"] = self.definitions
        return out

    # -- one schema object ---------------------------------------------------------------------

    def schema(self, node: Any, resolver: Any, path: str, *, entered: bool = False) -> Any:
        """``node`` lowered; ``entered`` when ``resolver`` already has ``node``'s base URI (a
        ``$ref`` target: ``referencing`` enters it while resolving)."""
        if isinstance(node, bool):
            return node
        if not isinstance(node, Mapping):
            raise refuse(NAME, "a subschema is neither an object nor a boolean", location=path)
        if path and "$schema" in node and node["$schema"] != self.dialect.meta_schema_uri:
            raise refuse(NAME, "an embedded resource changes the dialect", location=path)
        has_ref = "$ref" in node
        if not entered and (self.modern or not has_ref):
            resolver = resolver.in_subresource(self.spec.create_resource(node))
        if self.modern:  # in drafts 4-7 these are unknown keywords, ignored by every validator
            for keyword, why in _REFUSED.items():
                if keyword in node:
                    raise refuse(NAME, why, location=f"{path}/{keyword}")
        if has_ref:
            ref = {"$ref": self.ref(node["$ref"], resolver, f"{path}/$ref")}
            if not self.modern:
                return ref  # drafts 4-7: $ref replaces its siblings
        out: dict[str, Any] = {}
        absent = _NOT_IN[self.dialect]
        for keyword in _PLAIN:
            if keyword in node and keyword not in absent:
                out[keyword] = self.plain(keyword, node[keyword], f"{path}/{keyword}")
        if self.dialect is Dialect.DRAFT7 and ("contentEncoding" in node or "contentMediaType" in node):
            raise refuse(
                NAME,
                "draft-7 contentEncoding / contentMediaType are asserted by the engine and "
                "fastjsonschema would need to import a module for them",
                location=path,
            )
        if "format" in node and self.assert_formats:
            raise refuse(
                NAME,
                "format assertion is on, and fastjsonschema's format checks are approximations",
                location=f"{path}/format",
            )
        for keyword in _ONE:
            if keyword in node and keyword not in absent:
                out[keyword] = self.schema(node[keyword], resolver, f"{path}/{keyword}")
        for keyword in _MAP:
            if keyword in node:
                out[keyword] = {
                    key: self.schema(sub, resolver, f"{path}/{keyword}/{escape(key)}")
                    for key, sub in node[keyword].items()
                }
        if "patternProperties" in out:
            # fastjsonschema compiles each key with Python re while generating code: it is given the
            # exact Python translation (an ECMA-only spelling such as \u{41} would raise re.error).
            translated: dict[str, Any] = {}
            for key, sub in out["patternProperties"].items():
                python = self.pattern(key, f"{path}/patternProperties")
                if python in translated:
                    raise refuse(
                        NAME,
                        "two patternProperties translate to the same Python pattern",
                        location=f"{path}/patternProperties",
                    )
                translated[python] = sub
            out["patternProperties"] = translated
        for keyword in _LIST:
            if keyword in node:
                out[keyword] = [
                    self.schema(sub, resolver, f"{path}/{keyword}/{i}") for i, sub in enumerate(node[keyword])
                ]
        self.items(node, resolver, path, out)
        self.dependencies(node, resolver, path, out)
        if has_ref:
            return {"allOf": [ref, out]} if out else ref
        return out

    def plain(self, keyword: str, value: Any, path: str) -> Any:
        _check_data(value, path)
        if keyword == "pattern":
            return self.pattern(value, path)
        # A copy: fastjsonschema rewrites "$ref" members wherever they are, enum values included.
        return copy.deepcopy(value) if isinstance(value, (list, dict)) else value

    def pattern(self, pattern: str, path: str) -> str:
        """The Python translation fastjsonschema is given for ECMA-262 ``pattern``."""
        try:
            python = _patterns.translate(pattern)
        except _patterns.PatternRefused as exc:
            raise refuse(
                NAME, f"pattern {pattern!r} cannot run exactly in Python re: {exc.why}", location=path
            ) from None
        self.patterns[python] = pattern
        return python

    def items(self, node: Mapping[str, Any], resolver: Any, path: str, out: dict[str, Any]) -> None:
        if self.dialect is Dialect.DRAFT2020_12:
            prefix = node.get("prefixItems")
            if prefix is not None:
                out["items"] = [self.schema(s, resolver, f"{path}/prefixItems/{i}") for i, s in enumerate(prefix)]
                if "items" in node:
                    out["additionalItems"] = self.schema(node["items"], resolver, f"{path}/items")
            elif "items" in node:
                out["items"] = self.schema(node["items"], resolver, f"{path}/items")
            return
        items = node.get("items")
        if isinstance(items, list):
            out["items"] = [self.schema(s, resolver, f"{path}/items/{i}") for i, s in enumerate(items)]
        elif items is not None:
            out["items"] = self.schema(items, resolver, f"{path}/items")
        if not isinstance(out.get("items"), list):
            out.pop("additionalItems", None)  # only meaningful after an array of items

    def dependencies(self, node: Mapping[str, Any], resolver: Any, path: str, out: dict[str, Any]) -> None:
        # 2019-09 and 2020-12 dropped `dependencies`; the engine keeps honouring it there, as its
        # general backend does (the suite's optional dependencies-compatibility tests). Entries of
        # all three keywords for one property are combined.
        merged: dict[str, Any] = {}

        def add(key: str, value: Any) -> None:
            if key not in merged:
                merged[key] = value
                return
            as_schema = [{"required": v} if isinstance(v, list) else v for v in (merged[key], value)]
            merged[key] = {"allOf": as_schema}

        for key, value in node.get("dependencies", {}).items():
            if isinstance(value, list):
                _check_data(value, path)
                add(key, list(value))
            else:
                add(key, self.schema(value, resolver, f"{path}/dependencies/{escape(key)}"))
        if self.modern:
            for key, value in node.get("dependentSchemas", {}).items():
                add(key, self.schema(value, resolver, f"{path}/dependentSchemas/{escape(key)}"))
            for key, names in node.get("dependentRequired", {}).items():
                _check_data(names, path)
                add(key, list(names))
        if merged:
            out["dependencies"] = merged

    # -- references ----------------------------------------------------------------------------

    def ref(self, ref: Any, resolver: Any, path: str) -> str:
        try:
            resolved = resolver.lookup(ref)
        except referencing.exceptions.Unresolvable as exc:
            raise refuse(
                NAME, f"$ref {ref!r} cannot be resolved in memory ({type(exc).__name__})", location=path
            ) from None
        target = resolved.contents
        # The target is named by its absolute URI (resource URI, fragment), not by the Python
        # object: one dict shared by two resources means one thing under each base URI (its own
        # references resolve against that base), so it must be lowered once per base.
        key = _target_uri(_base_uri(resolver), ref)
        name = self._names.get(key)
        if name is None:
            name = self._names[key] = f"r{len(self._names)}"
            self.definitions[name] = {}
            self.definitions[name] = self.schema(target, resolved.resolver, path, entered=True)
        return f"#/definitions/{name}"


def _base_uri(resolver: Resolver[Any]) -> str:
    """The base URI ``resolver`` resolves against. ``referencing`` keeps it in a private attrs
    field; an installation without it makes the lowering refuse (``AttributeError`` is a
    refusal in the backend), never name two targets alike."""
    base = resolver._base_uri
    if not isinstance(base, str):
        raise AttributeError("referencing.Resolver has no string base URI")
    return base


def _target_uri(base: str, ref: str) -> tuple[str, str]:
    """(resource URI, fragment) that ``ref`` names from ``base``: what ``Resolver.lookup`` looks up,
    so that equal keys are the same target under the same base URI."""
    if ref.startswith("#"):
        return base, ref[1:]
    uri, fragment = urldefrag(urljoin(base, ref))
    return uri, fragment


def _check_data(value: Any, path: str) -> None:
    """Numbers fastjsonschema would print into its source must be finite."""
    if isinstance(value, float) and not math.isfinite(value):
        raise refuse(NAME, "a non-finite number", location=path)
    if isinstance(value, list):
        for item in value:
            _check_data(item, path)
    elif isinstance(value, Mapping):
        for item in value.values():
            _check_data(item, path)

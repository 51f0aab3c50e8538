"""The restricted shape of an elicitation form's ``requestedSchema`` (MCP ``elicitation/create``):
what :func:`check_shape` admits, each refusal naming the property and keyword, and the plain JSON
Schema it stands for (see :mod:`.elicitation`)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from .._config import Limits, short_repr
from .._errors import RejectReason, SchemaRejected
from .._guard.budget import exceeded
from .._pointer import escape

__all__ = ["FORMATS", "check_shape"]

FORMATS = frozenset({"email", "uri", "date", "date-time"})

_COMMON = {"type", "title", "description", "default"}
_ALLOWED = {
    "string": _COMMON | {"minLength", "maxLength", "format"},
    "enum": _COMMON | {"enum", "enumNames"},
    "oneOf": _COMMON | {"oneOf"},
    "number": _COMMON | {"minimum", "maximum"},
    "integer": _COMMON | {"minimum", "maximum"},
    "boolean": _COMMON,
    "array": _COMMON | {"items", "minItems", "maxItems"},
}
_ROOT_KEYS = {"$schema", "type", "properties", "required"}


def _reject(message: str, location: str, name: str | None = None) -> SchemaRejected:
    details = {"property": name} if name is not None else {}
    return SchemaRejected(
        RejectReason.INVALID_SCHEMA, f"not an elicitation form: {message}", location=location, details=details
    )


def check_shape(schema: Any, limits: Limits) -> dict[str, Any]:
    """Refuse anything but the restricted form shape; return the equivalent plain JSON Schema
    (titled selects spelled as ``enum``, ``format`` left to the general check). ``schema`` is a
    measured JSON document: every step here is linear in its size, and a list longer than the
    engine would compile is refused before it is read."""
    if not isinstance(schema, Mapping):
        raise _reject("requestedSchema must be an object", "")
    for key in schema:
        if key not in _ROOT_KEYS:
            raise _reject(f"keyword {short_repr(key)} is not allowed at the root of requestedSchema", f"/{escape(key)}")
    if schema.get("type") != "object":
        raise _reject('requestedSchema must have `type: "object"`', "/type")
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        raise _reject("requestedSchema must have `properties`", "/properties")
    if len(properties) > limits.max_properties:
        raise exceeded("max_properties", len(properties), limits.max_properties, "/properties")
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) and r in properties for r in required):
        raise _reject("`required` must list property names of the form", "/required")
    normalised: dict[str, Any] = {}
    for name, prop in properties.items():
        normalised[name] = _check_property(name, prop, limits)
    return {"type": "object", "properties": normalised, "required": list(required)}


def _check_property(name: str, prop: Any, limits: Limits) -> dict[str, Any]:
    where = f"/properties/{escape(name)}"
    if not isinstance(prop, Mapping):
        raise _reject(f"property {short_repr(name)} must be a schema object", where, name)
    kind = prop.get("type")
    if kind == "string" and "enum" in prop:
        variant = "enum"
    elif kind == "string" and "oneOf" in prop:
        variant = "oneOf"
    elif isinstance(kind, str) and kind in _ALLOWED and kind not in ("enum", "oneOf"):
        variant = kind
    else:
        raise _reject(
            f"property {short_repr(name)} must be a string, number, integer, boolean or multi-select array, "
            f"not type {short_repr(kind)}",
            f"{where}/type",
            name,
        )
    for key in prop:
        if key not in _ALLOWED[variant]:
            raise _reject(
                f"property {short_repr(name)}: keyword {short_repr(key)} is not allowed in a form field of this kind",
                f"{where}/{escape(key)}",
                name,
            )
    for key in ("title", "description"):
        if key in prop and not isinstance(prop[key], str):
            raise _reject(f"property {short_repr(name)}: {key} must be a string", f"{where}/{key}", name)
    plain: dict[str, Any] = {"type": kind}
    if variant == "string":
        _lengths(prop, ("minLength", "maxLength"), name, where, plain)
        if "format" in prop:
            form = prop["format"]
            if not isinstance(form, str) or form not in FORMATS:  # a list or an object is no format
                raise _reject(
                    f"property {short_repr(name)}: format {short_repr(form)} is not one of "
                    f"{', '.join(sorted(FORMATS))}",
                    f"{where}/format",
                    name,
                )
        _default(prop, name, where, lambda v: isinstance(v, str))
    elif variant == "enum":
        values = _strings(prop["enum"], name, f"{where}/enum", limits)
        if "enumNames" in prop:
            names = prop["enumNames"]
            if not isinstance(names, list) or len(names) != len(values) or not all(isinstance(n, str) for n in names):
                raise _reject(
                    f"property {short_repr(name)}: enumNames must be strings, one per enum value",
                    f"{where}/enumNames",
                    name,
                )
        plain["enum"] = values
        _default(prop, name, where, lambda v: isinstance(v, str) and v in values)
    elif variant == "oneOf":
        values = _titled(prop["oneOf"], name, f"{where}/oneOf", limits)
        # oneOf: a value listed twice matches two branches, so it is not valid. (Every value is a
        # string: counted in one pass, where `values.count` per value took quadratic time.)
        counts = Counter(values)
        plain["enum"] = [v for v in values if counts[v] == 1]
        _default(prop, name, where, lambda v: isinstance(v, str) and v in counts)
    elif variant in ("number", "integer"):
        for key in ("minimum", "maximum"):
            if key in prop:
                bound = prop[key]
                if not _finite_number(bound):
                    raise _reject(f"property {short_repr(name)}: {key} must be a finite number", f"{where}/{key}", name)
                plain[key] = bound
        _default(prop, name, where, _finite_number)
    elif variant == "boolean":
        _default(prop, name, where, lambda v: isinstance(v, bool))
    else:  # array: a multi-select
        items = prop.get("items")
        items_where = f"{where}/items"
        if not isinstance(items, Mapping):
            raise _reject(f"property {short_repr(name)}: a multi-select needs `items`", items_where, name)
        if set(items) == {"type", "enum"} and items["type"] == "string":
            values = _strings(items["enum"], name, f"{items_where}/enum", limits)
            plain_values = values
        elif set(items) == {"anyOf"}:
            values = _titled(items["anyOf"], name, f"{items_where}/anyOf", limits)
            plain_values = list(dict.fromkeys(values))
        else:
            raise _reject(
                f"property {short_repr(name)}: multi-select items must be {{type: string, enum}} "
                "or {anyOf: [{const, title}]}",
                items_where,
                name,
            )
        plain["items"] = {"type": "string", "enum": plain_values}
        _lengths(prop, ("minItems", "maxItems"), name, where, plain)
        options = set(values)  # strings: a default of many entries is read in one pass
        _default(
            prop, name, where, lambda v: isinstance(v, list) and all(isinstance(x, str) and x in options for x in v)
        )
    return plain


def _finite_number(value: Any) -> bool:
    """A JSON number: an int or a finite float, not a bool (NaN and the infinities are no JSON)."""
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, int) and not isinstance(value, bool)


def _lengths(prop: Mapping[str, Any], keys: tuple[str, str], name: str, where: str, plain: dict[str, Any]) -> None:
    for key in keys:
        if key in prop:
            value = prop[key]
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise _reject(
                    f"property {short_repr(name)}: {key} must be a non-negative integer", f"{where}/{key}", name
                )
            plain[key] = value


def _strings(values: Any, name: str, where: str, limits: Limits) -> list[str]:
    if isinstance(values, list) and len(values) > limits.max_enum:
        raise exceeded("max_enum", len(values), limits.max_enum, where)
    if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
        raise _reject(f"property {short_repr(name)}: enum must be a non-empty list of strings", where, name)
    return list(values)


def _titled(branches: Any, name: str, where: str, limits: Limits) -> list[str]:
    if not isinstance(branches, list) or not branches:
        raise _reject(f"property {short_repr(name)}: options must be a non-empty list of {{const, title}}", where, name)
    if len(branches) > limits.max_branches:
        raise exceeded("max_branches", len(branches), limits.max_branches, where)
    values = []
    for index, branch in enumerate(branches):
        if (
            not isinstance(branch, Mapping)
            or set(branch) != {"const", "title"}
            or not isinstance(branch["const"], str)
            or not isinstance(branch["title"], str)
        ):
            raise _reject(
                f"property {short_repr(name)}: option {index} must be exactly {{const: string, title: string}}",
                f"{where}/{index}",
                name,
            )
        values.append(branch["const"])
    return values


def _default(prop: Mapping[str, Any], name: str, where: str, fits: Callable[[Any], bool]) -> None:
    if "default" in prop and not fits(prop["default"]):
        # The value shortened: it can be any size, or share containers and print exponentially.
        raise _reject(
            f"property {short_repr(name)}: default {short_repr(prop['default'])} is not a value of the field",
            f"{where}/default",
            name,
        )

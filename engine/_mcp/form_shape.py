"""The restricted shape of an elicitation form's ``requestedSchema`` (MCP ``elicitation/create``):
what :func:`check_shape` admits, each refusal naming the property and keyword, and the plain JSON
Schema it stands for (see :mod:`.elicitation`)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from typing import Any

from .._config import Limits
from .._config_values import short_repr
from .._dialect import Dialect, dialect_for_uri
from .._errors import RejectReason, SchemaRejected
from .._guard.budget import exceeded
from .._pointer import escape, pointer

__all__ = ["FORMATS", "check_default_formats", "check_shape"]

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


def _field(name: str, message: str, *at: str) -> SchemaRejected:
    """A refusal of property ``name``, located at :func:`_where`: made only when refusing (with
    exact type tests, the check of a corpus form takes 0.65x the time it took escaping every
    field's location up front and testing with ``isinstance``)."""
    return _reject(f"property {short_repr(name)}{message}", _where(name, *at), name)


def _where(name: str, *at: str) -> str:
    """The pointer ``/properties/<name>/<at...>`` (every token escaped)."""
    return pointer(("properties", name, *at))


def check_shape(schema: Any, limits: Limits) -> dict[str, Any]:
    """Refuse anything but the restricted form shape; return the equivalent plain JSON Schema
    (titled selects spelled as ``enum``, ``format`` left to the general check). ``schema`` is a
    document through intake: plain JSON values (so an object is exactly a ``dict``, a list
    exactly a ``list``), measured. Every step here is linear in its size, and a list longer than
    the engine would compile is refused before it is read."""
    if type(schema) is not dict:
        raise _reject("requestedSchema must be an object", "")
    for key in schema:
        if key not in _ROOT_KEYS:
            raise _reject(f"keyword {short_repr(key)} is not allowed at the root of requestedSchema", f"/{escape(key)}")
    if schema.get("type") != "object":
        raise _reject('requestedSchema must have `type: "object"`', "/type")
    properties = schema.get("properties")
    if type(properties) is not dict:
        raise _reject("requestedSchema must have `properties`", "/properties")
    if len(properties) > limits.max_properties:
        raise exceeded("max_properties", len(properties), limits.max_properties, "/properties")
    required = schema.get("required", [])
    if type(required) is not list or not all(type(r) is str and r in properties for r in required):
        raise _reject("`required` must list property names of the form", "/required")
    # Under draft 4 a float is no integer, however whole (`1.0`): a default so written is no value.
    marked = schema.get("$schema")
    whole_floats = not (type(marked) is str and dialect_for_uri(marked) is Dialect.DRAFT4)
    normalised: dict[str, Any] = {}
    for name, prop in properties.items():
        normalised[name] = _check_property(name, prop, limits, whole_floats)
    return {"type": "object", "properties": normalised, "required": list(required)}


def _check_property(name: str, prop: Any, limits: Limits, whole_floats: bool = True) -> dict[str, Any]:
    if type(prop) is not dict:
        raise _field(name, " must be a schema object")
    kind = prop.get("type")
    if kind == "string" and "enum" in prop:
        variant = "enum"
    elif kind == "string" and "oneOf" in prop:
        variant = "oneOf"
    elif type(kind) is str and kind in _ALLOWED and kind not in ("enum", "oneOf"):
        variant = kind
    else:
        expected = "a string, number, integer, boolean or multi-select array"
        raise _field(name, f" must be {expected}, not type {short_repr(kind)}", "type")
    allowed = _ALLOWED[variant]
    for key in prop:
        if key not in allowed:
            raise _field(name, f": keyword {short_repr(key)} is not allowed in a form field of this kind", key)
    for key in ("title", "description"):
        if key in prop and type(prop[key]) is not str:
            raise _field(name, f": {key} must be a string", key)
    plain: dict[str, Any] = {"type": kind}
    has_default = "default" in prop
    default = prop.get("default")
    if variant == "string":
        _lengths(prop, ("minLength", "maxLength"), name, plain)
        if "format" in prop:
            form = prop["format"]
            if type(form) is not str or form not in FORMATS:  # a list or an object is no format
                raise _field(name, f": format {short_repr(form)} is not one of {', '.join(sorted(FORMATS))}", "format")
        fits = type(default) is str
    elif variant == "enum":
        values = _strings(prop["enum"], name, ("enum",), limits)
        if "enumNames" in prop:
            names = prop["enumNames"]
            if type(names) is not list or len(names) != len(values) or not all(type(n) is str for n in names):
                raise _field(name, ": enumNames must be strings, one per enum value", "enumNames")
        plain["enum"] = values
        fits = type(default) is str and default in values
    elif variant == "oneOf":
        values = _titled(prop["oneOf"], name, ("oneOf",), limits)
        # oneOf: a value listed twice matches two branches, so it is not valid. (Every value is a
        # string: counted in one pass, where `values.count` per value took quadratic time.)
        counts = Counter(values)
        plain["enum"] = [v for v in values if counts[v] == 1]
        fits = type(default) is str and counts[default] == 1  # an option listed twice is never valid
    elif variant == "number" or variant == "integer":
        for key in ("minimum", "maximum"):
            if key in prop:
                bound = prop[key]
                if not _finite_number(bound):
                    raise _field(name, f": {key} must be a finite number", key)
                plain[key] = bound
        fits = _finite_number(default)
    elif variant == "boolean":
        fits = type(default) is bool
    else:  # array: a multi-select
        items = prop.get("items")
        if type(items) is not dict:
            raise _field(name, ": a multi-select needs `items`", "items")
        if len(items) == 2 and "enum" in items and items.get("type") == "string":
            values = _strings(items["enum"], name, ("items", "enum"), limits)
            plain_values = values
        elif len(items) == 1 and "anyOf" in items:
            values = _titled(items["anyOf"], name, ("items", "anyOf"), limits)
            plain_values = list(dict.fromkeys(values))
        else:
            raise _field(
                name, ": multi-select items must be {type: string, enum} or {anyOf: [{const, title}]}", "items"
            )
        plain["items"] = {"type": "string", "enum": plain_values}
        _lengths(prop, ("minItems", "maxItems"), name, plain)
        options = set(values)  # strings: a default of many entries is read in one pass
        fits = type(default) is list and all(type(x) is str and x in options for x in default)
    if has_default and fits:  # of the field's type: also within its bounds, as an answer must be
        fits = _within(plain, default, whole_floats)
    if has_default and not fits:
        # The value shortened: it can be any size, or share containers and print exponentially.
        raise _field(name, f": default {short_repr(default)} is not a value of the field", "default")
    return plain


def _within(plain: dict[str, Any], value: Any, whole_floats: bool = True) -> bool:
    """Whether ``value``, of the field's type, meets the field's bounds (``plain``, its schema): a
    default the form would refuse if sent back unchanged is no default (``1.5`` for an integer, a
    number under ``minimum``, a string over ``maxLength``). ``whole_floats``: whether ``1.0`` is
    an integer (in every dialect but draft 4)."""
    if plain["type"] == "integer" and type(value) is float and not (whole_floats and value.is_integer()):
        return False
    if ("minimum" in plain and value < plain["minimum"]) or ("maximum" in plain and value > plain["maximum"]):
        return False
    size = len(value) if type(value) is str or type(value) is list else 0
    low, high = ("minItems", "maxItems") if type(value) is list else ("minLength", "maxLength")
    return plain.get(low, 0) <= size and (high not in plain or size <= plain[high])


def check_default_formats(schema: dict[str, Any], holds: Callable[[str, Any], bool]) -> None:
    """Refuse a checked form whose formatted field has a default its format refuses (``holds(format,
    value)``: formats are asserted in forms): sent back unchanged, it would be refused."""
    for name, prop in schema["properties"].items():
        if "format" in prop and "default" in prop and not holds(prop["format"], prop["default"]):
            raise _field(name, f": default {short_repr(prop['default'])} is not a value of the field", "default")


def _finite_number(value: Any) -> bool:
    """A JSON number: an int or a finite float, not a bool (NaN and the infinities are no JSON)."""
    if type(value) is float:
        return math.isfinite(value)
    return type(value) is int


def _lengths(prop: dict[str, Any], keys: tuple[str, str], name: str, plain: dict[str, Any]) -> None:
    for key in keys:
        if key in prop:
            value = prop[key]
            if type(value) is not int or value < 0:
                raise _field(name, f": {key} must be a non-negative integer", key)
            plain[key] = value


def _strings(values: Any, name: str, at: tuple[str, ...], limits: Limits) -> list[str]:
    if type(values) is list and len(values) > limits.max_enum:
        raise exceeded("max_enum", len(values), limits.max_enum, _where(name, *at))
    if type(values) is not list or not values or not all(type(v) is str for v in values):
        raise _field(name, ": enum must be a non-empty list of strings", *at)
    return list(values)


def _titled(branches: Any, name: str, at: tuple[str, ...], limits: Limits) -> list[str]:
    if type(branches) is not list or not branches:
        raise _field(name, ": options must be a non-empty list of {const, title}", *at)
    if len(branches) > limits.max_branches:
        raise exceeded("max_branches", len(branches), limits.max_branches, _where(name, *at))
    values = []
    for index, branch in enumerate(branches):
        if (
            type(branch) is not dict
            or len(branch) != 2
            or type(branch.get("const")) is not str
            or type(branch.get("title")) is not str
        ):
            raise _field(name, f": option {index} must be exactly {{const: string, title: string}}", *at, str(index))
        values.append(branch["const"])
    return values

"""Deterministic valid instances for the tool schemas whose arguments were not recorded.

The generator covers the keywords real tool schemas use (types, properties, required, enum,
const, anyOf/oneOf/allOf, local ``$ref``, string/number/array bounds, the formats and patterns in
the corpus). Every instance is checked against python-jsonschema, the reference; a schema the
generator cannot satisfy yields ``None`` and is left out of the workloads that need an instance.
"""

from __future__ import annotations

import re
from typing import Any

import jsonschema
import referencing

__all__ = ["is_valid_reference", "one_wrong_type", "valid_instance"]

_FORMAT_SAMPLES = {
    "date-time": "2025-06-18T12:30:00Z",
    "date": "2025-06-18",
    "time": "12:30:00Z",
    "email": "ada@example.com",
    "uri": "https://example.com/item/1",
    "uri-reference": "https://example.com/item/1",
    "uuid": "123e4567-e89b-42d3-a456-426614174000",
    "hostname": "example.com",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
}
# Strings tried in turn against a `pattern` (the corpus's patterns are matched by one of these).
_PATTERN_CANDIDATES = (
    "2025-06-18T12:30:00Z",
    "user:ada",
    "app=web",
    "0123456789abcdef0123456789abcdef",
    "ABCDEFGHIJ",
    "24h",
    "value",
    "a",
    "1",
)
_TYPE_ORDER = ("object", "string", "integer", "number", "boolean", "array", "null")
_MAX_DEPTH = 12
_MAX_OPTIONAL = 3


def is_valid_reference(schema: Any, instance: Any) -> bool:
    """python-jsonschema's answer, with a registry that can retrieve nothing."""
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema, registry=referencing.Registry()).is_valid(instance)


# A value of another type for each JSON type a property may declare.
_WRONG_TYPE = {"string": 12, "integer": "12", "number": "1.5", "boolean": "true", "array": "[]", "object": 1, "null": 0}


def one_wrong_type(schema: Any, instance: Any) -> Any:
    """``instance`` (an object) with its schema's first property that declares one type given a
    value of another (what a model most often gets wrong), or ``None`` where no property declares
    a type or python-jsonschema still accepts the result."""
    if not isinstance(schema, dict) or not isinstance(instance, dict):
        return None
    for name, sub in (schema.get("properties") or {}).items():
        declared = sub.get("type") if isinstance(sub, dict) else None
        if isinstance(declared, str) and declared in _WRONG_TYPE:  # one type, not a list of them
            wrong = {**instance, name: _WRONG_TYPE[declared]}
            return None if is_valid_reference(schema, wrong) else wrong
    return None


def valid_instance(schema: Any) -> Any:
    """A valid instance of ``schema`` or ``None`` when none could be made."""
    try:
        for optional in (_MAX_OPTIONAL, 0):
            candidate = _Generator(schema, optional).make(schema, 0)
            if candidate is not _FAIL and is_valid_reference(schema, candidate):
                return candidate
    except Exception:  # noqa: BLE001 - any schema a data folder holds (a bad pattern, a bound past floats): none made
        pass
    return None


class _Fail:
    pass


_FAIL: Any = _Fail()


class _Generator:
    def __init__(self, root: Any, optional: int) -> None:
        self.root = root
        self.optional = optional

    def resolve(self, ref: str) -> Any:
        if not ref.startswith("#"):
            return _FAIL
        node = self.root
        for part in ref[1:].split("/")[1:]:
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            else:
                return _FAIL
        return node

    def make(self, schema: Any, depth: int) -> Any:
        if depth > _MAX_DEPTH or schema is False:
            return _FAIL
        if schema is True or not isinstance(schema, dict):
            return "value"
        if "$ref" in schema:
            target = self.resolve(schema["$ref"])
            if target is _FAIL:
                return _FAIL
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            return self.make({"allOf": [target, rest]} if _constrains(rest) else target, depth + 1)
        if "const" in schema:
            return schema["const"]
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return schema["enum"][0]
        if "default" in schema and is_valid_reference(_standalone(schema, self.root), schema["default"]):
            return schema["default"]
        if isinstance(schema.get("examples"), list):
            for example in schema["examples"]:
                if is_valid_reference(_standalone(schema, self.root), example):
                    return example
        for key in ("anyOf", "oneOf"):
            if isinstance(schema.get(key), list):
                rest = {k: v for k, v in schema.items() if k != key}
                for branch in schema[key]:
                    merged = {"allOf": [rest, branch]} if _constrains(rest) else branch
                    value = self.make(merged, depth + 1)
                    if value is not _FAIL and is_valid_reference(_standalone(schema, self.root), value):
                        return value
                return _FAIL
        if isinstance(schema.get("allOf"), list):
            merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
            for part in schema["allOf"]:
                if isinstance(part, dict) and "$ref" in part:
                    part = self.resolve(part["$ref"])
                if not isinstance(part, dict):
                    continue
                for k, v in part.items():
                    if k == "properties" and isinstance(merged.get(k), dict):
                        merged[k] = {**merged[k], **v}
                    elif k == "required" and isinstance(merged.get(k), list):
                        merged[k] = [*merged[k], *v]
                    else:
                        merged.setdefault(k, v)
            return self.make(merged, depth + 1)
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((t for t in _TYPE_ORDER if t in kind), None)
        if kind is None:
            kind = _guess_type(schema)
        return getattr(self, f"make_{kind}", self.make_unknown)(schema, depth)

    def make_unknown(self, schema: dict[str, Any], depth: int) -> Any:
        return _FAIL

    def make_null(self, schema: dict[str, Any], depth: int) -> Any:
        return None

    def make_boolean(self, schema: dict[str, Any], depth: int) -> Any:
        return True

    def make_integer(self, schema: dict[str, Any], depth: int) -> Any:
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0) + 1 if "exclusiveMinimum" in schema else 1)
        value = int(low) if int(low) >= low else int(low) + 1
        step = schema.get("multipleOf")
        if isinstance(step, int) and step > 0 and value % step:
            value += step - value % step
        return value

    def make_number(self, schema: dict[str, Any], depth: int) -> Any:
        return self.make_integer(schema, depth)

    def make_string(self, schema: dict[str, Any], depth: int) -> Any:
        low, high = schema.get("minLength", 0), schema.get("maxLength", 1 << 30)
        fmt = schema.get("format")
        candidates = [_FORMAT_SAMPLES[fmt]] if fmt in _FORMAT_SAMPLES else []
        candidates += ["example-value", *_PATTERN_CANDIDATES]
        pattern = schema.get("pattern")
        for text in candidates:
            if len(text) < low:
                text = text + "x" * (low - len(text))
            if not low <= len(text) <= high:
                continue
            if pattern is not None and not re.search(pattern, text):
                continue
            return text
        return _FAIL

    def make_array(self, schema: dict[str, Any], depth: int) -> Any:
        count = max(1, schema.get("minItems", 0))
        if "maxItems" in schema:
            count = min(count, schema["maxItems"])
        prefix = schema.get("prefixItems") or (schema.get("items") if isinstance(schema.get("items"), list) else [])
        items = schema.get("items") if isinstance(schema.get("items"), dict) else {}
        out = []
        for i in range(max(count, len(prefix))):
            value = self.make(prefix[i] if i < len(prefix) else items, depth + 1)
            if value is _FAIL:
                return _FAIL
            out.append(value)
        if schema.get("uniqueItems") and len(out) > 1:
            out = out[:1]
        return out

    def make_object(self, schema: dict[str, Any], depth: int) -> Any:
        properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        required = [r for r in schema.get("required", []) if isinstance(r, str)]
        optional = [name for name in properties if name not in required][: self.optional]
        out: dict[str, Any] = {}
        for name in [*required, *optional]:
            sub = properties.get(name, schema.get("additionalProperties", True))
            if not isinstance(sub, (dict, bool)):
                sub = True
            value = self.make(sub, depth + 1)
            if value is _FAIL:
                if name in required:
                    return _FAIL
                continue
            out[name] = value
        return out


def _constrains(rest: dict[str, Any]) -> bool:
    ignored = {"title", "description", "default", "examples", "$comment", "$schema", "$id", "$defs", "definitions"}
    return any(k not in ignored for k in rest)


def _standalone(schema: dict[str, Any], root: Any) -> Any:
    """``schema`` checkable on its own: the root's definitions ride along for local ``$ref``s."""
    if not isinstance(root, dict) or schema is root:
        return schema
    extra = {k: root[k] for k in ("$defs", "definitions", "$schema") if k in root and k not in schema}
    return {**schema, **extra} if extra else schema


def _guess_type(schema: dict[str, Any]) -> str | None:
    if "properties" in schema or "required" in schema or "additionalProperties" in schema:
        return "object"
    if "items" in schema or "prefixItems" in schema:
        return "array"
    if {"minLength", "maxLength", "pattern", "format"} & schema.keys():
        return "string"
    if {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"} & schema.keys():
        return "number"
    return "object" if not schema else None

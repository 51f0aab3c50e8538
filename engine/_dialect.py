"""Stage 2: which dialect a schema is written in, and whether it is valid against its meta-schema."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from functools import cache
from typing import Any

import jsonschema_rs
import msgspec

from ._errors import RejectReason, SchemaRejected
from ._pointer import pointer

__all__ = [
    "Dialect",
    "check_meta_schema",
    "detect_dialect",
    "dialect_for_uri",
    "normalise_schema_uri",
    "read_in",
    "requires_format_assertion",
    "resource_in_dialect",
]


class Dialect(StrEnum):
    """A JSON Schema dialect the engine supports; ``value`` is its configuration name, and the
    member is that string (``str(Dialect.DRAFT2020_12) == "2020-12"``), as configuration, the
    command line and the docs spell it."""

    DRAFT4 = "draft4"
    DRAFT6 = "draft6"
    DRAFT7 = "draft7"
    DRAFT2019_09 = "2019-09"
    DRAFT2020_12 = "2020-12"

    @property
    def meta_schema_uri(self) -> str:
        """The canonical ``$schema`` URI of this dialect."""
        return _META_URIS[self]

    @property
    def rs_validator_class(self) -> type[jsonschema_rs.Validator]:
        return _RS_CLASSES[self]

    @property
    def rs_draft(self) -> int:
        """jsonschema-rs's constant for this dialect."""
        return _RS_DRAFTS[self]

    @property
    def is_modern(self) -> bool:
        """2019-09 and later: ``$defs``, ``unevaluated*``, ``$ref`` with siblings, vocabularies."""
        return self in _MODERN

    @classmethod
    def from_name(cls, name: str) -> Dialect:
        try:
            return cls(name)
        except ValueError:
            raise SchemaRejected(
                RejectReason.UNSUPPORTED_DIALECT,
                f"unsupported dialect {name!r}; supported: {', '.join(d.value for d in cls)}",
                details={"dialect": name},
            ) from None


_MODERN = frozenset({Dialect.DRAFT2019_09, Dialect.DRAFT2020_12})

_META_URIS = {
    Dialect.DRAFT4: "http://json-schema.org/draft-04/schema#",
    Dialect.DRAFT6: "http://json-schema.org/draft-06/schema#",
    Dialect.DRAFT7: "http://json-schema.org/draft-07/schema#",
    Dialect.DRAFT2019_09: "https://json-schema.org/draft/2019-09/schema",
    Dialect.DRAFT2020_12: "https://json-schema.org/draft/2020-12/schema",
}

_RS_CLASSES: dict[Dialect, type[jsonschema_rs.Validator]] = {
    Dialect.DRAFT4: jsonschema_rs.Draft4Validator,
    Dialect.DRAFT6: jsonschema_rs.Draft6Validator,
    Dialect.DRAFT7: jsonschema_rs.Draft7Validator,
    Dialect.DRAFT2019_09: jsonschema_rs.Draft201909Validator,
    Dialect.DRAFT2020_12: jsonschema_rs.Draft202012Validator,
}


_RS_DRAFTS = {
    Dialect.DRAFT4: jsonschema_rs.Draft4,
    Dialect.DRAFT6: jsonschema_rs.Draft6,
    Dialect.DRAFT7: jsonschema_rs.Draft7,
    Dialect.DRAFT2019_09: jsonschema_rs.Draft201909,
    Dialect.DRAFT2020_12: jsonschema_rs.Draft202012,
}


def _spellings() -> dict[str, Dialect]:
    # Each meta-schema URI with or without its empty fragment, over http or https: all name the
    # same published meta-schema, and servers in the wild write every variant.
    table: dict[str, Dialect] = {}
    for dialect, uri in _META_URIS.items():
        bare = uri.rstrip("#").split("://", 1)[1]
        for scheme in ("http", "https"):
            table[f"{scheme}://{bare}"] = dialect
            table[f"{scheme}://{bare}#"] = dialect
    return table


_BY_URI = _spellings()


def dialect_for_uri(uri: str) -> Dialect | None:
    """The dialect a ``$schema`` URI names (any spelling of its meta-schema URI), or ``None``."""
    return _BY_URI.get(uri)


def detect_dialect(schema: Any, default: Dialect, resources: Mapping[str, Any] | None = None) -> Dialect:
    """The dialect named by the root ``$schema``, or ``default`` where there is none.

    A ``$schema`` may also name a custom meta-schema the caller passed in ``resources``; its own
    ``$schema`` chain must end in a supported dialect (2019-09 and 2020-12 vocabularies). Anything
    else is refused: a dialect the engine does not know is never validated as if it were another.
    """
    if (type(schema) is not dict and not isinstance(schema, Mapping)) or "$schema" not in schema:
        return default
    uri = schema["$schema"]
    if not isinstance(uri, str):
        raise SchemaRejected(
            RejectReason.INVALID_SCHEMA,
            f"$schema must be a string URI, not {type(uri).__name__}",
            location="/$schema",
        )
    dialect = _BY_URI.get(uri) or _custom_meta_schema_dialect(uri, resources or {})
    if dialect is None:
        raise SchemaRejected(
            RejectReason.UNSUPPORTED_DIALECT,
            f"unsupported dialect: $schema is {uri!r}; supported dialects are drafts 4, 6 and 7, 2019-09 and 2020-12",
            location="/$schema",
            details={"dialect": uri},
        )
    return dialect


def _custom_meta_schema_dialect(uri: str, resources: Mapping[str, Any]) -> Dialect | None:
    seen: set[str] = set()
    while uri not in seen and len(seen) < 8:
        seen.add(uri)
        meta = _meta_schema(uri, resources)
        if not isinstance(meta, Mapping) or not isinstance(meta.get("$schema"), str):
            return None
        uri = meta["$schema"]
        dialect = _BY_URI.get(uri)
        if dialect is not None:
            return dialect if dialect.is_modern else None
    return None


_FORMAT_ASSERTION = (
    "https://json-schema.org/draft/2020-12/vocab/format-assertion",
    "https://json-schema.org/draft/2019-09/vocab/format",  # true: required, as an assertion
)


def requires_format_assertion(schema: Any, resources: Mapping[str, Any] | None) -> bool:
    """Whether ``schema``'s ``$schema`` names a custom meta-schema (passed in ``resources``) whose
    ``$vocabulary`` requires format assertion: such a schema is not to be evaluated with ``format``
    an annotation (2020-12 core, 8.1.2: a required vocabulary an evaluation does not apply makes
    the schema one it must refuse)."""
    if not resources or type(schema) is not dict or not isinstance(schema.get("$schema"), str):
        return False
    uri = schema["$schema"]
    if uri in _BY_URI:
        return False
    meta = _meta_schema(uri, resources)
    vocabulary = meta.get("$vocabulary") if isinstance(meta, Mapping) else None
    return isinstance(vocabulary, Mapping) and any(vocabulary.get(name) is True for name in _FORMAT_ASSERTION)


def normalise_schema_uri(schema: Any, dialect: Dialect) -> Any:
    """``schema`` with its ``$schema`` spelled the canonical way backends recognise (shallow copy)."""
    if (
        (type(schema) is dict or isinstance(schema, Mapping))
        and schema.get("$schema") in _BY_URI
        and schema["$schema"] != dialect.meta_schema_uri
    ):
        return {**schema, "$schema": dialect.meta_schema_uri}
    return schema


def _embeds_a_dialect(schema: Any) -> bool:
    """Whether a subschema below the root declares ``$schema``: a compound document, whose
    embedded resources are each valid against their own meta-schema, not the root's (2020-12
    core, 9.3.3: a draft-07 resource's array ``items`` is no 2020-12 ``items``)."""
    stack = [value for value in schema.values()] if type(schema) is dict else []
    while stack:
        node = stack.pop()
        if type(node) is dict:
            if "$schema" in node:
                return True
            stack += node.values()
        elif type(node) is list:
            stack += node
    return False


def _resources_valid(schema: Any, dialect: Dialect) -> bool:
    """Whether jsonschema-rs's build, which checks each resource of a compound document against
    its own meta-schema, accepts ``schema`` (offline: a reference it cannot resolve is the
    guard's to judge, past this check)."""
    try:
        dialect.rs_validator_class(schema, offline=True)
    except jsonschema_rs.ValidationError:
        return False
    except (jsonschema_rs.ReferencingError, ValueError, TypeError):
        return type(schema) is dict  # the meta-schemas passed; a reference failed after them
    return True


@cache
def _meta_validator(dialect: Dialect) -> jsonschema_rs.Validator:
    # Meta-schemas come from the jsonschema-specifications package: nothing is fetched. It is
    # imported here, on the first compile, not with the engine: loading it (and `referencing`,
    # `attrs`) was about 60 ms of a 300 ms `import engine`.
    import jsonschema_specifications

    resources = [(uri, jsonschema_specifications.REGISTRY.contents(uri)) for uri in jsonschema_specifications.REGISTRY]
    registry = jsonschema_rs.Registry(resources)
    document = jsonschema_specifications.REGISTRY.contents(dialect.meta_schema_uri)
    return dialect.rs_validator_class(document, registry=registry, offline=True)


# The longest schema (as JSON text) whose meta-schema refusal lists every error (up to
# `max_errors`); a longer one's lists the first.
_EVERY_ERROR_BELOW = 4096


def check_meta_schema(schema: Any, dialect: Dialect, *, max_errors: int = 20) -> None:
    """Refuse ``schema`` with ``invalid-schema`` unless its dialect's meta-schema accepts it."""
    validator = _meta_validator(dialect)
    try:
        if validator.is_valid(schema) or (_embeds_a_dialect(schema) and _resources_valid(schema, dialect)):
            return
    except ValueError as exc:  # a Python object no JSON document decodes to (a set, bytes, ...)
        raise SchemaRejected(RejectReason.INVALID_SCHEMA, f"schema is not a JSON document: {exc}") from None
    errors = []
    try:
        # jsonschema-rs makes every error before `iter_errors` yields the first, at a cost that
        # grows faster than the document (an `allOf` of 20,000 zeros: 9 s): a long schema gets
        # the first error alone, which `validate` finds at once.
        if len(msgspec.json.encode(schema)) <= _EVERY_ERROR_BELOW:
            found: Any = validator.iter_errors(schema)
        else:
            try:
                validator.validate(schema)
                found = ()
            except jsonschema_rs.ValidationError as refusal:
                found = (refusal,)
        for error in found:
            errors.append(
                {
                    "location": pointer(error.instance_path),
                    "meta_schema_location": pointer(error.schema_path),
                    "message": error.message,
                }
            )
            if len(errors) >= max_errors:
                break
    except (ValueError, TypeError, msgspec.EncodeError) as exc:  # `is_valid` stopped before the non-JSON value
        raise SchemaRejected(RejectReason.INVALID_SCHEMA, f"schema is not a JSON document: {exc}") from None
    first = errors[0] if errors else {"location": "", "message": "rejected by the meta-schema"}
    raise SchemaRejected(
        RejectReason.INVALID_SCHEMA,
        f"schema is not valid {dialect.value} JSON Schema: at {first['location'] or 'the root'}: {first['message']}",
        location=first["location"],
        details={"dialect": dialect.value, "errors": errors},
    )


def _meta_schema(uri: str, resources: Mapping[str, Any]) -> Any:
    """The custom meta-schema ``uri`` names among ``resources``, with or without its empty fragment."""
    return resources.get(uri, resources.get(uri.rstrip("#")))


def read_in(document: Mapping[str, Any], dialect: Dialect) -> Dialect:
    """The dialect a registry resource is read in: its own ``$schema``'s where the engine supports
    it, else that of the schema being compiled (``dialect``), as the guard reads it."""
    declared = document.get("$schema")
    return (dialect_for_uri(declared) if isinstance(declared, str) else None) or dialect


def resource_in_dialect(document: Any, dialect: Dialect) -> Any:
    """A registry resource with the ``$schema`` of the dialect it is read in, spelled as the
    backends know it: its own where it names one the engine supports, else that of the schema
    being compiled (``dialect``), as the guard reads it. Given so to every backend, each reads it
    alike: jsonschema-rs's ``draft=`` read every resource in the root's draft, its own ``$schema``
    ignored, and python-jsonschema reads a resource without one in the dialect of whichever
    resource refers to it."""
    if type(document) is not dict:
        return document
    uri = read_in(document, dialect).meta_schema_uri
    if document.get("$schema") == uri:
        return document
    return {**document, "$schema": uri}

"""In-memory ``referencing`` registries for the Python backends: nothing is ever retrieved.

A registry holds the dialects' meta-schemas (from ``jsonschema-specifications``, shipped as data)
and the caller's resources; a ``$ref`` to anything else is unresolvable, never fetched.
"""

from __future__ import annotations

from typing import Any

import referencing
import referencing.exceptions
import referencing.jsonschema
from jsonschema_specifications import REGISTRY as META_SCHEMAS

from .._dialect import Dialect
from ._contract import SchemaSource

__all__ = ["SPECIFICATIONS", "build_registry", "deny_retrieval"]

SPECIFICATIONS: dict[Dialect, referencing.Specification[Any]] = {
    Dialect.DRAFT4: referencing.jsonschema.DRAFT4,
    Dialect.DRAFT6: referencing.jsonschema.DRAFT6,
    Dialect.DRAFT7: referencing.jsonschema.DRAFT7,
    Dialect.DRAFT2019_09: referencing.jsonschema.DRAFT201909,
    Dialect.DRAFT2020_12: referencing.jsonschema.DRAFT202012,
}


def deny_retrieval(uri: str) -> referencing.Resource[Any]:
    """The registry's ``retrieve``: refuses every URI it does not already hold."""
    # referencing declares its classes with its own attrs wrapper, which mypy's attrs plugin does not read.
    raise referencing.exceptions.NoSuchResource(ref=uri)  # type: ignore[call-arg]


def build_registry(source: SchemaSource) -> referencing.Registry[Any]:
    """The meta-schemas plus ``source.resources``, each read in its own ``$schema`` dialect or,
    without one, in the dialect of the schema that uses it; crawled, and closed to retrieval."""
    spec = SPECIFICATIONS[source.dialect]
    resources = [
        (uri, referencing.Resource.from_contents(contents, default_specification=spec))
        for uri, contents in source.resources.items()
    ]
    registry: referencing.Registry[Any] = referencing.Registry(retrieve=deny_retrieval)  # type: ignore[call-arg]
    registry = registry.with_resources(resources)
    return registry.combine(META_SCHEMAS).crawl() if resources else registry.combine(META_SCHEMAS)

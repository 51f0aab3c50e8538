"""Backends by name: the one registry every list of backend names derives from.

Each backend lives in its own module and is imported only when first used, so a backend whose
package is missing costs nothing until it is asked for. Adding a backend is one module (a
:class:`Backend` subclass declaring what it can do) and one line in :data:`BACKENDS`; the plan,
``auto``, the configuration's validation and the command line's choices all read the table.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, NamedTuple

from .._errors import BackendUnavailable
from ._contract import Backend, BackendRefused, BackendValidator, Refusal, SchemaSource, TypedDecode, late, refuse

BackendRefused.__module__ = __name__  # a traceback names it where it is imported from

if TYPE_CHECKING:
    from ._locations import LocationValidators as LocationValidators
    from ._msgspec_translation import Translation

__all__ = [
    "AUTO",
    "Entry",
    "BACKENDS",
    "Backend",
    "BackendRefused",
    "BackendValidator",
    "Refusal",
    "SchemaSource",
    "TypedDecode",
    "auto_order",
    "backend_names",
    "late",
    "load_backend",
    "locations",
    "msgspec_translation",
    "refuse",
    "schema_source",
]

AUTO = "auto"
"""The policy name that lets the plan choose, per schema, the first backend that takes it."""


class Entry(NamedTuple):
    module: str
    """The module that defines the backend: relative to this package (``._msgspec``) or absolute."""
    cls: str
    package: str
    """The distribution to install when the import fails."""
    extra: str | None
    """The ``engine[...]`` extra that installs it, if it is optional."""


# In ``auto``'s order of preference: the first backend that compiles a schema exactly is used.
BACKENDS: dict[str, Entry] = {
    "msgspec": Entry("._msgspec", "MsgspecBackend", "msgspec", None),
    "jsonschema-rs": Entry("._jsonschema_rs", "JsonschemaRsBackend", "jsonschema-rs", None),
    "fastjsonschema": Entry("._fastjsonschema", "FastjsonschemaBackend", "fastjsonschema", "fastjsonschema"),
    "jsonschema": Entry("._jsonschema", "JsonschemaBackend", "jsonschema", "jsonschema"),
}


def auto_order() -> tuple[str, ...]:
    """The registered backends in ``auto``'s order of preference."""
    return tuple(BACKENDS)


def backend_names() -> tuple[str, ...]:
    """Every name the ``backend`` setting accepts: ``auto`` and each registered backend."""
    return (AUTO, *BACKENDS)


def load_backend(name: str) -> type[Backend]:
    """The backend class registered as ``name``; a clear error if its package is missing."""
    try:
        entry = BACKENDS[name]
    except KeyError:
        raise BackendUnavailable(f"unknown backend {name!r}; choose one of: {', '.join(backend_names())}") from None
    try:
        module = importlib.import_module(entry.module, __name__)
    except ImportError as exc:
        hint = f" (pip install 'engine[{entry.extra}]')" if entry.extra else ""
        raise BackendUnavailable(
            f"backend {name!r} needs the {entry.package!r} package, which is not installed{hint}: {exc}"
        ) from None
    backend: type[Backend] = getattr(module, entry.cls)
    return backend


def msgspec_translation(source: SchemaSource) -> Translation:
    """The msgspec type that means exactly ``source.schema`` (what the ``msgspec`` backend decodes
    into), for callers that build larger typed messages around a schema; :class:`BackendRefused`
    when there is none."""
    from ._msgspec_translation import translate

    return translate(source)


def schema_source(explainer: BackendValidator) -> SchemaSource | None:
    """The source of the schema behind ``explainer`` (``None`` where the explainer keeps none):
    what an explanation weighs before it starts. Its documents are read through :func:`late`."""
    from ._jsonschema_rs import JsonschemaRsValidator  # loaded with the general backend

    general: Any = explainer
    if not isinstance(general, JsonschemaRsValidator):
        rescue = getattr(explainer, "general", None)  # python-jsonschema keeps one for its rescue
        general = rescue() if callable(rescue) else None
    return general.source if isinstance(general, JsonschemaRsValidator) else None


def locations(explainer: BackendValidator) -> LocationValidators | None:
    """Validators of single locations of the schema behind ``explainer``, for explaining a failure
    piece by piece (``None`` where a location cannot be validated alone)."""
    from ._locations import locations_of

    return locations_of(explainer)

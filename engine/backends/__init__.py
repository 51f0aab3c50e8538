"""Backends by name. Each lives in its own module and is imported only when first used, so a
backend whose package is missing costs nothing until it is asked for."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, NamedTuple

from .._errors import BackendUnavailable
from ._contract import Backend, BackendRefused, BackendValidator, SchemaSource, refuse

if TYPE_CHECKING:
    from ._msgspec_translation import Translation

__all__ = [
    "AUTO_ORDER",
    "BACKENDS",
    "Backend",
    "BackendRefused",
    "BackendValidator",
    "SchemaSource",
    "load_backend",
    "msgspec_translation",
    "refuse",
]


class _Entry(NamedTuple):
    module: str
    cls: str
    package: str
    extra: str | None


BACKENDS: dict[str, _Entry] = {
    "jsonschema-rs": _Entry("_jsonschema_rs", "JsonschemaRsBackend", "jsonschema-rs", None),
    "msgspec": _Entry("_msgspec", "MsgspecBackend", "msgspec", None),
    "fastjsonschema": _Entry("_fastjsonschema", "FastjsonschemaBackend", "fastjsonschema", "fastjsonschema"),
    "jsonschema": _Entry("_jsonschema", "JsonschemaBackend", "jsonschema", "jsonschema"),
}

# `auto` tries these in order and keeps the first that compiles the schema exactly.
AUTO_ORDER: tuple[str, ...] = ("msgspec", "jsonschema-rs", "fastjsonschema", "jsonschema")


def load_backend(name: str) -> type[Backend]:
    """The backend class registered as ``name``; a clear error if its package is missing."""
    try:
        entry = BACKENDS[name]
    except KeyError:
        raise BackendUnavailable(f"unknown backend {name!r}; choose one of: auto, {', '.join(BACKENDS)}") from None
    try:
        module = importlib.import_module(f"{__name__}.{entry.module}")
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

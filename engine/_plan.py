"""Stage 4, the plan: which backend checks a schema, and who explains, re-checks and decodes.

Everything that depends on *which* backend is decided here, from the capabilities each backend
declares on its class (:class:`~engine.backends.Backend`) and the order of the registry
(:data:`~engine.backends.BACKENDS`); no other module looks a backend up by name.

Per schema the plan asks each candidate, in order, whether it will take the schema
(:meth:`~engine.backends.Backend.refusal`, decided before anything is built) and then compiles
it; under ``auto`` a refusal is recorded with its reason and the next candidate is tried, under a
configured backend the refusal is the answer. The general backend compiles every schema: it proves
references resolve, explains the failures of backends that do not explain, and re-checks every
"no" of a strict one-pass decoder.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from ._errors import BackendUnavailable
from .backends import (
    AUTO,
    Backend,
    BackendRefused,
    BackendValidator,
    SchemaSource,
    TypedDecode,
    auto_order,
    load_backend,
    refuse,
)

__all__ = ["Candidates", "Plan", "candidates", "plan"]


class Plan(msgspec.Struct, frozen=True):
    """How one schema is checked, explained and decoded."""

    backend: str
    """The backend chosen (the name reported as ``CompiledSchema.backend``)."""
    checker: BackendValidator
    """Answers ``is_valid`` on Python objects (and on decoded bytes, where there is no decoder)."""
    explainer: BackendValidator
    """Lists the issues of an invalid instance, with paths and keyword locations."""
    fallback: BackendValidator | None
    """Gets the last word on every "no" of a checker or decoder that may reject valid instances."""
    decoder: Callable[[bytes | bytearray | memoryview | str], Any] | None
    """Parses *and* validates bytes in one pass, or ``None`` (parse, then check)."""
    typed: TypedDecode | None
    """The msgspec type the decoder parses into, for a caller that embeds it in a larger document."""
    refused: Mapping[str, str]
    """The backends tried before the chosen one, each with why it refused."""
    undecided: str | None = None
    """With ``defer``: the general backend's name when ``backend`` decides on first use whether it
    takes the schema (the decoder's validator's ``refused()``; if it refuses, the general backend
    is the one used); ``None`` when decided."""
    rate: int = 1
    """What one evaluation of ``checker`` costs, in the budget's (see
    :meth:`~engine.backends.Backend.evaluation_rate`)."""


class Candidates(msgspec.Struct, frozen=True):
    """The backends one engine plans with."""

    order: tuple[Backend, ...]
    """Tried in this order; under a configured backend, that backend alone."""
    general: Backend
    choose: bool
    """``auto``: a refusal moves on to the next candidate instead of rejecting the schema."""
    unavailable: Mapping[str, str]
    """Backends ``auto`` skips because their package is missing, with the install hint."""


def candidates(policy: str) -> Candidates:
    """The backends for ``policy`` (``auto`` or a registered name), loaded now so that a missing
    package is reported when the engine is made, not on its first compile."""
    loaded: dict[str, Backend] = {}
    unavailable: dict[str, str] = {}
    names = auto_order() if policy == AUTO else (policy,)
    for name in names:
        try:
            loaded[name] = load_backend(name)()
        except BackendUnavailable as exc:
            if policy != AUTO:
                raise
            unavailable[name] = exc.message
    general = next((b for b in loaded.values() if b.general), None)
    if general is None:
        general = _general_backend()
    order = tuple(loaded.values())
    if policy == AUTO and general not in order:  # pragma: no cover - a registry without a general backend
        order = (*order, general)
    return Candidates(order=order, general=general, choose=policy == AUTO, unavailable=unavailable)


def _general_backend() -> Backend:
    for name in auto_order():
        try:
            cls = load_backend(name)
        except BackendUnavailable:
            continue
        if cls.general:
            return cls()
    raise BackendUnavailable("no general backend is installed (jsonschema-rs is a required dependency)")


def plan(source: SchemaSource, backends: Candidates, *, defer: bool = False) -> Plan:
    """Compile ``source`` with the first candidate that takes it, and say who does what.

    ``defer``: under ``auto``, a candidate that only decodes and is followed by the general backend
    may put its decision off until first use (see :meth:`~engine.backends.Backend.deferred`).

    Raises :class:`~engine.backends.BackendRefused` when a configured backend refuses, and whatever
    the general backend raises (an unresolvable reference, an invalid pattern) for any policy.
    """
    general = backends.general
    general_validator = general.compile(source)
    refused: dict[str, str] = {}
    chosen: Backend | None = None
    checker = general_validator
    undecided: str | None = None
    order = backends.order
    for at, backend in enumerate(order):
        if backend is general:
            chosen, checker = general, general_validator
            break
        early = backend.refusal(source)
        if early is None:
            if defer and backends.choose and not backend.checks_objects and order[at + 1 : at + 2] == (general,):
                pending = backend.deferred(source)
                if pending is not None:
                    # Planned as a decoder that takes the schema; if it refuses on first use,
                    # the general backend alone is what the plan gives.
                    chosen, checker, undecided = backend, pending, general.name
                    break
            try:
                checker = backend.compile(source)
            except BackendRefused as exc:
                if not backends.choose:
                    raise
                refused[backend.name] = exc.why
                continue
        else:
            if not backends.choose:
                raise refuse(backend.name, early.why, location=early.location)
            refused[backend.name] = early.why
            continue
        chosen = backend
        break
    if chosen is None:  # pragma: no cover - `candidates` puts the general backend last
        chosen, checker = general, general_validator
    decoder = None
    typed = checker.typed
    if not chosen.checks_objects:
        # Its strength is bytes -> value in one pass; Python objects go to the general backend,
        # which is exact, so it also answers them.
        decoder, checker = checker.decode, general_validator
    return Plan(
        backend=chosen.name,
        checker=checker,
        explainer=checker if chosen.explains else general_validator,
        fallback=general_validator if checker.decode is not None and checker is not general_validator else None,
        decoder=decoder,
        typed=typed,
        refused=refused,
        undecided=undecided,
        rate=1 if checker is general_validator else chosen.evaluation_rate(source),
    )

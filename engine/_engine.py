"""The pipeline: intake -> dialect -> guard -> plan -> compile -> cache."""

from __future__ import annotations

import marshal
import threading
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, Unpack

import msgspec

from . import _guard as guard
from . import _metrics
from ._cache import CacheStats, CompileCache, estimated_bytes
from ._compiled import CompiledSchema
from ._config import ConfigOverrides, EngineConfig, Limits, engine_config
from ._dialect import (
    Dialect,
    check_meta_schema,
    detect_dialect,
    dialect_for_uri,
    normalise_schema_uri,
    read_in,
    requires_format_assertion,
)
from ._errors import RejectReason, SchemaRejected
from ._intake import DocumentSize, Intake, canonical_text, fingerprint, load_schema
from ._numbers import comparison_bounds
from ._patterns.analysis import reads_linearly
from ._plan import candidates, plan
from ._work import MEMBERS, NUMBERS, weighs_more, weighs_resources
from .backends import SchemaSource

__all__ = ["Engine"]

_serialise = marshal.dumps  # the cache's first lookup key (see engine/_cache.py)

# Not a failure of the compile: let through as they are. Everything else, a panic in a native
# extension included (pyo3's PanicException derives from BaseException), has the meta-schema's
# refusal come first.
_INTERRUPTIONS = (KeyboardInterrupt, SystemExit, GeneratorExit)


class Engine:
    """Compiles schemas under one configuration and keeps the results.

    ``Engine(config, **overrides)``: the configuration (defaults when omitted) with keyword
    overrides applied; use ``EngineConfig.load()`` to read the environment and TOML.

    Thread-safe: share one engine across threads; each schema is compiled once.
    """

    def __init__(self, config: EngineConfig | None = None, **overrides: Unpack[ConfigOverrides]) -> None:
        config = engine_config(config, overrides)
        self.config = config
        self._default_dialect = Dialect(config.default_dialect)
        self._cache: CompileCache[CompiledSchema] = CompileCache(config.cache_size, config.cache_bytes)
        self._lookups = config.cache_size > 0 and config.cache_bytes > 0
        self._backends = candidates(config.backend)
        self.unavailable: dict[str, str] = dict(self._backends.unavailable)
        """Backends ``auto`` skips because their package is missing, with the install hint."""
        # Opt-in retrieval of remote `$ref`s, at compile time only (off by default).
        self._fetcher: guard.Fetcher | None = guard.fetcher(config.fetch) if config.fetch.enabled else None
        # The dialects whose meta-schema check is left to the general backend's build, which under
        # `auto` or the general backend alone compiles every schema and refuses what the meta-schema
        # refuses. Not with fetching on: the guard would fetch for a schema the check refuses.
        general = self._backends.general
        by_build = self._fetcher is None and (self._backends.choose or self._backends.order == (general,))
        self._meta_by_build = general.meta_schema_dialects if by_build else frozenset()

    def cache_stats(self) -> CacheStats:
        """Hits, misses and size of the compile cache."""
        return self._cache.stats()

    def compile(self, schema: Any, *, registry: Mapping[str, Any] | None = None) -> CompiledSchema:
        """Compile ``schema`` (a ``dict``, ``bool``, or JSON bytes/text), or return it from the cache.

        ``registry`` maps URIs to schema resources that ``$ref`` may reach; nothing else outside
        the document is ever resolved. Raises :class:`~engine.SchemaRejected` with a reason.
        """
        # Kept lean (no closures, few locals): a cache hit on the same or an equal dict is this
        # frame, the serialisation and one lookup.
        # The registry is part of what the fingerprint keys (only an exact dict's length is read
        # here: another object's is read where the registry is, with the reason if it fails).
        if not self._lookups or (registry is not None and (type(registry) is not dict or registry)):
            return self._compile_missing(schema, registry, False, None, None)
        text: bytes | None = None
        packed: bytes | None = None
        kind = type(schema)
        if kind is dict:
            try:
                packed = _serialise(schema)
            except (ValueError, TypeError, RecursionError):  # not builtin types, or too deep
                pass
            else:
                found = self._cache.find_value(packed)
                if found is not None:
                    return found
        elif kind is bytes or kind is str:
            try:
                text = schema.encode() if kind is str else schema
            except UnicodeEncodeError:  # refused by intake, with the reason
                pass
            else:
                found = self._cache.find_text(text)
                if found is not None:
                    return found
        return self._compile_missing(schema, registry, True, text, packed)

    def _compile_missing(
        self,
        schema: Any,
        registry: Mapping[str, Any] | None,
        lookups: bool,
        text: bytes | None,
        packed: bytes | None,
        intake: Intake | None = None,
    ) -> CompiledSchema:
        """What the first lookups did not find: ``text`` is the JSON text given and ``packed``
        the dict's serialisation (where taken); ``lookups``, whether the cache is looked in;
        ``intake``, the schema through intake already (see :func:`compile_measured`)."""
        if intake is None:
            intake = load_schema(schema, self.config.limits)
        cache = self._cache
        given = schema
        schema, size, plain, canonical, values, widest, containers, fractions = intake
        if not plain:
            packed = None  # only a plain document is found by its serialisation
        if canonical is None:  # intake writes a plain object's text
            canonical = canonical_text(schema)
        if lookups:
            # Equal documents, in any key order, have one canonical text: an equal copy that
            # serialises differently, or a document given as other bytes, is found by it.
            found = cache.find_text(canonical)
            if found is not None:
                cache.remember(found.fingerprint, found, text=text, packed=packed)  # the next such copy is found first
                return found
        resources: Mapping[str, Any] = {}
        if registry is not None and (type(registry) is not dict or registry):  # (see `compile`)
            resources = _resources(registry, self.config.limits)
        key = fingerprint(canonical, resources)
        # Whatever reads the schema after compile time reads a private copy of it as it is now
        # (see `SchemaSource.pinned`): the caller's own object may change, and so may a document
        # parsed or copied here, which `CompiledSchema.schema` would otherwise hand out (to every
        # caller the cache gives it to). The serialisation taken for the cache is the caller's
        # copy (a given dict is plain: intake copies any other); bytes or text are parsed again.
        pinned: Callable[[], Any] | None = None
        if type(schema) is dict:
            if schema is given:
                pinned = partial(marshal.loads, packed) if packed is not None else _pin(schema)
            elif type(given) is bytes or type(given) is str:
                pinned = partial(_parse, given)
            else:
                pinned = _pin(schema)
        counts = (values, widest, containers, fractions)
        compile = lambda: self._compile(schema, resources, key, size, canonical, pinned, counts)  # noqa: E731
        if _metrics.hooks:  # observability: compile time and outcome, only when a hook listens
            compile = _metrics.observed_compile(compile)
        compiled = cache.get_or_compile(key, compile, held_bytes if cache.enabled else None)
        if lookups:
            # The serialisation taken before compiling is the one asked with next: a compile
            # keeps no object of the caller's document (whatever reads it later reads the
            # snapshot), so nothing it does changes the serialisation.
            cache.remember(key, compiled, text=text, canonical=canonical, packed=packed)
        return compiled

    def _compile(
        self,
        schema: Any,
        resources: Mapping[str, Any],
        key: bytes,
        size: DocumentSize,
        text: bytes,
        pinned: Callable[[], Any] | None,
        counts: tuple[int, int, int, int],
    ) -> CompiledSchema:
        """``counts``: the values the document holds, the most one container holds, its
        containers and whether it holds a fraction, where the intake counted them (else -1 each).
        ``pinned``: a function giving the document as it is now, whenever called (``None`` for a
        boolean schema)."""
        config = self.config
        dialect = detect_dialect(schema, self._default_dialect, resources)
        if not config.assert_formats and requires_format_assertion(schema, resources):
            raise SchemaRejected(
                RejectReason.UNSUPPORTED_DIALECT,
                f"the meta-schema {schema['$schema']!r} requires format assertion (its $vocabulary), which "
                "formats = 'annotate' turns off: configure formats = 'assert' to compile it",
                location="/$schema",
                details={"dialect": schema["$schema"]},
            )
        # A custom meta-schema (`$schema` naming a registry resource) is left to no build: its
        # dialect's meta-schema is not the one a build would check against.
        by_build = (
            dialect in self._meta_by_build
            and type(schema) is dict
            and ("$schema" not in schema or dialect_for_uri(schema["$schema"]) is dialect)
        )
        if not by_build:
            check_meta_schema(schema, dialect)
        if resources:
            _check_resources(resources, dialect)
        try:
            report: guard.GuardReport | guard.DeferredReport
            expansion = (
                guard.cleared(schema, text, size.depth, *counts[:3], dialect, config.limits)
                if pinned is not None and not resources and self._fetcher is None
                else 0
            )
            cleared = expansion > 0
            if cleared:
                assert pinned is not None  # noqa: S101 - cleared only with a snapshot (for the type checker)
                # Nothing the guard refuses can be in it, and no stage before a document is read
                # asks what it measured: the report is made when asked for, from the snapshot.
                report = guard.DeferredReport(pinned, dialect, config, size, expansion)
                facts = None
            else:
                fetched: dict[str, Any] = {}
                report = facts = guard.inspect(
                    schema, dialect, resources, config, fetch=self._fetcher, fetched=fetched, document=size
                )
                if fetched:
                    resources = {**resources, **fetched}
            normalised = normalise_schema_uri(schema, dialect)
            source = SchemaSource(
                schema=normalised,
                dialect=dialect,
                resources=resources,
                config=config,
                facts=facts,
                text=text,
                cleared=cleared,
                pinned=pinned if normalised is schema or pinned is None else _pin(normalised),
            )
            chosen = plan(source, self._backends, defer=True)
        except BaseException as exc:
            if by_build and not isinstance(exc, _INTERRUPTIONS):
                # The guard and the backends see schemas the meta-schema refuses: whatever
                # refused such a schema (or failed on it), the meta-schema's refusal is the answer,
                # as when it was checked first. On a valid schema the original error stands.
                check_meta_schema(schema, dialect)
            raise
        formats = config.assert_formats
        weighs = weighs_more(text, counts, dialect, schema, cleared=cleared, formats=formats)
        if resources:
            weighs |= weighs_resources(resources, formats=formats)
        # What one value may meet of comparisons with a number, at most, as an integer and as a
        # float (0 and `None`: unknown, as through a registry).
        numbers = weighs & NUMBERS and not resources
        comparisons = comparison_bounds(text, counts[0], bool(weighs & MEMBERS)) if numbers else (0, None)
        return CompiledSchema(
            schema=schema,
            pinned=pinned,
            dialect=dialect,
            backend=chosen.backend,
            checker=chosen.checker,
            explainer=chosen.explainer,
            fallback=chosen.fallback,
            limits=config.limits,
            fingerprint=key,
            notes=dict(chosen.refused),
            decoder=chosen.decoder,
            guard=report,
            typed=chosen.typed,
            undecided=chosen.undecided,
            weighs=weighs,
            resources=resources,
            comparisons=comparisons,
            rate=chosen.rate,
            # Estimated from the values the intake counted (see `held_bytes`): a cache or a tool
            # list weighs it when it keeps it.
            held=estimated_bytes(text, counts[0], counts[2])
            + (sum(map(estimated_bytes, map(canonical_text, resources.values()))) if resources else 0),
        )


_default_engine: Engine | None = None
_default_lock = threading.Lock()


# Where the published meta-schemas and their vocabularies' documents live.
_PUBLISHED = ("https://json-schema.org/draft/", "http://json-schema.org/draft-0")


def _resources(registry: Mapping[str, Any], limits: Limits) -> dict[str, Any]:
    """The registry's resources through intake, as the schema goes: each measured and held to
    JSON before anything encodes or walks it (the fingerprint writes them all)."""
    if not isinstance(registry, Mapping):
        raise SchemaRejected(
            RejectReason.INVALID_SCHEMA,
            f"a registry maps URIs to resources: a {type(registry).__name__} is no mapping",
            location="",
        )
    resources: dict[str, Any] = {}
    try:
        entries = list(registry.items())
    except Exception as exc:  # noqa: BLE001 - a mapping of the caller's: whatever it raises is said
        raise SchemaRejected(
            RejectReason.INVALID_SCHEMA,
            f"a registry maps URIs to resources: its entries cannot be read ({type(exc).__name__}: {exc})",
            location="",
        ) from None
    for uri, resource in entries:
        if not isinstance(uri, str):
            raise SchemaRejected(
                RejectReason.INVALID_SCHEMA, f"a registry maps URIs to resources: {uri!r} is not a string", location=""
            )
        if uri.split("#", 1)[0].startswith(_PUBLISHED):
            raise SchemaRejected(
                RejectReason.INVALID_SCHEMA,
                f"registry resource {uri!r}: the URI of a published meta-schema, which every backend "
                "reads from its own copy: a registry cannot replace it (the guard would read what no "
                "backend evaluates)",
                location="",
                details={"resource": uri},
            )
        try:
            loaded = load_schema(resource, limits).schema
            # The caller's own object: a private copy, as the schema's (see `SchemaSource.pinned`).
            resources[uri] = _pin(loaded)() if loaded is resource and type(loaded) is dict else loaded
        except SchemaRejected as refusal:
            raise SchemaRejected(
                refusal.reason,
                f"registry resource {uri!r}: {refusal.message}",
                location="",
                details={**refusal.details, "resource": uri},
            ) from None
    return resources


def _patterns(compiled: CompiledSchema) -> tuple[tuple[str, int], ...]:
    """``compiled``'s distinct patterns, each with the steps it takes written out in all
    (``GuardReport.patterns``): a schema the guard cleared by its text holds none, and its report,
    deferred, is not built."""
    report = None if compiled._deferred_guard is not None else compiled.guard  # noqa: SLF001 - read, not built
    return () if report is None else report.patterns


def pattern_steps(compiled: CompiledSchema) -> int:
    """The steps ``compiled``'s distinct patterns take written out in all."""
    return sum(steps for _, steps in _patterns(compiled))


PATTERN_STEP_BYTES = 1024
"""What a step of a schema's patterns, as counted in all, may hold in memory once compiled: a copy
of ``\\S`` (8 steps) held some 2.3 KB in jsonschema-rs, of a class of 256 scattered code points
beyond U+FFFF (65) some 24 KB, of ``\\p{L}`` (64) some 50 KB."""


def held_bytes(compiled: CompiledSchema) -> int:
    """What ``compiled`` may hold in memory, by estimate: its text's, its resources' and its
    patterns' (ten patterns ``\\p{L}{15}``, 200 bytes of text, held some megabytes), and the
    cache of the automaton of each that may not be read one state at a time, once used
    (:data:`AUTOMATON_CACHE_BYTES`). What the cache weighs an entry at, and a tool list its tools."""
    held = compiled._held  # noqa: SLF001 - set at compile time
    for pattern, steps in _patterns(compiled):
        held += PATTERN_STEP_BYTES * steps + (0 if reads_linearly(pattern) else AUTOMATON_CACHE_BYTES)
    return held


AUTOMATON_CACHE_BYTES = 1_500_000
"""What a pattern that may not be read one state at a time may keep once used: its lazy DFA's
cache (``engine.backends``' ``DFA_CACHE_BYTES``) and the regex engine's other caches, measured at
1.2 MB after a check of 800 KB."""


def _pin(schema: dict[str, Any]) -> Callable[[], Any]:
    """A function returning a new private copy of ``schema`` (a plain dict, through intake) as it
    is now, whatever its owner does to it later: its msgpack serialisation (the cheapest that
    keeps key order and types: about 0.6 of ``marshal``'s time), read back when asked (most
    compiled schemas never need it); ``marshal``'s for an integer msgpack cannot hold."""
    try:
        return partial(_unpack, _pack(schema))
    except (OverflowError, TypeError, ValueError, msgspec.EncodeError):
        return partial(marshal.loads, marshal.dumps(schema))


_pack = msgspec.msgpack.encode
_unpack = msgspec.msgpack.decode


_parse = msgspec.json.decode  # a document intake parsed once, within its limits, parsed again


def engine_or_default(engine: Engine | None) -> Engine:
    """``engine``, or the default engine for ``None``; a ``TypeError`` that says so for anything
    else (an ``engine=`` argument given a name or a config would fail later, far from the call)."""
    if engine is None:
        return default_engine()
    if not isinstance(engine, Engine):
        if isinstance(engine, EngineConfig):
            instead = "; build the engine from it: engine=engine.Engine(config)"
        elif isinstance(engine, Mapping):
            instead = "; build one from the settings: engine=engine.Engine(**settings)"
        elif isinstance(engine, str):
            instead = "; a backend is chosen with engine=engine.Engine(backend=...)"
        else:
            instead = ""
        raise TypeError(
            f"engine= takes an engine.Engine (or None for the default engine), not {type(engine).__name__}{instead}"
        )
    return engine


def default_engine() -> Engine:
    """The engine behind :func:`engine.compile`, configured from the environment on first use."""
    global _default_engine
    if _default_engine is None:
        with _default_lock:  # one default engine, one cache, however many threads start at once
            if _default_engine is None:
                _default_engine = Engine(EngineConfig.load())
    return _default_engine


def compile_measured(engine: Engine, intake: Intake) -> CompiledSchema:
    """What ``engine.compile`` gives for ``intake.schema``, where that document went through
    intake under ``engine``'s limits already (a form's, measured before its shape was checked):
    found by its canonical text, or compiled, without being measured again."""
    return engine._compile_missing(intake.schema, None, engine._lookups, None, None, intake)


def _check_resources(resources: Mapping[str, Any], dialect: Dialect) -> None:
    """Each schema resource of the registry held to the meta-schema of the dialect it is read in
    (its own ``$schema``'s, else the schema's), as the schema is: what the guard walks is what the
    dialect says, and a backend may read more (jsonschema-rs applies an array ``items`` in a
    2020-12 resource, which the guard, reading 2020-12, does not walk: 28 levels of doubling
    references behind one compiled, and took seconds a check)."""
    for uri, resource in resources.items():
        if type(resource) is not dict:
            continue  # a boolean schema, or not a schema: refused where it is resolved, with the reason
        try:
            check_meta_schema(resource, read_in(resource, dialect))
        except SchemaRejected as refusal:
            raise SchemaRejected(
                refusal.reason,
                f"the registry's resource {uri!r}: {refusal.message}",
                location=refusal.location,
                details={**refusal.details, "uri": uri},
            ) from None

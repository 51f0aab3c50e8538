"""The pipeline: intake -> dialect -> guard -> plan -> compile -> cache."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any, Unpack

from . import _guard as guard
from . import _metrics
from ._cache import CacheStats, CompileCache
from ._compiled import CompiledSchema
from ._config import ConfigOverrides, EngineConfig
from ._dialect import Dialect, check_meta_schema, detect_dialect, normalise_schema_uri
from ._errors import BackendUnavailable
from ._intake import DocumentSize, fingerprint, load_schema
from .backends import AUTO_ORDER, Backend, BackendRefused, SchemaSource, load_backend, refuse

__all__ = ["Engine"]

# The backend that explains failures and re-checks a strict fast path's refusals.
GENERAL_BACKEND = "jsonschema-rs"


class Engine:
    """Compiles schemas under one configuration and keeps the results.

    ``Engine(config, **overrides)``: the configuration (defaults when omitted) with keyword
    overrides applied; use ``EngineConfig.load()`` to read the environment and TOML.

    Thread-safe: share one engine across threads; each schema is compiled once.
    """

    def __init__(self, config: EngineConfig | None = None, **overrides: Unpack[ConfigOverrides]) -> None:
        config = config or EngineConfig()
        if overrides:
            config = config.replace(**overrides)
        self.config = config
        self._default_dialect = Dialect(config.default_dialect)
        self._cache: CompileCache[CompiledSchema] = CompileCache(config.cache_size)
        self._backends: dict[str, Backend] = {}
        self._order: tuple[str, ...] = (config.backend,)
        self.unavailable: dict[str, str] = {}
        """Backends ``auto`` skips because their package is missing, with the install hint."""
        if config.backend == "auto":
            for name in AUTO_ORDER:
                try:
                    self._backend(name)
                except BackendUnavailable as exc:
                    self.unavailable[name] = exc.message
            self._order = tuple(name for name in AUTO_ORDER if name not in self.unavailable)
        for name in (*self._order, GENERAL_BACKEND):
            self._backend(name)  # fail now, with the package to install, not on first compile
        # Opt-in retrieval of remote `$ref`s, at compile time only (off by default).
        self._fetcher: guard.Fetcher | None = guard.fetcher(config.fetch) if config.fetch.enabled else None

    def _backend(self, name: str) -> Backend:
        backend = self._backends.get(name)
        if backend is None:
            backend = self._backends[name] = load_backend(name)()
        return backend

    def cache_stats(self) -> CacheStats:
        """Hits, misses and size of the compile cache."""
        return self._cache.stats()

    def compile(self, schema: Any, *, registry: Mapping[str, Any] | None = None) -> CompiledSchema:
        """Compile ``schema`` (a ``dict``, ``bool``, or JSON bytes/text), or return it from the cache.

        ``registry`` maps URIs to schema resources that ``$ref`` may reach; nothing else outside
        the document is ever resolved. Raises :class:`~engine.SchemaRejected` with a reason.
        """
        limits = self.config.limits
        schema, size = load_schema(schema, limits)
        resources: Mapping[str, Any] = dict(registry) if registry else {}
        key = fingerprint(schema, resources)
        compile = lambda: self._compile(schema, resources, key, size)  # noqa: E731
        if _metrics.hooks:  # observability: compile time and outcome, only when a hook listens
            compile = _metrics.observed_compile(compile)
        return self._cache.get_or_compile(key, compile)

    def _compile(self, schema: Any, resources: Mapping[str, Any], key: bytes, size: DocumentSize) -> CompiledSchema:
        config = self.config
        dialect = detect_dialect(schema, self._default_dialect, resources)
        check_meta_schema(schema, dialect)
        fetched: dict[str, Any] = {}
        report = guard.inspect(
            schema, dialect, resources, config, fetch=self._fetcher, fetched=fetched, document=size
        )
        if fetched:
            resources = {**resources, **fetched}
        source = SchemaSource(
            schema=normalise_schema_uri(schema, dialect),
            dialect=dialect,
            resources=resources,
            config=config,
            facts=report,
        )
        # The general backend compiles every schema: it proves references resolve, explains
        # failures, and re-checks the refusals of a stricter fast path.
        general = self._backend(GENERAL_BACKEND).compile(source)
        notes: dict[str, str] = {}
        for name in self._order:
            if name == GENERAL_BACKEND:
                checker, chosen = general, name
                break
            backend = self._backend(name)
            try:
                if name in guard.BACKTRACKING_EVALUATORS and report.exponential:
                    raise refuse(name, f"{report.exponential}; only {GENERAL_BACKEND} evaluates it in bounded time")
                checker = backend.compile(source)
            except BackendRefused as refusal:
                if config.backend != "auto":
                    raise
                notes[name] = refusal.why
                continue
            chosen = name
            break
        else:  # pragma: no cover - AUTO_ORDER ends with the general backend
            raise AssertionError("no backend compiled the schema")
        decoder = None
        if chosen == "msgspec":
            # msgspec's strength is bytes -> value in one pass; on Python objects the general
            # backend is faster than msgspec.convert, and it is exact, so it checks them.
            decoder, checker = checker.decode, general
        exact_decoder = checker.decode is not None
        return CompiledSchema(
            schema=schema,
            dialect=dialect,
            backend=chosen,
            checker=checker,
            # A backend with reference-quality issues explains its own failures (a user who chose
            # python-jsonschema gets its messages); the others are explained by the general one.
            explainer=checker if self._backend(chosen).explains else general,
            fallback=general if exact_decoder and checker is not general else None,
            limits=config.limits,
            fingerprint=key,
            notes=notes,
            decoder=decoder,
            guard=report,
        )


_default_engine: Engine | None = None
_default_lock = threading.Lock()


def default_engine() -> Engine:
    """The engine behind :func:`engine.compile`, configured from the environment on first use."""
    global _default_engine
    if _default_engine is None:
        with _default_lock:  # one default engine, one cache, however many threads start at once
            if _default_engine is None:
                _default_engine = Engine(EngineConfig.load())
    return _default_engine



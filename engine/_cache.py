"""Stage 6: compiled validators, kept by a fingerprint of what determines them.

Bounded (LRU), thread-safe, and single-flight: when several threads ask for the same schema at
once, one compiles and the others wait for its result, so a schema is compiled once.

Two lookups come before the fingerprint, so that asking again costs a small fraction of a
compile (the fingerprint and the intake measure that must precede it cost about half of what
jsonschema-rs needs to compile a real tool schema from scratch):

- the *same object*, by identity, proven unchanged by its :class:`~engine._intake.Snapshot`
  (a mutated schema is measured and fingerprinted again, never served stale);
- an *equal document*, by its exact JSON text (the schema encoded in its own key order, or the
  bytes it was given as): the same text is the same document. Equal documents in another key
  order fall through to the fingerprint, which is order-blind.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

import cachetools
import msgspec

from . import _metrics
from ._intake import Snapshot

__all__ = ["CacheStats", "CompileCache"]

T = TypeVar("T")


class CacheStats(msgspec.Struct, frozen=True):
    hits: int
    misses: int
    size: int
    maxsize: int


class _LRU(cachetools.LRUCache[bytes, T]):
    def popitem(self) -> tuple[bytes, T]:
        item = super().popitem()  # cachetools calls this to make room: an eviction
        if _metrics.hooks:
            _metrics.emit(_metrics.CacheEvent("eviction"))
        return item


class CompileCache(Generic[T]):
    def __init__(self, maxsize: int) -> None:
        self._entries: cachetools.LRUCache[bytes, T] | None = _LRU(maxsize) if maxsize > 0 else None
        self._maxsize = maxsize
        self._lock = threading.Lock()
        self._inflight: dict[bytes, threading.Lock] = {}
        self._hits = 0
        self._misses = 0
        # The lookups before the fingerprint: plain dicts, read without the lock (a dict read is
        # atomic) and bounded like the cache, oldest entry out first.
        self._by_object: dict[int, tuple[Any, Snapshot, T]] = {}
        self._by_text: dict[bytes, T] = {}

    @property
    def enabled(self) -> bool:
        return self._entries is not None

    def find_object(self, schema: Any) -> T | None:
        """The value remembered for this very object, if it has not changed since."""
        entry = self._by_object.get(id(schema))
        if entry is None or entry[0] is not schema:
            return None
        if not entry[1].unchanged():
            with self._lock:
                if self._by_object.get(id(schema)) is entry:
                    del self._by_object[id(schema)]
            return None
        self._hit()
        return entry[2]

    def find_text(self, text: bytes) -> T | None:
        """The value remembered for this exact JSON text."""
        value = self._by_text.get(text)
        if value is not None:
            self._hit()
        return value

    def remember(self, value: T, text: bytes | None, schema: Any = None, snapshot: Snapshot | None = None) -> None:
        """Find ``value`` again by ``text`` and, when a snapshot proves it unchanged, by ``schema``."""
        if self._entries is None:
            return
        with self._lock:
            if text is not None:
                _bounded_put(self._by_text, text, value, self._maxsize)
            if snapshot is not None:
                _bounded_put(self._by_object, id(schema), (schema, snapshot, value), self._maxsize)

    def _hit(self) -> None:
        with self._lock:
            self._hits += 1
        if _metrics.hooks:
            _metrics.emit(_metrics.CacheEvent("hit"))

    def get_or_compile(self, key: bytes, compile: Callable[[], T]) -> T:
        """The cached value for ``key``, or ``compile()``'s result, stored. Exceptions are not stored."""
        entries = self._entries
        if entries is None:
            with self._lock:
                self._misses += 1
            return compile()
        with self._lock:
            value = entries.get(key)
            if value is not None:
                self._hits += 1
                if _metrics.hooks:
                    _metrics.emit(_metrics.CacheEvent("hit"))
                return value
            key_lock = self._inflight.setdefault(key, threading.Lock())
        with key_lock:
            with self._lock:
                value = entries.get(key)
                if value is not None:
                    self._hits += 1
                    if _metrics.hooks:
                        _metrics.emit(_metrics.CacheEvent("hit"))
                    return value
                self._misses += 1
                if _metrics.hooks:
                    _metrics.emit(_metrics.CacheEvent("miss"))
            try:
                value = compile()
                with self._lock:
                    entries[key] = value
                return value
            finally:
                with self._lock:
                    self._inflight.pop(key, None)

    def stats(self) -> CacheStats:
        with self._lock:
            size = len(self._entries) if self._entries is not None else 0
            return CacheStats(hits=self._hits, misses=self._misses, size=size, maxsize=self._maxsize)

    def clear(self) -> None:
        with self._lock:
            if self._entries is not None:
                self._entries.clear()
            self._by_object.clear()
            self._by_text.clear()


K = TypeVar("K")
V = TypeVar("V")


def _bounded_put(table: dict[K, V], key: K, value: V, maxsize: int) -> None:
    table.pop(key, None)  # re-inserted last: the newest
    table[key] = value
    while len(table) > maxsize:
        del table[next(iter(table))]

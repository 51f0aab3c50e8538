"""Stage 6: compiled validators, kept by a fingerprint of what determines them.

Bounded (LRU), thread-safe, and single-flight: when several threads ask for the same schema at
once, one compiles and the others wait for its result, so a schema is compiled once.

Two lookups come before the fingerprint, so that asking again costs a small fraction of a
compile (the fingerprint and the intake measure that must precede it cost about half of what
jsonschema-rs needs to compile a real tool schema from scratch):

- the *same or an equal* dict, by its ``marshal`` serialisation, taken before anything else
  looks at it. ``marshal`` is native, runs no code of the caller's, refuses anything but builtin
  types, and writes an object referenced from several places once: a shared-object bomb costs
  what its distinct objects cost, not what it expands to. Equal bytes are an equal document with
  the same types (``True`` is not ``1``, ``1.0`` is not ``1``), so a hit is a document already
  measured and accepted, and a schema changed in place since is not one. Which objects it marks
  as shared depends on reference counts, so an equal copy may serialise differently: it is then
  found by the next lookup, and its serialisation remembered;
- an *equal document*, by its exact JSON text (the schema encoded in its own key order, after
  the intake measure, or the bytes it was given as): the same text is the same document. Equal
  documents in another key order fall through to the fingerprint, which is order-blind.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

import cachetools
import msgspec

from . import _metrics

__all__ = ["CacheStats", "CompileCache"]

T = TypeVar("T")


class CacheStats(msgspec.Struct, frozen=True):
    hits: int
    misses: int
    size: int
    maxsize: int


class _LRU(cachetools.LRUCache[bytes, T]):
    def __init__(self, maxsize: int, live: dict[bytes, T]) -> None:
        super().__init__(maxsize)
        self.live = live
        """The same entries as a plain dict, for the lookups that read without the lock."""

    def popitem(self) -> tuple[bytes, T]:
        item = super().popitem()  # cachetools calls this to make room: an eviction
        self.live.pop(item[0], None)
        if _metrics.hooks:
            _metrics.emit(_metrics.CacheEvent("eviction"))
        return item


class CompileCache(Generic[T]):
    def __init__(self, maxsize: int) -> None:
        # What the LRU holds, as a plain dict: whether a fingerprint is still cached is one native
        # lookup (kept in step with the LRU under the lock).
        self._live: dict[bytes, T] = {}
        self._entries: cachetools.LRUCache[bytes, T] | None = _LRU(maxsize, self._live) if maxsize > 0 else None
        self._maxsize = maxsize
        self._lock = threading.Lock()
        self._inflight: dict[bytes, threading.Lock] = {}
        self._hits = 0
        self._misses = 0
        # The lookups before the fingerprint: plain dicts, read without the lock (a dict read is
        # atomic), bounded, oldest entry out first. Each names the fingerprint of its value, which
        # must still be in the cache: what the cache evicted is compiled again.
        self._by_text: dict[bytes, tuple[bytes, T]] = {}
        self._by_value: dict[bytes, tuple[bytes, T]] = {}

    @property
    def enabled(self) -> bool:
        return self._entries is not None

    def find_text(self, text: bytes) -> T | None:
        """The value remembered for this exact JSON text."""
        return self._found(self._by_text.get(text))

    def find_value(self, packed: bytes) -> T | None:
        """The value remembered for a document that serialises to these exact ``marshal`` bytes."""
        return self._found(self._by_value.get(packed))

    def _found(self, entry: tuple[bytes, T] | None) -> T | None:
        if entry is None or entry[0] not in self._live:
            return None
        with self._lock:
            self._hits += 1
        if _metrics.hooks:
            _metrics.emit(_metrics.CacheEvent("hit"))
        return entry[1]

    def remember(
        self,
        key: bytes,
        value: T,
        *,
        text: bytes | None = None,
        packed: bytes | None = None,
    ) -> None:
        """Find ``value`` (cached under ``key``) again by ``text`` and by ``packed``."""
        if self._entries is None:
            return
        with self._lock:
            if text is not None:
                _bounded_put(self._by_text, text, (key, value), self._maxsize)
            if packed is not None:
                _bounded_put(self._by_value, packed, (key, value), _SERIALISATIONS * self._maxsize)

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
                    self._live[key] = value
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
            self._live.clear()
            self._by_text.clear()
            self._by_value.clear()


# Serialisations kept per cached schema: the one taken before compiling, the one after (a compiled
# schema that keeps objects of the document changes which ones marshal marks as shared) and those
# of equal copies. With one per schema, 612 corpus schemas in a 1,024-entry table pushed each
# other's out and every copy fell through to the text lookup.
_SERIALISATIONS = 4

K = TypeVar("K")
V = TypeVar("V")


def _bounded_put(table: dict[K, V], key: K, value: V, maxsize: int) -> None:
    table.pop(key, None)  # re-inserted last: the newest
    table[key] = value
    while len(table) > maxsize:
        del table[next(iter(table))]

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
- an *equal document*, by its exact JSON text: the bytes it was given as, before anything else,
  then the canonical text (keys sorted) that the intake measure writes: the same text is the
  same document, and equal documents in any key order have one canonical text.
"""

from __future__ import annotations

import itertools
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


class _Tally:
    """A count bumped without a lock (``next`` on an ``itertools.count`` is one native step) and
    read under the cache's lock: a count's next value is how many it has given, the bumps and
    one per read."""

    __slots__ = ("_reads", "bump", "_count")

    def __init__(self) -> None:
        self._count = itertools.count()
        self.bump: Callable[[], int] = self._count.__next__
        self._reads = 0

    def read(self) -> int:
        value = next(self._count) - self._reads
        self._reads += 1
        return value


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
        # Hits found before the fingerprint, and compiles with the cache off, counted without the
        # lock: taking it cost a tenth of such a hit.
        self._early_hits = _Tally()
        self._uncached = _Tally()
        # The lookups before the fingerprint: read without the lock (a dict read is atomic),
        # bounded, oldest entry out first. Each names the fingerprint of its value, which must
        # still be in the cache: what the cache evicted is compiled again.
        self._by_text: _Recent[tuple[bytes, T]] = _Recent(2 * maxsize)  # the text given, and the canonical one
        self._by_value: _Recent[tuple[bytes, T]] = _Recent(_SERIALISATIONS * maxsize)

    @property
    def enabled(self) -> bool:
        return self._entries is not None

    def find_text(self, text: bytes) -> T | None:
        """The value remembered for this exact JSON text."""
        return self.find_value(text, self._by_text)

    def find_value(self, packed: bytes, table: _Recent[tuple[bytes, T]] | None = None) -> T | None:
        """The value remembered for a document that serialises to these exact ``marshal`` bytes
        (or for the key in ``table``: one frame for both lookups, on the path of every hit)."""
        entry = (self._by_value if table is None else table).get(packed)
        if entry is None or entry[0] not in self._live:
            return None
        self._early_hits.bump()
        if _metrics.hooks:
            _metrics.emit(_metrics.CacheEvent("hit"))
        return entry[1]

    def remember(
        self,
        key: bytes,
        value: T,
        *,
        text: bytes | None = None,
        canonical: bytes | None = None,
        packed: bytes | None = None,
    ) -> None:
        """Find ``value`` (cached under ``key``) again by ``text`` and ``canonical`` (JSON texts) and
        by ``packed`` (a serialisation)."""
        if self._entries is None:
            return
        with self._lock:
            if text is not None:
                self._by_text.put(text, (key, value))
            if canonical is not None and canonical != text:
                self._by_text.put(canonical, (key, value))
            if packed is not None:
                self._by_value.put(packed, (key, value))

    def get_or_compile(self, key: bytes, compile: Callable[[], T]) -> T:
        """The cached value for ``key``, or ``compile()``'s result, stored. Exceptions are not stored."""
        entries = self._entries
        if entries is None:
            self._uncached.bump()
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
            hits = self._hits + self._early_hits.read()
            return CacheStats(hits=hits, misses=self._misses + self._uncached.read(), size=size, maxsize=self._maxsize)

    def clear(self) -> None:
        with self._lock:
            if self._entries is not None:
                self._entries.clear()
            self._live.clear()
            self._by_text = _Recent(2 * self._maxsize)
            self._by_value = _Recent(_SERIALISATIONS * self._maxsize)


# Serialisations kept per cached schema: its own, and those of equal copies that serialise
# differently (`marshal` marks shared objects by reference count) or changed when the schema's
# first decode made its msgspec translation. With one per schema, 612 corpus schemas in a
# 1,024-entry table pushed each other's out and every copy fell through to the text lookup.
_SERIALISATIONS = 4

V = TypeVar("V")


class _Recent(Generic[V]):
    """A bounded table keyed by bytes (oldest entry out first) whose lookup of a key equal to one
    it holds hashes nothing: each length names the newest keys of that length, whose hashes the
    table's own objects keep, so an equal key is a comparison or two away. Hashing a serialisation
    afresh was a tenth of a cache hit. Lengths rarely collide among the schemas of one engine (the
    serialisations of one schema and of its equal copies often do, hence a few per length); a key
    not among them falls back to the hashed lookup."""

    __slots__ = ("_by_length", "_entries", "_maxsize")

    def __init__(self, maxsize: int) -> None:
        self._entries: dict[bytes, V] = {}
        self._by_length: dict[int, tuple[bytes, ...]] = {}
        self._maxsize = maxsize

    def get(self, key: bytes) -> V | None:
        for held in self._by_length.get(len(key), ()):
            if held == key:
                return self._entries.get(held)
        return self._entries.get(key)

    def put(self, key: bytes, value: V) -> None:
        """Under the cache's lock."""
        entries = self._entries
        entries.pop(key, None)  # re-inserted last: the newest
        entries[key] = value
        by_length = self._by_length
        size = len(key)
        held = by_length.get(size, ())
        if key not in held:
            by_length[size] = (key, *held[: _PER_LENGTH - 1])
        while len(entries) > self._maxsize:
            del entries[next(iter(entries))]
        if len(by_length) > self._maxsize:  # lengths of keys gone: start again from the newest
            by_length.clear()
            by_length[size] = (key,)

    def __len__(self) -> int:
        return len(self._entries)


_PER_LENGTH = 4  # keys remembered per length

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
from typing import Any, Generic, TypeVar

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
        self._by_text: _Recent[T] = _Recent(2 * maxsize, self._live, self._early_hits)
        self._by_value: _Recent[T] = _Recent(_SERIALISATIONS * maxsize, self._live, self._early_hits)
        self._bind_lookups()

    def _bind_lookups(self) -> None:
        # The tables' own methods, so that a hit is one frame below the caller's.
        self.find_text: Callable[[bytes], T | None] = self._by_text.find
        """The value remembered for this exact JSON text (the text given, or the canonical one)."""
        self.find_value: Callable[[bytes], T | None] = self._by_value.find
        """The value remembered for a document that serialises to these exact ``marshal`` bytes."""

    @property
    def enabled(self) -> bool:
        return self._entries is not None

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
            self._by_text = _Recent(2 * self._maxsize, self._live, self._early_hits)
            self._by_value = _Recent(_SERIALISATIONS * self._maxsize, self._live, self._early_hits)
            self._bind_lookups()


# Serialisations kept per cached schema: its own, and those of equal copies that serialise
# differently (`marshal` marks shared objects by reference count) or changed when the schema's
# first decode made its msgspec translation. With one per schema, 612 corpus schemas in a
# 1,024-entry table pushed each other's out and every copy fell through to the text lookup.
_SERIALISATIONS = 4


class _Recent(Generic[T]):
    """A bounded table of cached values keyed by bytes (oldest entry out first), each value with
    the fingerprint it is cached under, whose lookup of a key equal to one it holds hashes
    nothing: each length names the newest keys of that length and their entries, so an equal key
    is a few comparisons away (hashing a serialisation afresh was a tenth of a cache hit).
    Lengths rarely collide among the schemas of one engine (the serialisations of one schema and
    of its equal copies often do, hence a few per length); a key not among them falls back to the
    hashed lookup. A value whose fingerprint the cache no longer holds (evicted) is not found."""

    __slots__ = ("_by_length", "_entries", "_hits", "_live", "_maxsize")

    def __init__(self, maxsize: int, live: dict[bytes, T], hits: _Tally) -> None:
        self._entries: dict[bytes, tuple[bytes, T]] = {}
        # length -> (the newest keys of that length, their entries, in the same order)
        self._by_length: dict[int, tuple[tuple[bytes, ...], tuple[tuple[bytes, T], ...]]] = {}
        self._maxsize = maxsize
        self._live = live
        self._hits = hits.bump

    def find(self, key: bytes) -> T | None:
        """The value remembered for ``key``, counted as a hit; ``None`` if there is none (read
        without the lock: each step is one atomic read)."""
        keys, entries = self._by_length.get(len(key), _NOTHING)
        try:
            entry: tuple[bytes, T] | None = entries[keys.index(key)]
        except ValueError:
            entry = self._entries.get(key)
        if entry is None or entry[0] not in self._live:
            return None
        self._hits()
        if _metrics.hooks:
            _metrics.emit(_metrics.CacheEvent("hit"))
        return entry[1]

    def put(self, key: bytes, value: tuple[bytes, T]) -> None:
        """Under the cache's lock."""
        entries = self._entries
        entries.pop(key, None)  # re-inserted last: the newest
        entries[key] = value
        keys, values = self._without(key)
        by_length = self._by_length
        by_length[len(key)] = ((key, *keys[: _PER_LENGTH - 1]), (value, *values[: _PER_LENGTH - 1]))
        while len(entries) > self._maxsize:
            oldest = next(iter(entries))
            del entries[oldest]
            rest = self._without(oldest)  # nor kept beside its length
            if rest[0]:
                by_length[len(oldest)] = rest
            else:
                by_length.pop(len(oldest), None)
        if len(by_length) > self._maxsize:  # lengths of keys gone: start again from the newest
            by_length.clear()
            by_length[len(key)] = ((key,), (value,))

    def _without(self, key: bytes) -> tuple[tuple[bytes, ...], tuple[tuple[bytes, T], ...]]:
        """The keys held beside ``key``'s length and their entries, ``key``'s taken out."""
        keys, values = self._by_length.get(len(key), _NOTHING)
        if key in keys:
            at = keys.index(key)
            return keys[:at] + keys[at + 1 :], values[:at] + values[at + 1 :]
        return keys, values

    def __len__(self) -> int:
        return len(self._entries)


_NOTHING: tuple[tuple[Any, ...], tuple[Any, ...]] = ((), ())
# Keys remembered per length. Small schemas collide most: with 4, 22 of the corpus's 168 smallest
# fell back to the hashed lookup (and its `ValueError`), a fifth of their hit; a comparison with a
# key of the same length that differs costs a few nanoseconds.
_PER_LENGTH = 16

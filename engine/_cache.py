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

Bounded in memory as well as in entries: a compiled schema holds several times its text (its
native validator, snapshot and keys), and up to some ten megabytes for one of the largest schemas
the guard admits, so a thousand distinct hostile schemas would have kept gigabytes. Each entry
weighs what :func:`estimated_bytes` says of its text, and the oldest go first past
``max_bytes``; the tables before the fingerprint keep the fingerprint alone (never a compiled
schema the cache let go) and a bounded share of ``max_bytes`` in keys.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

import cachetools
import msgspec

from . import _metrics

__all__ = ["CacheStats", "CompileCache", "estimated_bytes"]

T = TypeVar("T")
_UNBOUNDED = 1 << 62  # a weight no cache reaches


class CacheStats(msgspec.Struct, frozen=True):
    hits: int
    misses: int
    size: int
    maxsize: int


def estimated_bytes(text: bytes, values: int = -1, containers: int = 0) -> int:
    """What a schema compiled from this JSON ``text`` may hold in memory, over-estimated: four
    bytes per byte of text (an ``enum`` of 9,800 long strings, 1 MB of text, holds 6.5 MB) and
    512 per value (a subschema holds 260-940 bytes of native validator: 9,750 ``{}`` in 30 KB of
    text held 3.1 MB, as many ``{"type": "string"}`` 9.1 MB): the ``values`` its arrays and objects
    hold and its ``containers``, where the intake counted them, else its commas and opening
    brackets, string contents included (a C pass over the text: 1-2 ns a byte), which come to no
    more."""
    if values < 0:
        values, containers = len(text) - len(text.translate(None, b",{[")), 0
    return 4 * len(text) + 512 * (values + containers)


class _LRU(cachetools.LRUCache[bytes, T]):
    def __init__(self, maxsize: int, live: dict[bytes, T], max_bytes: int) -> None:
        super().__init__(maxsize)
        self.live = live
        """The same entries as a plain dict, for the lookups that read without the lock."""
        self.max_bytes = max_bytes
        self.weights: dict[bytes, int] = {}
        self.held = 0  # the weights of the entries held, in all

    def keep(self, key: bytes, value: T, weight: int) -> None:
        """Store ``value`` (a new key), unless its weight alone is over the bound; the oldest
        entries go first past either bound."""
        if weight > self.max_bytes:
            return
        self[key] = value  # past `maxsize` entries, cachetools makes room first
        self.live[key] = value
        self.weights[key] = weight
        self.held += weight
        while self.held > self.max_bytes:
            self.popitem()

    def popitem(self) -> tuple[bytes, T]:
        item = super().popitem()  # cachetools calls this to make room: an eviction
        self.live.pop(item[0], None)
        self.held -= self.weights.pop(item[0], 0)
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
    def __init__(self, maxsize: int, max_bytes: int = _UNBOUNDED) -> None:
        """At most ``maxsize`` entries weighing ``max_bytes`` in all (see :func:`estimated_bytes`);
        nothing is kept when either is 0."""
        # What the LRU holds, as a plain dict: whether a fingerprint is still cached is one native
        # lookup (kept in step with the LRU under the lock).
        self._live: dict[bytes, T] = {}
        kept = maxsize > 0 and max_bytes > 0
        self._entries: _LRU[T] | None = _LRU(maxsize, self._live, max_bytes) if kept else None
        self._maxsize = maxsize
        self._max_bytes = max_bytes
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
        self._new_tables()

    def _new_tables(self) -> None:
        maxsize, key_bytes = self._maxsize, self._max_bytes // _KEY_SHARE
        self._by_text: _Recent[T] = _Recent(2 * maxsize, self._live, self._early_hits, key_bytes)
        self._by_value: _Recent[T] = _Recent(_SERIALISATIONS * maxsize, self._live, self._early_hits, key_bytes)
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
            if self._live.get(key) is not value:  # not kept (too heavy), or gone since
                return
            if text is not None:
                self._by_text.put(text, key)
            if canonical is not None and canonical != text:
                self._by_text.put(canonical, key)
            if packed is not None:
                self._by_value.put(packed, key)

    def get_or_compile(self, key: bytes, compile: Callable[[], T], weigh: Callable[[T], int] | None = None) -> T:
        """The cached value for ``key``, or ``compile()``'s result, stored with what ``weigh`` says
        it holds in memory (see :func:`estimated_bytes`). Exceptions are not stored. The events of
        the look-up and of the compile reach the hooks once no lock is held."""
        # Held back whether or not a hook listens now: one added while this compile runs is
        # handed what it emits only once no lock is held.
        held = _metrics.hold()
        try:
            return self._get_or_compile(key, compile, weigh)
        finally:
            if held:
                _metrics.release()

    def _get_or_compile(self, key: bytes, compile: Callable[[], T], weigh: Callable[[T], int] | None) -> T:
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
                weight = 0 if weigh is None else weigh(value)  # outside the lock: it reads the value
                with self._lock:
                    entries.keep(key, value, weight)
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
            self._new_tables()


# Serialisations kept per cached schema: its own, and those of equal copies that serialise
# differently (`marshal` marks shared objects by reference count) or changed when the schema's
# first decode made its msgspec translation. With one per schema, 612 corpus schemas in a
# 1,024-entry table pushed each other's out and every copy fell through to the text lookup.
_SERIALISATIONS = 4
# The share of `max_bytes` each table before the fingerprint may hold in keys (JSON texts and
# serialisations of cached schemas, besides what the entries weigh).
_KEY_SHARE = 8


class _Recent(Generic[T]):
    """A bounded table of the fingerprints of cached values keyed by bytes (oldest entry out
    first), whose lookup of a key equal to one it holds hashes nothing: each length names the
    newest keys of that length and their fingerprints, so an equal key is a few comparisons away
    (hashing a serialisation afresh was a tenth of a cache hit). Lengths rarely collide among the
    schemas of one engine (the serialisations of one schema and of its equal copies often do,
    hence a few per length); a key not among them falls back to the hashed lookup. The value is
    read from the cache's live entries: one the cache let go is neither found nor kept alive here
    (a table that kept values held up to six times the cache's entries). At most ``maxsize``
    keys of ``max_bytes`` in all."""

    __slots__ = ("_by_length", "_bytes", "_entries", "_hits", "_live", "_max_bytes", "_maxsize")

    def __init__(self, maxsize: int, live: dict[bytes, T], hits: _Tally, max_bytes: int = _UNBOUNDED) -> None:
        self._entries: dict[bytes, bytes] = {}
        # length -> (the newest keys of that length, their fingerprints, in the same order)
        self._by_length: dict[int, tuple[tuple[bytes, ...], tuple[bytes, ...]]] = {}
        self._maxsize = maxsize
        self._max_bytes = max_bytes
        self._bytes = 0  # the keys' lengths, in all
        self._live = live
        self._hits = hits.bump

    def find(self, key: bytes) -> T | None:
        """The value remembered for ``key``, counted as a hit; ``None`` if there is none (read
        without the lock: each step is one atomic read)."""
        keys, fingerprints = self._by_length.get(len(key), _NOTHING)
        try:
            fingerprint: bytes | None = fingerprints[keys.index(key)]
        except ValueError:
            fingerprint = self._entries.get(key)
        if fingerprint is None:
            return None
        value = self._live.get(fingerprint)
        if value is None:
            return None
        self._hits()
        if _metrics.hooks:
            _metrics.emit(_metrics.CacheEvent("hit"))
        return value

    def put(self, key: bytes, fingerprint: bytes) -> None:
        """Under the cache's lock. A key longer than the table's bytes is not kept."""
        if len(key) > self._max_bytes:
            return
        entries = self._entries
        if entries.pop(key, None) is not None:  # re-inserted last: the newest
            self._bytes -= len(key)
        entries[key] = fingerprint
        self._bytes += len(key)
        keys, fingerprints = self._without(key)
        by_length = self._by_length
        by_length[len(key)] = ((key, *keys[: _PER_LENGTH - 1]), (fingerprint, *fingerprints[: _PER_LENGTH - 1]))
        while len(entries) > self._maxsize or self._bytes > self._max_bytes:
            oldest = next(iter(entries))
            del entries[oldest]
            self._bytes -= len(oldest)
            rest = self._without(oldest)  # nor kept beside its length
            if rest[0]:
                by_length[len(oldest)] = rest
            else:
                by_length.pop(len(oldest), None)
        if len(by_length) > self._maxsize:  # lengths of keys gone: start again from the newest
            by_length.clear()
            by_length[len(key)] = ((key,), (fingerprint,))

    def _without(self, key: bytes) -> tuple[tuple[bytes, ...], tuple[bytes, ...]]:
        """The keys held beside ``key``'s length and their fingerprints, ``key``'s taken out."""
        keys, fingerprints = self._by_length.get(len(key), _NOTHING)
        if key in keys:
            at = keys.index(key)
            return keys[:at] + keys[at + 1 :], fingerprints[:at] + fingerprints[at + 1 :]
        return keys, fingerprints

    def __len__(self) -> int:
        return len(self._entries)


_NOTHING: tuple[tuple[Any, ...], tuple[Any, ...]] = ((), ())
# Keys remembered per length. Small schemas collide most: with 4, 22 of the corpus's 168 smallest
# fell back to the hashed lookup (and its `ValueError`), a fifth of their hit; a comparison with a
# key of the same length that differs costs a few nanoseconds.
_PER_LENGTH = 16

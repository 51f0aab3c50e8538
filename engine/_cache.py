"""Stage 6: compiled validators, kept by a fingerprint of what determines them.

Bounded (LRU), thread-safe, and single-flight: when several threads ask for the same schema at
once, one compiles and the others wait for its result, so a schema is compiled once.
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

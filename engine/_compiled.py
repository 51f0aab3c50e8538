"""What ``Engine.compile`` returns: a small object reused on every call of the hot path."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from ._config import Limits
from ._decode import brackets, check_depth, decode_json
from ._dialect import Dialect
from ._errors import DecodeError, DecodeReason, Issue, ValidationFailed
from ._explain import EXPLAIN_FRAMES, explain
from ._guard import GuardReport
from .backends import BackendValidator, TypedDecode

_decode = msgspec.json.decode

__all__ = ["EVAL_FRAMES", "EXPLAIN_FRAMES", "CompiledSchema", "depth_bound"]

# How many schema applications jsonschema-rs may nest (instance depth x the schema's evaluation
# depth) before its native stack is at risk, measured on a 1 MiB thread stack (the main thread
# has 8 MiB) with plain and anyOf-nested recursion: `is_valid` first crashed at 8192 frames, the
# error path (`iter_errors`, which builds nested error contexts) at 1024 (``EXPLAIN_FRAMES``, kept
# with the explanation in ``_explain``). Each bound keeps a factor of two below.
EVAL_FRAMES = 4096


def depth_bound(guard: GuardReport | None, limits: Limits) -> int | None:
    """The deepest instance a schema is run on, or ``None`` when no instance can take the
    validator deeper than its safe stack (no recursion, and no chain of references longer than
    ``EXPLAIN_FRAMES``)."""
    if guard is None or (not guard.recursive and guard.max_chain <= EXPLAIN_FRAMES):
        return None
    return max(1, min(limits.max_instance_depth, EVAL_FRAMES // max(guard.eval_depth, 1)))


class CompiledSchema:
    """A schema compiled once, validated many times.

    ``is_valid`` answers yes or no on the fast path. ``validate`` and ``decode`` raise
    :class:`~engine.ValidationFailed` with every issue (up to ``limits.max_issues``), explained by
    a reference-quality backend.
    """

    __slots__ = (
        "_checker",
        "_depth_bound",
        "_decode_typed",
        "_explainer",
        "_fallback",
        "_limits",
        "_max_bytes",
        "_max_depth",
        "_plain_check",
        "backend",
        "dialect",
        "fingerprint",
        "guard",
        "is_valid",
        "notes",
        "schema",
        "typed",
    )

    is_valid: Callable[[Any], bool]
    """Whether an instance conforms. Against a recursive schema an instance nesting deeper than
    the schema's depth bound raises ``DecodeError(too-deep)`` instead (never an answer).

    Where nothing needs checking before or after the backend (no depth bound, no fallback), this
    is the backend's own native method: no Python frame on the hot path."""

    def __init__(
        self,
        *,
        schema: Any,
        dialect: Dialect,
        backend: str,
        checker: BackendValidator,
        explainer: BackendValidator,
        fallback: BackendValidator | None,
        limits: Limits,
        fingerprint: bytes,
        notes: dict[str, str] | None = None,
        decoder: Callable[[bytes | bytearray | memoryview | str], Any] | None = None,
        guard: GuardReport | None = None,
        typed: TypedDecode | None = None,
    ) -> None:
        self.schema = schema
        self.dialect = dialect
        self.backend = backend
        self.fingerprint = fingerprint
        self.notes: dict[str, str] = notes or {}
        """Why faster backends refused this schema, by backend name (from ``auto``)."""
        self._checker = checker
        self._explainer = explainer
        # A checker that may reject valid instances (msgspec's typed path) has a general fallback
        # that gets the last word on every "no".
        self._fallback = fallback
        # A typed one-pass decoder from another backend than the checker (msgspec decodes bytes,
        # the general backend checks Python objects faster than msgspec.convert does).
        self._decode_typed = decoder if decoder is not None else checker.decode
        self.typed = typed
        """The msgspec type the one-pass decoder parses into (see the plan), or ``None``."""
        self._limits = limits
        self.guard = guard
        """What the guard measured (each limit's value, recursion, fan-out), or ``None``."""
        # Only a recursive schema lets the backend descend as deep as the instance: only then are
        # Python objects depth-checked, so the hot path of every other schema has no extra walk.
        self._depth_bound = depth_bound(guard, limits)
        self._max_bytes = limits.max_instance_bytes
        self._max_depth = self._depth_bound or limits.max_instance_depth
        plain = self._depth_bound is None and fallback is None
        self._plain_check: Callable[[Any], bool] | None = checker.is_valid if plain else None
        self.is_valid = checker.is_valid if plain else self._guarded_is_valid

    def __repr__(self) -> str:
        return f"<CompiledSchema backend={self.backend!r} dialect={self.dialect.value!r}>"

    def _guarded_is_valid(self, instance: Any) -> bool:
        if self._depth_bound is not None:
            check_depth(instance, self._depth_bound)
        return self._is_valid(instance)

    def _is_valid(self, instance: Any) -> bool:
        if self._checker.is_valid(instance):
            return True
        fallback = self._fallback
        return fallback is not None and fallback.is_valid(instance)

    def validate(self, instance: Any) -> None:
        """Return if ``instance`` conforms; otherwise raise :class:`~engine.ValidationFailed`.

        An object no JSON document decodes to (bytes, a set, a dict with non-string keys...) is a
        ``DecodeError(not-json)``. (``is_valid`` answers on the native path, where such an object
        raises the backend's ``ValueError``.)"""
        try:
            valid = self.is_valid(instance)
        except (ValueError, TypeError) as exc:
            raise DecodeError(DecodeReason.NOT_JSON, f"instance is not a JSON value: {exc}") from None
        if not valid:
            raise self._failure(instance)

    def decode(self, data: bytes | bytearray | memoryview | str) -> Any:
        """Parse JSON ``data`` and validate it; the parsed value is returned."""
        max_depth = self._max_depth
        size = len(data)
        # Within the size cap, and with fewer brackets than the depth bound (so no walk is needed
        # to prove the depth; a document shorter than the bound cannot have more), the common case
        # runs in native code from end to end.
        if size <= self._max_bytes and (size <= max_depth or brackets(data) <= max_depth):
            typed = self._decode_typed
            if typed is not None:
                try:
                    return typed(data)
                except Exception:  # noqa: BLE001 - a typed refusal is re-judged below, never trusted
                    pass
            else:
                check = self._plain_check
                if check is not None:
                    try:
                        value = _decode(data)
                    except Exception:  # noqa: BLE001 - the bounded path below names the reason
                        pass
                    else:
                        if check(value):
                            return value
                        raise self._failure(value)
        value = decode_json(data, max_bytes=self._max_bytes, max_depth=max_depth)
        if not self._is_valid(value):  # the depth was checked while decoding
            raise self._failure(value)
        return value

    def issues(self, instance: Any) -> list[Issue]:
        """Every issue with ``instance`` (empty when valid), capped like ``validate``'s."""
        if self.is_valid(instance):
            return []
        return self._failure(instance).issues

    def _failure(self, instance: Any) -> ValidationFailed:
        # Explanation, bounded in time and memory, lives in one module.
        return explain(
            instance, explainer=self._explainer, guard=self.guard, limits=self._limits, depth_bound=self._depth_bound
        )

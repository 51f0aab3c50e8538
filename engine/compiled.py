"""What ``Engine.compile`` returns: a small object reused on every call of the hot path."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from .backends.base import BackendValidator
from .config import Limits
from .decode import decode_json
from .dialect import Dialect
from .errors import Issue, ValidationFailed

__all__ = ["CompiledSchema"]


class CompiledSchema:
    """A schema compiled once, validated many times.

    ``is_valid`` answers yes or no on the fast path. ``validate`` and ``decode`` raise
    :class:`~engine.ValidationFailed` with every issue (up to ``limits.max_issues``), explained by
    a reference-quality backend.
    """

    __slots__ = ("_checker", "_decode_typed", "_explainer", "_fallback", "_limits", "backend", "dialect", "fingerprint", "notes", "schema")

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
        decoder: Callable[[bytes | str], Any] | None = None,
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
        self._limits = limits

    def __repr__(self) -> str:
        return f"<CompiledSchema backend={self.backend!r} dialect={self.dialect.value!r}>"

    def is_valid(self, instance: Any) -> bool:
        if self._checker.is_valid(instance):
            return True
        fallback = self._fallback
        return fallback is not None and fallback.is_valid(instance)

    def validate(self, instance: Any) -> None:
        """Return if ``instance`` conforms; otherwise raise :class:`~engine.ValidationFailed`."""
        if not self.is_valid(instance):
            raise self._failure(instance)

    def decode(self, data: bytes | bytearray | memoryview | str) -> Any:
        """Parse JSON ``data`` and validate it; the parsed value is returned."""
        typed = self._decode_typed
        if typed is not None and len(data) <= self._limits.max_instance_bytes:
            try:
                return typed(data)
            except Exception:  # noqa: BLE001 - a typed refusal is re-judged below, never trusted
                pass
        value = decode_json(data, max_bytes=self._limits.max_instance_bytes)
        self.validate(value)
        return value

    def issues(self, instance: Any) -> list[Issue]:
        """Every issue with ``instance`` (empty when valid), capped like ``validate``'s."""
        if self.is_valid(instance):
            return []
        return self._failure(instance).issues

    def _failure(self, instance: Any) -> ValidationFailed:
        cap = self._limits.max_issues
        deadline = time.monotonic() + self._limits.max_explain_seconds
        issues: list[Issue] = []
        truncated = False
        for issue in self._explainer.iter_issues(instance):
            if len(issues) >= cap or time.monotonic() > deadline:
                truncated = True
                break
            issues.append(issue)
        if not issues:
            # The fast path said no but the explainer found nothing to say: never report valid.
            issues.append(Issue(instance_path="", keyword_location="", keyword="", message="instance is invalid"))
        return ValidationFailed(issues, truncated=truncated)

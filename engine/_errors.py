"""One hierarchy of errors, each with a machine-readable reason and a sentence a person can act on.

``SchemaRejected`` is raised at compile time, ``ValidationFailed`` and ``DecodeError`` at validation
time. Every error the engine raises on purpose derives from ``EngineError``.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import msgspec

__all__ = [
    "BackendUnavailable",
    "DecodeError",
    "DecodeReason",
    "EngineError",
    "Issue",
    "RejectReason",
    "SchemaRejected",
    "UnknownTool",
    "ValidationFailed",
]


class RejectReason(StrEnum):
    """Why a schema was refused at compile time (compares equal to its string value)."""

    UNSUPPORTED_DIALECT = "unsupported-dialect"
    INVALID_SCHEMA = "invalid-schema"
    REMOTE_REF = "remote-ref"
    UNRESOLVABLE_REF = "unresolvable-ref"
    LIMIT_EXCEEDED = "limit-exceeded"
    UNSAFE_PATTERN = "unsafe-pattern"
    UNSUPPORTED_BY_BACKEND = "unsupported-by-backend"


class DecodeReason(StrEnum):
    """Why bytes (or a Python object handed in) could not become a JSON value."""

    MALFORMED_JSON = "malformed-json"
    INVALID_UTF8 = "invalid-utf8"
    TOO_LARGE = "too-large"
    TOO_DEEP = "too-deep"
    NUMBER_OUT_OF_RANGE = "number-out-of-range"
    NON_FINITE_NUMBER = "non-finite-number"  # NaN / Infinity: not JSON
    NOT_JSON = "not-json"  # a Python object handed in that no JSON document decodes to


class Issue(msgspec.Struct, frozen=True, kw_only=True):
    """One reason an instance is invalid.

    ``instance_path`` and ``keyword_location`` are JSON pointers (RFC 6901): where in the instance,
    and which keyword of the schema (as reached from the root, through ``$ref`` s) said no.
    """

    instance_path: str
    keyword_location: str
    keyword: str
    message: str


MAX_ERROR_MESSAGE = 2_000
"""The longest message an error keeps: one quoting a schema's or a peer's value (a 500 KB
``$ref``, a tool name of a megabyte) is cut in its middle, its end (which says why) kept."""


def bounded_message(message: str) -> str:
    """``message``, or where it is longer than :data:`MAX_ERROR_MESSAGE`, its start and its end
    around a note of how much was cut."""
    if len(message) <= MAX_ERROR_MESSAGE:
        return message
    head, tail = MAX_ERROR_MESSAGE * 3 // 5, MAX_ERROR_MESSAGE // 4
    return f"{message[:head]} ... ({len(message) - head - tail} characters cut) ... {message[-tail:]}"


class EngineError(Exception):
    """Base of every error the engine raises on purpose."""

    reason: str

    def __init__(self, message: str) -> None:
        message = bounded_message(message)
        super().__init__(message)
        self.message = message

    def __reduce__(self) -> tuple[Any, ...]:
        # Every attribute as it is, the subclass kept, no `__init__` run again: the default passes
        # the message where each subclass's own arguments go (issues, a reason, a tool's name), so
        # a failure raised in another process (a process pool's worker) did not arrive at all.
        return (_rebuilt, (type(self), self.args), self.__dict__)


def _rebuilt(kind: type[EngineError], args: tuple[Any, ...]) -> EngineError:
    error: EngineError = Exception.__new__(kind, *args)
    return error


class SchemaRejected(EngineError):
    """A schema was refused at compile time.

    ``reason`` is a :class:`RejectReason`; ``location`` a JSON pointer into the schema where known;
    ``details`` holds reason-specific facts (for ``limit-exceeded``: ``limit``, ``measured``,
    ``bound``; for ``remote-ref``: ``uri``; for ``invalid-schema``: the meta-schema errors).
    """

    reason: RejectReason

    def __init__(
        self,
        reason: RejectReason,
        message: str,
        *,
        location: str | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.reason = RejectReason(reason)
        self.location = location
        self.details = details or {}

    def to_dict(self) -> dict[str, Any]:
        return {
            "reason": str(self.reason),
            "message": self.message,
            "location": self.location,
            "details": self.details,
        }


class BackendUnavailable(EngineError):
    """The configured backend's package is not installed."""

    reason = "backend-unavailable"


class ValidationFailed(EngineError):
    """An instance does not conform to its schema.

    ``issues`` lists every issue found, up to the configured cap; ``truncated`` says whether the list
    was cut (by the issue cap or the explanation budget).
    """

    reason = "invalid-instance"

    def __init__(self, issues: list[Issue], *, truncated: bool = False) -> None:
        self.issues = issues
        self.truncated = truncated
        if issues:
            first = issues[0]
            message = f"invalid at {first.instance_path or 'the root'}: {first.message}"
            more = len(issues) - 1
            if more:
                plural = "s" if more != 1 else ""
                message += f" (and {more} more issue{plural}{', list truncated' if truncated else ''})"
            elif truncated:
                message += " (list truncated)"
        else:
            message = "instance is invalid"
        if len(message) > MAX_ERROR_MESSAGE:  # a path through a key of a megabyte, say
            message = bounded_message(message)
        # `EngineError.__init__` inline: the error path of every invalid instance builds one.
        Exception.__init__(self, message)
        self.message = message

    def under(self, location: str) -> ValidationFailed:
        """The same failure seen from a document that holds the instance at ``location`` (a JSON
        pointer): every issue's ``instance_path`` prefixed with it."""
        issues = [
            Issue(
                instance_path=location + issue.instance_path,
                keyword_location=issue.keyword_location,
                keyword=issue.keyword,
                message=issue.message,
            )
            for issue in self.issues
        ]
        return ValidationFailed(issues, truncated=self.truncated)

    def to_dict(self) -> dict[str, Any]:
        return {
            "reason": self.reason,
            "message": self.message,
            "issues": msgspec.to_builtins(self.issues),
            "truncated": self.truncated,
        }


class DecodeError(EngineError):
    """Bytes that are not an acceptable JSON document; ``reason`` is a :class:`DecodeReason`."""

    def __init__(self, reason: DecodeReason, message: str) -> None:
        # `EngineError.__init__` inline, and the reason taken as it is where it is one already
        # (every refused document builds one: a hostile stream of them is the hot path).
        if len(message) > MAX_ERROR_MESSAGE:  # a type's name of a megabyte, say
            message = bounded_message(message)
        Exception.__init__(self, message)
        self.message = message
        self.reason = reason if type(reason) is DecodeReason else DecodeReason(reason)


JSONRPC_INVALID_PARAMS = -32602


class UnknownTool(EngineError):
    """A tool name that is not in the tool set; MCP answers it with JSON-RPC -32602 (invalid params)."""

    reason = "unknown-tool"
    code = JSONRPC_INVALID_PARAMS

    def __init__(self, name: str) -> None:
        super().__init__(f"unknown tool: {name!r}")
        self.name = name

    def to_jsonrpc_error(self) -> dict[str, Any]:
        """The ``error`` member of a JSON-RPC response (the name in ``data`` at most
        :data:`NAME_ECHOED` characters, a lone surrogate, which no UTF-8 spells, as U+FFFD)."""
        return {"code": self.code, "message": self.message, "data": {"reason": self.reason, "tool": _echoed(self.name)}}


NAME_ECHOED = 1024
"""The most characters of an unknown tool's name a JSON-RPC error echoes: a caller's name may be
any size (10 MB in, 10 MB out)."""


def _echoed(name: Any) -> Any:
    if not isinstance(name, str):
        return name
    name = name[:NAME_ECHOED]
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        name = "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in name)
    return name

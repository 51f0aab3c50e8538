"""The contract between the pipeline and a backend.

The pipeline hands a backend a :class:`SchemaSource` that has already passed intake, the dialect
check and the guard. The backend either compiles it into a :class:`BackendValidator` that honours
the schema *exactly* under its dialect, or refuses with :func:`refuse` and a reason.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from typing import Any, ClassVar, NamedTuple

import msgspec

from .._config import EngineConfig
from .._dialect import Dialect
from .._errors import Issue, RejectReason, SchemaRejected

__all__ = [
    "Backend",
    "BackendRefused",
    "BackendValidator",
    "Refusal",
    "SchemaSource",
    "TypedDecode",
    "late",
    "refuse",
    "spells",
]


class SchemaSource(msgspec.Struct, frozen=True):
    """A schema ready for a backend: checked, with everything it may reference."""

    schema: Any
    """The root schema (``dict`` or ``bool``), ``$schema`` spelled canonically."""
    dialect: Dialect
    resources: Mapping[str, Any]
    """Every external resource ``$ref`` may reach, by URI: the caller's registry (and, in opt-in
    fetch mode, what was fetched at compile time). Backends never retrieve anything else."""
    config: EngineConfig
    facts: Any = None
    """What the guard measured (``engine._guard.GuardReport``), or ``None``."""
    text: bytes | None = None
    """The JSON text of the schema as given (keys in any order; ``$schema`` as written), where the
    pipeline encoded it already: a backend searching the schema's strings reads it instead of
    encoding the schema again."""
    cleared: bool = False
    """The guard cleared the document by its canonical text (``engine._guard.cleared``): among
    other things, it holds no ``pattern`` or ``patternProperties`` keyword and no resource."""
    pinned: Callable[[], Any] | None = None
    """Where ``schema`` is the caller's own object (which they may change after compile time), a
    function returning a private copy of it as it was at compile time; ``None`` where the schema
    is the pipeline's own (parsed here from bytes or text, or copied by intake). Whatever reads
    the schema after compile time reads :func:`late` of the source."""


def late(source: SchemaSource) -> SchemaSource:
    """``source`` as read after compile time: its schema a private copy where it is the caller's
    own object (see ``SchemaSource.pinned``)."""
    pinned = source.pinned
    return source if pinned is None else msgspec.structs.replace(source, schema=pinned(), pinned=None)


def spells(source: SchemaSource, keys: tuple[bytes, ...]) -> bool:
    """Whether ``source`` may hold one of ``keys`` (JSON-encoded, quotes included) as a keyword:
    its text spells it (as a keyword or any string: a guess on the safe side), or it has
    resources."""
    text = source.text if source.text is not None else msgspec.json.encode(source.schema)
    return bool(source.resources) or any(text.find(key) >= 0 for key in keys)


class BackendRefused(SchemaRejected):
    """A backend cannot honour this schema exactly; ``auto`` tries the next backend."""

    def __init__(self, backend: str, why: str, *, location: str | None = None) -> None:
        super().__init__(
            RejectReason.UNSUPPORTED_BY_BACKEND,
            f"backend {backend!r} cannot validate this schema exactly: {why}",
            location=location,
            details={"backend": backend, "why": why},
        )
        self.backend = backend
        self.why = why


class Refusal(NamedTuple):
    """Why a backend will not take a schema (see :meth:`Backend.refusal`)."""

    why: str
    location: str | None = None


def refuse(backend: str, why: str, *, location: str | None = None) -> BackendRefused:
    return BackendRefused(backend, why, location=location)


class TypedDecode(NamedTuple):
    """The msgspec type a one-pass ``decode`` parses into, for a caller that embeds it in a larger
    typed document (the MCP layer decodes a whole ``CallToolResult`` in one pass with it)."""

    type: Any
    to_builtins: bool
    """Its values hold Structs, which ``msgspec.to_builtins`` turns into plain JSON values."""


class BackendValidator(ABC):
    """A schema compiled by one backend."""

    decode: Callable[[bytes | bytearray | memoryview | str], Any] | None = None
    """Optional: parse *and* validate bytes in one pass, raising on anything invalid. A backend
    that sets this may be stricter than the schema (the pipeline re-checks a refusal on the
    general path) but never laxer."""
    typed: TypedDecode | None = None
    """Optional, with ``decode``: the msgspec type it decodes into."""

    def refused(self) -> str | None:
        """Why this backend does not take the schema after all, or ``None``: for a validator that
        :meth:`Backend.deferred` made, the decision, run once on first use."""
        return None

    @abstractmethod
    def is_valid(self, instance: Any) -> bool:
        """Whether ``instance`` conforms. Must never answer ``True`` wrongly."""

    @abstractmethod
    def iter_issues(self, instance: Any) -> Iterator[Issue]:
        """Every issue with ``instance``, lazily (the caller caps how many it reads)."""


class Backend(ABC):
    """A way to compile schemas; one instance per engine.

    What a backend can do is declared here, as class attributes, and read by the one place that
    plans backends (:func:`engine._plan.plan`); nothing else looks a backend up by name.
    """

    name: ClassVar[str]
    dialects: ClassVar[frozenset[Dialect]]
    explains: ClassVar[bool] = True
    """Whether ``iter_issues`` gives reference-quality issues (paths and keyword locations)."""
    general: ClassVar[bool] = False
    """Compiles every schema the guard lets through, exactly, in bounded time: it proves the
    references resolve, explains the failures of backends that do not explain, and re-checks every
    "no" of a strict one-pass decoder. Exactly one registered backend is general."""
    backtracking: ClassVar[bool] = False
    """Evaluates the branches of a combinator one after the other: on a schema whose recursion fans
    out (``GuardReport.exponential``) its work grows as ``fan_out ** depth``, so it is refused."""
    checks_objects: ClassVar[bool] = True
    """Its ``is_valid`` is worth using on Python objects. A backend whose strength is only bytes ->
    value (``decode``) leaves Python objects to the general backend."""
    meta_schema_dialects: ClassVar[frozenset[Dialect]] = frozenset()
    """The dialects in which :meth:`compile` raises on every schema its published meta-schema
    refuses (and on no schema it accepts), as :func:`~engine._dialect.check_meta_schema` would.
    Where the general backend declares the schema's dialect, the engine leaves that check to the
    general backend's build, which it runs on every compile anyway."""

    def evaluation_rate(self, source: SchemaSource) -> int:
        """What one evaluation of ``source``'s check costs this backend, in evaluations of
        jsonschema-rs (the unit of ``Limits.max_validation_work``). Past 1, each instance is
        weighed at that rate before the check runs, whatever the schema (``engine._rates``).
        Measured on the shapes that cost the backend most, read off the schema's text: must be
        cheap."""
        return 1

    @abstractmethod
    def compile(self, source: SchemaSource) -> BackendValidator:
        """Compile ``source`` or raise :class:`BackendRefused` (via :func:`refuse`)."""

    def deferred(self, source: SchemaSource) -> BackendValidator | None:
        """Under ``auto``: a validator whose decision to take ``source`` waits until it is first
        used (its :meth:`BackendValidator.refused` runs it), or ``None`` to compile now. Asked only
        of a backend that leaves Python objects to the general backend (``checks_objects`` false)
        and is followed by it: until the decision, and if it refuses then, the general backend
        reads every document alone, so nothing else depends on it."""
        return None

    def refusal(self, source: SchemaSource) -> Refusal | None:
        """Why this backend will not take ``source``, decided before anything is built, or
        ``None`` (then :meth:`compile` may still refuse). Must be cheap next to :meth:`compile`:
        the plan asks every candidate before compiling one, and under ``auto`` keeps only the
        reason (no exception is made for it)."""
        if source.dialect not in self.dialects:
            return Refusal(f"it does not support the {source.dialect.value} dialect")
        if self.backtracking and source.facts is not None and source.facts.exponential:
            return Refusal(f"{source.facts.exponential}; a backend that backtracks cannot bound it")
        return None

    def check_dialect(self, source: SchemaSource) -> None:
        if source.dialect not in self.dialects:
            raise refuse(self.name, f"it does not support the {source.dialect.value} dialect")

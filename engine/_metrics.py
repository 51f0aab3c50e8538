"""Observability: what the engine and its adapters report, and the hooks that receive it.

Off by default and free when off: the core emits only after reading one module attribute
(``hooks``, an empty tuple until a hook is installed), and the validation hot path of
:class:`engine.ToolSet` emits nothing at all; validations are reported by the SDK adapters, which
know the tool, the direction and the side.

A hook is a plain callable taking one event. It runs on the thread that produced the event
(compiles run in worker threads), so it must be quick and thread-safe; an exception it raises is
logged on ``engine.metrics`` and never reaches the caller.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Literal, TypeVar

import msgspec

__all__ = [
    "CacheEvent",
    "CompileEvent",
    "Direction",
    "Event",
    "Hook",
    "LONGEST_TOOL_LABEL",
    "MAX_TOOL_LABELS",
    "OTHER_TOOLS",
    "Recorder",
    "RefusalEvent",
    "Side",
    "Snapshot",
    "ToolLabels",
    "ValidationEvent",
    "add_hook",
    "emit",
    "hooked",
    "remove_hook",
]

MAX_TOOL_LABELS = 1_000
"""The distinct tool names an exporter (or :class:`Recorder`) keeps apart: a host's tools come from
its peers, and a hostile server lists as many names as it likes (100,000 names made as many
Prometheus series and a 24 MB scrape). Later names are counted under :data:`OTHER_TOOLS`."""
LONGEST_TOOL_LABEL = 256
"""The longest tool name kept as a label; a longer one, or one holding what a terminal would not
show, is counted under :data:`OTHER_TOOLS`."""
OTHER_TOOLS = "(other)"


class ToolLabels:
    """The tool names one exporter labels its series with: each as it is, up to
    :data:`MAX_TOOL_LABELS` distinct ones of at most :data:`LONGEST_TOOL_LABEL` printable
    characters; any other as :data:`OTHER_TOOLS`. Thread-safe."""

    __slots__ = ("_lock", "_seen")

    def __init__(self) -> None:
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def __call__(self, name: str | None) -> str | None:
        if name is None or name in self._seen:
            return name
        if len(name) > LONGEST_TOOL_LABEL or not name.isprintable():
            return OTHER_TOOLS
        with self._lock:
            if len(self._seen) >= MAX_TOOL_LABELS:
                return OTHER_TOOLS
            self._seen.add(name)
        return name


LOGGER = "engine.metrics"
"""Where a hook's exception is logged (``logging`` is imported then: not on ``import engine``)."""

Direction = Literal["arguments", "result", "elicitation"]
"""What was validated: a tool call's arguments, a tool result's ``structuredContent``, or an
elicitation answer."""

Side = Literal["server", "client"]
"""Which peer validated it."""


class CompileEvent(msgspec.Struct, frozen=True):
    """One schema compiled (a cache miss), or refused while compiling."""

    seconds: float
    backend: str | None
    """The backend that compiled it; ``None`` when it was refused."""
    reason: str | None
    """The refusal reason (``remote-ref``, ``limit-exceeded``, ...); ``None`` when it compiled."""


class CacheEvent(msgspec.Struct, frozen=True):
    """A compile-cache look-up (``hit`` / ``miss``) or an entry pushed out (``eviction``)."""

    outcome: Literal["hit", "miss", "eviction"]


class RefusalEvent(msgspec.Struct, frozen=True):
    """A tool's (or an elicitation form's) schema refused: the tool cannot be used."""

    tool: str | None
    schema: str | None
    """``inputSchema``, ``outputSchema`` or ``requestedSchema``."""
    reason: str
    message: str
    side: Side


class ValidationEvent(msgspec.Struct, frozen=True):
    """One payload validated by an adapter."""

    tool: str | None
    """The tool; ``None`` for an elicitation answer outside a tool call."""
    direction: Direction
    side: Side
    valid: bool
    enforced: bool
    """``False`` in report-only mode: a failure was logged and counted, and the payload passed."""
    seconds: float


Event = CompileEvent | CacheEvent | RefusalEvent | ValidationEvent
Hook = Callable[[Event], None]

hooks: tuple[Hook, ...] = ()
"""The installed hooks. Read, never assigned, outside this module: :func:`add_hook` replaces it."""

_lock = threading.Lock()


def add_hook(hook: Hook) -> None:
    """Install ``hook`` for every engine in the process (installing it twice is a no-op)."""
    global hooks
    with _lock:
        if hook not in hooks:
            hooks = (*hooks, hook)


def remove_hook(hook: Hook) -> None:
    """Uninstall ``hook`` (a hook that is not installed is ignored)."""
    global hooks
    with _lock:
        hooks = tuple(h for h in hooks if h is not hook)


H = TypeVar("H", bound=Hook)
T = TypeVar("T")


@contextmanager
def hooked(hook: H) -> Iterator[H]:
    """``with hooked(Recorder()) as recorder: ...``: the hook installed for the block only."""
    add_hook(hook)
    try:
        yield hook
    finally:
        remove_hook(hook)


_held = threading.local()  # `events`: what this thread emitted while it held a lock of the engine's


def emit(event: Event) -> None:
    """Hand ``event`` to every hook, or, while this thread holds a lock of the engine's (see
    :func:`hold`), once it no longer does. Callers check ``hooks`` first, so nothing is built
    when off."""
    waiting = getattr(_held, "events", None)
    if waiting is not None:
        waiting.append(event)
        return
    stopped: BaseException | None = None
    for hook in hooks:
        try:
            hook(event)
        except Exception:  # a broken exporter must not break validation
            import logging

            logging.getLogger(LOGGER).exception("metrics hook %r raised on %r", hook, event)
        except BaseException as exc:  # (an interrupt, an exit): raised once every hook has the event
            stopped = stopped or exc
    if stopped is not None:
        raise stopped


def hold() -> bool:
    """Hold back the events this thread emits, from here until :func:`release`, around code that
    takes the engine's locks: they reach the hooks after, on the same thread, when no lock is
    held (a hook calling back into the engine, for its cache statistics or another compile, would
    otherwise wait for a lock its own thread holds, and every thread after it for that one).
    ``False`` within another hold, which hands them over (then no :func:`release` is due)."""
    if getattr(_held, "events", None) is not None:
        return False
    _held.events = []
    return True


def release() -> None:
    """Hand the events held back since :func:`hold` to the hooks: every one to every hook, an
    interrupt a hook raised re-raised after."""
    events, _held.events = _held.events, None
    stopped: BaseException | None = None
    for event in events:
        try:
            emit(event)
        except BaseException as exc:  # noqa: BLE001 - raised below, once all are delivered
            stopped = stopped or exc
    if stopped is not None:
        raise stopped


def observed_compile(compile: Callable[[], T]) -> Callable[[], T]:
    """``compile`` timed, its outcome emitted as a :class:`CompileEvent` (only used when hooked)."""

    def run() -> T:
        start = time.perf_counter()
        try:
            value = compile()
        except Exception as exc:
            emit(
                CompileEvent(
                    seconds=time.perf_counter() - start,
                    backend=None,
                    reason=str(getattr(exc, "reason", type(exc).__name__)),
                )
            )
            raise
        emit(CompileEvent(seconds=time.perf_counter() - start, backend=getattr(value, "backend", None), reason=None))
        return value

    return run


class Snapshot(msgspec.Struct, frozen=True):
    """Counts and total seconds, as :class:`Recorder` saw them."""

    compiles: int
    compile_seconds: float
    compile_refusals: dict[str, int]
    cache: dict[str, int]
    refusals: dict[tuple[str | None, str | None, str], int]
    """(tool, schema, reason) -> count."""
    validations: dict[tuple[str | None, str, str, str], int]
    """(tool, direction, side, outcome) -> count, outcome one of ``valid``, ``invalid``,
    ``invalid-reported`` (report-only: logged, counted, passed)."""
    validation_seconds: dict[str, float]
    """direction -> total seconds spent validating."""

    def failures(self, *, direction: str | None = None, tool: str | None = None) -> int:
        """Invalid payloads (enforced or reported), filtered by direction and tool when given."""
        return sum(
            n
            for (t, d, _side, outcome), n in self.validations.items()
            if outcome != "valid" and (direction is None or d == direction) and (tool is None or t == tool)
        )


class Recorder:
    """A hook that keeps counters in memory: ``engine.metrics.add_hook(recorder)``, then
    ``recorder.snapshot()``. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._compiles = 0
        self._compile_seconds = 0.0
        self._compile_refusals: Counter[str] = Counter()
        self._cache: Counter[str] = Counter()
        self._refusals: Counter[tuple[str | None, str | None, str]] = Counter()
        self._validations: Counter[tuple[str | None, str, str, str]] = Counter()
        self._validation_seconds: dict[str, float] = {}
        self._tools = ToolLabels()

    def __call__(self, event: Event) -> None:
        with self._lock:
            if isinstance(event, ValidationEvent):
                outcome = "valid" if event.valid else ("invalid" if event.enforced else "invalid-reported")
                self._validations[(self._tools(event.tool), event.direction, event.side, outcome)] += 1
                seconds = self._validation_seconds
                seconds[event.direction] = seconds.get(event.direction, 0.0) + event.seconds
            elif isinstance(event, CacheEvent):
                self._cache[event.outcome] += 1
            elif isinstance(event, CompileEvent):
                if event.reason is None:
                    self._compiles += 1
                else:
                    self._compile_refusals[event.reason] += 1
                self._compile_seconds += event.seconds
            elif isinstance(event, RefusalEvent):
                self._refusals[(self._tools(event.tool), event.schema, event.reason)] += 1

    def snapshot(self) -> Snapshot:
        with self._lock:
            return Snapshot(
                compiles=self._compiles,
                compile_seconds=self._compile_seconds,
                compile_refusals=dict(self._compile_refusals),
                cache=dict(self._cache),
                refusals=dict(self._refusals),
                validations=dict(self._validations),
                validation_seconds=dict(self._validation_seconds),
            )

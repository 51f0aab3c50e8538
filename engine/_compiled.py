"""What ``Engine.compile`` returns: a small object reused on every call of the hot path."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import msgspec

from ._config import Limits
from ._decode import (
    LEVELS_READ,
    PARSE_REFUSALS,
    SHOWN_LEVELS,
    as_bytes,
    brackets,
    check_depth,
    decode_json,
    levels_parser,
    parse_refusal,
    surely_within,
    too_short_to_nest,
    view_over,
)
from ._dialect import Dialect
from ._errors import DecodeError, DecodeReason, Issue, ValidationFailed
from ._explain import EXPLAIN_FRAMES, explainer_of
from ._guard import DeferredReport, GuardReport
from ._instance import bind_checked, bind_is_valid, max_values, referents
from ._rates import at_rate_of
from ._readers import (
    WARMING_PARSE,
    HotPath,
    ShortPath,
    counted_then_parsed,
    general_short_path,
    no_short_path,
    one_pass_then_general,
    typed_then_held,
    warming_then_settled,
)
from ._work import bound_work
from .backends import BackendRefused, BackendValidator, TypedDecode

_parse = msgspec.json.decode
_convert = msgspec.convert
_to_builtins = msgspec.to_builtins

__all__ = [
    "EVAL_FRAMES",
    "EXPLAIN_FRAMES",
    "CompiledSchema",
    "HotPath",
    "depth_bound",
]

# Schema applications jsonschema-rs may nest (instance depth x evaluation depth) before its native
# stack is at risk, on a 1 MiB thread stack with plain and anyOf-nested recursion: `is_valid` first
# crashed at 8192 frames, `iter_errors` at 1024 (``EXPLAIN_FRAMES``, in ``_explain``); half each.
EVAL_FRAMES = 4096

# Documents a schema that may translate to msgspec types reads on the general path (its short
# path, `ToolSet`'s read) before its typed reader is built: building it (120-150 us a corpus tool,
# a hundred first reads) pays for a schema read again and again, not for a tool called once.
WARM_DOCUMENTS = 4
_BINDING = threading.Lock()
_DECIDING = threading.RLock()  # one decision a schema, whichever threads ask at once (see `_decide`)


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
    a reference-quality backend. A Python object is held to the bounds of a JSON document first
    (see :mod:`engine._instance`): anything no document decodes to is a :class:`~engine.DecodeError`.

    ``decode(data)`` parses JSON ``data`` (bytes, text or a buffer) and validates it; the parsed
    value is returned: plain dicts and lists, exactly what ``msgspec.json.decode`` gives. It is a
    reader bound once per schema, built on first call: only the checks this schema needs run.
    """

    __slots__ = (
        "_check",
        "_screened",
        "_cheap",
        "_sized",
        "_floated",
        "_decode_built",
        "_deferred_guard",
        "_depth_bound",
        "_undecided",
        "checked",
        "_explainer",
        "_failure",
        "_fallback",
        "_held",
        "_general_reader",
        "_limits",
        "_max_bytes",
        "_max_depth",
        "_max_values",
        "_other_decoder",
        "_typed",
        "_sealed_reader",
        "_short_path",
        "_snapshot",
        "backend",
        "decode",
        "decode_typed",
        "dialect",
        "fingerprint",
        "guard",
        "is_valid",
        "notes",
        "schema",
        "typed",
        "__weakref__",
    )

    backend: str
    """The backend that checks this schema's documents (under ``auto``, decided when first asked
    for or when the first document is read: see :doc:`backends`)."""

    notes: dict[str, str]
    """Why faster backends refused this schema, by backend name (from ``auto``)."""

    is_valid: Callable[[Any], bool]
    """Whether an instance conforms. An object that is not a JSON value within the bounds (see
    above; against a recursive schema, nesting deeper than its depth bound) raises
    :class:`~engine.DecodeError` instead: never an answer."""

    decode: Callable[[bytes | bytearray | memoryview | str], Any]
    """Parse JSON ``data`` and validate it; the parsed value is returned."""

    schema: Any
    """The schema as it was compiled: a new private copy at each access, from a snapshot taken at
    compile time (the cache hands this object to every caller of an equal schema; nothing compiled
    reads the caller's own object or a copy handed out)."""

    guard: GuardReport | None
    """What the guard measured (each limit's value, recursion, fan-out), or ``None``. For a schema
    the guard clears by its text and counts alone (no reference, pattern or ``unevaluated*``, every
    count within its limit), made when first asked for: the same report, from the same snapshot."""

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
        guard: GuardReport | DeferredReport | None = None,
        typed: TypedDecode | None = None,
        undecided: str | None = None,
        pinned: Callable[[], Any] | None = None,
        weighs: int = 0,
        resources: Mapping[str, Any] | None = None,
        comparisons: tuple[int, int | None] = (0, None),
        rate: int = 1,
        held: int = 0,
    ) -> None:
        self.dialect, self.fingerprint = dialect, fingerprint
        # `backend` decided on first use (see `Plan.undecided`): `backend` and `notes` are set by
        # `_decide`, when asked for or when the first document is read.
        self._undecided: tuple[str, str, dict[str, str]] | None = None
        if undecided is None:
            self.backend = backend
            self.notes = notes or {}
        else:
            self._undecided = (backend, undecided, notes or {})
        self._explainer = explainer
        # A checker that may reject valid instances has a general fallback that gets the last word
        # on every "no".
        self._fallback = fallback
        # The plan's one-pass decoder: msgspec's validator builds its plain and typed readers on first
        # use (Python objects go to the general backend); another backend's decoder is used as it is.
        owner = getattr(decoder, "__self__", None)
        self._typed: Any = owner if hasattr(owner, "plain_reader") else None
        self._other_decoder = decoder if self._typed is None else None
        # `schema`: the pipeline's own, or a private copy made on first use (`SchemaSource.pinned`).
        self._snapshot: Callable[[], Any] | None = pinned
        if pinned is None:
            self.schema = schema
        self.typed = typed
        """The msgspec type the one-pass decoder parses into (see the plan), or ``None``."""
        self._short_path: ShortPath | None = None
        self._general_reader: Callable[[Any], Any] | None = None
        self._sealed_reader: Callable[[Any], Any] | None = None
        # The report of a schema the guard cleared unwalked is made when first asked for; such a
        # schema neither recurses nor nests deeper than every bound its report is compared with.
        if isinstance(guard, DeferredReport):
            self._deferred_guard: DeferredReport | None = guard
            self._depth_bound = None
        else:
            self._deferred_guard = None
            self.guard = guard
            self._depth_bound = depth_bound(guard, limits)
        self._limits = limits  # the explanation's (see `_explanation`)
        self._held = held  # the memory its document may hold compiled, by estimate (`engine._engine.held_bytes`)
        self._failure: Callable[..., ValidationFailed] | None = None
        self._decode_built = False  # `decode` not asked for, nor built by the warming reader
        self._max_bytes = limits.max_instance_bytes
        self._max_depth = self._depth_bound or limits.max_instance_depth
        self._max_values = max_values(self._max_bytes)
        check = checker.is_valid
        if fallback is not None:
            first, again = check, fallback.is_valid

            def check(instance: Any) -> bool:
                return first(instance) or again(instance)

        document = pinned or (lambda: schema)
        rated = at_rate_of(check, rate, guard, limits, document, dialect, resources)  # (`engine._rates`)
        # `_screened`, `_cheap`, `_sized`, `_floated`: see `HotPath` (`engine._numbers`).
        self._check, self._screened, self._cheap, self._sized, self._floated = bound_work(
            rated, guard, limits, document, dialect, weighs, resources, *comparisons
        )

    def __repr__(self) -> str:
        return f"<CompiledSchema backend={self.backend!r} dialect={self.dialect.value!r}>"

    # -- Python objects --------------------------------------------------------------------------

    def _bind_is_valid(self) -> Callable[[Any], bool]:
        weighing = (self._max_depth, self._max_values, self._screened, self._floated, self._sized, self._cheap)
        return bind_is_valid(self._check, _backend_refusal, *weighing)

    def validate(self, instance: Any) -> None:
        """Return if ``instance`` conforms; otherwise raise :class:`~engine.ValidationFailed`
        (or :class:`~engine.DecodeError` for an object that is not a JSON value within bounds)."""
        self.checked(instance)

    def _explanation(self) -> Callable[..., ValidationFailed]:
        """The explanation of an invalid instance, made when first needed: a function of its own,
        not a method (a bound method kept by the readers and checks this object holds would be a
        reference cycle: see ``__getattr__``). Not an attribute made on first use either: that costs
        an ``AttributeError`` raised and caught, a microsecond on each schema's first document."""
        failure = self._failure
        if failure is None:
            deferred = self._deferred_guard
            failure = self._failure = explainer_of(
                self._explainer, self.guard if deferred is None else deferred, self._limits, self._depth_bound
            )
        return failure

    checked: Callable[[Any], Any]
    """``instance`` itself if it conforms; raises like ``validate`` otherwise (one bound call, for
    the hot path of Python objects)."""

    def _bind_checked(self) -> Callable[[Any], Any]:
        weighing = (self._max_depth, self._max_values, self._screened, self._floated, self._sized, self._cheap)
        return bind_checked(self._check, _backend_refusal, self._explanation(), *weighing)

    def hot_path(self) -> HotPath:
        """What a caller reading this schema's instances inside a larger document binds once: the
        backend check of a *decoded* value (no bounds: a decoded value is JSON within them) and the
        bounds. No msgspec type is built for it."""
        failure, depth, screened = self._explanation(), self._max_depth, self._screened
        return HotPath(self._check, self._max_bytes, depth, failure, screened, self._cheap, self._sized, self._floated)

    # -- bytes -------------------------------------------------------------------------------------

    def reader(self) -> Callable[[bytes | bytearray | memoryview | str], Any]:
        """The bound reader behind ``decode`` (built on first use; callers may keep it)."""
        return self.decode

    if not TYPE_CHECKING:  # to the type checker, these are the attributes declared above

        def __getattr__(self, name: str) -> Any:
            # Called for an attribute not set: `decode`, `is_valid` and `checked` are bound on first
            # use (the checks cost a third of building a compiled schema, which most tools of a long
            # list never use); `decode` set at compile time to a method of this object was a cycle,
            # freed only by a collection (14,766 objects left per pass over the corpus).
            if name == "decode":
                read = self.decode = self._build_reader()
                self._decode_built = True
                return read
            if name == "decode_typed":
                typed = self.decode_typed = self._build_typed_reader()
                return typed
            if name == "is_valid" or name == "checked":
                bound = self._bind_is_valid() if name == "is_valid" else self._bind_checked()
                setattr(self, name, bound)
                return bound
            if name == "guard" and self._deferred_guard is not None:
                guard = self.guard = self._deferred_guard()
                return guard
            if name == "schema" and self._snapshot is not None:
                return self._snapshot()  # a copy each time: the cache shares this object between callers
            if name == "backend" or name == "notes":  # set at compile time, or by the decision
                self._decide()
                return getattr(self, name)
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _decide(self, *, translating: bool = False) -> None:
        """Settle a backend put off at compile time: the one-pass decoder's own decision, and if
        it refuses, the general backend alone (see ``Plan.undecided``). ``translating``: the
        caller needs the translation next, so the translator decides (the lean walk that decides
        without translating would only run before it). Under a lock: a thread asking while another
        decides waits for its answer (it would read the cleared decoder as no refusal)."""
        if self._undecided is None:
            return
        with _DECIDING:
            pending = self._undecided
            if pending is None:
                return
            deferred, general, notes = pending
            typed = self._typed
            if typed is not None and translating:
                try:
                    typed.translation  # noqa: B018 - made now; a refusal is kept and said below
                except BackendRefused:
                    pass
            why = typed.refused() if typed is not None else None
            if why is None:
                self.backend, self.notes = deferred, notes
            else:
                self._typed = None  # the general path is exact on its own
                self.backend, self.notes = general, {**notes, deferred: why}
            self._undecided = None

    def _build_reader(self) -> Callable[[bytes | bytearray | memoryview | str], Any]:
        path = self._short_path
        if path is not None and path[0] is WARMING_PARSE:
            return self._settle(path)  # callers keep the warming short path: settled in place
        return self._settled_reader()

    def _warming_path(self) -> ShortPath:
        """The short path of a schema whose reader is not built yet (``warming_then_settled``)."""
        owner = weakref.ref(self)  # not the schema itself: it holds the path

        def settle(path: ShortPath) -> Callable[[bytes | bytearray | memoryview | str], Any] | None:
            schema = owner()
            return None if schema is None else schema._settle(path)

        limit = min(too_short_to_nest(self._max_depth), surely_within(self._max_bytes), self._cheap)
        return warming_then_settled(self._general(), self._screened, limit, settle, documents=WARM_DOCUMENTS)

    def _settle(self, path: ShortPath) -> Callable[[bytes | bytearray | memoryview | str], Any]:
        """Build the reader, set it as ``decode`` and its short path into ``path`` (the warming
        short path, which callers keep)."""
        if path[0] is not WARMING_PARSE:  # settled already (`decode` was asked for)
            return self.decode
        self._short_path = None
        read = self._settled_reader(into=path)
        if self._short_path is not path:
            path[:] = self._short_path_of(read)
            self._short_path = path
        self.decode = read
        self._decode_built = True
        return read

    def _settled_reader(
        self, *, into: ShortPath | None = None
    ) -> Callable[[bytes | bytearray | memoryview | str], Any]:
        """The schema's reader for good: through TypedDicts where it translates and that read is
        the cheaper, else the general path. ``into``: the list its short path is written into."""
        if self._undecided is not None:
            self._decide(translating=True)
        typed = self._typed
        if typed is not None and self._other_decoder is None:
            # A deferred report is a cleared schema's, which holds no pattern: not made here.
            guard = self.guard if self._deferred_guard is None else None
            if guard is not None and guard.measured.get("max_pattern_length", 0):
                # msgspec checks a `pattern` with Python `re`, the general backend natively, for less (the
                # 19 corpus tools with one: 2.5x the decode floor, 3.6x through TypedDicts). No type built.
                return self._general()
            if typed.translation.untyped_at is not None:
                # A position that admits any value: the TypedDicts' reader would count its members
                # in Python to show nothing was skipped, where the general backend skips what no keyword
                # constrains (a free-form property of records: 2.9-4.3x raw through TypedDicts, 1.1-1.7x here).
                return self._general()
            counted = self._counted_reader(typed, into=into)
            if counted is not None:
                return counted
        if self._other_decoder is not None:
            return one_pass_then_general(self._other_decoder, self._general(), self._max_bytes, self._max_depth)
        return self._general()

    def short_path(self) -> ShortPath:
        """What callers that inline the commonest read bind (see ``ToolSet``): see
        :data:`~engine._readers.ShortPath`, which the reader changes; ``path[4]`` reads any
        document. Where the schema may translate to msgspec types and ``decode`` was not asked
        for yet, its first ``WARM_DOCUMENTS`` documents are read on the general path before its
        reader is built (a tool called once or twice pays for no type)."""
        path = self._short_path
        if path is None:
            with _BINDING:  # one path, whichever thread asks first: callers keep it
                path = self._short_path
                if path is None:
                    if (
                        WARM_DOCUMENTS
                        and self._other_decoder is None
                        and (self._typed is not None or self._undecided is not None)
                        and not self._decode_built
                    ):
                        path = self._short_path = self._warming_path()
                    else:
                        read = self.reader()
                        path = self._short_path
                        if path is None:
                            path = self._short_path = self._short_path_of(read)
        return path

    def _short_path_of(self, read: Callable[[Any], Any]) -> ShortPath:
        if read is self._general_reader:
            # Parsed and checked inline by the caller: a frame and the reader's tests less.
            limit = min(too_short_to_nest(self._max_depth), surely_within(self._max_bytes), self._cheap)
            return general_short_path(read, self._screened, limit)
        return no_short_path(read)

    def _counted_reader(
        self, typed: Any, *, into: ShortPath | None = None
    ) -> Callable[[bytes | bytearray | memoryview | str], Any] | None:
        """The reader through TypedDicts (see :func:`counted_then_parsed`), ``None`` where msgspec
        refuses the type."""
        try:
            dicts = typed.dicts_reader()
        except (TypeError, ValueError):  # pragma: no cover - msgspec refused a type the translator allowed
            self._typed = None  # the general path is exact on its own
            return None
        decode, depth, count = dicts
        translation = typed.translation
        bounded = depth is not None and depth <= self._max_depth
        # Sealed (every object closed, no value untyped): validity proves the depth bound.
        sealed = bounded and translation.open_at is None
        read, self._short_path = counted_then_parsed(
            decode,
            count,
            exact=translation.closed_at is None,
            bounded=bounded,
            checks=(self._screened, self._cheap, self._sized),
            sealed=sealed,
            slow=self._general(sealed=sealed),
            max_bytes=self._max_bytes,
            max_depth=self._max_depth,
            into=into,
        )
        return read

    def _general(self, *, sealed: bool = False) -> Callable[[bytes | bytearray | memoryview | str], Any]:
        """The general path, bound once: bounded parse, then the general backend; explains a failure.

        ``sealed``: every valid instance nests within the depth bound (see ``_build_reader``), so
        a document is parsed without proving its depth first; only one the backend refuses has
        its depth checked, so that a document too deep is refused as such."""
        if sealed:
            read = self._sealed_reader
            if read is None:
                read = self._sealed_reader = self._bind_general(sealed=True)
            return read
        read = self._general_reader
        if read is None:
            read = self._general_reader = self._bind_general(sealed=False)
        return read

    def _bind_general(self, *, sealed: bool) -> Callable[[bytes | bytearray | memoryview | str], Any]:
        max_bytes = self._max_bytes
        within = surely_within(max_bytes)  # longer: measured in bytes by the bounded parse
        max_depth = self._max_depth
        short = too_short_to_nest(max_depth)
        # A value whose children hold nothing nests two levels at most (see `LEVELS_READ`).
        two_levels_within = LEVELS_READ and max_depth >= 2
        check, screened, cheap, sized = self._check, self._screened, self._cheap, self._sized
        failure = self._explanation()
        parse = _parse
        # Long documents parsed by a decoder that shows their depth, until one nests deeper (the
        # documents of one schema are alike; see `counted_then_parsed`).
        shallow = [max_depth >= 2 and not sealed]
        parse_levels = levels_parser(min(SHOWN_LEVELS, max_depth)) if shallow[0] else parse  # never used then
        # A deeper one's depth by its brackets (one C pass, 0.6-0.8x the walk) until one holds too many: the walk.
        bracketed = [True]

        def general(data: bytes | bytearray | memoryview | str) -> Any:
            longer = False
            if type(data) is not bytes and type(data) is not str:  # a view in bytes; a subclass by what it holds
                longer = type(data) is memoryview and view_over(data, within)  # (or released) to the bounded parse
                if not longer:
                    data = as_bytes(data)
            shown = True  # the value's depth shown within the bound (or, sealed, by validity alone)
            if not longer and len(data) <= within:
                long = len(data) > short  # not within the depth bound by its length
                if sealed:
                    shown, long = not long, False
                try:
                    if long and shallow[0]:
                        try:
                            value = parse_levels(data)
                            long = False  # its depth shown as it parsed
                        except msgspec.ValidationError:
                            shallow[0] = False  # nests deeper (or a number out of range): not tried again
                            value = parse(data)
                    else:
                        value = parse(data)
                except PARSE_REFUSALS as exc:
                    # Within the size bound, and refused by the bounded parse's own parser (the
                    # levels decoder's syntax errors are its too): its reason, not parsed again.
                    raise parse_refusal(exc, data) from None
                else:
                    # The depth shown by the parsed values, a level at a time (nor, sealed, for
                    # a valid one: see below); the exact walk only where that bound is over.
                    if long and (not two_levels_within or referents(*referents(value))):
                        if not bracketed[0] or brackets(data) > max_depth:
                            bracketed[0] = False
                            check_depth(value, max_depth)
            else:
                value = decode_json(data, max_bytes=max_bytes, max_depth=max_depth)
            try:
                valid = check(value) if longer else sized(value, len(data)) if len(data) > cheap else screened(value)
            except (ValueError, TypeError, RecursionError) as exc:
                if not shown:
                    check_depth(value, max_depth)
                raise _backend_refusal(exc) from None
            if not valid:
                if not shown:  # a document too deep is refused as such, not explained
                    check_depth(value, max_depth)
                # The document's length bounds the values the explanation's estimate counts.
                raise failure(value, width=len(data) if type(data) is bytes or type(data) is str else None)
            return value

        return general

    decode_typed: Callable[[bytes | bytearray | memoryview | str], Any]
    """Parse and validate JSON ``data`` like ``decode``, returning the *typed* value where the
    schema translates to msgspec types: Structs (fields ``f0``, ``f1``... in property order,
    ``msgspec.UNSET`` for an absent optional property; properties the schema does not name are
    not kept). Where the schema does not translate, and for the rare valid document msgspec
    cannot type (an integer written ``1.0``), the plain value is returned. A reader bound once,
    built when first asked for, like ``decode``."""

    def _build_typed_reader(self) -> Callable[[bytes | bytearray | memoryview | str], Any]:
        if self._undecided is not None:
            self._decide(translating=True)
        typed = self._typed
        if typed is None:
            return self.reader()
        try:
            opened = typed.typed_reader()
            depth, count = typed.typed_members()
        except (TypeError, ValueError):  # pragma: no cover - msgspec refused a type the translator allowed
            return self.reader()
        # Open objects skip unnamed properties here without reading them as JSON, and no type
        # bounds how deep they nest: a document that may have had one skipped is held to JSON by
        # the bounded parse (see `typed_then_held`). The Structs that refuse unnamed properties
        # read the commonest document, which has none, in one pass with nothing to count.
        sealed = None
        if count is not None:
            try:
                plain = typed.plain_reader()
            except (TypeError, ValueError):  # pragma: no cover - msgspec refused a type the translator allowed
                plain = None
            if plain is not None:
                kind = plain.type
                sealed = (
                    plain.typed,
                    plain.depth is not None and plain.depth <= self._max_depth,
                    lambda value: _convert(_to_builtins(value), kind),
                )
        return typed_then_held(
            opened,
            count,
            bounded=depth is not None and depth <= self._max_depth,
            slow=self._general(),
            max_bytes=self._max_bytes,
            max_depth=self._max_depth,
            sealed=sealed,
        )

    def issues(self, instance: Any) -> list[Issue]:
        """Every issue with ``instance`` (empty when valid), capped like ``validate``'s."""
        if self.is_valid(instance):
            return []
        return self._explanation()(instance).issues


def _backend_refusal(exc: BaseException) -> DecodeError:
    """What a backend raising on an admitted instance means: jsonschema-rs stops at its own
    recursion limit (below ``max_instance_depth`` in some keywords: ``uniqueItems``, ``const``)."""
    text = str(exc)
    if isinstance(exc, RecursionError) or "ecursion" in text:
        return DecodeError(DecodeReason.TOO_DEEP, f"instance nests too deeply to validate: {text}")
    return DecodeError(DecodeReason.NOT_JSON, f"instance is not a JSON value: {text}")

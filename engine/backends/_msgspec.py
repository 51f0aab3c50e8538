"""The hot-path backend: a schema translated into a msgspec type (see
:mod:`engine.backends._msgspec_translation`), so decoding *is* validating.

Objects with ``properties`` have three builds (see ``Variant``): Structs that *refuse* properties
the schema does not name (whose type bounds how deep an accepted document nests), Structs that
*ignore* them where the schema admits them (exact for validity, since the schema admits any value
there), and TypedDicts, which ignore them too and decode to plain dicts in document order.
Whatever a typed decode refuses (an unnamed property, ``1.0`` for an integer, duplicate keys) is
judged again by the general backend, so every "yes" is exact and no "no" is trusted.
``CompiledSchema.decode`` reads through the TypedDicts and counts the document's colons to show
that nothing was skipped (``engine._readers.counted_then_parsed``).

Readers, each built on first use (a cold compile builds no msgspec type):

- :meth:`MsgspecValidator.plain_reader`: the refusing Structs' decoder (``PlainReader.typed``),
  its type and depth, and bytes to plain JSON values through a converter generated per Struct type
  (dicts with the keys in the schema's property order): this backend's own ``decode`` and
  ``is_valid``;
- :meth:`MsgspecValidator.typed_reader`: bytes to the typed value itself (Structs whose fields are
  ``f0``, ``f1``... in property order; absent optional fields are ``msgspec.UNSET``), through the
  Structs that ignore unnamed properties (the value drops them);
- :meth:`MsgspecValidator.dicts_reader`: bytes to plain values (dicts in document order) through
  TypedDicts, which skip unnamed properties: its readers count the document's members to show
  that nothing was skipped;
- ``is_valid`` on Python objects through ``msgspec.convert`` (used on its own by the tests; the
  pipeline checks Python objects with the general backend, several times faster than ``convert``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any, ClassVar

import msgspec

from .._dialect import Dialect
from .._errors import Issue
from ._contract import Backend, BackendRefused, BackendValidator, Refusal, SchemaSource, late, refuse
from ._msgspec_decide import DEEPEST, translates
from ._msgspec_translation import NAME, Translation, translate
from ._msgspec_values import Count, depth_and_counter, plain_converter, type_depth

__all__ = ["MsgspecBackend", "MsgspecValidator", "PlainReader"]

Reader = Callable[[bytes | bytearray | memoryview | str], Any]

# Held while a decided schema is translated on first use (rare, short: one lock for all).
_TRANSLATING = threading.Lock()
# Held while a plain reader is built on first use (rare: one lock for all, not one made with
# every compiled schema, most of which are never read; taken before `_TRANSLATING`, never after).
_BUILDING = threading.RLock()


class PlainReader:
    """The plain-value one-pass path of one schema, built: ``typed`` is the typed decode (raises on
    anything it refuses), ``type`` what it produces, ``convert`` (``None``: nothing to do) turns
    that into plain values and ``decode`` does both; ``depth`` bounds how deeply an accepted
    document nests (``None``: unbounded). The converters are generated on first use."""

    __slots__ = ("_convert", "converters", "depth", "type", "typed")

    def __init__(self, typed: Reader, depth: int | None, kind: Any) -> None:
        self.typed = typed
        self.depth = depth
        self.type = kind
        self.converters: dict[Any, Any] = {}
        """The converter of every Struct type inside, by type (shared with generated readers)."""
        self._convert: Any = self  # not built yet

    @property
    def convert(self) -> Callable[[Any], Any] | None:
        convert = self._convert
        if convert is self:
            convert = self._convert = plain_converter(self.type, self.converters)
        return convert  # type: ignore[no-any-return]

    def decode(self, data: bytes | bytearray | memoryview | str) -> Any:
        convert = self.convert
        value = self.typed(data)
        return value if convert is None else convert(value)


class MsgspecValidator(BackendValidator):
    """One translated schema; every msgspec object it needs is built on first use, and the
    translation itself too where the compile only decided that there is one (``source``)."""

    # Set when first made (most compiled schemas never read a document): until then, these.
    _refusal: str | None = None
    _plain: PlainReader | None = None
    _typed: Reader | None = None
    _dicts: tuple[Reader, int | None, Count] | None = None
    _typed_facts: tuple[int | None, Count | None] | None = None
    _strict_type: Any = None
    # The contract's `typed` (a built msgspec type) is left unset: types are built on first use,
    # by the readers below (an elicitation form builds its own from the translation).

    def __init__(
        self, translation: Translation | None = None, *, source: SchemaSource | None = None, decided: bool = True
    ) -> None:
        if translation is None and source is None:
            raise TypeError("a translation or the source to translate on first use")
        self._translation = translation
        self._source = source
        # The caller may change their schema after compile time; what is translated on first use
        # is the schema as it was then: a private copy, made when needed (see `late`).
        self._thaw = None if source is None else source.pinned
        # Undecided (see `MsgspecBackend.deferred`): whether the translator takes the schema is
        # found on first use; `_refusal` is then its reason, `_decided` that it was asked.
        self._decided = decided

    @property
    def translation(self) -> Translation:
        """The translation (made on first use where the compile only decided it, see
        :func:`~engine.backends._msgspec_decide.translates`)."""
        translation = self._translation
        if translation is None:
            with _TRANSLATING:  # once, whichever thread asks first
                translation = self._translation
                if translation is None:
                    if self._refusal is not None:
                        raise refuse(NAME, self._refusal)
                    try:
                        translation = self._translation = translate(self._private())
                    except BackendRefused as exc:
                        self._refusal = exc.why
                        raise
                    self._decided = True
        return translation

    def refused(self) -> str | None:
        if not self._decided:
            with _TRANSLATING:
                if not self._decided and self._refusal is None:
                    if translates(self._private()):  # the lean walk is sure: the translation waits
                        self._decided = True
            if not self._decided:
                try:
                    self.translation  # noqa: B018 - the translator decides, and says why not
                except BackendRefused:
                    pass
        return self._refusal

    def _private(self) -> SchemaSource:
        """The source to translate: its schema a private copy of the caller's as it was at
        compile time, made on first call (under ``_TRANSLATING``)."""
        source = self._source
        assert source is not None  # noqa: S101 - a validator made without a translation has one
        if self._thaw is not None:
            source = self._source = late(source)
            self._thaw = None
        return source

    def plain_reader(self) -> PlainReader:
        """Build (once) and return the plain-value reader. Raises ``TypeError``/``ValueError`` if
        msgspec refuses the type (the translator is meant to rule that out)."""
        reader = self._plain
        if reader is None:
            with _BUILDING:
                reader = self._plain
                if reader is None:
                    kind = self.translation.build("closed")
                    typed = msgspec.json.Decoder(kind).decode
                    reader = self._plain = PlainReader(typed, type_depth(kind), kind)
        return reader

    def typed_reader(self) -> Reader:
        """Build (once) and return the decoder into the typed value (see the module notes)."""
        reader = self._typed
        if reader is None:
            reader = self._typed = msgspec.json.Decoder(self.translation.build("open")).decode
        return reader

    def typed_members(self) -> tuple[int | None, Count | None]:
        """How deep a value of :meth:`typed_reader` nests (``None``: unbounded) and the function
        counting the members of its objects (its Structs' fields not ``UNSET``), or ``None`` where
        no object of the schema admits unnamed properties, so nothing is skipped. The Structs that
        ignore unnamed properties skip them without reading their bytes as JSON (invalid UTF-8, a
        number out of range): the readers count the document's colons to show nothing was skipped
        (see ``engine._readers.typed_then_held``)."""
        facts = self._typed_facts
        if facts is None:
            translation = self.translation
            depth, count = depth_and_counter(translation.build("open"))
            facts = self._typed_facts = (depth, None if translation.open_at is None else count)
        return facts

    def dicts_reader(self) -> tuple[Reader, int | None, Count]:
        """Build (once) and return the decoder into plain values through TypedDicts, how deep what
        it accepts nests (``None``: unbounded), and the function counting the members of the
        objects in a value it returns, with which its readers show that nothing was skipped (see
        ``engine._readers.counted_then_parsed``). Raises ``TypeError``/``ValueError`` if msgspec
        refuses the type (the translator is meant to rule that out)."""
        reader = self._dicts
        if reader is None:
            kind = self.translation.build("dicts")
            reader = self._dicts = (msgspec.json.Decoder(kind).decode, *depth_and_counter(kind))
        return reader

    def decode(self, data: bytes | bytearray | memoryview | str) -> Any:
        """Bytes to plain values in one pass; raises on anything the typed decode refuses."""
        return self.plain_reader().decode(data)

    def is_valid(self, instance: Any) -> bool:
        kind = self._strict_type
        if kind is None:
            kind = self._strict_type = self.plain_reader().type
        try:
            msgspec.convert(instance, kind)
        except (msgspec.ValidationError, TypeError, ValueError):
            return False
        return True

    def iter_issues(self, instance: Any) -> Iterator[Issue]:
        # Issues are explained by the general backend; this yields msgspec's one message.
        try:
            msgspec.convert(instance, self.plain_reader().type)
        except msgspec.ValidationError as exc:
            yield Issue(instance_path="", keyword_location="", keyword="", message=str(exc))


class MsgspecBackend(Backend):
    name: ClassVar[str] = NAME
    dialects: ClassVar[frozenset[Dialect]] = frozenset(Dialect)
    explains: ClassVar[bool] = False
    checks_objects: ClassVar[bool] = False  # msgspec.convert on dicts is slower than the general backend

    def refusal(self, source: SchemaSource) -> Refusal | None:
        refused = Backend.refusal(self, source)  # named: `super()` makes an object on every compile
        if refused is not None:
            return refused
        if source.resources and _mentions_external_ref(source.schema):
            return Refusal(_EXTERNAL_REF)
        return None

    def compile(self, source: SchemaSource) -> MsgspecValidator:
        self.check_dialect(source)
        if source.resources and _mentions_external_ref(source.schema):
            # `$ref` s into the registry would need the general resolver; keep the subset simple.
            raise refuse(NAME, _EXTERNAL_REF)
        # The translation is decided here; no msgspec type is built until the first decode. Where
        # the lean walk is sure the translator takes the schema, the translation waits too; where
        # it is not, the translator decides now (and refuses with its reason and location).
        if translates(source):
            return MsgspecValidator(source=source)
        return MsgspecValidator(translate(source))

    def deferred(self, source: SchemaSource) -> MsgspecValidator | None:
        # Most tools of a long list are never called: the decision (a fifth of a cold compile)
        # waits for the first document. A schema nested deeper than the lean walk's bound is
        # decided now, where the translator's stack is the compile's (see `translates`).
        if getattr(source.facts, "max_chain", 0) > DEEPEST:
            return None
        return MsgspecValidator(source=source, decided=False)


_EXTERNAL_REF = "`$ref` to a registry resource is not followed by the msgspec translation"


def _mentions_external_ref(schema: Any) -> bool:
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            ref = node.get("$ref")
            if isinstance(ref, str) and not ref.startswith("#"):
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False

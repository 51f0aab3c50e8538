"""Elicitation forms (MCP ``elicitation/create``, SEP-1330): a restricted ``requestedSchema``
compiled to a msgspec type, and the client's ``ElicitResult`` decoded and checked in one pass.

The restricted shape: a flat ``type: "object"`` whose properties are primitives:

- string: ``minLength``, ``maxLength``, ``format`` (``email``, ``uri``, ``date``, ``date-time``);
- number / integer: ``minimum``, ``maximum``;
- boolean;
- single select: ``type: "string"`` with ``enum`` (optionally legacy ``enumNames``), or ``oneOf``
  of ``{const, title}``;
- multi select: ``type: "array"`` with ``items: {type: "string", enum}`` or
  ``items: {anyOf: [{const, title}]}``, ``minItems``, ``maxItems``;

each with optional ``title``, ``description`` and a ``default`` of its own type. Anything else is
refused with the property (and keyword) named.

Formats in forms are **asserted**: a form exists to collect well-formed values, so an answer whose
``email`` is not an email is invalid, whatever the engine's ``formats`` setting. ``content`` keeps
the form's fields only; properties the form did not ask for are dropped, never passed on unchecked.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Mapping
from functools import partial
from types import CodeType, FunctionType
from typing import TYPE_CHECKING, Any, Literal, Union, cast

import cachetools
import msgspec
from msgspec import UNSET, UnsetType

from .. import _compiled
from .._cache import estimated_bytes
from .._compiled import CompiledSchema
from .._decode import as_bytes, decode_json, held_nesting, short_bytes, surely_within, too_short_to_nest, view_over
from .._dialect import Dialect
from .._engine import Engine, compile_measured, engine_or_default
from .._errors import Issue, SchemaRejected, ValidationFailed
from .._instance import LARGE, LONG, admit, max_values
from .._intake import canonical_text, load_schema
from ..backends import SchemaSource, msgspec_translation
from .form_shape import check_default_formats, check_shape

__all__ = ["ElicitResult", "ElicitationForm", "compile_elicitation"]

_encode = msgspec.json.encode

Action = Literal["accept", "decline", "cancel"]
ACTIONS = ("accept", "decline", "cancel")
_DECLINING: tuple[Action, ...] = ("decline", "cancel")


class ElicitResult(msgspec.Struct, frozen=True, kw_only=True):
    """A client's answer to a form: ``action``, and ``content`` (the form's fields) only with
    ``accept``."""

    action: Action
    content: dict[str, Any] | None = None


class ElicitationForm:
    """A ``requestedSchema``, checked and compiled. :meth:`decode_result` reads an ``ElicitResult``.

    An engine keeps the forms compiled on it (as many as it caches schemas): an equal form asked
    for again is the same object, its reader built already."""

    def __init__(
        self,
        schema: Mapping[str, Any],
        compiled: CompiledSchema,
        source: SchemaSource | None,
        fields: tuple[str, ...],
        *,
        max_bytes: int,
        max_depth: int,
        formats_engine: Engine,
        text: bytes,
    ) -> None:
        self._text = text  # the schema's JSON text, keys in their order (see `schema`)
        self._schema: Any = None
        self.compiled = compiled
        """The form under the general backend with formats asserted: the format check and the
        explanation of every refusal."""
        self.fields = fields
        self.required: tuple[str, ...] = tuple(schema.get("required", ()))
        # The fields whose format the typed read cannot check, with their format.
        self._formatted: tuple[tuple[str, str], ...] = tuple(
            (name, prop["format"]) for name, prop in schema["properties"].items() if "format" in prop
        )
        self._formats_engine = formats_engine
        self._dialect = {"$schema": schema["$schema"]} if "$schema" in schema else {}
        self._max_bytes = max_bytes
        self._max_depth = max_depth
        self._content_path = compiled.hot_path()  # the content's check and explanation
        # What `engine.backends.msgspec_translation` translates when the typed reader is built,
        # or `None` for a form read on the general path alone (see `compile_elicitation`).
        self._source = source
        # `decode_result` is built when first asked for (see `__getattr__`), and reads the first
        # answers on the general path: a form compiled and answered once or twice (the commonest:
        # a server asks, a user answers) builds no msgspec type.

    def __repr__(self) -> str:
        return f"<ElicitationForm fields={list(self.fields)!r}>"

    @property
    def schema(self) -> Any:
        """The ``requestedSchema`` as it was compiled: a private copy, its keys in their order
        (made when first asked for; ``compiled.schema`` gives a new copy at each access)."""
        schema = self._schema
        if schema is None:
            schema = self._schema = msgspec.json.decode(self._text)
        return schema

    decode_result: Callable[[bytes | bytearray | memoryview | str | Mapping[str, Any] | ElicitResult], ElicitResult]
    """``decode_result(data)``: the ``ElicitResult`` in ``data`` (JSON bytes/text, a dict, or an
    ``ElicitResult``, judged again as its wire form), checked against the form. Raises
    :class:`~engine.DecodeError` for bytes that are not JSON and :class:`~engine.ValidationFailed`
    (issues under ``/content``) for an answer the form rejects.
    It is the form's bound reader, built when first asked for."""

    if not TYPE_CHECKING:  # to the type checker, `decode_result` is the attribute declared above

        def __getattr__(self, name: str) -> Any:
            # Called for an attribute not set: `decode_result`, the form's bound reader, is built
            # when first asked for (the warming reader, which the one-pass reader replaces).
            if name == "decode_result":
                read = self.decode_result = self._warming_reader()
                return read
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _warming_reader(self) -> Callable[[Any], ElicitResult]:
        """The form's first ``WARM_DOCUMENTS`` answers (see ``engine._compiled``) read on the
        general path; the next builds the one-pass reader (see ``_reader``), which becomes
        ``decode_result``, and which this reader becomes too, for a caller that kept it: it takes
        the built reader's names and code (both are generated functions of no closure), so that
        it reads every answer after with no frame in front."""
        if self._source is None or not _compiled.WARM_DOCUMENTS:
            return self._reader()
        namespace: dict[str, Any] = {"left": [_compiled.WARM_DOCUMENTS], "untyped": self._read_untyped}
        lock = threading.Lock()

        def settle(data: bytes | bytearray | memoryview | str | Mapping[str, Any]) -> ElicitResult:
            with lock:  # built once, whichever thread comes first
                built = namespace.get("built")
                if built is None:
                    built = namespace["built"] = self.decode_result = self._reader()
                    if type(built) is FunctionType and built.__closure__ is None:
                        namespace.update(built.__globals__)
                        warming.__code__ = built.__code__
            return built(data)

        namespace["settle"] = settle
        warming = FunctionType(_WARMING_READ, namespace, "read")  # its globals: the namespace
        return warming

    def _reader(self) -> Callable[[Any], ElicitResult]:
        """The form's one-pass reader: the answer decoded with ``content`` typed by the form, in
        the same pass; anything it refuses is judged again (and explained) on the general path."""
        # Too short to nest past the depth bound, and within the size bound (a small one may be
        # shorter still).
        short = min(too_short_to_nest(self._max_depth), self._max_bytes)
        general = self._general
        translation: Any = None
        if self._source is not None:
            try:
                translation = msgspec_translation(self._source)
            except SchemaRejected:
                # Property names msgspec cannot rename to (quotes, backslashes, control
                # characters), or more of them than it looks up cheaply: such a form is read on
                # the general path alone.
                pass
        if translation is None:
            return self._read_untyped
        # Structs that refuse unnamed properties, in an answer that refuses unnamed fields: a
        # value the typed decode skipped would go unchecked (invalid UTF-8, a number out of
        # range, its depth), so here every byte is decoded. An answer with fields the form did
        # not ask for is read on the general path, which drops them. One struct per action
        # (`action` is their tag): an accepting answer must carry its content, the others none.
        content_type, convert = translation.built("closed")
        if convert is None or not (isinstance(content_type, type) and issubclass(content_type, msgspec.Struct)):
            # Not a Struct (a form of no property translates to a plain dict): nothing would drop
            # the fields the form did not ask for. The general path does.
            return self._read_untyped
        to_plain: Callable[[Any], Any] = convert

        def wire(name: str, action: str, content: Any) -> Any:
            return msgspec.defstruct(
                name,
                [("content", content), ("meta", Any, UNSET)],
                rename={"meta": "_meta"},
                tag_field="action",
                tag=action,
                forbid_unknown_fields=True,
                gc=False,
            )

        accept = wire("AcceptWire", "accept", content_type)
        others = {wire(f"{a.title()}Wire", a, None | UnsetType): a for a in _DECLINING}
        decode_wire = msgspec.json.Decoder(Union[(accept, *others)]).decode  # noqa: UP007 - a union built of types
        # Decoded content is JSON within bounds already, and of the form's types and lengths: each
        # formatted field's value judged by the general backend's check of that format alone (a
        # form's fields are independent: a fifth of checking the whole content again), and the
        # full explanation only for a "no".
        format_checks = self._format_checks()
        validate_content = self._validate_content
        read_other = partial(
            self._read_other,
            decode_wire=decode_wire,
            accept=accept,
            others=others,
            to_plain=to_plain,
            format_checks=format_checks,
        )

        # The commonest answer, bytes too short to nest past the depth bound, is read inline with
        # nothing but the checks this form needs (a frame and a test cost a third of decoding a
        # short answer), the content's conversion to a dict inlined too; anything else, and
        # whatever the typed decode refuses, is read by `read_other`.
        namespace = {
            "short": short,
            "decode_wire": decode_wire,
            "general": general,
            "accept": accept,
            "others": others,
            "read_other": read_other,
            "ElicitResult": ElicitResult,
            "format_checks": format_checks,
            "validate_content": validate_content,
        }
        within = surely_within(self._max_bytes)
        inline: list[Callable[[bytes], ElicitResult]] = []  # the read below, once made

        def read_short_other(data: Any) -> ElicitResult:
            # Text and buffers as their bytes, read inline as bytes are; anything else by `read_other`.
            encoded = short_bytes(data, within)
            return read_other(data) if encoded is None else inline[0](encoded)

        namespace["read_short_other"] = read_short_other
        source = _READ_CHECKING_FORMATS if format_checks else _READ
        read: Callable[[Any], ElicitResult] = translation.inlined("closed", source, namespace)
        inline.append(read)
        return read

    def _read_other(
        self,
        data: bytes | bytearray | memoryview | str | Mapping[str, Any],
        *,
        decode_wire: Callable[[Any], Any],
        accept: Any,
        others: Mapping[Any, Action],
        to_plain: Callable[[Any], Any],
        format_checks: tuple[tuple[str, Callable[[Any], bool]], ...],
    ) -> ElicitResult:
        """Every answer the inline read does not take: a dict, text, a buffer, and longer bytes,
        decoded (msgspec bounds its own recursion) and then shown within the depth bound by their
        decoded values (a long text answer costs no scan of its bytes)."""
        if not issubclass(type(data), (bytes, bytearray, memoryview, str)):  # not `isinstance`: see `_checked`
            return self._held(data)
        if type(data) is not bytes:
            # A view measured in bytes (`len` counts items), a longer one uncopied by the general
            # path; a subclass by what it holds (see `as_bytes`).
            if type(data) is memoryview and view_over(data, surely_within(self._max_bytes)):
                return self._general(data)
            data = cast("bytes | memoryview", as_bytes(data))
        size = len(data)
        if size > surely_within(self._max_bytes):  # measured by the general path
            return self._general(data)
        try:
            answer = decode_wire(data)
        except Exception:  # noqa: BLE001 - judged again on the general path, which says why
            return self._general(data)
        long = size > too_short_to_nest(self._max_depth)
        bound = self._max_depth
        if type(answer) is not accept:
            if long and held_nesting([answer.meta], bound + 1) > bound:
                return self._general(data)  # measures the depth, as every document's is
            return ElicitResult(action=others[type(answer)])
        values = to_plain(answer.content)
        # The answer holds `content` (plain now: a Struct's fields are not read as referents)
        # and `_meta`; `held_nesting` bounds the answer around them.
        if long and held_nesting([values, answer.meta], bound + 1) > bound:
            return self._general(data)
        for name, holds in format_checks:
            if name in values and not holds(values[name]):
                self._validate_content(values)  # raises, explained
        return ElicitResult(action="accept", content=values)

    def _format_checks(self) -> tuple[tuple[str, Callable[[Any], bool]], ...]:
        """Each formatted field with the check of its format alone: ``{"format": ...}`` in the
        form's dialect, compiled on the engine the form was (formats asserted)."""
        engine = self._formats_engine
        dialect = self._dialect
        return tuple(
            (name, engine.compile({**dialect, "format": form}).hot_path().check) for name, form in self._formatted
        )

    def _read_untyped(self, data: bytes | bytearray | memoryview | str | Mapping[str, Any]) -> ElicitResult:
        """Every answer of a form without a typed path: parsed within the bounds, then judged."""
        if not issubclass(type(data), (bytes, bytearray, memoryview, str)):  # not `isinstance`: see `_checked`
            return self._held(data)
        return self._general(cast("bytes | bytearray | memoryview | str", data))

    def _held(self, answer: Any) -> ElicitResult:
        """An answer given as a Python value: held to JSON whole first, as bytes are parsed whole
        (`_meta` and fields the form does not read included), then judged. An ``ElicitResult``
        (one a form returned) is judged as its wire form."""
        if type(answer) is ElicitResult:
            answer = (
                {"action": answer.action}
                if answer.content is None
                else {"action": answer.action, "content": answer.content}
            )
        held = admit(answer, self._max_depth, max_values(self._max_bytes))
        # Nothing to weigh: an integer past 64 bits or, where the content's schema compares
        # numbers, floats (an answer holds few: its content is checked whole, weighed). A long
        # answer is checked as a document as long as the size bound.
        if held & LONG:
            return self._checked(answer, self._max_bytes)
        return self._checked(answer, screened=not held or (not held & LARGE and self._content_path.floated is None))

    def _general(self, data: bytes | bytearray | memoryview | str) -> ElicitResult:
        answer = decode_json(data, max_bytes=self._max_bytes, max_depth=self._max_depth)
        width = len(data) if type(data) is bytes or type(data) is str else None
        return self._checked(answer, width, screened=width is not None and width <= self._content_path.cheap)

    def _checked(self, result: Any, width: int | None = None, *, screened: bool = False) -> ElicitResult:
        """An answer held to JSON within the form's bounds (decoded, or admitted whole), judged;
        ``screened``: it holds no integer past 64 bits that could cost the budget (see
        ``HotPath.screened``)."""
        if type(result) is not dict and not issubclass(type(result), Mapping):  # `__class__` can claim any class
            raise _failure("", "an ElicitResult is a JSON object")
        action = result.get("action")
        if action not in ACTIONS:
            raise _wrong_action(result)
        content = result.get("content")
        if action != "accept":
            if content is not None:
                raise _content_without_accept(action)
            return ElicitResult(action=action)
        if content is None:
            content = {}
        if type(content) is not dict and not issubclass(type(content), Mapping):
            raise _failure("/content", "content must be an object")
        self._validate_content(content, width, held=True, screened=screened)
        return ElicitResult(action="accept", content={name: content[name] for name in self.fields if name in content})

    def _validate_content(
        self, content: Any, width: int | None = None, *, held: bool = False, screened: bool = False
    ) -> None:
        """``held``: the answer holding ``content`` was held to JSON within the form's bounds
        (decoded, or admitted whole), so ``content`` is within the schema's where they are as wide:
        checked and explained without the screen; ``width``, where known, the length of the
        document it was decoded from (the bound of the values the explanation counts)."""
        hot = self._content_path
        if held and hot.max_depth >= self._max_depth - 1 and hot.max_bytes >= self._max_bytes:
            try:
                # A long answer's content: its validation work weighed by its values (`sized`).
                if screened or (width is not None and width <= hot.cheap):
                    valid = hot.screened(content)
                else:
                    valid = hot.check(content) if width is None else hot.sized(content, width)
            except Exception:  # noqa: BLE001 - the bound check below says why
                valid = None
            if valid:
                return
            if valid is False:
                raise hot.failure(content, width=width, under="/content")
        try:
            self.compiled.validate(content)
        except ValidationFailed as failure:
            raise failure.under("/content") from None


# The reader of a form's first answers (see `ElicitationForm._warming_reader`): a generated
# function, its names in its own namespace (its globals), like the inline read it becomes. Made
# from this code object for each form (a third of the time of running its definition again).
_WARMING_READ = next(
    const
    for const in compile(
        """
def read(data):
    if left[0] > 0:
        left[0] -= 1  # a lost update between threads only moves the build
        return untyped(data)
    return settle(data)
""",
        "<engine: an elicitation form's first answers>",
        "exec",
    ).co_consts
    if isinstance(const, CodeType)
)

# The inline read of a form's answers (see `ElicitationForm._reader`): its names are the reader's
# namespace; `<convert>` becomes the statements turning the content Struct `s` into the dict `out`.
_READ = """
def read(data):
    if type(data) is bytes and len(data) <= short:
        try:
            answer = decode_wire(data)
        except Exception:  # malformed, invalid, or stricter than the schema (`1.0` for an
            return general(data)  # integer): the general path says why
        if type(answer) is accept:
            s = answer.content
            <convert>
            return ElicitResult(action="accept", content=out)
        return ElicitResult(action=others[type(answer)])
    return read_short_other(data)
"""
_READ_CHECKING_FORMATS = """
def read(data):
    if type(data) is bytes and len(data) <= short:
        try:
            answer = decode_wire(data)
        except Exception:  # judged again on the general path
            return general(data)
        if type(answer) is accept:
            s = answer.content
            <convert>
            for name, holds in format_checks:
                if name in out and not holds(out[name]):
                    validate_content(out)  # raises, explained
            return ElicitResult(action="accept", content=out)
        return ElicitResult(action=others[type(answer)])
    return read_short_other(data)
"""


def _failure(path: str, message: str) -> ValidationFailed:
    return ValidationFailed([Issue(instance_path=path, keyword_location="", keyword="ElicitResult", message=message)])


def _wrong_action(result: Mapping[str, Any]) -> ValidationFailed:
    """The failure of an answer whose ``action`` is missing or none of the three, said in JSON's
    words (``null``, not Python's ``None``), a long value cut."""
    if "action" not in result:
        return _failure("/action", "action is missing: an ElicitResult names one of accept, decline, cancel")
    try:
        shown = msgspec.json.encode(result["action"]).decode()
    except (TypeError, ValueError, OverflowError, RecursionError):  # a Python value no JSON spells
        shown = repr(result["action"])
    if len(shown) > 80:
        shown = f"{shown[:77]}..."
    return _failure("/action", f"action must be one of accept, decline, cancel, not {shown}")


def _content_without_accept(action: str) -> ValidationFailed:
    return _failure("/content", f"content is only sent with action accept, not {action}")


class _Forms:
    """What the forms compiled on one engine share: the engine that compiles them (forms collect
    well-formed values: their formats are asserted, whatever `formats` says), the configuration
    their typed reader is translated under, and the forms themselves, by the text of their
    schema (an equal form asked for again, as a server asks for it on each request, is the form
    compiled before, its reader built already), as many as the engine caches schemas."""

    def __init__(self, engine: Engine) -> None:
        config = engine.config
        self.engine = Engine(config.replace(formats="assert", backend="jsonschema-rs"))
        self.translated = config.replace(formats="annotate")  # formats are checked on the form's compiled schema
        # As many as the engine caches schemas, weighing no more in all than it may hold: each
        # weighs what its text says (see `estimated_bytes`), and no less than an equal share.
        least = config.cache_bytes // max(config.cache_size, 1)
        self.compiled: cachetools.LRUCache[bytes, ElicitationForm] = cachetools.LRUCache(
            max(config.cache_bytes, 1), getsizeof=lambda form: max(estimated_bytes(form._text), least)
        )
        self.caching = config.cache_size > 0 and config.cache_bytes > 0
        self.lock = threading.Lock()


_FORMS: weakref.WeakKeyDictionary[Engine, _Forms] = weakref.WeakKeyDictionary()
_FORMS_LOCK = threading.Lock()


def _forms(engine: Engine) -> _Forms:
    forms = _FORMS.get(engine)
    if forms is None:
        with _FORMS_LOCK:
            forms = _FORMS.get(engine)
            if forms is None:
                forms = _FORMS[engine] = _Forms(engine)
    return forms


def compile_elicitation(requested_schema: Any, *, engine: Engine | None = None) -> ElicitationForm:
    """Check an elicitation form's ``requestedSchema`` (its restricted shape) and compile it, on
    ``engine`` (the default engine when omitted). See :class:`ElicitationForm`."""
    engine = engine_or_default(engine)
    forms = _forms(engine)
    forms_engine = forms.engine
    limits = engine.config.limits
    if type(requested_schema) is memoryview:
        requested_schema = as_bytes(requested_schema)  # measured in bytes, not in items
    # Through intake first, as `Engine.compile` takes a schema: text parsed (malformed text is
    # `invalid-schema`, as there) and the document measured, so that the checks below walk JSON
    # values within the size and depth limits, whatever shares or nests in it; a subclass or a
    # tuple comes back as a plain copy, so its own methods are never called and the shape checked
    # is the one compiled.
    intake = load_schema(requested_schema, limits)
    requested_schema = intake.schema
    if intake.canonical is None:
        canonical_text(requested_schema)  # refuses what no JSON text spells, with the reason
    # The same text, keys in the same order, is the same form: its fields, and the keys of the
    # content it returns, come in the order of its properties (equal documents whose keys are
    # listed in another order are other forms). Found, it was checked and compiled then.
    text = _encode(requested_schema)
    if forms.caching:
        with forms.lock:
            known = forms.compiled.get(text)
        if known is not None:
            return known
    normalised = check_shape(requested_schema, limits)
    dialect = {"$schema": requested_schema["$schema"]} if "$schema" in requested_schema else {}
    check_default_formats(
        requested_schema, lambda form, value: forms_engine.compile({**dialect, "format": form}).is_valid(value)
    )
    compiled = compile_measured(forms_engine, intake)  # measured above: not again
    source: SchemaSource | None = None
    # Draft 4 has no `const`: there a titled option `{const, title}` is the empty schema, which the
    # enum the shape check writes for it does not mean. Such a form is read on the general path.
    if compiled.dialect is not Dialect.DRAFT4 or not _has_titled_options(requested_schema):
        source = SchemaSource(schema=normalised, dialect=compiled.dialect, resources={}, config=forms.translated)
    form = ElicitationForm(
        requested_schema,
        compiled,
        source,
        tuple(requested_schema["properties"]),
        max_bytes=limits.max_instance_bytes,
        max_depth=limits.max_instance_depth + 1,  # the answer around the content, as a result's envelope
        formats_engine=forms_engine,
        text=text,
    )
    if forms.caching:
        with forms.lock:
            try:
                form = forms.compiled.setdefault(text, form)
            except ValueError:  # heavier alone than the cache may hold: not kept
                pass
    return form


def _has_titled_options(form: Mapping[str, Any]) -> bool:
    """Whether a checked form has a single select of titled options (``oneOf``) or a multi-select
    of them (``items.anyOf``)."""
    return any("oneOf" in prop or "anyOf" in prop.get("items", {}) for prop in form["properties"].values())

"""The general backend: jsonschema-rs, compiled with retrieval off.

Every dialect, every keyword. ``$ref`` s resolve inside the document or against the resources the
pipeline passes in; the library is told to work offline, and any reference it cannot resolve
becomes a compile-time refusal, never a deferred or permissive answer.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any, ClassVar

import jsonschema_rs
import msgspec

from .._dialect import Dialect, resource_in_dialect
from .._errors import Issue, RejectReason, SchemaRejected
from .._intake import canonical_text
from .._patterns import schema_patterns, word_boundary
from .._patterns.analysis import ecma_pattern, rust_only, spaced_count
from .._pointer import pointer
from ._contract import Backend, BackendValidator, SchemaSource, late, refuse
from ._rs_paths import instance_tokens, keyword_tokens

__all__ = ["JsonschemaRsBackend", "JsonschemaRsValidator", "issue_from_rs", "lazy_validator"]

_MISSING_RESOURCE = re.compile(r"Resource '([^']*)' is not present in a registry")


def issue_from_rs(error: jsonschema_rs.ValidationError, instance: Any = None, schema: Any = None) -> Issue:
    """``instance``: the value checked, where the error's message or location needs it (see
    below); ``schema``: the schema checked, where it names a property ``""`` (see
    :mod:`._rs_paths`)."""
    keyword, message = error.kind.name, error.message
    location = error.evaluation_path
    if schema is not None:
        location = keyword_tokens(schema, location, keyword)
    # The object's members refused one by one: the error is at the object, and quotes a member.
    members = keyword == "falseSchema" and bool(location) and location[-1] == "additionalProperties"
    path = error.instance_path
    if instance is not None:
        path = instance_tokens(instance, path, lambda: error.instance, member=members)
    if members:
        # `additionalProperties: false` beside no `properties` nor `patternProperties`: every
        # member is unexpected, and jsonschema-rs says "False schema does not allow" the first
        # value. Said as it says it where a `properties` is there: the members named.
        found = _at(instance, path)
        if type(found) is dict and found:
            names = ", ".join(f"'{name}'" for name in found)
            keyword, verb = "additionalProperties", "was" if len(found) == 1 else "were"
            message = f"Additional properties are not allowed ({names} {verb} unexpected)"
    return Issue(instance_path=pointer(path), keyword_location=pointer(location), keyword=keyword, message=message)


def _at(instance: Any, path: list[str | int]) -> Any:
    for token in path:
        try:
            instance = instance[token]
        except (KeyError, IndexError, TypeError):
            return None
    return instance


class JsonschemaRsValidator(BackendValidator):
    def __init__(self, validator: jsonschema_rs.Validator, source: SchemaSource | None = None) -> None:
        self._validator = validator
        self.source = source
        """What it was compiled from: explanation validates single locations of it."""
        self._empty_names: Any = None  # the schema where it may name a property "", else False (see `_naming_empty`)
        # Bound method straight from the Rust object: no Python frame on the hot path.
        self.is_valid = validator.is_valid  # type: ignore[method-assign]

    def is_valid(self, instance: Any) -> bool:  # pragma: no cover - replaced per instance
        return self._validator.is_valid(instance)

    def iter_issues(self, instance: Any) -> Iterator[Issue]:
        try:
            errors = self._validator.iter_errors(instance)  # builds every error now
        except (ValueError, RecursionError) as exc:
            return _raising(exc)  # raised where the issues are read, as for any other backend
        except _INTERRUPTIONS:
            raise
        except BaseException as exc:  # noqa: BLE001 - a panic (pyo3's derives from BaseException), memory
            return _raising(RuntimeError(f"the validator failed to describe the errors ({type(exc).__name__})"))
        schema = self._naming_empty() if self.source is not None else None
        return _issues(errors, instance, schema)

    def _naming_empty(self) -> Any:
        """The schema, where it may name a property ``""`` (its text spells the key ``""``), whose
        locations jsonschema-rs reports without it; ``None`` otherwise."""
        source = self.source
        if source is None:  # pragma: no cover - checked by the caller
            return None
        if self._empty_names is None:
            text = source.text if source.text is not None else msgspec.json.encode(source.schema)
            # The private copy taken once: taken on every explanation, a 1 MB schema cost 25 ms each.
            self._empty_names = late(source).schema if text.find(b'"":') >= 0 else False
        return self._empty_names if self._empty_names is not False else None


_INTERRUPTIONS = (KeyboardInterrupt, SystemExit, GeneratorExit)


def _issues(errors: Any, instance: Any, schema: Any) -> Iterator[Issue]:
    """The issues of jsonschema-rs's ``errors``; a panic or a failed allocation while they are
    read (the errors are converted one by one) raised as the ``RuntimeError`` the explanation
    stops at, never as itself."""
    try:
        for error in errors:
            yield issue_from_rs(error, instance, schema)
    except (ValueError, RecursionError, RuntimeError, *_INTERRUPTIONS):
        raise
    except BaseException as exc:  # noqa: BLE001 - as in `iter_issues`
        raise RuntimeError(f"the validator failed to describe the errors ({type(exc).__name__})") from None


def _raising(exc: BaseException) -> Iterator[Issue]:
    raise exc
    yield  # pragma: no cover - a generator: raises on the first `next`


def rs_options(source: SchemaSource) -> dict[str, Any]:
    """The keyword arguments every jsonschema-rs validator of this source is built with."""
    config = source.config
    options = dict(_options(config.regex, config.backtrack_limit, config.assert_formats))
    if source.resources:
        options["registry"] = build_registry(source)
    return options


DFA_CACHE_BYTES = 256 * 1024
"""The capacity of each pattern's lazy-DFA cache (the regex crate's default is 2 MiB). A pattern
that may not be read one state at a time fills its cache on a long string and keeps it: 40
distinct ``a[ab]{20}c<i>``, each checked once on 800 KB, held 161 MB with the default and 50 MB
with this. A pattern whose automaton fits 2 MiB and not this reads slower, within what its
check is weighed at (``a[ab]{12}c``: 24 ns a byte with 2 MiB, 216 with this, 580 estimated by
``engine._levels.reading_rate``); one that thrashes either cache reads as fast."""


@cache
def _options(regex: str, backtrack_limit: int, assert_formats: bool) -> dict[str, Any]:
    # Built once per configuration, not once per compile (copied by the caller before use).
    pattern_options: jsonschema_rs.RegexOptions | jsonschema_rs.FancyRegexOptions
    if regex == "linear":
        pattern_options = jsonschema_rs.RegexOptions(dfa_size_limit=DFA_CACHE_BYTES)
    else:
        pattern_options = jsonschema_rs.FancyRegexOptions(
            backtrack_limit=backtrack_limit, dfa_size_limit=DFA_CACHE_BYTES
        )
    return {"validate_formats": assert_formats, "pattern_options": pattern_options, "offline": True}


def _parameters() -> tuple[inspect.Parameter, ...] | None:
    """The options every jsonschema-rs validator class takes after the schema, in order, when all
    of them take the same ones by position (``None`` otherwise: options are then passed by name)."""
    found: tuple[inspect.Parameter, ...] | None = None
    for dialect in Dialect:
        try:
            parameters = tuple(inspect.signature(dialect.rs_validator_class).parameters.values())
        except (TypeError, ValueError):  # pragma: no cover - a build without text signatures
            return None
        if (
            not parameters
            or parameters[0].name != "schema"
            or any(p.kind is not inspect.Parameter.POSITIONAL_OR_KEYWORD for p in parameters)
            or (found is not None and parameters[1:] != found)
        ):
            return None  # pragma: no cover - depends on the installed jsonschema-rs
        found = parameters[1:]
    return found


_PARAMETERS = _parameters()


@cache
def _positional(regex: str, backtrack_limit: int, assert_formats: bool) -> tuple[Any, ...] | None:
    """The options of :func:`_options` as positional arguments, each in its place of the
    signature and the places between them holding their defaults; ``None`` when the signature
    was not read. Keyword arguments cost jsonschema-rs a search of its fourteen parameter names
    each: 4.7k of the 168.7k instructions of a validator build on the corpus schemas."""
    options = _options(regex, backtrack_limit, assert_formats)
    if _PARAMETERS is None:  # pragma: no cover - depends on the installed jsonschema-rs
        return None
    names = [p.name for p in _PARAMETERS]
    if not set(options) <= set(names):  # pragma: no cover - depends on the installed jsonschema-rs
        return None
    last = max(names.index(name) for name in options)
    return tuple(options.get(p.name, p.default) for p in _PARAMETERS[: last + 1])


_last: tuple[Any, tuple[Any, ...] | None] | None = None


def _positional_for(config: Any) -> tuple[Any, ...] | None:
    """:func:`_positional` for ``config``; the last configuration asked for is found by identity
    (an engine compiles every schema under one), without hashing its options again."""
    global _last
    last = _last
    if last is None or last[0] is not config:
        last = _last = (config, _positional(config.regex, config.backtrack_limit, config.assert_formats))
    return last[1]


def build_registry(source: SchemaSource) -> jsonschema_rs.Registry:
    """The caller's resources as a jsonschema-rs registry that can retrieve nothing else, each in
    the dialect the guard reads it in (:func:`~engine._dialect.resource_in_dialect`)."""
    try:
        resources = [(uri, resource_in_dialect(document, source.dialect)) for uri, document in source.resources.items()]
        return jsonschema_rs.Registry(resources, retriever=_deny)
    except (ValueError, jsonschema_rs.ReferencingError) as exc:
        raise _ref_refusal(str(exc), "") from None


def _deny(uri: str) -> Any:
    raise LookupError(f"retrieval of {uri!r} is disabled")


NAME = "jsonschema-rs"
_encode = msgspec.json.encode
# Escapes, as JSON text writes them, that jsonschema-rs reads otherwise: the word boundary (Unicode
# there), and Rust-only `\A`, `\z`, `\p`/`\P` (refused by `rust_only` only without braces).
_RUST_READS_OTHERWISE = (b"\\\\b", b"\\\\B", b"\\\\A", b"\\\\z", b"\\\\p", b"\\\\P")
_STACKED = re.compile(rb"[}*+?]\??\{\d")  # a count right after a quantifier
_INLINE_FLAGS = re.compile(rb"\(\?[a-zA-Z-]+\)")  # a global inline flag group
# A brace, digits and commas with whitespace among them, then a closing brace, in JSON text (where a
# tab or a newline is written escaped): a count jsonschema-rs reads and ECMA-262 does not.
_SPACED_BRACE = re.compile(rb"\{(?:[\d,]|\s|\\[tnrf])*(?:\s|\\[tnrf])(?:[\d,]|\s|\\[tnrf])*\}")


class JsonschemaRsBackend(Backend):
    name: ClassVar[str] = NAME
    dialects: ClassVar[frozenset[Dialect]] = frozenset(Dialect)
    # Linear on recursive schemas whose recursion fans out (a 16-deep instance against a three-way
    # recursive anyOf answers in microseconds), every dialect, every keyword: the general backend.
    general: ClassVar[bool] = True
    # Its build validates the schema against the dialect's meta-schema (the Python API cannot turn
    # that off), and agrees with `check_meta_schema` on the JSON-Schema-Test-Suite, the corpus and
    # randomly generated schemas, except in draft 4: there it accepts a boolean root and an empty
    # `enum`, which draft 4's meta-schema refuses.
    meta_schema_dialects: ClassVar[frozenset[Dialect]] = frozenset(Dialect) - {Dialect.DRAFT4}

    def compile(self, source: SchemaSource) -> JsonschemaRsValidator:
        if source.dialect not in self.dialects:  # pragma: no cover - it takes every dialect
            self.check_dialect(source)
        _refuse_inexact_patterns(source)
        positional = None if source.resources else _positional_for(source.config)
        try:
            if positional is not None:
                validator = source.dialect.rs_validator_class(source.schema, *positional)
            else:  # a registry to pass (or an unread signature): by name
                validator = source.dialect.rs_validator_class(source.schema, **rs_options(source))
        except jsonschema_rs.ValidationError as exc:
            raise translate_compile_error(exc, source) from None
        except jsonschema_rs.ReferencingError as exc:
            raise _ref_refusal(exc.message, "", source) from None
        except (ValueError, TypeError) as exc:  # a Python value no JSON document holds (a set, bytes)
            raise SchemaRejected(RejectReason.INVALID_SCHEMA, f"schema is not a JSON document: {exc}") from None
        return JsonschemaRsValidator(validator, source)


def _refuse_inexact_patterns(source: SchemaSource) -> None:
    """jsonschema-rs answers every ECMA-262 class as specified except the word boundary (checked
    against regress, an ECMA-262 engine, on 30,000 generated patterns: every disagreement had a
    \\b or \\B), and reads some syntax as Rust does where ECMA-262 refuses it or reads other
    characters (:func:`~engine._patterns.analysis.rust_only`, :func:`~engine._patterns.analysis.spaced_count`).
    It compiles every schema, so such a pattern is refused for all backends."""
    if source.cleared:  # the guard found no pattern in its text, and there is no resource
        return
    for document in (source.schema, *source.resources.values()) if source.resources else (source.schema,):
        # The root's text, encoded by the pipeline, differs from `source.schema` at most in the
        # spelling of a meta-schema URI in `$schema`, which holds no backslash.
        if not _may_hold_inexact_pattern(document, source.text if document is source.schema else None):
            continue
        for location, pattern in schema_patterns(document):
            other = rust_only(pattern)
            if other is not None:
                raise refuse(
                    NAME,
                    f"pattern {pattern!r} uses {other}, which jsonschema-rs reads as Rust's regex syntax and "
                    "ECMA-262 refuses or reads otherwise (jsonschema-rs compiles every schema, whichever "
                    "backend answers)",
                    location=location,
                )
            spaced = spaced_count(pattern)
            if spaced is not None:
                raise refuse(
                    NAME,
                    f"pattern {pattern!r} has a count with whitespace in its braces ({spaced}): jsonschema-rs "
                    "repeats it, ECMA-262 reads it as text (jsonschema-rs compiles every schema, whichever "
                    "backend answers: write the count without spaces, or escape the brace)",
                    location=location,
                )
            construct = word_boundary(pattern)
            if construct is not None:
                raise refuse(
                    NAME,
                    f"pattern {pattern!r} uses {construct}: ECMA-262's word boundary is ASCII-only and "
                    "jsonschema-rs's is Unicode, so their answers differ on non-ASCII letters (jsonschema-rs "
                    "compiles every schema, whichever backend answers: spell the boundary with classes)",
                    location=location,
                )


def _may_hold_inexact_pattern(document: Any, text: bytes | None = None) -> bool:
    """Whether ``document`` may hold a pattern jsonschema-rs reads otherwise than ECMA-262 (see
    :func:`_refuse_inexact_patterns`), judged on its JSON text (where a backslash is written as
    two): a word boundary, a Rust-only escape, a spaced count, a count after a quantifier, a global
    flag group. Encoding is native and about ten times cheaper than locating every pattern, which
    was a fifth of a cold compile on the tool schemas in bench_data/ (none holds one). ``text``,
    the document's JSON text in any key order, spares the encoding."""
    if text is None:
        try:
            text = _encode(document)
        except (TypeError, ValueError, OverflowError, RecursionError):
            return True  # let the walk decide
    # Every pattern is the value of a `pattern` or a key of a `patternProperties`, written as it is
    # spelled; most documents hold neither, and the rest no escaped backslash: a search or two
    # (`find`: `in` first tries its operand as an integer, a third of a search of a tool schema).
    if text.find(b'"pattern') < 0:
        return False
    if text.find(b"\\\\") >= 0 and any(escape in text for escape in _RUST_READS_OTHERWISE):
        return True
    return any(check.search(text) is not None for check in (_SPACED_BRACE, _STACKED, _INLINE_FLAGS))


def lazy_validator(source: SchemaSource) -> Callable[[], JsonschemaRsValidator]:
    """The jsonschema-rs validator of ``source``, built on first call: the answer of last resort
    for a Python backend that raised instead of answering."""
    built: list[JsonschemaRsValidator] = []

    def get() -> JsonschemaRsValidator:
        if not built:
            built.append(JsonschemaRsBackend().compile(late(source)))  # built after compile time
        return built[0]

    return get


def _ref_refusal(message: str, location: str, source: SchemaSource | None = None) -> SchemaRejected:
    malformed = _INVALID_URI.search(message)
    if malformed is not None:  # not a reference that leads nowhere: a value that is no URI
        uri, why = malformed.groups()
        keyword, at = _holding(source.schema, uri) if source is not None else (None, location)
        return SchemaRejected(
            RejectReason.INVALID_SCHEMA,
            f"{keyword or 'a reference or identifier'} {uri!r} is not a URI reference ({why}): a space "
            "or a non-ASCII character is written percent-encoded ('%20', '%C3%A9')",
            location=at,
            details={"uri": uri},
        )
    match = _MISSING_RESOURCE.search(message)
    uri = match.group(1) if match else None
    said = f" ({message.splitlines()[0]})"
    if uri is not None and source is not None:
        first = _first_missing(source)
        if first is not None:  # the same every time: jsonschema-rs's own words name another at times
            uri, said = first, ""
            location = ""  # where jsonschema-rs stopped may be another reference's place
    if uri is not None and uri.split(":", 1)[0].lower() in ("http", "https"):
        return SchemaRejected(
            RejectReason.REMOTE_REF,
            f"$ref to the network resource {uri!r} refused: nothing is fetched; pass the resource "
            "in the registry if it is trusted",
            location=location,
            details={"uri": uri},
        )
    what = f"{uri!r}" if uri else "a reference"
    return SchemaRejected(
        RejectReason.UNRESOLVABLE_REF,
        f"$ref cannot be resolved: {what} is not in the schema or its registry{said}",
        location=location,
        details={"uri": uri} if uri else {},
    )


_INVALID_URI = re.compile(r"Invalid URI reference '(.*)': ([^\n]*)")
_URI_KEYWORDS = ("$ref", "$id", "$dynamicRef", "$recursiveRef", "id", "$schema")


def _holding(schema: Any, uri: str) -> tuple[str | None, str]:
    """The keyword of ``schema`` that holds ``uri``, and where (the first found), or ``None``
    and the root."""
    stack: list[tuple[Any, tuple[str, ...]]] = [(schema, ())]
    while stack:
        node, at = stack.pop()
        if type(node) is dict:
            for keyword in _URI_KEYWORDS:
                if node.get(keyword) == uri:
                    return keyword, pointer((*at, keyword))
            stack += [(value, (*at, key)) for key, value in node.items()]
        elif type(node) is list:
            stack += [(value, (*at, str(i))) for i, value in enumerate(node)]
    return None, ""


# A `$ref` or an identifier as the canonical text writes it (keys sorted: document order there).
_REF_STRINGS = re.compile(rb'"\$ref":("(?:[^"\\]|\\.)*")')
_IDENTIFIED = re.compile(rb'"\$?id":"')


def _first_missing(source: SchemaSource) -> str | None:
    """The resource of the first reference, in the order of the document's canonical text, that
    neither the document nor the registry holds, where that order alone says which it is; ``None``
    otherwise. jsonschema-rs names whichever missing resource its hash map yields first, which
    varies from process to process (a reference the guard does not walk, under a keyword of
    another dialect, reaches it): the refusal, its reason included, is the same every time.

    A reference to the network is one whatever the base; any other is read against the document's
    one base only when it declares no identifier (``$id``, or ``id`` in draft 4)."""
    text = source.text if source.text is not None else canonical_text(source.schema)
    held = {uri.split("#", 1)[0] for uri in source.resources}
    one_base = _IDENTIFIED.search(text) is None
    first_other: str | None = None
    for written in _REF_STRINGS.findall(text):
        ref: str = msgspec.json.decode(written, type=str)
        resource = ref.split("#", 1)[0]
        if not resource or resource in held:
            continue
        if resource.split(":", 1)[0].lower() in ("http", "https"):
            return resource
        if one_base and first_other is None:
            first_other = resource
    return first_other


def translate_compile_error(exc: jsonschema_rs.ValidationError, source: SchemaSource) -> SchemaRejected:
    """A jsonschema-rs compile error as the refusal a server operator understands."""
    location = pointer(exc.schema_path)
    kind = exc.kind.name
    if kind == "$ref" or isinstance(exc.kind, jsonschema_rs.ValidationErrorKind.Referencing):
        return _ref_refusal(exc.message, location, source)
    if kind == "format" and '"regex"' in exc.message:
        pattern = exc.instance if isinstance(exc.instance, str) else None
        if pattern is not None and source.config.regex == "linear" and _compiles_with_backtracking(pattern):
            return SchemaRejected(
                RejectReason.UNSAFE_PATTERN,
                f"pattern {pattern!r} needs a backtracking regex engine (lookaround or "
                "backreferences); refused in linear-time mode",
                location=location,
                details={"pattern": pattern},
            )
        if pattern is not None and ecma_pattern(pattern):
            # Valid ECMA-262 its regex engine cannot read (`[^]`, `[]`, `\0`, `[\b]`): not the schema's fault.
            return refuse(
                NAME,
                f"pattern {pattern!r} is valid ECMA-262, which jsonschema-rs's regex engine cannot read "
                "(jsonschema-rs compiles every schema, whichever backend answers: `[^]` may be written "
                "`[\\s\\S]`, `\\0` as `\\x00`, `[\\b]` as `\\x08`)",
                location=location,
            )
        return SchemaRejected(
            RejectReason.INVALID_SCHEMA,
            f"invalid regular expression at {location or 'the root'}: {exc.message}",
            location=location,
            details={"pattern": pattern},
        )
    return SchemaRejected(
        RejectReason.INVALID_SCHEMA,
        f"schema refused at {location or 'the root'}: {exc.message.splitlines()[0]}",
        location=location,
    )


def _compiles_with_backtracking(pattern: str) -> bool:
    try:
        jsonschema_rs.validator_for(
            {"pattern": pattern},
            offline=True,
            pattern_options=jsonschema_rs.FancyRegexOptions(dfa_size_limit=DFA_CACHE_BYTES),
        )
    except jsonschema_rs.ValidationError:
        return False
    return True

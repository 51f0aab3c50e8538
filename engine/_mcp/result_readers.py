"""The bound readers of ``ToolSet.validate_result``: one per tool, built on its first result.

A result is read in one pass where it can be: the envelope typed, ``structuredContent`` checked by
the output schema's backend; anything the typed read refuses goes to the plain reader (a field the
envelope does not name) or to the exact path, which judges again and explains."""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any

import msgspec
from msgspec import UNSET

from .._compiled import CompiledSchema
from .._decode import check_depth, held_nesting, surely_within, too_short_to_nest, within_depth
from .._errors import ValidationFailed
from .._instance import referents
from .envelope import SHALLOW_NESTING, CallToolResult, decode_lenient, decode_whole, decode_wire, shallow_decoder

__all__ = ["BoundResultReader", "bind_results", "deeper_than_shown", "names_unknown_field", "nests_within"]

# A tool's bound result reader: the document to the result, or `None` for the exact path.
BoundResultReader = Callable[[bytes | bytearray | memoryview | str], "CallToolResult | None"]
_parse = msgspec.json.decode
_referents = gc.get_referents


def bind_results(output: CompiledSchema | None, max_bytes: int, max_depth: int) -> list[Any]:
    """One tool's result readers, bound once: ``[short, depth, check, read, shallow]``. A result of
    at most ``short`` bytes, or of at most ``max_bytes`` whose decoded values nest within
    ``depth`` (see :func:`nests_within`), is within the bounds, so it may be decoded whole and its
    ``structuredContent`` judged by ``check``, the backend's check of a decoded value;
    ``read(data)`` reads any result, which nests at most ``max_depth`` levels. ``shallow``: the
    decoder (:func:`~engine._mcp.envelope.shallow_decoder`) a longer result is decoded by first,
    which shows it within ``depth`` as it decodes, until one of the tool's results nests deeper
    (the results of one tool are alike): then the caller (or the reader of a tool without an
    output schema) sets it to ``None``, as it is where the bound is too small for it.
    ``short`` and ``depth`` are -1 for a tool without an output schema (nothing to check: every
    result goes to ``read``), and become -1 once the tool's results carry fields of their own:
    ``read`` is then the plain reader (see `_plain_result_reader`)."""
    if output is None:
        bound: list[Any] = [-1, -1, bool, None, shallow_decoder() if max_depth >= SHALLOW_NESTING else None]
        bound[3] = _unchecked_result_reader(max_bytes, max_depth, bound)
        return bound
    path = output.hot_path()
    # A value nesting `d` levels takes `2 * d` bytes: a shorter document is within the depth
    # bound without a look.
    depth = min(path.max_depth, max_depth)
    short = min(too_short_to_nest(depth), surely_within(max_bytes))
    bound = [short, depth, path.check, None, shallow_decoder() if depth >= SHALLOW_NESTING else None]
    bound[3] = _checked_result_reader(output, short, max_bytes, max_depth, bound)
    return bound


def nests_within(top: Any, wire: Any, depth: int) -> bool:
    """Whether a decoded result (``wire``: the envelope; ``top``: the document, ``wire`` itself
    or the JSON-RPC response around it) provably nests no deeper than ``depth``, read from its
    decoded values as :func:`~engine._decode.held_nesting` reads them (exact or one level
    cautious; inline here, for the hot path): a document it does not show within goes to the
    reader that says why."""
    if top is wire:
        if wire.id is not UNSET or wire.error is not UNSET or wire.result is not UNSET:
            # A bare result with a response's members: `result` is a Struct, whose fields are
            # not read as referents. The readers below send such a result to the exact path.
            return False
        level = _referents(wire.content, wire.structured_content, wire.meta, wire.result_type)
        bound = depth
    else:  # the response's own members too, its result's one level down
        level = _referents(
            *(wire.content, wire.structured_content, wire.meta, wire.result_type),
            *(top.id, top.error, top.content, top.structured_content, top.meta, top.result_type),
        )
        bound = depth - 1
    nest = 2  # the envelope, and an empty array or object in it
    while level and nest <= bound:
        nest += 1
        level = _referents(*level)
    return nest <= bound


if referents is not gc.get_referents:  # pragma: no cover - CPython reads levels in one call

    def nests_within(top: Any, wire: Any, depth: int) -> bool:
        values = [wire.content, wire.structured_content, wire.meta, wire.result_type]
        if top is wire:
            if wire.id is not UNSET or wire.error is not UNSET or wire.result is not UNSET:
                return False
            return held_nesting(values, depth + 1) <= depth
        values += [top.id, top.error, top.content, top.structured_content, top.meta, top.result_type]
        return held_nesting(values, depth) < depth


def _plain_result_reader(
    check: Callable[[Any], Any] | None,
    max_bytes: int,
    max_depth: int,
    failure: Callable[..., ValidationFailed] | None = None,
) -> BoundResultReader:
    """The reader of a result the typed envelope refuses, which is mostly one with a field it does
    not name (servers add their own; the Python SDK's serialisation writes `meta` for `_meta`): the
    whole document parsed, so that every byte is held to what JSON is, and decoded by the lenient
    envelope, which types every occurrence of the members it names, as the exact path does (a
    duplicate key's first value included); ``structuredContent`` judged by ``check`` (``None``: no
    output schema), and one it refuses explained by ``failure``, as the exact path explains the
    same value. The whole result nests at most ``max_depth`` levels (the output schema's bound,
    where it checks), shown by its parsed value. ``None`` hands it to the exact path."""
    parse, decode = _parse, decode_lenient
    short = too_short_to_nest(max_depth)
    within = surely_within(max_bytes)  # longer: measured in bytes on the exact path

    def read(data: bytes | bytearray | memoryview | str) -> CallToolResult | None:
        if len(data) > within:
            return None
        try:
            # Every byte held to JSON, those of the fields the envelope skips included.
            value = parse(data)
            if len(data) > short:
                check_depth(value, max_depth)  # raises: judged on the exact path
            wire: Any = decode(data)  # every member it names typed, each time it occurs
            if wire.jsonrpc is not UNSET:  # a JSON-RPC response: read its result
                if wire.error is not UNSET or wire.result is UNSET:
                    return None
                wire = wire.result
            structured = wire.structured_content
            if check is not None and not wire.is_error and (structured is UNSET or not check(structured)):
                if structured is UNSET or failure is None:
                    return None
                refused = structured
            else:
                refused = UNSET
        except Exception:  # noqa: BLE001 - judged again, and explained, on the exact path
            return None
        if refused is not UNSET and failure is not None:
            # Read whole, within the bounds: the result's length bounds the values explained.
            raise failure(refused, width=len(data), under="/structuredContent")
        return CallToolResult(
            content=wire.content, structured_content=structured, is_error=wire.is_error, meta=wire.meta
        )

    return read


_UNKNOWN_FIELD = "Object contains unknown field"


def names_unknown_field(exc: BaseException) -> bool:
    """Whether a typed envelope refused a document for a field it does not name, the one refusal
    the plain reader reads past: any other (a syntax error, a named field of the wrong type, a
    number out of range) it meets again, after parsing the whole document once more."""
    return isinstance(exc, msgspec.ValidationError) and str(exc).startswith(_UNKNOWN_FIELD)


def deeper_than_shown(exc: BaseException) -> bool:
    """Whether the shallow decoder (:func:`~engine._mcp.envelope.shallow_decoder`) refused a
    document for a container past the levels it types, where it takes scalars only: one it
    refused otherwise (a field of the wrong type, a number out of range) the whole decoder refuses
    too, after parsing it once more."""
    text = str(exc)
    return "got `array`" in text or "got `object`" in text


def _read_plain(
    data: bytes | bytearray | memoryview | str, plain: BoundResultReader, bound: list[Any]
) -> CallToolResult | None:
    """A result the typed envelope refused, read by ``plain``. A server that adds fields of its
    own to its results (4 of the 32 corpus results) adds them to every one: once one is read so,
    the next ones are read plain at once, without first a typed decode that parses up to the
    unknown field and fails (nor the inline one of `validate_result`, whose limits go to -1).
    Both reads are exact."""
    envelope = plain(data)
    if envelope is not None:
        bound[0] = bound[1] = -1
        bound[3] = plain
    return envelope


def _unchecked_result_reader(max_bytes: int, max_depth: int, bound: list[Any]) -> BoundResultReader:
    """The reader of a tool without an output schema: the result decoded in one pass, its
    ``structuredContent`` (which nothing checks, so nothing descends into) as it is. Once a result
    is read plain (a field the envelope does not name), the plain reader takes its place in
    ``bound``, as for a tool with an output schema."""
    decode = decode_whole
    plain = _plain_result_reader(None, max_bytes, max_depth)
    short = too_short_to_nest(max_depth)
    within = surely_within(max_bytes)  # longer: measured in bytes on the exact path

    def read(data: bytes | bytearray | memoryview | str) -> CallToolResult | None:
        size = len(data)
        if size > within:
            return None
        shown = size <= short  # within the depth bound by its length
        shallow = bound[4]
        try:
            if shown or shallow is None:
                wire: Any = decode(data)
            else:
                try:
                    wire = shallow(data)
                    shown = True  # within the bound as it decoded (see `bind_results`)
                except msgspec.ValidationError as exc:
                    if not deeper_than_shown(exc):
                        raise  # the whole decoder would refuse it too
                    bound[4] = None  # nests deeper: not tried again
                    wire = decode(data)
        except Exception as exc:  # noqa: BLE001 - a field the envelope does not name, or judged on the exact path
            return _read_plain(data, plain, bound) if names_unknown_field(exc) else None
        top = wire
        if wire.jsonrpc is not UNSET:  # a JSON-RPC response: read its result
            if wire.error is not UNSET or wire.result is UNSET:
                return None
            wire = wire.result
        # Content blocks and `_meta` are read untyped: the whole result's depth is shown by its
        # decode or its values, or the exact path measures it.
        if not shown and not nests_within(top, wire, max_depth):
            return None
        return CallToolResult(
            content=wire.content, structured_content=wire.structured_content, is_error=wire.is_error, meta=wire.meta
        )

    return read


def _checked_result_reader(
    output: CompiledSchema, short: int, max_bytes: int, max_depth: int, bound: list[Any]
) -> BoundResultReader:
    """The reader of a tool with an output schema, for what ``validate_result`` does not read
    inline (a result it refused, or one deeper than its values showed): the whole document parsed
    (every byte held to JSON, a member named twice included), the envelope with
    ``structuredContent`` raw, then that slice. A slice of at most ``short`` bytes (too short to
    nest past the bound) is parsed and judged by the backend's check of the value, as inline; a
    longer one is read by the output schema's own reader (a typed decode and a parse where it
    translates, which prove its depth without a scan; on the general path for its first ones).

    The whole result nests at most ``max_depth`` levels. ``structuredContent`` is bounded by its
    own read; a result too long to be within the bound by its length has its other untyped values
    (content blocks, ``_meta``, ``resultType``, a response's ``id``) bounded by their values (see
    :func:`~engine._decode.held_nesting`; walked exactly where that bound is over): reading the
    whole result's depth from its bytes cost the corpus results 40% more. ``None`` (a
    malformed envelope, a field it does not name, no structuredContent, a refusal) hands the
    result to the exact path, which judges again and explains."""
    path = output.hot_path()
    check = path.check
    # The output schema's reader: its first documents read on the general path before its typed
    # reader is built (see `CompiledSchema.short_path`), the reader the path holds now.
    slice_path = output.short_path()
    decode = decode_wire
    parse = _parse
    plain = _plain_result_reader(check, max_bytes, min(path.max_depth, max_depth), path.failure)
    inner = max_depth - 2  # the bound of a value inside the result (see `ToolSet`)
    too_short = too_short_to_nest(max_depth)
    within = surely_within(max_bytes)  # longer: measured in bytes on the exact path

    def read(data: bytes | bytearray | memoryview | str) -> CallToolResult | None:
        size = len(data)
        if size > within:
            return None
        try:
            response: Any = decode(data)
        except Exception as exc:  # noqa: BLE001 - a field the envelope does not name, or judged on the exact path
            return _read_plain(data, plain, bound) if names_unknown_field(exc) else None
        try:
            # Every byte held to JSON first: a member named twice has its first value skipped
            # unread by the raw slice (msgspec keeps the last), invalid UTF-8 or a number out of
            # range included. This read takes what the inline read did not (a refusal, a result
            # deeper than its values showed): rare, so the parse costs little.
            parse(data)
            wire = response
            # Only the members this read bounds may be there: a response's own result-named
            # members, and a bare result's response-named ones, are typed by the envelope but not
            # read here (a raw `structuredContent` is skipped unchecked, and the depth of the
            # others is not measured). The exact path reads such a document whole.
            if wire.jsonrpc is not UNSET:  # a JSON-RPC response: read its result
                if (
                    wire.error is not UNSET
                    or wire.result is UNSET
                    or wire.structured_content is not UNSET
                    or wire.content
                    or wire.meta is not UNSET
                    or wire.result_type is not UNSET
                    or wire.is_error
                ):
                    return None
                wire = wire.result
            elif wire.result is not UNSET or wire.error is not UNSET or wire.id is not UNSET:
                return None
            if size > too_short:  # raises: judged on the exact path
                check_depth([wire.content, wire.meta, wire.result_type, response.id], inner + 1)
            raw = wire.structured_content
            if wire.is_error:  # not checked against the output schema (an error may omit it), only bounded
                if raw is UNSET:
                    return CallToolResult(content=wire.content, structured_content=UNSET, is_error=True, meta=wire.meta)
                if len(raw) > inner and not within_depth(raw, inner):
                    return None
                return CallToolResult(
                    content=wire.content, structured_content=parse(raw), is_error=True, meta=wire.meta
                )
            if raw is UNSET:
                return None  # the exact path says it must be there
            if len(raw) <= short:
                structured = parse(raw)
                if not check(structured):
                    return None
            else:
                structured = slice_path[4](raw)
        except Exception:  # noqa: BLE001 - judged again, and explained, on the exact path
            return None
        return CallToolResult(content=wire.content, structured_content=structured, is_error=False, meta=wire.meta)

    return read

"""The bound readers of ``ToolSet.validate_result``: one per tool, built on its first result.

A result is read in one pass where it can be: the envelope typed, ``structuredContent`` checked by
the output schema's backend; anything the typed read refuses goes to the plain reader (a field the
envelope does not name) or to the exact path, which judges again and explains."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
from msgspec import UNSET

from .._compiled import CompiledSchema
from .._decode import brackets, nesting, surely_within, too_short_to_nest, within_depth
from .envelope import CallToolResult, decode_lenient, decode_whole, decode_wire

__all__ = ["BoundResultReader", "bind_results"]

# A tool's bound result reader: the document, and its opening brackets where counted (else -1).
BoundResultReader = Callable[[bytes | bytearray | memoryview | str, int], "CallToolResult | None"]
_parse = msgspec.json.decode


def bind_results(output: CompiledSchema | None, max_bytes: int, max_depth: int) -> list[Any]:
    """One tool's result readers, bound once: ``[short, depth, check, read]``. A result of at most
    ``short`` bytes, or of at most ``max_bytes`` with no more than ``depth`` opening brackets,
    nests within the bounds, so it may be decoded whole and its ``structuredContent`` judged by
    ``check``, the backend's check of a decoded value; ``read(data, counted)`` reads any result,
    which nests at most ``max_depth`` levels (``counted``: its brackets where counted, else -1).
    ``short`` and ``depth`` are -1 for a tool without an output schema (nothing to check: every
    result goes to ``read``), and become -1 once the tool's results carry fields of their own:
    ``read`` is then the plain reader (see `_plain_result_reader`)."""
    if output is None:
        bound: list[Any] = [-1, -1, bool, None]
        bound[3] = _unchecked_result_reader(max_bytes, max_depth, bound)
        return bound
    path = output.hot_path()
    # A value nesting `d` levels takes `d` opening brackets, and `2 * d` bytes: a document with
    # fewer, or shorter, is within the depth bound without a scan.
    depth = min(path.max_depth, max_depth)
    short = min(too_short_to_nest(depth), surely_within(max_bytes))
    bound = [short, depth, path.check, None]
    bound[3] = _checked_result_reader(output, short, max_bytes, max_depth, bound)
    return bound


def _plain_result_reader(check: Callable[[Any], Any] | None, max_bytes: int, max_depth: int) -> BoundResultReader:
    """The reader of a result the typed envelope refuses, which is mostly one with a field it does
    not name (servers add their own; the Python SDK's serialisation writes `meta` for `_meta`): the
    whole document parsed, so that every byte is held to what JSON is, and decoded by the lenient
    envelope, which types every occurrence of the members it names, as the exact path does (a
    duplicate key's first value included); ``structuredContent`` judged by ``check`` (``None``: no
    output schema). The whole result nests at most ``max_depth`` levels (the output schema's
    bound, where it checks), shown from its bytes. ``None`` hands it to the exact path."""
    parse, decode = _parse, decode_lenient
    short = too_short_to_nest(max_depth)
    within = surely_within(max_bytes)  # longer: measured in bytes on the exact path

    def read(data: bytes | bytearray | memoryview | str, counted: int = -1) -> CallToolResult | None:
        size = len(data)
        if size > within:
            return None
        if size > short and not (0 <= counted <= max_depth or within_depth(data, max_depth)):
            return None
        try:
            parse(data)  # every byte held to JSON, those of the fields the envelope skips included
            wire: Any = decode(data)  # every member it names typed, each time it occurs
            if wire.jsonrpc is not UNSET:  # a JSON-RPC response: read its result
                if wire.error is not UNSET or wire.result is UNSET:
                    return None
                wire = wire.result
            structured = wire.structured_content
            if check is not None and not wire.is_error and (structured is UNSET or not check(structured)):
                return None
        except Exception:  # noqa: BLE001 - judged again, and explained, on the exact path
            return None
        return CallToolResult(
            content=wire.content, structured_content=structured, is_error=wire.is_error, meta=wire.meta
        )

    return read


def _unchecked_result_reader(max_bytes: int, max_depth: int, bound: list[Any]) -> BoundResultReader:
    """The reader of a tool without an output schema: the result decoded in one pass, its
    ``structuredContent`` (which nothing checks, so nothing descends into) as it is. Once a result
    is read plain (a field the envelope does not name), the plain reader takes its place in
    ``bound``, as for a tool with an output schema."""
    decode = decode_whole
    plain = _plain_result_reader(None, max_bytes, max_depth)
    short = too_short_to_nest(max_depth)
    within = surely_within(max_bytes)  # longer: measured in bytes on the exact path

    def read(data: bytes | bytearray | memoryview | str, counted: int = -1) -> CallToolResult | None:
        size = len(data)
        # Content blocks and `_meta` are read untyped: the whole result's depth is shown from its
        # bytes, or the exact path measures it.
        if size > within or (size > short and not within_depth(data, max_depth)):
            return None
        try:
            wire: Any = decode(data)
        except Exception:  # noqa: BLE001 - a field the envelope does not name, or judged on the exact path
            envelope = plain(data, -1)
            if envelope is not None:
                bound[3] = plain
            return envelope
        if wire.jsonrpc is not UNSET:  # a JSON-RPC response: read its result
            if wire.error is not UNSET or wire.result is UNSET:
                return None
            wire = wire.result
        return CallToolResult(
            content=wire.content, structured_content=wire.structured_content, is_error=wire.is_error, meta=wire.meta
        )

    return read


def _checked_result_reader(
    output: CompiledSchema, short: int, max_bytes: int, max_depth: int, bound: list[Any]
) -> BoundResultReader:
    """The reader of a tool with an output schema, for what ``validate_result`` does not read
    inline: the envelope with ``structuredContent`` raw, then that slice. A slice of at most
    ``short`` bytes (too short to nest past the bound) is parsed and judged by the backend's check
    of the value, as inline; a longer one is read by the output schema's own reader (a typed
    decode and a parse where it translates, which prove its depth without a scan). Over the
    corpus results longer than ``short`` (their slices all shorter), 206,644 instructions a pass
    against 238,161 reading every slice the second way (callgrind; the floor 123,923); on a
    list of 1,000 records (150 KB), the second way costs 10.1 million against 13.1 million.

    The whole result nests at most ``max_depth`` levels. ``structuredContent`` is bounded by its
    own read; a result with more brackets than the bound has its other untyped values (content
    blocks, ``_meta``, a response's ``id``) walked, which are small where the bulk is structured:
    reading the whole result's depth from its bytes cost the corpus results 40% more. ``None`` (a
    malformed envelope, a field it does not name, no structuredContent, a refusal) hands the
    result to the exact path, which judges again and explains."""
    path = output.hot_path()
    check = path.check
    read_slice = output.reader()
    decode = decode_wire
    parse = _parse
    plain = _plain_result_reader(check, max_bytes, min(path.max_depth, max_depth))
    inner = max_depth - 2  # the bound of a value inside the result (see `ToolSet`)
    too_short = too_short_to_nest(max_depth)
    within = surely_within(max_bytes)  # longer: measured in bytes on the exact path

    def read(data: bytes | bytearray | memoryview | str, counted: int = -1) -> CallToolResult | None:
        size = len(data)
        if size > within:
            return None
        try:
            response: Any = decode(data)
        except Exception:  # noqa: BLE001 - a field the envelope does not name, or judged on the exact path
            envelope = plain(data, counted)
            if envelope is not None:
                # A server that adds fields of its own to its results (4 of the 32 corpus results)
                # adds them to every one: the next ones are read plain at once, without first a
                # typed decode that parses up to the unknown field and fails (nor the inline one
                # of `validate_result`, whose limits go to -1). Both reads are exact.
                bound[0] = bound[1] = -1
                bound[3] = plain
            return envelope
        try:
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
            if size > too_short and (counted if counted >= 0 else brackets(data)) > max_depth:
                if nesting([wire.content, wire.meta, wire.result_type, response.id], inner + 2) > inner + 1:
                    return None
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
                structured = read_slice(raw)
        except Exception:  # noqa: BLE001 - judged again, and explained, on the exact path
            return None
        return CallToolResult(content=wire.content, structured_content=structured, is_error=False, meta=wire.meta)

    return read

"""Tool sets: every tool's schemas compiled once; arguments and results validated on the hot path."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import msgspec
from msgspec import UNSET

from .._compiled import CompiledSchema
from .._decode import as_bytes, decode_json, short_bytes, surely_within
from .._engine import Engine
from .._errors import SchemaRejected, UnknownTool, ValidationFailed
from .._instance import (
    FLOATS,
    LARGE,
    LONG,
    LONG_PAST,
    WRITTEN_AS_IT_IS,
    admit,
    flat_limit,
    max_values,
    only_plain_scalars,
    referents,
    walk,
    within_size,
)
from .envelope import (
    CallToolResult,
    decode_whole,
    envelope_failure,
    envelope_from_dict,
    shape_failure,
)
from .mapping import arguments_not_an_object, with_text_fallback
from .result_readers import bind_results, deeper_than_shown, names_unknown_field, nests_within

__all__ = ["CompiledTool", "ToolSet"]


class CompiledTool(msgspec.Struct, frozen=True):
    """One tool whose schemas compiled: ``input`` always, ``output`` when it declares one.

    (A Struct: made in a tenth of a frozen dataclass's time, once per tool of every list.)"""

    name: str
    definition: Mapping[str, Any]
    input: CompiledSchema
    output: CompiledSchema | None


_parse = msgspec.json.decode
_pack = msgspec.msgpack.encode  # the surrogate pass of an object of plain scalars (see `engine._instance`)
_encode = msgspec.json.encode
# A tool's backend check of a JSON value holding no integer past 64 bits nor float
# (`HotPath.screened`), the most members an object of scalars checked inline may hold (past
# `WRITTEN_AS_IT_IS`, or the depth bound's none: see `flat_limit`) and the most levels, its
# compiled schema (for its bound check), its explanation, the longest msgpack pass of such an
# object below which its size is not looked at (`within_size`: twice the values the size bound
# allows), and its check of a value holding floats given how many (see `HotPath.floated`).
_Floated = Callable[[Any, int], bool] | None
_FromDict = tuple[Callable[[Any], bool], int, int, CompiledSchema, Callable[..., ValidationFailed], int, _Floated]
# A tool's `CompiledSchema.short_path()` (decode, limit, count, unshown, read, check, left, slow),
# as a tuple, and the list itself, whose mode the reader changes.
_FromBytes = tuple[Any, ...]


class ToolSet:
    """The tools of a ``tools/list`` result, compiled. Tools whose schemas are refused are in
    :attr:`rejected` with the reason; the others work."""

    def __init__(self, tools: dict[str, CompiledTool], rejected: dict[str, SchemaRejected], *, engine: Engine) -> None:
        self._tools = tools
        # One bound reader per tool and per form of input, made on the tool's first call (a cold
        # compile of a tool list builds none): the hot path is a dict lookup and the commonest
        # read inline (see `validate_arguments`).
        self._from_bytes: dict[str, _FromBytes] = {}
        self._from_dict: dict[str, _FromDict] = {}
        self._results: dict[str, tuple[Any, ...]] = {}  # see `_result_entry`
        self._structured: dict[str, Callable[[Any], Any]] = {}  # see `validate_structured`
        self.rejected: Mapping[str, SchemaRejected] = rejected
        """Tool name -> why it cannot be used."""
        self._max_bytes = engine.config.limits.max_instance_bytes
        self._within = surely_within(self._max_bytes)  # the bound readers' limit (see there)
        # A result nests no deeper than any instance, but for the envelope and the JSON-RPC
        # response around it.
        self._max_depth = engine.config.limits.max_instance_depth + 2
        # No arguments (`None`) are read as the bytes `{}` where the limits admit those bytes (two
        # of them, one level); under limits that do not, as the empty dict, which they admit.
        self._none_as_bytes = engine.config.limits.max_instance_depth >= 1 and self._max_bytes >= 2

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[str]:
        return iter(self._tools)

    def __len__(self) -> int:
        return len(self._tools)

    def __repr__(self) -> str:
        return f"<ToolSet {len(self._tools)} tools, {len(self.rejected)} rejected>"

    def tool(self, name: str) -> CompiledTool:
        """The compiled tool ``name``; :class:`UnknownTool` (JSON-RPC -32602) if there is none, the
        tool's :class:`SchemaRejected` if its schemas were refused; a ``TypeError`` for a name that
        is not a string."""
        if not isinstance(name, str):
            raise TypeError(f"name: a tool's name is a string, not {type(name).__name__}")
        tool = self._tools.get(name)
        if tool is not None:
            return tool
        refusal = self.rejected.get(name)
        if refusal is not None:
            raise SchemaRejected(
                refusal.reason,
                f"tool {name!r} cannot be used: {refusal.message}",
                location=refusal.location,
                details=refusal.details,
            )
        raise UnknownTool(name)

    def validate_arguments(self, name: str, arguments: Any) -> dict[str, Any]:
        """``arguments`` (a dict, ``None`` for none, or the JSON bytes, text or buffer of the
        arguments object) checked against the tool's ``inputSchema``; the validated arguments are
        returned.

        Raises :class:`UnknownTool`, :class:`ValidationFailed` (see :func:`invalid_arguments_result`
        to answer it as MCP does) or :class:`DecodeError`."""
        kind = type(arguments)
        if kind is bytes:
            try:  # a subscript costs less than `.get`, and a tool's first call is rare
                decode, limit, count, unshown, read, check, left, slow, path = self._from_bytes[name]
            except (KeyError, TypeError):  # not yet bound, or a name no dict holds (said by `tool`)
                return self._arguments(name, arguments)
            # The commonest read inline (a frame is a quarter of decoding a typical arguments
            # object; see `CompiledSchema.short_path`): one typed decode to plain dicts, and a
            # count of colons showing that it skipped no property; or, for a tool whose
            # documents need it (or whose schema has no typed read), the parse and the backend's
            # check, what the raw library costs.
            try:
                if len(arguments) <= limit:
                    if count is not None:
                        try:
                            value = decode(arguments)
                        except Exception:  # noqa: BLE001 - judged again by the general path, never trusted
                            return slow(arguments)  # type: ignore[no-any-return]
                        members = count(value)
                        if arguments.count(b":") == members:
                            return value  # type: ignore[no-any-return]
                        value = unshown(arguments, value, members)
                    elif left is None or left[0] > 0:
                        if left is not None:
                            left[0] -= 1  # a lost update between threads only moves the next retry
                        try:
                            value = decode(arguments)
                            if check(value):
                                return value  # type: ignore[no-any-return]
                        except Exception:  # noqa: BLE001,S110 - judged again by the general path, never trusted
                            pass
                        return slow(arguments)  # type: ignore[no-any-return]
                    else:
                        value = read(arguments)  # none left: the reader tries the typed decode again
                else:
                    value = read(arguments)
            except BaseException:
                # The reader may have changed its mode on a document it refused (its typed
                # reader built on it, or its mode switched): taken up here too, or a tool whose
                # documents all fail would keep reading through the old mode's reader.
                if path[0] is not decode:
                    self._from_bytes[name] = (*path, path)
                raise
            if path[0] is not decode:  # the reader changed its mode: a tuple of it, unpacked faster
                self._from_bytes[name] = (*path, path)
            return value  # type: ignore[no-any-return]
        if kind is dict:
            try:
                check, few, depth, schema, failure, longest, floated = self._from_dict[name]
            except (KeyError, TypeError):
                return self._arguments(name, arguments)
            # The screen of `engine._instance` inline. The commonest object: its keys all exactly
            # `str` (then the referents are its values alone), up to 16 values (more are walked:
            # their strings counted first), strings, integers, booleans or nulls, no string with a
            # lone surrogate nor integer past 64 bits (the msgpack pass encodes each: `check`
            # weighs none). Any other is walked, and refused with the reason. Whatever the backend
            # raises goes through the bound check, which says why; its "no" is explained.
            values = referents(arguments)
            if len(values) == len(arguments) < few and only_plain_scalars(map(type, values)):
                try:
                    packed = _pack(arguments)
                except Exception:  # noqa: BLE001 - refused by the bound check, with the reason
                    return schema.checked(arguments)  # type: ignore[no-any-return]
                if len(packed) > longest:  # a long string or key: its JSON may be over the size bound
                    within_size(len(packed), len(arguments) + 1, longest >> 1)
                if len(packed) > LONG_PAST:  # and its check's work weighed: by the bound check
                    return schema.checked(arguments)  # type: ignore[no-any-return]
                try:
                    if check(arguments):
                        return arguments  # type: ignore[no-any-return]
                except Exception:  # noqa: BLE001 - judged again by the bound check, never trusted
                    return schema.checked(arguments)  # type: ignore[no-any-return]
                # Every value takes a byte or more of the msgpack pass, a string one more than its
                # length: the bound of the values the explanation's estimate counts.
                raise failure(arguments, width=len(packed))
            held = walk(arguments, values, depth, longest >> 1)
            if held & (LARGE | LONG):  # an integer past 64 bits, or long: weighed there
                return schema.checked(arguments)  # type: ignore[no-any-return]
            try:
                # Floats, where the schema compares numbers: weighed if there are many.
                if check(arguments) if held >> FLOATS == 0 or floated is None else floated(arguments, held >> FLOATS):
                    return arguments  # type: ignore[no-any-return]
            except Exception:  # noqa: BLE001 - judged again by the bound check, never trusted
                return schema.checked(arguments)  # type: ignore[no-any-return]
            raise failure(arguments, width=None)
        if arguments is None:  # no arguments: an empty object (a fresh dict each call)
            return self.validate_arguments(name, b"{}" if self._none_as_bytes else {})
        encoded = short_bytes(arguments, self._within)  # text or a buffer: read as its bytes are
        if encoded is not None:
            return self.validate_arguments(name, encoded)
        return self._arguments(name, arguments)

    def _arguments(self, name: str, arguments: Any) -> dict[str, Any]:
        """A tool's first call (binding its readers), and every input that is neither bytes, a dict,
        ``None``, nor text UTF-8 spells or a buffer within the size bound: other mappings,
        subclasses, longer text and buffers."""
        schema = self.tool(name).input
        if name not in self._from_dict:  # bound once, not again on every call of another form
            # `inputSchema` has `type: "object"` at its root: whatever it accepts is a dict.
            path = schema.short_path()
            self._from_bytes[name] = (*path, path)
            hot = schema.hot_path()
            flat = flat_limit(hot.max_depth, max_values(hot.max_bytes))
            # The schema, not its bound check: that is bound when a dict first needs it (rare).
            few = min(flat, WRITTEN_AS_IT_IS + 1)  # more members are walked (see `engine._instance.walk`)
            self._from_dict[name] = (hot.screened, few, hot.max_depth, schema, hot.failure, flat << 1, hot.floated)
        if issubclass(type(arguments), (bytes, bytearray, memoryview, str)):  # not `isinstance`: `__class__` may lie
            # The short path's reader: a tool's first documents are read on the general path
            # before its typed reader is built (see `CompiledSchema.short_path`).
            value = self._from_bytes[name][-1][4](arguments)
        else:
            value = schema.checked(arguments)
        if not isinstance(value, dict):  # pragma: no cover - `type: object` at the root refuses it first
            raise arguments_not_an_object()
        return value

    def validate_result(self, name: str, result: Any, *, require_text_fallback: bool = False) -> CallToolResult:
        """A ``CallToolResult`` (dict, JSON bytes, a JSON-RPC response carrying one, or a
        :class:`CallToolResult` this engine returned) decoded and checked: ``structuredContent``
        against the tool's ``outputSchema`` unless ``isError`` is true. A tool with an
        ``outputSchema`` must return ``structuredContent``.

        From bytes, readers bound once per tool: a result (or a JSON-RPC response carrying one)
        too short to nest past the depth bound is decoded whole in one pass and its
        ``structuredContent`` checked by the output schema's backend, inline (an error result is
        not checked: it is read as it is); a longer one is decoded with ``structuredContent`` kept
        raw, and that slice parsed and checked so where it is as short, read by the output
        schema's reader otherwise. A tool without an output schema has its results decoded in one
        pass. Anything refused is judged again on the exact path, where the tool's compiled schema
        explains it. Issues are located under ``/structuredContent``.

        ``require_text_fallback=True`` also refuses an array or primitive ``structuredContent``
        without the ``TextContent`` block holding its JSON that SEP-2106 requires."""
        kind = type(result)
        # Kinds read from `type()`, not `isinstance`: an object can claim any class through `__class__`.
        if kind is bytes or issubclass(kind, (bytes, bytearray, memoryview, str)):  # the hot path: one pass
            if kind is memoryview:  # measured in bytes, not in items; one over the bound before a copy
                try:
                    over = result.nbytes > self._max_bytes
                except ValueError:  # released: refused where it is read, after the tool's lookup
                    over = True
                if over:
                    return self._judged_result(name, result, is_bytes=True, require_text_fallback=require_text_fallback)
            if type(result) is not bytes and type(result) is not str:
                result = as_bytes(result)  # a view in bytes; a subclass by what it holds
            try:  # a subscript costs less than `.get`, and a tool's first result is rare
                inline, short, depth, screened, read, failure, sized, cheap, bound = self._results[name]
            except (KeyError, TypeError):
                output = self.tool(name).output
                bound = bind_results(output, self._max_bytes, self._max_depth)
                entry = self._results[name] = self._result_entry(bound, output)
                inline, short, depth, screened, read, failure, sized, cheap, bound = entry
            size = len(result)
            refused: Any = UNSET  # a structuredContent read whole here that the output schema refused
            hopeless = False  # refused here as the readers' envelope would refuse it
            if size <= inline:
                # The commonest read inline (a reader's frame is a tenth of the floor): a result
                # decoded once (msgspec bounds its own recursion), within the depth bound by its
                # length, by its decode (`shallow_decoder`, while the tool's results are shallow:
                # see `bind_results`) or by its values (see `nests_within`), its structuredContent
                # checked by the backend. Anything else is read below.
                try:
                    within = size <= short
                    shallow = bound[4]
                    if within or shallow is None:
                        try:
                            wire = top = decode_whole(result)
                        except Exception as exc:
                            hopeless = not names_unknown_field(exc)
                            raise
                    else:
                        try:
                            wire = top = shallow(result)
                            within = True
                        except msgspec.ValidationError as exc:
                            if deeper_than_shown(exc):
                                bound[4] = None  # nests deeper: not tried again
                            else:
                                hopeless = not names_unknown_field(exc)
                            raise
                    if wire.jsonrpc is not UNSET:  # a JSON-RPC response: its result, if it has one
                        wire = wire.result if wire.error is UNSET else UNSET
                    if wire is not UNSET and (within or nests_within(top, wire, depth)):
                        structured = wire.structured_content
                        if wire.is_error:
                            # Not checked against the output schema, with or without
                            # structuredContent, nor for the text fallback: read as it is.
                            return CallToolResult(
                                content=wire.content, structured_content=structured, is_error=True, meta=wire.meta
                            )
                        if structured is not UNSET:
                            # A result too short for integers past 64 bits to cost the budget: as it is.
                            if screened(structured) if size <= cheap else sized(structured, size):
                                checked = CallToolResult(
                                    content=wire.content, structured_content=structured, is_error=False, meta=wire.meta
                                )
                                return with_text_fallback(checked) if require_text_fallback else checked
                            refused = structured
                except Exception:  # noqa: BLE001,S110 - judged again by the reader, never trusted
                    pass
                if refused is not UNSET:
                    # Decoded whole, within the bounds, and refused: explained here, as the exact
                    # path would explain the same value (the result's length bounds its values).
                    raise failure(refused, width=size, under="/structuredContent") from None
            # A result the envelope refused for anything but a field it does not name goes to the
            # exact path at once: each reader would parse it whole again, to refuse it again.
            if not hopeless:
                envelope = read(result)
                if bound[3] is not read:  # the tool's results are now read plain (see `bind_results`)
                    self._results[name] = self._result_entry(bound, self.tool(name).output)
                if envelope is not None:
                    return with_text_fallback(envelope) if require_text_fallback else envelope
            return self._judged_result(name, result, is_bytes=True, require_text_fallback=require_text_fallback)
        if kind is CallToolResult:  # one this engine returned: judged again as its wire form
            result = {
                "content": result.content,
                "isError": result.is_error,
                **({} if result.structured_content is UNSET else {"structuredContent": result.structured_content}),
                **({} if result.meta is UNSET else {"_meta": result.meta}),
            }
        return self._judged_result(name, result, is_bytes=False, require_text_fallback=require_text_fallback)

    def validate_structured(self, name: str, structured: Any) -> Any:
        """A successful result's ``structuredContent``, given as a Python value (what an SDK hands
        over), checked against the tool's ``outputSchema``, or held to JSON where the tool has
        none; returned. What :meth:`validate_result` does with a dict result of no content that
        carries it, without building and reading that envelope (0.4 of its time).

        Raises :class:`UnknownTool`, the tool's :class:`SchemaRejected`, :class:`ValidationFailed`
        (issues under ``/structuredContent``) or :class:`DecodeError`."""
        try:  # the tool's check, bound on its first value (a frame and a lookup less on each)
            checked = self._structured[name]
        except (KeyError, TypeError):
            checked = self._structured[name] = self._structured_check(self.tool(name).output)
        try:
            return checked(structured)
        except ValidationFailed as failure:
            raise failure.under("/structuredContent") from None

    def _structured_check(self, output: CompiledSchema | None) -> Callable[[Any], Any]:
        """A ``structuredContent`` value's check: the output schema's bound check, or where the
        tool has none, the value held to JSON within the bounds of a result holding it (whose
        envelope is one level of the bound's two extra)."""
        if output is not None:
            return output.checked
        max_depth, values = self._max_depth - 1, max_values(self._max_bytes)

        def held(structured: Any) -> Any:
            admit(structured, max_depth, values)
            return structured

        return held

    def _result_entry(self, bound: list[Any], output: CompiledSchema | None) -> tuple[Any, ...]:
        """A tool's result readers as ``validate_result`` unpacks them: the longest result read
        inline (``short``, or up to the readers' size limit where its values show its depth),
        ``short`` and ``depth`` of ``bind_results``'s list, the output schema's check of a result
        of at most ``cheap`` bytes (see ``HotPath.screened``), its ``read``, the explanation of a
        value the check refused, the check of a longer result given its length, ``cheap``, and
        that list, which the readers change (its ``shallow`` decoder is read from it on each
        call)."""
        short, depth, check, read, _ = bound
        if output is None:
            return short, short, depth, check, read, None, None, -1, bound
        hot = output.hot_path()
        inline = self._within if depth >= 0 else short
        return inline, short, depth, hot.screened, read, hot.failure, hot.sized, hot.cheap, bound

    def _judged_result(self, name: str, result: Any, *, is_bytes: bool, require_text_fallback: bool) -> CallToolResult:
        """The exact path of ``validate_result``: every result the bound readers did not accept,
        judged and explained."""
        output = self.tool(name).output
        given = result
        if is_bytes:
            # Parsed whole, once: every byte held to JSON (a member named twice, invalid UTF-8, a
            # number out of range), the whole result within the depth bound, its numbers
            # screened. The envelope is read from the value, as from a dict.
            result = decode_json(result, max_bytes=self._max_bytes, max_depth=self._max_depth)
            # Every occurrence of the members the envelope names typed: the parse keeps a member's
            # last value, and `{"content": 5, "content": []}` is refused at `/content`.
            failure = shape_failure(given)
            if failure is not None:
                raise failure
        else:
            # Held to JSON first, whole, as a result given as bytes is parsed whole first: every
            # member (a NaN, a set, a cycle, a subclass or a value nesting past the result's bound
            # in a content block, `_meta`, `resultType`, a response's `id` or a field of a
            # server's own passed in before), the result or the response around it within the
            # bounds the bytes are held to.
            admit(result, self._max_depth, max_values(self._max_bytes))
        try:
            envelope = envelope_from_dict(result)
        except ValidationFailed:
            # A wrong shape is said as the envelope's decoder says it of the document's bytes (of
            # its JSON, for a dict), naming what it expected.
            failure = shape_failure(given if is_bytes else _encode(result))
            if failure is None:  # pragma: no cover - the bytes are refused too
                raise
            raise failure from None
        structured = envelope.structured_content
        if structured is not UNSET and output is not None and not envelope.is_error:
            self.validate_structured(name, structured)  # held whole above: the output check is all
        if output is not None and not envelope.is_error and envelope.structured_content is UNSET:
            raise envelope_failure(
                f"tool {name!r} declares an outputSchema, so its result must carry structuredContent",
                "/structuredContent",
            )
        return with_text_fallback(envelope) if require_text_fallback else envelope

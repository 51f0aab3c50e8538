"""The bound readers of a compiled schema's documents: bytes (or text) to a checked value, each
built once per schema and reused on every call (see ``CompiledSchema.decode``).

A schema that translates to msgspec types is read in one typed pass where that can be shown to
be exact, and on the general path (the bounded parse, then the general backend, which explains)
wherever it cannot: a typed refusal is judged again there, never trusted.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

import msgspec

from ._decode import (
    LEVELS_READ,
    SHOWN_LEVELS,
    as_bytes,
    colons,
    colons_at_most,
    decode_json,
    held_nesting,
    levels_parser,
    member_colons,
    surely_within,
    too_short_to_nest,
    view_over,
    within_depth,
)
from ._instance import referents

if TYPE_CHECKING:
    from ._errors import ValidationFailed

__all__ = [
    "HotPath",
    "WARMING_PARSE",
    "ShortPath",
    "counted_then_parsed",
    "general_short_path",
    "no_short_path",
    "one_pass_then_general",
    "typed_then_held",
    "warming_then_settled",
]

_parse = msgspec.json.decode
# The plain parse under another name: the short path's decode while a schema warms up, so that a
# caller keeping the path sees it change when the settled reader's replaces it.
WARMING_PARSE = msgspec.json.Decoder().decode
_SETTLING = threading.Lock()
# Finding colons one at a time (see `colons_at_most`) costs a call each, counting them a few
# tenths of a nanosecond a byte: past this length, with a call for every this many bytes or more.
_FIND_COLONS_AFTER = 4096
_BYTES_PER_FIND = 256


def _as_many_colons(data: bytes | bytearray | memoryview | str, members: int, size: int) -> bool:
    """Whether ``data`` holds no more colons than ``members`` (it holds at least as many: one per
    member): counted (``colons``, inline for bytes), or, in a long document with few members,
    found one at a time (see :func:`~engine._decode.colons_at_most`)."""
    if size > _FIND_COLONS_AFTER and (members + 1) * _BYTES_PER_FIND < size:
        return colons_at_most(data, members)
    return (data.count(b":") if type(data) is bytes else colons(data)) == members


class HotPath(NamedTuple):
    """See :meth:`CompiledSchema.hot_path`."""

    check: Callable[[Any], bool]
    max_bytes: int
    max_depth: int
    failure: Callable[..., ValidationFailed]
    """The explanation of a value ``check`` refused: ``failure(value, width=None, under="")``
    (``width``: at least how many values it holds, where known without a walk; ``under``: where
    the value is in the document holding it)."""
    screened: Callable[[Any], bool]
    """``check`` for a value found to hold no integer past 64 bits (its msgpack pass did not
    overflow) nor float, or read from a document of at most ``cheap`` bytes, too short for them to
    cost the validation-work budget: nothing of it weighed for them (see ``engine._numbers``)."""
    cheap: int
    sized: Callable[[Any, int], bool]
    """``check`` for the value of a document of the given length (``screened`` where it is short
    enough: see ``engine._numbers.weigh_large_integers``)."""
    floated: Callable[[Any, int], bool] | None
    """``check`` for a value holding no integer past 64 bits and the given count of floats (one of
    few floats is checked as ``screened``); ``None`` where the schema compares no number."""


ShortPath = list[Any]
"""The commonest read of a schema's documents, for callers that inline it (``ToolSet``):
``[decode, limit, count, unshown, read, check, left, slow]``, in one of two modes, for a
``bytes`` document of at most ``limit`` bytes (``limit`` -1: none):

- *typed* (``count`` is not ``None``, ``check`` and ``left`` are): ``value = decode(data)``; if
  that does not raise and ``data`` holds exactly ``members = count(value)`` colons, ``value`` is
  the answer (see :func:`counted_then_parsed`); if it does not raise, otherwise,
  ``unshown(data, value, members)`` is;
- *general* (``count`` and ``unshown`` are ``None``): ``decode`` is the plain parse and ``check``
  the backend's check of its value (the document too short to nest past the depth bound, or the
  schema sealed): a value it accepts is the answer. ``left`` is ``None`` where the schema has no
  typed read, else a one-item list counting the documents still to be read so: a caller takes
  one before each such read, and gives a document to ``read`` when none is left (which goes back
  to the typed mode when the typed decode reads it).

Any other document goes to ``read``, the schema's reader; one ``decode`` raises on or ``check``
refuses, to ``slow``, the general path, which is exact and explains (``read`` would try the same
read again first). A reader with neither read (:func:`no_short_path`) has ``limit`` -1. A list
the reader changes (whole, from one mode to the other): a caller keeping a tuple of it (unpacked
faster than the list) takes it again after a call in which ``decode`` changed."""


def one_pass_then_general(
    decoder: Callable[[Any], Any], slow: Callable[[Any], Any], max_bytes: int, max_depth: int
) -> Callable[[bytes | bytearray | memoryview | str], Any]:
    """The reader of another backend's one-pass decoder (it parses and checks, and returns the
    value), with every refusal judged again by ``slow``, the general path."""
    within = surely_within(max_bytes)  # longer: measured in bytes by the general path
    short = too_short_to_nest(max_depth)

    def read_bounded(data: bytes | bytearray | memoryview | str) -> Any:
        if type(data) is not bytes and type(data) is not str:  # a view in bytes; a subclass by what it holds
            if type(data) is memoryview and view_over(data, within):
                return slow(data)  # measured there before it is copied
            data = as_bytes(data)
        size = len(data)
        # The depth shown from the bytes needs no walk of the value.
        if size <= within and (size <= short or within_depth(data, max_depth)):
            try:
                return decoder(data)
            except Exception:  # noqa: BLE001 - a refusal is re-judged below, never trusted
                pass
        return slow(data)

    return read_bounded


def no_short_path(read: Callable[[bytes | bytearray | memoryview | str], Any]) -> ShortPath:
    """The :data:`ShortPath` of a reader that reads every document itself."""
    return [None, -1, len, None, read, None, None, read]


def general_short_path(
    read: Callable[[bytes | bytearray | memoryview | str], Any], check: Callable[[Any], bool], limit: int
) -> ShortPath:
    """The :data:`ShortPath` of a schema read on the general path alone (the parse, the backend's
    check): in the general mode for good, for documents of at most ``limit`` bytes (too short to
    nest past the depth bound, and within the size bound)."""
    return [_parse, limit, None, None, read, check, None, read]


def warming_then_settled(
    general: Callable[[bytes | bytearray | memoryview | str], Any],
    check: Callable[[Any], bool],
    limit: int,
    settle: Callable[[ShortPath], Callable[[bytes | bytearray | memoryview | str], Any] | None],
    *,
    documents: int,
) -> ShortPath:
    """The :data:`ShortPath` of a schema whose reader (through msgspec types, where it
    translates) is not built yet, its ``read`` the warming reader. The first ``documents``
    documents are read on the general path, ``general`` (the parse and the backend's check, what
    the raw library costs), the short ones (at most ``limit`` bytes) inline by callers of the short
    path, in its general mode, whose ``left`` counts them. The next calls ``settle(path)``, which
    builds the settled reader, writes its short path into ``path`` (the list callers keep) and
    returns the reader (``None``: the schema is gone); the warming reader hands every document to
    it from then on."""
    left = [documents]
    path: ShortPath = [WARMING_PARSE, limit, None, None, None, check, left, general]
    settled: list[Callable[[Any], Any]] = []

    def read(data: bytes | bytearray | memoryview | str) -> Any:
        if settled:  # a caller kept this reader
            return settled[0](data)
        if left[0] > 0:
            left[0] -= 1  # a lost update between threads only moves the build
            return general(data)
        with _SETTLING:  # built once, whichever thread comes first
            if not settled:
                built = settle(path)
                if built is None:  # the schema is gone, a caller kept its reader
                    return general(data)
                settled.append(built)
        return settled[0](data)

    path[4] = read
    return path


# How many documents after one the typed decode had to read again go straight to the general
# path; the next goes to the typed decode again, to see whether they still need it.
_GENERAL_FOR = 128


def counted_then_parsed(
    decode: Callable[[Any], Any],
    count: Callable[[Any], int],
    *,
    exact: bool,
    bounded: bool,
    checks: tuple[Callable[[Any], bool], int, Callable[[Any, int], bool]],
    sealed: bool,
    slow: Callable[[Any], Any],
    max_bytes: int,
    max_depth: int,
    into: ShortPath | None = None,
) -> tuple[Callable[[bytes | bytearray | memoryview | str], Any], ShortPath]:
    """The reader of a schema that translates to msgspec types, and its :data:`ShortPath`
    (``into``, where given: a list callers keep already, its items replaced).
    ``decode`` goes through TypedDicts: one pass checks and gives the plain value, keys in
    document order, but skips the properties a TypedDict does not name. So a value it returns is
    the answer only where the document shows it skipped nothing: it holds no more members than
    ``count(value)``, the members of the value's objects, shown by counting colons (see
    :func:`~engine._decode.colons` and :func:`~engine._decode.member_colons`). Anything else is
    judged again by ``slow``, the general path (the parse, then the general backend), which is
    exact and explains.

    ``exact``: no object of the schema refuses unnamed properties, so whatever ``decode`` accepts
    is valid, and a document whose colons outnumber the members is parsed for its value (the
    second count, which tells colons in strings from skipped members, is for the other schemas,
    where a skipped member sends the document to ``slow``).

    A document whose colons outnumber its members (text holding colons: URLs, times, code; or a
    member the types skip) costs the typed decode and a second read. The documents of one tool
    tend to be alike, so after such a document the next ``_GENERAL_FOR`` are read as ``slow``
    reads them, inline (one parse and the backend's check, what the raw library costs: 1 KB of
    text holding colons, 3.6 -> 2.4x the parse; a short one, inline in ``ToolSet`` through the
    short path's general mode, 1.9 -> 1.4x the raw library), and the one after by the typed
    decode again, which keeps them there while they still need it. A hint only: both reads are
    exact.

    ``bounded``: the type nests no deeper than ``max_depth``, so a value from which nothing was
    skipped is within the bound; otherwise a document longer than the bound's brackets is
    decoded (msgspec bounds its own recursion) and shown within the bound by its decoded value
    (see :func:`~engine._decode.held_nesting`), a parsed document the same way.

    ``checks``: the backend's check of the value of a document of at most so many bytes, that
    length, and the check of a longer document's value given its length (see
    ``CompiledSchema``: integers past 64 bits are weighed in a long one)."""
    parse = _parse
    within = surely_within(max_bytes)  # longer: measured in bytes by the general path
    short = min(too_short_to_nest(max_depth), within)
    limit = within if bounded else short
    inline = min(limit, _FIND_COLONS_AFTER)  # longer: read by `read`, whose colon check fits it
    held = max_depth + 1  # what `held_nesting` of a value within the bound says, at most
    # A value whose children hold nothing nests two levels at most: within a bound of two or more
    # (see `LEVELS_READ`).
    two_levels_within = LEVELS_READ and max_depth >= 2
    # How many more documents go to the general read first, and the short path in each mode.
    to_general = [0]
    # Whether the general mode's long documents are parsed by a `levels_parser`, which shows their
    # depth as it parses: until one nests deeper (the documents of one tool are alike).
    shallow = [max_depth >= 2 and not sealed]
    parse_levels = levels_parser(min(SHOWN_LEVELS, max_depth)) if shallow[0] else parse  # never used then
    cheap_check, cheap, sized = checks
    typed_mode: ShortPath = [decode, inline, count, None, None, None, None, slow]
    general_mode: ShortPath = [
        parse,
        min(within if sealed else short, cheap),
        None,
        None,
        None,
        cheap_check,
        to_general,
        slow,
    ]
    short_path: ShortPath = [] if into is None else into

    def unshown(data: bytes | bytearray | memoryview | str, value: Any, members: int) -> Any:
        # `data` holds more colons than `value` has members: strings hold some, or members were
        # skipped. The next documents are likely alike: they are read as `slow` reads them, the
        # short ones inline by the caller (see above).
        to_general[0] = _GENERAL_FOR
        short_path[:] = general_mode
        if exact:
            # Valid, whatever was skipped: parsed for the value. Counting the colons again would
            # cost more than the parse (1.4 decodes against 1 over the corpus arguments with a
            # property added), and the parse is needed when members were skipped.
            try:
                whole = parse(data)
            except Exception:  # noqa: BLE001 - the general path names the reason
                return slow(data)
            if (
                len(data) <= short
                or (two_levels_within and not referents(*referents(whole)))
                or held_nesting([whole], held + 1) <= held
            ):
                return whole
        elif member_colons(data) == members:
            return value  # nothing skipped: within the bound as `read` showed, or as its type is
        return slow(data)

    def read(data: bytes | bytearray | memoryview | str) -> Any:
        if type(data) is not bytes and type(data) is not str:  # a view in bytes; a subclass by what it holds
            if type(data) is memoryview and view_over(data, within):
                return slow(data)  # measured there before it is copied
            data = as_bytes(data)
        size = len(data)
        if size > within:
            return slow(data)
        if to_general[0]:
            to_general[0] -= 1  # a lost update between threads only moves the next retry
            # The general path's read, inline (its frame was a third of a short document's
            # cost): one parse and the backend's check; the depth shown by the values, or by
            # validity where the schema is sealed. Anything else is read by `slow`, which explains.
            try:
                if size > short and shallow[0]:
                    try:
                        value = parse_levels(data)
                    except msgspec.ValidationError:
                        shallow[0] = False  # nests deeper (or a number out of range): not tried again
                        return slow(data)
                    if cheap_check(value) if size <= cheap else sized(value, size):
                        return value
                    return slow(data)
                value = parse(data)
                if (
                    sealed
                    or size <= short
                    or (two_levels_within and not referents(*referents(value)))
                    or held_nesting([value], held + 1) <= held
                ) and (cheap_check(value) if size <= cheap else sized(value, size)):
                    return value
            except Exception:  # noqa: BLE001,S110 - judged again by the general path, never trusted
                pass
            return slow(data)
        try:
            value = decode(data)
        except Exception:  # noqa: BLE001 - a typed refusal is re-judged, never trusted
            return slow(data)
        if (
            size > limit
            and (not two_levels_within or referents(*referents(value)))
            and held_nesting([value], held + 1) > held
        ):
            return slow(data)  # measures the depth, as every document's is
        members = count(value)
        # The commonest count inline (a frame is a tenth of reading a short document).
        if (
            data.count(b":") == members
            if type(data) is bytes and size <= _FIND_COLONS_AFTER
            else _as_many_colons(data, members, size)
        ):
            if short_path[0] is not decode:
                short_path[:] = typed_mode  # read once: the next short ones inline again
            return value
        return unshown(data, value, members)

    typed_mode[3:5] = unshown, read
    general_mode[4] = read
    short_path[:] = typed_mode
    return read, short_path


def typed_then_held(
    decode: Callable[[Any], Any],
    count: Callable[[Any], int] | None,
    *,
    bounded: bool,
    slow: Callable[[Any], Any],
    max_bytes: int,
    max_depth: int,
    sealed: tuple[Callable[[Any], Any], bool, Callable[[Any], Any]] | None = None,
) -> Callable[[bytes | bytearray | memoryview | str], Any]:
    """The reader of ``decode_typed``: ``decode`` goes through Structs that ignore the properties
    the schema does not name (whatever it accepts is valid, since the schema admits any value
    there) and returns the typed value. A skipped member's bytes are not read as JSON (invalid
    UTF-8 and numbers out of range pass), so the value is the answer where the document shows it
    skipped nothing, as many colons as ``count(value)`` members (see :func:`counted_then_parsed`);
    otherwise (colons in strings, or members skipped) the document is first held to JSON by the
    bounded parse, which raises as ``decode`` does. ``count`` is ``None`` where no object admits
    unnamed properties: nothing is skipped. ``bounded``: the type nests no deeper than
    ``max_depth``; otherwise a document longer than the bound's brackets has its depth shown from
    its bytes first. Every refusal is judged again by ``slow``, the general path.

    ``sealed``: (the decode through Structs that refuse unnamed properties, whether their type
    nests within ``max_depth``, the conversion of a value of ``decode`` to them). A document they
    decode skipped nothing and had every byte read: their value is the answer, with no count (the
    commonest document; counting its members cost as much as decoding it). Any other is read as
    above, its Struct converted to them, so that one set of Struct types is returned."""
    within = surely_within(max_bytes)  # longer: measured in bytes by the general path
    short = min(too_short_to_nest(max_depth), within)
    limit = within if bounded else short

    def held(data: bytes | bytearray | memoryview | str, size: int) -> Any:
        if size <= limit or (size <= within and within_depth(data, max_depth)):
            try:
                value = decode(data)
            except Exception:  # noqa: BLE001 - a typed refusal is re-judged, never trusted
                return slow(data)
            if count is not None and (data.count(b":") if type(data) is bytes else colons(data)) != count(value):
                # Skipped members nest as deep as they like: a depth not shown yet is shown here.
                decode_json(data, max_bytes=max_bytes, max_depth=max_depth if size <= limit else None)
            return value
        return slow(data)

    if sealed is None:

        def read(data: bytes | bytearray | memoryview | str) -> Any:
            if type(data) is not bytes and type(data) is not str:  # a view in bytes; a subclass by what it holds
                if type(data) is memoryview and view_over(data, within):
                    return slow(data)  # measured there before it is copied
                data = as_bytes(data)
            return held(data, len(data))

        return read
    sealed_decode, sealed_bounded, to_sealed = sealed
    sealed_limit = within if sealed_bounded else short

    def read_sealed(data: bytes | bytearray | memoryview | str) -> Any:
        if type(data) is not bytes and type(data) is not str:  # a view in bytes; a subclass by what it holds
            if type(data) is memoryview and view_over(data, within):
                return slow(data)  # measured there before it is copied
            data = as_bytes(data)
        size = len(data)
        if size <= sealed_limit or (size <= within and within_depth(data, max_depth)):
            try:
                return sealed_decode(data)
            except Exception:  # noqa: BLE001,S110 - an unnamed member, or judged again below
                pass
        value = held(data, size)
        # The general path's plain value where the typed decode refused a valid document.
        return to_sealed(value) if isinstance(value, msgspec.Struct) else value

    return read_sealed

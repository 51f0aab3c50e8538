"""Bytes to a JSON value, bounded: size, nesting depth, encoding and number range."""

from __future__ import annotations

import gc
import re
from collections.abc import Callable
from functools import cache
from itertools import chain, compress, repeat
from operator import not_
from typing import Any, Union

import msgspec

from ._errors import DecodeError, DecodeReason
from ._instance import TOO_MANY_DIGITS, referents
from ._slow_numbers import MOST_SLOW, SCREENED_PAST, far_exponents_over, without_escaped_quotes

__all__ = [
    "LEVELS_READ",
    "SHOWN_LEVELS",
    "as_bytes",
    "brackets",
    "check_depth",
    "colons",
    "colons_at_most",
    "decode_json",
    "held_nesting",
    "json_levels",
    "levels_parser",
    "member_colons",
    "PARSE_REFUSALS",
    "nesting",
    "parse_refusal",
    "short_bytes",
    "surely_within",
    "syntax_error",
    "too_short_to_nest",
    "within_depth",
]

LEVELS_READ = referents is gc.get_referents
"""Whether ``referents`` reads a level of decoded values in one call (CPython's): then a value for
which ``referents(*referents(value))`` is empty (its children hold nothing: an object of scalars,
most documents) nests at most two levels, shown by two calls where :func:`held_nesting` costs a
frame and a loop (a fifth of parsing 1 KB of text)."""

_decode = msgspec.json.decode


SHOWN_LEVELS = 6
"""The most levels a :func:`levels_parser` shows as it parses. Its decoder is built once, on first
use (msgspec reads every branch of the unions: 0.2 ms for 4 levels, 0.6 ms for 6, 3 ms for 8), and
parses at the plain parse's speed whatever the levels (10 to 1,000 free-form records: 1.00-1.02x
the time of ``msgspec.json.decode``, where the parse and a bracket count cost 1.15-1.26x)."""


def json_levels(levels: int) -> Any:
    """The msgspec type of a JSON value nesting at most ``levels`` arrays and objects: unions of
    the JSON types, which msgspec reads at the plain parse's speed (each number by its token, as
    the plain parse reads it)."""
    kind: Any = Union[None, bool, int, float, str]  # noqa: UP007 - a union built of types
    for _ in range(levels):
        kind = Union[None, bool, int, float, str, list[kind], dict[str, kind]]  # noqa: UP007
    return kind


@cache
def levels_parser(levels: int) -> Callable[[bytes | bytearray | memoryview | str], Any]:
    """The plain parse of a document that nests arrays and objects at most ``levels`` deep, shown
    as it parses: the value ``msgspec.json.decode`` gives, at its speed, and a
    ``msgspec.ValidationError`` for a document nesting deeper (or for a number out of range, which
    the plain parse refuses too). Where a long document is read on the general path, its depth
    proof after the parse cost a fifth of parsing 1 KB of text (two ``referents`` calls), and a
    bracket count 0.15-0.25x the parse of 10 to 1,000 records."""
    decode: Callable[[bytes | bytearray | memoryview | str], Any] = msgspec.json.Decoder(json_levels(levels)).decode
    return decode


_OFFSET = re.compile(r"\(byte (\d+)\)")
# Every escape of a JSON text, left to right as a string reads them: a surrogate pair, a lone
# surrogate (group 1), or any other escape, an escaped backslash among them.
_ESCAPES = re.compile(
    rb"\\(?:u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|(u[dD][89a-fA-F][0-9a-fA-F]{2})|.)", re.S
)
_NON_FINITE = (b"NaN", b"Infinity", b"-Infinity", b"+Infinity", b"-NaN")


def as_bytes(data: Any) -> Any:
    """``data`` as a document whose ``len`` counts what a parser reads: a ``memoryview`` of wider items
    (``len`` counts items, while a JSON parser reads every byte), of several dimensions or
    strided, as its bytes; a subclass of ``bytes``, ``str`` or ``bytearray`` as an exact copy of
    what it holds (its own methods, ``__len__`` or ``__str__`` among them, may say anything and
    are never called); any other buffer as a view of its bytes; anything else is a
    ``TypeError``. Every limit on a document is read from ``len``, so every entry point taking
    anything but exact ``bytes`` passes it through this first (a view measured by ``nbytes``
    before, where it may be over the bound: a copy of a strided one costs)."""
    kind = type(data)
    if kind is bytes or kind is str or kind is bytearray:
        return data
    if kind is memoryview:
        if data.itemsize != 1 or data.ndim != 1 or not data.c_contiguous:
            return data.cast("B") if data.c_contiguous else data.tobytes()
        return data
    # Kinds read from `type()`: an object can claim any class through `__class__`.
    if issubclass(kind, bytes):
        return bytes.__getitem__(data, slice(None))
    if issubclass(kind, str):
        return str.__str__(data)
    if issubclass(kind, bytearray):
        return bytes(memoryview(data))
    try:  # any other buffer (`array.array`, `msgspec.Raw`, a ctypes array): `len` may count its items
        view = memoryview(data)
    except TypeError:
        raise TypeError(
            f"a JSON document is bytes, text or a buffer, not {kind.__name__}"
            " (a Python value is checked by is_valid, validate or checked)"
        ) from None
    return as_bytes(view)


def short_bytes(data: Any, within: int) -> bytes | None:
    """The bytes of JSON text (its UTF-8) or of a buffer (a ``bytearray``, a ``memoryview`` of any
    items or layout) of at most ``within`` characters or bytes, for a reader that reads bytes
    fastest; ``None`` for anything else: longer (measured before anything is copied), text with a
    lone surrogate (no UTF-8 spells it), a released view, any other type. Those go to the reader
    that takes every form and says what is wrong."""
    kind = type(data)
    if kind is str:
        if len(data) <= within:
            try:
                return str.encode(data)
            except UnicodeEncodeError:
                return None
    elif kind is bytearray or kind is memoryview:
        try:
            size = len(data) if kind is bytearray else data.nbytes  # in bytes, whatever its items
        except ValueError:  # a released view
            return None
        if size <= within:
            return bytes(as_bytes(data))
    return None


def view_over(view: memoryview, within: int) -> bool:
    """Whether ``view`` holds more than ``within`` bytes, or is released (either way, for the
    reader that measures every form, :func:`decode_json`, which says what is wrong with it)."""
    try:
        return view.nbytes > within
    except ValueError:
        return True


def surely_within(max_bytes: int) -> int:
    """The longest document, given as bytes or as text, that is within ``max_bytes`` bytes of
    UTF-8 whatever it holds (a character takes at most four), and no longer than
    :data:`SCREENED_PAST`. The bound readers compare a document's length with it, so text needs no
    encoding to be measured nor its numbers screening; a longer document goes to
    :func:`decode_json`, which measures text in bytes and screens its numbers."""
    return min(max_bytes // 4, SCREENED_PAST)


PARSE_REFUSALS = (msgspec.ValidationError, msgspec.DecodeError, RecursionError, UnicodeEncodeError)
"""What ``msgspec.json.decode`` raises on a document it refuses (see :func:`parse_refusal`)."""


def decode_json(data: bytes | bytearray | memoryview | str, *, max_bytes: int, max_depth: int | None = None) -> Any:
    """Parse one JSON document; every failure is a :class:`DecodeError` with its reason. Text is
    measured in the bytes of its UTF-8 (the limits are in bytes), not in characters."""
    if type(data) is memoryview:
        try:
            size = data.nbytes  # measured before a strided view is copied
        except ValueError:  # released
            raise DecodeError(
                DecodeReason.NOT_JSON, "document is a released memoryview: it holds no bytes to read"
            ) from None
        if size > max_bytes:
            raise DecodeError(DecodeReason.TOO_LARGE, f"document is {size} bytes, over the limit of {max_bytes}")
    data = as_bytes(data)  # exact `str` or a buffer from here: a subclass's methods are never called
    at_least = ""
    size = len(data)
    if type(data) is str and size > surely_within(max_bytes) and not data.isascii():
        if size <= max_bytes:
            size = len(data.encode("utf-8", "surrogatepass"))
        else:
            at_least = "at least "  # more characters than the limit has bytes: not encoded
    if size > max_bytes:
        raise DecodeError(DecodeReason.TOO_LARGE, f"document is {at_least}{size} bytes, over the limit of {max_bytes}")
    if size > SCREENED_PAST and far_exponents_over(data):
        raise DecodeError(
            DecodeReason.TOO_LARGE,
            f"document holds more than {MOST_SLOW} numbers with an exponent of 289 or more, each of which "
            "takes msgspec some 10 us to parse",
        )
    # The collector paused while a long document is parsed: each of its containers is an object
    # it tracks, and the collections their allocations set off walk all of them again (3.9
    # million nested empty lists in 7.8 MB: 2.5 s parsed with it running, 0.8 s paused).
    paused = size > SCREENED_PAST and gc.isenabled()
    if paused:
        gc.disable()
    try:
        value = _decode(data)
    except PARSE_REFUSALS as exc:
        raise parse_refusal(exc, data) from None
    finally:
        if paused:
            gc.enable()
    if max_depth is not None and size > too_short_to_nest(max_depth):
        check_depth(value, max_depth)
    return value


def parse_refusal(exc: Exception, data: bytes | bytearray | memoryview | str) -> DecodeError:
    """The :class:`DecodeError` for what ``msgspec.json.decode`` raised on ``data`` (within the
    size bound), so that a reader whose plain parse failed names the reason without
    parsing again: a number beyond the float range, or a syntax error (see :func:`syntax_error`)."""
    if isinstance(exc, msgspec.ValidationError):  # raised for numbers beyond the float range
        return out_of_range(exc)
    return syntax_error(exc, data)


def out_of_range(exc: msgspec.ValidationError) -> DecodeError:
    """The :class:`DecodeError` for a number msgspec does not read, and where: one no float holds
    ("Number out of range"), or an integer of too many digits ("Integer value out of range":
    msgspec reads integers of at most 4300 characters, whatever their value, where the float
    range was blamed for a 5001-digit integer)."""
    text, _, where = str(exc).partition(" - ")
    if text.startswith("Integer"):
        what = TOO_MANY_DIGITS
    else:
        what = "a number is beyond the range of a 64-bit float"
    return DecodeError(DecodeReason.NUMBER_OUT_OF_RANGE, what + (f" ({where})" if where else ""))


def syntax_error(exc: Exception, data: bytes | bytearray | memoryview | str) -> DecodeError:
    """The :class:`DecodeError` for a parse failure of ``data`` (every msgspec decoder's)."""
    if isinstance(exc, RecursionError):
        return DecodeError(DecodeReason.TOO_DEEP, "document nests too deeply to decode")
    if isinstance(exc, UnicodeEncodeError):  # text with lone surrogates: no UTF-8 document spells it
        return DecodeError(DecodeReason.INVALID_UTF8, f"not valid JSON text: {exc}")
    text = str(exc)
    if "surrogate" in text or "truncated" in text:
        # A `\ud800` escape with no pair spells a lone surrogate: no UTF-8 text holds one, and a
        # Python string holding one is refused the same way. msgspec says "invalid utf-16
        # surrogate pair", or, for one that ends its string, "Input data was truncated".
        lone = lone_surrogate(data)
        if lone is not None:
            escape, at = lone
            return DecodeError(
                DecodeReason.INVALID_UTF8,
                f"not valid JSON: the escape {escape} (byte {at}) is a lone surrogate, half of a UTF-16 pair, "
                "not a character UTF-8 can hold",
            )
    if "UTF-8" in text or "surrogate" in text:
        return DecodeError(DecodeReason.INVALID_UTF8, f"not valid JSON: {text}")
    if _non_finite_at(data, text):
        return DecodeError(
            DecodeReason.NON_FINITE_NUMBER, f"not valid JSON: NaN and Infinity are not JSON numbers ({text})"
        )
    return DecodeError(DecodeReason.MALFORMED_JSON, f"not valid JSON: {text}")


def lone_surrogate(data: bytes | bytearray | memoryview | str) -> tuple[str, int] | None:
    """The first ``\\uXXXX`` escape of ``data`` that spells half a surrogate pair alone, and the
    byte it starts at; ``None`` if every surrogate escape is paired (a pair spells one character)."""
    raw = _raw(data)
    if b"\\" not in raw:
        return None
    for escape in _ESCAPES.finditer(raw):
        if escape.group(1) is not None:
            return escape.group(0).decode("ascii"), escape.start()
    return None


def brackets(data: bytes | bytearray | memoryview | str) -> int:
    """How many arrays and objects JSON ``data`` opens (at most), an upper bound of its nesting
    depth. The length the brackets take out: one C pass, where ``count`` takes one per bracket
    and does not run at memchr speed either (0.7x the time of two counts on 0.1 to 128 KB)."""
    if type(data) is bytes:
        return len(data) - len(data.translate(None, b"[{"))
    if isinstance(data, str):
        return data.count("[") + data.count("{")
    if not isinstance(data, bytearray):
        data = memoryview(data).tobytes()  # msgspec.Raw and other buffers
    return len(data) - len(data.translate(None, b"[{"))


def too_short_to_nest(max_depth: int) -> int:
    """The longest document that cannot nest past ``max_depth``: each level takes an opening
    and a closing bracket, so nesting one level deeper takes ``2 * (max_depth + 1)`` bytes."""
    return 2 * max_depth + 1


def within_depth(data: bytes | bytearray | memoryview | str, max_depth: int) -> bool:
    """Whether the JSON document ``data`` provably nests no deeper than ``max_depth``, read from its
    bytes in a few C passes; ``False`` when that is not shown (then the parsed value is walked).

    Only meaningful for a document that parses: callers parse it too, and a document that does
    not parse is refused whatever this says. Fewer brackets than the bound settle it at once;
    otherwise the structure is read from the bytes: escaped backslashes and quotes removed, every
    byte but brackets and quotes dropped (``{}`` read as ``[]``), the strings removed, and then the
    innermost pairs, one level per pass. A document whose depth takes many slow passes is left to
    the walk, so the passes cost a few times the document's length at most."""
    if len(data) <= 2 * max_depth + 1:  # too short to nest deeper (see `too_short_to_nest`)
        return True
    if type(data) is not bytes and not isinstance(data, bytearray):
        data = _raw(data)
    if brackets(data) <= max_depth:
        return True
    # Every other escape is a backslash and a letter or a slash, dropped with the rest below.
    data = without_escaped_quotes(data)
    structure = data.translate(_SQUARE, _NOT_STRUCTURE)
    if b'"' in structure:
        # Quotes now alternate, opening and closing each string, and a string is `""` unless it
        # holds a bracket. Taking out adjacent pairs keeps them alternating; what is left between
        # an opening quote and the next is string content, dropped with them.
        structure = structure.replace(b'""', b"")
        quotes = structure.count(b'"')
        if quotes:
            # One piece per quote, each a small object: past one per 16 bytes of the document,
            # the walk is left to decide rather than copies larger than the document.
            if quotes % 2 or quotes > max(len(data) // 16, 64):  # an odd number: not a document
                return False
            structure = b"".join(structure.split(b'"')[::2])
    for _ in range(max_depth):
        if not structure:
            return True
        inner = structure.replace(b"[]", b"")
        # No progress (not a document), or little on a long rest (a narrow, deep shape): the walk
        # of the parsed value decides at a cost bounded by the value.
        if len(inner) == len(structure) or (len(structure) > _SLOW_PASS_AFTER and len(inner) * 4 > len(structure) * 3):
            return False
        structure = inner
    return not structure


# What `within_depth` keeps of a document: brackets (braces read as brackets) and quotes.
_SQUARE = bytes.maketrans(b"{}", b"[]")
_NOT_STRUCTURE = bytes(byte for byte in range(256) if byte not in b'[]{}"')
_SLOW_PASS_AFTER = 4096  # bytes of structure left over which a pass must remove a quarter


def colons(data: bytes | bytearray | memoryview | str) -> int:
    """How many colons the JSON document ``data`` holds, strings included: at least one per object
    member (after its key), so a typed decode through TypedDicts (which skip the properties they
    do not name) whose value holds as many members skipped none. One C pass: ``count`` of one byte
    costs about half a ``translate`` that deletes it."""
    if isinstance(data, str):
        return data.count(":")
    if type(data) is not bytes and not isinstance(data, bytearray):
        data = _raw(data)
    return data.count(b":")


def colons_at_most(data: bytes | bytearray | memoryview | str, most: int) -> bool:
    """Whether the JSON document ``data`` holds no more than ``most`` colons, found one at a time
    (``find`` runs at ``memchr`` speed, where :func:`colons` reads every byte at a few times
    that): for a long document that holds few, mostly text (50 KB of it: 0.3 us for three
    colons, against 14 us to count them all). ``most + 1`` calls at most."""
    if type(data) is not bytes and not isinstance(data, (bytearray, str)):
        data = _raw(data)  # a memoryview (no `find`), or another buffer
    find = data.find
    colon: Any = ":" if isinstance(data, str) else b":"
    at = -1
    for _ in range(most + 1):
        at = find(colon, at + 1)
        if at < 0:
            return True
    return False


def member_colons(data: bytes | bytearray | memoryview | str) -> int:
    """How many colons of the JSON document ``data`` follow a closing quote once its whitespace is
    taken out: at least one per object member (its key's closing quote, then its colon), where
    :func:`colons` also counts the colons strings hold (URLs, times, JSON text). A quote escaped
    in a string is not counted (``\\":``), escaped backslashes read first, left to right, as a
    string reads its escapes; taking whitespace out of strings may join a quote and a colon, which
    only counts more. A few C passes."""
    if isinstance(data, str):
        # Text by `replace`: `str.translate` runs a Python-level lookup per character of non-ASCII
        # text (about 100 ms a megabyte, three decodes' worth), `replace` at C speed.
        data = data.replace("\\\\", "") if "\\" in data else data
        data = data.replace(" ", "").replace("\t", "").replace("\n", "").replace("\r", "")
        return data.count('":') - data.count('\\":')
    if type(data) is not bytes and not isinstance(data, bytearray):
        data = _raw(data)
    if b"\\" in data:
        data = data.replace(b"\\\\", b"").translate(None, b" \t\n\r")
        return data.count(b'":') - data.count(b'\\":')
    return data.translate(None, b" \t\n\r").count(b'":')


def _raw(data: bytes | bytearray | memoryview | str) -> bytes:
    return data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)


def _non_finite_at(data: bytes | bytearray | memoryview | str, message: str) -> bool:
    if type(data) is bytes and b"NaN" not in data and b"Infinity" not in data:
        return False  # spelled nowhere (two searches at memchr speed; the message's less often)
    match = _OFFSET.search(message)
    if match is None:
        return False
    at = int(match.group(1))
    raw = data.encode() if isinstance(data, str) else bytes(data)
    return raw[at : at + 9].startswith(_NON_FINITE) or raw[max(at - 1, 0) : at + 9].startswith(_NON_FINITE)


def check_depth(value: Any, max_depth: int) -> None:
    """Raise ``DecodeError(too-deep)`` if the decoded JSON ``value`` nests arrays and objects
    deeper than ``max_depth``. Its referents first, a level at a time (:func:`held_nesting`, whose
    cost follows the values, not the bytes, and which reads no type): past the bound by two, it
    is over (that count is one level cautious at most); by one exactly, the levels are counted
    exactly (:func:`decoded_nesting`). A hostile document nesting a few hundred levels was walked
    a second time at 2 us a level: 0.4 ms for 600 bytes."""
    held = held_nesting([value], max_depth + 2)  # the depth of an array holding it, or one over
    if held > max_depth + 2 or (held > max_depth + 1 and decoded_nesting(value, max_depth + 1) > max_depth):
        raise DecodeError(DecodeReason.TOO_DEEP, f"instance nests more than {max_depth} levels deep")


_DECODED_CONTAINERS = frozenset({dict, list})


def decoded_nesting(value: Any, stop: int) -> int:
    """:func:`nesting` of a *decoded* JSON value (its containers exactly dicts with string keys,
    and lists), counted up to ``stop``: one ``gc.get_referents`` call a level (a level with
    values below it holds a container), and the types of the deepest level read once (an empty
    array or object there is one level more)."""
    if referents is not gc.get_referents:  # pragma: no cover - CPython reads levels in one call
        return nesting(value, stop)
    if type(value) not in _DECODED_CONTAINERS or stop < 1:
        return 0
    depth = 1
    level = referents(value)
    while level and depth < stop:
        below = referents(*level)
        if not below:  # nothing deeper: a container here is empty, and one level more
            return depth + 1 if any(map(_DECODED_CONTAINERS.__contains__, map(type, level))) else depth
        depth += 1
        level = below
    return depth


def nesting(value: Any, stop: int) -> int:
    """How deeply ``value`` nests arrays and objects (a scalar: 0), counted up to ``stop``.

    Level by level, and every step of a level runs in C (``map``, ``compress``, ``chain``): a
    Python step per level, not per value, keeps the walk near the cost of decoding."""
    level: list[Any] = [value] if isinstance(value, _CONTAINERS) else []
    depth = 0
    while level and depth < stop:
        depth += 1
        is_dict = list(map(isinstance, level, repeat(dict)))
        children = list(
            chain(
                chain.from_iterable(map(dict.values, compress(level, is_dict))),
                chain.from_iterable(compress(level, map(not_, is_dict))),
            )
        )
        level = list(compress(children, map(isinstance, children, repeat(_CONTAINERS))))
    return depth


def held_nesting(values: list[Any], stop: int) -> int:
    """An upper bound of how deeply an array holding the *decoded* JSON ``values`` nests: exact or
    one over (an empty array or object at the bottom is not seen), returned as soon as it passes
    ``stop``. For a document that parses, and one that may be long: the bound follows the values,
    where :func:`brackets` reads every byte (a result of 10 KB of text: 0.4 us against 5.6 us, its
    decode 2.8 us; 1,000 records, 54 KB: 50 us against 30 us, the decode 250 us).

    One ``gc.get_referents`` call a level reads the children of every array and object in it
    (strings and numbers have none; a decoded object's keys are strings, which it skips). Where
    the interpreter does not read levels so (see ``engine._instance``), the exact :func:`nesting`."""
    if referents is not gc.get_referents:  # pragma: no cover - CPython reads levels in one call
        return nesting(values, stop)
    depth = 2  # the holder, and an empty array or object in it
    level = referents(*values)
    while level:
        depth += 1
        if depth > stop:
            break
        level = referents(*level)
    return depth


# What jsonschema-rs descends into: dicts (and subclasses), lists and tuples; it refuses other
# mappings outright.
_CONTAINERS = (dict, list, tuple)

"""Typed values back to plain JSON values, and how deep a translated type lets a document nest.

``msgspec.to_builtins`` turns a decoded Struct into dicts in C, but it is generic: on the tool
arguments of ``bench_data/`` it cost 0.3x the floor (the time ``msgspec.json.decode`` takes on the
same bytes) on top of a typed decode of about 1x. A converter written for one Struct type does
only what that type needs: read each field, skip the absent ones, recurse only where a field can
hold a Struct. It is generated once per Struct type, as Python source that names nothing from the
schema (fields are ``f0``, ``f1``...; the JSON keys and nested converters are passed in as
constants), so no schema text is ever compiled. The member count the TypedDicts' reader compares
with a document's colons is written the same way where the type's objects hold objects.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from typing import Any

import msgspec
from msgspec import UNSET

__all__ = ["Convert", "Count", "depth_and_counter", "plain_converter", "type_depth", "with_struct_inlined"]

Convert = Callable[[Any], Any]
_GENERATED = "<engine: generated converter>"  # the file name tracebacks give for generated code


def _is_struct(kind: Any) -> bool:
    return isinstance(kind, type) and issubclass(kind, msgspec.Struct)


def _hints(struct: Any) -> dict[str, Any]:
    """The field types of a Struct or of a TypedDict the translator built: ``defstruct`` and
    ``TypedDict()`` store the types themselves (not strings), so nothing is evaluated; a
    TypedDict's are unwrapped from ``Required``/``NotRequired``."""
    hints = dict(struct.__annotations__)
    if not _is_struct(struct):
        for key, hint in hints.items():
            if typing.get_origin(hint) in _PRESENCE:
                hints[key] = typing.get_args(hint)[0]
    return hints


_PRESENCE: tuple[Any, ...] = (typing.Required, typing.NotRequired)


def _strip(kind: Any) -> Any:
    while typing.get_origin(kind) is typing.Annotated:
        kind = typing.get_args(kind)[0]
    return kind


def plain_converter(kind: Any, cache: dict[Any, Convert] | None = None) -> Convert | None:
    """A function turning a value decoded as ``kind`` into plain JSON values (dicts with the
    schema's property order, lists, scalars), or ``None`` when the decoded value is plain already."""
    cache = {} if cache is None else cache
    kind = _strip(kind)
    if _is_struct(kind):
        return _struct_converter(kind, cache)
    origin = typing.get_origin(kind)
    if origin is list:
        member = _strip(typing.get_args(kind)[0])
        if _is_struct(member):
            return _struct_list_converter(member, cache)
        item = plain_converter(member, cache)
        if item is None:
            return None
        return lambda value: [item(x) for x in value]
    if origin is dict:
        inner = plain_converter(typing.get_args(kind)[1], cache)
        if inner is None:
            return None
        return lambda value: {k: inner(x) for k, x in value.items()}
    if origin in (typing.Union, types.UnionType):
        # One member per JSON kind: the decoded value's Python type says which member it is.
        by_type: dict[type, Convert] = {}
        for member in typing.get_args(kind):
            convert = plain_converter(member, cache)
            if convert is not None:
                bare = _strip(member)
                by_type[typing.get_origin(bare) or bare] = convert
        if not by_type:
            return None
        if len(by_type) == 1:
            ((only, convert),) = by_type.items()
            return lambda value: convert(value) if type(value) is only else value
        pick = by_type.get
        return lambda value: (pick(type(value)) or _same)(value)
    return None


def _same(value: Any) -> Any:
    return value


def _struct_converter(struct: type[msgspec.Struct], cache: dict[Any, Convert]) -> Convert:
    known = cache.get(struct)
    if known is not None:
        return known
    namespace: dict[str, Any] = {"UNSET": UNSET}
    lines = ["def convert(s):", *_struct_lines(struct, cache, namespace, "    ")]
    exec(compile("\n".join(lines), _GENERATED, "exec"), namespace)  # noqa: S102 - from field positions only, see above
    convert: Convert = namespace["convert"]
    cache[struct] = convert
    return convert


def with_struct_inlined(source: str, struct: type[msgspec.Struct], namespace: dict[str, Any]) -> Callable[..., Any]:
    """The function ``source`` defines (its name ``read``), compiled with ``namespace``, in which
    the line ``<convert>`` (indented as its statements are to be) becomes the statements turning
    the Struct in ``s`` (of type ``struct``) into the dict ``out``, as :func:`plain_converter`'s
    function returns it: the conversion inlined in a hot path's own frame, a call less (an
    elicitation answer: 0.82x the time). ``source`` is the caller's own text, never the schema's."""
    head, _, tail = source.partition("<convert>")
    pad = head[head.rindex("\n") + 1 :]
    namespace = {**namespace, "UNSET": UNSET}
    body = _struct_lines(struct, {}, namespace, pad)[:-1]  # without its `return out`
    code = compile(head[: len(head) - len(pad)] + "\n".join(body) + tail, _GENERATED, "exec")
    exec(code, namespace)  # noqa: S102 - see the module's note
    read: Callable[..., Any] = namespace["read"]
    return read


def _struct_list_converter(struct: type[msgspec.Struct], cache: dict[Any, Convert]) -> Convert:
    """A list of one Struct type, the Struct's body inlined in the loop: a call per element less
    (0.2x the floor on a list of 10,000 five-field records)."""
    key = ("list", struct)
    known = cache.get(key)
    if known is not None:
        return known
    namespace: dict[str, Any] = {"UNSET": UNSET}
    body = _struct_lines(struct, cache, namespace, "        ")
    body[-1] = "        append(out)"  # instead of `return out`
    lines = ["def convert(items):", "    result = []", "    append = result.append", "    for s in items:", *body]
    lines.append("    return result")
    exec(compile("\n".join(lines), _GENERATED, "exec"), namespace)  # noqa: S102 - from field positions only, see above
    convert: Convert = namespace["convert"]
    cache[key] = convert
    return convert


def _struct_lines(
    struct: type[msgspec.Struct], cache: dict[Any, Convert], namespace: dict[str, Any], pad: str
) -> list[str]:
    """Statements turning the Struct in ``s`` into a dict, returned; constants go to ``namespace``.
    A leading run of required fields is one dict display (cheaper than item by item)."""
    hints = _hints(struct)
    names = struct.__struct_fields__
    keys = struct.__struct_encode_fields__
    # Defaults are aligned with the last fields; a kw_only Struct marks required ones NODEFAULT.
    defaults = struct.__struct_defaults__
    tail = names[len(names) - len(defaults) :]
    optional = {name for name, default in zip(tail, defaults, strict=True) if default is not msgspec.NODEFAULT}
    display: list[str] = []
    lines: list[str] = []
    for index, (attr, key) in enumerate(zip(names, keys, strict=True)):
        if not attr.isidentifier() or not attr.startswith("f"):  # pragma: no cover - the translator names fields
            raise ValueError(f"unexpected field name {attr!r}")
        namespace[f"K{index}"] = key
        convert = plain_converter(hints[attr], cache)
        if convert is not None:
            namespace[f"C{index}"] = convert
        if attr not in optional and not lines:
            display.append(f"K{index}: C{index}(s.{attr})" if convert is not None else f"K{index}: s.{attr}")
            continue
        value = f"C{index}(v)" if convert is not None else "v"
        lines.append(f"{pad}v = s.{attr}")
        if attr in optional:
            lines.append(f"{pad}if v is not UNSET:")
            lines.append(f"{pad}    out[K{index}] = {value}")
        else:
            lines.append(f"{pad}out[K{index}] = {value}")
    return [f"{pad}out = {{{', '.join(display)}}}", *lines, f"{pad}return out"]


Count = Callable[[Any], int]


def depth_and_counter(kind: Any) -> tuple[int | None, Count]:
    """For a value decoded as ``kind`` (a type built of TypedDicts or Structs, lists, maps, unions
    and scalars): how deeply it can nest (as :func:`type_depth`), and a function counting the
    members of all its objects: ``len`` for an object type whose values are never objects, the
    fields not ``UNSET`` of a Struct, and only the positions that can hold an object read (an
    untyped value is walked whole), in one written function where the type allows it (see
    :func:`_generated_counter`). One walk of the type."""
    cache: dict[Any, tuple[int | None, Count | None]] = {}
    depth, count = _facts(kind, cache)
    if count is not None and count is not len:
        count = _generated_counter(kind, cache) or count
    return depth, count or _none


def _facts(kind: Any, cache: dict[Any, tuple[int | None, Count | None]]) -> tuple[int | None, Count | None]:
    """As :func:`depth_and_counter`; the counter is ``None`` where no decoded value holds a member."""
    kind = _strip(kind)
    if kind is Any:
        return None, _members
    if typing.is_typeddict(kind):
        known = cache.get(kind)
        if known is not None:  # a `$ref` reached twice shares the type
            return known
        # Recursion (refused by the translator) would read as unbounded and walked whole.
        cache[kind] = (None, _members)
        facts = [(key, *_facts(hint, cache)) for key, hint in _hints(kind).items()]
        depths = [depth for _, depth, _ in facts if depth is not None]
        nested = tuple((key, count) for key, _, count in facts if count is not None)
        of_object: Count = len if not nested else _object_counter(nested)
        result = cache[kind] = (1 + max(depths, default=0) if len(depths) == len(facts) else None), of_object
        return result
    if _is_struct(kind):
        known = cache.get(kind)
        if known is not None:
            return known
        cache[kind] = (None, _members)  # recursion is refused by the translator, as above
        hints = _hints(kind)
        fields = [_facts(hints[name], cache) for name in kind.__struct_fields__]
        depths = [depth for depth, _ in fields if depth is not None]
        positions = tuple((index, count) for index, (_, count) in enumerate(fields) if count is not None)
        depth = 1 + max(depths, default=0) if len(depths) == len(fields) else None
        result = cache[kind] = depth, _struct_counter(positions)
        return result
    origin = typing.get_origin(kind)
    if origin is dict or origin is list:
        depth, inner = _facts(typing.get_args(kind)[-1], cache)
        depth = None if depth is None else 1 + depth
        if origin is list:
            return depth, None if inner is None else (lambda value: sum(map(inner, value)))
        if inner is None:
            return depth, len
        return depth, lambda value: len(value) + sum(map(inner, value.values())) if value else 0
    if origin in (typing.Union, types.UnionType):
        # One member per JSON kind: the decoded value's Python type says which member it is.
        by_type: dict[type, Count] = {}
        deepest: int | None = 0
        for member in typing.get_args(kind):
            depth, count = _facts(member, cache)
            deepest = None if depth is None or deepest is None else max(deepest, depth)
            if count is not None:
                bare = _strip(member)
                by_type[dict if typing.is_typeddict(bare) else typing.get_origin(bare) or bare] = count
        if not by_type:
            return deepest, None
        pick = by_type.get
        return deepest, lambda value: (pick(type(value)) or _none)(value)
    return 0, None


def _object_counter(nested: tuple[tuple[str, Count], ...]) -> Count:
    def count(value: Any) -> int:
        total = len(value)
        for key, inner in nested:
            member = value.get(key)
            if member is not None:
                total += inner(member)
        return total

    return count


def _struct_counter(nested: tuple[tuple[int, Count], ...]) -> Count:
    """The members of a Struct (its fields not ``UNSET``: an absent optional property) and of the
    objects in the fields at ``nested``; the fields read in one C call."""
    fields = msgspec.structs.astuple
    unset = UNSET

    if not nested:

        def count_flat(value: Any) -> int:
            items = fields(value)
            return len(items) - items.count(unset)

        return count_flat

    def count(value: Any) -> int:
        items = fields(value)
        total = len(items) - items.count(unset)
        for index, inner in nested:
            member = items[index]
            if member is not unset:
                total += inner(member)
        return total

    return count


def _members(value: Any) -> int:
    """The members of every object in a plain JSON value (an untyped position)."""
    total = 0
    pending = [value]
    pop, extend = pending.pop, pending.extend
    while pending:
        item = pop()
        if type(item) is dict:
            total += len(item)
            extend(item.values())
        elif type(item) is list:
            extend(item)
    return total


def _none(_value: Any) -> int:
    return 0


_GENERATED_COUNTER = "<engine: generated counter>"
# Past these, the composed counters of `_facts`: a type that shares an object type in many places
# (a `$ref` reached twice, each reaching another twice...) would be written out once per place,
# and Python allows 20 nested blocks.
_COUNTER_LINES = 200
_COUNTER_NESTING = 16


def _generated_counter(kind: Any, cache: dict[Any, tuple[int | None, Count | None]]) -> Count | None:
    """The counter of :func:`depth_and_counter` for a type of TypedDicts, lists, maps and unions,
    as one function: the composed counters call a function for every object that holds another
    (an object in an array of objects: four calls), which cost them a third of reading such a
    document; here every step is a line of one frame (0.57x their time on one such record, 0.72x
    on 1,000). Written from the type's shape alone: the keys are read from a tuple of constants,
    so no text of the schema is ever compiled. ``None`` where the type holds a Struct or an untyped
    value, or is too large or too deep to write out."""
    keys: list[str] = []
    lines = ["def count(v0):", "    total = 0"]
    if not _count_lines(kind, 0, 1, lines, keys, cache) or len(lines) > _COUNTER_LINES:
        return None
    lines.append("    return total")
    namespace: dict[str, Any] = {"K": tuple(keys)}
    exec(compile("\n".join(lines), _GENERATED_COUNTER, "exec"), namespace)  # noqa: S102 - from the type's shape only, see above
    count: Count = namespace["count"]
    return count


def _count_lines(
    kind: Any, at: int, depth: int, lines: list[str], keys: list[str], cache: dict[Any, tuple[int | None, Count | None]]
) -> bool:
    """Append the statements adding the members of ``v{at}`` (a value decoded as ``kind``, not
    ``None``) to ``total``, ``depth`` blocks in; ``False`` where :func:`_generated_counter` gives none.
    ``cache``: :func:`_facts`' (which it also fills with the facts of the types it reads again)."""
    if depth > _COUNTER_NESTING or len(lines) > _COUNTER_LINES:
        return False
    kind = _strip(kind)
    pad = "    " * depth
    value = f"v{at}"
    inner = f"v{at + 1}"
    if typing.is_typeddict(kind):
        lines.append(f"{pad}total += len({value})")
        for key, hint in _hints(kind).items():
            if _counter(hint, cache) is None:
                continue  # holds no object
            keys.append(key)
            lines.append(f"{pad}{inner} = {value}.get(K[{len(keys) - 1}])")
            lines.append(f"{pad}if {inner} is not None:")
            if not _count_lines(hint, at + 1, depth + 1, lines, keys, cache):
                return False
        return True
    origin = typing.get_origin(kind)
    if origin is dict or origin is list:
        item = typing.get_args(kind)[-1]
        items = f"{value}.values()" if origin is dict else value
        if origin is dict:
            lines.append(f"{pad}total += len({value})")
        count = _counter(item, cache)
        if count is None:
            return True
        if count is len:  # objects of values holding none: one C call
            lines.append(f"{pad}total += sum(map(len, {items}))")
            return True
        lines.append(f"{pad}for {inner} in {items}:")
        return _count_lines(item, at + 1, depth + 1, lines, keys, cache)
    if origin in (typing.Union, types.UnionType):
        # One member per JSON kind: the decoded value's Python type says which member it is.
        first = True
        for member in typing.get_args(kind):
            if _counter(member, cache) is None:
                continue
            bare = _strip(member)
            python_type = "dict" if typing.is_typeddict(bare) else (typing.get_origin(bare) or bare).__name__
            if python_type not in ("dict", "list"):  # pragma: no cover - only objects and arrays hold members
                return False
            lines.append(f"{pad}{'if' if first else 'elif'} type({value}) is {python_type}:")
            first = False
            if not _count_lines(member, at, depth + 1, lines, keys, cache):
                return False
        return True
    return False  # a Struct, or an untyped value


def _counter(kind: Any, cache: dict[Any, tuple[int | None, Count | None]]) -> Count | None:
    """:func:`_facts`' counter of ``kind``, kept in ``cache`` (``_facts`` keeps only its objects'),
    so that writing a counter reads each type once."""
    known = cache.get(kind)
    if known is None:
        known = cache[kind] = _facts(kind, cache)
    return known[1]


def type_depth(kind: Any, seen: frozenset[Any] = frozenset()) -> int | None:
    """How deeply a document decoded as ``kind`` can nest arrays and objects (a scalar: 0), or
    ``None`` when nothing bounds it (``Any`` somewhere)."""
    kind = _strip(kind)
    if kind is Any:
        return None
    if _is_struct(kind):
        if kind in seen:  # pragma: no cover - recursive references are refused by the translator
            return None
        deepest = 0
        for hint in _hints(kind).values():
            depth = type_depth(hint, seen | {kind})
            if depth is None:
                return None
            deepest = max(deepest, depth)
        return 1 + deepest
    origin = typing.get_origin(kind)
    if origin is list:
        depth = type_depth(typing.get_args(kind)[0], seen)
        return None if depth is None else 1 + depth
    if origin is dict:
        depth = type_depth(typing.get_args(kind)[1], seen)
        return None if depth is None else 1 + depth
    if origin in (typing.Union, types.UnionType):
        deepest = 0
        for member in typing.get_args(kind):
            depth = type_depth(member, seen)
            if depth is None:
                return None
            deepest = max(deepest, depth)
        return deepest
    return 0

"""The hot-path backend: a schema translated into a msgspec type (see
:mod:`engine.backends._msgspec_translation`), so decoding *is* validating.

What ``decode`` returns: plain JSON values (``dict``, ``list``, ``str``, ``int``, ``float``,
``bool``, ``None``), equal to what the general path returns. The bytes are decoded straight into
the typed shape in one pass (Structs for objects with ``properties``) and turned into builtins.
That is only exact where every object is *closed* (``additionalProperties: false``, or a map
``additionalProperties: {schema}``): a Struct drops properties it does not name, so a schema with
an open object is refused ("open object") and ``auto`` uses the general backend, which parses once
and validates the parsed value.

``is_valid`` on Python objects goes through ``msgspec.convert`` (exact, used on its own by the
tests); the pipeline checks Python objects with the general backend instead, which is several
times faster than ``convert`` on dicts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, ClassVar

import msgspec

from .._dialect import Dialect
from .._errors import Issue
from ._contract import Backend, BackendValidator, Refusal, SchemaSource, TypedDecode, refuse
from ._msgspec_translation import NAME, Translation, translate

__all__ = ["MsgspecBackend", "MsgspecValidator"]


class MsgspecValidator(BackendValidator):
    """``decode``: bytes to a validated value in one parse; ``is_valid`` through ``msgspec.convert``."""

    def __init__(self, translation: Translation) -> None:
        self.type = translation.type
        target = translation.type
        self._typed = msgspec.json.Decoder(target)
        convert = msgspec.convert

        def is_valid(instance: Any) -> bool:
            try:
                convert(instance, target)
            except (msgspec.ValidationError, TypeError, ValueError):
                return False
            return True

        self.is_valid = is_valid  # type: ignore[method-assign]
        self.decode = self._decoder(translation)
        self.typed = TypedDecode(translation.type, translation.has_structs)

    def _decoder(self, translation: Translation) -> Callable[[bytes | bytearray | memoryview | str], Any]:
        typed = self._typed.decode
        if not translation.has_structs:
            return typed  # lists, maps and scalars are builtins already
        to_builtins = msgspec.to_builtins

        def decode(data: bytes | bytearray | memoryview | str) -> Any:
            return to_builtins(typed(data))

        return decode

    def is_valid(self, instance: Any) -> bool:  # pragma: no cover - replaced per instance
        raise NotImplementedError

    def iter_issues(self, instance: Any) -> Iterator[Issue]:
        # Issues are explained by the general backend; this yields msgspec's one message.
        try:
            msgspec.convert(instance, self.type)
        except msgspec.ValidationError as exc:
            yield Issue(instance_path="", keyword_location="", keyword="", message=str(exc))


class MsgspecBackend(Backend):
    name: ClassVar[str] = NAME
    dialects: ClassVar[frozenset[Dialect]] = frozenset(Dialect)
    explains: ClassVar[bool] = False
    checks_objects: ClassVar[bool] = False  # msgspec.convert on dicts is slower than the general backend

    def refusal(self, source: SchemaSource) -> Refusal | None:
        # Decided before any type is built: on the 489 real tools in bench_data/ an open object (the
        # common case for an MCP inputSchema) was found only after the whole translation ran, 42%
        # of a cold compile under `auto`.
        refused = super().refusal(source)
        if refused is not None:
            return refused
        if source.resources and _mentions_external_ref(source.schema):
            return Refusal(_EXTERNAL_REF)
        where = _open_object(source.schema)
        return None if where is None else Refusal(_open_why(where), where)

    def compile(self, source: SchemaSource) -> MsgspecValidator:
        self.check_dialect(source)
        if source.resources:
            # `$ref` s into the registry would need the general resolver; keep the subset simple.
            if _mentions_external_ref(source.schema):
                raise refuse(NAME, _EXTERNAL_REF)
        translation = translate(source)
        if translation.open_at is not None:
            raise refuse(NAME, _open_why(translation.open_at), location=translation.open_at)
        return MsgspecValidator(translation)


_EXTERNAL_REF = "`$ref` to a registry resource is not followed by the msgspec translation"


def _open_why(where: str) -> str:
    return (
        f"an object admits properties the schema does not name (at {where or 'the root'}: "
        "`additionalProperties` is not false); a typed decode would drop them"
    )


def _open_object(schema: Any) -> str | None:
    """Where the translation would meet an object with named properties that is not closed, or
    ``None``. Only subschemas the translation always reaches are looked at (the root, and down
    through the properties of closed objects and through array items), so a location returned is
    one the translation would refuse, for this reason or an earlier one."""
    todo = [(schema, "")]
    while todo:
        node, where = todo.pop()
        if not isinstance(node, Mapping) or not _KINDLESS.isdisjoint(node):
            continue  # a boolean, a reference, a combination or literals: the translation decides
        kinds = node.get("type")
        if isinstance(kinds, str):
            kinds = (kinds,)
        elif not isinstance(kinds, list):
            kinds = ("object", "array")
        if "object" in kinds:
            properties = node.get("properties", {})
            if properties or node.get("required"):
                extra = node.get("additionalProperties", True)
                if extra is not False:
                    return where
                if isinstance(properties, Mapping):
                    todo.extend((sub, f"{where}/properties/{_escape(name)}") for name, sub in properties.items())
        if "array" in kinds and isinstance(node.get("items"), Mapping):
            todo.append((node["items"], f"{where}/items"))
    return None


_KINDLESS = frozenset({"$ref", "anyOf", "oneOf", "enum", "const"})


def _escape(name: Any) -> str:
    return str(name).replace("~", "~0").replace("/", "~1")


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

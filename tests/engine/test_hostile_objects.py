"""Python objects that lie about what they are, and shapes that make a level-by-level reader read
more than the size limit, given to every entry point: each gets the typed error, at once."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

import engine
from engine._guard.uris import _resolved, join_uri


class _ClaimsDict:
    """An object whose `__class__` says dict: `isinstance` believes it, C-level methods do not."""

    __class__ = property(lambda self: dict)  # type: ignore[assignment]

    def get(self, key: str, default: Any = None) -> Any:
        return default


class _ClaimsStr:
    __class__ = property(lambda self: str)  # type: ignore[assignment]


class _ClaimsBytes:
    __class__ = property(lambda self: bytes)  # type: ignore[assignment]


def test_an_object_claiming_a_json_class_is_refused_with_a_typed_error() -> None:
    eng = engine.Engine(cache_size=0)
    for schema in ({"properties": {"a": _ClaimsDict()}}, {"title": _ClaimsStr()}, _ClaimsDict()):
        with pytest.raises(engine.SchemaRejected) as refused:
            eng.compile(schema)
        assert refused.value.reason == "invalid-schema"
    with pytest.raises(engine.SchemaRejected):
        eng.compile({"$ref": "urn:a"}, registry={"urn:a": _ClaimsDict()})
    with pytest.raises(engine.SchemaRejected):
        engine.compile_elicitation({"type": "object", "properties": {"a": _ClaimsDict()}}, engine=eng)
    assert "<tools[0]>" in engine.compile_tools([_ClaimsDict()], engine=eng).rejected
    tools = engine.compile_tools([{"name": "t", "inputSchema": {"type": "object"}}], engine=eng)
    # A result or an answer given as a Python value is held to JSON whole first, as bytes are
    # parsed whole first: an object no JSON document holds, wherever it is, is `not-json`.
    for result in (_ClaimsDict(), {"jsonrpc": "2.0", "id": 1, "result": _ClaimsDict()}, {"content": [_ClaimsDict()]}):
        with pytest.raises(engine.DecodeError) as caught:
            tools.validate_result("t", result)
        assert caught.value.reason == "not-json"
    form = engine.compile_elicitation({"type": "object", "properties": {"a": {"type": "string"}}}, engine=eng)
    for answer in (_ClaimsDict(), {"action": "accept", "content": {}, "_meta": _ClaimsDict()}):
        with pytest.raises(engine.DecodeError) as caught:
            form.decode_result(answer)  # type: ignore[arg-type]
        assert caught.value.reason == "not-json"
    # Objects claiming to be text or bytes: a schema refused as no schema, an answer or a result as
    # no JSON value (the kinds are read from `type()`, never from `__class__`).
    for claims in (_ClaimsStr(), _ClaimsBytes()):
        with pytest.raises(engine.SchemaRejected) as refused:
            eng.compile(claims)
        assert refused.value.reason == "invalid-schema"
        with pytest.raises(engine.SchemaRejected):
            engine.compile_elicitation(claims, engine=eng)
        with pytest.raises(engine.DecodeError):
            form.decode_result(claims)  # type: ignore[arg-type]
        with pytest.raises(engine.DecodeError):
            tools.validate_result("t", claims)
        with pytest.raises(engine.DecodeError):
            tools.validate_arguments("t", claims)
        with pytest.raises(engine.SchemaRejected):
            engine.compile_tools(claims, engine=eng)


@pytest.mark.parametrize("container", [tuple, type("L", (list,), {})], ids=["tuple", "list subclass"])
def test_a_level_of_places_sharing_one_wide_container_is_refused_at_the_size_limit(container: Any) -> None:
    # Weighed container by container: before, the whole level was read (12 s and 577 MB for
    # 100,000 places sharing one 1,000-item tuple) before its size was compared with the limit.
    inner = container([0] * 1000)
    started = time.perf_counter()
    with pytest.raises(engine.SchemaRejected) as refused:
        engine.Engine(cache_size=0).compile({"enum": container([inner] * 100_000)})
    assert time.perf_counter() - started < 5
    assert refused.value.reason == "limit-exceeded"


def test_joining_one_plain_segment_is_the_general_resolution() -> None:
    # The one-segment shortcut (the base's directory, found once) answers as RFC 3986 does.
    bases = [
        "json-schema:///", "json-schema:///x/y", "http://x.example/a/b", "http://x.example/a/b/", "http://h/p?q=1",
        "http://h/p#frag", "urn:x:y", "https://h/a/./b/../c", "http://h", "file:///tmp/a/b.json", "tag:a,b:c",
        "http://h/a/b?x#y", "http://u@h:8/a/b", "http://h/%2e%2e/a", "http://h/a/..", "http://h/a/.",
    ]  # fmt: skip
    segments = ["b", "b.json", "a%2Fb", "x-y_z~1", "é", "a b", "a..", "a;b", "a=b", "a@b", "1", "-", "a.b.c", "%2e%2e"]
    for base in bases:
        for segment in segments:
            assert join_uri(base, segment) == _resolved(base, segment), (base, segment)


def test_many_identifiers_under_a_long_base_are_cheap_or_refused() -> None:
    # Each `$id` was joined with `urljoin`, which reads every segment of the base: 9,800 of them
    # under an 8,000-character base took 8 s (2 s of it jsonschema-rs's own resolution).
    for segments, refused in ((900, False), (1100, True)):
        definitions = {f"d{j}": {"properties": {f"p{i}": {"$id": f"b{j}_{i}"} for i in range(1500)}} for j in range(4)}
        schema = {"$id": "http://x.example/" + "a/" * segments, "$defs": {"all": {"properties": definitions}}}
        started = time.perf_counter()
        if refused:
            with pytest.raises(engine.SchemaRejected):
                engine.Engine(cache_size=0).compile(schema)
        else:
            assert engine.Engine(cache_size=0).compile(schema).is_valid({})
        assert time.perf_counter() - started < 10


class _NegativeLength(Mapping[str, Any]):
    def __len__(self) -> int:
        return -1

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __getitem__(self, key: str) -> Any:
        raise KeyError(key)


class _UnreadableItems(dict):  # type: ignore[type-arg]
    def items(self) -> Any:
        raise RuntimeError("unreadable")


@pytest.mark.parametrize("registry", [_NegativeLength(), _UnreadableItems(a=1), _UnreadableItems()])
def test_a_registry_that_cannot_be_read_is_refused_with_a_typed_error(registry: Any) -> None:
    # Its length and its entries are the caller's code: what they raise is said, as a refusal.
    with pytest.raises(engine.SchemaRejected) as caught:
        engine.Engine().compile({"type": "integer"}, registry=registry)
    assert caught.value.reason == engine.RejectReason.INVALID_SCHEMA
    assert "its entries cannot be read" in caught.value.message

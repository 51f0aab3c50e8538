"""Differential test of the optimistic one-pass path: open objects translated as Structs that refuse
unnamed properties, with every refusal judged again by the general backend.

Every schema in ``bench_data/`` (input and output, and the recorded results' output schemas) that
``auto`` puts on the msgspec path is run on payloads without and with properties the schema does
not name, at the root and in nested objects, and on the traps of a typed decode (``1.0`` for an
integer, duplicate keys, big integers). The oracles are jsonschema-rs and python-jsonschema: the
engine must give their answer, and return exactly the parsed document.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import jsonschema
import jsonschema_rs
import msgspec
import pytest
import referencing

import engine
from benchmarks.instances import valid_instance
from tests.corpus import corpus

AUTO = engine.Engine(engine.EngineConfig(backend="auto", cache_size=0))
_NO_RETRIEVAL = referencing.Registry()


def _python_jsonschema(schema: Any) -> Any:
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema, registry=_NO_RETRIEVAL)


def _objects(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], dict[str, Any]]]:
    """Every object inside ``value`` with its path."""
    if isinstance(value, dict):
        yield path, value
        for key, item in value.items():
            yield from _objects(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _objects(item, (*path, index))


def _with_extra(value: Any, path: tuple[Any, ...], extra: Any) -> Any:
    """A copy of ``value`` whose object at ``path`` has one more property, ``zz_extra``."""
    if not path:
        return {**value, "zz_extra": extra}
    copy = list(value) if isinstance(value, list) else dict(value)
    copy[path[0]] = _with_extra(value[path[0]], path[1:], extra)
    return copy


def payloads(schema: Any, recorded: list[Any]) -> list[bytes]:
    """Valid-looking documents and their variants with unnamed properties, as bytes."""
    seeds = [v for v in [valid_instance(schema), *recorded] if v is not None][:3]
    out: list[bytes] = []
    for seed in seeds:
        out.append(msgspec.json.encode(seed))
        for path, _ in list(_objects(seed))[:4]:
            for extra in ("x", None, [1, {"a": 2}], 1.5):
                out.append(msgspec.json.encode(_with_extra(seed, path, extra)))
        if isinstance(seed, dict) and seed:
            key, item = next(iter(seed.items()))
            text = json.dumps(seed)
            # A duplicate key: the last one wins, on every path.
            out.append(("{" + json.dumps(key) + ": [], " + text[1:]).encode())
            if isinstance(item, int) and not isinstance(item, bool):
                out.append(json.dumps({**seed, key: float(item)}).encode())  # 1.0 for an integer
                out.append(json.dumps({**seed, key: 2**70}).encode())
    # Each again past 513 bytes (what can nest past the default depth bound of 256), where the reader
    # takes its other branch.
    return out + [data + b" " * 600 for data in out]


def _cases() -> list[Any]:
    return [pytest.param(case, id=case.id) for case in corpus() if isinstance(case.schema, dict)]


@pytest.mark.parametrize("case", _cases())
def test_optimistic_path_agrees_with_the_oracles(case: Any) -> None:
    try:
        compiled = AUTO.compile(case.schema)
    except engine.SchemaRejected:
        return
    if compiled.backend != "msgspec":
        return
    rs = jsonschema_rs.validator_for(case.schema, validate_formats=False)
    reference = _python_jsonschema(case.schema)
    one_pass = compiled._typed.plain_reader()  # noqa: SLF001 - the backend's Struct reader
    assert one_pass is not None
    recorded = [i for i in case.instances if isinstance(i, (dict, list))]
    for data in payloads(case.schema, recorded):
        parsed = msgspec.json.decode(data)
        expected = rs.is_valid(parsed)
        assert reference.is_valid(parsed) is expected, (case.id, data)
        try:
            fast = one_pass.decode(data)
        except Exception:  # noqa: BLE001 - a refusal says nothing; it is judged again
            fast = None
        else:
            assert expected, ("the one-pass reader accepted an invalid payload", case.id, data)
            assert fast == parsed, (case.id, data, fast)
        if expected:
            value = compiled.decode(data)
            # Equal, key order included: the value is the parsed document.
            assert value == parsed and json.dumps(value) == json.dumps(parsed)
            assert compiled.is_valid(parsed)
        else:
            with pytest.raises(engine.ValidationFailed):
                compiled.decode(data)
            assert not compiled.is_valid(parsed)


def test_most_corpus_input_schemas_take_the_one_pass_path() -> None:
    """The optimistic translation covers real tool schemas, open objects included; a payload
    without unnamed properties is read in one pass, one with them is not (and is still valid)."""
    taken = total = 0
    for case in corpus():
        if not case.id.endswith("/inputSchema") or not isinstance(case.schema, dict):
            continue
        total += 1
        try:
            compiled = AUTO.compile(case.schema)
        except engine.SchemaRejected:
            continue
        if compiled.backend != "msgspec":
            continue
        seed = valid_instance(case.schema)
        if seed is None:
            continue
        plain = compiled._typed.plain_reader()  # noqa: SLF001 - the backend's Struct reader
        assert plain.decode(msgspec.json.encode(seed)) == seed
        struct = bool(case.schema.get("properties")) or bool(case.schema.get("required"))
        if struct and case.schema.get("additionalProperties", True) in (True, {}):
            extra = msgspec.json.encode({**seed, "zz_extra": 1})
            with pytest.raises((msgspec.ValidationError, msgspec.DecodeError)):
                plain.decode(extra)
            assert compiled.decode(extra) == {**seed, "zz_extra": 1}
        taken += 1
    assert total > 400 and taken > 0.9 * total, (taken, total)


@pytest.mark.parametrize("padding", [0, 400])
def test_unnamed_properties_are_held_to_the_depth_bound(padding: int) -> None:
    """A property the schema does not name is ignored by the typed decode, never by the bounds: a
    value nested past the depth bound there is refused as too deep, like any document."""
    limits = engine.Limits(max_instance_depth=8)
    shallow = engine.Engine(engine.EngineConfig(backend="auto", cache_size=0, limits=limits))
    compiled = shallow.compile({"type": "object", "properties": {"a": {"type": "string"}}})
    assert compiled.backend == "msgspec"
    nested = b"[" * 9 + b"]" * 9
    data = b'{"a": "x", "zz": ' + nested + b"}" + b" " * padding
    with pytest.raises(engine.DecodeError) as caught:
        compiled.decode(data)
    assert caught.value.reason is engine.DecodeReason.TOO_DEEP
    fits = b'{"a": "x", "zz": ' + b"[" * 7 + b"]" * 7 + b"}" + b" " * padding
    assert compiled.decode(fits) == {"a": "x", "zz": [[[[[[[]]]]]]]}

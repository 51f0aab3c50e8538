"""Payload bounds at validation time: bytes, depth where the schema recurses, and the explanation."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

import msgspec
import pytest

import engine
from engine._compiled import EVAL_FRAMES, EXPLAIN_FRAMES
from engine._decode import nesting
from tests._isolate import isolated

# Hostile payloads: every test here ends in seconds, or fails by name while it runs.
pytestmark = pytest.mark.timeout(180)


def nested(depth: int, leaf: object = 1) -> object:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"NaN", "non-finite-number"),
        (b'{"x": Infinity}', "non-finite-number"),
        (b"[-Infinity]", "non-finite-number"),
        (b"1e400", "number-out-of-range"),
        (b"[-1e999]", "number-out-of-range"),
        (b'"\xff\xfe"', "invalid-utf8"),
        (b'{"a": 1', "malformed-json"),
        (b"[" * 300 + b"]" * 300, "too-deep"),
        (b"[" * 100_000, "too-deep"),
    ],
)
def test_decode_reasons(data: bytes, reason: str) -> None:
    compiled = engine.compile({})
    with pytest.raises(engine.DecodeError) as error:
        compiled.decode(data)
    assert error.value.reason == reason


def test_size_cap() -> None:
    eng = engine.Engine(engine.EngineConfig.load(env={}, limits={"max_instance_bytes": 100}))
    with pytest.raises(engine.DecodeError) as error:
        eng.compile({}).decode(b"[" + b"1," * 100 + b"1]")
    assert error.value.reason == "too-large"


# The tests that send a deep instance, or ask for an explanation that could grow without bound,
# run in a child process (tests/_isolate.py): a dropped depth bound overflows the native stack
# and a dropped explanation cut grows memory without limit; either fails the test by name.


def test_objects_get_the_depth_bound_of_bytes_on_every_schema() -> None:
    isolated("100,000-deep instance, non-recursive schema", objects_get_the_depth_bound_of_bytes, seconds=10)


def objects_get_the_depth_bound_of_bytes() -> None:
    compiled = engine.compile({"type": "array", "items": {"type": "array"}})
    assert compiled.guard is not None and not compiled.guard.recursive
    assert compiled._depth_bound is None
    deep = nested(100_000)
    for call in (compiled.is_valid, compiled.validate):
        with pytest.raises(engine.DecodeError) as error:
            call(deep)
        assert error.value.reason == "too-deep"  # as its bytes are


def test_recursive_schema_bounds_objects_and_bytes() -> None:
    isolated("instance over the depth bound", recursive_schema_bounds_objects_and_bytes, seconds=10)


def recursive_schema_bounds_objects_and_bytes() -> None:
    compiled = engine.compile({"type": "array", "items": {"$ref": "#"}})
    assert compiled.guard is not None and compiled.guard.recursive
    bound = compiled._depth_bound
    assert bound == engine.Limits().max_instance_depth
    assert compiled.is_valid(nested(bound - 1, []))
    for call in (compiled.is_valid, compiled.validate):
        with pytest.raises(engine.DecodeError) as error:
            call(nested(bound + 1, []))
        assert error.value.reason == "too-deep"
    with pytest.raises(engine.DecodeError):
        compiled.decode(b"[" * (bound + 1) + b"]" * (bound + 1))


def test_depth_bound_shrinks_with_the_evaluation_chain() -> None:
    inner: dict = {"type": "array", "items": {"$ref": "#"}}
    for _ in range(30):
        inner = {"anyOf": [inner, {"type": "string"}]}
    compiled = engine.compile(inner)
    assert compiled.guard is not None
    assert compiled._depth_bound == EVAL_FRAMES // compiled.guard.eval_depth < 256


STACK_PROBE = textwrap.dedent(
    """
    import sys, threading
    import engine
    k = int(sys.argv[1])
    inner = {"type": "array", "items": {"$ref": "#"}}
    for _ in range(k):
        inner = {"anyOf": [inner, {"oneOf": [{"type": "string"}, {"type": "null"}]}]}
    compiled = engine.compile(inner)
    bound = compiled._depth_bound
    def nested(depth, leaf):
        for _ in range(depth):
            leaf = [leaf]
        return leaf
    def run():
        for depth in (bound - 1, bound // 2, 16):
            assert compiled.is_valid(nested(depth, []))
            try:
                compiled.validate(nested(depth, 1))
            except engine.ValidationFailed as failure:
                assert failure.issues
            else:
                raise AssertionError("valid")
        try:
            compiled.is_valid(nested(100_000, []))
        except engine.DecodeError:
            pass
        else:
            raise AssertionError("not bounded")
        print("ok", bound)
    threading.stack_size(1 << 20)
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    """
)


@pytest.mark.parametrize("chain", [0, 6, 30])
def test_no_native_stack_overflow_on_a_1_mib_thread(chain: int) -> None:
    # In a child process: a native stack overflow would kill it, not the test run.
    result = subprocess.run(
        [sys.executable, "-c", STACK_PROBE, str(chain)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.startswith("ok")


RECURSIVE_ANYOF = {
    "anyOf": [
        {"type": "array", "items": {"$ref": "#"}},
        {"type": "array", "items": {"$ref": "#"}},
        {"type": "array", "items": {"$ref": "#"}},
        {"type": "integer"},
    ]
}


def test_explanation_is_bounded_and_says_so() -> None:
    # Cut, it takes milliseconds; uncut, it grew past 24 GB. 512 MiB and 5 s end it early.
    isolated("explanation of a 4-way recursive anyOf", explanation_is_bounded, seconds=5, memory=512 << 20)


def explanation_is_bounded() -> None:
    # Raw, each error of this schema explains 3 ** depth branches (over 20 s at depth 20). Piece by
    # piece, the one top-level issue is found by the fast path alone.
    compiled = engine.compile(RECURSIVE_ANYOF)
    started = time.process_time()
    with pytest.raises(engine.ValidationFailed) as failure:
        compiled.validate(nested(20, "x"))
    assert time.process_time() - started < 1.0  # CPU time: the machine may be loaded
    assert [i.keyword_location for i in failure.value.issues] == ["/anyOf"]
    assert not failure.value.truncated
    assert compiled.is_valid(nested(20, "x")) is False
    assert compiled.issues(nested(20, "x"))
    # With no work left to spend, the list says it was cut, and where: here the items of an
    # array the schema explains item by item. (The anyOf alone is still explained whole: its one
    # issue needs only the fast checks, and nothing is left below it.)
    starved_engine = engine.Engine(engine.EngineConfig.load(env={}, limits={"max_explain_work": 1}))
    with pytest.raises(engine.ValidationFailed) as failure:
        starved_engine.compile(RECURSIVE_ANYOF).validate(nested(20, "x"))
    assert [i.keyword_location for i in failure.value.issues] == ["/anyOf"]
    defs = {"r": {"anyOf": [{"type": "array", "items": {"$ref": "#/$defs/r"}}] * 3 + [{"type": "integer"}]}}
    starved = starved_engine.compile({"$defs": defs, "type": "array", "items": {"$ref": "#/$defs/r"}})
    with pytest.raises(engine.ValidationFailed) as failure:
        starved.validate([nested(20, "x"), 1, nested(3, "y")])
    assert failure.value.truncated
    assert "max_explain_work" in failure.value.issues[-1].message
    # Shallow enough: explained in full.
    with pytest.raises(engine.ValidationFailed) as failure:
        compiled.validate(nested(3, "x"))
    assert not failure.value.truncated


def test_explanation_frames_bound() -> None:
    isolated("explanation over the frame bound", explanation_frames_bound, seconds=5, memory=512 << 20)


def explanation_frames_bound() -> None:
    # Deeper than the native error path runs safely: explained piece by piece, down to the
    # explanation's own depth bound, and marked truncated there.
    compiled = engine.compile({"allOf": [{"allOf": [{"type": "array", "items": {"$ref": "#"}}]}]})
    assert compiled.guard is not None and compiled._depth_bound is not None
    depth = EXPLAIN_FRAMES // compiled.guard.eval_depth + 1
    assert depth < compiled._depth_bound
    with pytest.raises(engine.ValidationFailed) as failure:
        compiled.validate(nested(depth, "x"))
    assert failure.value.truncated and "explanation truncated" in failure.value.issues[-1].message
    assert failure.value.issues[-1].instance_path.startswith("/0/0/0/0")


def test_issue_cap() -> None:
    eng = engine.Engine(engine.EngineConfig.load(env={}, limits={"max_issues": 5}))
    with pytest.raises(engine.ValidationFailed) as failure:
        eng.compile({"items": {"type": "integer"}}).validate(["x"] * 50)
    assert len(failure.value.issues) == 5 and failure.value.truncated


CHAIN_PROBE = textwrap.dedent(
    """
    import threading
    import engine
    n = 4000
    defs = {f"d{i}": {"type": "object", "properties": {"x": {"$ref": f"#/$defs/d{i + 1}"}}} for i in range(n)}
    defs[f"d{n}"] = {"type": "string"}
    compiled = engine.compile({"$defs": defs, "$ref": "#/$defs/d0"})
    assert not compiled.guard.recursive and compiled.guard.max_chain > n
    def nested(depth, leaf):
        for _ in range(depth):
            leaf = {"x": leaf}
        return leaf
    def run():
        for depth in (n, compiled._depth_bound + 1):
            try:
                compiled.is_valid(nested(depth, 1))
            except engine.DecodeError:
                pass
            else:
                raise AssertionError("not bounded")
        depth = compiled._depth_bound
        assert compiled.is_valid(nested(depth - 1, {}))
        try:
            compiled.validate(nested(depth - 1, 1))
        except engine.ValidationFailed as failure:
            assert failure.issues
        else:
            raise AssertionError("a string schema at the end of the chain accepted 1")
        print("ok")
    threading.stack_size(1 << 20)
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    """
)


def test_long_reference_chain_without_recursion_is_bounded_too() -> None:
    result = subprocess.run([sys.executable, "-c", CHAIN_PROBE], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.startswith("ok")


@pytest.mark.parametrize("backend", ["jsonschema-rs", "auto"])
@pytest.mark.parametrize("schema", [{}, {"allOf": [{"type": ["array", "object"]}]}])
def test_long_documents_at_the_depth_bound(backend: str, schema: object) -> None:
    """A document too long to be within the depth bound by its length is parsed, then shown
    within it by its parsed values a level at a time (which miss an empty array or object at the
    bottom), and walked exactly where that bound is over: one level under the bound, at it and
    one over, with an empty array, an empty object or a number at the bottom, beside long text
    full of brackets, answers as the nesting says."""
    limits = engine.Limits(max_instance_depth=8)
    compiled = engine.Engine(engine.EngineConfig(backend=backend, cache_size=0, limits=limits)).compile(schema)
    text = '"' + "[{" * 200 + '"'
    for depth in (7, 8, 9):
        for bottom in ("[]", "{}", "1"):
            inner = "[" * (depth - 2) + bottom + "]" * (depth - 2)  # `bottom` adds one level, or none
            levels = depth - 2 + (bottom != "1") + 1  # with the object around it
            for document in (f'{{"t": {text}, "a": {inner}}}', f'{{"a": {inner}, "t": {text}}}' + " " * 100):
                data = document.encode()
                if levels <= 8:
                    assert compiled.decode(data)["a"] == msgspec.json.decode(inner), document
                else:
                    with pytest.raises(engine.DecodeError) as error:
                        compiled.decode(data)
                    assert error.value.reason == "too-deep", document


@pytest.mark.parametrize("closed", [False, True])
def test_long_documents_at_the_depth_bound_through_an_unbounded_typed_read(closed: bool) -> None:
    """A schema that translates with an untyped property (whose type does not bound the depth):
    a document too long to be within the bound by its length is decoded through the types, then
    shown within the bound by the decoded value, or by the parsed document where the types
    skipped a property; under, at and over a bound of 8, in the untyped property or in one the
    schema does not name, with an empty array, an empty object or a number at the bottom."""
    schema: dict[str, object] = {"type": "object", "properties": {"n": {"type": "integer"}, "free": {}}}
    if closed:
        schema["additionalProperties"] = False
    limits = engine.Limits(max_instance_depth=8)
    compiled = engine.Engine(engine.EngineConfig(backend="auto", cache_size=0, limits=limits)).compile(schema)
    text = "[{" * 200
    seen = set()
    for depth in (7, 8, 9):
        for bottom in ("[]", "{}", "1"):
            inner = "[" * (depth - 2) + bottom + "]" * (depth - 2)
            for member in ("free", "zz"):
                document = f'{{"n": 1, "t": "{text}", "{member}": {inner}}}'
                if closed:
                    document = document.replace(f', "t": "{text}"', "") + " " * 300
                value = msgspec.json.decode(document)
                try:
                    got: object = compiled.decode(document.encode())
                except (engine.DecodeError, engine.ValidationFailed) as error:
                    got = str(error.reason)
                if nesting(value, 100) > 8:
                    expected: object = "too-deep"
                elif closed and member == "zz":
                    expected = "invalid-instance"
                else:
                    expected = value
                assert got == expected, document
                seen.add(str(expected)[:8])
    assert compiled.backend == "msgspec"
    assert {"too-deep", "{'n': 1,"} <= seen

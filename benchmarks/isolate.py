"""Run pathological cases through one contender, in a process of its own.

The parent (``benchmarks.pathological``) starts ``python -m benchmarks.isolate`` per contender,
writes one job per line as JSON on stdin and reads one JSON line back per job. A runaway case is
killed at the parent's timeout, a crash (a segfault in native code, an abort on a failed
allocation) ends only this process — the parent starts a fresh one for the next job — and memory
is capped so a blow-up fails here instead of starving the machine.
"""

from __future__ import annotations

import importlib
import importlib.util
import statistics
import sys
import time
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from .timing import calibrate

MEMORY_CAP = 2 << 30  # bytes of address space the worker may use

decode = msgspec.json.decode


# ------------------------------------------------------------------------------ building inputs


def build(spec: Any) -> Any:
    """A JSON value from a compact spec (so a 100,000-deep instance is not shipped as text).

    ``{"json": v}`` is ``v``; ``{"nest": "array"|"object", "depth": n, "leaf": v}`` nests ``v``;
    ``{"repeat": s, "times": n, "then": t}`` is ``s * n + t``; ``{"range": n, "objects": bool,
    "duplicate_last": bool}`` is a list of distinct items; ``{"nest_schema": kw, "depth": n}``
    nests a schema ``n`` deep under keyword ``kw`` (``properties`` or ``items``).
    """
    if not isinstance(spec, dict) or len(spec) == 0:
        return spec
    if "json" in spec:
        return spec["json"]
    if "nest" in spec:
        value = spec.get("leaf")
        for _ in range(spec["depth"]):
            value = [value] if spec["nest"] == "array" else {"a": value}
        return value
    if "repeat" in spec:
        return spec["repeat"] * spec["times"] + spec.get("then", "")
    if "range" in spec:
        items: list[Any] = [{"i": i} if spec.get("objects") else i for i in range(spec["range"])]
        if spec.get("duplicate_last"):
            items.append(items[0])
        return items
    if "nest_schema" in spec:
        schema: dict[str, Any] = {"type": "integer"}
        for _ in range(spec["depth"]):
            if spec["nest_schema"] == "items":
                schema = {"type": "array", "items": schema}
            else:
                schema = {"type": "object", "properties": {"a": schema}}
        return schema
    return spec


def encode_spec(spec: Any, value: Any) -> bytes:
    """The JSON bytes of a built value; deep nests are written directly (encoders stop at a
    recursion limit, and the point is to hand the decoder bytes that deep)."""
    if isinstance(spec, dict) and spec.get("nest") in ("array", "object"):
        leaf = msgspec.json.encode(spec.get("leaf"))
        depth = spec["depth"]
        if spec["nest"] == "array":
            return b"[" * depth + leaf + b"]" * depth
        return b'{"a":' * depth + leaf + b"}" * depth
    return msgspec.json.encode(value)


# ------------------------------------------------------------------------------------ contenders


_MODULES = {
    "engine": ("engine",),
    "jsonschema-rs": ("jsonschema_rs",),
    "fastjsonschema": ("fastjsonschema", "benchmarks.contenders"),
    "jsonschema": ("jsonschema", "referencing"),
}


def _deny(uri: str) -> Any:
    raise LookupError(f"the benchmark never fetches ({uri})")


def prepare(
    contender: str, schema: Any, registry: dict[str, Any], config: dict[str, Any]
) -> tuple[Callable[[Any], Any], tuple[type[BaseException], ...]]:
    """Compile ``schema``; return the call SDKs make (raising on an invalid instance) and the
    exception types that mean "invalid". ``registry`` and ``config`` are the engine's (the raw
    libraries are run as they come)."""
    if contender.startswith("engine[") and contender.endswith("]"):
        import engine

        settings = {**config, "backend": contender[len("engine[") : -1]}
        eng = engine.Engine(engine.EngineConfig.load(env={}, **settings))
        cs = eng.compile(schema, registry=registry or None)

        def check(payload: Any) -> Any:
            if isinstance(payload, bytes):
                return cs.decode(payload)
            return cs.validate(payload)

        return check, (engine.ValidationFailed,)
    if contender == "jsonschema-rs":
        import jsonschema_rs

        validator = jsonschema_rs.validator_for(schema, retriever=_deny)
        return _from_bytes(validator.validate), (jsonschema_rs.ValidationError,)
    if contender == "fastjsonschema":
        import fastjsonschema

        from .contenders import _DenyAllHandlers

        validate = fastjsonschema.compile(schema, handlers=_DenyAllHandlers(), use_default=False)
        return _from_bytes(validate), (fastjsonschema.JsonSchemaValueException,)
    if contender == "jsonschema":
        import jsonschema
        import referencing

        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        cls.check_schema(schema)
        validator = cls(schema, registry=referencing.Registry())
        return _from_bytes(validator.validate), (jsonschema.ValidationError,)
    raise SystemExit(f"unknown contender {contender!r}")


def _from_bytes(check: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def run(payload: Any) -> Any:
        return check(decode(payload) if isinstance(payload, bytes) else payload)

    return run


def _outcome(exc: BaseException, invalid: tuple[type[BaseException], ...]) -> str:
    if isinstance(exc, invalid):
        return "invalid"
    reason = getattr(exc, "reason", None)
    if reason is not None:  # an engine error: refused payload (DecodeError) or the like
        return f"rejected:{getattr(reason, 'value', reason)}"
    return f"error:{type(exc).__name__}"


def catalog_module(folder: Path) -> Any:
    """The catalog's own loader (``catalog.py`` next to the cases), or ``None`` without one."""
    name = "_pathological_catalog"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, folder / "catalog.py")
    if spec is None or spec.loader is None or not (folder / "catalog.py").is_file():
        return None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def load_catalog_case(job: dict[str, Any]) -> tuple[Any, dict[str, Any], dict[str, Any], Any]:
    """Schema, registry, engine configuration and payload of a case of the guard's catalog, read
    with the catalog's own loader so the tests and the benchmark see the same cases."""
    ref = job["catalog"]
    folder = Path(ref["dir"])
    catalog = catalog_module(folder)
    if catalog is None:
        raise SystemExit(f"no catalog loader in {folder}")
    case = catalog.load(folder / f"{ref['case']}.json")
    payload: Any = None
    for candidate in case.payloads:
        if candidate.name == ref.get("payload"):
            payload = candidate.data if candidate.data is not None else candidate.value
    return case.schema, dict(case.registry), dict(case.config), payload


def run_job(job: dict[str, Any]) -> dict[str, Any]:
    registry: dict[str, Any] = {}
    config: dict[str, Any] = {}
    if "catalog" in job:
        schema, registry, config, payload = load_catalog_case(job)
    else:
        schema = build(job["schema"])
        instance = build(job["instance"])
        payload = encode_spec(job["instance"], instance) if job.get("payload", "bytes") == "bytes" else instance
    # Imports are not compile time: load the contender's library before the clock starts.
    for module in _MODULES.get(job["contender"].split("[")[0], ()):
        importlib.import_module(module)
    started = time.perf_counter()
    try:
        check, invalid = prepare(job["contender"], schema, registry, config)
    except BaseException as exc:  # noqa: BLE001 - every way a compile can end is a result here
        reason = getattr(exc, "reason", None)
        outcome = f"refused:{getattr(reason, 'value', reason)}" if reason is not None else f"error:{type(exc).__name__}"
        return {"outcome": outcome, "compile_s": time.perf_counter() - started, "detail": _first_line(exc)}
    compile_s = time.perf_counter() - started

    outcome = "valid"
    detail = ""

    def once() -> None:
        nonlocal outcome, detail
        try:
            check(payload)
        except BaseException as exc:  # noqa: BLE001
            outcome, detail = _outcome(exc, invalid), _first_line(exc)

    started = time.perf_counter()
    once()
    first = time.perf_counter() - started
    validate_s = first
    if first < job.get("repeat_below", _REPEAT_BELOW):
        # Quick enough to time again: the same timeit machinery as the main workloads. The first
        # call binds what a schema's checks need (some 15-20 ms on the largest catalog schemas):
        # reported apart, as compiling is, not as the call's cost (a first call just past a
        # lower threshold of 20 ms was the row's figure, thousands of times the steady one).
        timer = timeit.Timer(once)
        number, _ = calibrate(timer, 0.01)
        validate_s = statistics.median(timer.repeat(repeat=3, number=number)) / number
    return {
        "outcome": outcome,
        "compile_s": compile_s,
        "first_s": first,
        "validate_s": validate_s,
        "detail": detail,
    }


_REPEAT_BELOW = 0.1  # a first call past this is timed once: it is the slow case being measured


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:160] if text else ''}"


def main() -> None:
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
    except (ImportError, ValueError, OSError):  # not on this platform: the timeout still holds
        pass
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        result = run_job(msgspec.json.decode(line))
        sys.stdout.buffer.write(msgspec.json.encode(result) + b"\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()

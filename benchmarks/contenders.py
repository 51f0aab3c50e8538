"""Everything a workload runs side by side.

- ``floor``: ``msgspec.json.decode`` alone on the same bytes — the least any validator must pay.
- ``engine[<backend>]`` for every backend installed, and ``engine[auto]``.
- ``jsonschema-rs``: the raw Rust library, validator built once.
- ``fastjsonschema``: the raw library, compiled once (deny-all ref handlers, ``use_default=False``).
- ``jsonschema``: a cached python-jsonschema validator — what MCP SDKs do today.

Raw libraries are given handlers that cannot fetch: a benchmark must never reach the network.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec

import engine
from engine.backends import BACKENDS, load_backend

__all__ = [
    "Checker",
    "Contender",
    "Refused",
    "all_contenders",
    "engine_backends",
    "mcp_available",
]

decode = msgspec.json.decode


class Refused(Exception):
    """This contender will not (or cannot) take this schema; the reason is shown in the table."""

    def __init__(self, status: str, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Checker:
    """One schema compiled by one contender: the two hot-path calls, and the call that reports
    why a document is invalid."""

    from_bytes: Callable[[bytes], Any]
    from_object: Callable[[Any], Any] | None
    refuses: Callable[[bytes], bool] | None = None
    """``True`` where the library refuses the document with its own report (the error its docs
    raise for an invalid instance), ``False`` where it accepts it."""


def refusing(check: Callable[[Any], Any], invalid: type[BaseException]) -> Callable[[bytes], bool]:
    """``check`` of the decoded document (raising ``invalid`` when it is invalid) as a
    :attr:`Checker.refuses`."""

    def refuses(data: bytes) -> bool:
        try:
            check(decode(data))
        except invalid:
            return True
        return False

    return refuses


class Contender:
    name: str
    kind: str  # "floor", "engine" or "raw"

    def compile(self, schema: Any) -> Checker:
        raise NotImplementedError

    def cold_compiler(self) -> Callable[[Any], Any]:
        """A callable compiling one schema with nothing cached from a previous call."""
        raise NotImplementedError

    def cold_check(self) -> Callable[[Any, Any], Any]:
        """``check(schema, value)``: the schema compiled with nothing cached, then the value (a
        decoded document) checked once, as a program that validates one instance of a schema it
        has just received does: its answer where the library answers, its error raised otherwise."""
        raise Refused("n/a", "no first check")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class Floor(Contender):
    name = "floor"
    kind = "floor"

    def compile(self, schema: Any) -> Checker:
        return Checker(from_bytes=decode, from_object=None)

    def cold_compiler(self) -> Callable[[Any], Any]:
        raise Refused("n/a", "the floor compiles nothing")


class EngineContender(Contender):
    kind = "engine"

    def __init__(self, backend: str) -> None:
        self.backend = backend
        self.name = f"engine[{backend}]"
        self.engine = engine.Engine(engine.EngineConfig(backend=backend))  # type: ignore[arg-type]

    def compile(self, schema: Any) -> Checker:
        try:
            cs = self.engine.compile(schema)
        except engine.SchemaRejected as exc:
            raise Refused("refused", f"{exc.reason}: {exc.message}") from None
        decode_checked = cs.decode

        def refuses(data: bytes) -> bool:
            try:
                decode_checked(data)
            except engine.ValidationFailed:
                return True
            return False

        return Checker(from_bytes=cs.decode, from_object=cs.validate, refuses=refuses)

    def cold_compiler(self) -> Callable[[Any], Any]:
        cold = engine.Engine(engine.EngineConfig(backend=self.backend, cache_size=0))  # type: ignore[arg-type]
        return cold.compile

    def fresh_engine(self, **overrides: Any) -> engine.Engine:
        return engine.Engine(engine.EngineConfig(backend=self.backend, **overrides))  # type: ignore[arg-type]


def _deny(uri: str) -> Any:
    raise LookupError(f"the benchmark never fetches ({uri})")


class RawJsonschemaRs(Contender):
    name = "jsonschema-rs"
    kind = "raw"

    def __init__(self) -> None:
        import jsonschema_rs

        self._rs = jsonschema_rs

    def _build(self, schema: Any) -> Any:
        return self._rs.validator_for(schema, retriever=_deny)

    def compile(self, schema: Any) -> Checker:
        try:
            validator = self._build(schema)
        except Exception as exc:  # noqa: BLE001 - whatever the library raises is the answer shown
            raise Refused("error", f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}") from None
        is_valid = validator.is_valid
        return Checker(
            from_bytes=lambda data: is_valid(decode(data)),
            from_object=is_valid,
            refuses=refusing(validator.validate, self._rs.ValidationError),
        )

    def cold_compiler(self) -> Callable[[Any], Any]:
        return self._build

    def cold_check(self) -> Callable[[Any, Any], Any]:
        build = self._build
        return lambda schema, value: build(schema).is_valid(value)


class _DenyAllHandlers(dict):  # type: ignore[type-arg]
    """fastjsonschema looks the URI's scheme up in ``handlers`` and calls ``urlopen`` when it is
    missing: claim every scheme, and refuse each."""

    def __contains__(self, scheme: object) -> bool:
        return True

    def __getitem__(self, scheme: str) -> Callable[[str], Any]:
        return _deny


class RawFastjsonschema(Contender):
    name = "fastjsonschema"
    kind = "raw"

    def __init__(self) -> None:
        import fastjsonschema

        self._fjs = fastjsonschema
        self._handlers = _DenyAllHandlers()

    def _build(self, schema: Any) -> Any:
        return self._fjs.compile(schema, handlers=self._handlers, use_default=False)

    def compile(self, schema: Any) -> Checker:
        try:
            validate = self._build(schema)
        except Exception as exc:  # noqa: BLE001
            raise Refused("error", f"{type(exc).__name__}: {str(exc)[:120]}") from None
        return Checker(
            from_bytes=lambda data: validate(decode(data)),
            from_object=validate,
            refuses=refusing(validate, self._fjs.JsonSchemaValueException),
        )

    def cold_compiler(self) -> Callable[[Any], Any]:
        return self._build

    def cold_check(self) -> Callable[[Any, Any], Any]:
        build = self._build
        return lambda schema, value: build(schema)(value)


class RawJsonschema(Contender):
    """python-jsonschema as MCP SDKs use it: schema checked once, validator kept and reused."""

    name = "jsonschema"
    kind = "raw"

    def __init__(self) -> None:
        import jsonschema
        import referencing

        self._js = jsonschema
        self._registry = referencing.Registry()  # retrieves nothing

    def _build(self, schema: Any) -> Any:
        cls = self._js.validators.validator_for(schema, default=self._js.Draft202012Validator)
        cls.check_schema(schema)
        return cls(schema, registry=self._registry)

    def compile(self, schema: Any) -> Checker:
        try:
            validator = self._build(schema)
        except Exception as exc:  # noqa: BLE001
            raise Refused("error", f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}") from None
        is_valid = validator.is_valid
        return Checker(
            from_bytes=lambda data: is_valid(decode(data)),
            from_object=is_valid,
            refuses=refusing(validator.validate, self._js.ValidationError),
        )

    def cold_compiler(self) -> Callable[[Any], Any]:
        return self._build

    def cold_check(self) -> Callable[[Any, Any], Any]:
        build = self._build
        return lambda schema, value: build(schema).is_valid(value)


RAW = {"jsonschema-rs": RawJsonschemaRs, "fastjsonschema": RawFastjsonschema, "jsonschema": RawJsonschema}


def engine_backends() -> list[str]:
    """Every engine backend whose package is installed, then ``auto``."""
    names = []
    for name in BACKENDS:
        try:
            load_backend(name)
        except engine.BackendUnavailable:
            continue
        names.append(name)
    return [*names, "auto"]


def all_contenders(backends: list[str] | None = None, baselines: list[str] | None = None) -> list[Contender]:
    """The floor, the engine per backend (``backends`` filters them: ``auto`` or a backend name),
    then the raw libraries (``baselines`` filters them by name)."""
    out: list[Contender] = [Floor()]
    for backend in engine_backends():
        if backends is None or backend in backends:
            try:
                out.append(EngineContender(backend))
            except engine.EngineError:
                continue
    for name, cls in RAW.items():
        if baselines is None or name in baselines:
            try:
                out.append(cls())
            except ImportError:
                continue
    return out


def mcp_available() -> str | None:
    """``None`` when the MCP layer is present, else why the workloads that need it are skipped."""
    missing = [n for n in ("compile_tools", "compile_elicitation") if not hasattr(engine, n)]
    if missing:
        return f"skipped: not available (engine has no {', '.join(missing)} yet)"
    return None

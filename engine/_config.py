"""The engine's configuration: one typed, immutable object.

Sources, highest precedence first: keyword arguments, environment variables (``ENGINE_BACKEND``,
``ENGINE_LIMITS_MAX_SCHEMA_DEPTH``, ...), then a TOML file (a ``[tool.engine]`` table in
``pyproject.toml`` or a file of its own whose top level is the configuration).
"""

from __future__ import annotations

import os
import tomllib
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import msgspec

from ._errors import EngineError

__all__ = ["BackendName", "ConfigError", "DialectName", "EngineConfig", "FetchConfig", "Limits"]

BackendName = Literal["auto", "jsonschema-rs", "msgspec", "fastjsonschema", "jsonschema"]
DialectName = Literal["2020-12", "2019-09", "draft7", "draft6", "draft4"]

ENV_PREFIX = "ENGINE_"


class ConfigError(EngineError):
    """The configuration itself is wrong (unknown field, wrong type, unreadable file)."""

    reason = "invalid-config"


class Limits(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Bounds on schemas (checked at compile time) and instances (checked at validation time).

    Defaults sit far above anything seen in real tool schemas and far below what makes a
    validator slow; the README lists each with the largest value measured on the corpus.
    """

    # Schemas, at compile time (the README gives each limit's meaning and the corpus maximum).
    max_schema_bytes: int = 1_000_000
    max_document_depth: int = 128
    max_schema_depth: int = 40
    max_subschemas: int = 20_000
    max_branches: int = 256
    max_properties: int = 2_000
    max_enum: int = 10_000
    max_ref_expansion: int = 10_000
    max_eval_depth: int = 64
    max_unevaluated_nesting: int = 8
    max_pattern_length: int = 2_000
    # Instances, at validation time.
    max_instance_bytes: int = 64 * 1024 * 1024
    max_instance_depth: int = 256
    max_issues: int = 100
    max_explain_seconds: float = 1.0
    max_explain_work: int = 20_000


class FetchConfig(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Opt-in retrieval of remote ``$ref`` targets at compile time. Off unless ``enabled``."""

    enabled: bool = False
    allow_hosts: tuple[str, ...] = ()
    """Hosts that may be fetched from: exact names, or ``.example.com`` for its subdomains."""
    allow_http: bool = False
    """Allow plain ``http://`` (``https://`` only otherwise)."""
    allow_private: bool = False
    """Allow RFC 1918 IPv4 (10/8, 172.16/12, 192.168/16) and unique-local IPv6 (fc00::/7), and
    nothing else: link-local, metadata and other non-global addresses stay refused."""
    allow_loopback: bool = False
    """Allow loopback addresses (for tests against a local server)."""
    connect_timeout: float = 3.0
    total_timeout: float = 10.0
    max_bytes: int = 1_000_000
    max_redirects: int = 3
    cache_size: int = 256


class EngineConfig(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Everything that changes how schemas are compiled and instances validated."""

    backend: BackendName = "auto"
    default_dialect: DialectName = "2020-12"
    formats: Literal["annotate", "assert"] = "annotate"
    cache_size: int = 1024
    regex: Literal["linear", "backtracking"] = "linear"
    backtrack_limit: int = 10_000
    allow_empty_input_schema: bool = True
    limits: Limits = Limits()
    fetch: FetchConfig = FetchConfig()

    def __post_init__(self) -> None:
        if self.cache_size < 0:
            raise ValueError("cache_size must be >= 0")

    @property
    def assert_formats(self) -> bool:
        return self.formats == "assert"

    def replace(self, **changes: Any) -> EngineConfig:
        """A copy with ``changes`` applied (validated like any other source)."""
        return _build(_merge(msgspec.to_builtins(self), changes))

    @classmethod
    def load(
        cls,
        toml: str | os.PathLike[str] | None = None,
        *,
        env: Mapping[str, str] | None = None,
        **overrides: Any,
    ) -> EngineConfig:
        """Build a configuration from TOML, then environment variables, then ``overrides``.

        ``toml`` names a file: a ``pyproject.toml`` contributes its ``[tool.engine]`` table, any
        other file its top level. ``env`` defaults to ``os.environ``; pass ``{}`` to ignore it.
        Nested fields are reached in the environment with an underscore:
        ``ENGINE_LIMITS_MAX_SCHEMA_DEPTH=32``, ``ENGINE_FETCH_ALLOW_HOSTS=a.example,b.example``.
        """
        data: dict[str, Any] = {}
        if toml is not None:
            data = _merge(data, _read_toml(Path(toml)))
        data = _merge(data, _from_env(os.environ if env is None else env))
        data = _merge(data, overrides)
        return _build(data)


def _build(data: Mapping[str, Any]) -> EngineConfig:
    try:
        return msgspec.convert(dict(data), EngineConfig, strict=False)
    except (msgspec.ValidationError, ValueError) as exc:
        raise ConfigError(f"invalid engine configuration: {exc}") from None


def _merge(base: Mapping[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in top.items():
        if isinstance(value, msgspec.Struct):
            value = msgspec.to_builtins(value)
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            doc = tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read engine configuration from {path}: {exc}") from None
    if path.name == "pyproject.toml":
        return dict(doc.get("tool", {}).get("engine", {}))
    return doc


_NESTED = {"limits": Limits, "fetch": FetchConfig}


def _from_env(env: Mapping[str, str]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for key, raw in env.items():
        if not key.startswith(ENV_PREFIX):
            continue
        name = key[len(ENV_PREFIX) :].lower()
        for section, struct in _NESTED.items():
            prefix = section + "_"
            if name.startswith(prefix) and name[len(prefix) :] in struct.__struct_fields__:
                field = name[len(prefix) :]
                value: Any = raw
                if field == "allow_hosts":
                    value = tuple(h.strip() for h in raw.split(",") if h.strip())
                data.setdefault(section, {})[field] = value
                break
        else:
            if name in EngineConfig.__struct_fields__ and name not in _NESTED:
                data[name] = raw
            else:
                # Another program's ENGINE_* variable must not break start-up; a typo should be seen.
                warnings.warn(f"ignoring unknown engine setting in the environment: {key}", stacklevel=3)
    return data

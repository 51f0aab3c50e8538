"""The engine's configuration: one typed, immutable object that checks itself.

Sources, highest precedence first: keyword arguments, environment variables (``ENGINE_BACKEND``,
``ENGINE_LIMITS_MAX_SCHEMA_DEPTH``, ...), then a TOML file: the one named, or else the nearest
``pyproject.toml`` with a ``[tool.engine]`` table, from the working directory upward (as ruff,
pytest and mypy find theirs). Every field is checked whichever way the object is built; a wrong
value raises :class:`ConfigError` naming where it came from and what is allowed.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypedDict, TypeVar, Unpack, get_args, get_origin, get_type_hints

import msgspec

from . import _config_values as checks
from ._errors import EngineError

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "ConfigError",
    "ConfigOverrides",
    "DialectName",
    "EngineConfig",
    "FetchConfig",
    "Limits",
    "ResolvedConfig",
    "backend_names",
    "engine_config",
    "find_pyproject",
    "resolve",
]

DialectName = Literal["2020-12", "2019-09", "draft7", "draft6", "draft4"]

ENV_PREFIX = "ENGINE_"
PYPROJECT = "pyproject.toml"


class ConfigError(EngineError):
    """The configuration itself is wrong: a value out of range, an unknown field, an unreadable file.

    ``field`` is the setting's dotted name (``limits.max_schema_depth``) where one is at fault,
    ``source`` where the value came from (``ENGINE_FORMATS``, ``pyproject.toml [tool.engine]``,
    ``keyword``), ``allowed`` the accepted values or range in words.
    """

    reason = "invalid-config"

    def __init__(
        self, message: str, *, field: str | None = None, source: str | None = None, allowed: str | None = None
    ) -> None:
        super().__init__(message)
        self.field = field
        self.source = source
        self.allowed = allowed

    def to_dict(self) -> dict[str, Any]:
        return {
            "reason": self.reason,
            "message": self.message,
            "field": self.field,
            "source": self.source,
            "allowed": self.allowed,
        }


def backend_names() -> tuple[str, ...]:
    """Every value ``backend`` accepts: ``auto`` and the names in the backend registry."""
    from .backends import backend_names as registered  # the registry imports this module: read it late

    return registered()


# ------------------------------------------------------------------------------ field checks


class _Problem(Exception):
    """A value a field does not accept; ``allowed`` says in words what would do. ``why`` says what
    is wrong where "is not <allowed>" would not, and ``at`` is the list entry at fault (``[0]``)."""

    def __init__(self, value: Any, allowed: str, *, why: str = "", at: str = "") -> None:
        super().__init__(allowed)
        self.text = f"{checks.short_repr(value)} {why or 'is not ' + allowed}"
        self.allowed = allowed
        self.at = at


def _choices(owner: type, name: str, hint: Any) -> tuple[str, ...] | None:
    if name == "backend":  # EngineConfig.backend: the registry is the one list of names
        return backend_names()
    if get_origin(hint) is Literal:
        return tuple(str(v) for v in get_args(hint))
    return None


def _check(owner: type, name: str, hint: Any, value: Any, *, from_text: bool = False) -> Any:
    """``value`` as field ``name`` holds it, or :class:`_Problem`. ``from_text`` converts the
    strings of an environment variable (``"true"``, ``"32"``, ``"a.example,b.example"``)."""
    choices = _choices(owner, name, hint)
    # A str or int subclass is read as the plain value it holds: its own methods are never called.
    if choices is not None:
        if not isinstance(value, str) or str.__str__(value) not in choices:
            raise _Problem(value, "one of " + ", ".join(choices))
        return str.__str__(value)
    if hint is bool:
        if from_text and isinstance(value, str) and value.strip().lower() in _BOOLS:
            return _BOOLS[value.strip().lower()]
        if not isinstance(value, bool):
            raise _Problem(value, "true or false")
        return value
    if hint is int or hint is float:
        minimum = checks.MINIMUM.get(name, 0)
        maximum = checks.MAXIMUM.get(name, checks.LARGEST_INTEGER if hint is int else math.inf)
        allowed = f"an integer >= {minimum:g}" if hint is int else f"a number > {minimum:g}"
        if name in checks.MAXIMUM:
            allowed += f" and <= {maximum:.0f}"
        original = value
        if from_text and isinstance(value, str):
            value = checks.number_from_text(value, integral=hint is int)  # the text itself if it is none
        if isinstance(value, bool) or not isinstance(value, (int, float) if hint is float else int):
            raise _Problem(original, allowed)
        value = int.__index__(value) if isinstance(value, int) else float.__float__(value)
        if hint is float:
            try:
                value = float(value)
            except OverflowError:  # an int past the float range
                raise _Problem(original, allowed) from None
            if not (math.isfinite(value) and minimum < value <= maximum):
                raise _Problem(original, allowed)
            return value
        if not minimum <= value <= maximum:
            if value > maximum and name not in checks.MAXIMUM:  # the machine word: said where it is the reason
                allowed += f" and <= {maximum}"
            raise _Problem(original, allowed)
        return value
    if get_origin(hint) is tuple:  # tuple[str, ...]
        if from_text and isinstance(value, str):
            value = [part.strip() for part in value.split(",") if part.strip()]
        if (
            isinstance(value, (str, bytes))
            or not isinstance(value, (list, tuple))
            or not all(isinstance(v, str) for v in value)
        ):
            raise _Problem(value, "a list of strings")
        entries = tuple(map(str.__str__, value))
        if name == "allow_hosts":  # entries the fetcher could never match are refused now, not at each fetch
            for index, entry in enumerate(entries):
                why = checks.host_entry_problem(entry)
                if why is not None:
                    raise _Problem(entry, checks.ALLOWED_HOSTS, why=why, at=f"[{index}]")
        return entries
    section = _SECTIONS.get(name)
    if section is not None:
        if isinstance(value, Mapping) and all(type(key) is str for key in value):
            return section(**value)  # a table of its fields, as `load` takes it: refused there, named
        if not isinstance(value, section):
            raise _Problem(value, f"a {section.__name__} (or a table of its fields)")
        return value
    raise AssertionError(f"no check for {owner.__name__}.{name}: {hint!r}")  # pragma: no cover


_BOOLS = {"true": True, "1": True, "yes": True, "on": True, "false": False, "0": False, "no": False, "off": False}
_HINTS: dict[type, dict[str, Any]] = {}


def _hints(owner: type) -> dict[str, Any]:
    hints = _HINTS.get(owner)
    if hints is None:
        hints = _HINTS[owner] = get_type_hints(owner)
    return hints


def _validate(struct: msgspec.Struct, prefix: str) -> None:
    owner = type(struct)
    for name in struct.__struct_fields__:
        value = getattr(struct, name)
        try:
            checked = _check(owner, name, _hints(owner)[name], value)
        except _Problem as problem:
            raise ConfigError(
                f"{prefix}{name}{problem.at}: {problem.text}",
                field=prefix + name,
                source="keyword",
                allowed=problem.allowed,
            ) from None
        if type(checked) is not type(value):  # a list of hosts kept as a tuple, 3 seconds as 3.0
            msgspec.structs.force_setattr(struct, name, checked)


# ------------------------------------------------------------------------------ the objects

_T = TypeVar("_T")


class _Settings(msgspec.StructMeta):
    """The configuration objects' type: an argument by position or a keyword that names no
    field is a :class:`ConfigError`, as a wrong value is (msgspec's own error is a ``TypeError``
    that names neither the setting nor the ones there are)."""

    def __call__(cls: type[_T], *args: Any, **kwargs: Any) -> _T:
        fields: tuple[str, ...] = cls.__struct_fields__  # type: ignore[attr-defined]
        if args:
            message = f"{cls.__name__} takes its settings as keyword arguments, not {len(args)} by position"
            raise ConfigError(message, source="keyword", allowed=", ".join(fields))
        for name in kwargs:
            if name not in fields:
                section = next((key for key, struct in _SECTIONS.items() if struct is cls), "")
                raise _unknown_setting(section, name, f"{section}.{name}" if section else name, "keyword")
        built: _T = super().__call__(*args, **kwargs)  # type: ignore[misc]
        return built


class Limits(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, metaclass=_Settings):
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
    max_validation_work: int = 100_000_000

    def __post_init__(self) -> None:
        _validate(self, "limits.")


class FetchConfig(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, metaclass=_Settings):
    """Opt-in retrieval of remote ``$ref`` targets at compile time. Off unless ``enabled``."""

    enabled: bool = False
    allow_hosts: tuple[str, ...] = ()
    """Hosts that may be fetched from: names or IP addresses, or ``.example.com`` for its
    subdomains (a URL, a port or a path is refused); at least one when ``enabled``."""
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

    def __post_init__(self) -> None:
        _validate(self, "fetch.")
        if self.enabled and not self.allow_hosts:
            raise _nothing_to_fetch("fetch.enabled", "keyword")


class EngineConfig(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, metaclass=_Settings):
    """Everything that changes how schemas are compiled and instances validated.

    ``backend`` is ``auto`` or a name in the backend registry (:func:`backend_names`).
    """

    backend: str = "auto"
    default_dialect: DialectName = "2020-12"
    formats: Literal["annotate", "assert"] = "annotate"
    cache_size: int = 1024
    cache_bytes: int = 128_000_000
    regex: Literal["linear", "backtracking"] = "linear"
    backtrack_limit: int = 10_000
    allow_empty_input_schema: bool = True
    limits: Limits = Limits()
    fetch: FetchConfig = FetchConfig()

    def __post_init__(self) -> None:
        _validate(self, "")

    @property
    def assert_formats(self) -> bool:
        return self.formats == "assert"

    def replace(self, **changes: Unpack[ConfigOverrides]) -> EngineConfig:
        """A copy with ``changes`` applied (validated like any other source)."""
        return _replaced(self, changes)

    @classmethod
    def load(
        cls,
        toml: str | os.PathLike[str] | Literal[False] | None = None,
        *,
        env: Mapping[str, str] | None = None,
        **overrides: Unpack[ConfigOverrides],
    ) -> EngineConfig:
        """Build a configuration from TOML, then environment variables, then ``overrides``.

        ``toml`` names a file: a ``pyproject.toml`` contributes its ``[tool.engine]`` table, any
        other file its top level. Without it, the nearest ``pyproject.toml`` with a
        ``[tool.engine]`` table from the working directory upward is read; ``False`` reads none.
        ``env`` defaults to ``os.environ``; pass ``{}`` to ignore it. Nested fields are reached in
        the environment with an underscore: ``ENGINE_LIMITS_MAX_SCHEMA_DEPTH=32``,
        ``ENGINE_FETCH_ALLOW_HOSTS=a.example,b.example``.
        """
        return resolve(toml, env=env, **overrides).config


class ConfigOverrides(TypedDict, total=False):
    """The keyword arguments that override :class:`EngineConfig` fields, each with its type
    (``limits`` and ``fetch`` also as a mapping of the fields to change)."""

    backend: str
    default_dialect: DialectName
    formats: Literal["annotate", "assert"]
    cache_size: int
    cache_bytes: int
    regex: Literal["linear", "backtracking"]
    backtrack_limit: int
    allow_empty_input_schema: bool
    limits: Limits | Mapping[str, Any]
    fetch: FetchConfig | Mapping[str, Any]


def engine_config(config: Any, overrides: Mapping[str, Any]) -> EngineConfig:
    """The configuration of ``Engine(config, **overrides)``: ``config`` (the defaults when
    ``None``) with ``overrides`` applied. Anything else in place of ``config`` is a
    :class:`ConfigError` saying what to pass instead, not an ``AttributeError`` later on, and
    not an empty mapping quietly read as the defaults."""
    if config is None:
        config = EngineConfig()
    elif not isinstance(config, EngineConfig):
        section = next((name for name, struct in _SECTIONS.items() if isinstance(config, struct)), None)
        if section is not None:
            instead = f"pass it by name: Engine({section}={type(config).__name__}(...))"
        elif isinstance(config, Mapping):
            instead = "pass settings as keyword arguments: Engine(**settings)"
        else:
            instead = "build one with EngineConfig(...) or EngineConfig.load(), or pass settings as keyword arguments"
        shown = f"a {type(config).__name__}" if section is not None else checks.short_repr(config)
        raise ConfigError(
            f"config: {shown} is not an EngineConfig; {instead}",
            source="keyword",
            allowed="an EngineConfig or None",
        )
    chosen: EngineConfig = config
    return chosen.replace(**overrides) if overrides else chosen


# ------------------------------------------------------------------------------ loading


class _Layer(msgspec.Struct, frozen=True):
    """One source of settings: its label and a (possibly nested) mapping of values."""

    label: str
    data: dict[str, Any]
    from_text: bool = False
    """Values are strings to convert (the environment)."""
    names: dict[str, str] = {}
    """Per dotted field, how the source spells it (``ENGINE_LIMITS_MAX_ISSUES``)."""


class ResolvedConfig(msgspec.Struct, frozen=True):
    """A configuration and where each of its values came from."""

    config: EngineConfig
    sources: dict[str, str]
    """Dotted field name -> ``default``, ``keyword``, an environment variable, or ``<file> [table]``."""
    file: str | None
    """The TOML file read, if any."""
    searched_from: str | None
    """Where discovery started (the working directory), when no file was named."""


def find_pyproject(start: str | os.PathLike[str] | None = None) -> Path | None:
    """The nearest ``pyproject.toml`` with a ``[tool.engine]`` table, from ``start`` (the working
    directory) up to the filesystem root; ``None`` if there is none. A ``pyproject.toml`` without
    the table is passed over, as ruff and mypy pass over one without theirs."""
    from pathlib import Path  # with tomllib, only when a configuration is loaded: not on import

    here = Path(start if start is not None else Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / PYPROJECT
        if candidate.is_file():
            doc = checks.toml_document(candidate)
            if isinstance(doc.get("tool"), dict) and "engine" in doc["tool"]:
                return candidate
    return None


def resolve(
    toml: str | os.PathLike[str] | Literal[False] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    **overrides: Any,
) -> ResolvedConfig:
    """Like :meth:`EngineConfig.load`, and also say where each value came from."""
    from pathlib import Path

    if toml is not None and toml is not False and not isinstance(toml, (str, os.PathLike)):
        raise ConfigError(
            f"toml: {checks.short_repr(toml)} is not the path of a TOML file (or False to read none)",
            source="keyword",
            allowed="a path, False or None",
        )
    if env is not None and not isinstance(env, Mapping):
        raise ConfigError(
            f"env: {checks.short_repr(env)} is not a mapping of environment variables to their values",
            source="keyword",
            allowed="a mapping of strings to strings, or None for os.environ",
        )
    layers: list[_Layer] = []
    file: Path | None = None
    searched: str | None = None
    if toml is None:
        searched = str(Path(cwd if cwd is not None else Path.cwd()).resolve())
        file = find_pyproject(searched)
    elif toml is not False:
        file = Path(toml)
    if file is not None:
        layers.append(_read_toml(file))
    layers.append(_from_env(os.environ if env is None else env))
    layers.append(_Layer("keyword", _plain(overrides)))
    config, sources = _assemble(layers)
    named = None if file is None else str(file)
    return ResolvedConfig(config=config, sources=sources, file=named, searched_from=searched)


def _plain(values: Mapping[str, Any]) -> dict[str, Any]:
    """Keyword values with any nested struct (``limits=Limits(...)``) as a mapping of its fields."""
    return {k: msgspec.to_builtins(v) if isinstance(v, msgspec.Struct) else v for k, v in values.items()}


_SECTIONS: dict[str, type[msgspec.Struct]] = {"limits": Limits, "fetch": FetchConfig}


def _checked(layer: _Layer, section: str, name: str, value: Any) -> Any:
    """``value`` as the field holds it, or :class:`ConfigError` naming it as ``layer`` spells it."""
    owner: type[msgspec.Struct] = _SECTIONS[section] if section else EngineConfig
    dotted = f"{section}.{name}" if section else name
    where = _where(layer, dotted)
    if name not in owner.__struct_fields__:  # a section's name is routed to its fields by `_leaves`
        raise _unknown_setting(section, name, where, layer.label)
    try:
        return _check(owner, name, _hints(owner)[name], value, from_text=layer.from_text)
    except _Problem as problem:
        text, allowed = problem.text, problem.allowed
        raise ConfigError(f"{where}{problem.at}: {text}", field=dotted, source=layer.label, allowed=allowed) from None


def _where(layer: _Layer, dotted: str) -> str:
    """The setting ``dotted`` as ``layer`` spells it: ``ENGINE_FORMATS``, ``<file> [tool.engine] formats``."""
    return layer.names.get(dotted) or (f"{layer.label} {dotted}" if layer.label != "keyword" else dotted)


def _nothing_to_fetch(where: str, source: str) -> ConfigError:
    return ConfigError(
        f"{where}: fetching is on, but fetch.allow_hosts is empty, so nothing would ever be fetched; "
        "list the hosts to fetch from in fetch.allow_hosts, or leave fetch.enabled false",
        field="fetch.enabled",
        source=source,
        allowed="fetch.enabled false, or hosts in fetch.allow_hosts",
    )


def _unknown_setting(section: str, name: str, where: str, source: str) -> ConfigError:
    """The one refusal of a setting that does not exist, however the configuration arrives: it
    lists every setting of its section (``limits`` and ``fetch`` among the top-level ones)."""
    known = ", ".join((_SECTIONS[section] if section else EngineConfig).__struct_fields__)
    dotted = f"{section}.{name}" if section else name
    message = f"{where}: unknown setting; the {section or 'top-level'} settings are {known}"
    return ConfigError(message, field=dotted, source=source, allowed=known)


def _assemble(layers: list[_Layer]) -> tuple[EngineConfig, dict[str, str]]:
    """Check every value of every layer against its field, then build the configuration."""
    values: dict[str, dict[str, Any]] = {"": {}, **{section: {} for section in _SECTIONS}}
    sources: dict[str, str] = {}
    wheres: dict[str, tuple[str, str]] = {}  # how each source spells each setting, and its label
    for layer in layers:
        for section, name, value in _leaves(layer):
            values[section][name] = _checked(layer, section, name, value)
            dotted = f"{section}.{name}" if section else name
            sources[dotted] = layer.names.get(dotted) or layer.label
            wheres[dotted] = (_where(layer, dotted), layer.label)
    if values["fetch"].get("enabled") and not values["fetch"].get("allow_hosts"):  # named where it was set
        raise _nothing_to_fetch(*wheres["fetch.enabled"])
    top: dict[str, Any] = values.pop("")
    sections: dict[str, Any] = {s: _SECTIONS[s](**v) for s, v in values.items()}
    config = EngineConfig(**top, **sections)
    for section, struct in _SECTIONS.items():
        for name in struct.__struct_fields__:
            sources.setdefault(f"{section}.{name}", "default")
    for name in EngineConfig.__struct_fields__:
        if name not in _SECTIONS:
            sources.setdefault(name, "default")
    return config, sources


def _replaced(config: EngineConfig, changes: Mapping[str, Any]) -> EngineConfig:
    """``config`` with ``changes`` (keyword values) applied; only the changed values are checked
    here (the constructors check the rest), so a copy costs microseconds, not a full load."""
    layer = _Layer("keyword", _plain(changes))
    top: dict[str, Any] = {name: getattr(config, name) for name in EngineConfig.__struct_fields__}
    nested: dict[str, dict[str, Any]] = {}
    for section, name, value in _leaves(layer):
        checked = _checked(layer, section, name, value)
        if section:
            nested.setdefault(section, {})[name] = checked
        else:
            top[name] = checked
    for section, fields in nested.items():
        top[section] = msgspec.structs.replace(top[section], **fields)
    return EngineConfig(**top)


def _leaves(layer: _Layer) -> list[tuple[str, str, Any]]:
    """(section, field, value) for each value in the layer; ``""`` is the top level."""
    out: list[tuple[str, str, Any]] = []
    for key, value in layer.data.items():
        if key in _SECTIONS:
            if not isinstance(value, Mapping):
                where = _where(layer, key)
                struct = _SECTIONS[key]
                raise ConfigError(
                    f"{where}: {checks.short_repr(value)} is not a table of {struct.__name__} fields",
                    field=key,
                    source=layer.label,
                    allowed=f"a table of {struct.__name__} fields",
                )
            out.extend((key, name, v) for name, v in value.items())
        else:
            out.append(("", key, value))
    return out


def _read_toml(path: Path) -> _Layer:
    doc = checks.toml_document(path)
    if path.name == PYPROJECT:
        tool = doc.get("tool", {})
        table = tool.get("engine", {}) if isinstance(tool, dict) else tool
        label = f"{path} [tool.engine]"
        if not isinstance(table, dict):
            raise ConfigError(f"{label}: must be a table", source=str(path))
        return _Layer(label, dict(table))
    return _Layer(str(path), doc)


def _from_env(env: Mapping[str, str]) -> _Layer:
    data: dict[str, Any] = {}
    names: dict[str, str] = {}
    for key, raw in env.items():
        if not isinstance(key, str) or not key.startswith(ENV_PREFIX):
            continue
        name = key[len(ENV_PREFIX) :].lower()
        for section, struct in _SECTIONS.items():
            prefix = section + "_"
            if name.startswith(prefix) and name[len(prefix) :] in struct.__struct_fields__:
                field = name[len(prefix) :]
                data.setdefault(section, {})[field] = raw
                names[f"{section}.{field}"] = key
                break
        else:
            if name in EngineConfig.__struct_fields__ and name not in _SECTIONS:
                data[name] = raw
                names[name] = key
            else:
                # Another program's ENGINE_* variable must not break start-up; a typo should be seen.
                shown = key if len(key) <= 100 else key[:97] + "..."
                warnings.warn(f"ignoring unknown engine setting in the environment: {shown}", stacklevel=4)
    return _Layer("environment", data, from_text=True, names=names)

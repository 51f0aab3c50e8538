"""The public surface is typed precisely: no ``**kwargs: Any`` (nor untyped ``*args``/``**kwargs``)
on any function, class or method that ``engine``, its adapters or its metrics exporters export;
keyword overrides of the configuration are the configuration's own fields, each with its type."""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import engine
from engine._config import ConfigOverrides

# The public modules beside the namespace; each is skipped when its optional dependency is missing.
PUBLIC_MODULES = [
    "engine",
    "engine.metrics",
    "engine.adapters.mcp_sdk",
    "engine.adapters.fastmcp",
    "engine.metrics.prometheus",
    "engine.metrics.opentelemetry",
]

# A subclass of an SDK class takes the SDK's own constructor parameters and passes them through
# untouched; spelling them out would tie the adapter to one SDK release.
PASS_THROUGH = {"engine.adapters.mcp_sdk.EngineClientSession.__init__"}


def public_callables(module_name: str) -> Iterator[tuple[str, Callable[..., Any]]]:
    module = importlib.import_module(module_name)
    for name in module.__all__:
        value = getattr(module, name)
        if inspect.isclass(value):
            for attr, member in vars(value).items():
                target = member.__func__ if isinstance(member, classmethod | staticmethod) else member
                if (attr == "__init__" or not attr.startswith("_")) and inspect.isfunction(target):
                    yield f"{module_name}.{name}.{attr}", target
        elif inspect.isfunction(value):
            yield f"{module_name}.{name}", value


def surface() -> list[Any]:
    params = []
    for module_name in PUBLIC_MODULES:
        try:
            found = sorted(public_callables(module_name))
        except ImportError as exc:
            params.append(pytest.param(module_name, None, marks=pytest.mark.skip(reason=str(exc)), id=module_name))
            continue
        params += [pytest.param(name, func, id=name) for name, func in found if name not in PASS_THROUGH]
    return params


def loose_parameters(func: Callable[..., Any]) -> list[str]:
    """Parameters that accept anything by any name: ``*args``/``**kwargs`` untyped or typed ``Any``."""
    loose = []
    for param in inspect.signature(func).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            annotation = param.annotation
            if annotation is param.empty or annotation in (Any, "Any", object, "object"):
                loose.append(str(param))
    return loose


SURFACE = surface()


def test_the_surface_is_found() -> None:
    names = {param.values[0] for param in SURFACE}
    core = {"compile", "Engine.__init__", "Engine.compile", "EngineConfig.load", "EngineConfig.replace"}
    assert {f"engine.{name}" for name in core} <= names
    assert "engine.compile_tools" in names and "engine.metrics.prometheus.install" in names


@pytest.mark.parametrize(("name", "func"), SURFACE)
def test_no_loose_keyword_arguments(name: str, func: Callable[..., Any]) -> None:
    assert loose_parameters(func) == [], f"{name} takes {loose_parameters(func)}: name the parameters and their types"


def test_the_check_catches_loose_parameters() -> None:
    def loose(schema: Any, **kwargs: Any) -> None: ...

    def untyped(*args, **kwargs) -> None: ...  # type: ignore[no-untyped-def]

    def typed(schema: Any, *, registry: dict[str, Any] | None = None) -> None: ...

    assert [p.partition(":")[0] for p in loose_parameters(loose)] == ["**kwargs"]
    assert len(loose_parameters(untyped)) == 2
    assert loose_parameters(typed) == []


def test_keyword_overrides_are_exactly_the_configuration_fields() -> None:
    assert set(ConfigOverrides.__annotations__) == set(engine.EngineConfig.__struct_fields__)


def test_overrides_reach_the_configuration() -> None:
    eng = engine.Engine(backend="jsonschema-rs", formats="assert", limits={"max_schema_depth": 12})
    assert eng.config.backend == "jsonschema-rs" and eng.config.assert_formats
    assert eng.config.limits.max_schema_depth == 12
    assert engine.EngineConfig.load(env={}, cache_size=3).cache_size == 3
    with pytest.raises(engine.ConfigError):
        engine.Engine(formats="sometimes")  # type: ignore[typeddict-item]


def test_compile_takes_only_its_named_keywords() -> None:
    assert engine.compile({"$ref": "urn:x"}, registry={"urn:x": {"type": "string"}}).is_valid("a")
    with pytest.raises(TypeError):
        engine.compile({}, registy={})  # type: ignore[call-arg]

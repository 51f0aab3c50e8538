"""Layers point one way, read from the source of every module under engine/:

    core (intake, dialect, guard, patterns, backends, cache, compiled schema, engine)
      <- MCP layer (engine._mcp, and the public namespace engine/__init__.py that re-exports it)
      <- adapters (engine.adapters, the metrics exporters in engine.metrics)
      <- command line (engine._cli, engine.__main__)

Inside the core, the stages (intake, dialect, guard, patterns, backends and what they share) do
not import the pipeline that runs them (engine, plan, cache, compiled schema), and the guard and
the backends do not import each other.

A module imports only from its own layer or the ones below, wherever the import sits (module
level, inside a function, or under ``TYPE_CHECKING``: the core does not know the MCP layer
exists, not even for typing). Nothing in the package imports the developer tools kept beside it
(benchmarks/, tests/), so they stay out of the wheel. And no module imports another module's
private names: no
``from m import _name`` across modules, no ``m._name`` on an imported module, and a private
submodule of a package (``engine.backends._contract``) is imported only from inside that package;
everyone else goes through the package itself.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "engine"

CORE, MCP, ADAPTERS, CLI = range(4)
LAYER_NAMES = {CORE: "core", MCP: "MCP layer", ADAPTERS: "adapters", CLI: "command line"}
# The first matching prefix wins; every other module of the package is core.
LAYERS: list[tuple[str, int]] = [
    ("engine._cli", CLI),
    ("engine.__main__", CLI),
    ("engine.adapters", ADAPTERS),
    ("engine.metrics", ADAPTERS),
    ("engine._mcp", MCP),
]


def layer(module: str) -> int:
    if module == "engine":  # the public namespace re-exports the MCP layer
        return MCP
    for prefix, level in LAYERS:
        if module == prefix or module.startswith(prefix + "."):
            return level
    return CORE


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


class Import(NamedTuple):
    line: int
    module: str
    """The module imported from (resolved: absolute, within the package)."""
    name: str | None
    """The name taken from it, when that name is not itself a module."""


class Modules:
    """Every module of a package, by dotted name, with its source."""

    def __init__(self, sources: dict[str, str], packages: set[str]) -> None:
        self.sources = sources
        self.packages = packages

    @classmethod
    def read(cls, root: Path) -> Modules:
        sources, packages = {}, set()
        for path in sorted(root.rglob("*.py")):
            name = module_name(path, root)
            sources[name] = path.read_text()
            if path.name == "__init__.py":
                packages.add(name)
        return cls(sources, packages)

    def _base(self, importer: str, node: ast.ImportFrom) -> str:
        """The absolute module a ``from ... import`` reads from."""
        if not node.level:
            return node.module or ""
        package = importer if importer in self.packages else importer.rpartition(".")[0]
        anchor = package.split(".")
        anchor = anchor[: len(anchor) - (node.level - 1)]
        return ".".join([*anchor, *([node.module] if node.module else [])])

    def imports(self, importer: str) -> Iterator[Import]:
        for node in ast.walk(ast.parse(self.sources[importer])):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield Import(node.lineno, alias.name, None)
            elif isinstance(node, ast.ImportFrom):
                base = self._base(importer, node)
                for alias in node.names:
                    submodule = f"{base}.{alias.name}"
                    if submodule in self.sources:
                        yield Import(node.lineno, submodule, None)
                    else:
                        yield Import(node.lineno, base, alias.name)

    def module_aliases(self, importer: str) -> dict[str, str]:
        """Local names bound to a module of the package (``from . import _guard as guard``)."""
        aliases = {}
        for node in ast.walk(ast.parse(self.sources[importer])):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    module = alias.name if alias.asname else alias.name.partition(".")[0]
                    aliases[alias.asname or module] = module
            elif isinstance(node, ast.ImportFrom):
                base = self._base(importer, node)
                for alias in node.names:
                    if f"{base}.{alias.name}" in self.sources:
                        aliases[alias.asname or alias.name] = f"{base}.{alias.name}"
        return {name: module for name, module in aliases.items() if module in self.sources}


# Developer tools (limit measurement, the hostile-case catalog, the benchmark runner) live outside
# the package, so outside the wheel; the package never imports them.
DEVELOPER_TOOLS = {"benchmarks", "tests", "bench_data"}


def layering_violations(modules: Modules) -> list[str]:
    found = []
    for importer in modules.sources:
        for item in modules.imports(importer):
            if item.module.split(".")[0] in DEVELOPER_TOOLS:
                found.append(f"{importer} imports the developer tool {item.module}, line {item.line}")
            if item.module.split(".")[0] != "engine":
                continue
            if layer(item.module) > layer(importer):
                found.append(
                    f"{importer} ({LAYER_NAMES[layer(importer)]}) imports {item.module} "
                    f"({LAYER_NAMES[layer(item.module)]}), line {item.line}"
                )
    return found


# Inside the core: the stages know nothing of the pipeline that runs them (the engine, the plan, the
# cache, the compiled schema), and the guard and the backends know nothing of each other (the guard's
# findings reach a backend as data, in SchemaSource).
STAGES = {
    "engine._intake",
    "engine._dialect",
    "engine._keywords",
    "engine._guard",
    "engine._patterns",
    "engine.backends",
    "engine._decode",
    "engine._errors",
    "engine._config",
    "engine._pointer",
    "engine._metrics",
}
PIPELINE = {"engine._engine", "engine._plan", "engine._cache", "engine._compiled", "engine._readers"}
APART = [("engine._guard", "engine.backends"), ("engine.backends", "engine._guard")]


def owner(module: str, names: set[str]) -> str | None:
    return next((name for name in names if module == name or module.startswith(name + ".")), None)


def pipeline_violations(modules: Modules) -> list[str]:
    found = []
    for importer in modules.sources:
        stage = owner(importer, STAGES)
        if stage is None:
            continue
        for item in modules.imports(importer):
            if owner(item.module, PIPELINE) is not None:
                found.append(f"{importer} (a stage) imports {item.module} (the pipeline), line {item.line}")
            for first, second in APART:
                if stage == first and owner(item.module, {second}) is not None:
                    found.append(f"{importer} imports {item.module}: {first} and {second} stay apart, line {item.line}")
    return found


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def privacy_violations(modules: Modules) -> list[str]:
    found = []
    for importer in modules.sources:
        for item in modules.imports(importer):
            if item.module.split(".")[0] != "engine":
                continue
            if item.name is not None and private(item.name):
                found.append(f"{importer} imports the private name {item.name} of {item.module}, line {item.line}")
            parts = item.module.split(".")
            # engine._x is private to the package `engine`, which every module is inside of;
            # engine.backends._x is private to engine.backends.
            for depth in range(2, len(parts)):
                owner = ".".join(parts[:depth])
                if private(parts[depth]) and not (importer == owner or importer.startswith(owner + ".")):
                    found.append(
                        f"{importer} reaches into {item.module}, private to {owner}: import it from {owner}, "
                        f"line {item.line}"
                    )
                    break
        aliases = modules.module_aliases(importer)
        for node in ast.walk(ast.parse(modules.sources[importer])):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and private(node.attr)
            ):
                found.append(
                    f"{importer} uses the private name {node.attr} of {aliases[node.value.id]}, line {node.lineno}"
                )
    return found


@pytest.fixture(scope="module")
def package() -> Modules:
    return Modules.read(PACKAGE)


def test_layers_point_one_way(package: Modules) -> None:
    assert not layering_violations(package), "\n".join(layering_violations(package))


def test_stages_do_not_know_the_pipeline(package: Modules) -> None:
    assert not pipeline_violations(package), "\n".join(pipeline_violations(package))


def test_no_module_imports_another_modules_private_names(package: Modules) -> None:
    assert not privacy_violations(package), "\n".join(privacy_violations(package))


def test_the_package_is_read_whole(package: Modules) -> None:
    # The rules above are only as good as the modules they see.
    assert {"engine", "engine._engine", "engine._mcp", "engine.adapters", "engine._cli"} <= set(package.sources)
    assert {layer(name) for name in package.sources} == {CORE, MCP, ADAPTERS, CLI}


# The checks themselves, on small made-up packages: each rule catches what it is meant to catch.


def made_up(sources: dict[str, str]) -> Modules:
    packages = {name for name in sources if any(other.startswith(name + ".") for other in sources)}
    return Modules(sources, packages | {"engine"})


@pytest.mark.parametrize(
    "source",
    [
        "from ._mcp import ToolSet\n",
        "from . import _mcp\n",
        "import engine._mcp.tools\n",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ._mcp.tools import ToolSet\n",
        "def later():\n    from engine import ToolSet\n",
        "from .adapters import mcp_sdk\n",
        "from benchmarks.limits import measure\n",
    ],
)
def test_the_core_importing_upwards_is_caught(source: str) -> None:
    modules = made_up(
        {
            "engine": "",
            "engine._engine": source,
            "engine._mcp": "",
            "engine._mcp.tools": "ToolSet = 1\n",
            "engine.adapters": "",
            "engine.adapters.mcp_sdk": "",
        }
    )
    assert [v for v in layering_violations(modules) if v.startswith("engine._engine ")]


def test_downward_imports_pass() -> None:
    modules = made_up(
        {
            "engine": "from ._engine import Engine\nfrom ._mcp import ToolSet\n",
            "engine._engine": "Engine = 1\n",
            "engine._mcp": "from .._engine import Engine\nToolSet = 1\n",
            "engine._cli": "from .._mcp import ToolSet\nfrom ..adapters import x\n",
            "engine.adapters": "from .. import _engine\nx = _engine.Engine\n",
        }
    )
    assert layering_violations(modules) == []
    assert privacy_violations(modules) == []


@pytest.mark.parametrize(
    ("importer", "source"),
    [
        ("engine._mcp.tools", "from ..backends._translation import translate\n"),
        ("engine._mcp.tools", "from .._engine import _helper\n"),
        ("engine._mcp.tools", "from .. import _engine as core\ncore._helper()\n"),
        ("engine._mcp.tools", "import engine.backends._translation\n"),
    ],
)
def test_private_names_across_modules_are_caught(importer: str, source: str) -> None:
    modules = made_up(
        {
            "engine": "",
            "engine._engine": "def _helper(): pass\n",
            "engine._mcp": "",
            "engine._mcp.tools": source,
            "engine.backends": "from ._translation import translate\n",
            "engine.backends._translation": "def translate(): pass\n",
        }
    )
    assert [v for v in privacy_violations(modules) if v.startswith(importer + " ")]
    # The package reaching into its own private submodule is its business.
    assert not [v for v in privacy_violations(modules) if v.startswith("engine.backends ")]


@pytest.mark.parametrize(
    ("importer", "source"),
    [
        ("engine._guard.walk", "from .._compiled import CompiledSchema\n"),
        ("engine.backends._x", "from .. import _engine\n"),
        ("engine.backends._x", "from .._guard import GuardReport\n"),
        ("engine._guard.walk", "from ..backends import SchemaSource\n"),
    ],
)
def test_stages_importing_the_pipeline_or_each_other_are_caught(importer: str, source: str) -> None:
    modules = made_up(
        {
            "engine": "",
            "engine._engine": "",
            "engine._compiled": "CompiledSchema = 1\n",
            "engine._guard": "GuardReport = 1\n",
            "engine._guard.walk": "",
            "engine.backends": "SchemaSource = 1\n",
            "engine.backends._x": "",
            importer: source,
        }
    )
    assert [v for v in pipeline_violations(modules) if v.startswith(importer + " ")]

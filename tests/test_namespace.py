"""The public namespace: ``__all__`` is exactly the public names, the version has one source,
and ``import engine`` loads the core only (the MCP layer, adapters and meta-schemas on first use)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from importlib import metadata
from pathlib import Path

import engine

ROOT = Path(__file__).parents[2]


def test_all_is_exactly_the_public_names() -> None:
    # As httpx checks its own: a name that is public but not in __all__ (or the reverse) is a leak.
    public = {name for name in dir(engine) if not name.startswith("_")}
    public -= {name for name in public if isinstance(getattr(engine, name), types.ModuleType)}  # subpackages
    assert public == set(engine.__all__) - {"__version__"}
    assert sorted(engine.__all__) == sorted(set(engine.__all__))
    for name in ("annotations", "Any", "default_engine"):
        assert not hasattr(engine, name)


def test_every_name_in_all_resolves() -> None:
    for name in engine.__all__:
        assert getattr(engine, name) is not None, name


def test_version_comes_from_the_package_metadata() -> None:
    assert engine.__version__ == metadata.version("engine")
    assert engine.__version__.count(".") >= 2


def _modules_after(code: str) -> set[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    script = f"import sys\n{code}\nloaded = sorted(sys.modules)\nimport json\nprint(json.dumps(loaded))"
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    return set(json.loads(proc.stdout.splitlines()[-1]))


def test_import_loads_the_core_only() -> None:
    loaded = _modules_after("import engine")
    assert "engine._engine" in loaded and "engine._compiled" in loaded
    eager = {m for m in loaded if m.startswith(("engine._mcp", "engine.adapters", "engine._cli", "mcp", "fastmcp"))}
    assert not eager
    # Each of these cost milliseconds of the import and is needed only later, if at all.
    deferred = {"jsonschema_specifications", "referencing", "tomllib", "hashlib", "logging", "dataclasses", "json"}
    assert not deferred & loaded
    after_use = _modules_after("import engine\nengine.compile_tools([])\nengine.compile({'type': 'string'})")
    assert "engine._mcp.tools" in after_use and "jsonschema_specifications" in after_use

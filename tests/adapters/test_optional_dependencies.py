"""An adapter or exporter imported without its optional dependency says which extra installs it."""

from __future__ import annotations

import subprocess
import sys

import pytest

# Run in a fresh interpreter where the named top-level modules cannot be imported (as on a core
# install), importing the engine module; prints the error's type, `name` and message.
PROBE = """
import sys
blocked = set(sys.argv[2].split(","))

class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in blocked:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Blocker())
try:
    __import__(sys.argv[1])
except ImportError as exc:
    print(type(exc).__name__, exc.name, exc, sep="|")
else:
    print("imported")
"""


def probe(module: str, blocked: str) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, module, blocked], capture_output=True, text=True, timeout=120, check=True
    )
    return out.stdout.strip().split("|")


@pytest.mark.parametrize(
    ("module", "blocked", "extra", "needs"),
    [
        ("engine.adapters.mcp_sdk", "anyio,mcp,mcp_types", "mcp", "the MCP Python SDK"),
        ("engine.adapters.mcp_sdk", "mcp,mcp_types", "mcp", "the MCP Python SDK"),
        ("engine.adapters.fastmcp", "fastmcp", "fastmcp", "FastMCP"),
        ("engine.adapters.fastmcp", "anyio,mcp,mcp_types,fastmcp", "fastmcp", "FastMCP"),
        ("engine.metrics.prometheus", "prometheus_client", "prometheus", "prometheus_client"),
        ("engine.metrics.opentelemetry", "opentelemetry", "opentelemetry", "the OpenTelemetry API"),
    ],
)
def test_a_missing_extra_is_named_with_its_install(module: str, blocked: str, extra: str, needs: str) -> None:
    kind, name, message = probe(module, blocked)
    assert kind == "ModuleNotFoundError" and name.split(".")[0] in blocked.split(",")
    assert message.startswith(f"{module} needs {needs}") and ", which is not installed (no module named" in message
    assert message.endswith(f"pip install 'engine[{extra}]'")


def test_the_core_imports_without_any_extra() -> None:
    blocked = "anyio,mcp,mcp_types,fastmcp,prometheus_client,opentelemetry,fastjsonschema,jsonschema"
    assert probe("engine", blocked) == ["imported"]

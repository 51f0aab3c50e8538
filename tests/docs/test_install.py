"""README.md's install line names the core dependencies pyproject.toml declares (it left out
jsonschema-specifications)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_names_every_core_dependency() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    names = {re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0] for requirement in declared}
    line = next(
        line for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines() if "pip install . " in line
    )
    listed = {name.strip() for name in line.split("# the core:", 1)[1].split(",")}
    assert listed == names

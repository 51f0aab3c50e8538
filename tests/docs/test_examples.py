"""Every ```python example in README.md and docs/ runs as written.

A page's examples run top to bottom in one fresh interpreter (one namespace, as a reader would
paste them), in an empty working directory. An example whose first line is a comment containing
``skip-test`` is left out; those are rare, and each says why.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
TIMEOUT = 120  # seconds per page: a page that starts a server must stop it too


def examples(page: Path) -> list[str]:
    blocks = []
    for block in FENCE.findall(page.read_text(encoding="utf-8")):
        first = block.lstrip().split("\n", 1)[0]
        if first.startswith("#") and "skip-test" in first:
            continue
        blocks.append(block)
    return blocks


def program(page: Path) -> str:
    parts = []
    for index, block in enumerate(examples(page), 1):
        parts.append(f"# --- {page.name}, example {index}\n{block}")
    return "\n".join(parts)


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_examples_run(page: Path, tmp_path: Path) -> None:
    code = program(page)
    if not code:
        pytest.skip("no Python examples on this page")
    script = tmp_path / f"{page.stem}_examples.py"
    script.write_text(code, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGINE_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=TIMEOUT
    )
    assert done.returncode == 0, f"{page.name}: the examples failed\n{done.stdout}\n{done.stderr}"


def test_every_page_is_linked_from_the_readme() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for page in PAGES[1:]:
        assert f"docs/{page.name}" in readme, f"{page.name} is not linked from README.md"

"""One job per module: no module of the package grows past 600 lines (around 500, ask whether it
does two jobs)."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "engine"
MAX_LINES = 600


def sizes() -> dict[str, int]:
    return {path.relative_to(PACKAGE).as_posix(): len(path.read_text().splitlines()) for path in PACKAGE.rglob("*.py")}


def test_no_module_over_the_limit() -> None:
    over = {name: lines for name, lines in sizes().items() if lines > MAX_LINES}
    assert not over, f"modules over {MAX_LINES} lines, split them by job: {over}"

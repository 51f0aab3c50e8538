"""What a user installs: the wheel and the sdist hold the package, its licence and nothing stray,
and the metadata carries the version ``engine.__version__`` reports."""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    # --no-isolation: the build backend comes from the test environment (the `test` extra), not the network.
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--sdist", "--wheel", "--outdir", str(out), str(ROOT)],
        check=True,
        capture_output=True,
    )
    return out


def test_wheel_holds_the_package_and_the_licence(dist: Path) -> None:
    (wheel,) = dist.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
    assert f"{info}/licenses/LICENSE" in names
    assert "engine/py.typed" in names and "engine/__init__.py" in names and "engine/_cli/__init__.py" in names
    assert {n.split("/")[0] for n in names} == {"engine", info}  # no tests, benchmarks or data
    metadata = zipfile.ZipFile(wheel).read(f"{info}/METADATA").decode()
    assert "License-Expression: MIT" in metadata and "License-File: LICENSE" in metadata
    version = next(line.split(": ", 1)[1] for line in metadata.splitlines() if line.startswith("Version: "))
    assert info == f"engine-{version}.dist-info"
    entry_points = zipfile.ZipFile(wheel).read(f"{info}/entry_points.txt").decode()
    assert "engine = engine._cli:main_exit" in entry_points


def test_sdist_holds_the_package_licence_and_readme_only(dist: Path) -> None:
    (sdist,) = dist.glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = [name.split("/", 1)[1] for name in archive.getnames() if "/" in name]
    top = {name.split("/")[0] for name in names}
    # .gitignore: hatchling ships it so that a build from the sdist leaves out what git does.
    assert top == {"engine", "LICENSE", "README.md", "pyproject.toml", "PKG-INFO", ".gitignore"}
    assert [n for n in names if n.endswith("README.md")] == ["README.md"]  # no stray README from a subfolder
    assert "engine/py.typed" in names

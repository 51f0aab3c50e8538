"""Reads the vendored JSON-Schema-Test-Suite (tests/json-schema-test-suite, commit in VERSION)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

SUITE = Path(__file__).parents[1] / "json-schema-test-suite"
REMOTES_BASE = "http://localhost:1234/"

# Suite folder -> engine dialect name.
DIALECTS = {
    "draft4": "draft4",
    "draft6": "draft6",
    "draft7": "draft7",
    "draft2019-09": "2019-09",
    "draft2020-12": "2020-12",
}


@dataclass(frozen=True)
class SuiteTest:
    folder: str
    file: str
    case: str
    description: str
    schema: Any
    data: Any
    valid: bool

    @property
    def dialect(self) -> str:
        return DIALECTS[self.folder]

    @property
    def id(self) -> str:
        return f"{self.folder}/{self.file}::{self.case}::{self.description}"


@cache
def remotes(folder: str) -> dict[str, Any]:
    """The documents under remotes/ that ``folder``'s tests may reach, keyed by the URL the suite
    serves them at: the shared ones at the top and the dialect's own folder."""
    root = SUITE / "remotes"
    paths = [p for p in root.rglob("*.json") if p.parent == root or p.relative_to(root).parts[0] not in _OTHER_FOLDERS]
    paths += list((root / folder).rglob("*.json"))
    return {
        REMOTES_BASE + path.relative_to(root).as_posix(): json.loads(path.read_text()) for path in sorted(set(paths))
    }


_OTHER_FOLDERS = {"draft3", "draft4", "draft6", "draft7", "draft2019-09", "draft2020-12", "v1"}


def iter_tests(folder: str, *, optional: str | None = None) -> Iterator[SuiteTest]:
    """Required tests of ``folder``, or with ``optional`` a file stem under optional/ (``format``
    for the whole optional/format/ folder)."""
    base = SUITE / "tests" / folder
    if optional is None:
        files = sorted(base.glob("*.json"))
    elif optional == "format":
        files = sorted((base / "optional" / "format").glob("*.json"))
    else:
        files = [base / "optional" / f"{optional}.json"]
    for path in files:
        for case in json.loads(path.read_text()):
            for test in case["tests"]:
                yield SuiteTest(
                    folder=folder,
                    file=path.relative_to(base).as_posix(),
                    case=case["description"],
                    description=test["description"],
                    schema=case["schema"],
                    data=test["data"],
                    valid=test["valid"],
                )

"""The data the benchmark runs on: ``bench_data/`` as shipped, plus valid instances generated
deterministically for the tools whose arguments were not recorded."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import msgspec

__all__ = ["BENCH_DATA", "Corpus", "ElicitationForm", "RecordedResult", "Tool", "load_corpus"]

BENCH_DATA = Path(__file__).resolve().parent.parent / "bench_data"

_encode = msgspec.json.encode


@dataclass(slots=True)
class Tool:
    source: str
    name: str
    definition: dict[str, Any]
    arguments: Any = None
    """Valid arguments: recorded in ``structured/tool-results.json`` or generated."""
    arguments_recorded: bool = False

    @property
    def input_schema(self) -> Any:
        return self.definition.get("inputSchema")

    @property
    def output_schema(self) -> Any:
        return self.definition.get("outputSchema")


@dataclass
class RecordedResult:
    id: str
    source: str
    tool: str
    output_schema: Any
    result: dict[str, Any]

    @cached_property
    def data(self) -> bytes:
        return _encode(self.result)


@dataclass(slots=True)
class ElicitationForm:
    id: str
    source: str
    requested_schema: dict[str, Any]
    content: dict[str, Any] | None = None
    """A valid ``content`` for an accepting ``ElicitResult``, generated from the form."""


@dataclass(slots=True)
class Corpus:
    tools: list[Tool]
    results: list[RecordedResult]
    forms: list[ElicitationForm]
    sources: list[str] = field(default_factory=list)

    def schemas(self) -> list[tuple[str, Any]]:
        """Every tool schema (input and output) with a label, in corpus order."""
        out: list[tuple[str, Any]] = []
        for tool in self.tools:
            for key in ("inputSchema", "outputSchema"):
                schema = tool.definition.get(key)
                if isinstance(schema, (dict, bool)):
                    out.append((f"{tool.source}/{tool.name}#{key}", schema))
        return out


def _load(path: Path) -> Any:
    with path.open("rb") as fh:
        return json.load(fh)


def _load_list(path: Path) -> list[Any]:
    """The entries of an optional file of the corpus: none where it is missing."""
    return _load(path) if path.is_file() else []


def _require(entry: Any, members: tuple[str, ...], path: Path, index: int) -> None:
    """Stop with the reason where an entry of an optional file lacks what the benchmark reads."""
    missing = [m for m in members if not isinstance(entry, dict) or m not in entry]
    if missing:
        raise SystemExit(f"{path}: entry {index} has no {', '.join(map(repr, missing))} (each entry needs {members})")


def load_corpus(root: Path = BENCH_DATA) -> Corpus:
    """The corpus in ``root``: ``tools/*.json`` (each a list of tool definitions, named by its
    source), and where they are present ``structured/tool-results.json`` (recorded results) and
    ``elicitation/requested-schemas.json`` (forms); a workload with no data has no rows."""
    from .instances import valid_instance

    paths = sorted((root / "tools").glob("*.json"))
    if not paths:
        raise SystemExit(f"{root}: no tools/*.json to benchmark (the data folder is laid out as bench_data/)")
    tools: list[Tool] = []
    sources: list[str] = []
    for path in paths:
        sources.append(path.stem)
        for definition in _load(path):
            if isinstance(definition, dict) and isinstance(definition.get("name"), str):
                tools.append(Tool(source=path.stem, name=definition["name"], definition=definition))
    by_key = {(t.source, t.name): t for t in tools}

    results: list[RecordedResult] = []
    recorded = root / "structured" / "tool-results.json"
    for index, entry in enumerate(_load_list(recorded)):
        _require(entry, ("source", "tool", "result"), recorded, index)
        tool = by_key.get((entry["source"], entry["tool"]))
        if tool is not None and tool.arguments is None and isinstance(entry.get("arguments"), dict):
            tool.arguments = entry["arguments"]
            tool.arguments_recorded = True
        results.append(
            RecordedResult(
                id=entry.get("id") or f"{entry['source']}/{entry['tool']}#{index}",
                source=entry["source"],
                tool=entry["tool"],
                output_schema=entry.get("outputSchema"),
                result=entry["result"],
            )
        )
    for tool in tools:
        if tool.arguments is None and isinstance(tool.input_schema, (dict, bool)):
            tool.arguments = valid_instance(tool.input_schema)

    forms: list[ElicitationForm] = []
    requested = root / "elicitation" / "requested-schemas.json"
    for index, entry in enumerate(_load_list(requested)):
        _require(entry, ("source", "requestedSchema"), requested, index)
        schema = entry["requestedSchema"]
        if isinstance(schema, dict):
            name = entry.get("id") or f"{entry['source']}#{index}"
            content = valid_instance(schema)
            forms.append(ElicitationForm(id=name, source=entry["source"], requested_schema=schema, content=content))
    return Corpus(tools=tools, results=results, forms=forms, sources=sources)

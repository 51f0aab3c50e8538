"""Loads the pathological catalog (format in README.md next to this file). Standard library only,
so the tests and the benchmarks read the cases the same way."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent


@dataclass(frozen=True)
class Payload:
    name: str
    value: Any  # the instance as a Python object (None when only bytes are given)
    data: bytes | None  # the instance as bytes, when the case is about decoding
    expect: str  # "valid", "invalid", or a DecodeError reason ("too-deep", ...)
    truncated: bool | None = None  # for "invalid": whether the explanation must say it was cut
    at_rate: str | None = None  # what a backend that weighs instances at its rate ends in, if not `expect`


@dataclass(frozen=True)
class Case:
    name: str
    threat: str
    description: str
    schema: Any
    registry: dict[str, Any]
    config: dict[str, Any]
    expect: str  # "compiles" or the refusal reason ("remote-ref", "limit-exceeded", ...)
    limit: str | None  # for "limit-exceeded": which limit
    bound_seconds: float
    payloads: list[Payload] = field(default_factory=list)


def generate(spec: Any) -> Any:
    """Expand a ``{"generate": ...}`` value (too large or too deep to store as JSON)."""
    if not isinstance(spec, dict) or "generate" not in spec:
        return spec
    kind = spec["generate"]
    if kind == "nested-array":
        value: Any = generate(spec.get("leaf", None))
        for _ in range(spec["depth"]):
            value = [value]
        return value
    if kind == "nested-object":
        value = generate(spec.get("leaf", None))
        for _ in range(spec["depth"]):
            value = {spec.get("key", "a"): value}
        return value
    if kind == "string":
        return spec.get("prefix", "") + spec["char"] * spec["length"] + spec.get("suffix", "")
    if kind == "object":  # a template object with one member generated
        return {**spec["template"], spec["key"]: generate(spec["value"])}
    if kind == "list":
        return [generate(spec["item"]) for _ in range(spec["length"])]
    if kind == "range":
        return list(range(spec["length"]))
    if kind == "halves":  # [0.5, 1.5, ...]
        return [i + 0.5 for i in range(spec["length"])]
    if kind == "run-patterns":  # {prefix0: {"type": "string", "pattern": <runs distinct runs>}, ...}
        runs = range(spec["runs"])
        return {
            f"{spec['prefix']}{i}": {"type": "string", "pattern": "".join(chr(0x100 + i + j) + "+" for j in runs)}
            for i in range(spec["length"])
        }
    if kind == "tower":  # the template with an allOf of `width` allOf s of `height` leaves (one value meets all)
        leaf = {"minimum": lambda n: -n, "pattern": lambda n: f"^a*(?:x{n})?$"}[spec["keyword"]]
        height = spec["height"]
        return {
            **spec.get("template", {}),
            "allOf": [
                {"allOf": [{spec["keyword"]: leaf(i * height + j)} for j in range(height)]}
                for i in range(spec["width"])
            ],
        }
    if kind == "keyed":  # {prefix0: item, prefix1: item, ...}
        return {f"{spec['prefix']}{i}": generate(spec["item"]) for i in range(spec["length"])}
    if kind == "shared":  # one Python object (not copies) at every {"generate": "use"} in the template
        return _place(spec["template"], generate(spec["value"]))
    raise ValueError(f"unknown generator {kind!r}")


def _place(node: Any, shared: Any) -> Any:
    if node == {"generate": "use"}:
        return shared
    if isinstance(node, dict):
        return {key: _place(value, shared) for key, value in node.items()}
    if isinstance(node, list):
        return [_place(item, shared) for item in node]
    return node


def _payload(raw: dict[str, Any]) -> Payload:
    data: bytes | None = None
    if "text" in raw:
        data = generate(raw["text"]).encode()
    elif "hex" in raw:
        data = bytes.fromhex(raw["hex"])
    elif "json_of" in raw:
        data = json.dumps(generate(raw["json_of"])).encode()
    value = generate(raw["instance"]) if "instance" in raw else None
    return Payload(raw["name"], value, data, raw["expect"], raw.get("truncated"), raw.get("at_rate"))


def load(path: Path) -> Case:
    raw = json.loads(path.read_text())
    return Case(
        name=path.stem,
        threat=raw["threat"],
        description=raw["description"],
        schema=generate(raw["schema"]),
        registry=raw.get("registry", {}),
        config=raw.get("config", {}),
        expect=raw["expect"],
        limit=raw.get("limit"),
        bound_seconds=raw.get("bound_seconds", 2.0),
        payloads=[_payload(p) for p in raw.get("payloads", [])],
    )


def cases() -> list[Case]:
    return [load(path) for path in sorted(HERE.glob("*.json"))]

"""``engine config``: the configuration in force here, and where each value came from."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from .._config import ResolvedConfig, resolve
from .check import print_json
from .input import EXIT_OK

__all__ = ["resolve_from_args", "run_config"]

OPTION_FIELDS = ("backend", "default_dialect", "formats")


def resolve_from_args(args: argparse.Namespace) -> ResolvedConfig:
    """The configuration a command runs with: ``--config`` (or the nearest ``pyproject.toml``
    with ``[tool.engine]``), then ``ENGINE_*`` variables, then the command's own options."""
    overrides = {k: getattr(args, k) for k in OPTION_FIELDS if getattr(args, k, None)}
    resolved = resolve(getattr(args, "config", None), **overrides)
    # Options given on the command line are keywords to the loader; say which option set them.
    sources = {
        k: (f"--{'dialect' if k == 'default_dialect' else k}" if v == "keyword" else v)
        for k, v in resolved.sources.items()
    }
    return ResolvedConfig(
        config=resolved.config, sources=sources, file=resolved.file, searched_from=resolved.searched_from
    )


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return repr(value)


def run_config(args: argparse.Namespace, resolved: ResolvedConfig, out: TextIO, err: TextIO) -> int:
    import msgspec

    values = msgspec.to_builtins(resolved.config)
    if args.json:
        settings = {}
        for name, value in values.items():
            if isinstance(value, dict):
                for field, inner in value.items():
                    settings[f"{name}.{field}"] = {"value": inner, "source": resolved.sources[f"{name}.{field}"]}
            else:
                settings[name] = {"value": value, "source": resolved.sources[name]}
        print_json(out, {"file": resolved.file, "searched_from": resolved.searched_from, "settings": settings})
        return EXIT_OK
    if resolved.file is not None:
        out.write(f"# configuration file: {resolved.file}\n")
    elif resolved.searched_from is not None:
        out.write(f"# no pyproject.toml with [tool.engine] in {resolved.searched_from} or above\n")
    out.write("# precedence: command-line options > ENGINE_* variables > the file > defaults\n")
    rows: list[tuple[str, str]] = []
    for name, value in values.items():
        if isinstance(value, dict):
            rows.append((f"\n[{name}]", ""))
            rows.extend(
                (f"{field} = {_toml(inner)}", resolved.sources[f"{name}.{field}"]) for field, inner in value.items()
            )
        else:
            rows.append((f"{name} = {_toml(value)}", resolved.sources[name]))
    width = max(len(text) for text, _ in rows)
    for text, source in rows:
        out.write(f"{text:<{width}}  # {source}\n" if source else f"{text}\n")
    return EXIT_OK

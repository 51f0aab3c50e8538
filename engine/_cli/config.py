"""``engine config``: the configuration in force here, and where each value came from."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

from .._config import PYPROJECT, ResolvedConfig, resolve
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
        return _toml_string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return repr(value)  # an int, or a float (`1.0`, `1e-05`, `inf`: TOML spells them so)


def _toml_string(text: str) -> str:
    """``text`` as a TOML basic string."""
    return '"' + _escaped(text, quoted='"\\') + '"'


def _escaped(text: str, *, quoted: str = "") -> str:
    """``text`` with the characters in ``quoted`` escaped by a backslash, and every one a TOML
    string or comment may not hold, or a terminal would act on rather than show (controls, line
    breaks, direction overrides), as its ``\\u`` escape, which TOML strings read back."""
    return "".join(
        "\\" + c
        if c in quoted
        else c
        if c.isprintable()
        else (f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}")
        for c in text
    )


def _table_prefix(resolved: ResolvedConfig) -> str | None:
    """The TOML table the settings go in where the configuration lives: ``tool.engine`` in a
    ``pyproject.toml`` (the file found, or where one would be looked for), ``None`` (the top
    level) in a file of its own given with ``--config``."""
    if resolved.file is not None and Path(resolved.file).name != PYPROJECT:
        return None
    return "tool.engine"


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
        out.write(f"# configuration file: {_escaped(resolved.file)}\n")
    elif resolved.searched_from is not None:
        out.write(f"# no pyproject.toml with [tool.engine] in {_escaped(resolved.searched_from)} or above\n")
    out.write("# precedence: command-line options > ENGINE_* variables > the file > defaults\n")
    prefix = _table_prefix(resolved)
    if prefix is None:
        out.write("# TOML for a configuration file of its own (read with --config FILE), as below\n")
    else:
        out.write(f"# TOML for a pyproject.toml, whose [{prefix}] tables it reads, as below\n")
    rows: list[tuple[str, str]] = [] if prefix is None else [(f"[{prefix}]", "")]
    for name, value in values.items():
        if isinstance(value, dict):
            rows.append((f"\n[{name if prefix is None else f'{prefix}.{name}'}]", ""))
            rows.extend(
                (f"{field} = {_toml(inner)}", resolved.sources[f"{name}.{field}"]) for field, inner in value.items()
            )
        else:
            rows.append((f"{name} = {_toml(value)}", resolved.sources[name]))
    width = max(len(text) for text, _ in rows)
    for text, source in rows:
        out.write(f"{text:<{width}}  # {_escaped(source)}\n" if source else f"{text}\n")
    return EXIT_OK

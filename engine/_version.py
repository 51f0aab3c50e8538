"""The package's version, read from the installed distribution's metadata (its one source:
``version`` in ``pyproject.toml``)."""

from __future__ import annotations

from importlib import metadata

__all__ = ["version"]

DISTRIBUTION = "engine"


def version() -> str:
    """The installed ``engine`` distribution's version; ``0+unknown`` when the package runs from a
    source tree that was never installed (there is no metadata to read)."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "0+unknown"

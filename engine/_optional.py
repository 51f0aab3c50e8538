"""Optional dependencies: a module that needs one says which extra installs it."""

from __future__ import annotations

__all__ = ["missing_dependency"]


def missing_dependency(exc: ModuleNotFoundError, *, module: str, needs: str, extra: str) -> ModuleNotFoundError:
    """The error to raise when importing ``module`` failed on ``exc``: where the missing module is
    not the engine's own, one saying what ``module`` needs and the ``pip install`` that brings it
    (``name`` kept, so ``except ImportError`` and ``exc.name`` work as before); ``exc`` otherwise."""
    missing = exc.name or ""
    if missing == "engine" or missing.startswith("engine."):
        return exc  # a module of the engine itself: a broken install, not an extra to add
    return ModuleNotFoundError(
        f"{module} needs {needs}, which is not installed (no module named {missing!r}): pip install 'engine[{extra}]'",
        name=missing,
    )

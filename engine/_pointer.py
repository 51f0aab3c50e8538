"""JSON Pointers (RFC 6901): every location the engine reports, in schemas and in instances."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["escape", "pointer", "tokens", "unescape"]


def escape(token: object) -> str:
    """One reference token, escaped (``~`` -> ``~0``, ``/`` -> ``~1``)."""
    return str(token).replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    """The name an escaped reference token stands for."""
    return token.replace("~1", "/").replace("~0", "~")


def pointer(parts: Iterable[object]) -> str:
    """The pointer made of ``parts`` (names or array indexes): ``["a/b", 0]`` -> ``/a~1b/0``."""
    if type(parts) is not list and type(parts) is not tuple:
        parts = [*parts]
    if not parts:
        return ""
    # Most tokens are names holding neither `~` nor `/`: joined at once, none escaped (every issue
    # an explanation reports has two pointers; a pointer of names costs half the token-by-token
    # join, one with an index a little more).
    try:
        joined = "/".join(parts)  # type: ignore[arg-type]
    except TypeError:
        joined = "/".join(map(str, parts))
    if "~" in joined or joined.count("/") >= len(parts):
        return "".join(["/" + escape(part) for part in parts])
    return "/" + joined


def tokens(location: str) -> list[str]:
    """The unescaped reference tokens of a pointer (``""`` -> ``[]``)."""
    return [unescape(token) for token in location.split("/")[1:]]

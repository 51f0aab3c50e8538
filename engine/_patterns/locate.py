"""Where a schema's patterns are: every ``pattern`` value and ``patternProperties`` key, with its
location, in one pass over the document (keywords whose values are data are not entered)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .._keywords import KEYWORDS
from .._pointer import escape

__all__ = ["schema_patterns"]

# Keywords whose values are data in any dialect (``pattern`` is data too, and read first).
_DATA = frozenset().union(*(table.data for table in KEYWORDS.values()))
# Keywords whose values map names (any names, "pattern" or "enum" included) to subschemas.
_NAMED = frozenset({"properties", "definitions", "$defs", "dependentSchemas", "dependencies"})


def schema_patterns(document: Any) -> Iterator[tuple[str, str]]:
    """``(location, pattern)`` for each pattern of ``document``. Unknown keywords are entered (a
    ``$ref`` may point into them); iterative, so no depth is too deep."""
    stack: list[tuple[Any, str]] = [(document, "")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, list):
            stack.extend((item, f"{path}/{i}") for i, item in enumerate(node))
            continue
        if not isinstance(node, Mapping):
            continue
        for key, value in node.items():
            where = f"{path}/{escape(key)}"
            if key == "pattern" and isinstance(value, str):
                yield where, value
            elif key == "patternProperties" and isinstance(value, Mapping):
                for pattern, sub in value.items():
                    yield where, pattern
                    stack.append((sub, f"{where}/{escape(pattern)}"))
            elif key in _NAMED and isinstance(value, Mapping):
                stack.extend((sub, f"{where}/{escape(name)}") for name, sub in value.items())
            elif key not in _DATA:
                stack.append((value, where))

"""JSON Schema ``pattern`` s (ECMA-262 regular expressions), judged from their text.

- :mod:`.translate`: the Python ``re`` pattern that matches exactly what an ECMA-262 pattern
  matches, at bounded cost, or :class:`PatternRefused` (for the backends that run Python ``re``);
  :mod:`.parse` reads a pattern, :mod:`.safety` refuses the shapes that backtrack badly,
  :mod:`.charsets` holds the ECMA-262 classes;
- :mod:`.analysis`: which constructs need a backtracking engine (refused in linear-time mode),
  how deeply quantifiers nest, and where a backend's classes differ from ECMA-262's;
- :mod:`.locate`: where a schema's patterns are.
"""

from __future__ import annotations

from .analysis import backtracking_construct, star_height, word_boundary
from .locate import schema_patterns
from .parse import PatternRefused
from .translate import compile_pattern, translate

__all__ = [
    "PatternRefused",
    "backtracking_construct",
    "compile_pattern",
    "schema_patterns",
    "star_height",
    "translate",
    "word_boundary",
]

"""JSON Schema ``pattern`` s (ECMA-262 regular expressions), judged from their text.

- :mod:`.translate`: the Python ``re`` pattern that matches exactly what an ECMA-262 pattern
  matches, at bounded cost, or :class:`PatternRefused` (for the backends that run Python ``re``);
- :mod:`.analysis`: which constructs need a backtracking engine (refused in linear-time mode),
  and how deeply quantifiers nest.
"""

from __future__ import annotations

from .analysis import backtracking_construct, star_height
from .parse import PatternRefused
from .translate import compile_pattern, translate

__all__ = ["PatternRefused", "backtracking_construct", "compile_pattern", "star_height", "translate"]

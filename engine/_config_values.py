"""What single configuration values may be, beyond their type: the range of each number, and a
value shown short in the message that refuses it (:mod:`engine._config` applies them)."""

from __future__ import annotations

import reprlib
from typing import Any

__all__ = ["MAXIMUM", "MINIMUM", "short_repr"]

# The smallest value each numeric field accepts, by field name; 0 for the others, where zero
# means "none": no cache (`cache_size`), no redirect, no `allOf` branch, property, `enum` or
# `pattern` (a schema with one is refused), no `unevaluated*`, only scalar instances
# (`max_instance_depth`), no explanation (`max_explain_work`: one issue says it was not made).
# A bound under which every schema, instance or fetched document is refused, or an issue list
# with no room for an issue, is no setting: `{}`, the smallest object schema, is 2 bytes and
# nests 1 level (0 admits only `true` and `false`), is one subschema, applies one to the root.
MINIMUM: dict[str, float] = {
    "backtrack_limit": 1,
    "max_bytes": 2,  # fetch: the smallest schema document
    "max_schema_bytes": 2,
    **dict.fromkeys(("max_document_depth", "max_schema_depth", "max_subschemas", "max_ref_expansion"), 1),
    **dict.fromkeys(("max_eval_depth", "max_instance_bytes", "max_issues"), 1),
}
# The largest, for the values that reach native code or the OS: jsonschema-rs takes the backtrack
# limit as a machine word (a u32 fits every platform's), and a timeout, once added to a clock or
# handed to a socket or a lock, must stay within their range (a day is far past any use).
MAXIMUM: dict[str, float] = {
    "backtrack_limit": 2**32 - 1,
    "connect_timeout": 86_400.0,
    "total_timeout": 86_400.0,
    "max_explain_seconds": 86_400.0,
}


class _ShortRepr(reprlib.Repr):
    def repr_int(self, x: int, level: int) -> str:
        # `repr` of an int past 4300 digits raises, and of a long one is a long text.
        if x.bit_length() > 128:
            return f"<an integer of {x.bit_length()} bits>"
        return super().repr_int(x, level)


_SHORT_REPR = _ShortRepr()
_SHORT_REPR.maxstring = _SHORT_REPR.maxother = _SHORT_REPR.maxlong = 50
_SHORT_REPR.maxlist = _SHORT_REPR.maxtuple = _SHORT_REPR.maxdict = _SHORT_REPR.maxset = 4
_SHORT_REPR.maxlevel = 1


def short_repr(value: Any) -> str:
    """``repr(value)`` for a message in a few hundred characters at most (four entries of a container,
    nested ones as ``[...]``): a value from outside can be any size, or share containers and print huge."""
    return _SHORT_REPR.repr(value)

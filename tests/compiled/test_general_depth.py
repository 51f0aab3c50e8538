"""The general path's depth bound on long documents (longer than any that cannot nest past the
bound): shown as they parse up to `SHOWN_LEVELS` levels; once a schema's document nests deeper, by
the brackets in the document's bytes while its documents hold fewer than the bound, by the walk of
the parsed values once one holds more. The bound is two levels past what the parse shows, so
documents within it are read each way. Every document nesting past the bound is refused
``too-deep``, whatever came before it, as bytes and as text; every other is answered as the
backend answers it."""

from __future__ import annotations

import json
from functools import partial
from typing import Any

import pytest

import engine
from engine import DecodeError
from engine._decode import SHOWN_LEVELS
from tests._json_depth import json_depth

DEPTH = SHOWN_LEVELS + 2
LIMITS = engine.Limits(max_instance_depth=DEPTH)
# Every value admitted below the root, so that only the depth bound refuses.
SCHEMA = {"type": "object", "properties": {"rows": {"type": "array"}}}
PAD = "x" * 40  # each document longer than 2 * DEPTH + 1 bytes: the bound is shown, not implied


def nested(depth: int) -> Any:
    """A value ``depth`` levels deep (a scalar: 0)."""
    value: Any = PAD
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


# name -> the arguments object; the root is a level.
DOCUMENTS: dict[str, Any] = {
    "few brackets": {"rows": [PAD, PAD], "note": PAD},
    "at the bound": {"rows": [nested(DEPTH - 2)], "note": PAD},
    "one past it": {"rows": [nested(DEPTH - 1)], "note": PAD},
    "far past it": {"rows": [nested(4 * DEPTH)], "note": PAD},
    # More brackets than the bound, nesting three levels: within it.
    "many siblings": {"rows": [[PAD] for _ in range(3 * DEPTH)], "note": PAD},
    # Brackets inside strings are counted too (a bound from above): within it.
    "brackets in text": {"rows": ["[{" * (4 * DEPTH)], "note": PAD},
}


def expected(document: Any) -> str:
    return "too-deep" if json_depth(document) > DEPTH else "valid"


def outcome(read: Any, data: bytes | str) -> str:
    try:
        read(data)
    except DecodeError as exc:
        return str(exc.reason)
    return "valid"


ORDERS = {
    "shallow first": list(DOCUMENTS),
    "deep first": list(reversed(DOCUMENTS)),
    "siblings first": ["many siblings", *[name for name in DOCUMENTS if name != "many siblings"]],
}


@pytest.mark.parametrize("order", list(ORDERS))
@pytest.mark.parametrize("as_text", [False, True])
def test_long_documents_are_held_to_the_depth_bound_in_any_order(order: str, as_text: bool) -> None:
    for backend in ("jsonschema-rs", "auto"):
        eng = engine.Engine(backend=backend, cache_size=0, limits=LIMITS)
        compiled = eng.compile(SCHEMA)
        tools = engine.compile_tools([{"name": "t", "inputSchema": SCHEMA}], engine=eng)
        for _ in range(3):  # past the warm-up: the settled general reader, its bound learned
            for name in ORDERS[order]:
                document = DOCUMENTS[name]
                text = json.dumps(document, separators=(",", ":"))
                assert len(text) > 2 * DEPTH + 1, name
                data: bytes | str = text if as_text else text.encode()
                want = expected(document)
                assert outcome(compiled.decode, data) == want, (backend, name)
                assert outcome(partial(tools.validate_arguments, "t"), data) == want, (backend, name)


def test_the_documents_cover_both_bounds() -> None:
    """Some documents are shown within the bound by their brackets, some only by their values."""
    counts = {name: text.count("[") + text.count("{") for name, text in _texts().items()}
    assert counts["few brackets"] <= DEPTH and counts["at the bound"] <= DEPTH
    assert counts["many siblings"] > DEPTH and counts["brackets in text"] > DEPTH
    assert expected(DOCUMENTS["many siblings"]) == expected(DOCUMENTS["brackets in text"]) == "valid"
    assert expected(DOCUMENTS["one past it"]) == "too-deep"


def _texts() -> dict[str, str]:
    return {name: json.dumps(document, separators=(",", ":")) for name, document in DOCUMENTS.items()}

"""Property names beyond ASCII on the typed paths: a member is matched by its whole name.

msgspec (0.23) matches a TypedDict's key by the UTF-8 its ``str`` caches, which a non-ASCII ``str``
holds only once something has asked for it; until then the key read as "" there, so ``{"": 5}``
satisfied a required ``日本`` and a ``日本`` member went unchecked. The names here are built afresh
(joined at run time, never encoded), as a schema parsed from JSON gives them."""

from __future__ import annotations

from typing import Any

import pytest

import engine

NAMES = ["日本", "名前", "😀", "ключ", "é", "ÿx", "a日"]


def _fresh(name: str) -> str:
    return "".join(list(name))  # a new str: no UTF-8 cached yet


def _schema(name: str) -> dict[str, Any]:
    fresh = _fresh(name)
    return {
        "type": "object",
        "properties": {fresh: {"type": "integer"}, "other": {"type": "string"}},
        "required": [_fresh(name)],
    }


@pytest.mark.parametrize("backend", ["auto", "msgspec"])
@pytest.mark.parametrize("name", NAMES)
def test_a_name_is_matched_whole_on_the_typed_paths(backend: str, name: str) -> None:
    compiled = engine.Engine(backend=backend, cache_size=0).compile(_schema(name))
    for document in (b'{"": 5}', b'{"": 5, "other": "x"}', '{"NAME": "five"}'.replace("NAME", name).encode()):
        with pytest.raises(engine.ValidationFailed):
            compiled.decode(document)
        with pytest.raises(engine.ValidationFailed):
            compiled.decode(document.decode())
    good = '{"NAME": 5, "other": "x"}'.replace("NAME", name).encode()
    assert compiled.decode(good) == {name: 5, "other": "x"}


@pytest.mark.parametrize("name", NAMES)
def test_tool_arguments_and_results_match_names_whole(name: str) -> None:
    tools = engine.compile_tools(
        [{"name": "t", "inputSchema": _schema(name), "outputSchema": _schema(name)}],
        engine=engine.Engine(cache_size=0),
    )
    with pytest.raises(engine.ValidationFailed):
        tools.validate_arguments("t", b'{"": 5}')
    with pytest.raises(engine.ValidationFailed):
        tools.validate_arguments("t", '{"NAME": {"evil": [1]}}'.replace("NAME", name).encode())
    with pytest.raises(engine.ValidationFailed):
        tools.validate_result("t", b'{"content": [], "structuredContent": {"": 5}}')
    member = '{"NAME": 5}'.replace("NAME", name)
    assert tools.validate_arguments("t", member.encode()) == {name: 5}
    result = tools.validate_result("t", ('{"content": [], "structuredContent": ' + member + "}").encode())
    assert result.structured_content == {name: 5}

"""Elicitation forms: every form in the corpus, every enum variant, the restricted shape."""

from __future__ import annotations

import array
import json
import time
from pathlib import Path
from typing import Any

import jsonschema_rs
import msgspec
import pytest

import engine
from tests._json_depth import json_depth

DATA = Path(__file__).parents[2] / "bench_data"
FORMS = json.loads((DATA / "elicitation" / "requested-schemas.json").read_text())


@pytest.fixture(scope="module")
def eng() -> engine.Engine:
    return engine.Engine()


def sample_answer(schema: dict[str, Any]) -> dict[str, Any]:
    """A valid answer for a form: defaults, first options, well-formed formats, bounds met."""
    content: dict[str, Any] = {}
    for name, prop in schema["properties"].items():
        kind = prop["type"]
        if "default" in prop:
            content[name] = prop["default"]
        elif "enum" in prop:
            content[name] = prop["enum"][0]
        elif "oneOf" in prop:
            content[name] = prop["oneOf"][0]["const"]
        elif kind == "array":
            items = prop["items"]
            options = items.get("enum") or [b["const"] for b in items["anyOf"]]
            content[name] = options[: max(prop.get("minItems", 1), 1)]
        elif kind == "boolean":
            content[name] = True
        elif kind in ("number", "integer"):
            content[name] = prop.get("minimum", 0) if kind == "integer" else prop.get("minimum", 0) + 0.5
        else:
            content[name] = {
                "email": "a@example.com",
                "uri": "https://example.com/x",
                "date": "2024-02-29",
                "date-time": "2024-02-29T12:00:00Z",
            }.get(prop.get("format"), "x" * max(prop.get("minLength", 1), 1))
    return content


@pytest.mark.parametrize("entry", FORMS, ids=lambda e: e.get("id", e["source"]))
def test_corpus_form(eng: engine.Engine, entry: dict[str, Any]) -> None:
    schema = entry["requestedSchema"]
    form = engine.compile_elicitation(schema, engine=eng)
    assert isinstance(form, engine.ElicitationForm)
    assert form.fields == tuple(schema["properties"])
    answer = sample_answer(schema)
    accepted = form.decode_result(json.dumps({"action": "accept", "content": answer}).encode())
    assert accepted.action == "accept" and accepted.content == answer
    assert form.decode_result({"action": "accept", "content": answer}) == accepted
    for action in ("decline", "cancel"):
        result = form.decode_result(json.dumps({"action": action}))
        assert result.action == action and result.content is None
        with pytest.raises(engine.ValidationFailed):
            form.decode_result(json.dumps({"action": action, "content": answer}))
    with pytest.raises(engine.ValidationFailed):
        form.decode_result(b'{"action": "maybe"}')
    # Each field given a value of the wrong kind is refused, naming it.
    for name in schema["properties"]:
        wrong = {**answer, name: {"not": "primitive"}}
        with pytest.raises(engine.ValidationFailed) as failure:
            form.decode_result(json.dumps({"action": "accept", "content": wrong}).encode())
        assert any(issue.instance_path.startswith(f"/content/{name}") for issue in failure.value.issues)
    # A missing required field is refused.
    for name in schema.get("required", []):
        partial = {k: v for k, v in answer.items() if k != name}
        with pytest.raises(engine.ValidationFailed):
            form.decode_result(json.dumps({"action": "accept", "content": partial}))


ENUM_FORM = {
    "type": "object",
    "properties": {
        "untitled": {"type": "string", "enum": ["red", "green"]},
        "titled": {"type": "string", "oneOf": [{"const": "r", "title": "Red"}, {"const": "g", "title": "Green"}]},
        "legacy": {"type": "string", "enum": ["s", "m"], "enumNames": ["Small", "Medium"]},
        "multi": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}, "minItems": 1, "maxItems": 2},
        "multi_titled": {
            "type": "array",
            "items": {"anyOf": [{"const": "x", "title": "X"}, {"const": "y", "title": "Y"}]},
        },
        "when": {"type": "string", "format": "date"},
        "email": {"type": "string", "format": "email", "minLength": 3},
        "count": {"type": "integer", "minimum": 1, "maximum": 10},
        "ratio": {"type": "number", "minimum": 0, "maximum": 1},
        "ok": {"type": "boolean", "default": False},
    },
    "required": ["untitled", "titled"],
}

VALID = {
    "untitled": "red",
    "titled": "g",
    "legacy": "m",
    "multi": ["a", "c"],
    "multi_titled": ["y"],
    "when": "2024-01-31",
    "email": "me@example.com",
    "count": 10,
    "ratio": 0.25,
    "ok": True,
}


@pytest.mark.parametrize(
    ("field", "bad"),
    [
        ("untitled", "blue"),
        ("titled", "Red"),
        ("legacy", "Small"),
        ("multi", []),
        ("multi", ["a", "b", "c"]),
        ("multi", ["d"]),
        ("multi_titled", ["X"]),
        ("when", "2024-02-30"),
        ("when", "yesterday"),
        ("email", "not-an-email"),
        ("count", 0),
        ("count", 11),
        ("count", 1.5),
        ("ratio", 1.01),
        ("ratio", -0.1),
        ("ok", "true"),
        ("ratio", True),
        ("count", None),
    ],
)
def test_enum_variants_and_constraints(eng: engine.Engine, field: str, bad: Any) -> None:
    form = engine.compile_elicitation(ENUM_FORM, engine=eng)
    assert form.decode_result(json.dumps({"action": "accept", "content": VALID})).content == VALID
    content = {**VALID, field: bad}
    for data in (
        json.dumps({"action": "accept", "content": content}).encode(),
        {"action": "accept", "content": content},
    ):
        with pytest.raises(engine.ValidationFailed) as failure:
            form.decode_result(data)
        assert failure.value.issues[0].instance_path.startswith(f"/content/{field}")


def test_valid_values_msgspec_alone_would_refuse(eng: engine.Engine) -> None:
    form = engine.compile_elicitation(ENUM_FORM, engine=eng)
    # JSON Schema's integer admits 1.0 and 10.0: the typed decode refuses, the general path accepts.
    result = form.decode_result(json.dumps({"action": "accept", "content": {**VALID, "count": 10.0}}))
    assert result.content is not None and result.content["count"] == 10
    # Fields the form did not ask for are dropped; missing optional fields stay missing.
    result = form.decode_result(b'{"action": "accept", "content": {"untitled": "red", "titled": "r", "extra": [1]}}')
    assert result.content == {"untitled": "red", "titled": "r"}
    with pytest.raises(engine.ValidationFailed):
        form.decode_result(b'{"action": "accept"}')  # accept without content misses the required fields
    with pytest.raises(engine.DecodeError):
        form.decode_result(b'{"action": "accept", ')


def _one_field(field: Any, name: str = "a") -> dict[str, Any]:
    return {"type": "object", "properties": {name: field}}


_OPTIONS = [{"const": "x", "title": "X"}, {"const": "y", "title": 1}]


@pytest.mark.parametrize(
    ("schema", "offending", "location"),
    [
        (_one_field({"type": "object"}), "a", "/properties/a/type"),
        (_one_field({"type": "string", "pattern": "^x"}), "a", "/properties/a/pattern"),
        (_one_field({"type": "string", "format": "ipv4"}), "a", "/properties/a/format"),
        (_one_field({"type": "array", "items": {"type": "integer"}}), "a", "/properties/a/items"),
        (_one_field({"type": "array"}), "a", "/properties/a/items"),
        (_one_field({"type": "array", "items": {"type": "string", "enum": [1]}}), "a", "/properties/a/items/enum"),
        (_one_field({"type": "array", "items": {"anyOf": _OPTIONS}}), "a", "/properties/a/items/anyOf/1"),
        (_one_field({"type": "string", "oneOf": [{"const": "x"}]}), "a", "/properties/a/oneOf/0"),
        (_one_field({"type": "string", "oneOf": _OPTIONS}), "a", "/properties/a/oneOf/1"),
        (_one_field({"type": "string", "oneOf": []}), "a", "/properties/a/oneOf"),
        (_one_field({"type": "string", "enum": ["x", 1]}), "a", "/properties/a/enum"),
        (_one_field({"type": "string", "enum": ["x"], "enumNames": []}), "a", "/properties/a/enumNames"),
        (_one_field({"type": "string", "enum": ["x"], "default": "y"}), "a", "/properties/a/default"),
        (_one_field({"type": "string", "minLength": -1}), "a", "/properties/a/minLength"),
        (_one_field({"type": "string", "maxLength": True}), "a", "/properties/a/maxLength"),
        (_one_field({"type": "string", "title": 3}), "a", "/properties/a/title"),
        (_one_field({"type": "integer", "maximum": "9"}), "a", "/properties/a/maximum"),
        (_one_field({"type": "number", "default": "1"}), "a", "/properties/a/default"),
        (_one_field({"type": "number", "default": True}), "a", "/properties/a/default"),
        (_one_field({"type": "boolean", "default": 0}), "a", "/properties/a/default"),
        # A default the form would refuse sent back unchanged: no default.
        (_one_field({"type": "integer", "default": 1.5}), "a", "/properties/a/default"),
        (_one_field({"type": "integer", "minimum": 5, "default": 1}), "a", "/properties/a/default"),
        (_one_field({"type": "number", "maximum": 5, "default": 5.5}), "a", "/properties/a/default"),
        (_one_field({"type": "string", "maxLength": 1, "default": "ab"}), "a", "/properties/a/default"),
        (_one_field({"type": "string", "minLength": 2, "default": "\U0001f600"}), "a", "/properties/a/default"),
        (_one_field({"type": "string", "format": "email", "default": "nope"}), "a", "/properties/a/default"),
        (_one_field({"type": "string", "format": "date", "default": "2024-13-01"}), "a", "/properties/a/default"),
        (_one_field({"type": "string", "oneOf": [_OPTIONS[0], _OPTIONS[0]], "default": _OPTIONS[0]["const"]}), "a",
         "/properties/a/default"),
        (_one_field({"type": "array", "items": {"type": "string", "enum": ["x"]}, "maxItems": 0, "default": ["x"]}),
         "a", "/properties/a/default"),
        (_one_field({"type": "array", "items": {"type": "string", "enum": ["x"]}, "default": ["y"]}), "a",
         "/properties/a/default"),
        (_one_field({"type": "array", "items": {"type": "string", "enum": ["x"]}, "minItems": 1.5}), "a",
         "/properties/a/minItems"),
        (_one_field({"$ref": "#/$defs/x"}), "a", "/properties/a/type"),
        (_one_field(["string"]), "a", "/properties/a"),
        (_one_field({"type": "string", "x~y": 1}, "p/q~r"), "p/q~r", "/properties/p~1q~0r/x~0y"),
        ({"type": "object", "properties": {"ok": {"type": "string"}, "b": {"anyOf": [{"type": "string"}]}}}, "b",
         "/properties/b/type"),
    ],
)  # fmt: skip
def test_restricted_shape(eng: engine.Engine, schema: dict[str, Any], offending: str, location: str) -> None:
    with pytest.raises(engine.SchemaRejected) as refusal:
        engine.compile_elicitation(schema, engine=eng)
    assert refusal.value.reason == "invalid-schema"
    assert refusal.value.details["property"] == offending
    assert repr(offending) in refusal.value.message
    assert refusal.value.location == location


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "array", "properties": {}},
        {"type": "object"},
        {"type": "object", "properties": {}, "additionalProperties": False},
        {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"]},
        [],
    ],
)
def test_restricted_root(eng: engine.Engine, schema: Any) -> None:
    with pytest.raises(engine.SchemaRejected):
        engine.compile_elicitation(schema, engine=eng)


def test_decode_result_is_the_bound_reader_built_once_when_first_asked_for(
    eng: engine.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`decode_result` is the form's bound reader, built when first asked for (not at compile): a
    caller that keeps it before its first call holds the reader itself, with no frame in front of
    it, and it is built once."""
    form = engine.compile_elicitation(
        {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
        engine=engine.Engine(eng.config),  # its own: an engine keeps the forms compiled on it
    )
    assert "decode_result" not in vars(form)  # compiled, not yet asked for: nothing built
    built = []
    make = form._reader

    def counting() -> Any:
        built.append(1)
        return make()

    monkeypatch.setattr(form, "_reader", counting)
    kept = form.decode_result
    assert kept is form.decode_result and len(built) == 1
    assert type(kept).__name__ == "function"  # the closure, not a method that looks it up
    for _ in range(3):
        assert kept(b'{"action": "accept", "content": {"name": "x"}}').content == {"name": "x"}
    assert form.decode_result(b'{"action": "decline"}').action == "decline"
    assert len(built) == 1
    with pytest.raises(engine.ValidationFailed):
        kept(b'{"action": "accept", "content": {"name": 1}}')
    with pytest.raises(AttributeError):
        form.no_such_attribute  # noqa: B018 - the lookup is the test


def _expected(schema: dict[str, Any], oracle: Any, data: bytes, max_depth: int) -> Any:
    """What an answer is, judged without the engine: msgspec's plain decode (the strictest JSON
    parse), the depth bound, then jsonschema-rs with formats asserted on `content`."""
    try:
        doc = msgspec.json.decode(data)
    except msgspec.DecodeError:
        return engine.DecodeError
    if json_depth(doc) > max_depth + 1:  # the answer around its content, as a result's envelope
        return engine.DecodeError
    if not isinstance(doc, dict) or doc.get("action") not in ("accept", "decline", "cancel"):
        return engine.ValidationFailed
    content = doc.get("content")
    if doc["action"] != "accept":
        return engine.ValidationFailed if content is not None else (doc["action"], None)
    content = {} if content is None else content
    if not isinstance(content, dict) or not oracle.is_valid(content):
        return engine.ValidationFailed
    return ("accept", {name: content[name] for name in schema["properties"] if name in content})


def _answers(schema: dict[str, Any]) -> list[bytes]:
    """Answers to a form: valid, invalid, with fields it did not ask for (some of them bytes no
    JSON parser accepts), with `_meta`, and each padded past the length read without a scan."""
    answer = sample_answer(schema)
    names = list(schema["properties"])
    contents: list[Any] = [
        answer,
        dict(reversed(answer.items())),
        {**answer, "zz_extra": [1, {"a": None}]},
        {"zz_extra": 1, **answer},
        {**answer, "zz_extra": "HOLE"},
        {},
        None,
        [],
    ]
    contents += [{**answer, name: {"not": "primitive"}} for name in names]
    contents += [{**answer, name: 1.0} for name in names if schema["properties"][name]["type"] == "integer"]
    contents += [{k: v for k, v in answer.items() if k != name} for name in schema.get("required", [])]
    documents = [msgspec.json.encode({"action": "accept", "content": content}) for content in contents]
    documents += [
        msgspec.json.encode({"action": "accept", "content": answer, "_meta": {"k": "HOLE"}}),
        msgspec.json.encode({"action": "accept", "content": answer, "zz_extra": "HOLE"}),
        msgspec.json.encode({"action": "decline"}),
        msgspec.json.encode({"action": "cancel", "content": answer}),
        msgspec.json.encode({"action": "maybe", "content": answer}),
        msgspec.json.encode({"action": "decline", "content": None, "_meta": {"k": "HOLE"}}),
        msgspec.json.encode({"content": answer, "action": "accept"}),  # the action last
        msgspec.json.encode({"content": None, "action": "cancel"}),
        msgspec.json.encode({"action": "accept"}),
        msgspec.json.encode({"action": None, "content": answer}),
        # A repeated action: the last one counts, as every JSON parser here reads it.
        b'{"action": "decline", "content": ' + msgspec.json.encode(answer) + b', "action": "accept"}',
        b'{"action": "accept", "action": "decline"}',
    ]
    holes = [b'"\\u00e9"', b'"\xff"', b"1e999", b"[" * 300 + b"]" * 300]
    # Around a depth bound of 8 (the answer and `_meta` hold two levels, the answer one beyond
    # the bound): under, at and over it, an empty array at the bottom or a number.
    holes += [b"[" * depth + bottom + b"]" * depth for depth in (5, 6, 7, 8) for bottom in (b"", b"1")]
    answers: list[bytes] = []
    for document in documents:
        for filled in [document.replace(b'"HOLE"', hole) for hole in holes] if b'"HOLE"' in document else [document]:
            answers += [filled, filled + b" " * 600]
    return answers


@pytest.mark.parametrize("max_depth", [256, 8])
@pytest.mark.parametrize("entry", FORMS, ids=lambda e: e.get("id", e["source"]))
def test_answers_from_bytes_agree_with_an_independent_judge(entry: dict[str, Any], max_depth: int) -> None:
    """`decode_result` from bytes reads most answers with a typed decode: on every corpus form,
    for valid and invalid answers, answers with fields the form did not ask for (well-formed or
    not: a field the form drops is still JSON to parse), with `_meta`, short and padded past the
    length read without a scan, from the first call and the bound one, it gives what msgspec's
    plain decode and jsonschema-rs (formats asserted) say: the same answer (the form's fields in
    its order) or the same kind of error; under the default depth bound and one of 8."""
    schema = entry["requestedSchema"]
    eng = engine.Engine(engine.EngineConfig(limits=engine.Limits(max_instance_depth=max_depth)))
    form = engine.compile_elicitation(schema, engine=eng)
    oracle = jsonschema_rs.validator_for(schema, validate_formats=True)
    for data in _answers(schema):
        expected = _expected(schema, oracle, data, max_depth)
        for given in _forms(data):
            for _ in range(2):  # the first call binds the reader; the second uses it
                if isinstance(expected, tuple):
                    got = form.decode_result(given)
                    assert (got.action, got.content) == expected, given
                    assert list(got.content or ()) == list(expected[1] or ()), given
                else:
                    with pytest.raises(expected):
                        form.decode_result(given)


def _forms(data: bytes) -> list[Any]:
    """An answer as bytes, a bytearray, memoryviews (of bytes, of wider items, strided) and text."""
    forms: list[Any] = [data, bytearray(data), memoryview(data)]
    forms.append(memoryview(bytes(byte for pair in zip(data, data, strict=True) for byte in pair))[::2])
    if len(data) % 4 == 0:
        forms.append(memoryview(array.array("i", data)))
    try:
        forms.append(data.decode())
    except UnicodeDecodeError:
        pass
    return forms


def test_text_no_utf8_spells_is_refused_as_such() -> None:
    """An answer given as text holding a lone surrogate (no UTF-8 document spells it) is refused
    with the reason, short or long, as it was before text was read as its bytes."""
    form = engine.compile_elicitation(ENUM_FORM, engine=engine.Engine())
    for pad in ("", " " * 600):
        with pytest.raises(engine.DecodeError) as refusal:
            form.decode_result('{"action": "accept", "content": {"untitled": "red\ud800", "titled": "r"}}' + pad)
        assert refusal.value.reason == "invalid-utf8"


DIALECTS = [
    "http://json-schema.org/draft-04/schema#",
    "http://json-schema.org/draft-06/schema#",
    "http://json-schema.org/draft-07/schema#",
    "https://json-schema.org/draft/2019-09/schema",
    "https://json-schema.org/draft/2020-12/schema",
]
# One titled option: in draft 4 (no `const`) the option is the empty schema, so any string is valid.
ONE_OPTION_FORM = {
    "type": "object",
    "properties": {
        "only": {"type": "string", "oneOf": [{"const": "x", "title": "X"}]},
        "many": {"type": "array", "items": {"anyOf": [{"const": "x", "title": "X"}]}},
    },
}


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("base", [ENUM_FORM, ONE_OPTION_FORM], ids=["enum form", "one option"])
def test_answers_agree_with_an_independent_judge_in_every_dialect(base: dict[str, Any], dialect: str) -> None:
    """A form declaring its dialect is read as that dialect means it: titled options (`const`)
    where the dialect has no `const` (draft 4) included, on the typed path and the general one."""
    schema = {"$schema": dialect, **base}
    form = engine.compile_elicitation(schema, engine=engine.Engine())
    oracle = jsonschema_rs.validator_for(schema, validate_formats=True)
    answers = _answers(schema)
    answers += [
        msgspec.json.encode({"action": "accept", "content": {**sample_answer(schema), name: value}})
        for name in schema["properties"]
        for value in ("x", "zz", ["x"], ["zz"])
    ]
    for data in answers:
        expected = _expected(schema, oracle, data, 256)
        for _ in range(2):
            if isinstance(expected, tuple):
                got = form.decode_result(data)
                assert (got.action, got.content) == expected, data
            else:
                with pytest.raises(expected):
                    form.decode_result(data)


# ------------------------------------------------------------------------------ hostile forms


def _titled_form(options: int) -> dict[str, Any]:
    branches = [{"const": f"v{i}", "title": "t"} for i in range(options)]
    return {"type": "object", "properties": {"a": {"type": "string", "oneOf": branches}}}


@pytest.mark.timeout(60)  # the quadratic check took 10 s at 20,000 options; a hang fails by name
def test_many_options_are_read_in_linear_time() -> None:
    """20,000 titled options (0.7 MB): refused over `max_branches` before the options are read,
    and with the limits raised, read in one pass (duplicates counted once, not once per option)."""
    form = _titled_form(20_000)
    for given in (form, json.dumps(form)):
        started = time.perf_counter()
        with pytest.raises(engine.SchemaRejected) as refusal:
            engine.compile_elicitation(given, engine=engine.Engine(cache_size=0))
        assert refusal.value.reason == "limit-exceeded"
        assert refusal.value.details["limit"] == "max_branches"
        assert refusal.value.location == "/properties/a/oneOf"
        assert time.perf_counter() - started < 5
    raised = engine.Engine(cache_size=0, limits={"max_branches": 10**6, "max_subschemas": 10**6})
    started = time.perf_counter()
    with pytest.raises(engine.SchemaRejected):  # the guard refuses it further on (max_ref_expansion)
        engine.compile_elicitation(form, engine=raised)
    assert time.perf_counter() - started < 5


def test_a_titled_option_listed_twice_is_no_valid_answer(eng: engine.Engine) -> None:
    form = engine.compile_elicitation(
        {
            "type": "object",
            "properties": {
                "a": {
                    "type": "string",
                    "oneOf": [{"const": "x", "title": "X"}, {"const": "y", "title": "Y"}, {"const": "x", "title": "Z"}],
                }
            },
        },
        engine=eng,
    )
    assert form.decode_result(b'{"action": "accept", "content": {"a": "y"}}').content == {"a": "y"}
    for data in (b'{"action": "accept", "content": {"a": "x"}}', {"action": "accept", "content": {"a": "x"}}):
        with pytest.raises(engine.ValidationFailed):
            form.decode_result(data)


@pytest.mark.timeout(60)  # `repr` of the default expanded 2**60 strings: a hang fails by name
def test_a_shared_object_default_is_measured_not_printed() -> None:
    bomb: Any = ["x"]
    for _ in range(60):
        bomb = [bomb, bomb]
    with pytest.raises(engine.SchemaRejected) as refusal:
        engine.compile_elicitation(
            {"type": "object", "properties": {"a": {"type": "string", "default": bomb}}},
            engine=engine.Engine(cache_size=0),
        )
    assert refusal.value.reason == "limit-exceeded"
    assert refusal.value.details["limit"] == "max_schema_bytes"


def test_refusals_show_values_shortened(eng: engine.Engine) -> None:
    """A refused value is shown in a few dozen characters, whatever its size."""
    long = "y" * 100_000
    cases = [
        {"type": "object", "properties": {"a": {"type": "number", "default": long}}},
        {"type": "object", "properties": {"a": {"type": "string", "default": [["y" * 1000] * 10] * 10}}},
        {"type": "object", "properties": {"a": {"type": "string", "default": {str(i) * 1000: long for i in range(9)}}}},
        {"type": "object", "properties": {"a": {"type": "string", "format": long}}},
        {"type": "object", "properties": {"a": {"type": long}}},
        {"type": "object", "properties": {"a": {"type": "string", long: 1}}},
        {"type": "object", "properties": {long: {"type": "object"}}},
        {"type": "object", "properties": {}, long: 1},
    ]
    for schema in cases:
        with pytest.raises(engine.SchemaRejected) as refusal:
            engine.compile_elicitation(schema, engine=eng)
        assert refusal.value.reason == "invalid-schema"
        assert len(refusal.value.message) < 500, refusal.value.message[:500]


@pytest.mark.parametrize("value", [["email"], {"email": True}, 1, None])
def test_a_format_that_is_not_a_string_is_refused(eng: engine.Engine, value: Any) -> None:
    with pytest.raises(engine.SchemaRejected) as refusal:
        engine.compile_elicitation(
            {"type": "object", "properties": {"a": {"type": "string", "format": value}}}, engine=eng
        )
    assert refusal.value.reason == "invalid-schema"
    assert refusal.value.details["property"] == "a" and refusal.value.location == "/properties/a/format"


@pytest.mark.parametrize(
    "text",
    ["{", b'{"type": "object", ', '{"type": "object", "properties": {}, "x": NaN}', b"\xff", "[1, 2]"],
)
def test_a_form_as_text_that_is_no_form_is_refused_like_a_schema(eng: engine.Engine, text: str | bytes) -> None:
    """Text that is not a JSON object is refused as `Engine.compile` refuses it: `invalid-schema`
    (the parser's message kept), not a DecodeError."""
    for given in (text, text.encode() if isinstance(text, str) else memoryview(text)):
        with pytest.raises(engine.SchemaRejected) as refusal:
            engine.compile_elicitation(given, engine=eng)
        assert refusal.value.reason == "invalid-schema"
        with pytest.raises(engine.SchemaRejected) as general:
            eng.compile(given)
        assert general.value.reason == refusal.value.reason


class _OddDict(dict):  # type: ignore[type-arg]
    """A dict whose methods say otherwise than what it holds."""

    def get(self, key: Any, default: Any = None) -> Any:
        raise RuntimeError("odd get")

    def items(self) -> Any:
        raise RuntimeError("odd items")

    def __iter__(self) -> Any:
        raise RuntimeError("odd iter")


@pytest.mark.parametrize(
    ("schema", "reason"),
    [
        ({"type": "object", "properties": {}, 1: 2}, "invalid-schema"),
        ({"type": "object", "properties": {1: {"type": "string"}}}, "invalid-schema"),
        ({"type": "object", "properties": {"a": {"type": "string", 1: 2}}}, "invalid-schema"),
        ({"type": "object", "properties": {"a": {"type": "number", "minimum": float("nan")}}}, "invalid-schema"),
        ({"type": "object", "properties": {"a": {"type": "number", "maximum": float("inf")}}}, "invalid-schema"),
        ({"type": "object", "properties": {"a": {"type": "number", "default": float("nan")}}}, "invalid-schema"),
        ({"type": "object", "properties": {"a": {"type": "string", "default": 10**5000}}}, "invalid-schema"),
        ({"type": "object", "properties": {"a": {"type": "integer", "minimum": 10**5000}}}, "invalid-schema"),
        ({"type": "object", "properties": {"a": {"type": "string", "enum": {"x": 1}}}}, "invalid-schema"),
        ({"type": "object", "properties": {"a": {"type": "string", "oneOf": [["x"]]}}}, "invalid-schema"),
        ({"type": "object", "properties": {"a": {"type": "array", "items": [{"type": "string"}]}}}, "invalid-schema"),
        ({"type": "object", "properties": {"a": {"type": ["string"]}}}, "invalid-schema"),
        ({"type": "object", "properties": {"a": [1]}}, "invalid-schema"),
        (
            {"type": "object", "properties": {"a": {"type": "string", "enum": ["x"], "default": ["x"]}}},
            "invalid-schema",
        ),
        (
            {
                "type": "object",
                "properties": {"a": {"type": "array", "items": {"type": "string", "enum": ["x"]}, "default": [["x"]]}},
            },
            "invalid-schema",
        ),
        ({"type": "object", "properties": {"\ud800": {"type": "string"}}}, "invalid-schema"),
        ({"type": "object", "properties": {"a": {"type": "string", "default": {1, 2}}}}, "invalid-schema"),
        ({"type": "object", "properties": {f"p{i}": {"type": "boolean"} for i in range(2001)}}, "limit-exceeded"),
        ({"type": "object", "properties": {"a": {"type": "string", "enum": ["x"] * 10_001}}}, "limit-exceeded"),
        ({"type": "object", "properties": {"a": {"type": "string", "default": [[[[[[[]]]]]]] * 2}}}, "invalid-schema"),
    ],
)
def test_hostile_forms_are_refused_with_a_reason(eng: engine.Engine, schema: Any, reason: str) -> None:
    with pytest.raises(engine.SchemaRejected) as refusal:
        engine.compile_elicitation(schema, engine=eng)
    assert refusal.value.reason == reason


def test_a_form_is_read_as_its_json_says_whatever_its_mappings_do(eng: engine.Engine) -> None:
    """A dict subclass is read by what it holds, as the compile reads it: its own methods are not
    called, and the shape checked is the one compiled."""
    schema = _OddDict({"type": "object", "properties": _OddDict({"a": {"type": "string"}}), "required": ("a",)})
    form = engine.compile_elicitation(schema, engine=eng)
    assert form.fields == ("a",) and form.required == ("a",)
    assert form.decode_result(b'{"action": "accept", "content": {"a": "x"}}').content == {"a": "x"}
    with pytest.raises(engine.ValidationFailed):
        form.decode_result(b'{"action": "accept", "content": {}}')


def _wide_view(document: bytes) -> memoryview:
    """``document`` in a view of 8-byte items (JSON whitespace pads it): ``len`` counts items."""
    return memoryview(array.array("Q", document + b" " * (-len(document) % 8)))


def test_memoryviews_are_measured_in_bytes() -> None:
    eng = engine.Engine(cache_size=0, limits={"max_instance_depth": 256, "max_schema_bytes": 400})
    text = json.dumps({"type": "object", "properties": {"name": {"type": "string"}}}).encode()
    form = engine.compile_elicitation(_wide_view(text), engine=eng)
    assert form.fields == ("name",)
    # Over max_schema_bytes in bytes, within it in items.
    padded = text[:-1] + b" " * 400 + b"}"
    assert len(_wide_view(padded)) < 400 < len(padded)
    with pytest.raises(engine.SchemaRejected) as refusal:
        engine.compile_elicitation(_wide_view(padded), engine=eng)
    assert refusal.value.reason == "limit-exceeded" and refusal.value.details["limit"] == "max_schema_bytes"
    # An answer nesting 301 levels (in `_meta`, which the typed decode takes as it is): in bytes
    # long enough to nest past 256 levels, in items too short to, so its depth must be read.
    deep = b'{"action": "accept", "content": {"name": "x"}, "_meta": ' + b"[" * 300 + b"]" * 300 + b"}"
    assert len(_wide_view(deep)) < 2 * 256 + 1 < len(deep)
    with pytest.raises(engine.DecodeError) as failure:
        form.decode_result(_wide_view(deep))
    assert failure.value.reason == "too-deep"
    answer = b'{"action": "accept", "content": {"name": "x"}}'
    assert form.decode_result(_wide_view(answer)).content == {"name": "x"}


def test_a_form_of_no_property_passes_no_field_on() -> None:
    form = engine.compile_elicitation({"type": "object", "properties": {}})
    answer = b'{"action":"accept","content":{"zz":1,"evil":{"a":[1,2]}}}'
    for data in (answer, answer + b" " * 600, answer.decode(), bytearray(answer), memoryview(answer)):
        for _ in range(2):  # the first call binds the reader; the second uses it
            assert form.decode_result(data).content == {}


def test_answers_in_subclasses_of_bytes_and_str() -> None:
    class Raw(bytes):
        pass

    class Text(str):
        pass

    form = engine.compile_elicitation({"type": "object", "properties": {"a": {"type": "string"}}})
    for kind in (Raw, Text):
        data: Any = kind(b'{"action": "decline"}') if kind is Raw else kind('{"action": "decline"}')
        assert form.decode_result(data).action == "decline"
        assert engine.compile({"type": "object"}).decode(data) == {"action": "decline"}


# Values around each format a form may assert: well-formed, malformed, and the edges where
# implementations part (leap days and seconds, offsets, case, unicode, empty parts).
_FORMAT_VALUES: dict[str, list[str]] = {
    "email": [
        "a@example.com",
        "a.b+c@sub.example.org",
        "not-an-email",
        "@example.com",
        "a@",
        "",
        "a b@example.com",
        '"quoted local"@example.com',
        "a@[127.0.0.1]",
        "é@example.com",
        "a..b@example.com",
        "a@b",
    ],
    "uri": [
        "https://example.com/x",
        "urn:isbn:0451450523",
        "mailto:a@example.com",
        "//example.com",
        "/relative",
        "example.com",
        "",
        "http://exa mple.com",
        "https://例え.jp/パス",
        "http://[::1]:80/",
        "a:b",
        "1http://x",
    ],
    "date": [
        "2024-02-29",
        "2023-02-29",
        "2024-02-30",
        "2024-1-01",
        "2024-01-01T00:00:00Z",
        "",
        "0000-01-01",
        "9999-12-31",
        "2024-13-01",
        "２０２４-01-01",
        "2024-01-01 ",
        "yesterday",
    ],
    "date-time": [
        "2024-02-29T12:00:00Z",
        "2024-02-29t12:00:00z",
        "2024-02-29T12:00:00+01:00",
        "2024-02-29T12:00:00",
        "1998-12-31T23:59:60Z",
        "1998-12-31T15:59:60.123-08:00",
        "2024-02-29T24:00:00Z",
        "2024-02-29 12:00:00Z",
        "2024-02-29T12:00:00.5Z",
        "",
        "2024-02-29T12:00:00+25:00",
        "now",
    ],
}


@pytest.mark.parametrize(
    "dialect", [None, "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2019-09/schema"]
)
def test_formatted_fields_are_judged_as_the_whole_form_would_be(dialect: str | None) -> None:
    """A form's formatted fields are checked one by one, each against its format alone: for
    every format a form may assert, values well-formed and not, one field at a time and all
    at once, with other fields present and absent, in each dialect, the answer is what
    jsonschema-rs (formats asserted) says of the whole content."""
    properties: dict[str, Any] = {
        "name": {"type": "string", "minLength": 1},
        **{f"f_{form}": {"type": "string", "format": form} for form in _FORMAT_VALUES},
        "second_email": {"type": "string", "format": "email", "maxLength": 20},
    }
    schema: dict[str, Any] = {"type": "object", "properties": properties, "required": ["name"]}
    if dialect is not None:
        schema = {"$schema": dialect, **schema}
    form = engine.compile_elicitation(schema, engine=engine.Engine())
    oracle = jsonschema_rs.validator_for(schema, validate_formats=True)
    contents: list[dict[str, Any]] = [{"name": "n"}]
    for form_name, values in _FORMAT_VALUES.items():
        contents += [{"name": "n", f"f_{form_name}": value} for value in values]
        contents += [{"name": "n", "second_email": value} for value in _FORMAT_VALUES["email"]]
    for a, b in zip(_FORMAT_VALUES["email"], _FORMAT_VALUES["date-time"], strict=True):
        contents.append({"name": "n", "f_email": a, "f_date-time": b, "second_email": "x@example.com"})
        contents.append({"f_email": a, "f_uri": "https://example.com", "second_email": a})  # `name` missing
    for content in contents:
        data = msgspec.json.encode({"action": "accept", "content": content})
        # Read inline, read past the length read inline, and given as a dict.
        for given in (data, data + b" " * 600, {"action": "accept", "content": content}):
            if oracle.is_valid(content):
                assert form.decode_result(given).content == content, content
            else:
                with pytest.raises(engine.ValidationFailed) as failure:
                    form.decode_result(given)
                assert failure.value.issues, content


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (b'{"content": {}}', "action is missing: an ElicitResult names one of accept, decline, cancel"),
        (b'{"action": null}', "action must be one of accept, decline, cancel, not null"),
        (b'{"action": "Accept"}', 'action must be one of accept, decline, cancel, not "Accept"'),
        (b'{"action": [true]}', "action must be one of accept, decline, cancel, not [true]"),
        ({"action": "y" * 500}, 'action must be one of accept, decline, cancel, not "' + "y" * 76 + "..."),
    ],
)
def test_a_wrong_action_is_said_in_json_words(answer: object, message: str) -> None:
    form = engine.compile_elicitation({"type": "object", "properties": {"a": {"type": "string"}}})
    for _ in range(12):  # the first answers' reader and the one built after
        with pytest.raises(engine.ValidationFailed) as info:
            form.decode_result(answer)  # type: ignore[arg-type]
        assert [(i.instance_path, i.message) for i in info.value.issues] == [("/action", message)]


def test_an_answer_a_form_returned_is_judged_again_as_its_wire_form() -> None:
    form = engine.compile_elicitation({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}})
    for _ in range(12):  # the first answers' reader and the one built after
        answer = form.decode_result(b'{"action": "accept", "content": {"n": 2}}')
        assert form.decode_result(answer) == answer
        declined = form.decode_result(b'{"action": "decline"}')
        assert form.decode_result(declined) == declined
    answer.content["n"] = 0  # changed since: held to the form again
    with pytest.raises(engine.ValidationFailed) as info:
        form.decode_result(answer)
    assert [i.instance_path for i in info.value.issues] == ["/content/n"]


def test_a_default_the_field_accepts_is_kept(eng: engine.Engine) -> None:
    fields = {
        "n": {"type": "integer", "minimum": 1, "maximum": 3, "default": 2.0},  # 2.0 is an integer
        "s": {"type": "string", "minLength": 1, "maxLength": 1, "default": "\U0001f600"},  # one code point
        "e": {"type": "string", "format": "email", "default": "a@b.example"},
        "m": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}, "maxItems": 2, "default": ["x"]},
    }
    form = engine.compile_elicitation({"type": "object", "properties": fields}, engine=eng)
    content = {name: prop["default"] for name, prop in fields.items()}
    answer = form.decode_result(json.dumps({"action": "accept", "content": content}).encode())
    assert answer.content == content


@pytest.mark.parametrize(("dialect", "kept"), [("http://json-schema.org/draft-04/schema#", False), (None, True)])
def test_a_whole_float_default_for_an_integer_follows_the_forms_dialect(dialect: str | None, kept: bool) -> None:
    # Under draft 4 `1.0` is no integer: sent back unchanged it would be refused, so it is no default.
    schema: dict[str, object] = {"type": "object", "properties": {"a": {"type": "integer", "default": 1.0}}}
    if dialect is not None:
        schema["$schema"] = dialect
    if kept:
        form = engine.compile_elicitation(schema)
        assert form.decode_result(b'{"action": "accept", "content": {"a": 1.0}}').content == {"a": 1.0}
        return
    with pytest.raises(engine.SchemaRejected) as refused:
        engine.compile_elicitation(schema)
    assert refused.value.location == "/properties/a/default"

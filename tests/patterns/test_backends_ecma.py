"""Every backend answers patterns as ECMA-262 specifies (regress, an ECMA-262 engine, is the
oracle) or refuses the schema with a typed error; no other exception ever escapes."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import engine
from engine._cli import main as cli_main

regress = pytest.importorskip("regress")

BACKENDS = ["auto", "jsonschema-rs", "msgspec", "fastjsonschema", "jsonschema"]
ENGINES = {name: engine.Engine(engine.EngineConfig.load(env={}, backend=name)) for name in BACKENDS}

# Characters where the classes of ECMA-262 and of Python or Rust differ: non-ASCII letters and
# digits, the case-folding pairs (K and the Kelvin sign, s and the long s), Unicode spaces, line
# terminators, an astral code point.
ALPHABET = "aAkKsSzZ09_-. \t\n\r\u2028\u2029\u00a0\u0663\u00e9\u00c9\u017f\u212a\u03a3\ufeff\u180e\U0001f600@"
CLASS_ATOMS = [
    "\\b",
    "\\B",
    "\\w",
    "\\W",
    "\\d",
    "\\D",
    "\\s",
    "\\S",
    ".",
    "[\\w]",
    "[^\\w]",
    "[\\W\\d]",
    "[\\s]",
    "[^\\S]",
    "[\\b]",
    "[a-z]",
    "[^a-z]",
    "(?i:k)",
    "(?i:s)",
    "(?i:[a-z])",
    "(?i:\\w)",
    "(?i:\\W)",
    "(?i:\\b)",
    "(?i:[^a-z])",
    "a",
    "é",
    "\\u{41}",
    "\\u00e9",
    "(?<n>a)",
    "(?:k|s)",
    "^",
    "$",
]
QUANTIFIERS = ["", "", "", "*", "+", "?", "{2}", "{1,3}"]


@st.composite
def class_patterns(draw: st.DrawFn) -> str:
    atoms = draw(st.lists(st.sampled_from(CLASS_ATOMS), min_size=1, max_size=4))
    return "".join(a + (draw(st.sampled_from(QUANTIFIERS)) if a not in ("^", "$", "\\b", "\\B") else "") for a in atoms)


def ecma(pattern: str) -> Any:
    try:
        return regress.Regex(pattern, "u")
    except Exception:  # noqa: BLE001 - not a pattern in Unicode mode
        return None


@pytest.mark.timeout(600)
@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(pattern=class_patterns(), texts=st.lists(st.text(alphabet=ALPHABET, max_size=6), min_size=1, max_size=4))
@example(pattern="^\\bé", texts=["é"])
@example(pattern="\\B", texts=["é"])
@example(pattern="^\\w$", texts=["é", "\u017f"])
@example(pattern="^\\d$", texts=["\u0663"])
@example(pattern="^\\s$", texts=["\u180e", "\ufeff"])
@example(pattern="^.$", texts=["\u2028", "\r", "\U0001f600"])
@example(pattern="(?i:\\w)", texts=["\u017f", "\u212a"])
def test_every_backend_answers_classes_as_ecma_262_or_refuses(backend: str, pattern: str, texts: list[str]) -> None:
    oracle = ecma(pattern)
    for schema, instance_of in (
        ({"type": "string", "pattern": pattern}, lambda text: text),
        ({"type": "object", "patternProperties": {pattern: False}}, lambda text: {text: 1}),
    ):
        try:
            compiled = ENGINES[backend].compile(schema)
        except engine.SchemaRejected as refusal:
            assert refusal.reason in ("unsupported-by-backend", "unsafe-pattern", "invalid-schema"), refusal
            continue
        assert oracle is not None, f"{backend} accepted {pattern!r}, which is not ECMA-262"
        for text in texts:
            matches = oracle.find(text) is not None
            expected = matches if "pattern" in schema else not matches
            instance = instance_of(text)
            assert compiled.is_valid(instance) is expected, (backend, compiled.backend, pattern, text)
            raw = json.dumps(instance).encode()
            try:
                compiled.decode(raw)
                decoded = True
            except engine.ValidationFailed:
                decoded = False
            assert decoded is expected, (backend, compiled.backend, pattern, text, "decode")


# -- no raw error, whatever the pattern -----------------------------------------------------------

PATTERN_PIECES = [
    *CLASS_ATOMS,
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "|",
    "\\",
    "*",
    "+",
    "?",
    "\\k<n>",
    "\\1",
    "(?=",
    "(?!",
    "(?<=",
    "\\p{L}",
    "\\P{Lu}",
    "\\cA",
    "\\ud83d",
    "\\x4",
    "\\u{110000}",
    "(?P<n>",
    "(?#",
    "\\Z",
    "\\A",
    "\\z",
    "(?x)",
    "\\0",
    "\\07",
    "{2,1}",
    "{99999}",
    "\u0000",
    "-",
    "^",
    "$",
]


@st.composite
def any_patterns(draw: st.DrawFn) -> str:
    if draw(st.booleans()):
        return "".join(draw(st.lists(st.sampled_from(PATTERN_PIECES), max_size=6)))
    return draw(st.text(max_size=8))


@pytest.mark.timeout(600)
@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(pattern=any_patterns(), text=st.text(alphabet=ALPHABET, max_size=6))
@example(pattern="\\u{41}", text="A")
@example(pattern="(?<n>a)", text="a")
@example(pattern="(?P<n>a)", text="a")
def test_no_entry_point_raises_anything_but_an_engine_error(backend: str, pattern: str, text: str) -> None:
    eng = ENGINES[backend]
    schemas = [
        {"type": "object", "properties": {"q": {"type": "string", "pattern": pattern}}},
        {"type": "object", "patternProperties": {pattern: {"type": "integer"}}},
        {"type": "object", "propertyNames": {"pattern": pattern}, "additionalProperties": {"pattern": pattern}},
    ]
    for schema in schemas:
        try:
            compiled = eng.compile(schema)
        except engine.EngineError:
            continue
        for instance in ({"q": text}, {text: text}, {text: 1}):
            try:
                compiled.validate(instance)
            except engine.EngineError:
                pass
            try:
                compiled.decode(json.dumps(instance))
            except engine.EngineError:
                pass
    listed = [{"name": f"t{i}", "inputSchema": schema} for i, schema in enumerate(schemas)]
    tools = engine.compile_tools([*listed, {"name": "plain", "inputSchema": {"type": "object"}}], engine=eng)
    assert tools.validate_arguments("plain", {}) == {}  # one refused tool never fails the others


@pytest.mark.timeout(120)
@pytest.mark.parametrize("pattern", ["\\u{41}", "(?<n>a)", "^\\bé", "(?i:\\w)+"])
def test_engine_check_reports_instead_of_a_traceback(pattern: str, tmp_path: Any) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(
        json.dumps(
            {
                "tools": [
                    {
                        "name": "t",
                        "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "pattern": pattern}}},
                    }
                ]
            }
        )
    )
    for backend in BACKENDS:
        out, err = io.StringIO(), io.StringIO()
        code = cli_main(["check", str(tools), "--backend", backend], out=out, err=err)
        assert "Traceback" not in out.getvalue() + err.getvalue(), (backend, err.getvalue())
        assert code in (0, 1, 2), (backend, code, err.getvalue())


@pytest.mark.parametrize("pattern", ["^[^]$", "a[^]*b", "^[]$", "^\\0$", "^[\\b]$"])
@pytest.mark.parametrize("backend", ["auto", "jsonschema-rs", "msgspec", "fastjsonschema", "jsonschema"])
def test_valid_ecma_262_jsonschema_rs_cannot_read_is_no_invalid_schema(pattern: str, backend: str) -> None:
    # Valid ECMA-262 (any character, no character, NUL, backspace) that jsonschema-rs's regex
    # engine refuses: the schema is not at fault, the backend is, and the refusal says so.
    with pytest.raises(engine.SchemaRejected) as refused:
        engine.Engine(engine.EngineConfig(backend=backend, cache_size=0)).compile({"pattern": pattern})
    assert refused.value.reason == engine.RejectReason.UNSUPPORTED_BY_BACKEND
    assert refused.value.location == "/pattern" and "valid ECMA-262" in refused.value.message
    with pytest.raises(engine.SchemaRejected) as invalid:
        engine.Engine(engine.EngineConfig(backend=backend, cache_size=0)).compile({"pattern": "^(a$"})
    assert invalid.value.reason == engine.RejectReason.INVALID_SCHEMA

"""A float ``multipleOf``, as docs/backends.md says each backend decides it: exact in decimal under
``auto``, ``jsonschema-rs`` and ``fastjsonschema`` (a number with a fraction as the shortest decimal
of its float, one without as the float's exact integer value), in binary floating point under
``jsonschema``, as python-jsonschema computes it."""

from __future__ import annotations

import pytest

import engine

# (instance text, divisor, answer in decimal, answer in binary floating point)
CASES = [
    ("0.3", 0.1, True, False),
    ("19.99", 0.01, True, False),
    ("1e30", 2.5, False, True),  # 1000000000000000019884624838656 is no multiple of 2.5
    ("1e30", 0.5, True, True),
    ("1e22", 2.5, True, True),  # exactly 10^22 as a float
    ("1e23", 5, False, False),  # 99999999999999991611392
]


@pytest.mark.parametrize("backend", ["auto", "jsonschema-rs", "fastjsonschema", "jsonschema"])
@pytest.mark.parametrize(("text", "divisor", "decimal", "binary"), CASES)
def test_a_float_multiple_is_decided_as_documented(
    backend: str, text: str, divisor: float, decimal: bool, binary: bool
) -> None:
    compiled = engine.Engine(engine.EngineConfig(backend=backend)).compile({"multipleOf": divisor})
    expected = binary if backend == "jsonschema" else decimal
    assert compiled.is_valid(float(text)) is expected
    try:
        compiled.decode(text.encode())
    except engine.ValidationFailed:
        assert not expected
    else:
        assert expected

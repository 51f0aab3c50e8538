"""The pure-Python backend: fastjsonschema, fed the lowered schema of
:mod:`engine.backends._fastjsonschema_lowering`, its generated code checked by
:mod:`engine.backends._fastjsonschema_audit` before it runs, every pattern made ECMA-exact.

Left to itself fastjsonschema fetches any ``$ref`` URI with ``urlopen`` (``file:`` included) and
writes ``default`` values into the caller's data: every URI scheme is routed to a refusal and
defaults are off.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from functools import lru_cache
from typing import Any, ClassVar

import fastjsonschema
import jsonschema_rs
import msgspec

from .. import _patterns
from .._dialect import Dialect
from .._errors import Issue
from .._instance import json_values
from ._contract import Backend, BackendValidator, Refusal, SchemaSource, refuse, spells
from ._fastjsonschema_audit import UnsafeGeneratedCode, check_generated_code
from ._fastjsonschema_lowering import NAME, Lowering
from ._jsonschema_rs import lazy_validator

__all__ = ["FastjsonschemaBackend", "FastjsonschemaValidator"]


def _deny_handler(uri: str) -> Any:
    raise fastjsonschema.JsonSchemaDefinitionException(f"retrieval of {uri!r} is disabled")


# Every scheme fastjsonschema could hand to urlopen is routed to the refusal above.
DENY_ALL_HANDLERS: Mapping[str, Any] = {
    scheme: _deny_handler for scheme in ("", "http", "https", "file", "ftp", "data", "urn", "tag", "mailto")
}


MAX_OBJECTS = 512
"""The most objects a schema fastjsonschema builds may hold (the real tool schemas at most 143: a
quarter of a second)."""

# What one evaluation costs, in jsonschema-rs's (see `FastjsonschemaBackend.evaluation_rate`).
_RATE = 10
_BRANCHING_RATE = 400
_BRANCHING = (b'"anyOf"', b'"oneOf"', b'"not"', b'"if"', b'"contains"', b'"enum"')


class FastjsonschemaValidator(BackendValidator):
    """Runs the generated function. An exception other than a validation failure (deep recursion,
    an overflow in its arithmetic) never becomes an answer: the general backend decides.

    ``confirm``: the generated code holds a ``multipleOf`` quotient the engine could not make
    exact (see ``_exact_quotients``: a fastjsonschema that writes it otherwise); every answer is
    then the general backend's. fastjsonschema's own quotients round (``1e308 / 3`` is a whole
    float, so 1e308 passed as a multiple of 3, and a failed ``not`` of it as no multiple).
    Its test of an overflowing float division is taken out too (see ``_OVERFLOW_TEST``); where a
    fastjsonschema writes it otherwise, its failure at the root is still asked of the general
    backend."""

    def __init__(self, func: Any, rescue: Callable[[], BackendValidator], *, confirm: bool = False) -> None:
        self._func = func
        self._rescue = rescue
        self._confirm = confirm

    def is_valid(self, instance: Any) -> bool:
        if self._confirm:
            return bool(self._rescue().is_valid(instance))
        try:
            self._func(instance)
        except fastjsonschema.JsonSchemaValueException as failure:
            if failure.rule == "multipleOf" and "reached" in failure.message:
                # Its float division overflowed ("inifinity reached"): not an answer.
                return bool(self._rescue().is_valid(instance))
            return False
        except Exception:  # noqa: BLE001 - e.g. RecursionError, OverflowError: ask the reference
            return bool(self._rescue().is_valid(instance))
        return True

    def iter_issues(self, instance: Any) -> Iterator[Issue]:
        # fastjsonschema reports one message without keyword locations; issues come from the
        # general backend so that their shape does not depend on the backend.
        return self._rescue().iter_issues(instance)


MAX_LITERAL_VALUES = 5_000
"""Values of ``enum`` and ``const`` that fastjsonschema may be given: it writes each into the
code it generates, which is then audited and compiled (some 0.2 ms a value: a ``const`` of 1,000
members of 10 items each took 2.1 s and 270 MB to compile, one of 20,000 members half a
minute and 3.8 GB). At the bound a compile spends about a second there."""


def _check_literal_values(source: SchemaSource) -> None:
    """Refuse a schema whose ``enum`` and ``const`` values together number more than
    :data:`MAX_LITERAL_VALUES` (counted in every document, data and property maps included: more,
    never less, than the subschemas hold)."""
    count = 0
    stack: list[Any] = [source.schema, *source.resources.values()]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            for keyword in ("enum", "const"):
                if keyword in node:
                    count += json_values(node[keyword], MAX_LITERAL_VALUES - count)
            if count > MAX_LITERAL_VALUES:
                raise refuse(
                    NAME,
                    f"its enum and const values number over {MAX_LITERAL_VALUES}: fastjsonschema writes each "
                    "into the code it generates, and its compile grows with them (jsonschema-rs reads them as data)",
                )
            stack.extend(value for key, value in node.items() if key not in ("enum", "const"))
        elif isinstance(node, list):
            stack.extend(node)


# CPython's compiler refuses more than 20 loop, try and with blocks nested in one function
# (CO_MAXBLOCKS), and its tokenizer more than 100 levels of indentation; reporting either, it opens
# the file the code names to quote the line: a file named `<fastjsonschema>` in the working
# directory. Generated code past either bound is refused first, from its text.
_MAX_BLOCKS = 19
_UNIQUE_ITEMS = "rule='uniqueItems'"  # what the generated code's uniqueItems check raises with
# The generated `multipleOf` check of a float: an exact quotient in `Decimal`, then a failure when
# the float division overflows ("inifinity reached"), which holds for a multiple too (1e308 and
# 0.1). Inside `anyOf`, `oneOf`, `not`, `if` or `contains` that failure is a branch's "no", no
# longer told apart: the overflow test is taken out, and the exact quotient answers.
# The generated `multipleOf` check of a value that is not an int beside an int divisor: a quotient
# in floats where the divisor is an int (every float past 2**53 divides whole; 5e-324 / 2 is 0.0), in
# `Decimal` at 28 digits otherwise (every quotient past 10**28 rounds whole). Each whole quotient
# would be a multiple: under `not`, `oneOf` or `if`, a "yes" that is a final "no". The quotient is
# made by `engine_multiple_of`, which asks jsonschema-rs, the general backend (exact, and the answer
# `auto` gives): 0 for a multiple, 0.5 for none (the generated test, `int(quotient) != quotient`,
# reads it).
_QUOTIENT = re.compile(
    r"^(?P<indent>[ \t]*)quotient = (?:Decimal\(repr\((?P<a>\w+)\)\) / Decimal\(repr\((?P<b>[-+0-9.eE]+)\)\)"
    r"|(?P<c>\w+) / (?P<d>[-+0-9.eE]+))$",
    re.M,
)


@lru_cache(maxsize=1024, typed=True)  # 3 and 3.0 compile apart
def _multiple_check(divisor: int | float) -> Callable[[Any], bool]:
    return jsonschema_rs.validator_for({"multipleOf": divisor}).is_valid


def _multiple_of(value: int | float, divisor: int | float) -> bool:
    """Whether ``value`` is a multiple of ``divisor``, as jsonschema-rs answers it."""
    if type(value) is int and type(divisor) is int:
        return value % divisor == 0
    return _multiple_check(divisor)(value)


def _exact_quotients(code: str) -> tuple[str, bool]:
    """``code`` with every generated quotient made by :func:`_multiple_of`, and whether none was
    left as fastjsonschema wrote it."""

    def exact(found: re.Match[str]) -> str:
        value, divisor = found["a"] or found["c"], found["b"] or found["d"]
        return f"{found['indent']}quotient = 0 if engine_multiple_of({value}, {divisor}) else 0.5"

    code, made = _QUOTIENT.subn(exact, code)
    return code, made == code.count("quotient = ")


_OVERFLOW_TEST = re.compile(
    r'^[ \t]*if [^\n]* == float\("inf"\):\n[ \t]*raise JsonSchemaValueException\("inifinity reached"[^\n]*\n', re.M
)
_MAX_LEVELS = 90
_BLOCKS = ("for ", "while ", "try:", "with ", "except", "finally:")


def _check_static_nesting(code: str) -> None:
    """Refuse generated ``code`` nesting more loop, try and with blocks, or more levels of
    indentation, than Python compiles (read from its lines: fastjsonschema writes one statement a
    line, and no string over several)."""
    levels: list[int] = [0]  # the indentation of each enclosing line
    blocks: list[int] = []  # and of each enclosing block
    for line in code.splitlines():
        stripped = line.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(stripped)
        while levels[-1] > indent:
            levels.pop()
        if levels[-1] < indent:
            levels.append(indent)
        while blocks and blocks[-1] >= indent:
            blocks.pop()
        if stripped.startswith(_BLOCKS) and stripped.rstrip().endswith(":"):
            blocks.append(indent)
        if len(blocks) > _MAX_BLOCKS or len(levels) > _MAX_LEVELS:
            raise refuse(
                NAME,
                "the code fastjsonschema generates for it nests deeper than Python compiles "
                f"(over {_MAX_BLOCKS} loop or try blocks, or {_MAX_LEVELS} levels of indentation)",
            )


class FastjsonschemaBackend(Backend):
    name: ClassVar[str] = NAME
    dialects: ClassVar[frozenset[Dialect]] = frozenset(Dialect)
    explains: ClassVar[bool] = False
    backtracking: ClassVar[bool] = True  # branch by branch, in Python

    def refusal(self, source: SchemaSource) -> Refusal | None:
        """Also refused: a schema of more than :data:`MAX_OBJECTS` objects, whose generated code
        grows with them (1.6 ms an object to build: 1,000 properties took 0.7-1.4 s)."""
        early = super().refusal(source)
        if early is not None:
            return early
        text = source.text if source.text is not None else msgspec.json.encode(source.schema)
        objects = text.count(b"{") + sum(msgspec.json.encode(doc).count(b"{") for doc in source.resources.values())
        if objects > MAX_OBJECTS:
            return Refusal(
                f"it holds {objects} objects, over {MAX_OBJECTS}: fastjsonschema generates code for each, "
                "some 1.6 ms an object to build"
            )
        return None

    def evaluation_rate(self, source: SchemaSource) -> int:
        """Each subschema a value meets costs its generated Python code 1-10 times what it costs
        jsonschema-rs, and 70-330 times where a branch may fail: every failure is an exception,
        raised with its message (5-6 us) and caught (an ``anyOf`` of 99 ``const`` s, 184x; ``if``
        on 100 subschemas, 327x; an ``enum`` of 101 integers, 81x; ``contains``, 72x)."""
        return _BRANCHING_RATE if spells(source, _BRANCHING) else _RATE

    def compile(self, source: SchemaSource) -> FastjsonschemaValidator:
        self.check_dialect(source)
        _check_literal_values(source)
        lowering = Lowering(source)
        try:
            schema = lowering.lower()
        except RecursionError:
            raise refuse(NAME, "the schema nests too deeply to lower") from None
        except (AttributeError, TypeError, KeyError) as exc:
            # A registry resource is not checked against a meta-schema: malformed keyword values
            # there are refused, not crashed on.
            raise refuse(NAME, f"a referenced schema is malformed ({type(exc).__name__}: {exc})") from None
        try:
            code = fastjsonschema.compile_to_code(
                schema,
                handlers=DENY_ALL_HANDLERS,
                use_default=False,
                use_formats=False,
                detailed_exceptions=True,  # False trips a KeyError in its generator
            )
            _check_static_nesting(code)  # before anything parses or compiles it (see there)
            if _UNIQUE_ITEMS in code:
                raise refuse(
                    NAME,
                    "its uniqueItems check keeps the items in a Python set of their values, whose hashes a "
                    "payload can make alike (20,000 pairs of integers: 4.5 s); the jsonschema backend's cannot",
                )
            code = _OVERFLOW_TEST.sub("", code)
            check_generated_code(code)
            # After the check: the quotients are made by the engine's function, called with what
            # the checked code names (a variable, a number written out).
            code, exact = _exact_quotients(code)
            namespace: dict[str, Any] = {"__builtins__": __builtins__, "engine_multiple_of": _multiple_of}
            exec(compile(code, "<fastjsonschema>", "exec"), namespace)  # noqa: S102 - checked above
        except UnsafeGeneratedCode as exc:
            raise refuse(NAME, f"the generated code failed the safety check ({exc})") from None
        except (
            fastjsonschema.JsonSchemaDefinitionException,
            SyntaxError,
            RecursionError,
            ValueError,
            TypeError,
            MemoryError,
            OverflowError,
            re.error,  # a translation is valid Python re syntax; never let a library's error escape
        ) as exc:
            raise refuse(NAME, f"fastjsonschema cannot compile it: {type(exc).__name__}: {exc}"[:300]) from None
        patterns = namespace.get("REGEX_PATTERNS", {})
        if not lowering.patterns.keys() <= patterns.keys():
            # A fastjsonschema that compiles patterns elsewhere would run them with Python
            # semantics: refuse rather than answer differently.
            raise refuse(NAME, "the generated code does not keep its patterns where they can be made exact")
        for pattern in list(patterns):
            if pattern in lowering.patterns:
                patterns[pattern] = _patterns.compile_pattern(lowering.patterns[pattern])
            else:  # pragma: no cover - format regexes are off; anything else is unexpected
                raise refuse(NAME, f"unexpected regular expression {pattern!r} in the generated code")
        func = namespace["validate"]
        rescue = lazy_validator(source)
        return FastjsonschemaValidator(func, rescue, confirm=not exact)

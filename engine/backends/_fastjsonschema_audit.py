"""A backstop behind fastjsonschema's own escaping: its generated source is parsed and checked
to call only what its code generator calls before the engine executes it. Schema text must stay data.
"""

from __future__ import annotations

import ast
import string

__all__ = ["UnsafeGeneratedCode", "check_generated_code"]

_HEADER_IMPORTS = {
    ("decimal", "Decimal"),
    ("re", None),
    ("fastjsonschema", "JsonSchemaValueException"),
    ("fastjsonschema", "JsonSchemaValuesException"),
}
_CALLABLE_NAMES = frozenset(
    {
        "isinstance",
        "len",
        "set",
        "frozenset",
        "dict",
        "tuple",
        "hasattr",
        "enumerate",
        "str",
        "repr",
        "int",
        "float",
        "Decimal",
        "any",
        "all",
        "sorted",
        "list",
        "type",
        "fn",
        "locals",
        "JsonSchemaValueException",
        "JsonSchemaValuesException",
    }
)
_CALLABLE_METHODS = frozenset(
    {
        "items",
        "keys",
        "values",
        "remove",
        "search",
        "match",
        "format",
        "is_integer",
        "compile",
        "append",
        "extend",
        "add",
        "get",
        "fromkeys",
    }
)


class UnsafeGeneratedCode(Exception):
    pass


def check_generated_code(code: str) -> ast.Module:
    """Parse fastjsonschema's output and refuse anything its generator never writes: imports
    beyond its header, calls beyond its vocabulary, private attributes, format fields that look
    anything up. A backstop behind the generator's own escaping: schema text must stay data."""
    tree = ast.parse(code)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            if [(a.name, None) for a in node.names] != [("re", None)]:
                raise UnsafeGeneratedCode("unexpected import")
        elif isinstance(node, ast.ImportFrom):
            if any((node.module, a.name) not in _HEADER_IMPORTS for a in node.names):
                raise UnsafeGeneratedCode("unexpected import")
        elif isinstance(
            node,
            (
                ast.Global,
                ast.Nonlocal,
                ast.Delete,
                ast.ClassDef,
                ast.AsyncFunctionDef,
                ast.Lambda,
                ast.Await,
                ast.Yield,
                ast.YieldFrom,
                ast.With,
                ast.NamedExpr,
            ),
        ):
            raise UnsafeGeneratedCode(f"unexpected {type(node).__name__}")
        elif isinstance(node, ast.FunctionDef):
            if not (node.name.startswith("validate") or node.name == "fn"):
                raise UnsafeGeneratedCode(f"unexpected function {node.name}")
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            raise UnsafeGeneratedCode(f"private attribute {node.attr}")
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                if func.id not in _CALLABLE_NAMES and not func.id.startswith("validate"):
                    raise UnsafeGeneratedCode(f"unexpected call {func.id}")
            elif isinstance(func, ast.Attribute):
                if func.attr not in _CALLABLE_METHODS:
                    raise UnsafeGeneratedCode(f"unexpected method {func.attr}")
                if func.attr == "format":
                    _check_format_receiver(func.value)
            else:
                raise UnsafeGeneratedCode("unexpected call")
    return tree


def _check_format_receiver(node: ast.AST) -> None:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            for _, field, _, _ in string.Formatter().parse(sub.value):
                if field is not None and not field.isidentifier():
                    raise UnsafeGeneratedCode(f"format field {field!r} looks something up")

"""``engine validate``: one instance against one schema, every issue printed."""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from .._engine import Engine
from .._errors import EngineError, SchemaRejected, ValidationFailed
from .check import print_json
from .input import EXIT_OK, EXIT_REFUSED, UsageError, read_json

__all__ = ["run_validate"]


def run_validate(args: argparse.Namespace, eng: Engine, out: TextIO, err: TextIO) -> int:
    schema = read_json(args.schema, "schema")
    try:
        cs = eng.compile(schema)
    except SchemaRejected as exc:
        if args.json:
            print_json(out, {"valid": None, "schema_refused": exc.to_dict()})
        else:
            where = f" at {exc.location!r}" if exc.location else ""
            err.write(f"the schema {args.schema!r} is refused ({exc.reason}){where}: {exc.message}\n")
        return EXIT_REFUSED
    source = args.instance
    try:
        if source == "-":
            data = sys.stdin.buffer.read(eng.config.limits.max_instance_bytes + 1)
        else:
            with open(source, "rb") as fh:
                data = fh.read(eng.config.limits.max_instance_bytes + 1)
    except OSError as exc:
        raise UsageError(f"cannot read the instance {source!r}: {exc.strerror or exc}") from None
    label = "standard input" if source == "-" else source
    try:
        cs.decode(data)
    except ValidationFailed as exc:
        if args.json:
            print_json(out, {"valid": False, **exc.to_dict()})
        else:
            count = len(exc.issues)
            out.write(f"{label}: invalid, {count} issue{'s' if count != 1 else ''}"
                      f"{' (list cut short)' if exc.truncated else ''}\n")
            for issue in exc.issues:
                out.write(f"  at {issue.instance_path or '(root)'}: {issue.message}"
                          f"  [schema {issue.keyword_location or '(root)'}]\n")
        return EXIT_REFUSED
    except EngineError as exc:  # DecodeError: the instance is not acceptable JSON
        if args.json:
            print_json(out, {"valid": False, "reason": str(exc.reason), "message": exc.message})
        else:
            out.write(f"{label}: not acceptable JSON ({exc.reason}): {exc.message}\n")
        return EXIT_REFUSED
    if args.json:
        print_json(out, {"valid": True, "backend": cs.backend, "dialect": cs.dialect.value})
    else:
        out.write(f"{label}: valid (dialect {cs.dialect.value}, backend {cs.backend})\n")
    return EXIT_OK

"""``engine validate``: one instance against one schema, every issue printed."""

from __future__ import annotations

import argparse
from typing import TextIO

from .._engine import Engine
from .._errors import DecodeError, SchemaRejected, ValidationFailed
from .check import print_json
from .input import (
    EXIT_OK,
    EXIT_REFUSED,
    NOT_JSON,
    UsageError,
    describe_decode_error,
    label_of,
    read_bytes,
    read_json,
    shown,
    tools_document,
)

__all__ = ["run_validate"]


def run_validate(args: argparse.Namespace, eng: Engine, out: TextIO, err: TextIO) -> int:
    schema = read_json(args.schema, "schema")
    kind = tools_document(schema)
    if kind is not None:
        # Any JSON object is a schema, and one whose keys are no keywords accepts everything:
        # validating against a tool list would say "valid" to anything.
        raise UsageError(
            f"{args.schema} is a {kind}, not a schema; to vet its tools' schemas run: engine check {args.schema}",
            "not-a-schema",
        )
    try:
        cs = eng.compile(schema)
    except SchemaRejected as exc:
        if args.json:
            print_json(out, {"valid": None, "schema_refused": exc.to_dict()})
        else:
            where = f" at {exc.location!r}" if exc.location else ""
            err.write(shown(f"the schema {args.schema!r} is refused ({exc.reason}){where}: {exc.message}\n"))
        return EXIT_REFUSED
    label = label_of(args.instance)
    data = read_bytes(args.instance, "instance", eng.config.limits.max_instance_bytes)
    try:
        cs.decode(data)
    except ValidationFailed as exc:
        if args.json:
            print_json(out, {"valid": False, **exc.to_dict()})
        else:
            count = len(exc.issues)
            out.write(
                f"{label}: invalid, {count} issue{'s' if count != 1 else ''}"
                f"{' (list cut short)' if exc.truncated else ''}\n"
            )
            for issue in exc.issues:  # paths and messages quote the document's keys and values
                where = f"at {issue.instance_path or '(root)'}"
                line = f"  {where}: {issue.message}  [schema {issue.keyword_location or '(root)'}]"
                out.write(shown(line.replace("\n", "\\n")) + "\n")  # one line each, whatever a key holds
        return EXIT_REFUSED
    except DecodeError as exc:
        message = describe_decode_error(label, exc, data)
        if exc.reason in NOT_JSON:  # not JSON at all: the command cannot run (exit 2)
            raise UsageError(message, str(exc.reason)) from None
        # JSON the instance limits refuse (too large, too deep): a refusal, like an invalid instance.
        if args.json:
            # The shape of an invalid instance's, with no issue: it was refused before validation.
            print_json(
                out, {"valid": False, "reason": str(exc.reason), "message": message, "issues": [], "truncated": False}
            )
        else:
            out.write(shown(f"{message}\n"))
        return EXIT_REFUSED
    if args.json:
        print_json(out, {"valid": True, "backend": cs.backend, "dialect": cs.dialect.value})
    else:
        out.write(f"{label}: valid (dialect {cs.dialect.value}, backend {cs.backend})\n")
    return EXIT_OK

"""Writes bench_data/pathological/*.json (run from the repository root: python -m tests.guard.make_catalog).

The catalog is committed; this script documents how each hostile case is built."""

from __future__ import annotations

import json
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "bench_data" / "pathological"


def nested(kind: str, depth: int, leaf: object = None) -> dict:
    return {"generate": kind, "depth": depth, "leaf": leaf}


def gen_object(key: str, value: object, template: dict | None = None) -> dict:
    return {"generate": "object", "template": template or {}, "key": key, "value": value}


def gen_list(length: int, item: object) -> dict:
    return {"generate": "list", "length": length, "item": item}


def bomb(levels: int) -> dict:
    defs = {f"a{i}": {"anyOf": [{"$ref": f"#/$defs/a{i + 1}"}, {"$ref": f"#/$defs/a{i + 1}"}]} for i in range(levels)}
    defs[f"a{levels}"] = {"type": "integer"}
    return {"$defs": defs, "$ref": "#/$defs/a0"}


RECURSIVE_ANYOF = {
    "anyOf": [
        {"type": "array", "items": {"$ref": "#"}},
        {"type": "array", "items": {"$ref": "#"}},
        {"type": "array", "items": {"$ref": "#"}},
        {"type": "integer"},
    ]
}

CASES: dict[str, dict] = {
    # -- references -------------------------------------------------------------------------
    "ref-cloud-metadata": {
        "threat": "fetch",
        "description": "$ref to the cloud metadata endpoint (SSRF): never fetched",
        "schema": {"type": "object", "properties": {"x": {"$ref": "http://169.254.169.254/latest/meta-data/iam"}}},
        "expect": "remote-ref",
    },
    "ref-https-remote": {
        "threat": "fetch",
        "description": "$ref to an https document nobody passed in the registry",
        "schema": {"$ref": "https://schemas.example.net/tool.json#/definitions/args"},
        "expect": "remote-ref",
    },
    "ref-file": {
        "threat": "fetch",
        "description": "$ref to a local file: files are never read",
        "schema": {"$ref": "file:///etc/passwd"},
        "expect": "unresolvable-ref",
    },
    "ref-id-file-base": {
        "threat": "fetch",
        "description": "a file: base URI set by $id, then a relative $ref",
        "schema": {"$id": "file:///etc/", "$ref": "shadow"},
        "expect": "unresolvable-ref",
    },
    "ref-relative-no-base": {
        "threat": "fetch",
        "description": "a relative $ref with no base URI to resolve it against",
        "schema": {"properties": {"a": {"$ref": "other.json"}}},
        "expect": "unresolvable-ref",
    },
    "schema-uri-unknown": {
        "threat": "fetch",
        "description": "$schema naming an unknown meta-schema URL: never looked up",
        "schema": {"$schema": "https://attacker.example/meta", "type": "object"},
        "expect": "unsupported-dialect",
    },
    "ref-self": {
        "threat": "cycle",
        "description": '{"$ref": "#"}: answered valid by one library, RecursionError in others',
        "schema": {"$ref": "#"},
        "expect": "invalid-schema",
    },
    "ref-cycle-two": {
        "threat": "cycle",
        "description": "a -> b -> a through allOf, never descending into the instance",
        "schema": {
            "$defs": {"a": {"allOf": [{"$ref": "#/$defs/b"}]}, "b": {"not": {"not": {"$ref": "#/$defs/a"}}}},
            "$ref": "#/$defs/a",
        },
        "expect": "invalid-schema",
    },
    "ref-cycle-conditional": {
        "threat": "cycle",
        "description": "a loop through if/then/else and dependentSchemas",
        "schema": {
            "$defs": {
                "a": {"if": {"type": "object"}, "then": {"$ref": "#/$defs/b"}, "else": {"$ref": "#/$defs/b"}},
                "b": {"dependentSchemas": {"k": {"$ref": "#/$defs/a"}}},
            },
            "$ref": "#/$defs/a",
        },
        "expect": "invalid-schema",
    },
    "ref-cycle-draft7-definitions": {
        "threat": "cycle",
        "description": "draft 7: a definition that refers to itself",
        "schema": {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "definitions": {"a": {"$ref": "#/definitions/a"}},
            "properties": {"x": {"$ref": "#/definitions/a"}},
        },
        "expect": "invalid-schema",
    },
    "dynamic-ref-loop": {
        "threat": "cycle",
        "description": "$dynamicRef that resolves back to its own schema in place",
        "schema": {"$dynamicAnchor": "node", "anyOf": [{"$dynamicRef": "#node"}, {"type": "null"}]},
        "expect": "invalid-schema",
    },
    "recursive-ref-loop": {
        "threat": "cycle",
        "description": "2019-09 $recursiveRef looping in place",
        "schema": {
            "$schema": "https://json-schema.org/draft/2019-09/schema",
            "$recursiveAnchor": True,
            "allOf": [{"$recursiveRef": "#"}],
        },
        "expect": "invalid-schema",
    },
    # -- cost -------------------------------------------------------------------------------
    "ref-expansion-bomb-30": {
        "threat": "expansion",
        "description": "$defs that double at each of 30 levels: 2^31 subschemas if inlined",
        "schema": bomb(30),
        "expect": "limit-exceeded",
        "limit": "max_ref_expansion",
    },
    "ref-expansion-11": {
        "threat": "expansion",
        "description": "a doubling chain small enough to allow (8190 subschemas inlined): validated within the bound",
        "schema": bomb(11),
        "expect": "compiles",
        "payloads": [
            {"name": "integer", "instance": 7, "expect": "valid"},
            {"name": "string", "instance": "x", "expect": "invalid"},
        ],
    },
    "recursive-anyof-explain": {
        "threat": "explanation",
        "description": "150-byte recursive anyOf: each error explains 3^depth branches (>20 s at depth 20 raw)",
        "schema": RECURSIVE_ANYOF,
        "expect": "compiles",
        "payloads": [
            {
                # Explained piece by piece: the one top-level issue (no branch of anyOf fits), whole.
                "name": "depth-20-invalid",
                "instance": nested("nested-array", 20, "x"),
                "expect": "invalid",
                "truncated": False,
            },
            {
                "name": "depth-5-invalid",
                "instance": nested("nested-array", 5, "x"),
                "expect": "invalid",
                "truncated": False,
            },
            {"name": "depth-20-valid", "instance": nested("nested-array", 20, 1), "expect": "valid"},
        ],
    },
    "deep-instance-recursive": {
        "threat": "deep-instance",
        "description": "recursive schema, 100000-deep instance: segfaults jsonschema-rs raw",
        "schema": {"items": {"$ref": "#"}},
        "expect": "compiles",
        "payloads": [
            {"name": "object-100000", "instance": nested("nested-array", 100000, 1), "expect": "too-deep"},
            {
                "name": "bytes-100000",
                "text": {"generate": "string", "char": "[", "length": 100000},
                "expect": "too-deep",
            },
            {"name": "object-200", "instance": nested("nested-array", 200, 1), "expect": "valid"},
        ],
    },
    "deep-instance-recursive-object": {
        "threat": "deep-instance",
        "description": "recursive object schema through additionalProperties, 30000-deep instance",
        "schema": {"type": "object", "additionalProperties": {"$ref": "#"}},
        "expect": "compiles",
        "payloads": [
            {"name": "object-30000", "instance": nested("nested-object", 30000, {}), "expect": "too-deep"},
            {"name": "object-100", "instance": nested("nested-object", 100, {}), "expect": "valid"},
        ],
    },
    "deep-instance-ref-chain": {
        "threat": "deep-instance",
        "description": "no recursion, but 4000 $defs each descending into the next: a 4000-deep instance "
        "overflows a 1 MiB native stack raw",
        "schema": {
            "$defs": {
                **{
                    f"d{i}": {"type": "object", "properties": {"x": {"$ref": f"#/$defs/d{i + 1}"}}} for i in range(4000)
                },
                "d4000": {"type": "string"},
            },
            "$ref": "#/$defs/d0",
        },
        "expect": "compiles",
        "payloads": [
            {
                "name": "object-4000",
                "instance": {"generate": "nested-object", "depth": 4000, "key": "x", "leaf": 1},
                "expect": "too-deep",
            },
            {
                "name": "object-100",
                "instance": {"generate": "nested-object", "depth": 100, "key": "x", "leaf": 1},
                "expect": "invalid",
            },
            {
                "name": "object-10",
                "instance": {"generate": "nested-object", "depth": 10, "key": "x", "leaf": {}},
                "expect": "valid",
            },
        ],
    },
    "deep-instance-flat-schema": {
        "threat": "deep-instance",
        "description": (
            "non-recursive schema, 100000-deep instance object: too-deep, as its bytes are, found by a walk "
            "that stops at the depth bound"
        ),
        "schema": {"type": "array", "items": {"type": "array"}},
        "expect": "compiles",
        "payloads": [{"name": "object-100000", "instance": nested("nested-array", 100000, 1), "expect": "too-deep"}],
    },
    "regex-nested-quantifier": {
        "threat": "regex",
        "description": "^(a+)+$ on 30 a's and a '!': seconds in Python re, linear here",
        "schema": {"type": "string", "pattern": "^(a+)+$"},
        "expect": "compiles",
        "payloads": [
            {
                "name": "redos-30",
                "instance": {"generate": "string", "char": "a", "length": 30, "suffix": "!"},
                "expect": "invalid",
            },
            {
                "name": "redos-100000",
                "instance": {"generate": "string", "char": "a", "length": 100000, "suffix": "!"},
                "expect": "invalid",
            },
            {"name": "match", "instance": "aaaa", "expect": "valid"},
        ],
    },
    "regex-pattern-properties-redos": {
        "threat": "regex",
        "description": "a catastrophic pattern as a patternProperties key",
        "schema": {"type": "object", "patternProperties": {"^(x|x)*y$": {"type": "integer"}}},
        "expect": "compiles",
        "payloads": [
            {
                "name": "long-key",
                "instance": {"generate": "object", "template": {}, "key": "x" * 40, "value": "s"},
                "expect": "valid",
            },
        ],
    },
    "regex-lookahead": {
        "threat": "regex",
        "description": "a lookahead needs a backtracking engine: refused in linear mode",
        "schema": {"type": "string", "pattern": "^(?=(a+)+b)"},
        "expect": "unsafe-pattern",
    },
    "regex-backreference": {
        "threat": "regex",
        "description": "a backreference needs a backtracking engine: refused in linear mode",
        "schema": {"type": "object", "patternProperties": {"^(a*)*\\1$": {}}},
        "expect": "unsafe-pattern",
    },
    "regex-lookahead-bounded": {
        "threat": "regex",
        "description": "the same lookahead with regex=backtracking: allowed, bounded by backtrack_limit",
        "schema": {"type": "string", "pattern": "^(?=(a+)+b)"},
        "config": {"regex": "backtracking"},
        "expect": "compiles",
        "payloads": [
            {
                "name": "redos-30",
                "instance": {"generate": "string", "char": "a", "length": 30, "suffix": "!"},
                "expect": "invalid",
            },
        ],
    },
    # -- the budget -------------------------------------------------------------------------
    "schema-too-large": {
        "threat": "budget",
        "description": "a 2 MB description: over max_schema_bytes",
        "schema": {
            "generate": "object",
            "template": {"type": "object"},
            "key": "description",
            "value": {"generate": "string", "char": "x", "length": 2_000_000},
        },
        "expect": "limit-exceeded",
        "limit": "max_schema_bytes",
    },
    "schema-deep-not": {
        "threat": "budget",
        "description": "100 nested 'not': over max_schema_depth",
        "schema": {"generate": "nested-object", "depth": 100, "key": "not", "leaf": {}},
        "expect": "limit-exceeded",
        "limit": "max_schema_depth",
    },
    "document-deep-const": {
        "threat": "budget",
        "description": "a const nesting 1000 arrays: over max_document_depth",
        "schema": {"generate": "object", "template": {}, "key": "const", "value": nested("nested-array", 1000, 1)},
        "expect": "limit-exceeded",
        "limit": "max_document_depth",
    },
    "many-subschemas": {
        "threat": "budget",
        "description": "150 x 150 allOf branches: over max_subschemas",
        "schema": gen_object("allOf", gen_list(150, gen_object("allOf", gen_list(150, {"type": "integer"})))),
        "expect": "limit-exceeded",
        "limit": "max_subschemas",
    },
    "wide-anyof": {
        "threat": "budget",
        "description": "anyOf with 1000 branches: over max_branches",
        "schema": gen_object("anyOf", gen_list(1000, {"type": "integer"})),
        "expect": "limit-exceeded",
        "limit": "max_branches",
    },
    "many-properties": {
        "threat": "budget",
        "description": "5000 properties in one object: over max_properties",
        "schema": gen_object(
            "properties",
            {"generate": "keyed", "prefix": "p", "length": 5000, "item": {"type": "integer"}},
            {"type": "object"},
        ),
        "expect": "limit-exceeded",
        "limit": "max_properties",
    },
    "huge-enum": {
        "threat": "budget",
        "description": "an enum of 20000 values: over max_enum",
        "schema": gen_object("enum", {"generate": "range", "length": 20000}),
        "expect": "limit-exceeded",
        "limit": "max_enum",
    },
    "long-pattern": {
        "threat": "budget",
        "description": "a 5000-character pattern: over max_pattern_length",
        "schema": {"type": "string", "pattern": "(a|b)" * 1000},
        "expect": "limit-exceeded",
        "limit": "max_pattern_length",
    },
    "ref-chain": {
        "threat": "budget",
        "description": "a chain of 200 $refs applied in place: over max_eval_depth (native stack depth)",
        "schema": {
            "$defs": {**{f"d{i}": {"$ref": f"#/$defs/d{i + 1}"} for i in range(200)}, "d200": {"type": "string"}},
            "$ref": "#/$defs/d0",
        },
        "expect": "limit-exceeded",
        "limit": "max_eval_depth",
    },
    "unevaluated-nesting": {
        "threat": "budget",
        "description": "unevaluatedProperties nested 12 deep over allOf: over max_unevaluated_nesting",
        "schema": {"generate": "nested-object", "depth": 12, "key": "allOf", "leaf": {"unevaluatedProperties": False}},
        "expect": "compiles",
    },
    # -- payload bytes ----------------------------------------------------------------------
    "payload-bytes": {
        "threat": "payload",
        "description": "hostile payload bytes: NaN, Infinity, 1e400, invalid UTF-8, malformed",
        "schema": {"type": "array", "items": {"type": "number"}},
        "expect": "compiles",
        "payloads": [
            {"name": "nan", "text": "[NaN]", "expect": "non-finite-number"},
            {"name": "infinity", "text": "[1, -Infinity]", "expect": "non-finite-number"},
            {"name": "huge-number", "text": "[1e400]", "expect": "number-out-of-range"},
            {"name": "bad-utf8", "hex": "5b22ff225d", "expect": "invalid-utf8"},
            {"name": "malformed", "text": "[1,", "expect": "malformed-json"},
            {"name": "deep-bytes", "json_of": nested("nested-array", 300, 1), "expect": "too-deep"},
            {"name": "ok", "text": "[1, 2.5]", "expect": "valid"},
        ],
    },
}


# -- opt-in fetch: addresses that are not globally routable, refused before any connection -------
# The host is an address literal (no DNS), allowed by name, with every opt-in on: only the address
# check stands between the schema and the connection.


def fetch_to(address: str, description: str) -> dict:
    return {
        "threat": "fetch",
        "description": description,
        "schema": {"type": "object", "properties": {"x": {"$ref": f"http://[{address}]/s.json"}}},
        "config": {
            "fetch": {
                "enabled": True,
                "allow_hosts": [address],
                "allow_http": True,
                "allow_private": True,
                "allow_loopback": True,
                "total_timeout": 1.0,
            }
        },
        "expect": "remote-ref",
    }


CASES["fetch-6to4-loopback"] = fetch_to(
    "2002:7f00:1::1", "fetch mode on, every opt-in on: a 6to4 address embedding 127.0.0.1 is refused"
)
CASES["fetch-6to4-metadata"] = fetch_to(
    "2002:a9fe:a9fe::1", "fetch mode on: a 6to4 address embedding 169.254.169.254 (cloud metadata) is refused"
)
CASES["fetch-nat64-private"] = fetch_to(
    "64:ff9b::a00:1", "fetch mode on, allow_private on: NAT64 of 10.0.0.1 is refused (private means RFC 1918 only)"
)
CASES["fetch-site-local"] = fetch_to("fec0::1", "fetch mode on, every opt-in on: site-local fec0::/10 is refused")

# -- one Python object shared by two resources with different base URIs ---------------------------
# {"$ref": "leaf"} resolves to minimum 0 under http://a.example/ and to maximum 3 under
# http://b.example/: a backend that compiles the shared object once answers "b": 5 valid.


def based(base: str, leaf: dict) -> dict:
    return {"$id": base, "$defs": {"s": {"generate": "use"}, "leaf": {"$id": "leaf", **leaf}}}


CASES["shared-object-two-bases"] = {
    "threat": "shared-object",
    "description": "one dict shared by two $id resources: each use must resolve against its own base URI",
    "schema": {
        "generate": "shared",
        "value": {"$ref": "leaf"},
        "template": {
            "$defs": {
                "A": based("http://a.example/", {"minimum": 0}),
                "B": based("http://b.example/", {"maximum": 3}),
            },
            "properties": {"a": {"$ref": "http://a.example/#/$defs/s"}, "b": {"$ref": "http://b.example/#/$defs/s"}},
        },
    },
    "expect": "compiles",
    "payloads": [
        {"name": "b-over-3", "instance": {"a": 1, "b": 5}, "expect": "invalid"},
        {"name": "a-negative", "instance": {"a": -1, "b": 2}, "expect": "invalid"},
        {"name": "both-in-range", "instance": {"a": 1, "b": 2}, "expect": "valid"},
        {"name": "b-over-3-bytes", "json_of": {"a": 1, "b": 5}, "expect": "invalid"},
    ],
}


def shared_under_two_bases(hostile_leaf: dict, description: str, expect: str, limit: str | None = None) -> dict:
    """The shared {"$ref": "leaf"} with a hostile leaf at its first place (the one an identity
    lookup finds) and a benign one at the second."""
    case = {
        "threat": "shared-object",
        "description": description,
        "schema": {
            "generate": "shared",
            "value": {"$ref": "leaf"},
            "template": {
                "$defs": {
                    "A": {"$id": "http://a.example/", "$defs": {"s": {"generate": "use"}, "leaf": hostile_leaf}},
                    "B": based("http://b.example/", {"minimum": 0}),
                },
                "properties": {
                    "a": {"$ref": "http://a.example/#/$defs/s"},
                    "b": {"$ref": "http://b.example/#/$defs/s"},
                },
            },
        },
        "expect": expect,
    }
    if limit:
        case["limit"] = limit
    return case


CASES["shared-object-hidden-cycle"] = shared_under_two_bases(
    {"$id": "leaf", "$ref": "http://a.example/#/$defs/s"},
    "a shared dict whose first place closes a $ref cycle that never descends: seen at that place",
    "invalid-schema",
)
CASES["shared-object-hidden-expansion"] = shared_under_two_bases(
    {"$id": "leaf", **bomb(30)},
    "a shared dict whose first place leads to a 2^30 anyOf expansion: counted at that place",
    "limit-exceeded",
    "max_ref_expansion",
)

CASES["duplicate-id-hidden-expansion"] = {
    "threat": "shared-object",
    "description": "two resources declare one $id, a 2^30 anyOf expansion and a benign one (which the "
    "walk meets first): the guard would analyse one and a backend evaluate the other, so it is refused",
    "schema": {
        "$defs": {
            "a": {"$id": "http://x.example/", **bomb(30)},
            "b": {"$id": "http://x.example/", "$defs": {f"a{i}": {"minimum": 0} for i in range(31)}},
        },
        "properties": {"p": {"$ref": "http://x.example/#/$defs/a0"}},
    },
    "expect": "invalid-schema",
}


def unevaluated_nesting(depth: int) -> dict:
    schema: dict = {"unevaluatedProperties": False}
    for _ in range(depth):
        schema = {"allOf": [schema], "unevaluatedProperties": False}
    return schema


CASES["unevaluated-nesting"]["schema"] = unevaluated_nesting(12)
CASES["unevaluated-nesting"]["expect"] = "limit-exceeded"
CASES["unevaluated-nesting"]["limit"] = "max_unevaluated_nesting"


def combinator_tower(levels: int, combinator: str) -> dict:
    defs: dict = {"l0": {"type": "string", "maxLength": 1}}
    for i in range(1, levels):
        defs[f"l{i}"] = {combinator: [{"$ref": f"#/$defs/l{i - 1}"}, {"$ref": f"#/$defs/l{i - 1}"}]}
    return {"$defs": defs, "type": "array", "items": {"$ref": f"#/$defs/l{levels - 1}"}}


def run_patterns(count: int, runs: int) -> dict:
    """An object schema of ``count`` properties, each with its own pattern of ``runs`` distinct
    unbounded runs: the shape whose safety check once compared every run with every earlier one."""
    patterns = {"generate": "run-patterns", "prefix": "p", "length": count, "runs": runs}
    return gen_object("properties", patterns, {"type": "object"})


# Explanation, pattern-check cost and pattern-semantics cases (one file each).
CASES.update(
    {
        f"explain-{combinator.lower()}-tower": {
            "threat": "explanation",
            "description": (
                f"813-byte schema: 11 levels of $defs, each an {combinator} of two $refs to the level below, "
                "through items; 1,000 short strings. Explained whole, every item builds 1,024 nested "
                "errors (5-10 s and 0.4-0.7 GiB at 100 items raw; no answer at 1,000)"
            ),
            "schema": combinator_tower(11, combinator),
            "expect": "compiles",
            # python-jsonschema, forced, answers "anyOf" alone for about a second (it gathers
            # every branch's errors), so the bound leaves room on a busy machine.
            "bound_seconds": 4.0,
            "payloads": [
                {
                    "name": "1000-strings",
                    "instance": gen_list(1000, "ab"),
                    "expect": "invalid",
                    "truncated": True,
                    # Weighed at fastjsonschema's rate where the tower branches: 1,000 items of 2,047
                    # subschemas each, some 400 times what jsonschema-rs spends on one.
                    **({"at_rate": "too-large"} if combinator == "anyOf" else {}),
                },
                # Valid items are evaluated against all 2,047 inlined subschemas each: a few suffice.
                {"name": "3-chars", "instance": gen_list(3, "a"), "expect": "valid"},
            ],
        }
        for combinator in ("allOf", "anyOf")
    }
)
for label, count, bound in (("3k", 1, 1.0), ("122k", 40, 5.0), ("608k", 200, 20.0)):
    CASES[f"regex-check-linear-{label}"] = {
        "threat": "regex",
        "description": (
            f"{count} pattern(s) of 1,000 distinct runs each ({label}B of schema): the pattern check once "
            "compared every run with every earlier one (9 s for 122 KB, 44 s for 608 KB under auto); "
            "compile time must grow linearly up to the size limit"
            + (
                ""
                if count == 1
                else f", and {count} such patterns take {count},000 steps written out in all, over the "
                "10,000 a schema's patterns may take (each an automaton the regex engine builds): refused"
            )
        ),
        "schema": run_patterns(count, 1000),
        "expect": "compiles" if count == 1 else "unsafe-pattern",
        "bound_seconds": bound,
        **(
            {
                "payloads": [
                    {"name": "empty", "instance": {}, "expect": "valid"},
                    {"name": "mismatch", "instance": {"p0": "x"}, "expect": "invalid", "truncated": False},
                ]
            }
            if count == 1
            else {}
        ),
    }
CASES["regex-word-boundary-unicode"] = {
    "threat": "regex",
    "description": (
        "^\\bé against \"é\": ECMA-262's word boundary is ASCII-only (no match); jsonschema-rs's is "
        "Unicode (a match), so the general backend refuses the pattern rather than answer wrongly"
    ),
    "schema": {"type": "string", "pattern": "^\\bé"},
    "expect": "unsupported-by-backend",
}
CASES["regex-ecma-only-syntax"] = {
    "threat": "regex",
    "description": (
        "ECMA-only spellings (\\u{41}, a named group (?<n>...)): fastjsonschema compiles patterns with "
        "Python re while generating code, and re.error escaped raw (the catalog runs it on every backend)"
    ),
    "schema": {
        "type": "object",
        "properties": {"q": {"type": "string", "pattern": "^\\u{41}(?<n>a)$"}},
        "patternProperties": {"^\\u{42}": {"type": "integer"}},
    },
    "expect": "compiles",
    "payloads": [
        {"name": "match", "instance": {"q": "Aa", "B": 1}, "expect": "valid"},
        {"name": "mismatch", "instance": {"q": "AA"}, "expect": "invalid", "truncated": False},
        {"name": "pattern-property", "instance": {"Bx": "1"}, "expect": "invalid", "truncated": False},
    ],
}


def long_string(length: int) -> dict:
    return {"generate": "string", "char": "a", "length": length}


def tower(width: int, height: int, keyword: str, template: dict | None = None) -> dict:
    """``template`` with an allOf of ``width`` allOf s of ``height`` leaves (``minimum`` or ``pattern``),
    all applied to the value it meets."""
    return {"generate": "tower", "width": width, "height": height, "keyword": keyword, "template": template or {}}


CASES["validation-work-items"] = {
    "threat": "work",
    "description": (
        "17 KB schema, within every limit: an allOf of 40 allOf s of 25 minimums (1,000) applied to each "
        "item of an array; checking 200,000 items took jsonschema-rs 1.6 s (a 64 MiB array: some 4 minutes): "
        "weighed first, it is refused over max_validation_work"
    ),
    "schema": gen_object("items", tower(40, 25, "minimum"), {"type": "array"}),
    "expect": "compiles",
    "payloads": [
        {"name": "200000-items", "instance": gen_list(200_000, 100), "expect": "too-large"},
        {"name": "200000-items-bytes", "json_of": gen_list(200_000, 100), "expect": "too-large"},
        {"name": "3-items", "instance": gen_list(3, 100), "expect": "valid"},
    ],
}
CASES["validation-work-patterns"] = {
    "threat": "work",
    "description": (
        "750 patterns (30 allOf s of 25) applied to one string: each reads all of it, and a million "
        "characters took jsonschema-rs 1.3 s (a 64 MiB string: some 90 s): refused over "
        "max_validation_work"
    ),
    "schema": tower(30, 25, "pattern", {"type": "string"}),
    "expect": "compiles",
    "payloads": [
        {"name": "1000000-chars", "instance": long_string(1_000_000), "expect": "too-large"},
        {"name": "100-chars", "instance": long_string(100), "expect": "valid"},
    ],
}

CASES["validation-work-float-enum"] = {
    "threat": "work",
    "description": (
        "an enum of 2,000 floats applied to each item of an array (42 KB of schema): jsonschema-rs "
        "compares a number with each member in turn, 1-2 us each, and 1,000 items took 2.8 s "
        "(10,000 floats and 10,000 items: 286 s); weighed by its members, it is refused over "
        "max_validation_work"
    ),
    "schema": gen_object("items", gen_object("enum", {"generate": "halves", "length": 2000}), {"type": "array"}),
    "expect": "compiles",
    "payloads": [
        {"name": "1000-items", "instance": gen_list(1000, 1999.5), "expect": "too-large"},
        {"name": "3-items", "instance": gen_list(3, 1999.5), "expect": "valid"},
    ],
}


def nested_scopes(levels: int) -> dict:
    """``levels`` unevaluatedProperties scopes, each over the one inside and one property of its own."""
    schema: dict = {"patternProperties": {"^k": True}}
    for level in range(levels):
        schema = {"anyOf": [schema, {"properties": {f"q{level}": True}}], "unevaluatedProperties": False}
    return schema


CASES["validation-work-scopes"] = {
    "threat": "work",
    "description": (
        "635 bytes of schema, within every limit: eight unevaluatedProperties scopes nested in one "
        "another (17 subschemas). Each scope evaluates the ones inside it again to learn what they "
        "evaluated, some 2.5 times a level: 30,000 keys took jsonschema-rs 2.4 s (100,000: 7 s); "
        "weighed with what each scope evaluates again, it is refused over max_validation_work"
    ),
    "schema": nested_scopes(8),
    "expect": "compiles",
    "payloads": [
        {
            "name": "30000-keys",
            "instance": {"generate": "keyed", "prefix": "k", "length": 30_000, "item": 1},
            "expect": "too-large",
        },
        {"name": "3-keys", "instance": {"k0": 1, "k1": 2, "k2": 3}, "expect": "valid"},
        {"name": "unevaluated", "instance": {"k0": 1, "x": 2}, "expect": "invalid"},
    ],
}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, case in CASES.items():
        (OUT / f"{name}.json").write_text(json.dumps(case, indent=1) + "\n")


if __name__ == "__main__":
    main()

"""One URI spelled two ways is one resource to the guard, as it is to jsonschema-rs.

jsonschema-rs reads URIs in their RFC 3986 normal form (scheme and host in lower case, a default
or empty port dropped, percent-encoded unreserved characters decoded, dot segments removed). The
guard read them as spelled: ``HTTPS://EX.COM/a`` beside ``https://ex.com/a`` (two embedded
``$id``s, or two registry keys) was two resources to the guard, which measured one, and one to
the backend, which evaluated the other: a 2 KB schema of doubling references compiled, then
took seconds per check and aborted the process when explained."""

from __future__ import annotations

from typing import Any

import jsonschema_rs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine._guard.uris import join_uri, normal_uri

SPELLINGS = [
    "HTTPS://ex.com/a",
    "https://EX.COM/a",
    "https://ex.com:443/a",
    "https://ex.com:0443/a",
    "https://ex.com:/a",
    "https://ex.com/./a",
    "https://ex.com/b/../a",
    "https://ex.com/%61",
    "https://ex.com/a#",
]


def _doubling(levels: int) -> dict[str, Any]:
    """Refused alone (``max_ref_expansion``): each level refers to the one below twice."""
    defs: dict[str, Any] = {"d0": {"type": "integer"}}
    for k in range(1, levels + 1):
        defs[f"d{k}"] = {"allOf": [{"$ref": f"#/$defs/d{k - 1}"}, {"$ref": f"#/$defs/d{k - 1}"}]}
    return {"$defs": defs, "$ref": f"#/$defs/d{levels}"}


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_two_embedded_identifiers_of_one_uri_are_a_collision(spelling: str) -> None:
    schema = {
        "$defs": {
            "a": {"$id": "https://ex.com/a", "type": "integer"},
            "b": {"$id": spelling, **_doubling(28)},
        },
        "$ref": "https://ex.com/a",
    }
    with pytest.raises(engine.SchemaRejected) as caught:
        engine.compile(schema)
    assert caught.value.reason == engine.RejectReason.INVALID_SCHEMA
    assert "two different schemas declare" in caught.value.message


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_two_registry_entries_of_one_uri_are_refused(spelling: str) -> None:
    for hostile in (_doubling(28), {"$ref": "#"}, {"enum": list(range(20_000))}):
        registry = {"https://ex.com/a": {"type": "integer"}, spelling: hostile}
        with pytest.raises(engine.SchemaRejected) as caught:
            engine.compile({"$ref": "https://ex.com/a"}, registry=registry)
        assert caught.value.reason == engine.RejectReason.INVALID_SCHEMA
        assert "one URI spelled two ways" in caught.value.message or "two different schemas" in caught.value.message


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_a_reference_spelled_otherwise_reaches_the_resource_the_guard_measured(spelling: str) -> None:
    # Alone, the hostile resource is measured wherever the reference spells it.
    with pytest.raises(engine.SchemaRejected) as caught:
        engine.compile({"$ref": spelling}, registry={"https://ex.com/a": _doubling(28)})
    assert caught.value.reason == engine.RejectReason.LIMIT_EXCEEDED
    compiled = engine.compile({"$ref": spelling}, registry={"https://ex.com/a": {"type": "integer"}})
    assert compiled.is_valid(1) and not compiled.is_valid("x")


def test_equal_schemas_under_two_spellings_are_one_resource() -> None:
    registry = {"https://ex.com/a": {"type": "integer"}, "HTTPS://EX.COM/a": {"type": "integer"}}
    compiled = engine.compile({"$ref": "https://ex.com/a"}, registry=registry)
    assert compiled.is_valid(1) and not compiled.is_valid("x")


def _deny(uri: str) -> Any:
    raise LookupError(uri)


def _rs_reads_as_one(key: str, reference: str) -> bool:
    try:
        validator = jsonschema_rs.validator_for(
            {"$ref": reference},
            registry=jsonschema_rs.Registry([(key, {"type": "integer"})], retriever=_deny),
            offline=True,
        )
    except (jsonschema_rs.ValidationError, jsonschema_rs.ReferencingError, ValueError):
        return False
    return validator.is_valid(1) and not validator.is_valid("x")


def _percent(text: str, which: list[bool], upper: bool) -> str:
    return "".join(
        (f"%{ord(c):02X}" if upper else f"%{ord(c):02x}") if flip and c.isalnum() else c
        for c, flip in zip(text, which + [False] * len(text), strict=False)
    )


_SPELLING = st.builds(
    lambda scheme, host, port, segments, dots, hex_flips, upper, query, fragment: (
        f"{scheme}://{host}{port}/"
        + "/".join(dots + [_percent(s, hex_flips, upper) for s in segments])
        + query
        + fragment
    ),
    st.sampled_from(["https", "HTTPS", "Https", "http"]),
    st.sampled_from(["ex.com", "EX.com", "Ex.Com"]),
    st.sampled_from(["", ":", ":443", ":0443", ":80", ":8443"]),
    st.lists(st.sampled_from(["a", "B", "c~", "d-e", "f_g"]), min_size=1, max_size=3),
    st.lists(st.sampled_from([".", "x/..", "y/z/../.."]), max_size=2),
    st.lists(st.booleans(), max_size=6),
    st.booleans(),
    st.sampled_from(["", "?", "?q=a", "?q=%61"]),
    st.sampled_from(["", "#"]),
)


@settings(max_examples=400, deadline=None)
@given(_SPELLING, _SPELLING)
def test_spellings_jsonschema_rs_reads_as_one_are_one_here(key: str, reference: str) -> None:
    if _rs_reads_as_one(key, reference):
        assert normal_uri(key.partition("#")[0]) == normal_uri(reference.partition("#")[0])


@pytest.mark.parametrize(
    ("declared", "spelled"),
    [
        ("https://[::1]/a", "https://[0:0:0:0:0:0:0:1]/a"),
        ("https://[::ffff:102:304]/a", "https://[::FFFF:1.2.3.4]/a"),
        ("http://127.0.0.1/a", "http://0x7f.1/a"),
        ("http://127.0.0.1/a", "http://2130706433/a"),
    ],
)
def test_addresses_spelled_two_ways_are_one_host(declared: str, spelled: str) -> None:
    assert normal_uri(declared) == normal_uri(spelled)
    registry = {declared: {"type": "integer"}, spelled: _doubling(28)}
    with pytest.raises(engine.SchemaRejected) as caught:
        engine.compile({"$ref": declared}, registry=registry)
    assert caught.value.reason == engine.RejectReason.INVALID_SCHEMA


@pytest.mark.parametrize("base", [None, "foo://h/a/b", "json-schema:///x/y"])
def test_a_relative_identifier_resolves_against_any_scheme(base: str | None) -> None:
    # `urljoin` resolved only the schemes it lists: `c` under `json-schema:///` (the base of a
    # schema without `$id`) stayed `c`, beside an absolute `json-schema:///c` the backend ran.
    absolute = "json-schema:///c" if base is None else base.rsplit("/", 1)[0] + "/c"
    schema: dict[str, Any] = {
        "$ref": "c",
        "$defs": {"x": {"$id": "c", "type": "integer"}, "y": {**_doubling(28), "$id": absolute}},
    }
    if base is not None:
        schema["$id"] = base
    with pytest.raises(engine.SchemaRejected) as caught:
        engine.compile(schema)
    assert caught.value.reason == engine.RejectReason.INVALID_SCHEMA


_BASES = ["json-schema:///", "http://h/a/b", "https://h/a/b/", "foo://h/a/b", "foo:/a/b", "file:///a/b", "http://h"]
_REFERENCES = st.lists(st.sampled_from(["c", ".", "..", "d;x", "%63", ""]), min_size=1, max_size=4).map("/".join)
_QUERIES = st.sampled_from(["", "?q", "?"])


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(_BASES), st.sampled_from(["", "/", "//g/"]), _REFERENCES, _QUERIES)
def test_references_resolve_as_jsonschema_rs_resolves_them(base: str, lead: str, path: str, query: str) -> None:
    reference = lead + path + query
    if not reference or reference in (".", "..") or reference.startswith(("./", "../")) and not path.strip("./"):
        return  # the base itself: one `$id` for two resources
    target = normal_uri(join_uri(base, reference).partition("#")[0])
    if target == normal_uri(base):
        return
    schema = {"$id": base, "$ref": reference, "$defs": {"t": {"$id": target, "type": "integer"}}}
    try:
        validator = jsonschema_rs.validator_for(schema, retriever=_deny)
    except (jsonschema_rs.ValidationError, jsonschema_rs.ReferencingError, ValueError) as exc:
        pytest.fail(f"jsonschema-rs resolves {reference!r} against {base!r} elsewhere than {target!r}: {exc}")
    assert validator.is_valid(1) and not validator.is_valid("x"), (base, reference, target)


@pytest.mark.parametrize(
    ("declared", "spelled"),
    [
        ("http://ha/a", "http://H%41/a"),  # a host decoded, then folded
        ("json-schema:///a.json", "a.json"),  # a relative key, read against the default base
    ],
)
def test_registry_keys_spelled_two_ways_are_one_uri(declared: str, spelled: str) -> None:
    with pytest.raises(engine.SchemaRejected) as caught:
        engine.compile({"$ref": declared}, registry={declared: {"type": "string"}, spelled: _doubling(28)})
    assert caught.value.reason == engine.RejectReason.INVALID_SCHEMA
    alone = engine.compile({"$ref": declared}, registry={spelled: {"type": "integer"}})
    assert alone.is_valid(1) and not alone.is_valid("x")

"""Static ``$ref`` analysis: every reference resolved without inlining anything.

A reference resolves inside the schema document (JSON pointers, ``$anchor``, embedded ``$id``
resources) or against a resource the caller passed explicitly; in opt-in fetch mode a network
resource may also be fetched here, at compile time, through :mod:`engine._guard.fetch`. Anything
else is refused: ``remote-ref`` for a network URI, ``unresolvable-ref`` otherwise. Nothing is ever
read from a file, and an unknown ``$schema`` URI is never looked up.

``$dynamicRef`` and ``$recursiveRef`` are resolved to every schema they may reach at validation
time (an over-approximation), so that cycles and costs through them are seen too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import Any, Protocol
from urllib.parse import unquote, urlsplit

import msgspec

from .._config import Limits
from .._dialect import Dialect, dialect_for_uri
from .._errors import RejectReason, SchemaRejected
from .._intake import measure_document
from .._pointer import escape, unescape
from .uris import join_uri, split_uri
from .walk import DEFAULT_BASE, Graph

__all__ = ["Fetcher", "resolve_refs"]

Retrieve = Callable[[str], Any]
"""Returns the document at a network URI, or raises :class:`SchemaRejected`."""


class Fetcher(Protocol):
    """Opt-in retrieval (:class:`engine._guard.fetch.Fetcher`)."""

    def begin(self) -> Retrieve:
        """Retrieval for one compile: every fetch it makes shares one deadline."""
        ...


_NETWORK = ("http", "https")


def _scheme(uri: str) -> str:
    return uri.split(":", 1)[0].lower() if ":" in uri else ""


def resolve_refs(
    graph: Graph,
    resources: Mapping[str, Any],
    dialect: Dialect,
    fetch: Fetcher | None = None,
    fetched: dict[str, Any] | None = None,
    limits: Limits | None = None,
) -> None:
    """Add an in-place edge from every referring node to every node it may reach.

    ``resources`` is the caller's registry; ``fetched`` collects what ``fetch`` retrieved (it
    becomes part of the resources handed to the backends), each fetched document held to the
    document ``limits`` the schema itself is held to at intake.
    """
    registry = _by_normal_uri(resources)
    retrieve = fetch.begin() if fetch is not None else None
    places = _Places(graph)
    later_dynamic: list[tuple[int, str]] = []
    later_recursive: list[int] = []
    done = 0
    # Loading a registry document may record more references: loop until none is left.
    while done < len(graph.refs):
        node, keyword, base, ref = graph.refs[done]
        done += 1
        resource, fragment = graph.locate(base, ref)
        found = _lookup(graph, places, resource, fragment, registry, dialect, retrieve, fetched, limits)
        if found is None:
            raise _refusal(graph, node, keyword, join_uri(base, ref), resource, registry)
        graph.in_place.setdefault(node, []).append(found)
        target_obj = graph.obj[found]
        if not isinstance(target_obj, Mapping):
            continue
        if keyword == "$dynamicRef" and fragment and target_obj.get("$dynamicAnchor") == fragment:
            graph.in_place[node].pop()  # the hub below includes the static target
            later_dynamic.append((node, fragment))
        elif keyword == "$recursiveRef" and target_obj.get("$recursiveAnchor") is True:
            graph.in_place[node].pop()
            later_recursive.append(node)
    _check_unambiguous(graph, registry)
    # Every anchor is known only now: a dynamic reference may reach any of its namesakes.
    # One hub per anchor name links to every namesake, so the edges stay linear in the schema's size.
    hubs: dict[str | None, int] = {}
    for node, name in later_dynamic:
        if name not in hubs:
            hubs[name] = graph.add_hub(graph.dynamic_anchors.get(name, []))
        graph.in_place.setdefault(node, []).append(hubs[name])
    for node in later_recursive:
        if None not in hubs:
            hubs[None] = graph.add_hub(graph.recursive_anchors)
        graph.in_place.setdefault(node, []).append(hubs[None])


@cache
def _bundled() -> dict[str, Any]:
    """The published meta-schemas (drafts 4 to 2020-12, with vocabularies), which the backends
    carry with them: a ``$ref`` to one is resolved locally, never fetched."""
    import jsonschema_specifications

    registry = jsonschema_specifications.REGISTRY
    return {uri: registry.contents(uri) for uri in registry if "draft-03" not in uri}


def _by_normal_uri(resources: Mapping[str, Any]) -> dict[str, Any]:
    """The registry by the normal form of its URIs (an empty fragment dropped), as the backend
    reads it. Two spellings of one URI holding different schemas are refused: the backend takes
    one (the last), and the guard would read the other."""
    registry: dict[str, Any] = {}
    spelled: dict[str, str] = {}
    for uri, document in resources.items():
        # A relative key is read against the base of a schema without `$id`, as jsonschema-rs reads it.
        resource, fragment = split_uri(join_uri(DEFAULT_BASE, uri))
        key = resource if not fragment else f"{resource}#{fragment}"
        first = spelled.setdefault(key, uri)
        if first != uri and not _same(registry[key], document):
            raise SchemaRejected(
                RejectReason.INVALID_SCHEMA,
                f"the registry holds two different schemas under {first!r} and {uri!r}, which are one URI "
                "spelled two ways: a reference to it would be ambiguous",
                location="",
                details={"uri": key, "spellings": [first, uri]},
            )
        registry[key] = document
    return registry


def _lookup(
    graph: Graph,
    places: _Places,
    resource: str,
    fragment: str,
    registry: Mapping[str, Any],
    dialect: Dialect,
    fetch: Retrieve | None,
    fetched: dict[str, Any] | None,
    limits: Limits | None = None,
) -> int | None:
    root = graph.resources.get(resource)
    if root is None:
        document = registry.get(resource)
        if document is None:
            document = _bundled().get(resource)
        if document is None and fetch is not None and _scheme(resource) in _NETWORK:
            document = fetch(resource)
            if limits is not None:
                _check_fetched(resource, document, limits)
            if fetched is not None:
                fetched[resource] = document
        if document is None or not isinstance(document, (Mapping, bool)):
            return None
        doc_dialect = dialect
        if isinstance(document, Mapping) and isinstance(document.get("$schema"), str):
            doc_dialect = dialect_for_uri(document["$schema"]) or dialect
        root = graph.add_document(document, resource, doc_dialect, doc=resource)
    if not fragment:
        return root
    if fragment.startswith("/"):
        return _follow_pointer(graph, places, root, unquote(fragment))
    return graph.anchors.get((resource, fragment))


def _check_fetched(uri: str, document: Any, limits: Limits) -> None:
    """A fetched document is as untrusted as the schema: the same size and depth limits. (Deeper,
    it reached the backends, where jsonschema-rs refused it as an unresolvable reference:
    "Recursion limit reached" at 300 levels of arrays, measured.)"""
    try:
        measure_document(document, limits)
    except SchemaRejected as exc:
        raise SchemaRejected(
            exc.reason, f"the document fetched from {uri!r}: {exc.message}", details={**exc.details, "uri": uri}
        ) from None


def _check_unambiguous(graph: Graph, registry: Mapping[str, Any]) -> None:
    """Refuse a URI that two different schemas declare (two embedded resources with one ``$id``,
    an anchor named twice in one resource, an embedded ``$id`` that the registry also holds).

    The guard reads the first declaration; a backend may take another, and then what is
    analysed is not what is evaluated (a benign first resource, an exponential second one).
    The same schema declared twice (one shared dict, or equal copies) means one thing: allowed.
    """
    conflicts: list[tuple[str, int, Any]] = []
    for uri, node in graph.redeclared:
        resource, _, anchor = uri.partition("#")
        first = graph.anchors[(resource, anchor)] if anchor else graph.resources[resource]
        conflicts.append((uri, first, graph.obj[node]))
    for uri, document in registry.items():
        declared = graph.resources.get(uri)
        if declared is not None and graph.doc[declared] != uri:  # declared in the schema, not read from the registry
            conflicts.append((uri, declared, document))
    for uri, first, other in conflicts:
        if not _same(graph.obj[first], other):
            raise SchemaRejected(
                RejectReason.INVALID_SCHEMA,
                f"two different schemas declare {uri!r} (one at {graph.pointer(first) or 'the root'}): "
                "a reference to it would be ambiguous",
                location=graph.pointer(first),
                details={"uri": uri},
            )


def _same(a: Any, b: Any) -> bool:
    """The same JSON: compared as canonical text, since Python's ``==`` calls ``1``, ``1.0`` and
    ``True`` equal, and ``const: 1`` and ``const: true`` are different schemas."""
    if a is b:
        return True
    try:
        return bool(msgspec.json.encode(a, order="sorted") == msgspec.json.encode(b, order="sorted"))
    except (TypeError, ValueError, RecursionError, msgspec.EncodeError):  # not JSON: not shown to be the same
        return False


class _Places:
    """Nodes by place: (parent node, pointer suffix) -> node, kept up to date as the graph grows.

    A JSON pointer names a place, not a Python object: one dict shared by two resources is two
    places, each read against its own base URI. Looking a target up by object identity would
    send every reference to the first place, and whatever differs at the second (a ``leaf`` that
    recurses, an exponential ``anyOf``) would never be analysed, while the backends evaluate it.
    """

    def __init__(self, graph: Graph) -> None:
        self._graph = graph
        self._children: dict[tuple[int, str], int] = {}
        self._indexed = 0
        self._aliases = 0

    def child(self, parent: int, suffix: str) -> int | None:
        graph = self._graph
        end = len(graph.obj)
        if self._indexed < end:
            parents, tokens, add = graph.parent, graph.token, self._children.setdefault
            for node in range(self._indexed, end):
                above = parents[node]
                if above >= 0:
                    add((above, tokens[node]), node)
            self._indexed = end
        if self._aliases < len(graph.aliases):  # places a walk linked instead of walking them again
            add = self._children.setdefault
            for above, token, node in graph.aliases[self._aliases :]:
                add((above, token), node)
            self._aliases = len(graph.aliases)
        return self._children.get((parent, suffix))


def _follow_pointer(graph: Graph, places: _Places, root: int, pointer: str) -> int | None:
    value = graph.obj[root]
    # Walk the JSON value and, beside it, the nodes of this place; remember the deepest node
    # passed, so that an unindexed target (inside an unknown keyword, say) is indexed under it,
    # with its base URI and dialect.
    last = root
    suffix = ""  # the escaped pointer from `last` to `value`
    for raw in pointer.split("/")[1:]:
        token = unescape(raw)
        if isinstance(value, Mapping):
            if token not in value:
                return None
            value = value[token]
        elif isinstance(value, list):
            if not token.isdigit() or (len(token) > 1 and token[0] == "0") or int(token) >= len(value):
                return None
            value = value[int(token)]
        else:
            return None
        suffix += "/" + escape(token)
        seen = places.child(last, suffix)
        if seen is not None:
            last, suffix = seen, ""
    if not isinstance(value, (Mapping, bool)):
        return None
    if not suffix:
        return last
    return graph.walk(value, graph.base[last], graph.dialect[last], parent=last, token=suffix, doc=graph.doc[last])


def _refusal(
    graph: Graph,
    node: int,
    keyword: str,
    target: str,
    resource: str,
    registry: Mapping[str, Any],
) -> SchemaRejected:
    location = graph.pointer(node) + "/" + keyword
    known = resource in graph.resources or resource in registry
    # A reference under the base of a schema without `$id` is said as the schema spells it.
    target, resource = _as_spelled(target), _as_spelled(resource)
    if not known and _scheme(resource) in _NETWORK:
        # With fetching on, a network resource was fetched (and is known) or its refusal raised:
        # here fetching is off, whatever `fetch.allow_hosts` lists, and the message says so.
        host = _host(resource)
        return SchemaRejected(
            RejectReason.REMOTE_REF,
            f"{keyword} at {location} names the network resource {target!r}, and fetching is off: "
            "pass the resource in the registry if it is trusted, or turn fetching on "
            f"(fetch.enabled = true, with {host} in fetch.allow_hosts)",
            location=location,
            details={"uri": resource, "ref": target, "why": "fetching is off"},
        )
    if known:
        why = "the document has no such location or anchor"
    elif _scheme(resource) == "file":
        why = "files are never read"
    else:
        why = "it is neither in the schema nor in its registry"
    return SchemaRejected(
        RejectReason.UNRESOLVABLE_REF,
        f"{keyword} at {location} cannot be resolved: {target!r} ({why})",
        location=location,
        details={"uri": resource, "ref": target},
    )


def _as_spelled(uri: str) -> str:
    """A URI under the base of a schema without ``$id`` (``json-schema:///``) as its path spells
    it; that base itself, and a fragment of it, as they are."""
    rest = uri[len(DEFAULT_BASE) :] if uri.startswith(DEFAULT_BASE) else ""
    return rest if rest and not rest.startswith("#") else uri


def _host(uri: str) -> str:
    """The host of ``uri`` quoted for a message, or "its host" where the URI names none."""
    try:
        host = urlsplit(uri).hostname
    except ValueError:  # an unclosed IPv6 bracket, say
        host = None
    return repr(host) if host else "its host"

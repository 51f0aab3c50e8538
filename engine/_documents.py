"""The documents a schema's references may lead into, as the level counts read them
(:mod:`engine._levels`): the schema and its registry's resources, each found by its URI.

The counts weigh an instance before the backend runs, so a reference read otherwise than the
backends read it would weigh a light subschema where they apply a heavy one. Whatever this module
cannot read as surely as they do is not followed (the caller then counts every subschema at every
level): a resource in another dialect or whose own ``$id`` moves its base, two documents under one
URI however spelled (:func:`_coarse`), an embedded resource beside a registry, a relative
reference from a base that is not hierarchical.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote, urldefrag, urljoin, urlsplit, urlunsplit

from ._dialect import Dialect, dialect_for_uri
from ._keywords import KEYWORDS, subschemas
from ._pointer import tokens

__all__ = ["Documents"]


class Documents:
    """The documents references may lead into: the schema (index 0) and its registry's resources,
    each found by its URI, with the anchors of each, read when first named."""

    __slots__ = ("anchors", "bases", "by_uri", "roots")

    def __init__(self, schema: dict[str, Any]) -> None:
        self.roots: list[Any] = [schema]
        self.bases: list[str | None] = [None]  # `None`: relative references are not followed from it
        self.by_uri: dict[str, int | None] = {}  # `None`: two documents answer to it
        self.anchors: dict[int, dict[str, dict[str, Any] | None]] = {}

    @classmethod
    def of(cls, schema: dict[str, Any], dialect: Dialect, resources: Mapping[str, Any]) -> Documents | None:
        """The schema and ``resources``, or ``None`` where one is read otherwise than this count
        would read it: a resource in another dialect, or whose own ``$id`` moves its base."""
        documents = cls(schema)
        id_keyword = KEYWORDS[dialect].id_keyword
        if any(_embeds(document, id_keyword) for document in (schema, *resources.values())):
            return None  # an embedded resource's URI may be a registry's spelled otherwise
        own = schema.get(id_keyword)
        if type(own) is str and not own.startswith("#"):  # (a plain name is an anchor in drafts 4-7)
            documents.bases[0] = urldefrag(own)[0]
            documents.add(documents.bases[0] or "", 0)
        else:  # the backends' own bases for a document without one
            documents.add("", 0)
            documents.add("json-schema:///", 0)
        for uri, resource in resources.items():
            if type(resource) is dict:
                declared = resource.get("$schema")
                if declared is not None and (type(declared) is not str or dialect_for_uri(declared) is not dialect):
                    return None
                moved = resource.get(id_keyword)
                if moved is not None and (type(moved) is not str or _coarse(urljoin(uri, moved)) != _coarse(uri)):
                    return None
            documents.roots.append(resource)
            documents.bases.append(urldefrag(uri)[0])
            documents.add(uri, len(documents.roots) - 1)
        # Two documents a backend may take one for the other (the schema's `$id` a resource's
        # URI, two spellings of one URI): even a reference within one may lead into the other.
        return None if None in documents.by_uri.values() else documents

    def add(self, uri: str, at: int) -> None:
        key = _coarse(uri)
        self.by_uri[key] = at if self.by_uri.get(key, at) == at else None

    def target(self, home: int, key: str, ref: Any, dialect: Dialect) -> tuple[Any, int] | None:
        """What a reference in document ``home`` applies, and the document it is in: a location
        by JSON pointer or, in a document without embedded resources, a subschema by its anchor;
        the root for ``$recursiveRef: "#"``; ``None`` where it leads where this count does not
        follow (a boolean or another value stands for a location that is no subschema)."""
        if type(ref) is not str:
            return None
        if key != "$ref" and len(self.roots) > 1:  # a dynamic scope may cross documents
            return None
        if not ref.startswith("#"):
            if key != "$ref":
                return None
            if not urlsplit(ref).scheme:  # relative: resolved against its document's base
                base = self.bases[home]
                if base is None or not _HIERARCHICAL.match(base):
                    return None
                ref = urljoin(base, ref)
            uri, fragment = urldefrag(ref)
            found = self.by_uri.get(_coarse(uri))
            if found is None:
                return None
            home, ref = found, "#" + fragment
        root = self.roots[home]
        if key == "$recursiveRef":
            return (root, home) if ref == "#" else None
        if ref == "#" or ref[1] == "/":
            # Percent-decoded first, as the backends read a fragment (RFC 6901, section 6): `%25` is
            # `%`, so `#/$defs/a%25b` names `a%b` (read literally, a light `a%25b` was counted instead).
            pointed = _pointed(root, unquote(ref[1:]), KEYWORDS[dialect].id_keyword)
            return None if pointed is None else (pointed, home)
        if not dialect.is_modern or type(root) is not dict:  # a plain name is an `$id` there: a resource of its own
            return None
        if home not in self.anchors:
            self.anchors[home] = _anchors(root, dialect)
        named = self.anchors[home].get(ref[1:])
        return None if named is None else (named, home)


# Bases a relative reference is resolved against as `urljoin` does (RFC 3986, section 5.2);
# against another (`urn:`, `tag:`), where it differs, none is followed.
_HIERARCHICAL = re.compile(r"(?i)(?:https?|file)://")


def _coarse(uri: str) -> str:
    """``uri`` with whatever spelling a backend may read as the same resource made one: decoded,
    folded, dot segments and default ports gone. Coarser than any backend's reading, so two
    resources a backend may confuse share a key, and that key then finds neither."""
    parts = urlsplit(unquote(urldefrag(uri)[0]).casefold())
    netloc = parts.netloc.removesuffix(":443" if parts.scheme == "https" else ":80" if parts.scheme == "http" else ":")
    path = posixpath.normpath(parts.path) if parts.path else "/" if netloc else ""
    return urlunsplit((parts.scheme, netloc, path, parts.query, ""))


def _anchors(schema: dict[str, Any], dialect: Dialect) -> dict[str, dict[str, Any] | None]:
    """The subschema each anchor name (``$anchor`` or ``$dynamicAnchor``) of the root resource
    names, ``None`` for a name given twice. In a document of one resource, a dynamic reference
    resolves where a plain one does."""
    keywords = KEYWORDS[dialect]
    applicators, id_keyword = keywords.applicators, keywords.id_keyword
    named: dict[str, dict[str, Any] | None] = {}
    stack: list[Any] = [schema]
    seen: set[int] = set()
    while stack:
        current = stack.pop()
        if type(current) is not dict or id(current) in seen or (current is not schema and id_keyword in current):
            continue
        seen.add(id(current))
        for keyword in ("$anchor", "$dynamicAnchor"):
            name = current.get(keyword)
            if type(name) is str:
                named[name] = None if name in named and named[name] is not current else current
        for key, value in current.items():
            if key in applicators:
                stack += subschemas(value, applicators[key][0])
    return named


def _embeds(document: Any, id_keyword: str) -> bool:
    """Whether ``document`` holds an object with an identifier below its root (an embedded
    resource, or what may be taken for one: a property so named, a value in an ``enum``)."""
    stack = [*document.values()] if type(document) is dict else []
    while stack:
        node = stack.pop()
        if type(node) is dict:
            if type(node.get(id_keyword)) is str:
                return True
            stack += node.values()
        elif type(node) is list:
            stack += node
    return False


def _pointed(schema: Any, location: str, id_keyword: str) -> Any:
    """What ``location`` names in ``schema``; ``None`` where nothing is there, or where the way
    passes through an embedded resource (an object with its own identifier): the references of
    what lies inside resolve against that resource, which this count does not follow."""
    node = schema
    for token in tokens(location):
        if type(node) is dict and token in node:
            if node is not schema and type(node.get(id_keyword)) is str:
                return None
            node = node[token]
        elif type(node) is list and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node

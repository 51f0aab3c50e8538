"""URIs as the guard reads them: resolved as RFC 3986 resolves them under any scheme, and compared
in their normal form, as jsonschema-rs resolves and compares them. What the guard measures is then
the resource the backend evaluates."""

from __future__ import annotations

import ipaddress
import re
import socket
from functools import lru_cache

__all__ = ["ip_address_of", "join_uri", "normal_uri", "split_uri"]

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")


def join_uri(base: str, ref: str) -> str:
    """``ref`` resolved against ``base`` as RFC 3986 (section 5.2) resolves it, whatever the
    scheme, as jsonschema-rs does. (``urllib.parse.urljoin`` resolves only the schemes it lists:
    under ``json-schema:///``, the base of a schema without ``$id``, it left ``c`` as ``c``, a
    resource the backend knew as ``json-schema:///c``.)"""
    if _SCHEME.match(ref):
        return _resolved(None, ref)
    if ref.startswith("#"):
        return base.split("#", 1)[0] + ref
    if _ONE_SEGMENT.fullmatch(ref):
        # The commonest relative reference, one plain path segment, replaces the base's last: the
        # base's directory is found once (thousands of `$id`s under a base of thousands of
        # segments, each split and merged afresh, took seconds).
        return _directory(base) + ref
    return _resolved(base, ref)


# One path segment that is not a dot segment and holds nothing read apart: no slash, query,
# fragment or colon, and no leading dot.
_ONE_SEGMENT = re.compile(r"[^/?#:.][^/?#:]*")


@lru_cache(maxsize=256)
def _directory(base: str) -> str:
    return _resolved(base, "x")[:-1]


def _resolved(base: str | None, ref: str) -> str:
    """RFC 3986 section 5.2.2, strict (a reference with a scheme is absolute); ``base`` ``None``
    for an absolute ``ref``."""
    scheme, authority, path, query, fragment = _REFERENCE.fullmatch(ref).groups()  # type: ignore[union-attr]
    if scheme is None:
        assert base is not None  # noqa: S101 - a relative reference has a base (for the type checker)
        base_scheme, base_authority, base_path, base_query, _ = _REFERENCE.fullmatch(base).groups()  # type: ignore[union-attr]
        scheme = base_scheme
        if authority is None:
            authority = base_authority
            if not path:
                path = base_path
                if query is None:
                    query = base_query
            elif not path.startswith("/"):
                if base_authority is not None and not base_path:
                    path = "/" + path
                else:
                    path = base_path[: base_path.rfind("/") + 1] + path
    path = _without_dot_segments(path, authority is not None)
    return (
        (f"{scheme}:" if scheme is not None else "")
        + (f"//{authority}" if authority is not None else "")
        + path
        + (f"?{query}" if query is not None else "")
        + (f"#{fragment}" if fragment is not None else "")
    )


# RFC 3986 appendix B: scheme, authority, path, query, fragment.
_REFERENCE = re.compile(r"(?:([A-Za-z][A-Za-z0-9+.\-]*):)?(?://([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?", re.S)


def split_uri(uri: str) -> tuple[str, str]:
    """(resource URI, fragment); an empty fragment and no fragment are the same resource, and the
    resource URI is in its normal form (:func:`normal_uri`)."""
    resource, _, fragment = uri.partition("#")
    return normal_uri(resource), fragment


@lru_cache(maxsize=1024)
def normal_uri(uri: str) -> str:
    """``uri`` (no fragment) in the normal form of RFC 3986 (section 6.2.2) and of default ports,
    so that two spellings jsonschema-rs reads as one resource are one string here: scheme and
    host in lower case, an empty or default port dropped (``https://ex.com:0443/`` is
    ``https://ex.com/``), the percent-encoding of an unreserved character decoded and any other's
    hexadecimal digits in upper case, dot segments removed. The guard finds resources and
    declarations by it; read otherwise, ``HTTPS://EX.COM/a`` beside ``https://ex.com/a`` was two
    resources to the guard and one to the backend, which evaluated the one the guard never read.
    Case is kept elsewhere (a path's, a URN's), as jsonschema-rs keeps it."""
    scheme, authority, path, query = _URI_PARTS.fullmatch(uri).groups()  # type: ignore[union-attr]
    if scheme is not None:
        scheme = scheme.lower()
    if authority is not None:
        userinfo, at, host = authority.rpartition("@")
        host, port = _HOST_PORT.fullmatch(host).groups()  # type: ignore[union-attr]
        host = _address(_percent_normal(host).lower())  # `H%41` is `ha`: decoded, then folded
        if port is not None:
            digits = port[1:]
            if not digits or (digits.isdigit() and int(digits) == _DEFAULT_PORTS.get(scheme or "")):
                port = ""
            elif digits.isdigit():
                port = ":" + str(int(digits))
        authority = _percent_normal(userinfo) + at + host + (port or "")
    path = _without_dot_segments(_percent_normal(path), authority is not None)
    return (
        (f"{scheme}:" if scheme is not None else "")
        + (f"//{authority}" if authority is not None else "")
        + path
        + (f"?{_percent_normal(query)}" if query is not None else "")
    )


# RFC 3986 appendix B, the fragment already split off: scheme, authority, path, query.
_URI_PARTS = re.compile(r"(?:([A-Za-z][A-Za-z0-9+.\-]*):)?(?://([^/?]*))?([^?]*)(?:\?(.*))?", re.S)
_HOST_PORT = re.compile(r"(\[[^\]]*\]|[^:]*)(:.*)?", re.S)
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21}
_PERCENT = re.compile(r"%([0-9A-Fa-f]{2})")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def _address(host: str) -> str:
    """An IP address in one spelling: an IPv6 one compressed (``[0:0:0:0:0:0:0:1]`` is ``[::1]``),
    an IPv4 one dotted in decimal (``0x7f.1`` is ``127.0.0.1``, as a URL reads it); any other
    host as it is."""
    if host.startswith("[") and host.endswith("]"):
        address = ip_address_of(host[1:-1])
        return f"[{address.compressed}]" if isinstance(address, ipaddress.IPv6Address) else host
    address = ip_address_of(host) if _IPV4_LIKE.fullmatch(host) else None
    return host if address is None else address.compressed


def ip_address_of(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The IP address ``host`` spells as a resolver reads it (an IPv6 address; an IPv4 one in any
    form ``inet_aton`` reads: ``2852039166``, ``0xa9fea9fe``, ``0251.0376.0251.0376``,
    ``169.254.43518``), or ``None`` for a name."""
    try:
        if ":" in host:
            return ipaddress.IPv6Address(host)
        if _IPV4_LIKE.fullmatch(host):
            return ipaddress.IPv4Address(socket.inet_aton(host))
    except (ValueError, OSError):
        pass
    return None


_IPV4_LIKE = re.compile(r"[0-9][0-9a-fx.]*")


def _percent_normal(text: str) -> str:
    if "%" not in text:
        return text
    return _PERCENT.sub(_octet, text)


def _octet(match: re.Match[str]) -> str:
    character = chr(int(match.group(1), 16))
    return character if character in _UNRESERVED else "%" + match.group(1).upper()


def _without_dot_segments(path: str, authority: bool = True) -> str:
    """RFC 3986 section 5.2.4; without an ``authority``, a path left starting with ``//`` keeps a
    ``/.`` before it, as jsonschema-rs writes it (else it would read as an authority)."""
    if "." not in path:
        return path
    kept = _dots_removed(path)
    return "/." + kept if not authority and kept.startswith("//") else kept


def _dots_removed(path: str) -> str:
    segments = path.split("/")
    if not any(segment in (".", "..") for segment in segments):
        return path
    kept: list[str] = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == ".":
            if last:
                kept.append("")
        elif segment == "..":
            if len(kept) > 1 or (kept and kept[0] != ""):
                kept.pop()
            if last:
                kept.append("")
        else:
            kept.append(segment)
    return "/".join(kept)

"""Opt-in retrieval of remote ``$ref`` targets, at compile time only (off by default).

Every step is checked: the scheme (``https`` unless ``allow_http``), the host (an explicit
allowlist), every address the name resolves to (only globally routable unicast passes; see
:func:`address_refusal`), and the connection is made to the checked address itself, so a second
DNS answer cannot redirect it (no rebinding). Each redirect hop is checked again. Connect and
total timeouts, a body size cap, a log line per URI (logger ``engine.fetch``), and results
cached per engine.
"""

from __future__ import annotations

import http.client
import io
import ipaddress
import logging
import socket
import ssl
import threading
import time
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

import cachetools

from .._config import FetchConfig
from .._config_values import short_repr
from .._decode import decode_json
from .._errors import DecodeError, RejectReason, SchemaRejected

__all__ = ["METADATA_ADDRESSES", "DeadlineExceeded", "Fetcher", "address_refusal"]

log = logging.getLogger("engine.fetch")

_REDIRECTS = {301, 302, 303, 307, 308}
# RFC 3986 reserved and unreserved characters, and "%": left as they are in a request target.
_URI_CHARACTERS = "!#$%&'()*+,/:;=?@[]-._~"


# The only address space ``allow_private`` opens: RFC 1918 IPv4 and unique-local IPv6.
_PRIVATE = tuple(ipaddress.ip_network(net) for net in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"))
# Cloud instance-metadata endpoints, refused whatever the configuration (the IPv4 ones are
# link-local or shared address space as well; AWS's IPv6 endpoint sits inside fc00::/7).
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a) for a in ("169.254.169.254", "169.254.170.2", "100.100.100.200", "fd00:ec2::254")
)
# IPv6 forms that carry an IPv4 address: a connection to one reaches (or is translated to) that
# IPv4 host, so its check would be the IPv4 check; none is needed for a schema host, all are refused.
_EMBEDDING: tuple[tuple[ipaddress.IPv6Network, str], ...] = tuple(
    (ipaddress.IPv6Network(net), what)
    for net, what in (
        ("::ffff:0:0/96", "an IPv4-mapped IPv6 address"),
        ("::ffff:0:0:0/96", "an IPv4-translated IPv6 address"),
        ("::/96", "an IPv4-compatible IPv6 address"),
        ("64:ff9b::/96", "a NAT64 address"),
        ("64:ff9b:1::/48", "a local-use NAT64 address"),
        ("2002::/16", "a 6to4 address"),
        ("2001::/32", "a Teredo address"),
    )
)
_GLOBAL_UNICAST_V6 = ipaddress.IPv6Network("2000::/3")
# Inside 2000::/3 but not globally routable, beyond what this Python's ``is_global`` knows
# (3.11.7 calls 3fff::1 global): documentation prefixes.
_NOT_GLOBAL_V6 = tuple(ipaddress.IPv6Network(net) for net in ("2001:db8::/32", "3fff::/20"))
# IPv4 special-purpose blocks this Python calls global (3.11.7: 192.0.0.8): IETF protocol
# assignments and the deprecated 6to4 relay anycast block. No schema host lives there.
_NOT_GLOBAL_V4 = tuple(ipaddress.IPv4Network(net) for net in ("192.0.0.0/24", "192.88.99.0/24"))


def address_refusal(address: str, config: FetchConfig) -> str | None:
    """Why a connection to ``address`` is refused under ``config``, or ``None``.

    Only globally routable unicast addresses pass. ``allow_loopback`` opens 127/8 and ``::1``;
    ``allow_private`` opens RFC 1918 and fc00::/7 and nothing else: link-local, metadata,
    shared (100.64/10), site-local, reserved and every IPv6 form embedding an IPv4 address stay
    refused under every configuration.
    """
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return "not an IP address"
    if isinstance(ip, ipaddress.IPv6Address) and int(ip) > 1:  # `::` and `::1` are not embeddings
        # First: a later Python may call ::ffff:127.0.0.1 loopback, which allow_loopback opens.
        for net, what in _EMBEDDING:
            if ip in net:
                return f"{what} (it embeds an IPv4 address)"
        # ISATAP (RFC 5214): any /64 prefix, an interface identifier of 0:5efe (the u/g bits
        # aside) and the IPv4 address of the host behind the ISATAP router.
        if (int(ip) >> 32) & 0xFCFF_FFFF == 0x0000_5EFE:
            return "an ISATAP address (it embeds an IPv4 address)"
    if ip.is_loopback:
        return None if config.allow_loopback else "a loopback address"
    if ip.is_unspecified:
        return "the unspecified address"
    if ip in METADATA_ADDRESSES:
        return "a cloud instance-metadata address"
    if ip.is_link_local:
        return "a link-local address"
    if ip.is_multicast:
        return "a multicast address"
    if isinstance(ip, ipaddress.IPv6Address) and ip.is_site_local:
        return "a site-local address"
    if any(ip in net for net in _PRIVATE):
        return None if config.allow_private else "a private or unique-local address"
    if ip.is_reserved:
        return "a reserved address"
    if isinstance(ip, ipaddress.IPv6Address) and (
        ip not in _GLOBAL_UNICAST_V6 or any(ip in net for net in _NOT_GLOBAL_V6)
    ):
        return "an address that is not globally routable"
    if isinstance(ip, ipaddress.IPv4Address) and any(ip in net for net in _NOT_GLOBAL_V4):
        return "an address that is not globally routable"
    if not ip.is_global:
        return "an address that is not globally routable"
    return None


class _Deadline:
    """One point in time that every step of a retrieval must finish by.

    A socket timeout alone bounds each call, and restarts with every byte received: a server
    sending one header byte every 0.25 s (or dribbling a chunk-size line) never trips it. So
    every step asks :meth:`left` for the time that remains, and each blocking call waits at most
    that long. The clock starts at the first network step, not when the deadline is made.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._at: float | None = None

    def left(self) -> float:
        """Seconds left (> 0); raises :class:`DeadlineExceeded` once there are none."""
        now = time.monotonic()
        if self._at is None:
            self._at = now + self.seconds
        left = self._at - now
        if left <= 0:
            raise DeadlineExceeded(f"the total timeout of {self.seconds} s is spent")
        return left


class DeadlineExceeded(TimeoutError):
    """The retrieval's one deadline passed (raised from inside ``http.client`` reads)."""


def _connect(family: int, sockaddr: Any, timeout: float) -> socket.socket:
    """A TCP connection to exactly ``sockaddr`` (no name lookup of any kind)."""
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect(sockaddr)
    except BaseException:
        sock.close()
        raise
    return sock


class _DeadlineReader(io.RawIOBase):
    """The receiving side of a connection: each read waits at most until the deadline."""

    def __init__(self, owner: _DeadlineSocket) -> None:
        super().__init__()
        self._owner = owner

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        sock = self._owner.sock
        sock.settimeout(self._owner.deadline.left())
        return sock.recv_into(buffer)

    def close(self) -> None:
        if not self.closed:
            self._owner.reader_closed()
        super().close()


class _DeadlineSocket:
    """What ``http.client`` sees as the socket: ``sendall``, ``makefile`` and ``close``, every
    blocking call bounded by the one deadline (TLS records included: it wraps the TLS socket).
    Like a socket, it stays open while a file made from it is open (``http.client`` closes the
    connection before the body of a ``Connection: close`` response is read)."""

    def __init__(self, sock: socket.socket, deadline: _Deadline) -> None:
        self.sock = sock
        self.deadline = deadline
        self._readers = 0
        self._closed = False

    def sendall(self, data: bytes) -> None:
        self.sock.settimeout(self.deadline.left())  # sendall's timeout covers the whole call
        self.sock.sendall(data)

    def makefile(self, mode: str = "rb", *args: object, **kwargs: object) -> io.BufferedReader:
        if mode != "rb":
            raise ValueError(f"unsupported mode {mode!r}")
        self._readers += 1
        return io.BufferedReader(_DeadlineReader(self))

    def reader_closed(self) -> None:
        self._readers -= 1
        if self._closed and not self._readers:
            self.sock.close()

    def close(self) -> None:
        self._closed = True
        if not self._readers:
            self.sock.close()


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """An HTTP connection to a fixed, already checked address (the ``Host`` header keeps the
    name), every step of it bounded by ``deadline``."""

    def __init__(
        self, host: str, port: int, target: tuple[int, Any], connect_timeout: float, deadline: _Deadline
    ) -> None:
        super().__init__(host, port, timeout=connect_timeout)
        self._target = target
        self._deadline = deadline

    def _connect_timeout(self) -> float:
        left = self._deadline.left()
        return left if self.timeout is None else min(self.timeout, left)

    def connect(self) -> None:
        self.sock = _DeadlineSocket(_connect(*self._target, self._connect_timeout()), self._deadline)


class _PinnedHTTPSConnection(_PinnedHTTPConnection):
    default_port = http.client.HTTPS_PORT

    def connect(self) -> None:
        sock = _connect(*self._target, self._connect_timeout())
        try:
            # The handshake is one call: its timeout bounds all of it.
            sock.settimeout(self._deadline.left())
            # The certificate is checked against the host name, not the address.
            tls = ssl.create_default_context().wrap_socket(sock, server_hostname=self.host)
        except BaseException:
            sock.close()
            raise
        self.sock = _DeadlineSocket(tls, self._deadline)


class _Retrieval:
    """Every fetch of one compile: they share one deadline of ``total_timeout``."""

    def __init__(self, fetcher: Fetcher) -> None:
        self._fetcher = fetcher
        self._deadline = _Deadline(fetcher.config.total_timeout)

    def __call__(self, uri: str) -> Any:
        return self._fetcher.fetch(uri, self._deadline)


class Fetcher:
    """Fetches schema documents under a :class:`~engine.FetchConfig`; one per engine.

    ``total_timeout`` is one deadline over DNS, connect, TLS, request, headers, body and every
    redirect: of one call, or with :meth:`begin` of every fetch one compile makes.
    """

    def __init__(self, config: FetchConfig) -> None:
        self.config = config
        # `cache_size = 0` keeps nothing (an LRUCache of size 0 refuses every entry: it is never filled).
        self._cache: cachetools.LRUCache[str, Any] = cachetools.LRUCache(max(config.cache_size, 1))
        self._lock = threading.Lock()

    def __call__(self, uri: str) -> Any:
        return self.fetch(uri, _Deadline(self.config.total_timeout))

    def begin(self) -> _Retrieval:
        """Retrieval for one compile: a cached document costs nothing, the others share one deadline."""
        return _Retrieval(self)

    def fetch(self, uri: str, deadline: _Deadline) -> Any:
        with self._lock:
            if uri in self._cache:
                return self._cache[uri]
        try:
            document = self._fetch(uri, deadline)
        except (OverflowError, ValueError) as exc:
            # Whatever step raised it (a value a socket or a lock cannot wait for, a URI the
            # parser refuses), a retrieval that fails is refused like every other failure.
            raise self._refuse(uri, f"the request failed ({type(exc).__name__}: {exc})") from None
        if self.config.cache_size:
            with self._lock:
                self._cache[uri] = document
        return document

    def _refuse(self, uri: str, why: str, *, url: str | None = None, **details: Any) -> SchemaRejected:
        log.warning("refused to fetch %s: %s", url or uri, why)
        return SchemaRejected(
            RejectReason.REMOTE_REF,
            f"$ref to the network resource {uri!r} refused: {why}",
            details={"uri": uri, "why": why, **({"url": url} if url and url != uri else {}), **details},
        )

    def _timed_out(self, uri: str, url: str, stage: str, deadline: _Deadline) -> SchemaRejected:
        return self._refuse(
            uri,
            f"the total timeout of {deadline.seconds} s ran out while {stage}",
            url=url,
            limit="total_timeout",
            bound=deadline.seconds,
            stage=stage,
        )

    def _fetch(self, uri: str, deadline: _Deadline) -> Any:
        config = self.config
        url = uri
        for _hop in range(config.max_redirects + 1):
            status, location, body = self._get(uri, url, deadline)
            if status in _REDIRECTS and location:
                try:
                    url = urljoin(url, location)
                except ValueError:  # an unclosed IPv6 bracket, say
                    raise self._refuse(uri, f"the redirect to {short_repr(location)} is not a URI", url=url) from None
                continue
            if status != 200:
                raise self._refuse(uri, f"the server answered HTTP {status}", url=url)
            try:
                document = decode_json(body, max_bytes=config.max_bytes)
            except DecodeError as exc:
                raise self._refuse(uri, f"the response is not a JSON document ({exc.message})", url=url) from None
            if not isinstance(document, (dict, bool)):
                raise self._refuse(uri, "the response is not a schema (an object or a boolean)", url=url)
            log.info("fetched %s (%d bytes)%s", uri, len(body), f" via {url}" if url != uri else "")
            return document
        raise self._refuse(uri, f"more than {config.max_redirects} redirects", url=url)

    def _resolve(self, uri: str, url: str, host: str, port: int, deadline: _Deadline) -> list[Any]:
        stage = f"resolving {host!r}"
        try:
            left = deadline.left()
        except DeadlineExceeded:
            raise self._timed_out(uri, url, stage, deadline) from None
        try:
            return _resolve_in_thread(host, port, min(self.config.connect_timeout, left))
        except TimeoutError:
            if left < self.config.connect_timeout:  # the deadline, not the connect timeout, ran out
                raise self._timed_out(uri, url, stage, deadline) from None
            why = f"host {host!r} does not resolve (no answer within the connect timeout)"
            raise self._refuse(uri, why, url=url) from None
        except (OSError, UnicodeError) as exc:
            raise self._refuse(uri, f"host {host!r} does not resolve ({exc})", url=url) from None

    def _get(self, uri: str, url: str, deadline: _Deadline) -> tuple[int, str | None, bytes]:
        config = self.config
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in ("https", "http") or (scheme == "http" and not config.allow_http):
            raise self._refuse(uri, f"scheme {scheme!r} is not allowed (https only unless allow_http)", url=url)
        host = (parts.hostname or "").lower()
        if not host or not _host_allowed(host, config.allow_hosts):
            raise self._refuse(uri, f"host {host!r} is not in the fetch allowlist", url=url)
        try:
            port = parts.port or (443 if scheme == "https" else 80)
        except ValueError:
            raise self._refuse(uri, "the URI has an invalid port", url=url) from None
        infos = self._resolve(uri, url, host, port, deadline)
        for info in infos:
            why = address_refusal(info[4][0], config)
            if why is not None:
                raise self._refuse(uri, f"host {host!r} resolves to {info[4][0]}, {why}", url=url)
        if not infos:
            raise self._refuse(uri, f"host {host!r} has no address", url=url)
        target = (infos[0][0], infos[0][4])  # resolved once; the connection goes to this checked address
        cls = _PinnedHTTPSConnection if scheme == "https" else _PinnedHTTPConnection
        conn = cls(host, port, target, config.connect_timeout, deadline)
        # An IRI's non-ASCII characters go on the wire percent-encoded as UTF-8 (the request line
        # is ASCII); what is already encoded stays as it is.
        path = quote((parts.path or "/") + (f"?{parts.query}" if parts.query else ""), safe=_URI_CHARACTERS)
        stage = f"connecting to {target[1][0]}"
        try:
            conn.connect()
            stage = "sending the request"
            conn.request("GET", path, headers={"Accept": "application/schema+json, application/json"})
            stage = "reading the response headers"
            response = conn.getresponse()
            if response.status in _REDIRECTS:
                return response.status, response.getheader("Location"), b""
            stage = "reading the body"
            chunks: list[bytes] = []
            size = 0
            while True:
                chunk = response.read1(65536)
                if not chunk:
                    break
                size += len(chunk)
                if size > config.max_bytes:
                    raise self._refuse(uri, f"the response is over the size cap of {config.max_bytes} bytes", url=url)
                chunks.append(chunk)
            return response.status, None, b"".join(chunks)
        except TimeoutError:
            # The deadline's own refusal, or a socket timeout: a blocking call waited for all that
            # was left (or for connect_timeout, while connecting).
            if stage.startswith("connecting") and not _spent(deadline):
                raise self._refuse(
                    uri, f"no connection within the connect timeout of {config.connect_timeout} s", url=url
                ) from None
            raise self._timed_out(uri, url, stage, deadline) from None
        except (OSError, http.client.HTTPException, ValueError, OverflowError) as exc:
            # ValueError: a header http.client refuses; OverflowError: a wait no socket call takes.
            why = f"the request failed while {stage} ({type(exc).__name__}: {exc})"
            raise self._refuse(uri, why, url=url) from None
        finally:
            conn.close()


def _spent(deadline: _Deadline) -> bool:
    try:
        deadline.left()
    except DeadlineExceeded:
        return True
    return False


def _resolve_in_thread(host: str, port: int, timeout: float) -> list[Any]:
    """``getaddrinfo`` has no timeout of its own: run it aside and stop waiting at ``timeout``."""
    outcome: list[Any] = []

    def resolve() -> None:
        try:
            outcome.append(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))
        except (OSError, UnicodeError) as exc:
            outcome.append(exc)

    worker = threading.Thread(target=resolve, name="engine-fetch-dns", daemon=True)
    worker.start()
    worker.join(timeout)
    if not outcome:
        raise TimeoutError(f"no answer within {timeout:.1f} s")
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    addresses: list[Any] = outcome[0]
    return addresses


def _host_allowed(host: str, allow: tuple[str, ...]) -> bool:
    for entry in allow:
        entry = entry.lower()
        if host == entry or (entry.startswith(".") and host.endswith(entry)):
            return True
    return False

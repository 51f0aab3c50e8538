"""Opt-in fetch: one deadline (``total_timeout``) covers DNS, connect, TLS, the request, the
response headers, the body and every redirect, and every fetch of one compile.

Each test runs a server on 127.0.0.1 (the loopback check relaxed by the test's own
``allow_loopback``) that sends a byte every 0.25 s, forever, at one stage of the response: a
per-call socket timeout would never trip. The bound is enforced while the call runs: each test
carries a ``timeout`` mark a little over the deadline, so a fetch that waits past it fails that
test by name instead of hanging the suite.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine

DEADLINE = 1.0
# The deadline, plus the time a loaded 2-core machine needs to start the server thread, compile
# and tear the connection down (these tests end 0.00-0.22 s after it, measured; 2 s of slack).
BOUND = DEADLINE + 2.0
INTERVAL = 0.25  # between two dribbled bytes: well under any per-call timeout used here

Behaviour = Callable[[socket.socket, str, threading.Event], None]


class SlowServer:
    """Answers every connection with ``behaviour(conn, path, stop)`` on a thread of its own."""

    def __init__(self, behaviour: Behaviour) -> None:
        self.behaviour = behaviour
        self.stop = threading.Event()
        self.paths: list[str] = []
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.1)
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            request = b""
            try:
                while b"\r\n\r\n" not in request:
                    data = conn.recv(4096)
                    if not data:
                        return
                    request += data
                path = request.split(b" ", 2)[1].decode()
                self.paths.append(path)
                self.behaviour(conn, path, self.stop)
            except OSError:  # the client gave up: what these tests expect
                return

    def close(self) -> None:
        self.stop.set()
        self.listener.close()


@pytest.fixture
def serve() -> Iterator[Callable[[Behaviour], SlowServer]]:
    servers: list[SlowServer] = []

    def start(behaviour: Behaviour) -> SlowServer:
        servers.append(SlowServer(behaviour))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def dribble(conn: socket.socket, prefix: bytes, byte: bytes, stop: threading.Event) -> None:
    """Send ``prefix``, then ``byte`` every INTERVAL until the client goes or the test ends."""
    conn.sendall(prefix)
    while not stop.wait(INTERVAL):
        conn.sendall(byte)


def fetching(**fetch: object) -> engine.Engine:
    settings: dict[str, object] = {
        "enabled": True,
        "allow_hosts": ["127.0.0.1"],
        "allow_http": True,
        "allow_loopback": True,
        "total_timeout": DEADLINE,
        "connect_timeout": DEADLINE,
    }
    settings.update(fetch)
    return engine.Engine(engine.EngineConfig.load(env={}, fetch=settings))


def refused_at_the_deadline(eng: engine.Engine, schema: object, stage: str) -> engine.SchemaRejected:
    with pytest.raises(engine.SchemaRejected) as refused:
        eng.compile(schema)
    error = refused.value
    assert error.reason == "remote-ref"
    assert error.details["limit"] == "total_timeout" and error.details["bound"] == DEADLINE, error.details
    assert stage in error.details["stage"], error.message
    assert f"total timeout of {DEADLINE} s" in error.message
    return error


HEADERS_OK = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"


@pytest.mark.timeout(BOUND)
def test_a_status_line_sent_a_byte_at_a_time(serve: Callable[[Behaviour], SlowServer]) -> None:
    server = serve(lambda conn, path, stop: dribble(conn, b"HTTP/1.1 2", b"0", stop))
    refused_at_the_deadline(fetching(), {"$ref": server.url("/s.json")}, "response headers")


@pytest.mark.timeout(BOUND)
def test_headers_sent_a_byte_at_a_time(serve: Callable[[Behaviour], SlowServer]) -> None:
    server = serve(lambda conn, path, stop: dribble(conn, HEADERS_OK + b"X-Slow: ", b"a", stop))
    refused_at_the_deadline(fetching(), {"$ref": server.url("/s.json")}, "response headers")


@pytest.mark.timeout(BOUND)
def test_many_short_header_lines(serve: Callable[[Behaviour], SlowServer]) -> None:
    # Complete lines, each one well within any per-read timeout (http.client caps them at 100).
    server = serve(lambda conn, path, stop: dribble(conn, HEADERS_OK, b"X: y\r\n", stop))
    refused_at_the_deadline(fetching(), {"$ref": server.url("/s.json")}, "response headers")


@pytest.mark.timeout(BOUND)
def test_a_chunk_size_line_sent_a_byte_at_a_time(serve: Callable[[Behaviour], SlowServer]) -> None:
    chunked = HEADERS_OK + b"Transfer-Encoding: chunked\r\n\r\n"
    server = serve(lambda conn, path, stop: dribble(conn, chunked + b"1;ext=", b"a", stop))
    refused_at_the_deadline(fetching(), {"$ref": server.url("/s.json")}, "body")


@pytest.mark.timeout(BOUND)
def test_chunks_of_one_byte(serve: Callable[[Behaviour], SlowServer]) -> None:
    chunked = HEADERS_OK + b"Transfer-Encoding: chunked\r\n\r\n"
    server = serve(lambda conn, path, stop: dribble(conn, chunked + b"1\r\n{\r\n", b"1\r\n \r\n", stop))
    refused_at_the_deadline(fetching(), {"$ref": server.url("/s.json")}, "body")


@pytest.mark.timeout(BOUND)
def test_a_body_sent_a_byte_at_a_time(serve: Callable[[Behaviour], SlowServer]) -> None:
    head = HEADERS_OK + b"Content-Length: 100000\r\n\r\n"
    server = serve(lambda conn, path, stop: dribble(conn, head + b'{"type": "integer"', b" ", stop))
    refused_at_the_deadline(fetching(), {"$ref": server.url("/s.json")}, "body")


@pytest.mark.timeout(BOUND)
def test_a_body_without_length_sent_a_byte_at_a_time(serve: Callable[[Behaviour], SlowServer]) -> None:
    # Read until the server closes: a valid document is already there, the deadline still wins.
    head = HEADERS_OK + b"Connection: close\r\n\r\n"
    server = serve(lambda conn, path, stop: dribble(conn, head + b'{"type": "integer"}', b" ", stop))
    refused_at_the_deadline(fetching(), {"$ref": server.url("/s.json")}, "body")


@pytest.mark.timeout(BOUND)
def test_a_server_that_never_answers(serve: Callable[[Behaviour], SlowServer]) -> None:
    server = serve(lambda conn, path, stop: None if stop.wait(60) else None)
    refused_at_the_deadline(fetching(), {"$ref": server.url("/s.json")}, "response headers")


@pytest.mark.timeout(BOUND)
def test_a_tls_handshake_that_never_completes(serve: Callable[[Behaviour], SlowServer]) -> None:
    # The server reads the ClientHello and dribbles bytes that never make a ServerHello record.
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def answer() -> None:
        conn, _ = listener.accept()
        with conn:
            try:
                conn.recv(4096)
                dribble(conn, b"\x16\x03\x03\x40\x00", b"\x00", stop)  # a handshake record of 16 KiB
            except OSError:
                return

    threading.Thread(target=answer, daemon=True).start()
    try:
        url = f"https://127.0.0.1:{listener.getsockname()[1]}/s.json"
        refused_at_the_deadline(fetching(allow_http=False), {"$ref": url}, "connecting")
    finally:
        stop.set()
        listener.close()


@pytest.mark.timeout(BOUND)
def test_a_redirect_chain_shares_one_deadline(serve: Callable[[Behaviour], SlowServer]) -> None:
    # Each hop answers after 0.4 s, well inside the deadline on its own; the chain does not.
    def hop(conn: socket.socket, path: str, stop: threading.Event) -> None:
        if stop.wait(0.4):
            return
        n = int(path.strip("/").split(".")[0] or 0)
        conn.sendall(f"HTTP/1.1 302 Found\r\nLocation: /{n + 1}.json\r\nContent-Length: 0\r\n\r\n".encode())

    server = serve(hop)
    error = refused_at_the_deadline(fetching(max_redirects=20), {"$ref": server.url("/0.json")}, "")
    assert 2 <= len(server.paths) <= 4, server.paths  # about DEADLINE / 0.4 hops, not 21
    assert "url" in error.details


@pytest.mark.timeout(BOUND)
def test_every_fetch_of_one_compile_shares_one_deadline(serve: Callable[[Behaviour], SlowServer]) -> None:
    # Four documents, each served whole after 0.4 s: 1.6 s in all, over the 1 s of the compile.
    def slow_document(conn: socket.socket, path: str, stop: threading.Event) -> None:
        if stop.wait(0.4):
            return
        body = b'{"type": "integer"}'
        conn.sendall(HEADERS_OK + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)

    server = serve(slow_document)
    schema = {"properties": {name: {"$ref": server.url(f"/{name}.json")} for name in "abcd"}}
    refused_at_the_deadline(fetching(), schema, "")
    assert 2 <= len(server.paths) <= 3, server.paths


@pytest.mark.timeout(BOUND + 2 * DEADLINE)
def test_the_deadline_is_per_compile_and_a_fetched_document_is_kept(serve: Callable[[Behaviour], SlowServer]) -> None:
    def slow_document(conn: socket.socket, path: str, stop: threading.Event) -> None:
        if stop.wait(0.2):
            return
        body = b'{"type": "integer"}'
        conn.sendall(HEADERS_OK + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)

    server = serve(slow_document)
    eng = fetching()
    # Two compiles of two documents each: 0.4 s apiece, each well inside its own 1 s deadline.
    first = eng.compile({"prefixItems": [{"$ref": server.url("/a.json")}, {"$ref": server.url("/b.json")}]})
    second = eng.compile({"prefixItems": [{"$ref": server.url("/a.json")}, {"$ref": server.url("/c.json")}]})
    assert first.is_valid([1, 2]) and not first.is_valid(["x"])
    assert second.is_valid([1, 2]) and not second.is_valid([1, "x"])
    assert sorted(server.paths) == ["/a.json", "/b.json", "/c.json"]  # /a.json came from the cache


@pytest.mark.timeout(BOUND)
def test_name_resolution_counts_against_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    # getaddrinfo has no timeout of its own; a resolver that answers after 30 s is cut by the
    # deadline even when the connect timeout alone would allow 10 s.
    release = threading.Event()

    def slow_getaddrinfo(*args: object, **kwargs: object) -> list[Any]:
        release.wait(30)
        return []

    monkeypatch.setattr("socket.getaddrinfo", slow_getaddrinfo)
    try:
        eng = fetching(allow_hosts=["slow.test"], connect_timeout=10.0)
        refused_at_the_deadline(eng, {"$ref": "http://slow.test/s.json"}, "resolving 'slow.test'")
    finally:
        release.set()


@pytest.mark.timeout(BOUND)
def test_an_endless_run_of_interim_responses(serve: Callable[[Behaviour], SlowServer]) -> None:
    # http.client skips "100 Continue" responses in a loop of its own; each comes well within any
    # per-read timeout, and none has a body the size cap could count.
    server = serve(lambda conn, path, stop: dribble(conn, b"", b"HTTP/1.1 100 Continue\r\n\r\n", stop))
    refused_at_the_deadline(fetching(), {"$ref": server.url("/s.json")}, "response headers")


@pytest.mark.timeout(BOUND)
def test_a_flood_of_interim_responses_at_full_speed(serve: Callable[[Behaviour], SlowServer]) -> None:
    def flood(conn: socket.socket, path: str, stop: threading.Event) -> None:
        interim = b"HTTP/1.1 100 Continue\r\n\r\n" * 1000
        while not stop.is_set():
            conn.sendall(interim)

    server = serve(flood)
    refused_at_the_deadline(fetching(), {"$ref": server.url("/s.json")}, "response headers")


FULL_RESPONSE = (
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nX-Pad: "
    + b"p" * 40
    + b"\r\n\r\n"
    + b'8\r\n{"type":\r\n'
    + b'b\r\n "integer"}\r\n'
    + b"0\r\n\r\n"
)
SHORT_DEADLINE = 0.3


@pytest.mark.timeout(40)  # 20 examples, each cut at its 0.3 s deadline (or answered sooner)
@settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(cut=st.integers(0, len(FULL_RESPONSE) - 1), interval=st.sampled_from([0.02, 0.05, 0.1]))
def test_a_response_slowed_anywhere_ends_by_the_deadline(cut: int, interval: float) -> None:
    # The first `cut` bytes at once, then the rest one byte per `interval`: the response needs
    # between 0 and 10 s; it is either whole within the deadline (a document) or refused at it.
    def respond(conn: socket.socket, path: str, stop: threading.Event) -> None:
        conn.sendall(FULL_RESPONSE[:cut])
        for i in range(cut, len(FULL_RESPONSE)):
            if stop.wait(interval):
                return
            conn.sendall(FULL_RESPONSE[i : i + 1])

    server = SlowServer(respond)
    try:
        eng = fetching(total_timeout=SHORT_DEADLINE, connect_timeout=SHORT_DEADLINE)
        started = time.monotonic()
        try:
            compiled = eng.compile({"$ref": server.url("/s.json")})
        except engine.SchemaRejected as refused:
            assert refused.reason == "remote-ref", refused.message
            assert refused.details.get("limit") == "total_timeout", refused.message
        else:
            assert compiled.is_valid(3) and not compiled.is_valid("3")
            assert (len(FULL_RESPONSE) - cut) * interval < SHORT_DEADLINE + 1.0  # it could finish in time
        assert time.monotonic() - started < SHORT_DEADLINE + 1.0
    finally:
        server.close()

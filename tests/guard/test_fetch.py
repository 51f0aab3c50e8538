"""Opt-in fetch mode, against a counting HTTP server bound to 127.0.0.1 (no other network)."""

from __future__ import annotations

import json
import logging
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine._config import FetchConfig
from engine._guard.fetch import address_refusal

# Local servers only; the slow ones carry tighter marks of their own.
pytestmark = pytest.mark.timeout(30)

INTEGER = {"type": "integer"}


class Server:
    def __init__(self) -> None:
        self.hits: list[str] = []
        self.hosts: list[str] = []
        self.routes: dict[str, tuple[int, dict[str, str], bytes, float]] = {}
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                server.hits.append(self.path)
                server.hosts.append(self.headers.get("Host", ""))
                status, headers, body, delay = server.routes.get(self.path, (404, {}, b"", 0.0))
                if delay:
                    time.sleep(delay)
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    self.wfile.write(body)
                except OSError:  # the client gave up (timeout tests)
                    pass

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.block_on_close = False
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def serve(self, path: str, document: object, *, status: int = 200, delay: float = 0.0) -> None:
        self.routes[path] = (status, {"Content-Type": "application/json"}, json.dumps(document).encode(), delay)

    def redirect(self, path: str, location: str) -> None:
        self.routes[path] = (302, {"Location": location}, b"", 0.0)


@pytest.fixture(scope="module")
def running_server() -> Iterator[Server]:
    srv = Server()
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()


@pytest.fixture
def server(running_server: Server) -> Server:
    running_server.hits.clear()
    running_server.hosts.clear()
    running_server.routes.clear()
    return running_server


def fetching(**fetch: object) -> engine.Engine:
    settings = {"enabled": True, "allow_hosts": ["127.0.0.1"], "allow_http": True, "allow_loopback": True}
    settings.update(fetch)
    return engine.Engine(engine.EngineConfig.load(env={}, fetch=settings))


def test_refused_by_default_and_nothing_is_requested(server: Server) -> None:
    server.serve("/int.json", INTEGER)
    with pytest.raises(engine.SchemaRejected) as refused:
        engine.Engine(engine.EngineConfig.load(env={})).compile({"$ref": server.url("/int.json")})
    assert refused.value.reason == "remote-ref"
    assert refused.value.details["uri"] == server.url("/int.json")
    assert server.hits == []


def test_with_fetching_off_the_refusal_says_so_whatever_the_allowlist(server: Server) -> None:
    """Hosts listed and fetching left off: the refusal says fetching is off and how to turn it
    on, not that the host is missing from an allowlist that lists it."""
    server.serve("/int.json", INTEGER)
    for fetch in ({}, {"allow_hosts": ["127.0.0.1"], "allow_http": True, "allow_loopback": True}):
        with pytest.raises(engine.SchemaRejected) as refused:
            engine.Engine(engine.EngineConfig.load(env={}, fetch=fetch)).compile({"$ref": server.url("/int.json")})
        assert refused.value.reason == "remote-ref" and refused.value.details["why"] == "fetching is off"
        assert refused.value.message == (
            f"$ref at /$ref names the network resource {server.url('/int.json')!r}, and fetching is off: pass the "
            "resource in the registry if it is trusted, or turn fetching on (fetch.enabled = true, with "
            "'127.0.0.1' in fetch.allow_hosts)"
        )
    assert server.hits == []


@pytest.mark.parametrize("entry", ["schemas.test", "SCHEMAS.Test", ".test"])
def test_every_entry_form_the_configuration_accepts_is_matched(
    server: Server, monkeypatch: pytest.MonkeyPatch, entry: str
) -> None:
    """An entry the configuration accepts is one the fetcher matches (names resolve to the local
    server here): exact, in another case, or a dot and a domain for its subdomains."""
    monkeypatch.setattr("socket.getaddrinfo", lambda host, port, *a, **k: [(2, 1, 6, "", ("127.0.0.1", port))])
    server.serve("/int.json", INTEGER)
    compiled = fetching(allow_hosts=[entry]).compile({"$ref": f"http://schemas.test:{server.port}/int.json"})
    assert compiled.is_valid(1) and not compiled.is_valid("x")
    assert server.hits == ["/int.json"]


def test_loopback_refused_even_when_fetch_is_on_and_host_allowed(server: Server) -> None:
    server.serve("/int.json", INTEGER)
    with pytest.raises(engine.SchemaRejected) as refused:
        fetching(allow_loopback=False).compile({"$ref": server.url("/int.json")})
    assert refused.value.reason == "remote-ref"
    assert "loopback" in refused.value.message
    assert server.hits == []


def test_fetched_once_logged_and_cached(server: Server, caplog: pytest.LogCaptureFixture) -> None:
    server.serve("/int.json", {"$defs": {"n": INTEGER}, "$ref": "#/$defs/n"})
    eng = fetching()
    schema = {"type": "object", "properties": {"a": {"$ref": server.url("/int.json")}}}
    with caplog.at_level(logging.INFO, logger="engine.fetch"):
        compiled = eng.compile(schema)
    assert compiled.is_valid({"a": 3}) and not compiled.is_valid({"a": "x"})
    assert compiled.guard.fetched == (server.url("/int.json"),)
    assert server.hits == ["/int.json"]
    assert any(server.url("/int.json") in r.getMessage() for r in caplog.records if r.name == "engine.fetch")
    # A different schema naming the same URI: served from the fetch cache.
    eng.compile({"items": {"$ref": server.url("/int.json")}})
    assert server.hits == ["/int.json"]


def test_a_fetch_cache_of_size_zero_keeps_nothing(server: Server) -> None:
    """`fetch.cache_size = 0` kept one document (the cache was made of size 1 at least): zero
    means no cache, as the engine's own `cache_size` does; each compile fetches again."""
    server.serve("/int.json", INTEGER)
    eng = fetching(cache_size=0)
    for schema in ({"$ref": server.url("/int.json")}, {"allOf": [{"$ref": server.url("/int.json")}]}):
        assert not eng.compile(schema).is_valid("x")
    assert server.hits == ["/int.json", "/int.json"]


def test_fetched_documents_are_guarded_too(server: Server) -> None:
    server.serve("/loop.json", {"$ref": "#"})
    with pytest.raises(engine.SchemaRejected) as refused:
        fetching().compile({"$ref": server.url("/loop.json")})
    assert refused.value.reason == "invalid-schema"
    server.serve("/onward.json", {"$ref": "http://169.254.169.254/latest/meta-data"})
    with pytest.raises(engine.SchemaRejected) as refused:
        fetching().compile({"$ref": server.url("/onward.json")})
    assert refused.value.reason == "remote-ref"
    assert "allowlist" in refused.value.message


def test_host_not_allowed(server: Server) -> None:
    server.serve("/int.json", INTEGER)
    with pytest.raises(engine.SchemaRejected) as refused:
        fetching(allow_hosts=["schemas.example.org"]).compile({"$ref": server.url("/int.json")})
    assert "allowlist" in refused.value.message
    assert server.hits == []


def test_https_only_unless_configured(server: Server) -> None:
    server.serve("/int.json", INTEGER)
    with pytest.raises(engine.SchemaRejected) as refused:
        fetching(allow_http=False).compile({"$ref": server.url("/int.json")})
    assert "scheme" in refused.value.message
    assert server.hits == []


def test_every_redirect_hop_is_checked(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    # A metadata address cannot be listed (a ConfigError): a listed name resolving to one is
    # refused at the connection.
    resolve = socket.getaddrinfo

    def to_metadata(host: str, port: int, *args: Any, **kwargs: Any) -> Any:
        if host == "metadata.example":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("169.254.169.254", port))]
        return resolve(host, port, *args, **kwargs)

    monkeypatch.setattr("socket.getaddrinfo", to_metadata)
    server.redirect("/meta", "http://metadata.example/latest/meta-data")
    with pytest.raises(engine.SchemaRejected) as refused:
        fetching(allow_hosts=["127.0.0.1", "metadata.example"]).compile({"$ref": server.url("/meta")})
    assert "metadata" in refused.value.message
    with pytest.raises(engine.ConfigError) as unlisted:
        fetching(allow_hosts=["127.0.0.1", "169.254.169.254"])
    assert unlisted.value.field == "fetch.allow_hosts" and "metadata" in unlisted.value.message
    server.redirect("/elsewhere", "http://localhost.example/x.json")
    with pytest.raises(engine.SchemaRejected) as refused:
        fetching().compile({"$ref": server.url("/elsewhere")})
    assert "allowlist" in refused.value.message
    server.serve("/int.json", INTEGER)
    server.redirect("/moved", "/int.json")
    assert fetching().compile({"$ref": server.url("/moved")}).is_valid(5)
    assert server.hits == ["/meta", "/elsewhere", "/moved", "/int.json"]


def test_redirect_loop_is_cut(server: Server) -> None:
    server.redirect("/a", "/b")
    server.redirect("/b", "/a")
    with pytest.raises(engine.SchemaRejected) as refused:
        fetching(max_redirects=3).compile({"$ref": server.url("/a")})
    assert "redirects" in refused.value.message
    assert len(server.hits) == 4


def test_body_size_cap(server: Server) -> None:
    server.serve("/big.json", {"description": "x" * 5000})
    with pytest.raises(engine.SchemaRejected) as refused:
        fetching(max_bytes=1000).compile({"$ref": server.url("/big.json")})
    assert "size cap" in refused.value.message


@pytest.mark.timeout(2.5)  # the 0.3 s deadline, enforced while the call runs (the server waits 5 s)
def test_total_timeout(server: Server) -> None:
    server.serve("/slow.json", INTEGER, delay=5.0)
    with pytest.raises(engine.SchemaRejected) as refused:
        fetching(total_timeout=0.3).compile({"$ref": server.url("/slow.json")})
    assert refused.value.reason == "remote-ref"
    assert refused.value.details["limit"] == "total_timeout"


def test_http_error_and_non_schema_bodies(server: Server) -> None:
    with pytest.raises(engine.SchemaRejected) as refused:
        fetching().compile({"$ref": server.url("/missing.json")})
    assert "404" in refused.value.message
    server.serve("/list.json", [1, 2])
    with pytest.raises(engine.SchemaRejected) as refused:
        fetching().compile({"$ref": server.url("/list.json")})
    assert "not a schema" in refused.value.message


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("127.0.0.1", "loopback"),
        ("::1", "loopback"),
        ("169.254.169.254", "metadata"),
        ("169.254.1.1", "link-local"),
        ("fe80::1", "link-local"),
        ("10.1.2.3", "private"),
        ("192.168.0.1", "private"),
        ("172.16.5.4", "private"),
        ("fd00::1", "private"),
        ("::ffff:127.0.0.1", "IPv4-mapped"),
        ("::ffff:8.8.8.8", "IPv4-mapped"),
        ("224.0.0.1", "multicast"),
        ("ff02::1", "multicast"),
        ("240.0.0.1", "reserved"),
        ("0.0.0.0", "unspecified"),
        ("100.64.0.1", "not globally routable"),
    ],
)
def test_address_policy(address: str, why: str) -> None:
    refusal = address_refusal(address, FetchConfig())
    assert refusal is not None and why in refusal


def test_public_addresses_pass_and_opt_ins_work() -> None:
    assert address_refusal("93.184.216.34", FetchConfig()) is None
    assert address_refusal("2606:4700::1111", FetchConfig()) is None
    assert address_refusal("127.0.0.1", FetchConfig(allow_loopback=True)) is None
    assert address_refusal("10.0.0.1", FetchConfig(allow_private=True)) is None
    assert address_refusal("169.254.169.254", FetchConfig(allow_private=True, allow_loopback=True)) is not None


def test_name_resolved_once_and_connection_pinned_to_the_checked_address(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = iter([("127.0.0.1",), ("169.254.169.254",)])  # a rebinding DNS server
    calls: list[str] = []

    def fake_getaddrinfo(host: str, port: int, *args: object, **kwargs: object) -> list:
        calls.append(host)
        (address,) = next(answers)
        return [(2, 1, 6, "", (address, port))]

    monkeypatch.setattr("socket.getaddrinfo", fake_getaddrinfo)
    server.serve("/int.json", INTEGER)
    url = f"http://schemas.test:{server.port}/int.json"
    compiled = fetching(allow_hosts=["schemas.test"]).compile({"$ref": url})
    assert compiled.is_valid(1)
    assert calls == ["schemas.test"]  # one resolution; the connection went to its answer
    assert server.hosts == [f"schemas.test:{server.port}"]


@pytest.mark.timeout(1.5)  # DNS answers after 20 s; the 0.2 s connect timeout must cut it
def test_slow_dns_is_cut_by_the_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    def slow_getaddrinfo(*args: object, **kwargs: object) -> list:
        time.sleep(20)
        return []

    monkeypatch.setattr("socket.getaddrinfo", slow_getaddrinfo)
    with pytest.raises(engine.SchemaRejected) as refused:
        fetching(allow_hosts=["slow.test"], connect_timeout=0.2).compile({"$ref": "http://slow.test/x.json"})
    assert "does not resolve" in refused.value.message


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(path=st.text(max_size=24), query=st.text(max_size=8))
def test_any_uri_text_ends_in_a_typed_refusal_or_a_document(running_server: Server, path: str, query: str) -> None:
    # Non-ASCII (an IRI), spaces, control characters, CRLF, "#", "%": never an exception other
    # than a refusal, never a request line or header that carries them raw.
    url = f"http://127.0.0.1:{running_server.port}/{path}" + (f"?{query}" if query else "")
    try:
        fetching().compile({"$ref": url})
    except engine.SchemaRejected as refused:
        assert refused.reason in ("remote-ref", "unresolvable-ref", "invalid-schema"), refused.message
        assert refused.message
    assert all("\r" not in hit and "\n" not in hit and " " not in hit for hit in running_server.hits)


def test_a_fetched_document_is_held_to_the_schema_document_limits(server: Server) -> None:
    deep: object = 1
    for _ in range(300):
        deep = [deep]
    server.serve("/deep.json", {"enum": [deep]})
    with pytest.raises(engine.SchemaRejected) as refused:
        fetching().compile({"$ref": server.url("/deep.json")})
    assert refused.value.reason == "limit-exceeded"
    assert refused.value.details["limit"] == "max_document_depth"
    assert refused.value.details["uri"] == server.url("/deep.json")
    server.serve("/wide.json", {"enum": ["x" * 100] * 100})
    settings = {"enabled": True, "allow_hosts": ["127.0.0.1"], "allow_http": True, "allow_loopback": True}
    config = engine.EngineConfig.load(env={}, fetch=settings, limits={"max_schema_bytes": 5000})
    with pytest.raises(engine.SchemaRejected) as refused:
        engine.Engine(config).compile({"$ref": server.url("/wide.json")})
    assert refused.value.details["limit"] == "max_schema_bytes"
    assert "fetched from" in refused.value.message


def test_a_redirect_to_no_uri_is_refused(server: Server) -> None:
    server.redirect("/bad", "http://[::1/x.json")  # an unclosed bracket: `urljoin` raises ValueError
    with pytest.raises(engine.SchemaRejected) as refused:
        fetching().compile({"$ref": server.url("/bad")})
    assert refused.value.reason == "remote-ref"
    assert "is not a URI" in refused.value.message


def test_a_wait_no_socket_takes_is_a_refusal(server: Server) -> None:
    """The configuration bounds the timeouts; were one past what a socket or a lock can wait
    (here forced past the check), the fetch is refused like any failed retrieval, and no
    OverflowError leaves the compile."""
    server.serve("/int.json", INTEGER)
    fetch = FetchConfig(enabled=True, allow_hosts=("127.0.0.1",), allow_http=True, allow_loopback=True)
    msgspec.structs.force_setattr(fetch, "total_timeout", 1e308)
    with pytest.raises(engine.SchemaRejected) as refused:
        engine.Engine(engine.EngineConfig(fetch=fetch)).compile({"$ref": server.url("/int.json")})
    assert refused.value.reason == "remote-ref"
    assert "OverflowError" in refused.value.message

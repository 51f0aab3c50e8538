"""Opt-in fetch over TLS, against a local server with a certificate made for the test (trusted
through SSL_CERT_FILE, which the default context reads when it is made): the connection goes to
the checked address, the certificate is checked against the host name, and the one deadline
covers the encrypted stream too."""

from __future__ import annotations

import datetime
import ipaddress
import socket
import ssl
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import engine

x509 = pytest.importorskip("cryptography.x509")
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from cryptography.x509.oid import NameOID  # noqa: E402

pytestmark = pytest.mark.timeout(30)

DEADLINE = 1.0
BODY = b'{"type": "integer"}'


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for localhost and 127.0.0.1 (not for any other name)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    folder = tmp_path_factory.mktemp("tls")
    cert_file, key_file = folder / "cert.pem", folder / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_file, key_file


Respond = Callable[[ssl.SSLSocket, threading.Event], None]


@pytest.fixture
def tls_server(certificate: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Respond], int]]:
    cert_file, key_file = certificate
    monkeypatch.setenv("SSL_CERT_FILE", str(cert_file))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    stop = threading.Event()
    listeners: list[socket.socket] = []

    def start(respond: Respond) -> int:
        listener = socket.create_server(("127.0.0.1", 0))
        listener.settimeout(0.1)
        listeners.append(listener)

        def serve() -> None:
            while not stop.is_set():
                try:
                    raw, _ = listener.accept()
                except (TimeoutError, OSError):
                    continue
                threading.Thread(target=answer, args=(raw,), daemon=True).start()

        def answer(raw: socket.socket) -> None:
            try:
                with context.wrap_socket(raw, server_side=True) as conn:
                    conn.settimeout(5)
                    request = b""
                    while b"\r\n\r\n" not in request:
                        data = conn.recv(4096)
                        if not data:
                            return
                        request += data
                    respond(conn, stop)
            except (OSError, ssl.SSLError):  # the client gave up or refused the certificate
                return

        threading.Thread(target=serve, daemon=True).start()
        port: int = listener.getsockname()[1]
        return port

    yield start
    stop.set()
    for listener in listeners:
        listener.close()


def whole(conn: ssl.SSLSocket, stop: threading.Event) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(BODY) + BODY)


def fetching(host: str, **fetch: Any) -> engine.Engine:
    settings: dict[str, Any] = {
        "enabled": True,
        "allow_hosts": [host],
        "allow_loopback": True,
        "total_timeout": DEADLINE,
        "connect_timeout": DEADLINE,
    }
    settings.update(fetch)
    return engine.Engine(engine.EngineConfig.load(env={}, fetch=settings))


def test_https_fetch_through_the_pinned_connection(tls_server: Callable[[Respond], int]) -> None:
    port = tls_server(whole)
    for host in ("127.0.0.1", "localhost"):
        compiled = fetching(host).compile({"$ref": f"https://{host}:{port}/s.json"})
        assert compiled.is_valid(3) and not compiled.is_valid("3")


def test_the_certificate_is_checked_against_the_host_name_not_the_address(
    tls_server: Callable[[Respond], int], monkeypatch: pytest.MonkeyPatch
) -> None:
    # schemas.test resolves to 127.0.0.1, whose certificate names localhost and 127.0.0.1 only.
    port = tls_server(whole)
    real = socket.getaddrinfo
    monkeypatch.setattr(socket, "getaddrinfo", lambda host, *a, **k: real("127.0.0.1", *a, **k))
    with pytest.raises(engine.SchemaRejected) as refused:
        fetching("schemas.test").compile({"$ref": f"https://schemas.test:{port}/s.json"})
    assert refused.value.reason == "remote-ref"
    assert "certificate verify failed" in refused.value.message.lower()


@pytest.mark.timeout(DEADLINE + 2.0)
@pytest.mark.parametrize("stage", ["headers", "body"])
def test_a_response_dribbled_inside_tls_ends_at_the_deadline(tls_server: Callable[[Respond], int], stage: str) -> None:
    def dribble(conn: ssl.SSLSocket, stop: threading.Event) -> None:
        head = b"HTTP/1.1 200 OK\r\n" + (b"X-Slow: " if stage == "headers" else b"Content-Length: 9999\r\n\r\n{")
        conn.sendall(head)
        while not stop.wait(0.25):
            conn.sendall(b" ")  # one TLS record a byte

    port = tls_server(dribble)
    with pytest.raises(engine.SchemaRejected) as refused:
        fetching("127.0.0.1").compile({"$ref": f"https://127.0.0.1:{port}/s.json"})
    assert refused.value.details["limit"] == "total_timeout"
    assert stage in refused.value.details["stage"]

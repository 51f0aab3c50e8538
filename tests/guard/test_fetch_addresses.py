"""Opt-in fetch: only globally routable unicast addresses are connected to.

Every class of non-public address is refused, including each IPv6 form that embeds an IPv4
address (a connection to one reaches, or is translated to, that IPv4 host). ``allow_loopback``
opens loopback only; ``allow_private`` opens RFC 1918 and fc00::/7 only.
"""

from __future__ import annotations

import ipaddress
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine._config import FetchConfig
from engine._guard.fetch import address_refusal

# Address checks never touch the network; a hang fails the test by name.
pytestmark = pytest.mark.timeout(60)

DEFAULT = FetchConfig()
EVERYTHING_ALLOWED = FetchConfig(allow_private=True, allow_loopback=True)
RFC1918 = [ipaddress.ip_network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16")]
ULA = ipaddress.ip_network("fc00::/7")

CLASSES = [
    # (address, words the refusal names) - refused under every configuration
    ("2002:7f00:1::1", "6to4"),  # 127.0.0.1
    ("2002:a9fe:a9fe::1", "6to4"),  # 169.254.169.254
    ("2002:a00:1::1", "6to4"),  # 10.0.0.1
    ("2002:808:808::1", "6to4"),  # 8.8.8.8: a public IPv4 inside is refused too
    ("2001:0:4136:e378:8000:63bf:80ff:fffe", "Teredo"),  # client 127.0.0.1
    ("2001::1", "Teredo"),
    ("64:ff9b::7f00:1", "NAT64"),
    ("64:ff9b::a9fe:a9fe", "NAT64"),
    ("64:ff9b::808:808", "NAT64"),
    ("64:ff9b:1::a00:1", "NAT64"),
    ("::7f00:1", "IPv4-compatible"),
    ("::a9fe:a9fe", "IPv4-compatible"),
    ("::ffff:127.0.0.1", "IPv4-mapped"),
    ("::ffff:169.254.169.254", "IPv4-mapped"),
    ("::ffff:8.8.8.8", "IPv4-mapped"),
    ("::ffff:0:7f00:1", "IPv4-translated"),
    ("2001:4860::5efe:7f00:1", "ISATAP"),  # a global prefix, 127.0.0.1 behind it
    ("2a00:1450::200:5efe:a9fe:a9fe", "ISATAP"),  # u/g bit set, 169.254.169.254
    ("fec0::1", "site-local"),
    ("feff:ffff::1", "site-local"),
    ("fe80::1", "link-local"),
    ("fe80::1%eth0", "link-local"),
    ("169.254.169.254", "metadata"),
    ("169.254.0.1", "link-local"),
    ("fd00:ec2::254", "metadata"),
    ("100.100.100.200", "metadata"),
    ("100.64.0.1", "not globally routable"),
    ("192.0.2.1", "not globally routable"),
    ("198.18.0.1", "not globally routable"),
    ("192.0.0.8", "not globally routable"),  # this Python calls it global
    ("192.88.99.1", "not globally routable"),  # the 6to4 relay anycast block
    ("2001:db8::1", "not globally routable"),
    ("3fff::1", "not globally routable"),
    ("100::1", "reserved"),
    ("4000::1", "reserved"),
    ("240.0.0.1", "reserved"),
    ("224.0.0.1", "multicast"),
    ("ff02::1", "multicast"),
    ("0.0.0.0", "unspecified"),
    ("::", "unspecified"),
    ("not-an-address", "not an IP address"),
]


@pytest.mark.parametrize(("address", "why"), CLASSES)
def test_every_non_public_class_is_refused_under_every_configuration(address: str, why: str) -> None:
    for config in (DEFAULT, FetchConfig(allow_loopback=True), FetchConfig(allow_private=True), EVERYTHING_ALLOWED):
        refusal = address_refusal(address, config)
        assert refusal is not None and why in refusal, (address, config, refusal)


@pytest.mark.parametrize(
    ("address", "opened_by"),
    [
        ("127.0.0.1", "allow_loopback"),
        ("127.1.2.3", "allow_loopback"),
        ("::1", "allow_loopback"),
        ("10.1.2.3", "allow_private"),
        ("172.31.255.255", "allow_private"),
        ("192.168.0.1", "allow_private"),
        ("fd12:3456::1", "allow_private"),
        ("fc00::1", "allow_private"),
    ],
)
def test_each_opt_in_opens_its_own_class_and_no_other(address: str, opened_by: str) -> None:
    assert address_refusal(address, DEFAULT) is not None
    other = "allow_private" if opened_by == "allow_loopback" else "allow_loopback"
    opened = {"allow_loopback": FetchConfig(allow_loopback=True), "allow_private": FetchConfig(allow_private=True)}
    assert address_refusal(address, opened[other]) is not None
    assert address_refusal(address, opened[opened_by]) is None


@pytest.mark.parametrize("address", ["8.8.8.8", "93.184.216.34", "1.1.1.1", "2606:4700::1111", "2a00:1450::1"])
def test_public_addresses_pass(address: str) -> None:
    assert address_refusal(address, DEFAULT) is None


IPV4 = st.integers(min_value=0, max_value=2**32 - 1)


def embeddings(v4: int, tail: int) -> list[str]:
    """Every IPv6 form that carries ``v4`` (``tail`` fills the bits a form leaves free)."""
    forms = [
        (0xFFFF << 32) | v4,  # ::ffff:a.b.c.d  IPv4-mapped
        (0xFFFF << 48) | v4,  # ::ffff:0:a.b.c.d  IPv4-translated
        (0x64FF9B << 96) | v4,  # 64:ff9b::a.b.c.d  NAT64
        (0x64FF9B0001 << 80) | (v4 << 16) | (tail & 0xFFFF),  # 64:ff9b:1::/48, IPv4 in bits 48-80
        (0x2002 << 112) | (v4 << 80) | (tail & (2**80 - 1)),  # 2002:aabb:ccdd::/48  6to4
        # Teredo: 2001:0::/32, server, flags, port, and the client IPv4 obfuscated (xor all ones).
        (0x20010000 << 96) | ((tail & (2**64 - 1)) << 32) | (v4 ^ 0xFFFFFFFF),
    ]
    # ISATAP: any prefix (here from `tail`, kept inside 2000::/3), 0:5efe or 200:5efe, the IPv4.
    prefix = (0x2000 << 48) | (tail & (2**61 - 1))
    forms.append((prefix << 64) | (0x5EFE << 32) | v4)
    forms.append((prefix << 64) | (0x0200_5EFE << 32) | v4)
    if v4 > 1:
        forms.append(v4)  # ::a.b.c.d  IPv4-compatible (:: and ::1 are not)
    return [str(ipaddress.IPv6Address(f)) for f in forms]


@settings(max_examples=400, deadline=None)
@given(IPV4, st.integers(min_value=0, max_value=2**96 - 1))
def test_no_ipv6_form_embedding_an_ipv4_address_passes(v4: int, tail: int) -> None:
    for address in embeddings(v4, tail):
        refusal = address_refusal(address, EVERYTHING_ALLOWED)
        assert refusal is not None and "embeds an IPv4 address" in refusal, (address, str(ipaddress.IPv4Address(v4)))


@settings(max_examples=1000, deadline=None)
@given(IPV4)
def test_an_ipv4_address_passes_only_when_public_or_opened(v4: int) -> None:
    ip = ipaddress.IPv4Address(v4)
    private = any(ip in net for net in RFC1918)
    special = any(ip in ipaddress.ip_network(n) for n in ("192.0.0.0/24", "192.88.99.0/24"))
    public = ip.is_global and not ip.is_multicast and not ip.is_reserved and not special
    assert (address_refusal(str(ip), DEFAULT) is None) is public, ip
    if address_refusal(str(ip), EVERYTHING_ALLOWED) is None:
        assert public or private or ip.is_loopback, ip
    if ip.is_link_local:
        assert address_refusal(str(ip), EVERYTHING_ALLOWED) is not None


@settings(max_examples=1000, deadline=None)
@given(
    st.one_of(
        st.integers(min_value=0, max_value=2**128 - 1),
        # Denser near the special prefixes, where uniform draws rarely land.
        st.builds(
            lambda prefix, rest: (prefix << 112) | rest,
            st.sampled_from([0, 0x64, 0x100, 0x2001, 0x2002, 0x3FFF, 0xFC00, 0xFD00, 0xFE80, 0xFEC0, 0xFF02]),
            st.integers(min_value=0, max_value=2**112 - 1),
        ),
    )
)
def test_an_ipv6_address_passes_only_when_global_unicast_or_opened(value: int) -> None:
    ip = ipaddress.IPv6Address(value)
    if address_refusal(str(ip), DEFAULT) is None:
        assert ip in ipaddress.ip_network("2000::/3") and ip.is_global, ip
        assert ip.sixtofour is None and ip.teredo is None and ip.ipv4_mapped is None, ip
    if address_refusal(str(ip), EVERYTHING_ALLOWED) is None:
        assert ip in ipaddress.ip_network("2000::/3") or ip in ULA or ip.is_loopback, ip
    if ip.is_link_local or ip.is_site_local:
        assert address_refusal(str(ip), EVERYTHING_ALLOWED) is not None


@pytest.mark.parametrize("address", ["2002:7f00:1::1", "fec0::1", "64:ff9b::a9fe:a9fe", "::ffff:10.0.0.1"])
def test_a_host_resolving_to_such_an_address_is_never_connected_to(
    address: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    connections: list[object] = []

    def getaddrinfo(host: str, port: int, *args: object, **kwargs: object) -> list[Any]:
        return [(10, 1, 6, "", (address, port, 0, 0))]

    monkeypatch.setattr("socket.getaddrinfo", getaddrinfo)
    monkeypatch.setattr("engine._guard.fetch._connect", lambda *a, **k: connections.append(a))
    config = engine.EngineConfig.load(
        env={},
        fetch={"enabled": True, "allow_hosts": ["schemas.test"], "allow_private": True, "allow_loopback": True},
    )
    with pytest.raises(engine.SchemaRejected) as refused:
        engine.Engine(config).compile({"$ref": "https://schemas.test/s.json"})
    assert refused.value.reason == "remote-ref"
    assert address in refused.value.message and refused.value.details["uri"] == "https://schemas.test/s.json"
    assert connections == []

"""Fetch settings that could never fetch anything are refused when configured, from every source:
an `allow_hosts` entry the fetcher's host match never matches (a URL, a port, a path...), and
fetching turned on with no host to fetch from. Both were accepted, and every remote `$ref` was
then refused at compile time as "not in the fetch allowlist", with the host visibly listed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import engine
from engine import ConfigError, EngineConfig, FetchConfig

REFUSED = [
    ("https://schemas.example.org/", "is a URL: list the host name alone, 'schemas.example.org'"),
    ("http://schemas.example.org:8080/s.json", "is a URL: list the host name alone, 'schemas.example.org'"),
    ("schemas.example.org:443", "names a port: a host is allowed whatever the port, list 'schemas.example.org'"),
    ("192.0.2.1:80", "names a port: a host is allowed whatever the port, list '192.0.2.1'"),
    ("schemas.example.org/schemas", "has a path: list the host name alone, 'schemas.example.org'"),
    ("user@schemas.example.org", "holds a user name: list the host name alone, 'schemas.example.org'"),
    ("[2001:db8::1]", "is an IPv6 address in brackets: list it without them, '2001:db8::1'"),
    ("[2001:db8::1]:443", "is an IPv6 address in brackets: list it without them, '2001:db8::1'"),
    ("*.example.org", "is a wildcard: '.example.org' allows every subdomain of 'example.org'"),
    ("schemas.*.org", "holds a '*', and there are no wildcards ('.example.org' allows every subdomain of example.org)"),
    ("schemas.example.org.", "ends with a dot: list 'schemas.example.org'"),
    ("", "is empty: list a host name"),
    (" schemas.example.org", "has blanks around it: list 'schemas.example.org'"),
    ("schemas example.org", "holds a blank: a host name has none"),
    (".", "is not a host name, an IP address or a dot and a domain"),
    ("schemas..org", "is not a host name, an IP address or a dot and a domain"),
    ("schemas.example.org?x", "is not a host name, an IP address or a dot and a domain"),
]
ACCEPTED = ["schemas.example.org", ".example.org", "Schemas.Example.ORG", "localhost", "192.0.2.1", "2001:db8::1"]
ALLOWED = "a host name (schemas.example.org), a dot and a domain for its subdomains (.example.org), or an IP address"


def _every_source(entries: list[str], tmp_path: Path) -> dict[str, tuple[str, Any]]:
    """How each way a configuration arrives names ``fetch.allow_hosts``, and a build from it."""
    fetch = {"enabled": True, "allow_hosts": entries}
    pyproject = tmp_path / "pyproject.toml"
    listed = ", ".join(f'"{entry}"' for entry in entries)
    pyproject.write_text(f"[tool.engine.fetch]\nenabled = true\nallow_hosts = [{listed}]\n")
    sources: dict[str, tuple[str, Any]] = {
        "EngineConfig": ("fetch.allow_hosts", lambda: EngineConfig(fetch=fetch)),
        "FetchConfig": ("fetch.allow_hosts", lambda: FetchConfig(enabled=True, allow_hosts=entries)),
        "Engine": ("fetch.allow_hosts", lambda: engine.Engine(fetch=fetch)),
        "replace": ("fetch.allow_hosts", lambda: EngineConfig().replace(fetch=fetch)),
        "load": ("fetch.allow_hosts", lambda: EngineConfig.load(False, env={}, fetch=fetch)),
        "pyproject": (f"{pyproject} [tool.engine] fetch.allow_hosts", lambda: EngineConfig.load(pyproject, env={})),
    }
    if all(entry and entry == entry.strip() and "," not in entry for entry in entries):  # as a list of one line
        env = {"ENGINE_FETCH_ENABLED": "true", "ENGINE_FETCH_ALLOW_HOSTS": ",".join(entries)}
        sources["environment"] = ("ENGINE_FETCH_ALLOW_HOSTS", lambda: EngineConfig.load(False, env=env))
    return sources


@pytest.mark.parametrize(("entry", "why"), REFUSED, ids=[entry or "empty" for entry, _ in REFUSED])
def test_an_allow_hosts_entry_the_fetcher_never_matches_is_refused(entry: str, why: str, tmp_path: Path) -> None:
    for how, (where, build) in _every_source(["a.example", entry], tmp_path).items():
        with pytest.raises(ConfigError) as refused:
            build()
        assert refused.value.message == f"{where}[1]: {entry!r} {why}", how
        assert refused.value.field == "fetch.allow_hosts" and refused.value.allowed.startswith(ALLOWED), how


def test_entries_the_fetcher_matches_are_accepted(tmp_path: Path) -> None:
    for how, (_, build) in _every_source(ACCEPTED, tmp_path).items():
        built = build()
        config = built.config if isinstance(built, engine.Engine) else built
        fetch = config if isinstance(config, FetchConfig) else config.fetch
        assert fetch.allow_hosts == tuple(ACCEPTED), how


def test_fetching_on_with_no_host_to_fetch_from_is_refused(tmp_path: Path) -> None:
    sentence = (
        "fetching is on, but fetch.allow_hosts is empty, so nothing would ever be fetched; "
        "list the hosts to fetch from in fetch.allow_hosts, or leave fetch.enabled false"
    )
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text("[tool.engine.fetch]\nenabled = true\n")
    listed = EngineConfig(fetch={"allow_hosts": ["a.example"]})
    attempts: list[tuple[str, Any]] = [
        ("fetch.enabled", lambda: EngineConfig(fetch={"enabled": True})),
        ("fetch.enabled", lambda: FetchConfig(enabled=True)),
        ("fetch.enabled", lambda: engine.Engine(fetch={"enabled": True, "allow_hosts": []})),
        ("fetch.enabled", lambda: listed.replace(fetch={"enabled": True, "allow_hosts": []})),
        ("fetch.enabled", lambda: EngineConfig().replace(fetch={"enabled": True})),
        ("fetch.enabled", lambda: EngineConfig.load(False, env={}, fetch={"enabled": True})),
        ("ENGINE_FETCH_ENABLED", lambda: EngineConfig.load(False, env={"ENGINE_FETCH_ENABLED": "true"})),
        (f"{pyproject} [tool.engine] fetch.enabled", lambda: EngineConfig.load(pyproject, env={})),
    ]
    for where, attempt in attempts:
        with pytest.raises(ConfigError) as refused:
            attempt()
        assert refused.value.message == f"{where}: {sentence}"
        assert refused.value.field == "fetch.enabled"
    # Hosts from one source and fetching turned on from another make one working configuration.
    env = {"ENGINE_FETCH_ENABLED": "true"}
    assert EngineConfig.load(False, env=env, fetch={"allow_hosts": ["a.example"]}).fetch.enabled
    assert listed.replace(fetch={"enabled": True}).fetch.enabled
    # Off, an allowlist is kept for when fetching is turned on.
    assert EngineConfig(fetch={"allow_hosts": ["a.example"]}).fetch.allow_hosts == ("a.example",)

"""What single configuration values may be, beyond their type: the range of each number, what an
entry of ``fetch.allow_hosts`` may be, and a value shown short in the message that refuses it
(:mod:`engine._config` applies them)."""

from __future__ import annotations

import ipaddress
import os
import re
import reprlib
from typing import Any
from urllib.parse import urlsplit

__all__ = [
    "ALLOWED_HOSTS",
    "LARGEST_INTEGER",
    "MAXIMUM",
    "MINIMUM",
    "UnusablePath",
    "host_entry_problem",
    "number_from_text",
    "read_at_most",
    "short_repr",
    "shown_path",
    "toml_document",
]

# The smallest value each numeric field accepts, by field name; 0 for the others, where zero
# means "none": no cache (`cache_size`), no redirect, no `allOf` branch, property, `enum` or
# `pattern` (a schema with one is refused), no `unevaluated*`, only scalar instances
# (`max_instance_depth`), no explanation (`max_explain_work`: one issue says it was not made).
# A bound under which every schema, instance or fetched document is refused, or an issue list
# with no room for an issue, is no setting: `{}`, the smallest object schema, is 2 bytes and
# nests 1 level (0 admits only `true` and `false`), is one subschema, applies one to the root.
MINIMUM: dict[str, float] = {
    "backtrack_limit": 1,
    "max_bytes": 2,  # fetch: the smallest schema document
    "max_schema_bytes": 2,
    **dict.fromkeys(("max_document_depth", "max_schema_depth", "max_subschemas", "max_ref_expansion"), 1),
    **dict.fromkeys(("max_eval_depth", "max_instance_bytes", "max_issues"), 1),
}
# The largest, for the values that reach native code or the OS: jsonschema-rs takes the backtrack
# limit as a machine word (a u32 fits every platform's), and a timeout, once added to a clock or
# handed to a socket or a lock, must stay within their range (a day is far past any use).
# The depth bounds too: the native validators and Python's encoders recurse once a level, and 512
# stays within Python's recursion limit (1,000: a list 1,500 deep raised `RecursionError` where
# the bound allowed it) and the thread stacks jsonschema-rs was measured on.
MAXIMUM: dict[str, float] = {
    "backtrack_limit": 2**32 - 1,
    **dict.fromkeys(("max_document_depth", "max_schema_depth", "max_eval_depth", "max_instance_depth"), 512),
    "connect_timeout": 86_400.0,
    "total_timeout": 86_400.0,
    "max_explain_seconds": 86_400.0,
}
LARGEST_INTEGER = 2**63 - 1
"""The largest value of every other integer setting: each reaches native code as a machine word
(a length, a capacity) or the clock as a float (a work budget times the seconds an evaluation
takes: 10^400 raised ``OverflowError`` from every compile on the python-jsonschema backend)."""


_INTEGER_TEXT = re.compile(r"\s*[+-]?[0-9]+\s*")
_NUMBER_TEXT = re.compile(r"\s*[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\s*")


def number_from_text(text: str, *, integral: bool) -> int | float | str:
    """The number an environment variable spells in ASCII digits (a sign, blanks around; for a
    float a fraction and an exponent), or ``text`` itself if it spells none (or an integer of more
    digits than this interpreter reads as one, 4300 by default): ``int`` and ``float``
    also read ``1_000``, digits of other scripts and ``nan``."""
    if (_INTEGER_TEXT if integral else _NUMBER_TEXT).fullmatch(text) is None:
        return text
    if not integral:
        return float(text)
    try:
        return int(text)
    except ValueError:  # more digits than this interpreter reads (4300 by default): refused as text
        return text


class _ShortRepr(reprlib.Repr):
    def repr_int(self, x: int, level: int) -> str:
        # `repr` of an int past 4300 digits raises, and of a long one is a long text.
        if x.bit_length() > 128:
            return f"<an integer of {x.bit_length()} bits>"
        return super().repr_int(x, level)


_SHORT_REPR = _ShortRepr()
_SHORT_REPR.maxstring = _SHORT_REPR.maxother = _SHORT_REPR.maxlong = 50
_SHORT_REPR.maxlist = _SHORT_REPR.maxtuple = _SHORT_REPR.maxdict = _SHORT_REPR.maxset = 4
_SHORT_REPR.maxlevel = 1


def short_repr(value: Any) -> str:
    """``repr(value)`` for a message in a few hundred characters at most (four entries of a container,
    nested ones as ``[...]``): a value from outside can be any size, or share containers and print huge."""
    return _SHORT_REPR.repr(value)


ALLOWED_HOSTS = (
    "a host name (schemas.example.org), a dot and a domain for its subdomains (.example.org), "
    "or an IP address (192.0.2.1, 2001:db8::1)"
)


def host_entry_problem(entry: str) -> str | None:
    """What is wrong with ``entry`` of ``fetch.allow_hosts``, as the rest of a sentence that starts
    with it (``is a URL: ...``), or ``None`` for an entry the fetcher can match.

    The fetcher compares the host of a URI as ``urlsplit`` reads it (lower case, no port, no
    user, an IPv6 address without its brackets) with each entry, lower-cased: the same text, or,
    for an entry starting with a dot, a name ending with it. So an entry is a host name, an IP
    address or a dot and a domain (upper case is matched as lower case); a URL, a port, a path, a
    wildcard or blanks would never match, and were accepted, to refuse every fetch later as "not
    in the fetch allowlist" while the host was visibly listed.
    """
    if not entry.strip():
        return "is empty: list a host name"
    if entry != entry.strip():
        return f"has blanks around it: list {entry.strip()!r}"
    if any(character.isspace() for character in entry):
        return "holds a blank: a host name has none"
    if "://" in entry:
        host = _host_of(entry)
        return f"is a URL: list the host name alone, {host!r}" if host else "is a URL: list its host name alone"
    if entry.startswith("["):  # an IPv6 address as a URI writes it, perhaps with a port
        host = _host_of(f"https://{entry}")
        if host and _is_ipv6(host):
            return f"is an IPv6 address in brackets: list it without them, {host!r}"
        return _NOT_A_HOST
    if "/" in entry:
        return f"has a path: list the host name alone, {entry.split('/', 1)[0]!r}"
    if "@" in entry:
        return f"holds a user name: list the host name alone, {entry.rsplit('@', 1)[1]!r}"
    if ":" in entry:
        if "%" not in entry and _is_ipv6(entry):
            return _never_fetched(entry)
        host, _, port = entry.rpartition(":")
        if port.isdigit() and host and ":" not in host:
            return f"names a port: a host is allowed whatever the port, list {host!r}"
        return _NOT_A_HOST
    if "*" in entry:
        if entry.startswith("*.") and "*" not in entry[1:]:
            return f"is a wildcard: {entry[1:]!r} allows every subdomain of {entry[2:]!r}"
        return "holds a '*', and there are no wildcards ('.example.org' allows every subdomain of example.org)"
    name = entry[1:] if entry.startswith(".") else entry
    if name.endswith(".") and name.strip("."):
        return f"ends with a dot: list {entry.rstrip('.')!r}"
    if all(label and all(c.isalnum() or c in "-_" for c in label) for label in name.split(".")):
        return _never_fetched(entry) if not entry.startswith(".") else None
    return _NOT_A_HOST


def _never_fetched(entry: str) -> str | None:
    """Why an IP address ``entry`` can never be fetched from, or ``None``: a cloud instance-metadata
    endpoint is refused at every connection whatever the configuration, in any spelling a resolver
    reads (``2852039166`` and ``0xa9fea9fe`` are 169.254.169.254). Other addresses the fetcher
    refuses stay listable: documentation ranges (tests resolve names to them), and the IPv6 forms
    embedding an IPv4 address, refused at each connection."""
    from ._guard.fetch import METADATA_ADDRESSES  # read late: the fetcher loads only where it is used
    from ._guard.uris import ip_address_of

    if ip_address_of(entry.lower()) in METADATA_ADDRESSES:
        return "is a cloud instance-metadata address, which the fetcher refuses under every configuration"
    return None  # a host name: its addresses are checked when it is resolved


_NOT_A_HOST = "is not a host name, an IP address or a dot and a domain"


def _host_of(url: str) -> str | None:
    try:
        return urlsplit(url).hostname or None
    except ValueError:  # an unclosed IPv6 bracket, say
        return None


def _is_ipv6(text: str) -> bool:
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


MAX_CONFIG_BYTES = 1 << 20
"""The longest configuration file read (1 MiB): a path may name anything (``/dev/zero`` grew the
process by a gigabyte a second)."""


class _TooLong(ValueError):
    pass


class UnusablePath(ValueError):
    """A path no file can have here (a NUL character, one the file system's encoding cannot spell)."""


_NO_WAIT = getattr(os, "O_NONBLOCK", 0)


def read_at_most(path: str | os.PathLike[str], limit: int) -> bytes:
    """Up to ``limit`` bytes of the file at ``path``, opened without waiting: a named pipe no one
    writes to would hold ``open`` for ever (it then reads as empty); reads wait for a writer's data
    as usual. Raises ``OSError``, or :class:`UnusablePath`."""
    try:
        fd = os.open(path, os.O_RDONLY | _NO_WAIT)
    except UnicodeEncodeError:
        raise UnusablePath("the path holds a character no file name here can spell") from None
    except ValueError:  # "embedded null byte"
        raise UnusablePath("the path holds a NUL character") from None
    try:
        if _NO_WAIT:
            os.set_blocking(fd, True)
        fh = open(fd, "rb")  # noqa: SIM115 - closed by the `with` below, or here if it fails
    except BaseException:
        os.close(fd)
        raise
    with fh:
        return fh.read(limit)


def shown_path(path: str | os.PathLike[str]) -> str:
    """``path`` as a message shows it: as it is, or quoted with escapes where it holds what a
    terminal would not show (a control character, a lone surrogate)."""
    text = os.fspath(path)
    return text if text.isprintable() else repr(text)


def toml_text(data: bytes) -> str:
    """The text of a configuration file read up to one byte past :data:`MAX_CONFIG_BYTES`."""
    if len(data) > MAX_CONFIG_BYTES:
        raise _TooLong
    return data.decode()


def toml_document(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The TOML document in the file at ``path``; a ``ConfigError`` naming the file and why it
    cannot be read otherwise."""
    import tomllib

    from ._config import ConfigError  # (late: that module imports this one)

    try:  # bounded, and not waiting on a pipe: a path may name anything (`/dev/zero`, a FIFO)
        return tomllib.loads(toml_text(read_at_most(path, MAX_CONFIG_BYTES + 1)))
    except (OSError, ValueError, RecursionError) as exc:  # ValueError: TOMLDecodeError, not UTF-8, a huge int, the path
        shown = shown_path(path)
        raise ConfigError(f"{shown}: cannot be read as TOML ({toml_failure(exc)})", source=shown) from None


def toml_failure(exc: BaseException) -> str:
    """Why a TOML file could not be read, in a few words: the parser's sentence, or what no parser
    reads (bytes that are not UTF-8, an integer past the interpreter's text limit, arrays nested
    past its stack)."""
    import tomllib

    if isinstance(exc, OSError):
        return exc.strerror or type(exc).__name__
    if isinstance(exc, UnusablePath):
        return str(exc)
    if isinstance(exc, tomllib.TOMLDecodeError):
        return str(exc)[:200]
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 text: byte {exc.start} cannot start a character"
    if isinstance(exc, RecursionError):
        return "arrays or tables nested too deeply to read"
    if isinstance(exc, _TooLong):
        return f"longer than {MAX_CONFIG_BYTES} bytes"
    return "a number with more digits than this interpreter reads"

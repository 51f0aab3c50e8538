"""Sessions: `nox -s tests` runs the test suite, `nox -s bench` the benchmark report."""

from __future__ import annotations

import shutil

import nox

nox.options.sessions = ["tests"]
nox.options.reuse_existing_virtualenvs = True


@nox.session
def tests(session: nox.Session) -> None:
    """Install the package with every backend and run the whole test suite."""
    session.install("-e", ".[test]")
    if shutil.which("npm"):  # the MCP TypeScript SDK's client, for the adapters' interoperability tests
        session.run(
            "npm",
            "install",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            "--prefix",
            "tests/adapters/typescript",
            external=True,
        )
    # One worker per core (pytest-xdist): each test stands alone, and the suite's 42,000 items take
    # half the time on CI's two cores. `nox -s tests -- -n 0` runs them in one process.
    session.run("python", "-m", "pytest", "-n", "auto", *session.posargs)


@nox.session
def bench(session: nox.Session) -> None:
    """Run the benchmark report on the data shipped in bench_data/ (pass --quick for a smoke run)."""
    session.install("-e", ".[bench]")
    session.run("python", "-m", "benchmarks", *session.posargs)


@nox.session
def load(session: nox.Session) -> None:
    """Concurrent tool calls against a local MCP server, with and without the engine's adapters."""
    session.install("-e", ".[bench]")
    session.run("python", "-m", "benchmarks.load", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """Static checks: ruff (lint and format) on the sources, ``mypy --strict`` on the package. The package is installed
    with every optional dependency it imports, so the adapters and the metrics exporters are
    checked against the real SDK and client types."""
    # Pinned: a new release must not turn CI red on its own.
    session.install("ruff==0.17.5", "mypy==2.4.1")
    session.install("-e", ".[all,mcp,fastmcp,prometheus,opentelemetry]")
    session.run("ruff", "check", "engine", "tests", "benchmarks")
    session.run("ruff", "format", "--check", "engine", "tests", "benchmarks", "noxfile.py")
    session.run("mypy", "--strict", "engine")

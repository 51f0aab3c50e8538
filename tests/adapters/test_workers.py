"""More than one process: gunicorn with 2 uvicorn workers on 127.0.0.1, the tools compiled once in
the master before the fork (``--preload``), so no worker compiles on its first request; every
call, on both protocol generations, is validated by whichever worker takes it."""

from __future__ import annotations

import ast
import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'engine[mcp]')")
pytest.importorskip("gunicorn", reason="gunicorn is not installed")
pytest.importorskip("uvicorn_worker", reason="uvicorn-worker is not installed")

from mcp import Client  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def workers() -> Iterator[tuple[str, subprocess.Popen[str]]]:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "tests.adapters.workers_app:app",
            "--preload",
            "--workers",
            "2",
            "--worker-class",
            "uvicorn_worker.UvicornWorker",
            "--bind",
            f"127.0.0.1:{port}",
            "--graceful-timeout",
            "5",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                break
        except OSError as exc:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                output = process.stdout.read() if process.stdout else ""
                raise RuntimeError("gunicorn did not start:\n" + output) from exc
            time.sleep(0.1)
    try:
        yield f"http://127.0.0.1:{port}/mcp", process
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, timeout=90))


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_two_workers_share_the_compiled_tools(workers: tuple[str, subprocess.Popen[str]], mode: str) -> None:
    url, process = workers

    async def main() -> dict[int, int]:
        seen: dict[int, int] = {}
        for n in range(200):  # bounded: each new connection lands on either worker
            async with Client(url, mode=mode) as client:
                result = await client.call_tool("whoami", {"n": n})
                about = result.structured_content or ast.literal_eval(result.content[0].text)
                seen[about["pid"]] = about["compiled_after_fork"]
                refused = await client.call_tool("whoami", {"n": "one"})
                assert refused.is_error and "Invalid arguments" in refused.content[0].text
            if len(seen) == 2:
                break
        return seen

    seen = run(main())
    assert len(seen) == 2, f"only one worker answered: {seen}"
    assert process.pid not in seen  # the workers, not the master
    assert set(seen.values()) == {0}, f"a worker compiled after the fork: {seen}"

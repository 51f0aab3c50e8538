"""What went over the wire: an ASGI wrapper that keeps every JSON-RPC response the server sent."""

from __future__ import annotations

import json
from typing import Any

Scope = dict[str, Any]


class WireRecorder:
    """Wraps an ASGI app; ``responses`` are the JSON-RPC messages it answered with, in order, each
    paired with the request it answered (``(request, response)``, JSON decoded, SSE unwrapped)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.exchanges: list[tuple[Any, Any]] = []

    def __getattr__(self, name: str) -> Any:  # the app's lifespan and router stay reachable
        return getattr(self.app, name)

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_body = bytearray()
        response_body = bytearray()

        async def recv() -> Any:
            message = await receive()
            if message["type"] == "http.request":
                request_body.extend(message.get("body", b""))
            return message

        async def snd(message: Any) -> None:
            if message["type"] == "http.response.body":
                response_body.extend(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, recv, snd)
        finally:
            try:
                request = json.loads(request_body) if request_body else None
            except ValueError:
                request = None
            for response in _messages(bytes(response_body)):
                self.exchanges.append((request, response))

    def results_of(self, method: str, *, tool: str | None = None) -> list[tuple[Any, Any]]:
        """(request, JSON-RPC response) of each ``method`` call (``tools/call`` of ``tool``)."""
        found = []
        for request, response in self.exchanges:
            if not isinstance(request, dict) or request.get("method") != method or "id" not in response:
                continue
            if response.get("id") != request.get("id"):
                continue
            if tool is not None and (request.get("params") or {}).get("name") != tool:
                continue
            found.append((request, response))
        return found


def _messages(body: bytes) -> list[Any]:
    text = body.decode("utf-8", "replace").strip()
    if not text:
        return []
    if text.startswith("{") or text.startswith("["):
        try:
            value = json.loads(text)
        except ValueError:
            return []
        return value if isinstance(value, list) else [value]
    messages = []
    for line in text.splitlines():
        if line.startswith("data:"):
            data = line[5:].strip()
            if data:
                try:
                    messages.append(json.loads(data))
                except ValueError:
                    pass
    return messages

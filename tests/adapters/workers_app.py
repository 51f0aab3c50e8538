"""The app the multi-worker test serves: tools compiled once in the master, before the fork.

``gunicorn tests.adapters.workers_app:app --preload -w 2 -k uvicorn_worker.UvicornWorker``
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

import mcp_types as types
from mcp.server import Server

import engine
from benchmarks.load import load_replay_tools
from engine.adapters.mcp_sdk import ToolValidation

eng = engine.Engine()
TOOLS = [types.Tool.model_validate(t.definition) for t in load_replay_tools()]
WHOAMI = types.Tool(
    name="whoami",
    input_schema={
        "type": "object",
        "properties": {"n": {"type": "integer"}},
        "required": ["n"],
        "additionalProperties": False,
    },
)


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[*TOOLS, WHOAMI])


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    misses = eng.cache_stats().misses
    about = {"pid": os.getpid(), "compiled_after_fork": misses - COMPILED_BEFORE_FORK}
    return types.CallToolResult(content=[types.TextContent(type="text", text=str(about))], structured_content=about)


server = Server("workers", on_list_tools=list_tools, on_call_tool=call_tool)
validation = ToolValidation(engine=eng).install(server)
asyncio.run(validation.warm_up())  # with --preload: once, in the master; every worker inherits it
COMPILED_BEFORE_FORK = eng.cache_stats().misses
MASTER = os.getpid()
# stateless: any worker can answer any request, on every protocol generation
app = server.streamable_http_app(host="127.0.0.1", stateless_http=True)

"""Adapters that put the engine inside the Python MCP SDKs.

- :mod:`engine.adapters.mcp_sdk` for the official SDK (``pip install 'engine[mcp]'``);
- :mod:`engine.adapters.fastmcp` for FastMCP (``pip install 'engine[fastmcp]'``).

Each is imported only when asked for: the core package never imports an SDK.
"""

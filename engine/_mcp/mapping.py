"""Engine errors as MCP answers.

Invalid tool arguments are a tool error the model can read and correct (a ``CallToolResult`` with
``isError: true``), not a protocol error; an unknown tool is a JSON-RPC invalid-params error
(:meth:`engine.UnknownTool.to_jsonrpc_error`).
"""

from __future__ import annotations

from typing import Any

from .._errors import ValidationFailed

__all__ = ["invalid_arguments_result"]


def invalid_arguments_result(error: ValidationFailed, tool: str | None = None) -> dict[str, Any]:
    """The ``CallToolResult`` dict a server returns for arguments that failed validation.

    ``content`` holds one text block a model can act on; ``structuredContent`` the machine-readable
    details (every issue with its JSON pointers). Results with ``isError: true`` are not checked
    against the tool's ``outputSchema``.
    """
    subject = f"tool {tool!r}" if tool else "the tool"
    lines = [f"Invalid arguments for {subject}:"]
    for issue in error.issues:
        lines.append(f"- at {issue.instance_path or '(root)'}: {issue.message}")
    if error.truncated:
        lines.append("- (more issues not listed)")
    issues = [
        {
            "instancePath": issue.instance_path,
            "keywordLocation": issue.keyword_location,
            "keyword": issue.keyword,
            "message": issue.message,
        }
        for issue in error.issues
    ]
    return {
        "content": [{"type": "text", "text": "\n".join(lines)}],
        "structuredContent": {
            "error": {"reason": "invalid-arguments", "tool": tool, "issues": issues, "truncated": error.truncated}
        },
        "isError": True,
    }

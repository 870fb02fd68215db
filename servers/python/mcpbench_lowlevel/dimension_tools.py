"""The dimension tools on the low-level Server, for issue 37 (tools/list at scale, payload size, streamed progress,
cancellation); off unless the contract's EXTRA_TOOLS / DIMENSION_TOOLS turn them on
(`mcpbench_workload.dimension_tools`). As the workload tools: input schemas as data, key for key what MCPServer derives
from `mcpbench_fastmcp/dimension_tools.py`, and the arguments each body reads, by JSON type, for the server's own
checks (`server.TOOLS`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from mcp.server.context import ServerRequestContext

from mcpbench_workload import dimension_tools as dims

EXTRA_SCHEMA: dict[str, Any] = {
    "properties": {
        "query": {"description": "free-text search query", "title": "Query", "type": "string"},
        "limit": {
            "default": 10, "description": "how many records to return", "maximum": 100, "minimum": 1,
            "title": "Limit", "type": "integer",
        },
        "sort": {
            "default": "relevance", "description": "sort order", "enum": ["relevance", "price", "rating", "newest"],
            "title": "Sort", "type": "string",
        },
        "filters": {
            "default": None, "description": "optional filters",
            "properties": {
                "category": {"type": "string"}, "min_price": {"type": "number"}, "in_stock": {"type": "boolean"},
            },
            "type": "object",
        },
    },
    "required": ["query"],
    "title": "extra_toolArguments",
    "type": "object",
}

ECHO_SCHEMA: dict[str, Any] = {
    "properties": {
        "size": {"maximum": dims.MAX_PAYLOAD, "minimum": 0, "title": "Size", "type": "integer"},
        "data": {"default": "", "title": "Data", "type": "string"},
    },
    "required": ["size"],
    "title": "echo_payloadArguments",
    "type": "object",
}

PROGRESS_SCHEMA: dict[str, Any] = {
    "properties": {"count": {"maximum": dims.MAX_PROGRESS, "minimum": 0, "title": "Count", "type": "integer"}},
    "required": ["count"],
    "title": "stream_progressArguments",
    "type": "object",
}

STEPPED_SCHEMA: dict[str, Any] = {
    "properties": {
        "key": {
            "description": "names the Redis list bench:steps:<key> the steps are appended to",
            "maxLength": dims.MAX_KEY, "minLength": 1, "title": "Key", "type": "string",
        },
        "steps": {
            "description": "how many steps to do", "maximum": dims.MAX_STEPS, "minimum": 1, "title": "Steps",
            "type": "integer",
        },
        "interval_ms": {
            "description": "milliseconds between steps", "maximum": dims.MAX_INTERVAL_MS, "minimum": 0,
            "title": "Interval Ms", "type": "integer",
        },
    },
    "required": ["key", "steps", "interval_ms"],
    "title": "stepped_workArguments",
    "type": "object",
}


async def stream_progress(count: int, *, ctx: ServerRequestContext[Any]) -> str:
    # The handler's context carries a session scoped to this request: its report_progress sends notifications/progress
    # against the call's token, related to the request, so the SDK writes it on the call's own SSE reply
    # (SSE_REPLIES=1, mcpbench_workload/app.py).
    has_token = (ctx.meta or {}).get("progress_token") is not None
    return await dims.stream_progress(count, ctx.session.report_progress if has_token else None)


async def stepped_work(key: str, steps: int, interval_ms: int, *, ctx: ServerRequestContext[Any]) -> str:
    # Progress as stream_progress's. A cancelled call (notifications/cancelled, or the stream closed) is the SDK's:
    # it cancels the call's scope, so the body's next await raises CancelledError (dims.stepped_work), which
    # call_tool does not catch (it catches Exception).
    has_token = (ctx.meta or {}).get("progress_token") is not None
    return await dims.stepped_work(key, steps, interval_ms, ctx.session.report_progress if has_token else None)


# The bodies that also take the call's request context (`ctx=`), for the SDK's progress API.
WITH_CONTEXT = {dims.STREAM_PROGRESS, dims.STEPPED_WORK}

# name -> (description, input schema, body, {argument the body reads: its JSON type}). An extra tool reads only
# its query (limit, sort and filters are listed for the scale test, not used).
TOOLS: dict[str, tuple[str, dict[str, Any], Callable[..., Awaitable[str]], dict[str, str]]] = {
    name: (description, EXTRA_SCHEMA, partial(dims.extra_tool, name), {"query": "string"})
    for name, description in dims.EXTRA.items()
}
if dims.DIMENSION_TOOLS:
    TOOLS[dims.ECHO_PAYLOAD] = (
        dims.ECHO_DESCRIPTION, ECHO_SCHEMA, dims.echo_payload, {"size": "integer", "data": "string"}
    )
    TOOLS[dims.STREAM_PROGRESS] = (dims.PROGRESS_DESCRIPTION, PROGRESS_SCHEMA, stream_progress, {"count": "integer"})
    TOOLS[dims.STEPPED_WORK] = (
        dims.STEPPED_DESCRIPTION, STEPPED_SCHEMA, stepped_work,
        {"key": "string", "steps": "integer", "interval_ms": "integer"},
    )

"""The dimension tools (docs/workload.md §6), for issue 37: tools/list at scale (EXTRA_TOOLS=N more tools,
`extra_00001` …), payload size, streamed progress and cancellation (DIMENSION_TOOLS=1: `echo_payload`,
`stream_progress`, `stepped_work`); off unless the contract setting turns them on.

FastMCP's idiom for a tool whose input schema is data: a `Tool` with `parameters` (the JSON schema) and its own
`run()`, added with `mcp.add_tool` (as FastMCP's proxy and OpenAPI tools are). FastMCP validates arguments only for
function tools, so each `run()` checks what it reads. `stream_progress` and `stepped_work` are function tools instead:
FastMCP injects its `Context` (whose `report_progress` they need) into function tools only. No I/O but
`stepped_work`'s RPUSHes, on the Redis pool the server's lifespan yields (`ctx.lifespan_context`)."""

from __future__ import annotations

import asyncio
import json
import os
import time
from typing import Annotated, Any

from fastmcp import Context, FastMCP
from fastmcp.exceptions import ValidationError
from fastmcp.tools import Tool, ToolResult
from pydantic import Field

SERVER_TYPE = os.environ.get("SERVER_TYPE", "python-fastmcp")
EXTRA_TOOLS = int(os.environ.get("EXTRA_TOOLS") or 0)
DIMENSION_TOOLS = os.environ.get("DIMENSION_TOOLS") == "1"
MAX_PAYLOAD = 16 * 1024 * 1024
MAX_PROGRESS = 1000
MAX_KEY = 100
MAX_STEPS = 1000
MAX_INTERVAL_MS = 10_000
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)

EXTRA_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "free-text search query"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "how many records to return"},
        "sort": {"type": "string", "enum": ["relevance", "price", "rating", "newest"], "description": "sort order"},
        "filters": {
            "type": "object",
            "description": "optional filters",
            "properties": {
                "category": {"type": "string"}, "min_price": {"type": "number"}, "in_stock": {"type": "boolean"},
            },
        },
    },
    "required": ["query"],
}

ECHO_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "size": {"type": "integer", "minimum": 0, "maximum": MAX_PAYLOAD},
        "data": {"type": "string", "default": ""},
    },
    "required": ["size"],
}


class ExtraTool(Tool):
    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        query = arguments.get("query")
        if not isinstance(query, str):
            raise ValidationError("query must be a string")
        return ToolResult(_JSON.encode({"tool": self.name, "query": query, "server_type": SERVER_TYPE}))


class EchoPayload(Tool):
    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        size, data = arguments.get("size"), arguments.get("data", "")
        if type(size) is not int or not 0 <= size <= MAX_PAYLOAD:
            raise ValidationError(f"size must be an integer from 0 to {MAX_PAYLOAD}")
        if not isinstance(data, str):
            raise ValidationError("data must be a string")
        whole, rest = divmod(size, len(ALPHABET))
        payload = ALPHABET * whole + ALPHABET[:rest]
        return ToolResult(
            _JSON.encode({"size": size, "received": len(data), "payload": payload, "server_type": SERVER_TYPE})
        )


async def stream_progress(count: Annotated[int, Field(ge=0, le=MAX_PROGRESS)], ctx: Context) -> str:
    # ctx.report_progress sends notifications/progress against the call's token with related_request_id = this
    # call, so the SDK writes it on the call's own SSE reply (SSE_REPLIES=1, server.py). Without a token it would
    # not notify (it would update a background task's progress, if any): the tool sends none.
    has_token = (ctx.request_context.meta or {}).get("progressToken") is not None  # the raw _meta; set in a call
    if has_token:
        for i in range(1, count + 1):
            await ctx.report_progress(i, count)
    return _JSON.encode({"count": count, "sent": count if has_token else 0, "server_type": SERVER_TYPE})


async def stepped_work(
    key: Annotated[
        str,
        Field(
            min_length=1,
            max_length=MAX_KEY,
            description="names the Redis list bench:steps:<key> the steps are appended to",
        ),
    ],
    steps: Annotated[int, Field(ge=1, le=MAX_STEPS, description="how many steps to do")],
    interval_ms: Annotated[int, Field(ge=0, le=MAX_INTERVAL_MS, description="milliseconds between steps")],
    ctx: Context,
) -> str:
    # One RPUSH of the time in ms per step, then progress as stream_progress's, then the wait. Cancellation is the
    # SDK's: a cancelled call (notifications/cancelled, or the stream closed) has its scope cancelled, so the next
    # await here raises CancelledError, left to propagate: no step is written after it.
    redis = ctx.lifespan_context["redis"]
    has_token = (ctx.request_context.meta or {}).get("progressToken") is not None
    for i in range(1, steps + 1):
        await redis.rpush(f"bench:steps:{key}", str(time.time_ns() // 1_000_000))
        if has_token:
            await ctx.report_progress(i, steps)
        if i < steps:
            await asyncio.sleep(interval_ms / 1000)
    return _JSON.encode({"key": key, "steps": steps, "server_type": SERVER_TYPE})


def register(mcp: FastMCP) -> None:
    if not 0 <= EXTRA_TOOLS <= 99_999:
        raise ValueError(f"EXTRA_TOOLS must be 0 … 99999, not {EXTRA_TOOLS}")
    for i in range(1, EXTRA_TOOLS + 1):
        mcp.add_tool(ExtraTool(
            name=f"extra_{i:05d}",
            description=f"Extra tool {i}: a catalog lookup registered for the tools/list scale test.",
            parameters=EXTRA_SCHEMA,
        ))
    if DIMENSION_TOOLS:
        mcp.add_tool(EchoPayload(
            name="echo_payload",
            description="Returns size bytes of deterministic text and counts the characters of data.",
            parameters=ECHO_SCHEMA,
        ))
        mcp.tool(
            stream_progress,
            name="stream_progress",
            description="Sends count progress notifications, then answers.",
            output_schema=None,
        )
        mcp.tool(
            stepped_work,
            name="stepped_work",
            description=(
                "Appends steps timestamps to a Redis list, interval_ms apart, with progress; stops when cancelled."
            ),
            output_schema=None,
        )

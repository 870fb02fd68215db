"""The dimension tools (docs/workload.md §6), off unless a contract setting turns them on: they exist for issue 37,
tools/list at scale (EXTRA_TOOLS=N more tools, `extra_00001` …), payload size, streamed progress and cancellation
(DIMENSION_TOOLS=1: `echo_payload`, `stream_progress`, `stepped_work`). Their settings and bodies, shared by both MCP
layers; each registers them its own way (`mcpbench_fastmcp` and `mcpbench_lowlevel`, in their `dimension_tools.py`).
No I/O but `stepped_work`'s RPUSHes, on the worker's Redis pool (`mcpbench_workload.backend`)."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable

from mcp.server.mcpserver.exceptions import ToolError

from mcpbench_workload import backend
from mcpbench_workload.backend import _JSON, SERVER_TYPE

EXTRA_TOOLS = int(os.environ.get("EXTRA_TOOLS") or 0)
if not 0 <= EXTRA_TOOLS <= 99_999:
    raise ValueError(f"EXTRA_TOOLS must be 0 … 99999, not {EXTRA_TOOLS}")
DIMENSION_TOOLS = os.environ.get("DIMENSION_TOOLS") == "1"

# name -> description, in index order
EXTRA: dict[str, str] = {
    f"extra_{i:05d}": f"Extra tool {i}: a catalog lookup registered for the tools/list scale test."
    for i in range(1, EXTRA_TOOLS + 1)
}
ECHO_PAYLOAD = "echo_payload"
ECHO_DESCRIPTION = "Returns size bytes of deterministic text and counts the characters of data."
MAX_PAYLOAD = 16 * 1024 * 1024
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
STREAM_PROGRESS = "stream_progress"
PROGRESS_DESCRIPTION = "Sends count progress notifications, then answers."
MAX_PROGRESS = 1000
STEPPED_WORK = "stepped_work"
STEPPED_DESCRIPTION = (
    "Appends steps timestamps to a Redis list, interval_ms apart, with progress; stops when cancelled."
)
MAX_KEY = 100
MAX_STEPS = 1000
MAX_INTERVAL_MS = 10_000


async def extra_tool(name: str, query: str) -> str:
    return _JSON.encode({"tool": name, "query": query, "server_type": SERVER_TYPE})


async def echo_payload(size: int, data: str = "") -> str:
    if not 0 <= size <= MAX_PAYLOAD:  # MCPServer's schema refuses it first; the low-level Server's check is this
        raise ToolError(f"size must be 0 … {MAX_PAYLOAD}")
    whole, rest = divmod(size, len(ALPHABET))
    payload = ALPHABET * whole + ALPHABET[:rest]
    return _JSON.encode({"size": size, "received": len(data), "payload": payload, "server_type": SERVER_TYPE})


async def stream_progress(count: int, report: Callable[[float, float], Awaitable[None]] | None) -> str:
    """`report(progress, total)` is the layer's progress API for this call, None when the call carried no progress
    token. Each notification is awaited (handed to the SDK's write stream) before the next."""
    if not 0 <= count <= MAX_PROGRESS:  # MCPServer's schema refuses it first; the low-level Server's check is this
        raise ToolError(f"count must be 0 … {MAX_PROGRESS}")
    if report is not None:
        for i in range(1, count + 1):
            await report(i, count)
    return _JSON.encode({"count": count, "sent": count if report is not None else 0, "server_type": SERVER_TYPE})


async def stepped_work(
    key: str, steps: int, interval_ms: int, report: Callable[[float, float], Awaitable[None]] | None
) -> str:
    """One RPUSH of the time in ms per step, a progress notification after it when `report` is given (as in
    `stream_progress`), `interval_ms` between steps. Cancellation is the SDK's: a cancelled call's task gets
    CancelledError at its next await (the sleep, or a step's RPUSH or notification), which is left to propagate, so
    no step is written after it."""
    # MCPServer's schema refuses these first; the low-level Server's check is this
    if not 1 <= len(key) <= MAX_KEY:
        raise ToolError(f"key must be 1 … {MAX_KEY} characters")
    if not 1 <= steps <= MAX_STEPS:
        raise ToolError(f"steps must be 1 … {MAX_STEPS}")
    if not 0 <= interval_ms <= MAX_INTERVAL_MS:
        raise ToolError(f"interval_ms must be 0 … {MAX_INTERVAL_MS}")
    for i in range(1, steps + 1):
        await backend.redis.rpush(f"bench:steps:{key}", str(time.time_ns() // 1_000_000))
        if report is not None:
            await report(i, steps)
        if i < steps:
            await asyncio.sleep(interval_ms / 1000)
    return _JSON.encode({"key": key, "steps": steps, "server_type": SERVER_TYPE})

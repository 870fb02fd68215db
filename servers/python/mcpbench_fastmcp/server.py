"""The three workload tools (docs/workload.md §3) on MCPServer (mcp 2.x's FastMCP): the ASGI app uvicorn's (or
granian's) workers import, and the same server on the SDK's stdio transport (`serve_stdio`). The tools' bodies and
the pools are `mcpbench_workload.backend`'s, shared with the low-level Server's variant (`mcpbench_lowlevel`)."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from mcpbench_fastmcp import dimension_tools, surface
from mcpbench_workload import backend
from mcpbench_workload.app import asgi_app

mcp = MCPServer(
    "mcpbench-python",
    # An explicit version: serverInfo needs one, and it is set once here rather than looked up per request (mcp 1.x
    # read the installed distribution's metadata for every stateless request when none was given: ~15% of a
    # worker's CPU in a profile).
    version="0.1.0",
    # The low-level server logs every request at INFO ("Processing request of type ..."): keep that off.
    log_level="WARNING",
)

# The shared functions themselves are the tools: MCPServer builds each input schema (pydantic) from the signature,
# takes the docstring as the description, and validates and converts the arguments before calling it.
# structured_output=False: the workload's result is one JSON text item; MCPServer would otherwise wrap the str
# in {"result": ...} structuredContent and advertise an outputSchema.
mcp.tool(structured_output=False)(backend.search_products)
mcp.tool(structured_output=False)(backend.get_user_cart)
mcp.tool(structured_output=False)(backend.checkout)
# Issue 37's extra tools and echo_payload, only when EXTRA_TOOLS / DIMENSION_TOOLS ask (dimension_tools.py).
dimension_tools.register(mcp)
# The surface (a resource template, a fixed resource, a prompt, a completion), under DIMENSION_TOOLS=1 too (surface.py).
surface.register(mcp)


async def serve_stdio() -> None:
    """One process on the SDK's stdio transport (newline-delimited JSON-RPC on stdin/stdout) until stdin closes.

    Requests run concurrently: the SDK's dispatcher spawns every request but `initialize` as its own task in the
    connection's task group and goes on reading (mcp 2.3.0 mcp/shared/jsonrpc_dispatcher.py:609-623), so many
    tools/call are in flight at once on the one event loop. At EOF it cancels whatever is still running (:531-534).
    Both protocol eras are served, as over HTTP (mcp/server/runner.py:602 serve_dual_era_loop). While it serves,
    stdio_server() points fd 1 at stderr, so nothing but JSON-RPC reaches stdout.
    """
    async with backend.backends():
        await mcp.run_stdio_async()


app = asgi_app(mcp)

"""The ASGI app both MCP layers are served as: the SDK's Streamable HTTP routes, stateless with JSON replies (SSE under
SSE_REPLIES=1), its DNS-rebinding protection for the contract's ALLOWED_HOSTS and its 1 MiB body limit, under a
lifespan that owns the worker's Redis pool and API client. One function for MCPServer and the low-level Server, so
the two cannot drift."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette

from mcpbench_workload.backend import backends

MAX_BODY_BYTES = 1024 * 1024


def transport_security() -> TransportSecuritySettings:
    """The SDK's DNS-rebinding protection for the contract's ALLOWED_HOSTS: Host must name one of them (with or
    without a port), and a browser's Origin, when sent, too. `*` switches it off, which only the suite's
    measurement of what the check costs does. The SDK's own default allows loopback names only when it binds
    the host itself; here uvicorn (or granian) binds, so the list is given explicitly."""
    hosts = [h.strip() for h in (os.environ.get("ALLOWED_HOSTS") or "localhost,127.0.0.1,[::1]").split(",") if h.strip()]
    if hosts == ["*"]:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[pattern for h in hosts for pattern in (h, f"{h}:*")],
        allowed_origins=[f"{scheme}://{h}{port}" for h in hosts for scheme in ("http", "https") for port in ("", ":*")],
    )


def asgi_app(server: MCPServer[Any] | Server[Any]) -> Starlette:
    """The server's own Streamable HTTP routes (POST/GET/DELETE /mcp) under a lifespan that also owns this worker's
    Redis pool and HTTP client (the SDK's app runs only the session manager in its lifespan). mcp 2.x takes the
    transport options here, in `streamable_http_app()`, with the same keywords on both layers."""
    routes = server.streamable_http_app(
        # Stateless unless the contract's SESSIONS=1 (the abandoned dimension): then the SDK keeps each session.
        stateless_http=os.environ.get("SESSIONS") != "1",
        # JSON replies, unless the contract's SSE_REPLIES=1 asks for SSE: a JSON reply has no room for the
        # notifications/progress a call sends (stream_progress); on an SSE reply the SDK writes them before the result.
        json_response=os.environ.get("SSE_REPLIES") != "1",
        transport_security=transport_security(),
        max_request_body_size=MAX_BODY_BYTES,
        host="0.0.0.0",
    ).routes

    # Not MCPServer's `lifespan=` (nor the low-level Server's), which stateless mode enters for every request.
    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        async with backends(), server.session_manager.run():
            yield

    return Starlette(routes=routes, lifespan=lifespan)

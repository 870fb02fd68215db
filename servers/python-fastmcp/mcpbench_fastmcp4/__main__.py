"""`python -m mcpbench_fastmcp4`: start uvicorn with one worker process per granted core; with `--stdio`, serve MCP
over stdin/stdout from this one process instead."""

from __future__ import annotations

import argparse
import math
import os

import uvicorn


def worker_count() -> int:
    # Under SESSIONS=1 a session lives in the process that opened it, and nothing routes its requests back there.
    if os.environ.get("SESSIONS") == "1":
        return 1
    # WORKERS is the explicit override every interpreted server here reads (a v2-parity variant sets 4);
    # WEB_CONCURRENCY, the conventional name (uvicorn's own CLI and gunicorn read it), is honoured after it.
    for name in ("WORKERS", "WEB_CONCURRENCY"):
        if explicit := os.environ.get(name):
            return max(1, int(explicit))
    # One event loop saturates one core under load, so a second worker per core only time-shares it (measured for
    # servers/python, the same uvicorn + asyncio design). A fractional limit rounds up so the whole quota is used.
    cpu_limit = os.environ.get("CPU_LIMIT")
    cores = float(cpu_limit) if cpu_limit else len(os.sched_getaffinity(0))
    return max(1, math.ceil(cores))


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m mcpbench_fastmcp4", description=__doc__)
    parser.add_argument("--stdio", action="store_true", help="serve MCP over stdin/stdout (one process, no port)")
    if parser.parse_args().stdio:
        import anyio

        from mcpbench_fastmcp4.server import mcp

        # FastMCP's own stdio transport (mcp.run(transport="stdio") is this on plain asyncio); on uvloop as the HTTP
        # workers are. show_banner=False: the banner would also look up PyPI for a newer fastmcp.
        anyio.run(lambda: mcp.run_async(transport="stdio", show_banner=False), backend_options={"use_uvloop": True})
        return
    uvicorn.run(
        "mcpbench_fastmcp4.server:app",
        host=os.environ.get("HOST") or "127.0.0.1",  # loopback unless the runtime says otherwise (a container)
        port=int(os.environ.get("PORT", "8000")),
        workers=worker_count(),
        loop="uvloop",
        http="httptools",
        lifespan="on",
        access_log=False,
        log_level="warning",
        # Nothing sits in front of the server; skip X-Forwarded-* rewriting on every request.
        proxy_headers=False,
        # Keep-alive connections from the load generator must not hold a SIGTERM past the orchestrator's 10 s.
        timeout_graceful_shutdown=5,
    )


if __name__ == "__main__":
    main()

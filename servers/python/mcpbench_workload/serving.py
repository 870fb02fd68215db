"""How the python servers are launched, whichever MCP layer builds the app: `main()` starts uvicorn (or granian) on
`<package>.server:app` with one worker process per granted core, or with `--stdio` runs
`<package>.server.serve_stdio` in this one process.

Each path imports only what it runs: the supervisor of uvicorn's (or granian's) workers never imports the SDK
(~50 MB of RSS; the workers import the app), and granian's supervisor does not import uvicorn."""

from __future__ import annotations

import argparse
import importlib
import math
import os

import anyio

# Keep-alive connections from the load generator must not hold a SIGTERM past the orchestrator's 10 s: in-flight
# requests get this long, then the workers go (uvicorn's timeout_graceful_shutdown, granian's workers_kill_timeout).
GRACEFUL_SHUTDOWN_S = 5


def worker_count() -> int:
    # Under SESSIONS=1 (docs/server-contract.md) the SDK keeps each session in the process that opened it, and
    # nothing routes a session's requests back to it: one process, as the node servers do.
    if os.environ.get("SESSIONS") == "1":
        return 1
    # WORKERS is the explicit override every interpreted server here reads (the v2-parity variant sets 4);
    # WEB_CONCURRENCY, the conventional name (uvicorn's own CLI and gunicorn read it), is honoured after it.
    for name in ("WORKERS", "WEB_CONCURRENCY"):
        if explicit := os.environ.get(name):
            return max(1, int(explicit))
    # One event loop saturates one core under load (every worker always has ready tool calls), so a second
    # worker per core only time-shares it: measured on one pinned core, 2 workers cost more CPU per session for
    # no more throughput, plus ~100 MB of RSS. A fractional limit rounds up so the whole quota can be used.
    cpu_limit = os.environ.get("CPU_LIMIT")
    cores = float(cpu_limit) if cpu_limit else len(os.sched_getaffinity(0))
    return max(1, math.ceil(cores))


def _host() -> str:
    return os.environ.get("HOST") or "127.0.0.1"  # loopback unless the runtime says otherwise (a container)


def _port() -> int:
    return int(os.environ.get("PORT", "8000"))


def run_uvicorn(target: str) -> None:
    import uvicorn

    uvicorn.run(
        target,
        host=_host(),
        port=_port(),
        workers=worker_count(),
        loop="uvloop",
        http="httptools",
        lifespan="on",
        access_log=False,
        log_level="warning",
        # Nothing sits in front of the server; skip X-Forwarded-* rewriting on every request.
        proxy_headers=False,
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S,
    )


def run_granian(target: str) -> None:
    """The same ASGI app on granian (a Rust HTTP server: hyper + tokio), with its production settings (README,
    "python-granian"): a supervisor process and one worker process per granted core, each with its own listening
    socket (SO_REUSEPORT), its own event loop and the app's lifespan (so its own pools)."""
    from granian.constants import HTTPModes, Interfaces, Loops, RuntimeModes, TaskImpl
    from granian.log import LogLevels
    from granian.server import Server

    Server(
        target,
        address=_host(),
        port=_port(),
        interface=Interfaces.ASGI,  # ASGI 3 with lifespan: the app's startup opens this worker's pools
        workers=worker_count(),
        loop=Loops.uvloop,  # as the uvicorn launch (granian's `auto` would also pick it: rloop is not installed)
        task_impl=TaskImpl.asyncio,  # the default; the Rust task implementation is experimental (3.11 only)
        runtime_mode=RuntimeModes.auto,  # granian's pick: mt for ASGI, with its default 1 runtime thread
        # Every client here speaks HTTP/1.1 (the load driver, k6, verify); uvicorn serves only HTTP/1.1 too.
        http=HTTPModes.http1,
        websockets=False,  # MCP's Streamable HTTP has none (the uvicorn venv has no websocket library either)
        # Granian's default, given explicitly: per worker socket on Linux. Backpressure stays its default,
        # backlog / workers connections in flight per worker, far above the load's (at most 4 x VUs).
        backlog=1024,
        log_level=LogLevels.warning,
        log_access=False,
        workers_kill_timeout=GRACEFUL_SHUTDOWN_S,
    ).serve()


SERVERS = {"uvicorn": run_uvicorn, "granian": run_granian}


def main(package: str, description: str | None) -> None:
    """`python -m <package>`: `<package>.server:app` over HTTP on uvicorn (or `--server granian`); with `--stdio`,
    `<package>.server.serve_stdio` over stdin/stdout in this one process."""
    parser = argparse.ArgumentParser(prog=f"python -m {package}", description=description)
    parser.add_argument("--stdio", action="store_true", help="serve MCP over stdin/stdout (one process, no port)")
    parser.add_argument("--server", choices=sorted(SERVERS), default="uvicorn",
                        help="the HTTP server that runs the ASGI app (default: uvicorn)")
    args = parser.parse_args()
    if args.stdio:
        serve_stdio = importlib.import_module(f"{package}.server").serve_stdio
        anyio.run(serve_stdio, backend_options={"use_uvloop": True})
        return
    SERVERS[args.server](f"{package}.server:app")

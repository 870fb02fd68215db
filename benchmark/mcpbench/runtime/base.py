"""What the suite needs from a runtime, whichever it is."""

from __future__ import annotations

import time
from dataclasses import dataclass
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol

import httpx

from ..mcp_client import McpClient


class StartError(RuntimeError):
    """The server did not come up: it exited, or it did not answer in time. Carries its log tail."""


@dataclass(frozen=True)
class Usage:
    """A cumulative reading: CPU time used so far, and memory in use now."""

    cpu_ns: int
    memory_bytes: int


class RunningServer(Protocol):
    name: str
    url: str  # the MCP endpoint, http://127.0.0.1:PORT/mcp
    startup_s: float  # from launch to the first successful `initialize`
    limits_applied: bool

    def alive(self) -> bool: ...

    def usage(self) -> Usage | None: ...

    def log_tail(self, lines: int = 30) -> str: ...

    # Frozen while the host's speed probe runs, so the probe times the machine and not the server's own
    # after-load work; yields whether the server really is frozen (a runtime that cannot: False).
    def paused(self) -> AbstractContextManager[bool]: ...

    def stop(self) -> None: ...


class InfraHandle(Protocol):
    """Redis + the API service, wherever the runtime runs them."""

    redis_url: str  # as the orchestrator reaches it (seeding)
    api_url: str  # as the orchestrator reaches it
    server_redis_url: str  # as the server under test reaches it (REDIS_URL)
    server_api_url: str  # (API_SERVICE_URL)

    def reset(self) -> float: ...  # flush + seed Redis; seconds taken

    def readers(self) -> dict[str, Callable[[], Usage | None]]: ...  # "redis", "api" usage readers

    def stop(self) -> None: ...


class Runtime(Protocol):
    name: str

    def start_infra(self, log_dir: Path) -> InfraHandle: ...

    def start(self, spec, env: dict[str, str], log_path: Path) -> RunningServer: ...

    def runtime_version(self, spec, env: dict[str, str]) -> str | None: ...  # interpreter/VM, if any

    def close(self) -> None: ...


def wait_until_ready(url: str, alive, timeout_s: float, log_tail) -> float:
    """Poll `initialize` until the server answers it; returns seconds waited. No fixed sleeps."""
    started = time.monotonic()
    deadline = started + timeout_s
    with McpClient(url, timeout_s=2.0) as client:
        while time.monotonic() < deadline:
            if not alive():
                raise StartError(f"the server exited during start-up:\n{log_tail()}")
            try:
                reply = client.initialize()
                if reply.status == 200 and reply.result:
                    return time.monotonic() - started
            except httpx.HTTPError:
                pass
            time.sleep(0.02)
    raise StartError(f"the server did not answer `initialize` within {timeout_s:g} s:\n{log_tail()}")

"""What the suite needs from a runtime, whichever it is: the one seam between "where servers run" and
everything else (docs/architecture.md). A runtime subclasses `Runtime`, overrides what differs from the
defaults, and is named in `runtime/__init__.py`'s registry; nothing outside this package knows its name."""

from __future__ import annotations

import subprocess
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import ClassVar, Protocol

import httpx
import redis as redis_lib
from pydantic import BaseModel

from mcpbench.catalog.build import BUILD_WORKERS, BuildOutcome, build_api_service, build_server, local_build_key
from mcpbench.catalog.manifest import ServerSpec
from mcpbench.host.profile import ResourceProfile, resource_profile
from mcpbench.host.resources import Usage, UsageReader
from mcpbench.host.speed_probe import HostView, LocalHost
from mcpbench.loadgen.base import LoadGenerator, StdioLaunch
from mcpbench.results.model import LOAD_MARK, CgroupSupport, Image
from mcpbench.workload.mcp_client import McpClient


class StartError(RuntimeError):
    """The server did not come up: it exited, or it did not answer in time. Carries its log tail."""


class StdioUnsupported(RuntimeError):
    """The runtime cannot run a server over stdio: the server is unavailable in that transport, not failed."""


class RunningServer(Protocol):
    name: str
    url: str  # the MCP endpoint, http://127.0.0.1:PORT/mcp
    startup_s: float  # from launch to the first successful `initialize`
    limits_applied: bool
    # What the runtime knows of the server beyond the process (docker: image, its size, cold start);
    # recorded in run.json and image.json. None: nothing to add.
    @property
    def details(self) -> Image | None: ...

    # Set for a stdio server: not running yet, the load generator starts it from this (url unused).
    stdio_launch: StdioLaunch | None

    def alive(self) -> bool: ...

    def usage(self) -> Usage | None: ...  # what the limits count (the cgroup, the container)

    # psutil's view of the server's processes beside usage(): RSS and CPU time summed over the tree.
    # None where the runtime cannot see the processes.
    def process_tree_usage(self) -> Usage | None: ...

    # The server's main process as the host sees it (the soak reads its tree: RSS, FDs, threads); None
    # where the runtime cannot see it.
    def root_pid(self) -> int | None: ...

    # The addresses the server's processes listen on ("127.0.0.1:43121"), checked by verify against the
    # runtime's HOST; None where that is the runtime's own business (a container's network namespace).
    def listening(self) -> list[str] | None: ...

    def log_tail(self, lines: int = 30) -> str: ...

    # server.log marked (results.model.LOAD_MARK): what the server writes from here on is its words under load.
    def load_begins(self) -> None: ...

    # The server's last lines since load_begins (all of log_tail's when it was never called).
    def load_log_tail(self, lines: int = 20) -> str: ...

    # What ended the server, in words ("killed by the OOM killer at its 60 MiB memory limit; peak 59.8 MiB",
    # "killed by SIGSEGV", "exited with code 1"); None while it runs or where the runtime cannot tell.
    def exit_cause(self) -> str | None: ...

    # Frozen while the host's speed probe runs, so the probe times the machine and not the server's own
    # after-load work; yields whether the server really is frozen (a runtime that cannot: False).
    def paused(self) -> AbstractContextManager[bool]: ...

    def stop(self) -> None: ...


class InfraHandle(Protocol):
    """Redis + the API service, wherever the runtime runs them (Redis may be left out: Runtime.start_infra)."""

    @property
    def redis_url(self) -> str | None: ...  # as the orchestrator reaches it (seeding); None: not started

    api_url: str  # as the orchestrator reaches it

    @property
    def server_redis_url(self) -> str | None: ...  # as the server under test reaches it (REDIS_URL)

    @property
    def server_api_url(self) -> str: ...  # (API_SERVICE_URL)

    def reset(self) -> float: ...  # flush + seed Redis; seconds taken

    def readers(self) -> dict[str, UsageReader]: ...  # "redis", "api" usage readers

    def stop(self) -> None: ...


class Runtime(ABC):
    """Where the infrastructure and the servers run. Defaults are the local machine's way of building."""

    name: ClassVar[str]
    takes_registry: ClassVar[bool] = False  # images moved through a registry the user names (--registry)
    # How many server builds run at once: the local toolchains' builds overlap well (catalog.build); an image
    # engine runs its own stages concurrently, so its runtimes build one image at a time.
    build_workers: ClassVar[int] = BUILD_WORKERS
    # Whether a server that uses neither Redis nor the API service starts without them (ServerSpec.uses_infra): on
    # this machine it does; an image engine's servers join the network the infrastructure's start makes.
    infra_optional: ClassVar[bool] = False

    def __init__(self, profile: ResourceProfile):
        self.profile = profile

    @classmethod
    def resource_profile(cls, cpus: float, memory_mb: int) -> ResourceProfile:
        """The server's limits and pinning as this runtime places it: on this machine by default (the server's
        cores pinned apart from the harness's, scaled down on a small machine)."""
        return resource_profile(cpus, memory_mb)

    # -- what run.json records ---------------------------------------------------------------------------
    def limits_support(self) -> CgroupSupport:
        """Whether CPU/memory limits can be applied here (run.json environment.cgroup)."""
        return CgroupSupport(version=None, applied=True, note=None)

    def environment(self) -> BaseModel | None:
        """Runtime-specific facts for run.json's environment, under the runtime's name: the runtime's own model
        (docker: model.DockerEnvironment, engine, base image…); None when none."""
        return None

    # -- builds ----------------------------------------------------------------------------------------
    def build_infra(self, log_path: Path) -> BuildOutcome:
        return build_api_service(log_path)

    def build_server(self, spec: ServerSpec, log_path: Path) -> BuildOutcome:
        return build_server(spec, log_path)

    def build_key(self, spec: ServerSpec) -> Hashable:
        """Servers with the same key share one build (variants of one directory build once locally)."""
        return local_build_key(spec)

    # -- running -------------------------------------------------------------------------------------------
    @abstractmethod
    def start_infra(self, log_dir: Path, redis: bool = True) -> InfraHandle:
        """Redis and the API service started and answering. `redis` False: the API service alone (its canned
        endpoint calibrates the harness; no server of the run uses Redis), where the runtime is infra_optional."""

    def server_environment(self, spec: ServerSpec, infra: InfraHandle | None) -> dict[str, str]:
        """The contract's environment (docs/server-contract.md): what every server is started with (without
        `infra`, none was started: the server uses neither Redis nor the API service)."""
        where = {"REDIS_URL": infra.server_redis_url, "API_SERVICE_URL": infra.server_api_url} if infra else {}
        return {
            **{key: url for key, url in where.items() if url}, "SERVER_TYPE": spec.name,
            "CPU_LIMIT": f"{self.profile.cpus:g}", "MEMORY_LIMIT_MB": str(self.profile.memory_mb),
        }

    @abstractmethod
    def start(self, spec: ServerSpec, infra: InfraHandle | None, log_path: Path) -> RunningServer:
        """The server up and answering `initialize`, under the profile's limits; StartError otherwise."""

    def stdio_server(self, spec: ServerSpec, infra: InfraHandle | None, log_path: Path) -> RunningServer:
        """The server prepared for the stdio transport: under the profile's limits once the load generator
        starts it from `stdio_launch`. StdioUnsupported where this runtime cannot."""
        raise StdioUnsupported(f"the {self.name} runtime does not run stdio servers (use --runtime local)")

    def runtime_version(self, spec: ServerSpec, infra: InfraHandle | None) -> str | None:
        """The interpreter/VM the server runs on, as it reports itself; None for a compiled server."""
        return None

    def host_view(self) -> HostView:
        """What a measurement watches of the host(s) the server and the harness run on: this machine."""
        return LocalHost(self.profile.server_cpus, self.profile.harness_cpus)

    def load_generator(self, name: str, instances: int) -> LoadGenerator | None:
        """The load generator `name` as this runtime runs it (the swarm's: on its load nodes); None: the
        registry's, on this machine."""
        return None

    def close(self) -> None:
        """Everything the runtime started is gone (idempotent). By default there is nothing to stop."""
        return None


class ServerBase(ABC):
    """The defaults of a RunningServer: nothing beyond the process, no tree view, no freezer."""

    details: Image | None = None
    stdio_launch: StdioLaunch | None = None

    @abstractmethod
    def log_tail(self, lines: int = 30) -> str:
        """The server's last lines (each runtime reads its own log)."""

    def process_tree_usage(self) -> Usage | None:
        return None

    def root_pid(self) -> int | None:
        return None

    def listening(self) -> list[str] | None:
        return None

    def load_begins(self) -> None:
        return None  # no log to mark

    def load_log_tail(self, lines: int = 20) -> str:
        return self.log_tail(lines)

    def exit_cause(self) -> str | None:
        return None

    def ended_said(self) -> str:
        """What a start-up failure quotes: how it ended (once it has), then its last lines."""
        cause = self.exit_cause()
        tail = self.log_tail()
        return f"{cause}; its last lines:\n{tail}" if cause else tail

    @contextmanager
    def paused(self) -> Iterator[bool]:
        yield False


class MarkedLog:
    """A server log file the runtime's process appends to, marked where the load test begins (LOAD_MARK): the
    tail since the mark is the server's words under load."""

    def __init__(self, path: Path | None):
        self.path = path
        self._offset: int | None = None

    def mark(self) -> None:
        if self.path is None:
            return
        try:
            with open(self.path, "a", encoding="utf-8") as handle:
                handle.write(f"\n{LOAD_MARK}\n")
                handle.flush()
                self._offset = handle.tell()
        except OSError:
            self._offset = None  # unmarked: the whole tail is quoted

    def tail(self, lines: int, since_mark: bool = True) -> str:
        if self.path is None or not self.path.exists():
            return ""
        with open(self.path, "rb") as handle:
            if since_mark and self._offset is not None:
                handle.seek(self._offset)
            text = handle.read().decode("utf-8", errors="replace")
        return "\n".join(text.splitlines()[-lines:])


def wait_until_ready(url: str, alive: Callable[[], bool], timeout_s: float, log_tail: Callable[[], str],
                     headers: dict[str, str] | None = None) -> float:
    """Poll `initialize` until the server answers it; returns seconds waited. No fixed sleeps."""
    started = time.monotonic()
    deadline = started + timeout_s
    last = "no answer"
    with McpClient(url, timeout_s=2.0, headers=headers) as client:
        while time.monotonic() < deadline:
            if not alive():
                raise StartError(f"the server exited during start-up: {log_tail()}")
            try:
                reply = client.initialize()
                if reply.status == 200 and reply.result:
                    return time.monotonic() - started
                last = f"HTTP {reply.status}: {' '.join(reply.body.split())[:160]!r}"
            except httpx.HTTPError as exc:
                last = f"{type(exc).__name__}: {exc}".splitlines()[0]
            time.sleep(0.02)
    raise StartError(f"{url} did not answer `initialize` within {timeout_s:g} s (last: {last})\n{log_tail()}".rstrip())


def wait_for_command(command: str, cwd: Path, env: dict[str, str], alive: Callable[[], bool], deadline: float,
                     log_tail: Callable[[], str]) -> None:
    """Run `command` (bash) until it exits 0 — a server's own readiness check (--ready) — or StartError by the
    monotonic `deadline`, with what it said last."""
    said = ""
    while time.monotonic() < deadline:
        if not alive():
            raise StartError(f"the server exited during start-up: {log_tail()}")
        try:
            done = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True,
                                  timeout=max(0.5, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            break
        if done.returncode == 0:
            return
        said = " ".join((done.stderr or done.stdout).split())[:160] or f"exit {done.returncode}"
        time.sleep(0.2)
    raise StartError(f"--ready `{command}` did not succeed in time (last: {said or 'no answer'})\n"
                     f"{log_tail()}".rstrip())


def infra_not_ready(redis_url: str, api_url: str, exited: Callable[[str], str | None], tail: Callable[[str], str],
                    what: str = "{}", timeout_s: float = 60) -> str | None:
    """None once Redis answers PING and the API service /health (polled, no fixed sleeps); else why not, with
    the log tail: `exited(name)` says when "redis" or "api" is gone, `what` names them ("the {} container")."""
    client = redis_lib.Redis.from_url(redis_url, socket_timeout=2)
    checks = {"redis": lambda: client.ping(),
              "api": lambda: httpx.get(f"{api_url}/health", timeout=2).status_code == 200}
    deadline = time.monotonic() + timeout_s
    for name, check in checks.items():
        while True:
            gone = exited(name)
            if gone:
                return f"{gone}:\n{tail(name)}"
            try:
                if check():
                    break
            except (OSError, redis_lib.RedisError, httpx.HTTPError):
                pass
            if time.monotonic() > deadline:
                return f"{what.format(name)} was not ready within {timeout_s:g} s:\n{tail(name)}"
            time.sleep(0.05)
    return None

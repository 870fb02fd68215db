"""A bench: one runtime and its infrastructure for the lifetime of one command — what `run`, `verify`,
`calibrate` and `serve` share — and the servers it starts, one at a time, under the profile's limits."""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType

import redis

from mcpbench import runtime as runtimes
from mcpbench.catalog.build import BuildOutcome, build_each
from mcpbench.catalog.manifest import ServerSpec
from mcpbench.host import processes
from mcpbench.host.profile import ResourceProfile
from mcpbench.host.speed_probe import HostView
from mcpbench.host.toolchain import MissingRequirement
from mcpbench.results.layout import RunDir
from mcpbench.results.model import API_BUILD_LOG
from mcpbench.runtime.base import InfraHandle, RunningServer, Runtime, StartError, StdioUnsupported
from mcpbench.runtime.remote import RemoteServer


class ServerFailed(Exception):
    def __init__(self, phase: str, reason: str):
        super().__init__(f"{phase}: {reason}")
        self.phase = phase
        self.reason = reason


class ServerUnavailable(ServerFailed):
    """This machine lacks what the server needs (a toolchain, a JDK): listed with the reason, not a failure."""


class Bench:
    """Use as a context manager: on the way out (normally, on an error, on Ctrl-C) the infrastructure,
    the runtime and every process it started are stopped."""

    def __init__(self, runtime_name: str, profile: ResourceProfile, directory: Path, registry: str | None = None):
        self.profile = profile
        self.directory = directory
        self.runtime: Runtime = runtimes.create(runtime_name, profile, registry)
        self.infra: InfraHandle | None = None
        self._host: HostView | None = None
        self._builds: dict[Hashable, BuildOutcome] = {}
        self._infra_starts = 0
        self._with_redis = True  # start_infra's: a restart starts what the first start did

    def __enter__(self) -> Bench:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    # -- builds ------------------------------------------------------------------------------------------
    def build_infra(self) -> BuildOutcome:
        log = RunDir(self.directory).infra() / API_BUILD_LOG
        log.parent.mkdir(parents=True, exist_ok=True)
        return self.runtime.build_infra(log)

    def build(self, spec: ServerSpec, log_path: Path) -> BuildOutcome:
        """The server's build; servers that share one (variants of a directory) build once."""
        key = self.runtime.build_key(spec)
        if key not in self._builds:
            log_path.parent.mkdir(parents=True, exist_ok=True)
            self._builds[key] = self.runtime.build_server(spec, log_path)
        return self._builds[key]

    def build_all(self, jobs: Sequence[tuple[ServerSpec, Path]]) -> Iterator[tuple[ServerSpec, BuildOutcome]]:
        """(spec, outcome) of every server as its build finishes, as many at once as the runtime builds;
        servers that share a build get its outcome when it finishes."""
        logs = {spec.name: log_path for spec, log_path in jobs}
        return build_each((spec for spec, _ in jobs), lambda spec: self.build(spec, logs[spec.name]),
                          self.runtime.build_key, self.runtime.build_workers)

    # -- the infrastructure ----------------------------------------------------------------------------------
    @property
    def infra_starts(self) -> int:
        """How many times the infrastructure was started: a change means a new Redis/API pair, whose limits
        must be measured again before anything is judged against them."""
        return self._infra_starts

    def start_infra(self, redis: bool | None = None) -> InfraHandle:
        """Redis and the API service (`redis` False: the API service alone; None: as the last start)."""
        if redis is not None:
            self._with_redis = redis
        self._infra_starts += 1
        self.infra = self.runtime.start_infra(RunDir(self.directory).infra(self._infra_starts), self._with_redis)
        return self.infra

    def reset(self) -> float:
        """Flush and re-seed Redis; seconds taken. Redis gone is not the server's doing: a new pair."""
        assert self.infra is not None
        try:
            return self.infra.reset()
        except (redis.RedisError, OSError, ValueError):
            self.restart_infra()
            return self.reset()

    def restart_infra(self) -> None:
        """Redis or the API service died: a fresh pair, seeded, and the command goes on."""
        if self.infra is not None:
            try:
                self.infra.stop()
            except Exception:  # it is already broken; the new one is what matters
                pass
        self.infra = None
        started = self.start_infra()
        if started.redis_url is not None:
            started.reset()

    # -- servers -----------------------------------------------------------------------------------------------
    @contextmanager
    def server(self, spec: ServerSpec, log_path: Path) -> Iterator[RunningServer]:
        """The server started (ServerUnavailable / ServerFailed when it cannot be), stopped on the way out."""
        assert self.infra is not None or not spec.uses_infra, "start_infra() first"
        try:
            # A server given by its URL is already running: reached, never started (runtime/remote.py).
            running = RemoteServer.reached(spec) if spec.url else self.runtime.start(spec, self.infra, log_path)
        except MissingRequirement as exc:
            raise ServerUnavailable("start", str(exc)) from exc
        except StartError as exc:
            raise ServerFailed("start", str(exc)) from exc
        try:
            yield running
        finally:
            running.stop()

    @contextmanager
    def stdio_server(self, spec: ServerSpec, log_path: Path) -> Iterator[RunningServer]:
        """The server prepared for the stdio transport (the load generator starts it); cleaned up on exit."""
        assert self.infra is not None or not spec.uses_infra, "start_infra() first"
        try:
            prepared = self.runtime.stdio_server(spec, self.infra, log_path)
        except (MissingRequirement, StdioUnsupported) as exc:
            raise ServerUnavailable("start", str(exc)) from exc
        try:
            yield prepared
        finally:
            prepared.stop()

    def runtime_version(self, spec: ServerSpec) -> str | None:
        try:
            return self.runtime.runtime_version(spec, self.infra)
        except MissingRequirement:
            return None  # starting it says why

    @property
    def host(self) -> HostView:
        """What measurements watch of the hosts (the runtime's, made once: a swarm deploys its node agents)."""
        if self._host is None:
            self._host = self.runtime.host_view()
        return self._host

    # -- the end -----------------------------------------------------------------------------------------------
    def close(self) -> None:
        try:
            if self.infra:
                self.infra.stop()
        finally:
            self.infra = None
            self.runtime.close()
            processes.stop_all()

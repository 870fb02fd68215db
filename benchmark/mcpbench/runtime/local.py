"""The local runtime: the server as a plain process tree in its own cgroup, pinned apart from the load generator."""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil

from mcpbench.catalog.manifest import ServerSpec
from mcpbench.host import cgroups, ports, processes, versions
from mcpbench.host.ports import LOOPBACK, allowed_hosts, free_port
from mcpbench.host.profile import ResourceProfile
from mcpbench.host.resources import Usage, tree_usage
from mcpbench.host.toolchain import environment_for
from mcpbench.loadgen.base import StdioLaunch
from mcpbench.results.model import CgroupSupport
from mcpbench.runtime.base import (
    InfraHandle,
    MarkedLog,
    Runtime,
    ServerBase,
    StartError,
    wait_for_command,
    wait_until_ready,
)
from mcpbench.runtime.local_infra import Infra

_counter = itertools.count(1)


def _substitute(value: str, port: int, directory: Path) -> str:
    return value.replace("{port}", str(port)).replace("{dir}", str(directory))


def _executable(program: str, directory: Path) -> str:
    """A run command's program: a relative path (./bin/server, .venv/bin/python) is the server directory's."""
    return str(directory / program) if not os.path.isabs(program) and "/" in program else program


class LocalServer(ServerBase):
    def __init__(self, name: str, process: processes.ManagedProcess, port: int,
                 cgroup: cgroups.Cgroup | None):
        self.name = name
        self.process = process
        self.url = f"http://{LOOPBACK}:{port}/mcp"
        self.cgroup = cgroup
        self.limits_applied = cgroup is not None
        self.startup_s = 0.0
        self.log = MarkedLog(process.log_path)

    def alive(self) -> bool:
        return self.process.alive()

    def load_begins(self) -> None:
        self.log.mark()

    def load_log_tail(self, lines: int = 20) -> str:
        return self.log.tail(lines)

    def exit_cause(self) -> str | None:
        """The OOM killer when the cgroup counts a kill (whatever the leader's exit status then says), else the
        leader's exit status."""
        if self.alive():
            return None
        return (self.cgroup.oom_said() if self.cgroup else None) or processes.exit_said(self.process.returncode)

    def usage(self) -> Usage | None:
        try:
            if self.cgroup:
                return Usage(self.cgroup.cpu_usage_ns(), self.cgroup.memory_bytes())
            return tree_usage(self.process.pid)
        except (OSError, psutil.Error):
            return None

    def process_tree_usage(self) -> Usage | None:
        """psutil's view (CPU time, summed RSS) beside the cgroup's: RSS counts the binary's shared
        file pages that a cgroup may have charged to whoever read them first."""
        try:
            return tree_usage(self.process.pid)
        except (OSError, psutil.Error):
            return None

    def root_pid(self) -> int | None:
        return self.process.pid if self.alive() else None

    def listening(self) -> list[str] | None:
        return ports.listening(self.process.pid) if self.alive() else None

    def log_tail(self, lines: int = 30) -> str:
        return self.process.log_tail(lines)

    @contextmanager
    def paused(self) -> Iterator[bool]:
        """The server frozen (cgroup v2 freezer) for the host's speed probe, which must time the machine,
        not compete with the server's own after-load work (GC, JIT, timers). Yields whether it is frozen."""
        if not (self.cgroup and self.alive()):
            yield False
            return
        with self.cgroup.frozen() as frozen:
            yield frozen

    def stop(self) -> None:
        self.process.stop()  # paused() thaws on every way out; Cgroup.remove thaws whatever is left


# Put the stdio server, which the load generator spawns, under the server's limits: the shell writes its own
# pid into the cgroup's procs file(s), then execs the command (the cgroup and the pid stay the server's).
_ENTER_CGROUP = 'while [ "$1" != "--" ]; do echo $$ > "$1"; shift; done; shift; exec "$@"'


class LocalStdioServer(ServerBase):
    """A stdio server: prepared (its cgroup made, its command wrapped), started by the load generator,
    measured through the cgroup like an HTTP server."""

    def __init__(self, name: str, launch: StdioLaunch, cgroup: cgroups.Cgroup | None):
        self.name = name
        self.url = "stdio:"  # no URL: the load generator talks to it over stdin/stdout
        self.stdio_launch = launch
        self.cgroup = cgroup
        self.limits_applied = cgroup is not None
        self.startup_s = 0.0  # the driver's to measure (loadgen-counts.json startup_s)
        self.log = MarkedLog(launch.log_path)

    def alive(self) -> bool:
        # The generator starts it and ends it with the test, so only the generator can tell a death from
        # the end: it says so in its LoadRun (target_died), with the reason.
        return True

    def _pids(self) -> list[int]:
        return self.cgroup.pids() if self.cgroup else []

    def usage(self) -> Usage | None:
        try:
            return Usage(self.cgroup.cpu_usage_ns(), self.cgroup.memory_bytes()) if self.cgroup else None
        except OSError:
            return None

    def root_pid(self) -> int | None:
        pids = self._pids()
        return pids[0] if pids else None

    def process_tree_usage(self) -> Usage | None:
        pid = self.root_pid()
        try:
            return tree_usage(pid) if pid else None
        except psutil.Error:
            return None

    def log_tail(self, lines: int = 30) -> str:
        return self.log.tail(lines, since_mark=False)

    def load_begins(self) -> None:
        self.log.mark()

    def load_log_tail(self, lines: int = 20) -> str:
        return self.log.tail(lines)

    def exit_cause(self) -> str | None:
        # Only the OOM killer is known here; the generator, which started it, says how else it ended.
        return self.cgroup.oom_said() if self.cgroup else None

    @contextmanager
    def paused(self) -> Iterator[bool]:
        # The generator starts the server after the probe before the load and ends it before the probe after
        # it: a server with no process left cannot disturb the probe, which is what "paused" vouches for.
        if self.cgroup is None:
            yield False  # nothing to tell whether it runs, nothing to freeze it with
            return
        if not self._pids():
            yield True
            return
        with self.cgroup.frozen() as frozen:
            yield frozen

    def stop(self) -> None:
        if self.cgroup:
            self.cgroup.remove()  # whatever the generator left behind


class LocalRuntime(Runtime):
    name = "local"
    infra_optional = True

    def __init__(self, profile: ResourceProfile, support: CgroupSupport | None = None):
        super().__init__(profile)
        self.support = support or cgroups.detect()
        if self.support.applied:
            cgroups.remove_stale()

    def limits_support(self) -> CgroupSupport:
        return self.support

    def start_infra(self, log_dir: Path, redis: bool = True) -> Infra:
        return Infra.start(log_dir, self.profile.harness_cpus, redis)

    def server_environment(self, spec: ServerSpec, infra: InfraHandle | None) -> dict[str, str]:
        """The contract's variables over the toolchain's (PATH with the manifest's interpreter, JAVA_HOME);
        MissingRequirement when this machine lacks one."""
        return {**environment_for(spec.info.requires, spec.info.jdk), **super().server_environment(spec, infra)}

    def _cgroup(self, name: str) -> cgroups.Cgroup | None:
        """A new cgroup with the profile's limits (None where cgroups cannot be used here)."""
        if not self.support.applied:
            return None
        limits = cgroups.Limits(self.profile.cpus, self.profile.memory_mb, self.profile.cpuset)
        return cgroups.Cgroup.create(f"{name}-{os.getpid()}-{next(_counter)}", limits, self.support.version or 1)

    def start(self, spec: ServerSpec, infra: InfraHandle | None, log_path: Path) -> LocalServer:
        port = free_port()
        env = {**self.server_environment(spec, infra), "HOST": LOOPBACK, "ALLOWED_HOSTS": allowed_hosts(),
               "PORT": str(port),
               **{k: _substitute(v, port, spec.directory) for k, v in spec.run_env.items()}}
        argv = [_substitute(arg, port, spec.directory) for arg in spec.run_command]
        argv[0] = _executable(argv[0], spec.directory)
        group = self._cgroup(spec.name)
        launched = time.monotonic()
        try:
            process = processes.spawn(spec.name, argv, cwd=spec.directory, env=env, log_path=log_path,
                                      cgroup=group, cpus=self.profile.server_cpus)
        except OSError as exc:
            if group:
                group.remove()
            raise StartError(f"cannot execute {argv[0]}: {exc.strerror} "
                             f"(is it built? `mcpbench build {spec.name}`)") from exc
        server = LocalServer(spec.name, process, port, group)

        try:
            if spec.ready_command:
                wait_for_command(_substitute(spec.ready_command, port, spec.directory), spec.directory, env,
                                 server.alive, launched + spec.ready_timeout_s, server.ended_said)
            wait_until_ready(server.url, server.alive, max(1.0, launched + spec.ready_timeout_s - time.monotonic()),
                             server.ended_said, headers=spec.headers)
        except BaseException:
            server.stop()
            raise
        server.startup_s = time.monotonic() - launched
        return server

    def stdio_server(self, spec: ServerSpec, infra: InfraHandle | None, log_path: Path) -> LocalStdioServer:
        assert spec.stdio_command is not None
        env = {**self.server_environment(spec, infra), **(spec.stdio_env or {})}
        argv = [_substitute(arg, 0, spec.directory) for arg in spec.stdio_command]
        argv[0] = _executable(argv[0], spec.directory)
        group = self._cgroup(f"{spec.name}-stdio")
        # Pinned to the server's CPUs with or without a cgroup, as an HTTP server is (processes.spawn's cpus).
        pin = processes.pinned(self.profile.server_cpus)
        if group:
            argv = ["/bin/sh", "-c", _ENTER_CGROUP, "mcpbench-enter", *group.procs_files(), "--", *pin, *argv]
        else:
            argv = [*pin, *argv]
        launch = StdioLaunch(tuple(argv), env, spec.directory, log_path)
        return LocalStdioServer(spec.name, launch, group)

    def runtime_version(self, spec: ServerSpec, infra: InfraHandle | None) -> str | None:
        """What the run command's program says it is (None for a compiled server)."""
        if not spec.info.version_args:
            return None
        return program_version(spec, self.server_environment(spec, infra))


def program_version(spec: ServerSpec, env: dict[str, str]) -> str | None:
    program = _executable(spec.run_command[0], spec.directory)
    return versions.probe([program, *(spec.info.version_args or [])], cwd=spec.directory, env=env)

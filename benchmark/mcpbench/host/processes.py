"""Starting and stopping every process the orchestrator owns, so that nothing outlives it.

Each process gets its own session (process group): stopping it signals the whole group, which takes
worker processes (Node cluster, uvicorn workers, JVM helpers) down with it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path

from mcpbench.host import deathsig
from mcpbench.host.cgroups import Cgroup

_registry: set[ManagedProcess] = set()
_registry_lock = threading.Lock()


def pinned(cpus: Sequence[int] | None) -> list[str]:
    """The command prefix that pins a process another program starts (the load driver's stdio server) to `cpus`,
    as spawn's `cpus` pins one started here; none when not pinned."""
    return ["taskset", "-c", ",".join(map(str, cpus))] if cpus else []


def _preexec(procs_files: Sequence[str], cpus: Sequence[int] | None, parent: int):
    def enter_limits() -> None:
        # Runs in the child between fork and exec: only async-signal-safe-ish calls, no locks.
        # SIGKILL when the orchestrator dies without a word: Redis, the API service, the load driver and the
        # server's leader do not outlive it.
        deathsig.signal_me_when_parent_dies(signal.SIGKILL, parent)
        pid = str(os.getpid()).encode()
        for path in procs_files:
            fd = os.open(path, os.O_WRONLY)
            try:
                os.write(fd, pid)
            finally:
                os.close(fd)
        if cpus:
            os.sched_setaffinity(0, cpus)

    return enter_limits


class ManagedProcess:
    clock_offset_s = 0.0  # runs on this machine's clock (loadgen/instances.GeneratorProcess)

    def __init__(self, name: str, popen: subprocess.Popen[bytes], log_path: Path | None,
                 cgroup: Cgroup | None):
        self.name = name
        self.popen = popen
        self.log_path = log_path
        self.cgroup = cgroup

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    # What a load generator's lifecycle needs of a process (loadgen/instances.py), here or on another host.
    def poll(self) -> int | None:
        return self.popen.poll()

    def wait(self, timeout: float) -> bool:
        """True once it has exited, False when it still runs after `timeout` seconds."""
        try:
            self.popen.wait(timeout=timeout)
            return True
        except subprocess.TimeoutExpired:
            return False

    def interrupt(self) -> None:
        """SIGINT: the load generators' graceful stop."""
        self.popen.send_signal(signal.SIGINT)

    @property
    def returncode(self) -> int | None:
        return self.popen.returncode

    def log_tail(self, lines: int = 30) -> str:
        if not self.log_path or not self.log_path.exists():
            return ""
        text = self.log_path.read_text(encoding="utf-8", errors="replace")
        return "\n".join(text.splitlines()[-lines:])

    def stop(self, grace_s: float = 10.0) -> int | None:
        """SIGTERM the group, SIGKILL whatever remains after grace_s; returns the exit code."""
        if self.alive():
            _signal_group(self.pid, signal.SIGTERM)
            # a stopped process (SIGSTOP, a hang drill) acts on it only once resumed
            _signal_group(self.pid, signal.SIGCONT)
            try:
                self.popen.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                pass
        _signal_group(self.pid, signal.SIGKILL)  # stragglers that left the leader behind
        try:
            self.popen.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        if self.cgroup:
            self.cgroup.remove()
        with _registry_lock:
            _registry.discard(self)
        return self.popen.returncode


def exit_said(returncode: int | None) -> str:
    """An exit status in words: 'killed by SIGKILL', 'exited with code 1', 'exited with code 137 (128 + SIGKILL: how
    a shell reports a process it ran that was killed by SIGKILL)'."""
    if returncode is None:
        return "it ended (no exit status known)"
    if returncode < 0:
        return f"killed by {_signal_name(-returncode) or f'signal {-returncode}'}"
    said = f"exited with code {returncode}"
    name = _signal_name(returncode - 128) if returncode > 128 else None
    if name:
        said += f" (128 + {name}: how a shell reports a process it ran that was killed by {name})"
    return said


def _signal_name(number: int) -> str | None:
    try:
        return signal.Signals(number).name
    except ValueError:
        return None


def stopped(pid: int | None) -> bool:
    """Whether a process is stopped (SIGSTOP, SIGTSTP: state T), not merely idle."""
    if not pid:
        return False
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] in ("T", "t")
    except (OSError, IndexError):
        return False


def _signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def spawn(name: str, argv: Sequence[str], *, cwd: Path | None = None, env: dict[str, str] | None = None,
          log_path: Path | None = None, cgroup: Cgroup | None = None,
          cpus: Sequence[int] | None = None) -> ManagedProcess:
    """Start argv in its own session, output to log_path, inside cgroup and pinned to cpus if given."""
    log_file = open(log_path, "ab") if log_path else None
    try:
        popen = subprocess.Popen(
            list(argv), cwd=cwd, env=env, stdin=subprocess.DEVNULL,
            stdout=log_file if log_file is not None else subprocess.DEVNULL,
            stderr=subprocess.STDOUT, start_new_session=True,
            preexec_fn=_preexec(cgroup.procs_files() if cgroup else [], cpus, os.getpid()),
        )
    finally:
        if log_file is not None:
            log_file.close()
    process = ManagedProcess(name, popen, log_path, cgroup)
    with _registry_lock:
        _registry.add(process)
    return process


def stop_all() -> None:
    """Stop everything still registered (Ctrl-C, a crash, normal exit)."""
    with _registry_lock:
        running = list(_registry)
    for process in running:
        process.stop(grace_s=3.0)

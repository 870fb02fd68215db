"""CPU/memory limits for a local server process through Linux cgroups (v1 or v2), and usage readings.

The server is put into its cgroup before it execs (see processes.py), so a runtime that sizes itself from
its limits at start-up (the JVM, Go, Node workers) sees them.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from mcpbench.host import deathsig
from mcpbench.results.model import CgroupSupport

ROOT = Path("/sys/fs/cgroup")
PARENT = "mcpbench"
PERIOD_US = 100_000


@dataclass(frozen=True)
class Limits:
    cpus: float
    memory_mb: int
    cpuset: str | None  # e.g. "1"; None = not pinned


def _v1_mounts() -> dict[str, Path]:
    mounts: dict[str, Path] = {}
    with open("/proc/mounts", encoding="utf-8") as handle:
        for line in handle:
            _, mount_point, fstype, options, *_ = line.split()
            if fstype != "cgroup":
                continue
            for option in options.split(","):
                if option in ("cpu", "cpuacct", "memory", "cpuset", "freezer"):
                    mounts[option] = Path(mount_point)
    return mounts


def detect() -> CgroupSupport:
    """Whether this machine's cgroups can confine a server (run.json environment.cgroup); why not is said loudly
    and recorded in results."""
    if (ROOT / "cgroup.controllers").exists():
        controllers = (ROOT / "cgroup.controllers").read_text().split()
        missing = {"cpu", "memory"} - set(controllers)
        if missing:
            return CgroupSupport(version=2, applied=False,
                                 note=f"cgroup v2 without the {', '.join(sorted(missing))} controller")
        return _probe(2)
    mounts = _v1_mounts()
    missing = {"cpu", "cpuacct", "memory"} - set(mounts)
    if missing:
        return CgroupSupport(version=None, applied=False,
                             note=f"no cgroup hierarchy for {', '.join(sorted(missing))}")
    return _probe(1)


def _probe(version: int) -> CgroupSupport:
    try:
        group = Cgroup.create("probe-%d" % os.getpid(), Limits(1.0, 64, None), version)
        group.remove()
    except OSError as exc:
        return CgroupSupport(version=version, applied=False,
                             note=f"cannot create a cgroup ({exc.strerror}: {exc.filename})")
    return CgroupSupport(version=version, applied=True, note=None)


def _write(path: Path, value: str) -> None:
    with open(path, "w", encoding="ascii") as handle:
        handle.write(value)


class Cgroup:
    """One leaf cgroup named mcpbench/<name> in every controller it needs."""

    def __init__(self, name: str, version: int, dirs: dict[str, Path]):
        self.name = name
        self.version = version
        self._dirs = dirs  # controller -> directory (v2: the same directory for all)

    @classmethod
    def create(cls, name: str, limits: Limits, version: int) -> Cgroup:
        if version == 2:
            parent = ROOT / PARENT
            parent.mkdir(exist_ok=True)
            wanted = ["+cpu", "+memory"] + (["+cpuset"] if limits.cpuset else [])
            for directory in (ROOT, parent):
                _write(directory / "cgroup.subtree_control", " ".join(wanted))
            leaf = parent / name
            leaf.mkdir(exist_ok=True)
            group = cls(name, 2, {c: leaf for c in ("cpu", "cpuacct", "memory", "cpuset", "procs")})
            _write(leaf / "cpu.max", f"{int(limits.cpus * PERIOD_US)} {PERIOD_US}")
            _write(leaf / "memory.max", str(limits.memory_mb * 1024 * 1024))
            if (leaf / "memory.swap.max").exists():
                _write(leaf / "memory.swap.max", "0")
            if limits.cpuset:
                _write(leaf / "cpuset.cpus", limits.cpuset)
            return group
        mounts = _v1_mounts()
        controllers = ["cpu", "cpuacct", "memory"] + (["cpuset"] if limits.cpuset else []) + \
            (["freezer"] if "freezer" in mounts else [])  # v1 keeps the freezer in a controller of its own
        dirs: dict[str, Path] = {}
        for controller in controllers:
            parent = mounts[controller] / PARENT
            parent.mkdir(exist_ok=True)
            if controller == "cpuset":
                # v1 cpuset groups start empty and refuse tasks until cpus and mems are set at every level.
                for level in (parent, parent / name):
                    level.mkdir(exist_ok=True)
                    _write(level / "cpuset.mems", (mounts["cpuset"] / "cpuset.mems").read_text().strip())
                _write(parent / "cpuset.cpus", (mounts["cpuset"] / "cpuset.cpus").read_text().strip())
            leaf = parent / name
            leaf.mkdir(exist_ok=True)
            dirs[controller] = leaf
        _write(dirs["cpu"] / "cpu.cfs_period_us", str(PERIOD_US))
        _write(dirs["cpu"] / "cpu.cfs_quota_us", str(int(limits.cpus * PERIOD_US)))
        _write(dirs["memory"] / "memory.limit_in_bytes", str(limits.memory_mb * 1024 * 1024))
        if (dirs["memory"] / "memory.memsw.limit_in_bytes").exists():
            try:
                _write(dirs["memory"] / "memory.memsw.limit_in_bytes", str(limits.memory_mb * 1024 * 1024))
            except OSError:
                pass  # swap accounting off: nothing to limit
        if limits.cpuset:
            _write(dirs["cpuset"] / "cpuset.cpus", limits.cpuset)
        return cls(name, 1, dirs)

    def procs_files(self) -> list[str]:
        """Files a child writes its own pid into (from preexec, so no Python-level locking)."""
        return sorted({str(d / "cgroup.procs") for d in self._dirs.values()})

    def cpu_usage_ns(self) -> int:
        if self.version == 2:
            for line in (self._dirs["cpu"] / "cpu.stat").read_text().splitlines():
                key, value = line.split()
                if key == "usage_usec":
                    return int(value) * 1000
            return 0
        return int((self._dirs["cpuacct"] / "cpuacct.usage").read_text())

    def memory_bytes(self) -> int:
        """Usage minus inactive page cache: what `docker stats` shows as memory usage."""
        memory = self._dirs["memory"]
        stat = dict(line.split() for line in (memory / "memory.stat").read_text().splitlines())
        if self.version == 2:
            usage = int((memory / "memory.current").read_text())
            inactive = int(stat.get("inactive_file", 0))
        else:
            usage = int((memory / "memory.usage_in_bytes").read_text())
            inactive = int(stat.get("total_inactive_file", 0))
        return max(0, usage - inactive)

    def _memory_file(self, v2: str, v1: str) -> str | None:
        try:
            return (self._dirs["memory"] / (v2 if self.version == 2 else v1)).read_text()
        except OSError:
            return None

    def oom_kills(self) -> int:
        """How many processes the kernel's OOM killer ended in this group at its memory limit: v2 memory.events'
        oom_kill, v1 memory.oom_control's (kernels since 4.13)."""
        text = self._memory_file("memory.events", "memory.oom_control") or ""
        fields = dict(parts for parts in (line.split() for line in text.splitlines()) if len(parts) == 2)
        return int(fields.get("oom_kill", 0))

    def oom_said(self) -> str | None:
        """'killed by the OOM killer at its 60 MiB memory limit; peak 59.8 MiB' when the OOM killer ended a
        process of this group; None otherwise. The peak is the kernel's own (v2 memory.peak, v1
        memory.max_usage_in_bytes), not a 1 Hz sample."""
        if not self.oom_kills():
            return None
        limit = (self._memory_file("memory.max", "memory.limit_in_bytes") or "").strip()
        peak = (self._memory_file("memory.peak", "memory.max_usage_in_bytes") or "").strip()
        said = "killed by the OOM killer"
        if limit.isdigit():
            said += f" at its {int(limit) / 2**20:.0f} MiB memory limit"
        return said + (f"; peak {int(peak) / 2**20:.1f} MiB" if peak.isdigit() else "")

    def set_frozen(self, frozen: bool, timeout_s: float = 2.0) -> bool:
        """The freezer: stop (or resume) every task of the group; True once the kernel says it is done.
        v2: cgroup.freeze / cgroup.events; v1: the freezer controller's freezer.state (False, nothing done,
        when v1 has no freezer mounted)."""
        if self.version == 2:
            leaf = next(iter(self._dirs.values()))  # v2: one directory for every controller
            _write(leaf / "cgroup.freeze", "1" if frozen else "0")

            def done() -> bool:
                return f"frozen {1 if frozen else 0}" in (leaf / "cgroup.events").read_text().splitlines()
        elif "freezer" in self._dirs:
            state = self._dirs["freezer"] / "freezer.state"
            want = "FROZEN" if frozen else "THAWED"
            _write(state, want)

            def done() -> bool:
                return state.read_text().strip() == want
        else:
            return False
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if done():
                return True
            time.sleep(0.005)
        return False

    @contextmanager
    def frozen(self) -> Iterator[bool]:
        """Frozen while inside (the host's speed probe); yields whether it froze. Thawed on every way out, also
        when the freeze did not complete in time: a v1 group left FREEZING goes on to FROZEN, and its tasks then
        outlive SIGKILL (state D) until someone thaws it. So v1 freezes under a thaw guard, which thaws the
        group should the orchestrator die inside (v2 lets a fatal signal through a freeze)."""
        guard = self._thaw_guard() if self.version == 1 and "freezer" in self._dirs else None
        try:
            yield bool(self.set_frozen(True))
        finally:
            if guard is not None:
                _end_guard(guard)
            try:
                self.set_frozen(False)
            except OSError:
                pass  # the group is gone with its tasks: nothing left to thaw

    def _thaw_guard(self) -> subprocess.Popen[bytes] | None:
        """A shell that thaws this group when the orchestrator dies (SIGTERM by PR_SET_PDEATHSIG), so that the
        SIGKILL its tasks got meanwhile takes effect. It waits in `wait`, which a trapped signal interrupts."""
        if not deathsig.available:
            return None
        state = self._dirs["freezer"] / "freezer.state"
        parent = os.getpid()
        return subprocess.Popen(
            ["sh", "-c", _THAW_ON_TERM, "thaw-guard", str(state)], stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
            preexec_fn=lambda: deathsig.signal_me_when_parent_dies(signal.SIGTERM, parent))

    def pids(self) -> list[int]:
        pids: set[int] = set()
        for path in self.procs_files():
            try:
                pids.update(int(p) for p in Path(path).read_text().split())
            except OSError:
                pass
        return sorted(pids)

    def kill_all(self) -> None:
        for pid in self.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def remove(self) -> None:
        """Kill what is left inside and remove the directories (a cgroup with tasks cannot be removed)."""
        try:
            self.set_frozen(False, timeout_s=1.0)  # a v1-frozen task does not die until it is thawed
        except OSError:
            pass
        for _ in range(50):
            self.kill_all()
            try:
                for directory in set(self._dirs.values()):
                    if directory.exists():
                        directory.rmdir()
                return
            except OSError:
                time.sleep(0.1)


_THAW_ON_TERM = 'trap \'echo THAWED > "$1"; kill $! 2>/dev/null; exit 0\' TERM; while :; do sleep 60 & wait $!; done'


def _end_guard(guard: subprocess.Popen[bytes]) -> None:
    """The orchestrator lives on: the guard and its sleep go, the group untouched."""
    try:
        os.killpg(guard.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    guard.wait()


def remove_stale() -> list[str]:
    """Remove mcpbench/<server>-<pid>-<n> groups whose orchestrator (pid) is gone: leftovers of a
    run that was killed with SIGKILL. Groups of live orchestrators are left alone. A v1 group is one
    directory per controller, gathered into one Cgroup so that remove() finds its freezer and thaws it first."""
    v2 = (ROOT / "cgroup.controllers").exists()
    parents = {"any": ROOT / PARENT} if v2 else {c: mount / PARENT for c, mount in _v1_mounts().items()}
    stale: dict[str, dict[str, Path]] = {}
    for controller, parent in parents.items():
        if not parent.is_dir():
            continue
        for leaf in parent.iterdir():
            parts = leaf.name.rsplit("-", 2)
            if not leaf.is_dir() or len(parts) != 3 or not parts[1].isdigit():
                continue
            if Path(f"/proc/{parts[1]}").exists():
                continue
            stale.setdefault(leaf.name, {})[controller] = leaf
    for name, dirs in stale.items():
        Cgroup(name, 2 if v2 else 1, dirs).remove()
    return sorted(str(leaf) for dirs in stale.values() for leaf in dirs.values())

import os
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from mcpbench.host import cgroups
from mcpbench.host import processes
from mcpbench.results.model import CgroupSupport


@pytest.fixture(scope="module")
def support() -> CgroupSupport:
    found = cgroups.detect()
    if not found.applied:
        pytest.skip(f"cgroups not usable here: {found.note}")
    return found


def test_a_server_process_runs_inside_its_cgroup_with_its_cpu_quota(support: CgroupSupport, tmp_path: Path) -> None:
    group = cgroups.Cgroup.create(f"test-{os.getpid()}", cgroups.Limits(0.5, 256, None), support.version or 1)
    # Two busy loops under a 0.5-CPU quota must not get more than about half a core between them.
    proc = processes.spawn("busy", ["bash", "-c", "yes > /dev/null & yes > /dev/null & wait"],
                           log_path=tmp_path / "log", cgroup=group)
    try:
        time.sleep(0.3)
        assert proc.pid in group.pids()
        before = group.cpu_usage_ns()
        time.sleep(2.0)
        used_cores = (group.cpu_usage_ns() - before) / 2.0e9
        # Only the ceiling is a property of the quota; the floor depends on what else the machine runs.
        assert 0.02 < used_cores < 0.65
        assert group.memory_bytes() > 0
    finally:
        proc.stop(grace_s=1)
    assert not any(Path(p).parent.exists() for p in group.procs_files())


def test_groups_left_by_a_killed_orchestrator_are_removed_and_live_ones_kept(support: CgroupSupport) -> None:
    dead = cgroups.Cgroup.create("leftover-4194999-1", cgroups.Limits(1.0, 64, None), support.version or 1)
    live = cgroups.Cgroup.create(f"mine-{os.getpid()}-1", cgroups.Limits(1.0, 64, None), support.version or 1)
    try:
        removed = cgroups.remove_stale()
        assert any("leftover-4194999-1" in path for path in removed)
        assert not any(Path(p).parent.exists() for p in dead.procs_files())
        assert all(Path(p).parent.exists() for p in live.procs_files())
    finally:
        live.remove()


def test_a_stale_group_left_frozen_is_thawed_and_its_tasks_killed(support: CgroupSupport, tmp_path: Path) -> None:
    """A run killed while the host probe had its server frozen leaves the group frozen; on cgroup v1 its tasks then
    outlive SIGKILL until thawed, so the next run's clean-up must thaw before it kills."""
    dead = cgroups.Cgroup.create("leftover-4194998-2", cgroups.Limits(0.5, 256, None), support.version or 1)
    proc = processes.spawn("busy", ["bash", "-c", "yes > /dev/null"], log_path=tmp_path / "log", cgroup=dead)
    try:
        time.sleep(0.3)
        assert dead.set_frozen(True)
        removed = cgroups.remove_stale()
        assert any("leftover-4194998-2" in path for path in removed)
        proc.popen.wait(timeout=10)  # killed: it would hang here, frozen, had the clean-up not thawed it
        assert not any(Path(p).parent.exists() for p in dead.procs_files())
    finally:
        dead.remove()
        proc.stop(grace_s=1)


def test_the_probes_freeze_thaws_on_every_way_out(support: CgroupSupport, tmp_path: Path) -> None:
    group = cgroups.Cgroup.create(f"probe-exit-{os.getpid()}", cgroups.Limits(0.5, 256, None), support.version or 1)
    proc = processes.spawn("busy", ["bash", "-c", "yes > /dev/null"], log_path=tmp_path / "log", cgroup=group)
    try:
        time.sleep(0.3)
        with pytest.raises(KeyboardInterrupt):
            with group.frozen() as frozen:
                assert frozen
                raise KeyboardInterrupt  # Ctrl-C during the host probe
        before = group.cpu_usage_ns()
        time.sleep(0.5)
        assert (group.cpu_usage_ns() - before) / 1e6 > 20  # running again
    finally:
        proc.stop(grace_s=1)
        group.remove()


_FROZEN_THEN_KILLED = """
import os, sys, time
from pathlib import Path
from mcpbench.host import cgroups, processes
group = cgroups.Cgroup.create(f"frozen-{os.getpid()}-1", cgroups.Limits(0.5, 256, None), int(sys.argv[1]))
busy = processes.spawn("busy", ["bash", "-c", "yes > /dev/null"], log_path=Path(sys.argv[2]), cgroup=group)
time.sleep(0.3)
with group.frozen() as frozen:
    print(busy.pid, frozen, flush=True)
    time.sleep(120)
"""


def test_an_orchestrator_killed_while_its_server_is_frozen_leaves_nothing(support: CgroupSupport,
                                                                          tmp_path: Path) -> None:
    """SIGKILL to the orchestrator during the host probe: its server got SIGKILL too (PR_SET_PDEATHSIG), and
    must not then live on frozen (v1: state D until thawed) until the next run cleans up."""
    orchestrator = subprocess.Popen([sys.executable, "-c", _FROZEN_THEN_KILLED, str(support.version or 1),
                                     str(tmp_path / "log")], stdout=subprocess.PIPE, text=True)
    try:
        assert orchestrator.stdout is not None
        pid, frozen = orchestrator.stdout.readline().split()
        assert frozen == "True"
        server = psutil.Process(int(pid))
        assert server.status() in (psutil.STATUS_DISK_SLEEP, psutil.STATUS_SLEEPING, psutil.STATUS_STOPPED)
        orchestrator.kill()
        orchestrator.wait(timeout=10)
        _, alive = psutil.wait_procs([server], timeout=10)
        assert not alive, f"frozen after its orchestrator died: {server.status() if alive else ''}"
    finally:
        orchestrator.kill()
        cgroups.remove_stale()


def test_a_frozen_group_uses_no_cpu_and_still_stops(support: CgroupSupport, tmp_path: Path) -> None:
    """The host probe freezes the server: frozen, a busy loop gets no CPU; thawed, it runs again; a process
    left frozen still stops (stop() thaws it first)."""
    group = cgroups.Cgroup.create(f"freeze-{os.getpid()}", cgroups.Limits(0.5, 256, None), support.version or 1)
    proc = processes.spawn("busy", ["bash", "-c", "yes > /dev/null"], log_path=tmp_path / "log", cgroup=group)

    def cpu_ms_in(seconds: float) -> float:
        before = group.cpu_usage_ns()
        time.sleep(seconds)
        return (group.cpu_usage_ns() - before) / 1e6

    try:
        time.sleep(0.3)
        assert group.set_frozen(True)
        assert cpu_ms_in(0.5) < 5
        assert group.set_frozen(False)
        assert cpu_ms_in(0.5) > 20
        assert group.set_frozen(True)
    finally:
        group.set_frozen(False)
        proc.stop(grace_s=1)
    assert proc.popen.returncode is not None


def test_a_stdio_server_is_pinned_and_vouched_quiet_for_the_host_probe(support: CgroupSupport, tmp_path: Path) -> None:
    # Issue 18: stdio runs were never "paused" for the host probe, and without a cgroup not pinned at all.
    from mcpbench.host.profile import ResourceProfile
    from mcpbench.catalog.manifest import discover
    from mcpbench.host.paths import SERVERS_DIR
    from mcpbench.runtime.local import LocalRuntime

    spec = next(s for s in discover(SERVERS_DIR).servers if s.name == "go")
    profile = ResourceProfile(1.0, 512, (1,), (0,))
    infra = type("Infra", (), {"server_redis_url": "redis://127.0.0.1:1", "server_api_url": "http://127.0.0.1:1"})()
    without = LocalRuntime(profile, CgroupSupport(version=None, applied=False, note="not here")).stdio_server(spec, infra, tmp_path / "a.log")
    assert without.stdio_launch.argv[:3] == ("taskset", "-c", "1")
    with without.paused() as quiet:
        assert quiet is False  # no cgroup: nothing tells whether it runs
    server = LocalRuntime(profile, support).stdio_server(spec, infra, tmp_path / "b.log")
    try:
        assert "taskset" in server.stdio_launch.argv
        with server.paused() as quiet:  # not started: nothing of it can disturb the probe
            assert quiet is True
    finally:
        server.stop()

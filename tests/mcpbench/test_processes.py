import os
import time
from pathlib import Path

import psutil

from mcpbench.host import processes


def test_stopping_a_process_takes_its_whole_tree_down(tmp_path: Path) -> None:
    # A parent that ignores SIGTERM and leaves a child behind: both must be gone after stop().
    script = "trap '' TERM; sleep 300 & sleep 300 & wait"
    proc = processes.spawn("tree", ["bash", "-c", script], log_path=tmp_path / "log")
    deadline = time.monotonic() + 5
    while len(psutil.Process(proc.pid).children()) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    children = [c.pid for c in psutil.Process(proc.pid).children(recursive=True)]
    assert len(children) == 2
    proc.stop(grace_s=0.5)
    time.sleep(0.2)
    for pid in [proc.pid, *children]:
        assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


def test_stop_all_leaves_nothing_registered(tmp_path: Path, monkeypatch) -> None:
    # A registry of its own, so the session's Redis and API service are not stopped with it.
    monkeypatch.setattr(processes, "_registry", set())
    for i in range(3):
        processes.spawn(f"sleeper{i}", ["sleep", "300"], log_path=tmp_path / f"{i}.log")
    processes.stop_all()
    assert not processes._registry


def test_a_process_is_pinned_to_the_cpus_it_is_given(tmp_path: Path) -> None:
    cpu = sorted(os.sched_getaffinity(0))[-1]
    proc = processes.spawn("pinned", ["sleep", "30"], cpus=[cpu])
    try:
        assert os.sched_getaffinity(proc.pid) == {cpu}
    finally:
        proc.stop()

"""1 Hz reads of what a leak shows in: the server's processes as the host sees them (RSS, open file
descriptors, threads, how many processes) and the memory its cgroup or container counts. The soak runs
it beside the measurement's resource sampler, which keeps only CPU and memory per component."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import psutil

from .resources import Usage

@dataclass(frozen=True)
class ProcessSample:
    t_s: float                # epoch seconds; written counted from the scenario start
    rss_mb: float | None      # summed over the tree
    cgroup_mb: float | None   # what the limits count (cgroup / container); None where not known
    fds: int | None           # open file descriptors, summed; None when unreadable
    threads: int | None
    processes: int

    def rebased(self, zero_epoch_s: float) -> ProcessSample:
        return ProcessSample(self.t_s - zero_epoch_s, self.rss_mb, self.cgroup_mb, self.fds, self.threads,
                             self.processes)


def read_tree(root_pid: int) -> tuple[float, int | None, int | None, int] | None:
    """RSS (MiB), FDs, threads and process count of a process and its descendants; None when it is gone."""
    try:
        root = psutil.Process(root_pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.Error:
        return None
    rss = 0
    fds: int | None = 0
    threads: int | None = 0
    counted = 0
    for proc in procs:
        try:
            with proc.oneshot():
                rss += proc.memory_info().rss
                threads = threads + proc.num_threads() if threads is not None else None
                try:
                    fds = fds + proc.num_fds() if fds is not None else None
                except psutil.AccessDenied:
                    fds = None
            counted += 1
        except psutil.NoSuchProcess:
            continue
        except psutil.Error:
            return None
    return (rss / 2**20, fds, threads, counted) if counted else None


class ProcessProbe:
    """Samples `root_pid()`'s tree and `usage()` every `interval_s` in a background thread."""

    def __init__(self, root_pid: Callable[[], int | None], usage: Callable[[], Usage | None],
                 interval_s: float = 1.0):
        self.root_pid = root_pid
        self.usage = usage
        self.interval_s = interval_s
        self.samples: list[ProcessSample] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="process-probe", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> list[ProcessSample]:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        return list(self.samples)

    def _loop(self) -> None:
        while not self._stop.is_set():
            began = time.monotonic()
            pid = self.root_pid()
            tree = read_tree(pid) if pid else None
            usage = self.usage()
            if tree is not None or usage is not None:
                rss, fds, threads, count = tree if tree else (None, None, None, 0)
                self.samples.append(ProcessSample(
                    time.time(), round(rss, 2) if rss is not None else None,
                    round(usage.memory_bytes / 2**20, 2) if usage else None, fds, threads, count))
            self._stop.wait(max(0.0, self.interval_s - (time.monotonic() - began)))

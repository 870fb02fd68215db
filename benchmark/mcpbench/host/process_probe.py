"""1 Hz reads of what a leak shows in: the server's processes as the host sees them (RSS, open file
descriptors, threads, how many processes) and the memory its cgroup or container counts. The soak runs
it beside the measurement's resource sampler, which keeps only CPU and memory per component."""

from __future__ import annotations

import time
from collections.abc import Callable

import psutil

from mcpbench.host.resources import Usage, process_tree
from mcpbench.results.model import ProcessSample


def read_tree(root_pid: int) -> tuple[float, int | None, int | None, int] | None:
    """RSS (MiB), FDs, threads and process count of a process and its descendants; None when it is gone."""
    procs = process_tree(root_pid)
    if not procs:
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
    """Reads `root_pid()`'s tree and `usage()` once per call: the resource sampler calls it on each of its
    1 Hz ticks (one loop for every 1 Hz reading of a measurement, resources.Sampler)."""

    def __init__(self, root_pid: Callable[[], int | None], usage: Callable[[], Usage | None]):
        self.root_pid = root_pid
        self.usage = usage
        self.samples: list[ProcessSample] = []

    def read(self) -> None:
        pid = self.root_pid()
        tree = read_tree(pid) if pid else None
        usage = self.usage()
        if tree is not None or usage is not None:
            rss, fds, threads, count = tree if tree else (None, None, None, 0)
            self.samples.append(ProcessSample(
                time.time(), round(rss, 2) if rss is not None else None,
                round(usage.memory_bytes / 2**20, 2) if usage else None, fds, threads, count))

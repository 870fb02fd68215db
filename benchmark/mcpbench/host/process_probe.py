"""1 Hz reads of what a leak shows in: the server's processes as the host sees them (RSS, open file
descriptors, threads, how many processes, TCP sockets and those in CLOSE_WAIT) and the memory its cgroup or
container counts. The soak runs
it beside the measurement's resource sampler, which keeps only CPU and memory per component."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

import psutil

from mcpbench.host.resources import Usage, process_tree
from mcpbench.results.model import ProcessSample


def read_tree(root_pid: int) -> ProcessSample | None:
    """The tree of root_pid, summed, now: its RSS, open files, threads, processes and TCP sockets (a read of
    /proc/<pid>/net per process), those in CLOSE_WAIT apart; the memory its cgroup counts is the caller's.
    None when it is gone."""
    procs = process_tree(root_pid)
    if not procs:
        return None
    rss = 0
    fds: int | None = 0
    threads: int | None = 0
    tcp: int | None = 0
    close_wait: int | None = 0
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
            if tcp is not None and close_wait is not None:
                try:
                    connections = proc.net_connections(kind="tcp")
                    tcp += len(connections)
                    close_wait += sum(1 for c in connections if c.status == psutil.CONN_CLOSE_WAIT)
                except psutil.AccessDenied:
                    tcp = close_wait = None
            counted += 1
        except psutil.NoSuchProcess:
            continue
        except psutil.Error:
            return None
    if not counted:
        return None
    return ProcessSample(time.time(), round(rss / 2**20, 2), None, fds, threads, counted, tcp, close_wait)


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
        cgroup_mb = round(usage.memory_bytes / 2**20, 2) if usage else None
        if tree is not None:
            self.samples.append(dataclasses.replace(tree, cgroup_mb=cgroup_mb))
        elif usage is not None:
            self.samples.append(ProcessSample(time.time(), None, cgroup_mb, None, None, 0))

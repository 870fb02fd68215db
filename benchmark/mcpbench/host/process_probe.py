"""1 Hz reads of what a leak shows in: the server's processes as the host sees them (RSS, open file
descriptors, threads, how many processes) and the memory its cgroup or container counts. The soak runs
it beside the measurement's resource sampler, which keeps only CPU and memory per component."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import psutil

from mcpbench.host.resources import Usage, process_tree
from mcpbench.results.model import ProcessSample


@dataclass(frozen=True)
class Tree:
    """A process and its descendants at one instant, summed."""

    rss_mb: float
    fds: int | None        # None: unreadable
    threads: int | None
    processes: int
    tcp: int | None        # TCP sockets
    close_wait: int | None  # of those, in CLOSE_WAIT: the peer gone, the socket not let go


def read_tree(root_pid: int, sockets: bool = False) -> Tree | None:
    """The tree of root_pid (its TCP sockets too when `sockets`: a read of /proc/<pid>/net per process); None
    when it is gone."""
    procs = process_tree(root_pid)
    if not procs:
        return None
    rss = 0
    fds: int | None = 0
    threads: int | None = 0
    tcp: int | None = 0 if sockets else None
    close_wait: int | None = 0 if sockets else None
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
    return Tree(rss / 2**20, fds, threads, counted, tcp, close_wait) if counted else None


class ProcessProbe:
    """Reads `root_pid()`'s tree and `usage()` once per call: the resource sampler calls it on each of its
    1 Hz ticks (one loop for every 1 Hz reading of a measurement, resources.Sampler)."""

    def __init__(self, root_pid: Callable[[], int | None], usage: Callable[[], Usage | None], sockets: bool = True):
        self.root_pid = root_pid
        self.usage = usage
        self.sockets = sockets
        self.samples: list[ProcessSample] = []

    def read(self) -> None:
        pid = self.root_pid()
        tree = read_tree(pid, self.sockets) if pid else None
        usage = self.usage()
        if tree is not None or usage is not None:
            self.samples.append(ProcessSample(
                time.time(), round(tree.rss_mb, 2) if tree else None,
                round(usage.memory_bytes / 2**20, 2) if usage else None, tree.fds if tree else None,
                tree.threads if tree else None, tree.processes if tree else 0,
                tree.tcp if tree else None, tree.close_wait if tree else None))

"""1 Hz sampling of CPU (100 % = one core, as docker stats) and memory of every component."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import psutil

from mcpbench.results.model import Sample


@dataclass(frozen=True)
class Usage:
    """A cumulative reading: CPU time used so far, and memory in use now."""

    cpu_ns: int
    memory_bytes: int


UsageReader = Callable[[], Usage | None]


def process_tree(pid: int, children: bool = True) -> list[psutil.Process]:
    """A process and (unless told) its descendants ([] when it is gone): the one walk of a process tree (usage
    here, the soak's RSS/FD/thread reads in process_probe)."""
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)] if children else [root]
    except psutil.Error:
        return []


def tree_usage(pid: int, children: bool = True) -> Usage | None:
    """CPU time and RSS of a process and (unless told) its descendants, summed; a descendant that ended
    meanwhile is left out; None when the process itself is gone."""
    procs = process_tree(pid, children)
    if not procs:
        return None
    cpu, rss = 0.0, 0
    for proc in procs:
        try:
            with proc.oneshot():
                times = proc.cpu_times()
                cpu += times.user + times.system
                rss += proc.memory_info().rss
        except psutil.Error:
            if proc is procs[0]:
                return None
    return Usage(int(cpu * 1e9), rss)


def process_reader(pid: int, children: bool = True) -> UsageReader:
    """CPU time and RSS of one process and (unless told) its children, for harness components."""
    return lambda: tree_usage(pid, children)


def process_group_reader(pids: Sequence[int]) -> UsageReader:
    """Several processes (e.g. k6 instances) read as one component: CPU times and RSS summed."""
    readers = [process_reader(pid) for pid in pids]

    def read() -> Usage | None:
        usages = [usage for usage in (reader() for reader in readers) if usage is not None]
        if not usages:
            return None
        return Usage(sum(u.cpu_ns for u in usages), sum(u.memory_bytes for u in usages))

    return read


def host_reader() -> Usage | None:
    """All CPU time the machine spent (every process, ours and others'), and memory in use: the
    difference to our components is foreign load, which makes a measurement noisy."""
    times = psutil.cpu_times()
    busy = times.user + times.nice + times.system + getattr(times, "irq", 0) + getattr(times, "softirq", 0) \
        + getattr(times, "steal", 0)
    return Usage(int(busy * 1e9), psutil.virtual_memory().used)


def rebase(samples: list[Sample], zero_epoch_s: float) -> list[Sample]:
    """The same samples with t_s counted from `zero_epoch_s` (the k6 test start) instead of the epoch."""
    return [Sample(s.t_s - zero_epoch_s, s.component, s.cpu_pct, s.mem_mb) for s in samples]


class Sampler:
    """Reads each component every `interval_s` in a background thread; rates come from deltas. `also` are
    further 1 Hz readings taken on the same ticks (the soak's process-tree probe): one loop, one clock."""

    def __init__(self, readers: dict[str, UsageReader], interval_s: float = 1.0,
                 also: Sequence[Callable[[], None]] = ()):
        self.readers = readers
        self.also = tuple(also)
        self.interval_s = interval_s
        self.samples: list[Sample] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="resource-sampler", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> list[Sample]:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        return list(self.samples)

    def _loop(self) -> None:
        last: dict[str, tuple[float, Usage]] = {}
        while not self._stop.is_set():
            now = time.monotonic()
            for component, read in self.readers.items():
                usage = read()
                if usage is None:
                    continue
                previous = last.get(component)
                last[component] = (now, usage)
                if previous is None:
                    continue
                elapsed = now - previous[0]
                cpu_pct = 100.0 * (usage.cpu_ns - previous[1].cpu_ns) / 1e9 / elapsed if elapsed > 0 else 0.0
                self.samples.append(Sample(time.time(), component, max(cpu_pct, 0.0),
                                           usage.memory_bytes / (1024 * 1024)))
            for read_more in self.also:
                read_more()
            self._stop.wait(max(0.0, self.interval_s - (time.monotonic() - now)))

"""How steady the host itself is during a measurement.

Two views, because on a shared VM neither is enough alone:
- per-CPU busy and steal time (/proc/stat through psutil), sampled at 1 Hz with the other components as
  `cpu<N>` (busy %, steal excluded) and `steal<N>` (time the hypervisor gave our vCPU to someone else);
- a fixed-work speed probe on each CPU just before and just after the load: a neighbour sharing the
  physical core, or a host that throttles, slows identical work without showing up as steal. The suite
  freezes the server while it probes (RunningServer.paused): otherwise the server's own work right after
  the load (a JVM's JIT and GC, Node's idle GC) slows the probe on its CPU and looks like an unstable host.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Iterable
from typing import Protocol

import psutil

from mcpbench.host.resources import Usage, UsageReader

# The probe's work: sha256 over PROBE_PASSES x PROBE_BYTES, PROBE_REPEATS times; the fastest repeat is the
# figure. sha256 is pure CPU in C (hashlib releases the GIL) with no allocation in the loop; a repeat takes
# ~65 ms here (SHA extensions), ~0.2 s per CPU in all. The minimum, not the median: a momentary
# interruption (one of our own processes waking up) slows one repeat, while a slower host (a neighbour on
# the physical core, throttling) slows them all. Measured on a quiet machine, 12 probes per CPU, interleaved:
# fastest of 3, CV 0.5-1.5 %, spread 1.6-5.1 %, 0.19 s a probe; fastest of 5, CV 0.6-1.0 %, spread 1.9-2.6 %,
# 0.33 s. Either is far inside the 15 % the flag allows (analysis.summary.HOST_PROBE_MAX_CHANGE), and a
# measurement probes each CPU twice: 3 repeats save ~0.5 s of each.
PROBE_BYTES = 32 * 2**20
PROBE_PASSES = 4
PROBE_REPEATS = 3
_BUFFER = bytes(range(256)) * (PROBE_BYTES // 256)


def _cpu_times(cpu: int):
    times = psutil.cpu_times(percpu=True)
    return times[cpu] if cpu < len(times) else None


def busy_reader(cpu: int) -> UsageReader:
    """CPU N's busy time (user, nice, system, irq, softirq; not steal, not idle/iowait) as a Usage."""

    def read() -> Usage | None:
        t = _cpu_times(cpu)
        if t is None:
            return None
        busy = t.user + t.nice + t.system + getattr(t, "irq", 0.0) + getattr(t, "softirq", 0.0)
        return Usage(int(busy * 1e9), 0)

    return read


def steal_reader(cpu: int) -> UsageReader:
    """CPU N's steal time: the hypervisor ran someone else on our virtual CPU."""

    def read() -> Usage | None:
        t = _cpu_times(cpu)
        return None if t is None else Usage(int(getattr(t, "steal", 0.0) * 1e9), 0)

    return read


def cpu_readers(cpus: Iterable[int]) -> dict[str, UsageReader]:
    readers: dict[str, UsageReader] = {}
    for cpu in sorted(set(cpus)):
        readers[f"cpu{cpu}"] = busy_reader(cpu)
        readers[f"steal{cpu}"] = steal_reader(cpu)
    return readers


def _probe_once() -> float:
    started = time.perf_counter()
    digest = hashlib.sha256()
    for _ in range(PROBE_PASSES):
        digest.update(_BUFFER)
    digest.digest()
    return time.perf_counter() - started


def speed_probe(cpu: int) -> float | None:
    """Seconds the fixed work takes on `cpu` (fastest of PROBE_REPEATS). A thread pins itself there so
    the orchestrator's own affinity (the harness CPUs) stays as it is."""
    result: list[float] = []

    def work() -> None:
        try:
            os.sched_setaffinity(0, {cpu})  # pid 0 = this thread on Linux
        except (OSError, ValueError):
            return
        result.append(min(_probe_once() for _ in range(PROBE_REPEATS)))

    thread = threading.Thread(target=work, name=f"speed-probe-{cpu}")
    thread.start()
    thread.join()
    return result[0] if result else None


def probe_all(cpus: Iterable[int]) -> dict[str, float | None]:
    """The probe on each CPU in turn (never two at once: they would share a physical core)."""
    return {str(cpu): speed_probe(cpu) for cpu in sorted(set(cpus))}


def involved_cpus(server_cpus: tuple[int, ...] | None, harness_cpus: tuple[int, ...] | None) -> list[int]:
    cpus = set(server_cpus or ()) | set(harness_cpus or ())
    if not cpus:  # nothing pinned: every CPU of the machine is involved
        cpus = set(range(psutil.cpu_count() or 1))
    return sorted(cpus)


class HostView(Protocol):
    """Where the server and the harness run, as a measurement watches it: per-CPU busy/steal and the host's
    total (`host`) as sampler readers, the speed probe, and the cores the harness's services have (what their
    saturation is judged against). The runtime gives it (Runtime.host_view): this machine's, or each swarm
    node's (runtime/swarm_nodes.py)."""

    @property
    def harness_cores(self) -> int: ...

    def readers(self) -> dict[str, UsageReader]: ...

    def probe(self) -> dict[str, float | None]: ...


class LocalHost:
    """This machine: the CPUs the server and the harness are pinned to (every CPU when nothing is)."""

    def __init__(self, server_cpus: tuple[int, ...] | None, harness_cpus: tuple[int, ...] | None):
        self.cpus = involved_cpus(server_cpus, harness_cpus)
        self.harness_cores = len(harness_cpus or ()) or 1

    def readers(self) -> dict[str, UsageReader]:
        from mcpbench.host.resources import host_reader

        return {"host": host_reader, **cpu_readers(self.cpus)}

    def probe(self) -> dict[str, float | None]:
        return probe_all(self.cpus)

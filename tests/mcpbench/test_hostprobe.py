"""Host stability readings: per-CPU busy and steal from /proc/stat, and the fixed-work speed probe."""

from __future__ import annotations

import os
import time

from mcpbench.host import speed_probe as hostprobe


def test_per_cpu_readers_count_up_and_name_each_cpu() -> None:
    cpu = sorted(os.sched_getaffinity(0))[0]
    readers = hostprobe.cpu_readers([cpu, cpu])
    assert set(readers) == {f"cpu{cpu}", f"steal{cpu}"}
    first = readers[f"cpu{cpu}"]()
    end = time.monotonic() + 0.3
    while time.monotonic() < end:  # busy on every CPU we may be scheduled on
        pass
    second = readers[f"cpu{cpu}"]()
    assert first is not None and second is not None and second.cpu_ns >= first.cpu_ns
    assert readers[f"steal{cpu}"]().cpu_ns >= 0
    assert hostprobe.busy_reader(10_000)() is None  # no such CPU: no reading, no crash


def test_the_speed_probe_times_the_same_work_on_each_cpu_and_leaves_our_affinity_alone() -> None:
    before = os.sched_getaffinity(0)
    cpus = sorted(before)
    figures = hostprobe.probe_all(cpus)
    assert set(figures) == {str(c) for c in cpus}
    assert all(0 < seconds < 5 for seconds in figures.values())
    assert os.sched_getaffinity(0) == before
    assert hostprobe.speed_probe(10_000) is None


def test_involved_cpus_are_every_cpu_when_nothing_is_pinned() -> None:
    assert hostprobe.involved_cpus((1,), (0,)) == [0, 1]
    assert len(hostprobe.involved_cpus(None, None)) == (os.cpu_count() or 1)

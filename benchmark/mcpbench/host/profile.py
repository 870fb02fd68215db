"""CPU and memory granted to the server under test, and which of this host's cores the harness keeps."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass


@dataclass(frozen=True)
class ResourceProfile:
    """CPU and memory granted to the server under test, and where the harness runs."""

    cpus: float
    memory_mb: int
    server_cpus: tuple[int, ...] | None  # pinning; None = not pinned
    harness_cpus: tuple[int, ...] | None
    note: str | None = None

    @property
    def cpuset(self) -> str | None:
        return ",".join(map(str, self.server_cpus)) if self.server_cpus else None


def resource_profile(cpus: float = 2.0, memory_mb: int = 2048, cores: int | None = None) -> ResourceProfile:
    """The v2 study's 2 CPUs / 2 GB, scaled down when the machine cannot also give the load generator a core of
    its own."""
    available = sorted(os.sched_getaffinity(0)) if cores is None else list(range(cores))
    note = None
    if len(available) < 2:
        return ResourceProfile(min(cpus, 1.0), memory_mb, None, None,
                               "single core: server and harness share it, nothing pinned")
    if math.ceil(cpus) > len(available) - 1:
        scaled = float(len(available) - 1)
        note = (f"scaled down from {cpus:g} to {scaled:g} CPU(s): this machine has {len(available)} cores "
                f"and the load generator + Redis + the API service keep the rest")
        cpus = scaled
    server = tuple(available[-math.ceil(cpus):])
    harness = tuple(c for c in available if c not in server)
    return ResourceProfile(cpus, memory_mb, server, harness, note)

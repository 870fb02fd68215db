"""Typed run configuration, validated once at the edge (the CLI) and recorded verbatim in run.json."""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass, field
from typing import Literal

Mode = Literal["session", "stateless", "persistent"]
Executor = Literal["closed", "open"]
MODES: tuple[Mode, ...] = ("session", "stateless", "persistent")


@dataclass(frozen=True)
class Timing:
    """k6 timeline: ramp-up, warm-up (excluded), measured window, ramp-down (excluded)."""

    ramp_up_s: float = 15
    warmup_s: float = 60
    duration_s: float = 300
    ramp_down_s: float = 10
    think_time_s: float = 0.05
    request_timeout_s: float = 30

    def __post_init__(self) -> None:
        if self.duration_s <= 0:
            raise ValueError("the measured duration must be positive")
        for name in ("ramp_up_s", "warmup_s", "ramp_down_s", "think_time_s"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} cannot be negative")

    @property
    def window(self) -> tuple[float, float]:
        start = self.ramp_up_s + self.warmup_s
        return start, start + self.duration_s

    @property
    def total_s(self) -> float:
        return self.ramp_up_s + self.warmup_s + self.duration_s + self.ramp_down_s


FULL_TIMING = Timing()
QUICK_TIMING = Timing(ramp_up_s=2, warmup_s=5, duration_s=15, ramp_down_s=2)


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
    """The v2 study's 2 CPUs / 2 GB, scaled down when the machine cannot also give k6 a core of its own."""
    available = sorted(os.sched_getaffinity(0)) if cores is None else list(range(cores))
    note = None
    if len(available) < 2:
        return ResourceProfile(min(cpus, 1.0), memory_mb, None, None,
                               "single core: server and harness share it, nothing pinned")
    if math.ceil(cpus) > len(available) - 1:
        scaled = float(len(available) - 1)
        note = (f"scaled down from {cpus:g} to {scaled:g} CPU(s): this machine has {len(available)} cores "
                f"and k6 + Redis + the API service keep the rest")
        cpus = scaled
    server = tuple(available[-math.ceil(cpus):])
    harness = tuple(c for c in available if c not in server)
    return ResourceProfile(cpus, memory_mb, server, harness, note)


@dataclass(frozen=True)
class Load:
    """One k6 test: the parameters a measurement is named by."""

    mode: Mode
    vus: int
    executor: Executor = "closed"
    rate: float | None = None  # open model: tool calls per second

    @property
    def label(self) -> str:
        load = f"rate{self.rate:g}" if self.executor == "open" else f"{self.vus}vu"
        return f"{self.mode}-{load}"


@dataclass(frozen=True)
class RunConfig:
    runtime: Literal["local", "docker"]
    servers: tuple[str, ...]
    modes: tuple[Mode, ...] = ("session",)
    vus: tuple[int, ...] = (50,)
    runs: int = 1
    shuffle: bool = False
    timing: Timing = field(default_factory=Timing)
    profile: ResourceProfile = field(default_factory=resource_profile)
    rate_fractions: tuple[float, ...] = ()  # open model at these fractions of the measured maximum
    build: bool = True

    def __post_init__(self) -> None:
        if self.runs < 1:
            raise ValueError("--runs must be at least 1")
        if not self.vus or any(v < 1 for v in self.vus):
            raise ValueError("--vus takes positive integers, e.g. 50 or 1,10,50")
        if any(not 0 < f <= 2 for f in self.rate_fractions):
            raise ValueError("--open fractions must be in (0, 2], e.g. 0.5,0.8")
        unknown = set(self.modes) - set(MODES)
        if unknown:
            raise ValueError(f"unknown mode(s) {sorted(unknown)}; choose from {', '.join(MODES)}")

    def loads(self) -> list[Load]:
        return [Load(mode, vus) for mode in self.modes for vus in self.vus]

    def record(self) -> dict[str, object]:
        """What run.json says about the configuration."""
        profile = asdict(self.profile)
        profile["cpuset"] = self.profile.cpuset
        return {
            "runtime": self.runtime, "servers": list(self.servers), "modes": list(self.modes),
            "vus": list(self.vus), "runs": self.runs, "shuffle": self.shuffle,
            "executor": "open" if self.rate_fractions else "closed",
            "rate_fractions": list(self.rate_fractions) or None,
            **asdict(self.timing), "profile": profile,
        }

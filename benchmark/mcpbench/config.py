"""Typed run configuration, validated once at the edge (the CLI) and recorded verbatim in run.json."""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass, field

from . import runtime as runtimes
from .scenarios import MODE_TRANSPORT, MODES, ClosedLoad, Load, Mode, OpenLoad  # noqa: F401 - Load, Mode: re-exported


@dataclass(frozen=True)
class Timing:
    """The load's timeline: ramp-up, warm-up (excluded), measured window, ramp-down (excluded).

    With `warmup_cap_s` set the warm-up is adaptive (warmup.py): it lasts at least `warmup_s` and at most
    `warmup_cap_s`, and ends when throughput is steady; without it, it is exactly `warmup_s`.
    """

    ramp_up_s: float = 15
    warmup_s: float = 30
    duration_s: float = 300
    ramp_down_s: float = 10
    think_time_s: float = 0.05
    request_timeout_s: float = 30
    warmup_cap_s: float | None = 180

    def __post_init__(self) -> None:
        if self.duration_s <= 0:
            raise ValueError("the measured duration must be positive")
        for name in ("ramp_up_s", "warmup_s", "ramp_down_s", "think_time_s"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} cannot be negative")
        if self.warmup_cap_s is not None and self.warmup_cap_s < self.warmup_s:
            raise ValueError("the warm-up cap cannot be below the minimum warm-up")

    @property
    def adaptive(self) -> bool:
        return self.warmup_cap_s is not None

    def window_after(self, warmup_s: float) -> tuple[float, float]:
        start = self.ramp_up_s + warmup_s
        return start, start + self.duration_s

    @property
    def window(self) -> tuple[float, float]:
        """The window of a fixed warm-up (the earliest possible one of an adaptive warm-up)."""
        return self.window_after(self.warmup_s)

    @property
    def hold_s(self) -> float:
        """How long the generator holds full load: the longest warm-up plus the window."""
        return (self.warmup_cap_s if self.adaptive else self.warmup_s) + self.duration_s

    @property
    def total_s(self) -> float:
        """The longest the test can take (an adaptive warm-up usually ends it earlier)."""
        return self.ramp_up_s + self.hold_s + self.ramp_down_s


# Warm-up bounds (issue 9): full 30-180 s, quick 10-60 s; within them warm-up ends when steady.
FULL_TIMING = Timing()
QUICK_TIMING = Timing(ramp_up_s=2, warmup_s=10, duration_s=15, ramp_down_s=2, warmup_cap_s=60)
FULL_ROUNDS = 3  # the full profile ranks from 3 interleaved rounds by default


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
    """The v2 study's 2 CPUs / 2 GB, scaled down when the machine cannot also give the load generator a core of its own."""
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


@dataclass(frozen=True)
class RunConfig:
    runtime: str             # a name in runtime.RUNTIMES
    servers: tuple[str, ...]
    modes: tuple[Mode, ...] = ("session",)
    vus: tuple[int, ...] = (50,)
    runs: int = 1            # rounds: each measures every server once, in a new order
    shuffle: bool = True
    timing: Timing = field(default_factory=Timing)
    profile: ResourceProfile = field(default_factory=resource_profile)
    rate_fractions: tuple[float, ...] = ()  # open model at these fractions of round 1's closed maximum
    build: bool = True
    calibrate: bool = True   # measure the harness's limits before the first round and after every infrastructure restart
    load_generator: str = "driver"  # a name in loadgen.GENERATORS (stdio modes use one that speaks stdio)
    load_instances: int = 1  # >1: each HTTP test split across that many generator processes (segments)

    def __post_init__(self) -> None:
        runtimes.check(self.runtime)
        if self.load_instances < 1:
            raise ValueError("--load-instances must be at least 1")
        if self.runs < 1:
            raise ValueError("--runs must be at least 1")
        if not self.vus or any(v < 1 for v in self.vus):
            raise ValueError("--vus takes positive integers, e.g. 50 or 1,10,50")
        if any(not 0 < f <= 2 for f in self.rate_fractions):
            raise ValueError("--open fractions must be in (0, 2], e.g. 0.5,0.8")
        unknown = set(self.modes) - set(MODES)
        if unknown:
            raise ValueError(f"unknown mode(s) {sorted(unknown)}; choose from {', '.join(MODES)}")

    @property
    def stdio_modes(self) -> tuple[Mode, ...]:
        return tuple(m for m in self.modes if MODE_TRANSPORT[m] == "stdio")

    def loads(self) -> list[Load]:
        return [ClosedLoad(mode, vus) for mode in self.modes for vus in self.vus]

    def record(self) -> dict[str, object]:
        """What run.json says about the configuration."""
        profile = asdict(self.profile)
        profile["cpuset"] = self.profile.cpuset
        return {
            "runtime": self.runtime, "servers": list(self.servers), "modes": list(self.modes),
            "vus": list(self.vus), "runs": self.runs, "shuffle": self.shuffle,
            "executor": OpenLoad.kind if self.rate_fractions else ClosedLoad.kind,
            "rate_fractions": list(self.rate_fractions) or None, "calibrate": self.calibrate,
            **asdict(self.timing), "warmup_adaptive": self.timing.adaptive, "profile": profile,
            # the generator each transport used is added by the suite once it chose them (by_transport)
            "load_generator": {"name": self.load_generator, "instances": self.load_instances},
        }

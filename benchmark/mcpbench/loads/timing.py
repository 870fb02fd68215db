"""A load's timeline: ramp-up, warm-up (excluded), measured window, ramp-down (excluded); the two presets."""

from __future__ import annotations

from dataclasses import dataclass


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
    # The adaptive warm-up compares the last steady_span_s seconds with the span before (analysis/warmup.py),
    # so it lasts at least two spans.
    steady_span_s: float = 10

    def __post_init__(self) -> None:
        if self.duration_s <= 0:
            raise ValueError("the measured duration must be positive")
        for name in ("ramp_up_s", "warmup_s", "ramp_down_s", "think_time_s"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} cannot be negative")
        if self.request_timeout_s <= 0:
            raise ValueError("--request-timeout takes positive seconds, e.g. 30")
        if self.steady_span_s < 1:
            raise ValueError("the steady span must be at least 1 s")
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
        return (self.warmup_cap_s if self.warmup_cap_s is not None else self.warmup_s) + self.duration_s

    @property
    def total_s(self) -> float:
        """The longest the test can take (an adaptive warm-up usually ends it earlier)."""
        return self.ramp_up_s + self.hold_s + self.ramp_down_s


# -- every timing preset, the one place a window's length is chosen --------------------------------------------
# Fixed loads (`mcpbench run`). Warm-up bounds (issue 9): full 30-180 s, quick 10-60 s; within them warm-up
# ends when steady.
FULL_TIMING = Timing()
# Quick compares 5 s spans: its warm-up can end after 10 s rather than 20 s, the largest saving of the first-run
# profile's three rounds (issue 21); the spans still hold hundreds of calls each. Its ramp-up is 1 s: it only brings
# full load sooner (the adaptive warm-up after it still decides when the server is warm), and it is paid once per
# measurement, ~60 times in a first run. The warm-up is not shortened further: on recorded runs
# 4 s spans (an 8 s minimum) moved the first window's CPU ms/call by +1 to +5 % more than 5 s spans do
# (docs/first-run-profile.md).
QUICK_TIMING = Timing(ramp_up_s=1, warmup_s=10, duration_s=15, ramp_down_s=2, warmup_cap_s=60, steady_span_s=5)
# A closed load that only sizes the equal load (`run --closed-once`) keeps its fixed warm-up but measures at most this
# long: replayed on a first run's sizing loads (scripts/sizing_replay.py --probes 10:3), the first 3 s of the 5 s
# window read each server at 0.95-1.00 of its 5 s rate and set the same equal rate; the 2 s saved (and its 2 s
# ramp-down) are paid once per server in a first run.
SIZING_WINDOW_S = 3.0
# The harness's calibration before a run: short, a fixed warm-up (the canned endpoint has nothing to warm up)…
CALIBRATION_FULL = Timing(ramp_up_s=5, warmup_s=10, duration_s=30, ramp_down_s=2, warmup_cap_s=None)
CALIBRATION_QUICK = Timing(ramp_up_s=2, warmup_s=3, duration_s=10, ramp_down_s=1, warmup_cap_s=None)
# …one step of its open-model ladder…
LADDER_STEP_FULL = Timing(ramp_up_s=2, warmup_s=5, duration_s=15, ramp_down_s=0, warmup_cap_s=None)
LADDER_STEP_QUICK = Timing(ramp_up_s=1, warmup_s=2, duration_s=5, ramp_down_s=0, warmup_cap_s=None)
# …and `mcpbench calibrate` on its own (its measured time is --duration, 60 s by default).
CALIBRATE_FULL = Timing(ramp_up_s=5, warmup_s=15, duration_s=60, ramp_down_s=2, warmup_cap_s=None)
CALIBRATE_QUICK = Timing(ramp_up_s=2, warmup_s=5, duration_s=15, ramp_down_s=2, warmup_cap_s=None)
# A capacity ladder's step: the first step warms the server up (its own warm-up below); later steps ramp to the
# next rate and settle briefly.
CAPACITY_STEP_FULL = Timing(ramp_up_s=2, warmup_s=5, duration_s=30, ramp_down_s=0, warmup_cap_s=None)
CAPACITY_STEP_QUICK = Timing(ramp_up_s=1, warmup_s=2, duration_s=10, ramp_down_s=0, warmup_cap_s=None)
CAPACITY_FIRST_WARMUP_FULL_S = 30
CAPACITY_FIRST_WARMUP_QUICK_S = 10
# A soak's fixed warm-up: the baseline must start at the same point for every server.
SOAK_WARMUP_FULL_S = 60.0
SOAK_WARMUP_QUICK_S = 10.0

"""Warm-up that ends when the server is warm, decided while k6 runs.

One k6 process holds full load for up to the longest warm-up plus the window; this module reads its raw
sample log as it grows and places the measured window where throughput has become steady. One process
rather than a separate warm-up k6 run, because stopping and restarting k6 would drop every connection and
the load for a second or two just before the window, which is exactly when the server must be warm.

Steady: the mean successful tool calls/s of the last STEADY_SPAN_S seconds is within STEADY_TOLERANCE of
the STEADY_SPAN_S seconds before, both spans after the ramp-up, and at least the minimum warm-up has
passed. At the cap the window starts anyway and the measurement says `steady: false`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from .config import Timing
from .workload import TOOL_NAMES

STEADY_SPAN_S = 10
STEADY_TOLERANCE = 0.03
# A sample is logged when its session ends; sessions still open at second t may land in second t later.
# A second counts as complete once samples STEADY_LAG_S past it have been seen.
STEADY_LAG_S = 2


@dataclass(frozen=True)
class WarmupDecision:
    used_s: float          # warm-up after the ramp-up
    steady: bool | None    # None: a fixed warm-up, not assessed

    def record(self, timing: Timing) -> dict[str, object]:
        return {"used_s": round(self.used_s, 3), "min_s": timing.warmup_s,
                "cap_s": timing.warmup_cap_s if timing.adaptive else timing.warmup_s, "steady": self.steady}


def steady_start(per_second: list[int], timing: Timing, complete_s: int) -> WarmupDecision | None:
    """Where the window starts, given successful tool calls per second since the scenario start and the
    number of seconds known complete; None while it is not decided yet."""
    assert timing.warmup_cap_s is not None
    first = math.ceil(timing.ramp_up_s + timing.warmup_s)
    cap = timing.ramp_up_s + timing.warmup_cap_s
    for end in range(first, min(complete_s, math.floor(cap)) + 1):
        earlier_start = end - 2 * STEADY_SPAN_S
        if earlier_start < timing.ramp_up_s:
            continue
        before = sum(per_second[earlier_start:end - STEADY_SPAN_S]) / STEADY_SPAN_S
        last = sum(per_second[end - STEADY_SPAN_S:end]) / STEADY_SPAN_S
        if before > 0 and abs(last - before) <= STEADY_TOLERANCE * before:
            return WarmupDecision(end - timing.ramp_up_s, True)
    if complete_s >= cap:
        return WarmupDecision(timing.warmup_cap_s, False)
    return None


@dataclass
class LiveSamples:
    """Tails k6's raw sample log while it is written: successful tool calls per second so far."""

    path: Path
    per_second: list[int] = field(default_factory=list)
    latest_s: float = 0.0
    _offset: int = 0
    _partial: str = ""

    def poll(self) -> None:
        try:
            with open(self.path, encoding="utf-8", errors="replace") as handle:
                handle.seek(self._offset)
                chunk = handle.read()
                self._offset = handle.tell()
        except OSError:
            return
        lines = (self._partial + chunk).split("\n")
        self._partial = lines.pop()  # an incomplete last line waits for the next poll
        for line in lines:
            if not line.startswith("S,"):
                continue
            parts = line.split(",", 5)
            try:
                t = float(parts[1])
            except (IndexError, ValueError):
                continue
            self.latest_s = max(self.latest_s, t)
            if parts[4] == "1" and parts[3] in TOOL_NAMES:
                second = int(t)
                if second >= len(self.per_second):
                    self.per_second.extend([0] * (second + 1 - len(self.per_second)))
                self.per_second[second] += 1

    @property
    def complete_s(self) -> int:
        return max(0, int(self.latest_s) - STEADY_LAG_S)

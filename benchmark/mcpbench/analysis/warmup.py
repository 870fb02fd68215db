"""Warm-up that ends when the server is warm, decided while the load generator runs.

One load-generator run holds full load for up to the longest warm-up plus the window; this module reads its
raw sample log as it grows and places the measured window where the server has become steady. One run
rather than a separate warm-up run, because stopping and restarting the load would drop every connection
and the load for a second or two just before the window, which is exactly when the server must be warm.

Steady: over the last span (the timing's steady_span_s: STEADY_SPAN_S, quick 5 s) against the span before
(both after the ramp-up, and at least the minimum warm-up passed), the mean successful tool calls/s is within
STEADY_TOLERANCE, the median latency of those calls within STEADY_LATENCY_TOLERANCE, and the server's CPU
per successful call within STEADY_CPU_TOLERANCE (or its CPU within STEADY_CPU_FLOOR_PCT of a core). Throughput
alone is not enough: in the open model it is steady by construction, and in the closed model with 50 ms of
think time a 30 % drop in latency moves calls/s by about 4 %. Latency is not enough either: at an equal load
of 153 calls/s a JIT runtime answers as fast as it will long before its compiler is done, and the CPU the
compiler spends lands in the window — Quarkus' CPU fell from 40 % to 21 % of a core between the two spans
before the window the latency rule chose, and settled near 12 % (docs/first-run-profile.md: the server's
CPU per call, not its latency, is what the equal load ranks). At the cap the window starts anyway and the
measurement says `steady: false`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mcpbench.loads import METHODS
from mcpbench.loads.timing import Timing
from mcpbench.results.model import Warmup

STEADY_SPAN_S = 10  # the full profile's span (Timing.steady_span_s)
STEADY_TOLERANCE = 0.03
STEADY_LATENCY_TOLERANCE = 0.10  # medians of thousands of calls; a cold server's are 30 % and more apart
STEADY_CPU_TOLERANCE = 0.15     # the server's CPU per call, span against span (1 Hz readings of a bursty JIT)
STEADY_CPU_FLOOR_PCT = 2.0      # …or its CPU within this many % of a core (a server using 5 % of one)
# A sample is logged when its session ends; sessions still open at second t may land in second t later.
# A second counts as complete once samples STEADY_LAG_S past it have been seen.
STEADY_LAG_S = 2


@dataclass(frozen=True)
class WarmupDecision:
    used_s: float          # warm-up after the ramp-up
    steady: bool | None    # None: a fixed warm-up, not assessed

    def warmup(self, timing: Timing) -> Warmup:
        """The warm-up as summary.json and context.json record it, within the timing's bounds."""
        return Warmup(used_s=round(self.used_s, 3), min_s=timing.warmup_s,
                      cap_s=timing.warmup_cap_s if timing.adaptive else timing.warmup_s, steady=self.steady)


def _median(latency_ms: list[list[float]], start: int, end: int) -> float | None:
    values = [v for second in latency_ms[start:end] for v in second]
    return float(np.median(values)) if values else None


def latency_steady(latency_ms: list[list[float]] | None, earlier_start: int, end: int, span: int) -> bool:
    """The median latency of [end - span, end) within STEADY_LATENCY_TOLERANCE of the span before
    (True when no latencies are given: throughput alone, as callers without them asked)."""
    if latency_ms is None:
        return True
    before = _median(latency_ms, earlier_start, end - span)
    last = _median(latency_ms, end - span, end)
    return before is not None and last is not None and before > 0 and \
        abs(last - before) <= STEADY_LATENCY_TOLERANCE * before


@dataclass(frozen=True)
class CpuRule:
    """How the warm-up watches the server's CPU: `spans` consecutive spans of `factor` x the steady span each,
    every neighbouring two within `tolerance` of CPU per call (or `floor_pct` % of a core) of each other."""

    spans: int = 2
    factor: int = 1
    tolerance: float = STEADY_CPU_TOLERANCE
    floor_pct: float = STEADY_CPU_FLOOR_PCT

    def describe(self) -> str:
        return (f"{self.spans} consecutive spans of {self.factor} x the steady span, each within "
                f"{self.tolerance:.0%} of CPU per call (or {self.floor_pct:g} % of a core) of the one before")


CPU_RULE = CpuRule()


def cpu_steady(server_cpu: list[float | None] | None, per_second: list[int], end: int, span: int,
               rule: CpuRule = CPU_RULE) -> bool:
    """The server's CPU per successful call steady up to `end` by `rule` (True when no CPU readings are given:
    callers that do not watch the server's CPU). server_cpu: % of one core per second since the scenario start."""
    if server_cpu is None:
        return True
    length = span * rule.factor
    starts = [end - length * k for k in range(rule.spans, 0, -1)]
    if starts[0] < 0:
        return False
    cpu, calls = [], []
    for start in starts:
        values = [server_cpu[t] for t in range(start, min(start + length, len(server_cpu)))]
        known = [v for v in values if v is not None]
        if len(known) < length:  # a second past the readings, or one without a reading
            return False
        cpu.append(sum(known) / length)
        calls.append(sum(per_second[start:start + length]))
    if not all(calls):
        return False
    for i in range(1, len(starts)):
        if abs(cpu[i] - cpu[i - 1]) <= rule.floor_pct:
            continue
        before, last = cpu[i - 1] / calls[i - 1], cpu[i] / calls[i]
        if not (before > 0 and abs(last - before) <= rule.tolerance * before):
            return False
    return True


def steady_start(per_second: list[int], timing: Timing, complete_s: int,
                 latency_ms: list[list[float]] | None = None,
                 server_cpu: list[float | None] | None = None, cpu_rule: CpuRule = CPU_RULE) -> WarmupDecision | None:
    """Where the window starts, given successful tool calls per second since the scenario start, their
    latencies per second, the server's CPU per second (% of a core), and the number of seconds known complete;
    None while it is not decided yet."""
    assert timing.warmup_cap_s is not None
    first = math.ceil(timing.ramp_up_s + timing.warmup_s)
    cap = timing.ramp_up_s + timing.warmup_cap_s
    span = round(timing.steady_span_s)  # Timing keeps it at 1 s or more
    for end in range(first, min(complete_s, math.floor(cap)) + 1):
        earlier_start = end - 2 * span
        if earlier_start < timing.ramp_up_s:
            continue
        before = sum(per_second[earlier_start:end - span]) / span
        last = sum(per_second[end - span:end]) / span
        # the cheap throughput test first: the latency medians only where it holds
        if before > 0 and abs(last - before) <= STEADY_TOLERANCE * before \
                and latency_steady(latency_ms, earlier_start, end, span) \
                and cpu_steady(server_cpu, per_second, end, span, cpu_rule):
            return WarmupDecision(end - timing.ramp_up_s, True)
    if complete_s >= cap:
        return WarmupDecision(timing.warmup_cap_s, False)
    return None


@dataclass
class LiveSamples:
    """Tails the load generator's raw sample log while it is written: successful tool calls per second so
    far, and their latencies (call_ms) per second."""

    path: Path
    per_second: list[int] = field(default_factory=list)
    latency_ms: list[list[float]] = field(default_factory=list)
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
            parts = line.split(",", 7)  # S,t_s,vu,tool,ok,error_kind,call_ms,…
            try:
                t = float(parts[1])
            except (IndexError, ValueError):
                continue
            self.latest_s = max(self.latest_s, t)
            if parts[4] == "1" and parts[3] not in METHODS:
                second = int(t)
                if second >= len(self.per_second):
                    self.per_second.extend([0] * (second + 1 - len(self.per_second)))
                    self.latency_ms.extend([] for _ in range(second + 1 - len(self.latency_ms)))
                self.per_second[second] += 1
                try:
                    self.latency_ms[second].append(float(parts[6]))
                except (IndexError, ValueError):
                    pass

    @property
    def complete_s(self) -> int:
        return max(0, int(self.latest_s) - STEADY_LAG_S)


def per_second_cpu(readings: list[tuple[float, float]], seconds: int) -> list[float | None]:
    """A component's CPU (% of a core) per whole second since the scenario start, from ~1 Hz readings (t_s
    counted from the scenario start, each covering about (t_s - 1, t_s]): a second takes the reading whose
    interval's middle is nearest to its own, within a second; None where none is."""
    middles = [(t_s - 0.5, pct) for t_s, pct in readings]
    out: list[float | None] = []
    for second in range(max(seconds, 0)):
        near = min(middles, key=lambda m: abs(m[0] - (second + 0.5)), default=None)
        out.append(near[1] if near is not None and abs(near[0] - (second + 0.5)) <= 1.0 else None)
    return out

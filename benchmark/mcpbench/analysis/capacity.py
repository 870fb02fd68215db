"""`mcpbench capacity`: how many tool calls per second one instance serves within a latency and error SLO.

An open-model step test per server: the arrival rate rises along one ladder (start × factor^k, the same for
every server and round, so steps pool by rate), each step held long enough for its own percentiles, a
warm-up before the first. It stops at the first step that breaks the SLO, near the harness's open-model
capacity, or when the server no longer keeps up (calls dropped or the achieved rate short of the offered).
The capacity is the highest passing step. When the ladder ended on the server (SLO broken, saturated) the
true limit lies between it and the next step; when it ended on anything else (max steps, the harness, an
invalid step, an interruption) the capacity is only a lower bound, and says so (`lower_bound`). Every step is an
ordinary measurement (summary.json, samples, resources) and capacity.json sums a server's ladder up per round.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mcpbench.analysis.slo import Criterion
from mcpbench.analysis.summary import DROPPED_MAX_SHARE, HOST_FLAGS, LIMIT_FRACTION, harness_bound, is_bound
from mcpbench.loads import OpenLoad
from mcpbench.loads.timing import (
    CAPACITY_FIRST_WARMUP_FULL_S,
    CAPACITY_FIRST_WARMUP_QUICK_S,
    CAPACITY_STEP_FULL,
    CAPACITY_STEP_QUICK,
    Timing,
)
from mcpbench.results.layout import ServerDir
from mcpbench.results.model import CAPACITY_FILE, Capacity, CapacityPlan, CapacityRound, CapacityStep, Summary

RESULT_FILE = CAPACITY_FILE   # the experiment result this module judges (analysis/recompute.py)

# A step whose achieved rate falls this far below the offered one is the server saturating, whatever the
# latency: the open model's arrivals are queueing somewhere.
ACHIEVED_MIN_SHARE = 0.95
# A step measured on an unsteady host (HOST_FLAGS) proves nothing about the server: its capacity is shown, not
# ranked. Flags of a deciding step that make the capacity the machine's or the harness's, not the server's: the host,
# a server not held to its CPU/memory limits, a rate never judged against the harness's capacity.
DOUBT_FLAGS = (*HOST_FLAGS, "cgroup-not-applied", "limit-unknown")
# Why a ladder ended (CapacityStep.stop_kind). Only the first two are the server's own limit.
STOP_SLO, STOP_SATURATED = "slo", "saturated"
STOP_INVALID, STOP_HARNESS_BOUND, STOP_HARNESS_CAPACITY = "invalid", "harness-bound", "harness-capacity"
STOP_MAX_STEPS, STOP_INTERRUPTED = "max-steps", "interrupted"
SERVER_STOPS = (STOP_SLO, STOP_SATURATED)
DEFAULT_SLO = "p99<100ms,errors<1%"

# Step timing (scenarios/timing.py has every preset).
QUICK_STEP, FULL_STEP = CAPACITY_STEP_QUICK, CAPACITY_STEP_FULL
QUICK_FIRST_WARMUP_S, FULL_FIRST_WARMUP_S = CAPACITY_FIRST_WARMUP_QUICK_S, CAPACITY_FIRST_WARMUP_FULL_S

@dataclass(frozen=True)
class Plan:
    """The step test: the ladder, its timing and the SLO it is judged by."""

    slo: tuple[Criterion, ...]
    start_rate: float = 50.0
    factor: float = 1.25
    max_steps: int = 20
    step: Timing = QUICK_STEP
    first_warmup_s: float = QUICK_FIRST_WARMUP_S

    def __post_init__(self) -> None:
        if self.start_rate <= 0:
            raise ValueError("--start-rate must be positive")
        if self.factor <= 1:
            raise ValueError("--factor must be above 1")
        if self.max_steps < 1:
            raise ValueError("--max-steps must be at least 1")

    def rate(self, step: int) -> float:
        return round(self.start_rate * self.factor ** step, 1)

    def timing(self, step: int) -> Timing:
        if step > 0:
            return self.step
        return Timing(self.step.ramp_up_s, self.first_warmup_s, self.step.duration_s, self.step.ramp_down_s,
                      self.step.think_time_s, self.step.request_timeout_s, None)

    @property
    def recorded(self) -> CapacityPlan:
        """The step test as run.json's config and capacity.json record it: the SLO's texts, the step's window."""
        return CapacityPlan(slo=[c.text for c in self.slo], start_rate=self.start_rate, factor=self.factor,
                            max_steps=self.max_steps, step_s=self.step.duration_s, first_warmup_s=self.first_warmup_s)


def judge(summary: Summary, load: OpenLoad, slo: tuple[Criterion, ...], harness_capacity: float | None,
          measurement: str) -> CapacityStep:
    """One step against the SLO, and whether the ladder stops: the SLO broken, the server saturated (calls
    dropped, or the achieved rate short of the offered), or the next step beyond what the harness can
    offer (at LIMIT_FRACTION of its calibrated open-model capacity a rate is the harness's, not the
    server's)."""
    thr = summary.throughput
    seconds = summary.window.seconds
    criteria = {c.text: c.holds(c.value(summary)) for c in slo}
    dropped = int(thr.dropped_iterations or 0)
    achieved = float(thr.tool_calls_per_s)
    saturated = (dropped > DROPPED_MAX_SHARE * load.rate * seconds
                 or achieved < ACHIEVED_MIN_SHARE * load.rate)
    valid = summary.status == "ok"
    bound = harness_bound(summary.flags)
    passed = valid and all(criteria.values()) and not saturated and not bound
    stop = kind = None
    if not valid:
        stop, kind = f"measurement {summary.status}: {summary.reason}", STOP_INVALID
    elif bound:
        stop = "harness limited: " + ", ".join(f for f in summary.flags if is_bound(f))
        kind = STOP_HARNESS_BOUND
    elif not all(criteria.values()):
        stop = "slo broken: " + ", ".join(text for text, held in criteria.items() if not held)
        kind = STOP_SLO
    elif saturated:
        stop = "server saturated: " + (f"{dropped} calls dropped" if dropped > DROPPED_MAX_SHARE * load.rate * seconds
                                       else f"{achieved:.1f} of {load.rate:g} calls/s achieved")
        kind = STOP_SATURATED
    elif harness_capacity and load.rate >= LIMIT_FRACTION * harness_capacity:
        stop = (f"harness capacity: {load.rate:g} calls/s is {load.rate / harness_capacity:.0%} of the harness's "
                f"calibrated open-model capacity, {harness_capacity:.0f}")
        kind = STOP_HARNESS_CAPACITY
    unsteady = [f for f in summary.flags if f in HOST_FLAGS]
    if stop and unsteady:  # what broke may be the host's doing, not the server's
        stop += f" (on an unsteady host: {', '.join(unsteady)})"
    server = summary.resources.get("server")
    all_calls = summary.latency_ms.tool_call_all
    return CapacityStep(rate_offered=load.rate, rate_achieved=achieved, p50_ms=all_calls.p50 if all_calls else None,
                        p95_ms=all_calls.p95 if all_calls else None, p99_ms=all_calls.p99 if all_calls else None,
                        error_rate=summary.errors.rate, dropped_iterations=dropped,
                        cpu_avg_pct=server.cpu_avg_pct if server else None,
                        mem_peak_mb=server.mem_peak_mb if server else None, criteria=criteria,
                        flags=list(summary.flags), passed=passed, stop=stop, measurement=measurement, stop_kind=kind)


# capacity.json files written before stop_kind was recorded say it in their stop text's first words.
_STOP_PREFIXES = (("measurement ", STOP_INVALID), ("harness limited", STOP_HARNESS_BOUND),
                  ("harness ceiling", STOP_HARNESS_CAPACITY), ("harness capacity", STOP_HARNESS_CAPACITY),
                  ("slo broken", STOP_SLO), ("server saturated", STOP_SATURATED))


def stop_kind(step: CapacityStep) -> str | None:
    """What ended the ladder at this step, None when it went on."""
    if step.stop_kind or not step.stop:
        return step.stop_kind
    return next((kind for prefix, kind in _STOP_PREFIXES if step.stop.startswith(prefix)), STOP_INVALID)


def ladder_verdict(mode: str, run: int, steps: list[CapacityStep], max_steps: int,
                   stopped_by: str | None = None) -> CapacityRound:
    """One round's ladder judged from its steps — the one definition of a capacity, used when the suite writes
    capacity.json and again when the report reads it (so a file written by older code is judged by today's
    rules): the highest step that passed with every step below it passing; whether that is the server's limit
    (the ladder ended on the SLO or on saturation, so the true limit lies below the next step) or only a lower
    bound (it ended on max steps, the harness, an invalid step or an interruption: there is no next step of the
    server's); and whether the deciding steps can be trusted."""
    passing = None
    for index, step in enumerate(steps):
        if not step.passed:
            break
        passing = index
    last = steps[-1] if steps else None
    kind = stop_kind(last) if last else None
    if last is not None and kind is None:
        kind = STOP_MAX_STEPS if len(steps) >= max_steps else STOP_INTERRUPTED
    if stopped_by is None:
        stopped_by = ("no step measured" if last is None else last.stop if last.stop
                      else f"max steps: {max_steps} steps passed" if kind == STOP_MAX_STEPS else "interrupted")
    on_server = kind in SERVER_STOPS
    # What decided the capacity (the steps up to the first that failed) must have run on a steady host, under
    # the server's limits and not limited by the harness, or the figure is the machine's, not the server's;
    # an invalid step says nothing of the server at all.
    deciding = steps[:passing + 2] if passing is not None else steps[:1]
    doubts = {f for step in deciding for f in step.flags if f in DOUBT_FLAGS or is_bound(f)}
    if kind == STOP_INVALID:
        doubts.add("invalid step")
    next_step = None
    if on_server:
        next_step = steps[passing + 1].rate_offered if passing is not None else steps[0].rate_offered
    return CapacityRound(mode=mode, run=run,
                         capacity_calls_per_s=steps[passing].rate_offered if passing is not None else None,
                         lower_bound=bool(steps) and not on_server, trustworthy=bool(steps) and not doubts,
                         doubts=sorted(doubts), below_first_step=passing is None and on_server,
                         next_step_calls_per_s=next_step, stopped_by=stopped_by, stop_kind=kind, steps=steps)


def instances_for(target_rate: float, capacity: float | None) -> int | None:
    """Instances of a stack needed for a target rate, each loaded at most to its capacity."""
    if not capacity or capacity <= 0:
        return None
    return max(1, math.ceil(target_rate / capacity))


def rejudge_result(document: Capacity, server: ServerDir, request_timeout_s: float) -> Capacity:
    """`mcpbench upgrade`'s re-judgement of a capacity.json (RESULT_FILE): rejudged."""
    return rejudged(document)


def rejudged(document: Capacity) -> Capacity:
    """capacity.json with every round judged again from its steps (ladder_verdict), its stopped_by kept."""
    max_steps = document.plan.max_steps
    return document.model_copy(update={"rounds": [ladder_verdict(entry.mode, entry.run, entry.steps, max_steps,
                                                                 entry.stopped_by) for entry in document.rounds]})

"""The capacity page's figures (`mcpbench capacity` results): per server and mode, the capacity of each
round's ladder, their median and range, whether they can be told apart, and what a target rate needs.

Capacity is known to one step only (the true limit lies between the capacity and the next step), so two
servers are told apart only when, in every round, one's capacity is at or above the other's next step —
their intervals never overlap. A ladder that did not end on the server (max steps, the harness, an invalid
step) has no next step: its capacity is a lower bound, never apart from anything above it, and it sizes a
deployment only as "at most N instances". No test is run on so few, coarse values; the page orders, and
says where the order is not proven. Each round is judged again from its steps on read
(mcpbench.capacity.ladder_verdict), so files written by older code follow today's rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import pairwise
from statistics import median

from mcpbench.analysis.capacity import instances_for, rejudged
from mcpbench.results.model import Capacity, CapacityRound, CapacityStep

from .consolidate import Consolidated

DEFAULT_TARGETS = (1000.0, 10000.0)  # tool calls/s a sizing table is computed for, unless told


@dataclass(frozen=True)
class Sizing:
    """What a target rate takes of one stack at its median capacity: instances ("at most" for a lower bound) and
    what they take together; an untrustworthy capacity sizes nothing (why)."""

    target: float
    instances: int | None
    at_most: bool
    memory_mb: float | None
    cpu_cores: float | None
    why: str | None


@dataclass
class CapacityRow:
    server: str
    display_name: str
    mode: str
    rounds: list[CapacityRound]               # capacity.json rounds of this server and mode, judged again
    distinct_from_next: bool | None = None    # told apart from the row below (None: the last row)
    curve: list[LadderPoint] = field(default_factory=list)  # the steps as chart points

    @property
    def capacities(self) -> list[float]:
        return [r.capacity_calls_per_s or 0.0 for r in self.rounds]

    @property
    def median(self) -> float:
        """The median of the rounds' capacities (of lower bounds, a lower bound of the median)."""
        return median(self.capacities)

    @property
    def lower_bound(self) -> bool:
        """Some round's ladder did not end on the server: the median is a lower bound ("≥")."""
        return any(r.lower_bound for r in self.rounds)

    @property
    def trustworthy(self) -> bool:
        return all(r.trustworthy for r in self.rounds)

    @property
    def doubts(self) -> list[str]:
        return sorted({d for r in self.rounds for d in r.doubts})

    @property
    def stopped_by(self) -> list[str]:
        return list(dict.fromkeys(r.stopped_by for r in self.rounds))

    def at_capacity(self, figure: str) -> float | None:
        """A figure of the passing step at capacity (a CapacityStep field: mem_peak_mb, cpu_avg_pct), median over
        rounds."""
        values = [value for r in self.rounds for step in r.steps
                  if step.rate_offered == r.capacity_calls_per_s and (value := getattr(step, figure)) is not None]
        return median(values) if values else None

    def sizing(self, target: float) -> Sizing:
        """Instances for a target rate at the median capacity. An untrustworthy capacity sizes nothing; a
        lower bound gives an upper bound: "at most" that many instances."""
        if not self.trustworthy:
            return Sizing(target, None, False, None, None, "not sized: " + ", ".join(self.doubts))
        instances = instances_for(target, self.median)
        mem, cpu = self.at_capacity("mem_peak_mb"), self.at_capacity("cpu_avg_pct")
        return Sizing(target, instances, self.lower_bound, instances * mem if instances and mem is not None else None,
                      instances * cpu / 100 if instances and cpu is not None else None, None)


@dataclass(frozen=True)
class LadderPoint:
    """One offered rate of a server's ladders as the load-curve chart draws it (charts.CurvePoint): the medians
    over its rounds of what was achieved and of the all-calls p99 — for the chart only: no figure of the page is
    one. A ladder has no interval."""

    load: float                        # the offered rate
    tool_calls_per_s: float            # achieved
    latency_all_p99_ms: float | None
    dropped_iterations: int            # the most of any round
    display_name: str
    ci_low: None = None
    ci_high: None = None


def _curve(rounds: list[CapacityRound], display_name: str) -> list[LadderPoint]:
    """The ladder as chart points, per offered rate."""
    by_rate: dict[float, list[CapacityStep]] = {}
    for entry in rounds:
        for step in entry.steps:
            by_rate.setdefault(step.rate_offered, []).append(step)
    points = []
    for rate, steps in sorted(by_rate.items()):
        p99s = [s.p99_ms for s in steps if s.p99_ms is not None]
        points.append(LadderPoint(rate, median(s.rate_achieved for s in steps), median(p99s) if p99s else None,
                                  max(s.dropped_iterations for s in steps), display_name))
    return points


def _apart(upper: CapacityRow, lower: CapacityRow) -> bool:
    """In every round, the upper server's capacity is at or above the step the lower server failed. A lower
    server whose ladder did not end on itself has no such step (its capacity is a lower bound): never apart."""
    steps = [r.next_step_calls_per_s for r in lower.rounds]
    if lower.lower_bound or any(step is None for step in steps):
        return False
    return min(upper.capacities) >= max(step for step in steps if step is not None)


def judged_again(capacity: Capacity) -> list[CapacityRound]:
    """capacity.json's rounds, each judged again from its steps by today's rules (analysis.capacity.rejudged)."""
    return rejudged(capacity).rounds


def capacity_rows(cons: Consolidated) -> dict[str, list[CapacityRow]]:
    """Per mode, the rows in order of median capacity (trustworthy ones first: the others are shown apart)."""
    by_mode: dict[str, list[CapacityRow]] = {}
    for name, view in cons.servers.items():
        rounds: dict[str, list[CapacityRound]] = {}
        for record in view.records:
            for entry in judged_again(record.capacity) if record.capacity else []:
                rounds.setdefault(entry.mode, []).append(entry)
        for mode, entries in rounds.items():
            by_mode.setdefault(mode, []).append(
                CapacityRow(name, view.display_name, mode, entries, curve=_curve(entries, view.display_name)))
    for rows in by_mode.values():
        rows.sort(key=lambda r: (not r.trustworthy, -r.median))  # a lower bound by its bound: it is at least that
        for upper, lower in pairwise(rows):
            upper.distinct_from_next = upper.trustworthy and lower.trustworthy and _apart(upper, lower)
    return by_mode

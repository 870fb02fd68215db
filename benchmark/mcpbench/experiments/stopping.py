"""`--rounds auto` for an experiment that measures fixed loads: it notes the headline figure of every
measurement, and after each round from sequential.MIN_ROUNDS on asks analysis/sequential.py whether the headline
order is resolved; run.json `rounds_auto` records every look and why the rounds stopped."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from mcpbench.analysis import sequential
from mcpbench.analysis.summary import HARNESS_BOUND_PREFIX
from mcpbench.results.model import Look, RoundsAuto, StoppedBy, Summary


@dataclass(frozen=True)
class Headline:
    """The ranking the rule watches: one load's measurements, one figure of each."""

    label: str            # the measurement label, e.g. session-50vu, session-equal0.7
    metric: str           # "tool_calls_per_s" | "cpu_ms_per_call"
    higher_better: bool

    def figure(self, summary: Summary) -> float | None:
        """The measurement's figure when it may take part: the report's rule (throughput only from publishable
        measurements; CPU per call also from harness-limited ones, the efficiency ranking's rule)."""
        if summary.status != "ok":
            return None
        reasons = summary.unpublishable_reasons or []
        if self.metric == "cpu_ms_per_call":
            if any(not r.startswith(f"flag: {HARNESS_BOUND_PREFIX}") for r in reasons):
                return None
            return summary.efficiency.cpu_ms_per_call if summary.efficiency else None
        return None if reasons else summary.throughput.tool_calls_per_s


class StoppingRule:
    def __init__(self, headline: Headline, max_rounds: int, time_budget_s: float | None):
        self.headline = headline
        self.max_rounds = max_rounds
        self.time_budget_s = time_budget_s
        self.alpha = sequential.look_alpha(max_rounds)
        self.figures: dict[str, dict[int, float]] = {}
        self.record = RoundsAuto(procedure=sequential.PROCEDURE, alpha=self.alpha, margin=sequential.MARGIN,
                                 max_rounds=max_rounds, time_budget_s=time_budget_s,
                                 headline=f"{headline.label} {headline.metric}", looks=[], stopped_by=None,
                                 rounds=None, rounds_by_server=None)

    def note(self, server: str, label: str, round_index: int, summary: Summary) -> None:
        if label == self.headline.label:
            value = self.headline.figure(summary)
            if value:
                self.figures.setdefault(server, {})[round_index] = value

    def more(self, round_index: int, elapsed_s: float, measured: list[list[str]]) -> tuple[bool, str]:
        """Whether to measure another round, and a line for the console. From MIN_ROUNDS on every round is a
        look (recorded, the last one too); then the caps."""
        self.record.rounds = round_index
        self.record.rounds_by_server = dict(sorted(Counter(n for names in measured for n in names).items()))
        line = ""
        if round_index >= sequential.MIN_ROUNDS and len(self.figures) >= 2:
            pairs = sequential.judge(self.figures, self.headline.higher_better, self.alpha)
            resolved = sequential.resolved(pairs)
            self.record.looks.append(Look(round=round_index, seconds=round(elapsed_s, 1),
                                          pairs=pairs, resolved=resolved))
            if resolved:
                return self._stop("resolved", f"every adjacent pair is ordered or equivalent after round {round_index}")
            open_pairs = [f"{p.better}/{p.worse}" for p in pairs if p.state == "open"]
            line = f"{len(open_pairs)} of {len(pairs)} adjacent pairs still open ({', '.join(open_pairs)})"
        if round_index >= self.max_rounds:
            return self._stop("max-rounds", f"the cap of {self.max_rounds} rounds" + (f"; {line}" if line else ""))
        if self.time_budget_s is not None and elapsed_s >= self.time_budget_s:
            return self._stop("time-budget", f"the time budget ({self.time_budget_s / 60:.0f} min) is spent"
                              + (f"; {line}" if line else ""))
        if round_index >= sequential.MIN_ROUNDS and len(self.figures) < 2:
            return self._stop("too-few-servers", "fewer than two servers have a headline figure to order")
        return True, line

    def _stop(self, why: StoppedBy, text: str) -> tuple[bool, str]:
        self.record.stopped_by = why
        return False, f"no further round: {text}"

"""The CI gate's rule (`mcpbench ci`, docs/ci.md): did a candidate of one server change a figure against its base,
both measured in the same interleaved rounds, and does a suspected regression hold up in rounds of its own?

Each check is one figure at one level, tested as the A/B page tests a level (the report's stats.speedups): a
paired t on d = log(candidate / base) over the rounds both sides were measured in (Student, rounds − 1 degrees
of freedom, not moderated: a prior fitted over a few levels separated A from itself too often, docs/statistics.md),
its interval Bonferroni-simultaneous over the stage's checks — the question "did anything change" is one family.
A check's interval that lies wholly above 1 (or below) with a ratio at least `min_effect` beyond 1 is a change;
the figure's direction makes it a regression or an improvement.

Two stages, a screen and a confirmation (a two-stage design: a lenient screen sends only what it flags to a
strict test on new data, as in Satagopan et al. 2002, *Two-stage designs for gene-disease association studies*,
Biometrics 58:163-170):

1. **screen** (`screen`): every check of rounds 1…R, two-sided at SCREEN_ALPHA; a regression found there is
   only *suspected*, an improvement is reported as one;
2. **confirm** (`confirm`): the levels with a suspected regression measured again in new rounds, and each
   suspected check tested on those rounds alone, one-sided (its question is only "still worse?") at
   CONFIRM_ALPHA over the suspected checks. The gate fails on a regression confirmed.

The confirmation's rounds are new, so under the null the two stages are independent and a false alarm needs
both: at most SCREEN_ALPHA / 2 (the screen's worse side) × CONFIRM_ALPHA per gate = 0.5 %, half the 1 % a gate
may cost. Replayed on recorded rounds by the report's validation (validation.gate_replay, docs/statistics.md).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from mcpbench.analysis import moderated
from mcpbench.results.model import Summary

SCREEN_ALPHA = 0.2     # the screen only chooses what to measure again
CONFIRM_ALPHA = 0.05   # the test that can fail a build
MIN_EFFECT = 0.05      # no change smaller than 5 % is a regression (the report's MIN_EFFECT)
MIN_ROUNDS = 2         # fewer shared rounds have no spread to test with

Outcome = Literal["regression", "improvement", "no change", "not tested"]


@dataclass(frozen=True)
class Figure:
    """One figure the gate checks at every level, read from a measurement's summary."""

    name: str
    title: str
    unit: str
    higher_is_worse: bool

    def of(self, summary: Summary) -> float | None:
        if self.name == "cpu_ms_per_call":
            return summary.efficiency.cpu_ms_per_call
        if self.name == "p99_ms":
            latency = summary.latency_ms.tool_call_all
            return latency.p99 if latency is not None else None
        return summary.throughput.tool_calls_per_s


CPU = Figure("cpu_ms_per_call", "server CPU per call", "ms", True)
P99 = Figure("p99_ms", "all-calls p99", "ms", True)
CALLS = Figure("calls_per_s", "tool calls/s", "calls/s", False)
FIGURES = {figure.name: figure for figure in (CPU, P99, CALLS)}


def figures_for(server_started: bool) -> tuple[Figure, ...]:
    """What can be checked under the closed model (the gate's load): CPU per call only where the suite started
    the server (a URL's CPU is not read). A level where the load model set calls/s leaves it out (the run's
    bound: flags say so after the fact)."""
    return tuple(f for f in (CPU, P99, CALLS) if f is not CPU or server_started)


@dataclass(frozen=True)
class Check:
    """One figure at one level: candidate / base over the rounds both have, and what it says."""

    level: str
    figure: str
    ratio: float | None    # geometric mean of the per-round ratios candidate / base
    low: float | None      # its interval, simultaneous over the stage's checks
    high: float | None
    rounds: int            # rounds both sides were measured in
    outcome: Outcome


Rounds = Mapping[Any, float | None]   # round -> the figure measured in it
Pairs = Mapping[tuple[str, str], tuple[Rounds, Rounds]]   # (level, figure) -> (base, candidate) by round


def screen(pairs: Pairs, min_effect: float = MIN_EFFECT) -> dict[tuple[str, str], Check]:
    """Stage 1: every check, two-sided at SCREEN_ALPHA over them."""
    return test(pairs, SCREEN_ALPHA, min_effect)


def confirm(pairs: Pairs, min_effect: float = MIN_EFFECT) -> dict[tuple[str, str], Check]:
    """Stage 2: the suspected checks on new rounds, one-sided at CONFIRM_ALPHA over them: only a regression is
    read from it (an improvement here is "no change": the test did not ask)."""
    return test(pairs, CONFIRM_ALPHA, min_effect, one_sided=True)


def test(pairs: Pairs, alpha: float, min_effect: float = MIN_EFFECT,
         one_sided: bool = False) -> dict[tuple[str, str], Check]:
    """Each (level, figure) -> (base by round, candidate by round) as a Check, one family at `alpha`;
    `one_sided`: each interval's worse end at 1 - alpha over the family (the interval shown is then the
    two-sided 1 - 2 alpha one), and only regressions are read."""
    items: dict[str, Rounds] = {}
    names: dict[tuple[str, str], tuple[str, str]] = {}
    for i, (key, (base, candidate)) in enumerate(pairs.items()):
        names[key] = (f"b{i}", f"c{i}")
        items[f"b{i}"], items[f"c{i}"] = base, candidate
    tests = moderated.pair_tests(items, list(names.values()), MIN_ROUNDS, moderate=False)
    family = max(1, sum(1 for stat in tests.stats.values() if stat.paired))
    out = {}
    for (level, figure), pair in names.items():
        stat = tests.stats.get(pair)
        if stat is None or not stat.paired:
            shared = len(set(moderated.log_figures(items[pair[0]])) & set(moderated.log_figures(items[pair[1]])))
            out[(level, figure)] = Check(level, figure, None, None, None, shared, "not tested")
            continue
        low, high = stat.interval(2 * alpha if one_sided else alpha, family)
        outcome = _outcome(FIGURES[figure], stat.ratio, low, high, min_effect)
        if one_sided and outcome == "improvement":
            outcome = "no change"
        out[(level, figure)] = Check(level, figure, stat.ratio, low, high, stat.n, outcome)
    return out


def _outcome(figure: Figure, ratio: float, low: float, high: float, min_effect: float) -> Outcome:
    if low > 1.0 and ratio >= 1.0 + min_effect:
        return "regression" if figure.higher_is_worse else "improvement"
    if high < 1.0 and ratio <= 1.0 / (1.0 + min_effect):
        return "improvement" if figure.higher_is_worse else "regression"
    return "no change"


def geometric_mean(values: Iterable[float | None]) -> float | None:
    """A side's figure over its rounds (positive values only; None: none)."""
    logs = [math.log(v) for v in values if v is not None and v > 0]
    return math.exp(sum(logs) / len(logs)) if logs else None


def suspected(screen: Mapping[tuple[str, str], Check]) -> list[tuple[str, str]]:
    """The screen's regressions, which the confirmation measures again."""
    return [key for key, check in screen.items() if check.outcome == "regression"]


def confirmed(confirmation: Mapping[tuple[str, str], Check], screen: Mapping[tuple[str, str], Check]) -> list[
        tuple[str, str]]:
    """The suspected regressions the confirmation's own rounds found again, in the same direction."""
    return [key for key, check in confirmation.items()
            if check.outcome == "regression" and screen.get(key) is not None
            and screen[key].outcome == "regression"]

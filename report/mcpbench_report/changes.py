"""What changed between two sets of results, figure by figure: the figures `compare` and `history` test at a load,
and one figure's test over every server the two share (stats.change_tests with the harness's bound rule).
One module for both, so the two pages test the same figures the same way."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from . import stats
from .consolidate import Group
from .load import LoadKey
from .rows import Row

REGRESSION, IMPROVEMENT, UNCHANGED, NOT_TESTED = "regression", "improvement", "no significant change", "not tested"


@dataclass(frozen=True)
class Figure:
    """A figure compare and history test: its row field (the figure shown), the per-round figure the test pairs,
    whether lower is better, its label, and the row fields of its 95 % interval."""

    field: str
    per_run: str
    lower_better: bool
    label: str
    low: str
    high: str

    def of(self, row: Row) -> float | None:
        """The figure as the row shows it."""
        value: float | None = getattr(row, self.field)
        return value

    def interval_of(self, row: Row) -> tuple[float | None, float | None]:
        return getattr(row, self.low), getattr(row, self.high)


THROUGHPUT = Figure("tool_calls_per_s", "tool_calls_per_s", False, "tool calls/s", "ci_low", "ci_high")
CPU = Figure("cpu_ms_per_call", "cpu_ms_per_call", True, "CPU ms per call", "cpu_ms_per_call_ci_low",
             "cpu_ms_per_call_ci_high")
P99 = Figure("latency_all_p99_ms", "p99_all", True, "p99 ms (all calls)", "p99_all_round_ci_low",
             "p99_all_round_ci_high")


def figures_for(key: LoadKey) -> tuple[Figure, Figure]:
    """The figures tested at a load, the headline first: at an equal load the throughput is the rate offered,
    so what each server spent per call takes its place."""
    return (CPU, P99) if key.equal_load else (THROUGHPUT, P99)


def direction(figure: Figure, verdict: stats.Verdict) -> str:
    """regression, improvement, no significant change or not tested: one figure's verdict as a reader takes it."""
    if not verdict.tested:
        return NOT_TESTED
    if not verdict.significant:
        return UNCHANGED
    worse = (verdict.relative or 0) > 0 if figure.lower_better else (verdict.relative or 0) < 0
    return REGRESSION if worse else IMPROVEMENT


def bound_rule(old_bound: bool, new_bound: bool) -> Callable[[float | None], str | None]:
    """A harness-limited throughput is a lower bound: both sides limited, nothing can be said; OLD limited only,
    NEW below it is still a real loss (OLD could do at least that much) and NEW above it says nothing; NEW
    limited only, the reverse. Returns stats.change_tests' `testable` answer for one server."""
    def why(relative: float | None) -> str | None:
        bound = [side for side, limited in (("OLD", old_bound), ("NEW", new_bound)) if limited]
        if not bound:
            return None
        if bound == ["OLD"] and (relative or 0) < 0:
            return None
        if bound == ["NEW"] and (relative or 0) > 0:
            return None
        return "limited by the harness on " + " and ".join(bound)
    return why


def _bound_note(verdict: stats.Verdict, old_bound: bool, new_bound: bool) -> stats.Verdict:
    if verdict.tested and old_bound != new_bound:
        side = "OLD" if old_bound else "NEW"
        what = "only a loss counts" if old_bound else "only a gain counts"
        return replace(verdict, method=f"{verdict.method}; {side} limited by the harness (a lower bound): {what}")
    return verdict


def test_figure(old: dict[str, Group], new: dict[str, Group], figure: Figure, *, centre: bool = True,
                min_effect: float = stats.MIN_EFFECT) -> stats.Changes:
    """One figure at one load, every server in both: stats.change_tests with the harness's bound rule on
    throughput (a limited server also stays out of the centre: its figure is the harness's)."""
    names = [n for n in new if n in old]
    bound = {n: (old[n].harness_bound, new[n].harness_bound) for n in names}

    def per_run(groups: dict[str, Group]) -> dict[str, dict[tuple[str, int], float | None]]:
        return {n: groups[n].by_round(figure.per_run) for n in names}

    def bounded(n: str, relative: float | None) -> str | None:
        return bound_rule(*bound[n])(relative)

    testable = None
    exclude: list[str] = []
    if figure is THROUGHPUT:
        exclude = [n for n in names if any(bound[n])]
        testable = bounded
    changes = stats.change_tests(per_run(old), per_run(new), exclude_from_centre=exclude if centre else names,
                                 min_effect=min_effect, testable=testable)
    if figure is THROUGHPUT:
        changes.verdicts.update({n: _bound_note(v, *bound[n]) for n, v in changes.verdicts.items()})
    return changes



"""Rounds that stop when the order is known (`run --rounds auto`, issue 21).

After every round from MIN_ROUNDS on, the run looks at its headline ranking and stops once every adjacent pair
is either significantly ordered or shown equivalent within ± MARGIN, or a cap is reached. Looking again after
every round is optional stopping: re-running a fixed-n test at ALPHA each round would order two equal servers
far more often than ALPHA. The rule here stays valid under it by *alpha spending*: the run may look at most
`looks` times (rounds MIN_ROUNDS … max rounds), and each look tests at ALPHA / looks (Bonferroni across the
looks, which holds whatever the dependence between them). The report then ranks that run at the same
per-look level (run.json `rounds_auto.alpha`), so every rank it prints is backed at the level the stopping
rule spent. Hand-written because no kept library offers a group-sequential paired t-test with Holm inside each
look (statsmodels has neither); simulation.py shows its false-ordering rate on recorded rounds.

At a look: every pair of the ranking is tested (the report's moderated paired test on log ratios,
moderated.pair_tests) and the family is Holm-corrected at the look's level, as the report does; an adjacent pair
is *ordered* when that corrected test rejects, *equivalent* when the two-sided 1 - 2·alpha/m interval of its
geometric-mean ratio (m adjacent pairs: Bonferroni, as two one-sided tests each at alpha/m) lies inside
± MARGIN, and *open* otherwise."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from mcpbench.analysis import moderated, student_t
from mcpbench.analysis.stats import ALPHA, MIN_ROUNDS, holm  # ALPHA: what a whole run spends over its looks
from mcpbench.results.model import PairLook

MARGIN = 0.03         # equivalent: the ratio's interval within 1 ± 3 %
DEFAULT_MAX_ROUNDS = 6
PROCEDURE = (f"alpha spending over the looks: the run looks after rounds {MIN_ROUNDS} … max and each look tests at "
             f"{ALPHA} / (number of looks) (Bonferroni across looks, valid under optional stopping); within a look, "
             "the moderated paired t-test on log ratios over every pair, Holm-corrected; an adjacent pair is ordered "
             f"when that rejects, equivalent when its ratio's interval (two one-sided tests) lies within ±{MARGIN:.0%}")


def looks(max_rounds: int) -> int:
    return max(1, max_rounds - MIN_ROUNDS + 1)


def look_alpha(max_rounds: int) -> float:
    """The level every look tests at when the run may look up to `looks(max_rounds)` times."""
    return ALPHA / looks(max_rounds)


def _shared(a: Mapping, b: Mapping) -> list:
    return [k for k in a if k in b and a[k] and b[k] and a[k] > 0 and b[k] > 0]


def judge(figures: Mapping[str, Mapping], higher_better: bool, alpha: float, margin: float = MARGIN) -> list[PairLook]:
    """The adjacent pairs of the ranking of `figures` (name -> per-round figure keyed by round), each judged at a
    look that tests at `alpha`: `better` ahead of `worse`, the geometric mean of worse / better over their shared
    rounds with its 1 - 2·alpha/m interval (m adjacent pairs), and whether the pair is ordered, equivalent or
    open."""
    names = [n for n, runs in figures.items() if any(v and v > 0 for v in runs.values())]
    centre = {n: float(np.mean([math.log(v) for v in figures[n].values() if v and v > 0])) for n in names}
    order = sorted(names, key=lambda n: (-centre[n] if higher_better else centre[n], n))
    pairs = [(a, b) for i, a in enumerate(order) for b in order[i + 1:]]
    tests = moderated.pair_tests({n: figures[n] for n in order}, pairs, MIN_ROUNDS)
    paired = [k for k in pairs if k in tests.stats and tests.stats[k].paired]
    p_holm = dict(zip(paired, holm([tests.stats[k].p for k in paired]), strict=True))
    adjacent = list(pairwise(order))
    bound = math.log(1 + margin)
    out = []
    for a, b in adjacent:
        stat = tests.stats.get((a, b))
        if stat is None or not stat.paired:
            out.append(PairLook(better=a, worse=b, rounds=stat.n if stat else 0, ratio=None, low=None, high=None,
                                p_holm=None, state="open"))
            continue
        # two one-sided tests at alpha / m each: the two-sided 1 - 2 alpha / m interval of the ratio b / a
        low, high = stat.interval(2 * alpha, len(adjacent))
        p = p_holm[(a, b)]
        state = "ordered" if p < alpha else (
            "equivalent" if -bound < math.log(low) and math.log(high) < bound else "open")
        out.append(PairLook(better=a, worse=b, rounds=stat.n, ratio=stat.ratio, low=low, high=high, p_holm=p,
                            state=state))
    return out


def resolved(states: list[PairLook]) -> bool:
    return all(s.state != "open" for s in states)


def stopped_with_order(d: np.ndarray, alpha: float) -> tuple[bool, int]:
    """One pair's sequence of per-round log ratios (b over a) looked at after every round from MIN_ROUNDS on,
    each look a paired test at `alpha` (one pair: Holm is the test itself): whether a look ordered the pair,
    and the round the run stopped at (ordered, equivalent, or the end of `d`)."""
    bound = math.log(1 + MARGIN)
    for n in range(MIN_ROUNDS, len(d) + 1):
        x = d[:n]
        sd = float(x.std(ddof=1))
        if sd <= 1e-12:
            return bool(abs(x.mean()) > 1e-12), n
        t = float(x.mean()) / (sd / math.sqrt(n))
        if student_t.two_sided_p(t, n - 1) < alpha:
            return True, n
        half = student_t.quantile(1 - alpha, n - 1) * sd / math.sqrt(n)
        if -bound < x.mean() - half and x.mean() + half < bound:
            return False, n
    return False, len(d)


@dataclass(frozen=True)
class Simulation:
    """False orderings of two equal servers under a stopping rule, rounds drawn from recorded residuals."""

    rule: str
    trials: int
    false_orderings: int
    mean_rounds: float

    @property
    def rate(self) -> float:
        return self.false_orderings / self.trials

    def interval(self) -> tuple[float, float]:
        """Clopper-Pearson 95 % interval of the rate (scipy.stats.binomtest)."""
        from scipy import stats as sps  # here, not at import: 0.5-2 s that most commands never use

        ci = sps.binomtest(self.false_orderings, self.trials).proportion_ci(0.95)
        return float(ci.low), float(ci.high)


def simulate(residuals: np.ndarray, max_rounds: int, trials: int, seed: int, alpha: float) -> Simulation:
    """Two servers that are equal (per-round log ratios drawn with replacement from `residuals`, recorded log
    ratios centred on zero), each trial stopped by the rule looking at `alpha`: how often it ordered them."""
    rng = np.random.default_rng(seed)
    draws = rng.choice(np.asarray(residuals, dtype=float), size=(trials, max_rounds), replace=True)
    outcomes = [stopped_with_order(row, alpha) for row in draws]
    return Simulation(f"alpha {alpha:.4g} per look, rounds {MIN_ROUNDS}-{max_rounds}", trials,
                      sum(1 for ordered, _ in outcomes if ordered), float(np.mean([n for _, n in outcomes])))

"""Statistics of the report: run-to-run spread, confidence intervals, significance, tiers, SLO peak.

Pure functions on numbers and arrays (no file access), so each can be checked against hand-computed
values. Latency percentiles are never computed here from other percentiles: callers pool the raw samples
and use :func:`mcpbench.stats.latency_stats`. Tests and quantiles come from scipy.stats.

The rules (also rendered, from these constants, on the methodology page):

- The run (one round of one results directory) is the unit. Mean of the per-run figures, sample standard
  deviation, CV = sd/mean, 95 % interval from Student's t with n-1 degrees of freedom (n >= 2 runs). With a
  single run the interval shown is a moving-block bootstrap over the per-second throughput of the window,
  labelled "within-run": a displayed interval only, never evidence for a rank or a change.
- Nothing is claimed below MIN_RUNS_FOR_TEST runs: no tier, no rank number, no regression ("not tested").
- Two servers of one ranking are compared by a paired t-test on the log of their per-round ratio over the
  rounds they share (servers in the same round of one results directory were measured interleaved, so a
  slow spell of the host hits both): PAIRED_TEST. When they share fewer than MIN_RUNS_FOR_TEST rounds but
  each has at least MIN_RUNS_FOR_TEST runs, Welch's t-test on the per-run figures. The p-values of every
  pair of one ranking (one load, one metric) form one family and are Holm-corrected (HOLM).
- Ranks and letters (TIER_RULE): sorted best first; a server's rank is 1 + the number of servers proven
  better than it (each a Holm-corrected pair test), so every rank number is a statement some test backs;
  servers of equal rank share it ("2="). Beside it, a compact letter display over every pair (Piepho's
  insert-and-absorb): two servers sharing a letter do not differ significantly, two sharing none do. (The
  earlier rule tested each server against its tier's leader only, so two servers could sit in different tiers
  with no significant difference between them, and in one tier when they differed.)
- Power (Ranking.power): with m pairs Holm's first step needs p < ALPHA / m; with n shared rounds a paired
  t-test reaches that only when |t| exceeds t(1 - ALPHA / 2m, n - 1). The page says so, so "not
  significant" reads as "not separable with these rounds", never as "equal".
- compare OLD NEW: Welch's t-test per change (the sides are independent runs), Holm across every test of
  the comparison, and a change counts only when corrected-significant AND at least MIN_EFFECT large.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
from scipy import stats as sps

from mcpbench.analysis.stats import holm, paired_log  # the one definition of each (analysis: also the run's stopping rule)

CONFIDENCE = 0.95
ALPHA = 0.05
MIN_RUNS_FOR_TEST = 3
MIN_EFFECT = 0.03                # compare: smallest relative change reported as a regression / improvement
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20261121
SLO_MAX_ERROR_RATE = 0.01        # a load level meets the SLO only with at most 1 % failed tool calls
HOLM = "Holm's step-down correction across every pair of servers of one ranking (one load, one metric)"
PAIRED_TEST = ("paired t-test on log(a/b) over the rounds both servers share (scipy.stats.ttest_rel on logs); "
               "Welch's t-test on per-run figures when they share fewer rounds")
TIER_RULE = ("rank = 1 + the number of servers significantly better (each a Holm-corrected pair test), equal "
             "ranks shared (2=); letters: a compact letter display over every pair — servers sharing a letter "
             "do not differ significantly, servers sharing none do")


def not_tested_text(n: int) -> str:
    return f"{n} run{'s' if n != 1 else ''} — not tested"


@dataclass(frozen=True)
class Interval:
    n: int
    mean: float | None
    std: float | None
    cv: float | None
    low: float | None
    high: float | None
    method: str


@dataclass(frozen=True)
class Verdict:
    """Is b different from a? diff = b - a (relative = diff / a). p_value is the raw p; p_adjusted the
    Holm-corrected one once the family is known; significant uses p_adjusted when set."""

    significant: bool
    method: str
    diff: float | None
    relative: float | None
    p_value: float | None = None
    p_adjusted: float | None = None
    tested: bool = True
    n: int = 0                     # runs (or shared rounds) the test rests on

    @property
    def text(self) -> str:
        if not self.tested or self.diff is None:
            return f"not tested ({self.method})"
        p = self.p_adjusted if self.p_adjusted is not None else self.p_value
        evidence = f"p = {self.p_value:.3g}" if self.p_value is not None else ""
        if self.p_adjusted is not None:
            evidence += f", Holm-adjusted {p:.3g}"
        evidence += f", {self.method}"
        return ("significant" if self.significant else "not significant") + f" ({evidence})"

    def adjusted(self, p_adjusted: float, alpha: float = ALPHA, min_effect: float = 0.0) -> "Verdict":
        big = self.relative is not None and abs(self.relative) >= min_effect
        return Verdict(bool(p_adjusted < alpha and big), self.method, self.diff, self.relative, self.p_value,
                       p_adjusted, self.tested, self.n)


def t_quantile(q: float, df: float) -> float:
    """Quantile of Student's t distribution."""
    return float(sps.t.ppf(q, df))


def mean_interval(values: Sequence[float]) -> Interval:
    """Mean, sd, CV and the 95 % Student-t interval over runs (None where n is too small)."""
    data = np.asarray([v for v in values if v is not None], dtype=float)
    n = int(data.size)
    if n == 0:
        return Interval(0, None, None, None, None, None, "no runs")
    mean = float(data.mean())
    if n == 1:
        return Interval(1, mean, None, None, None, None, "single run")
    std = float(data.std(ddof=1))
    half = t_quantile(0.5 + CONFIDENCE / 2, n - 1) * std / math.sqrt(n)
    cv = std / mean if mean else None
    return Interval(n, mean, std, cv, mean - half, mean + half, f"t, {n} runs")


def cv(values: Sequence[float | None]) -> float | None:
    data = np.asarray([v for v in values if v is not None], dtype=float)
    if data.size < 2 or not data.mean():
        return None
    return float(data.std(ddof=1) / data.mean())


def block_length(n_seconds: int) -> int:
    """Block length of the moving-block bootstrap: n^(1/3) seconds, rounded up (the usual order)."""
    return max(1, math.ceil(n_seconds ** (1 / 3) - 1e-9))


def _block_means(series: np.ndarray, length: int) -> np.ndarray:
    csum = np.concatenate([[0.0], np.cumsum(series, dtype=float)])
    return (csum[length:] - csum[:-length]) / length


def bootstrap_means(runs: Sequence[np.ndarray], rng: np.random.Generator,
                    resamples: int = BOOTSTRAP_RESAMPLES) -> np.ndarray | None:
    """Moving-block bootstrap distribution of the mean of per-second values, stratified by run.

    Each run's series is resampled on its own (blocks never straddle two runs) and the runs are combined
    weighted by their length. None when no run has at least two seconds.
    """
    runs = [np.asarray(r, dtype=float) for r in runs if len(r) >= 2]
    if not runs:
        return None
    total = sum(len(r) for r in runs)
    out = np.zeros(resamples)
    for series in runs:
        n = len(series)
        length = block_length(n)
        means = _block_means(series, length)
        k = math.ceil(n / length)
        idx = rng.integers(0, len(means), size=(resamples, k))
        out += means[idx].mean(axis=1) * (n / total)
    return out


def within_run_interval(per_second: Sequence[np.ndarray]) -> tuple[float, float] | None:
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    dist = bootstrap_means(per_second, rng)
    if dist is None:
        return None
    lo, hi = np.percentile(dist, [50 * (1 - CONFIDENCE), 100 - 50 * (1 - CONFIDENCE)])
    return float(lo), float(hi)


def throughput_interval(per_run: Sequence[float], per_second: Sequence[np.ndarray]) -> Interval:
    """Run statistics; with one run the interval is the within-run block bootstrap (labelled so)."""
    interval = mean_interval(per_run)
    if interval.n == 1:
        ci = within_run_interval(per_second)
        if ci is not None:
            return Interval(1, interval.mean, None, None, ci[0], ci[1], "within-run block bootstrap, 1 run")
    return interval




def welch(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided p-value of Welch's t-test (scipy.stats.ttest_ind, equal_var=False).

    Needs >= 2 values on each side; identical constant samples give 1, different constant ones 0."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.var(ddof=1) + b.var(ddof=1) == 0:
        return 1.0 if a.mean() == b.mean() else 0.0
    return float(sps.ttest_ind(a, b, equal_var=False).pvalue)


def pair_test(a: Mapping, b: Mapping) -> Verdict:
    """Whether b differs from a. a, b: per-run figures keyed by round ((run_id, round) pairs).

    PAIRED_TEST with >= MIN_RUNS_FOR_TEST shared rounds (all figures > 0); else Welch with
    >= MIN_RUNS_FOR_TEST runs each; else not tested. The verdict is not yet corrected (see holm)."""
    av = [v for v in a.values() if v is not None]
    bv = [v for v in b.values() if v is not None]
    if not av or not bv:
        return Verdict(False, "no figures", None, None, tested=False)
    a_mean, b_mean = float(np.mean(av)), float(np.mean(bv))
    diff = b_mean - a_mean
    relative = diff / a_mean if a_mean else None
    shared = [k for k in a if k in b and a[k] is not None and b[k] is not None]
    if len(shared) >= MIN_RUNS_FOR_TEST and all(a[k] > 0 and b[k] > 0 for k in shared):
        p = paired_log([a[k] for k in shared], [b[k] for k in shared])
        return Verdict(p < ALPHA, f"paired t-test on log ratios, {len(shared)} shared rounds", diff, relative,
                       p_value=p, n=len(shared))
    if len(av) >= MIN_RUNS_FOR_TEST and len(bv) >= MIN_RUNS_FOR_TEST:
        p = welch(av, bv)
        return Verdict(p < ALPHA, f"Welch t-test, {len(av)} vs {len(bv)} runs", diff, relative, p_value=p,
                       n=min(len(av), len(bv)))
    return Verdict(False, f"{len(av)} vs {len(bv)} runs, {len(shared)} shared rounds; a test needs "
                          f"{MIN_RUNS_FOR_TEST} each", diff, relative, tested=False, n=min(len(av), len(bv)))


def proven_ranks(n: int, better: Callable[[int, int], bool]) -> list[int]:
    """TIER_RULE's rank for n items sorted best first: 1 + how many items are proven better (better(i, j):
    item i significantly better than item j)."""
    return [1 + sum(1 for i in range(n) if i != j and better(i, j)) for j in range(n)]


def compact_letters(n: int, differ: Callable[[int, int], bool]) -> list[str]:
    """A compact letter display of n items sorted best first (Piepho 2004, insert-and-absorb): items i and j
    share a letter exactly when differ(i, j) is False. Hand-written because no kept Python library (scipy,
    statsmodels) offers one; it is the figure itself, checked against that property in the tests."""
    groups: list[set[int]] = [set(range(n))]
    for i in range(n):
        for j in range(i + 1, n):
            if not differ(i, j):
                continue
            split: list[set[int]] = []
            for g in groups:
                if i in g and j in g:
                    split += [g - {i}, g - {j}]
                else:
                    split.append(g)
            # absorb: a group inside another says nothing new
            split = [g for k, g in enumerate(split) if g and not any(
                g < h or (g == h and m < k) for m, h in enumerate(split) if m != k)]
            groups = split
    # letters in order of each group's best item, so the leader's group is "a"
    groups.sort(key=lambda g: sorted(g))
    letters = "abcdefghijklmnopqrstuvwxyz"
    names = [letters[k] if k < len(letters) else f"<{k}>" for k in range(len(groups))]
    return ["".join(name for name, g in zip(names, groups) if j in g) for j in range(n)]


def holm_power(pairs: int, rounds: int, alpha: float = ALPHA) -> dict | None:
    """What Holm's first step asks of the strongest pair: p < alpha / pairs, i.e. a paired t over `rounds`
    rounds beyond t(1 - alpha / (2 pairs), rounds - 1). None when nothing can be tested."""
    if pairs < 1 or rounds < 2:
        return None
    p_needed = alpha / pairs
    return {"pairs": pairs, "rounds": rounds, "p_needed": p_needed,
            "t_needed": t_quantile(1 - p_needed / 2, rounds - 1),
            "text": f"{pairs} pair{'s' if pairs != 1 else ''} over {rounds} rounds: the strongest difference must "
                    f"reach p < {p_needed:.2g} (|t| > {t_quantile(1 - p_needed / 2, rounds - 1):.1f} with "
                    f"{rounds - 1} degrees of freedom) to count; a larger difference that misses it needs more "
                    f"rounds, it is not shown to be equal"}


def rank_labels(tier_numbers: Sequence[int]) -> list[str]:
    """'1', '2=', '2=', '3': a shared tier is marked '='."""
    counts: dict[int, int] = {}
    for t in tier_numbers:
        counts[t] = counts.get(t, 0) + 1
    return [f"{t}=" if counts[t] > 1 else str(t) for t in tier_numbers]


@dataclass
class Ranking:
    """One ranking: items sorted best first, tiers of the testable ones, every pair's corrected verdict."""

    order: list[str]
    means: dict[str, float | None]
    tiers: dict[str, int | None]                 # TIER_RULE's rank number (None: not tested)
    labels: dict[str, str | None]
    pairs: dict[tuple[str, str], Verdict]        # (better, worse) -> Holm-corrected verdict
    vs_leader: dict[str, tuple[str, Verdict]]    # item -> (the ranking's leader, their verdict)
    family: int                                  # number of tests in the Holm family
    higher_better: bool
    letters: dict[str, str | None]               # compact letter display (None: not tested)
    power: dict | None                           # holm_power of this family

    def as_dicts(self) -> list[dict]:
        return [{"a": a, "b": b, "method": v.method, "p": v.p_value, "p_holm": v.p_adjusted,
                 "significant": v.significant, "relative": v.relative} for (a, b), v in self.pairs.items()]


def rank(items: Mapping[str, Mapping], higher_better: bool = True,
         figures: Mapping[str, float | None] | None = None, alpha: float = ALPHA) -> Ranking:
    """Rank items (name -> per-run figures keyed by round) by their mean with TIER_RULE, or by `figures` when
    given (a latency percentile is ordered by the percentile of the pooled samples, never by a mean of per-run
    percentiles; the tests still pair the per-run figures).

    Items with fewer than MIN_RUNS_FOR_TEST runs get no tier (None): nothing is claimed for them.
    Every pair of the testable items is tested (pair_test) and the family is Holm-corrected (HOLM) at `alpha`
    (ALPHA; a run whose rounds stopped when its order was known ranks at the level each of its looks spent:
    mcpbench.analysis.sequential)."""
    means = {name: (float(np.mean([v for v in runs.values() if v is not None]))
                    if any(v is not None for v in runs.values()) else None) for name, runs in items.items()}
    if figures is not None:
        means = {name: figures.get(name) for name in items}
    sign = -1 if higher_better else 1
    order = sorted(items, key=lambda n: (means[n] is None, sign * (means[n] or 0.0), n))
    testable = [n for n in order if sum(v is not None for v in items[n].values()) >= MIN_RUNS_FOR_TEST]
    raw: dict[tuple[str, str], Verdict] = {}
    for i, a in enumerate(testable):
        for b in testable[i + 1:]:
            raw[(a, b)] = pair_test(items[a], items[b])
    keys = [k for k, v in raw.items() if v.tested]
    adjusted = holm([raw[k].p_value for k in keys])
    pairs = {k: raw[k].adjusted(p, alpha) for k, p in zip(keys, adjusted)}
    pairs.update({k: v for k, v in raw.items() if not v.tested})
    def verdict(i: int, j: int) -> Verdict:
        a, b = testable[min(i, j)], testable[max(i, j)]
        return pairs[(a, b)]

    def better(i: int, j: int) -> bool:
        """Item i significantly better than item j (the pair's mean difference in i's favour)."""
        v = verdict(i, j)
        if not v.significant:
            return False
        diff = v.diff or 0.0   # diff = later - earlier in the sorted order
        later_worse = diff < 0 if higher_better else diff > 0
        return later_worse if i < j else not later_worse

    tier_list = proven_ranks(len(testable), better)
    letter_list = compact_letters(len(testable), lambda i, j: verdict(i, j).significant)
    vs_leader = {item: (testable[0], pairs[(testable[0], item)]) for item in testable[1:]}
    tiers: dict[str, int | None] = {n: None for n in order}
    tiers.update(zip(testable, tier_list))
    labels: dict[str, str | None] = {n: None for n in order}
    labels.update(zip(testable, rank_labels(tier_list)))
    letters: dict[str, str | None] = {n: None for n in order}
    letters.update(zip(testable, letter_list))
    rounds = [v.n for k, v in pairs.items() if v.tested and v.n]
    power = holm_power(len(keys), min(rounds), alpha) if rounds else None
    return Ranking(order, means, tiers, labels, pairs, vs_leader, len(keys), higher_better, letters, power)


def order_held(a: Mapping, b: Mapping, higher_better: bool = True) -> tuple[int, int]:
    """(rounds in which a was strictly ahead of b, rounds both were measured in)."""
    shared = [k for k in a if k in b and a[k] is not None and b[k] is not None]
    held = sum(1 for k in shared if (a[k] > b[k] if higher_better else a[k] < b[k]))
    return held, len(shared)


def round_ratios(by_round: Mapping[object, Mapping[str, float]]) -> dict[str, dict]:
    """Each item's figure divided by the geometric mean of its round (every item measured in that round).
    The geometric mean, not the median: with an odd number of servers the median server's ratio would be 1
    in every round by construction, and its CV 0. Rounds with a single item are left out (ratio 1)."""
    out: dict[str, dict] = {}
    for rnd, figures in by_round.items():
        values = {k: v for k, v in figures.items() if v is not None}
        if len(values) < 2:
            continue
        positive = [v for v in values.values() if v > 0]
        centre = float(sps.gmean(positive)) if len(positive) == len(values) else None
        for name, v in values.items():
            out.setdefault(name, {})[rnd] = v / centre if centre else None
    return out


def change_test(a_runs: Sequence[float], b_runs: Sequence[float], a_figure: float | None = None,
                b_figure: float | None = None) -> Verdict:
    """compare: whether b's runs differ from a's (independent runs: Welch), diff between the shown figures
    (the means, or the pooled figures given). Not tested below MIN_RUNS_FOR_TEST runs a side."""
    a_runs = [v for v in a_runs if v is not None]
    b_runs = [v for v in b_runs if v is not None]
    a_fig = a_figure if a_figure is not None else (float(np.mean(a_runs)) if a_runs else None)
    b_fig = b_figure if b_figure is not None else (float(np.mean(b_runs)) if b_runs else None)
    diff = b_fig - a_fig if a_fig is not None and b_fig is not None else None
    relative = diff / a_fig if diff is not None and a_fig else None
    if len(a_runs) < MIN_RUNS_FOR_TEST or len(b_runs) < MIN_RUNS_FOR_TEST:
        return Verdict(False, f"{len(a_runs)} vs {len(b_runs)} runs; a test needs {MIN_RUNS_FOR_TEST} a side",
                       diff, relative, tested=False, n=min(len(a_runs), len(b_runs)))
    p = welch(a_runs, b_runs)
    return Verdict(p < ALPHA, f"Welch t-test, {len(a_runs)} vs {len(b_runs)} runs", diff, relative, p_value=p,
                   n=min(len(a_runs), len(b_runs)))


def bounded_throughput_change(old: Sequence[float], new: Sequence[float], old_bound: bool,
                              new_bound: bool) -> Verdict:
    """A harness-limited figure is a lower bound of the server's capacity, not the capacity. Both sides
    limited: nothing can be said. OLD limited only: NEW below it is still a real loss (OLD could do at
    least that much), NEW above it says nothing; NEW limited only: the reverse. The test stays two-sided
    (conservative) and enters the Holm family only when its direction can be evidence."""
    tput = change_test(old, new)
    bound = [side for side, limited in (("OLD", old_bound), ("NEW", new_bound)) if limited]
    if not bound:
        return tput
    diff = tput.diff or 0.0
    if bound == ["OLD"] and diff < 0 and tput.tested:
        return replace(tput, method=tput.method + "; OLD limited by the harness (a lower bound): only a loss counts")
    if bound == ["NEW"] and diff > 0 and tput.tested:
        return replace(tput, method=tput.method + "; NEW limited by the harness (a lower bound): only a gain counts")
    return Verdict(False, "limited by the harness on " + " and ".join(bound), tput.diff, tput.relative, tested=False)


def cpu_ms_per_call(cpu_avg_pct: float | None, tool_calls_per_s: float | None) -> float | None:
    """Server CPU milliseconds per successful tool call (as mcpbench.analysis.efficiency)."""
    if cpu_avg_pct is None or not tool_calls_per_s:
        return None
    return cpu_avg_pct / 100.0 * 1000.0 / tool_calls_per_s

def per_second_counts(t_s: np.ndarray, window: tuple[float, float]) -> np.ndarray:
    """Events per second over the measured window [start, end): one value per whole second."""
    start, end = window
    n = max(0, int(math.floor(end - start + 1e-9)))
    t = np.asarray(t_s, dtype=float)
    t = t[(t >= start) & (t < start + n)]
    return np.bincount(np.floor(t - start).astype(int), minlength=n)[:n].astype(float)


def efficiency(calls_per_s: float | None, cpu_avg_pct: float | None, mem_avg_mb: float | None) -> dict:
    """Tool calls/s per CPU core used and per GiB of memory used (None where a figure is missing)."""
    per_core = calls_per_s / (cpu_avg_pct / 100) if calls_per_s is not None and cpu_avg_pct else None
    per_gb = calls_per_s / (mem_avg_mb / 1024) if calls_per_s is not None and mem_avg_mb else None
    return {"per_core": per_core, "per_gb": per_gb}


def meets_slo(p99_ms: float | None, error_rate: float | None, dropped: int, slo_p99_ms: float) -> bool:
    return (p99_ms is not None and p99_ms <= slo_p99_ms
            and (error_rate or 0.0) <= SLO_MAX_ERROR_RATE and not dropped)


def slo_peak(levels: Sequence[dict], slo_p99_ms: float) -> dict | None:
    """The highest tested load level meeting the SLO. levels: dicts with load, p99, error_rate,
    dropped_iterations, throughput. None when no level meets it."""
    ok = [lv for lv in levels if meets_slo(lv.get("p99"), lv.get("error_rate"),
                                           lv.get("dropped_iterations") or 0, slo_p99_ms)]
    if not ok:
        return None
    return max(ok, key=lambda lv: lv["load"])



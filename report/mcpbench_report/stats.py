"""Statistics of the report: run-to-run spread, intervals, the tests behind every rank and change, SLO peak.

Pure functions on numbers and arrays (no file access), so each can be checked against hand-computed
values. Latency percentiles are never computed here from other percentiles: callers pool the raw samples
and use :func:`mcpbench.stats.latency_stats`. Tests and quantiles come from scipy.stats.

The rules (also rendered, from these constants, on the methodology page):

- The round (one round of one results directory) is the unit. Rates, times, sizes and their ratios live on
  the log scale: a server's figure over rounds is the geometric mean, its interval the geometric mean ×/÷ a
  factor (GEO_INTERVAL), never a negative bound. With a single run a throughput interval is a moving-block
  bootstrap over the per-second throughput of the window, labelled "within-run": shown, never evidence.
- Nothing is claimed below MIN_ROUNDS rounds: no rank number, no change ("not tested").
- Two servers of one ranking are compared on the log of their per-round ratio over the rounds they share
  (servers in the same round were measured interleaved, so a slow spell of the host hits both), with an
  empirical-Bayes moderated variance (MODERATED_TEST: mcpbench.analysis.moderated, Smyth 2004): one prior
  fitted to every pair of the ranking, so a pair borrows degrees of freedom where the variances agree and
  keeps its own noise where they do not. Sharing fewer rounds, the two are compared unpaired (log Welch, each
  side's moderated spread). The pairs of one ranking (one load, one metric) form one family, Holm-corrected
  (HOLM), and a difference smaller than MIN_EFFECT is never called significant.
- Ranks and letters (TIER_RULE): a server's rank is 1 + the number of servers proven better than it, rows
  shown by rank, then by geometric mean; letters: a compact letter display over every pair.
- Questions with a leader (the decision page: most calls per CPU-second, lowest p99, least memory) are
  comparisons with the best (LEADER_RULE): the leader against each other candidate, k - 1 tests, Holm within
  that question's own family; each per-language or budget answer is its own family.
- compare OLD NEW and history: per figure, each server's log figure relative to the other servers of its round
  (CENTRED: the median server of the round, when at least MIN_CENTRE_SERVERS are common to both sides, so a
  host that is 20 % slower for everyone moves no server), OLD against NEW with a moderated two-sample test on
  the logs, one prior over the servers; one family per figure and step (CHANGE_TEST).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import numpy as np

from mcpbench.analysis import moderated, student_t
from mcpbench.analysis.stats import ALPHA, MIN_ROUNDS, holm  # one definition each (also the run's stopping rule's)

CONFIDENCE = 0.95
MIN_EFFECT = 0.05                # never called a win, a loss or a change below a 5 % ratio (ranks, compare, history)
MIN_CENTRE_SERVERS = 5           # compare/history centre each round on its median server from this many common ones
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20261121
SLO_MAX_ERROR_RATE = 0.01        # a load level meets the SLO only with at most 1 % failed tool calls
HOLM = "Holm's step-down correction across every pair of servers of one ranking (one load, one metric)"
MODERATED_TEST = ("moderated paired t-test on log(b/a) over the rounds both servers share: each pair's variance "
                  "shrunk toward a prior fitted to every pair of the ranking, the prior's degrees of freedom added "
                  "to the pair's (Smyth 2004, limma's eBayes); unpaired (log Welch with moderated spreads) when "
                  "two servers share fewer rounds")
GEO_INTERVAL = ("geometric mean over rounds ×/÷ a factor: exp(t · s / √n) with s the moderated spread of the "
                "log figure over rounds (one prior per ranking) — a 95 % interval that is never negative")
TIER_RULE = ("rank = 1 + the number of servers significantly better (each a Holm-corrected pair test, at least "
             f"{MIN_EFFECT:.0%} apart), equal ranks shared (2=), rows by rank then geometric mean; letters: a "
             "compact letter display over every pair — servers sharing a letter do not differ significantly")
LEADER_RULE = ("comparison with the best: the candidate with the best geometric mean against each other "
               "candidate (k - 1 moderated pair tests, Holm within that question alone); named alone when every "
               "one is significant and at least " f"{MIN_EFFECT:.0%} apart, else the tie it is not separated from")
CHANGE_TEST = ("each server's log figure centred on the median server of its round (when at least "
               f"{MIN_CENTRE_SERVERS} servers are common to both sides), OLD against NEW by a moderated two-sample "
               "t-test on the logs (one prior over the servers), Holm within each figure, a change at least "
               f"{MIN_EFFECT:.0%} large")


# What a family of tests is keyed by: a pair of servers, a server, a load, a round.
K = TypeVar("K", bound=Hashable)


def not_tested_text(n: int) -> str:
    return f"{n} run{'s' if n != 1 else ''} — not tested"


@dataclass(frozen=True)
class Interval:
    """A figure over runs: mean (the geometric mean for a GEO_INTERVAL), sd and CV of the raw runs, the
    interval [low, high] and, for a geometric one, its ×/÷ factor."""

    n: int
    mean: float | None
    std: float | None
    cv: float | None
    low: float | None
    high: float | None
    method: str
    factor: float | None = None


@dataclass(frozen=True)
class Verdict:
    """Is b different from a? relative = b / a - 1 (the geometric-mean ratio of the test), diff = a's figure x
    relative; p_value is the raw p, p_adjusted the Holm-corrected one once the family is known; significant uses
    p_adjusted when set, and needs a ratio at least min_effect away from 1. ratio_low/high: the ratio's
    interval, simultaneous over the family (Bonferroni)."""

    significant: bool
    method: str
    diff: float | None
    relative: float | None
    p_value: float | None = None
    p_adjusted: float | None = None
    tested: bool = True
    n: int = 0                     # runs (or shared rounds) the test rests on
    ratio_low: float | None = None
    ratio_high: float | None = None
    stat: moderated.PairStat | None = field(default=None, compare=False, repr=False)

    @property
    def ratio(self) -> float | None:
        return None if self.relative is None else 1.0 + self.relative

    @property
    def ratio_text(self) -> str:
        """'×1.32 (1.10–1.58)': b / a and its simultaneous interval."""
        if self.ratio is None:
            return "—"
        text = f"×{ratio_number(self.ratio)}"
        if self.ratio_low is not None and self.ratio_high is not None:
            text += f" ({ratio_number(self.ratio_low)}–{ratio_number(self.ratio_high)})"
        return text

    @property
    def text(self) -> str:
        if not self.tested or self.diff is None:
            return f"not tested ({self.method})"
        p = self.p_adjusted if self.p_adjusted is not None else self.p_value
        evidence = f"{self.ratio_text}, p = {self.p_value:.3g}" if self.p_value is not None else self.ratio_text
        if self.p_adjusted is not None:
            evidence += f", Holm-adjusted {p:.3g}"
        evidence += f", {self.method}"
        return ("significant" if self.significant else "not significant") + f" ({evidence})"

    def adjusted(self, p_adjusted: float, alpha: float = ALPHA, min_effect: float = MIN_EFFECT,
                 tests: int = 1) -> "Verdict":
        """The verdict once its family is known: Holm's p, the minimum effect, the ratio's interval simultaneous
        over the family's `tests`."""
        big = self.relative is not None and abs(math.log1p(self.relative)) >= math.log1p(min_effect)
        low = high = None
        if self.stat is not None:
            low, high = self.stat.interval(alpha, tests)
        return replace(self, significant=bool(p_adjusted < alpha and big), p_adjusted=p_adjusted,
                       ratio_low=low, ratio_high=high)


def ratio_number(ratio: float) -> str:
    """A ratio as a reader takes it in: 14, 2.3, 1.05."""
    return f"{ratio:.0f}" if ratio >= 10 else f"{ratio:.2f}" if ratio < 2 else f"{ratio:.1f}"


def t_quantile(q: float, df: float) -> float:
    """Quantile of Student's t distribution."""
    return student_t.quantile(q, df)


def mean_interval(values: Sequence[float]) -> Interval:
    """Mean, sd, CV and the 95 % Student-t interval over runs, for signed figures (a slope, a difference):
    positive figures take geo_interval."""
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


def geo_interval(values: Sequence[float | None], spread: moderated.Spread | None = None) -> Interval:
    """GEO_INTERVAL of positive per-run figures: the geometric mean ×/÷ its factor, from `spread` (the
    moderated one of its ranking) or, without one, from these runs alone. sd and CV are the raw runs'."""
    data = np.asarray([v for v in values if v is not None and v > 0], dtype=float)
    n = int(data.size)
    if n == 0:
        return Interval(0, None, None, None, None, None, "no runs")
    raw_sd = float(data.std(ddof=1)) if n >= 2 else None
    raw_cv = raw_sd / float(data.mean()) if raw_sd is not None else None
    spread = spread or moderated.spreads({"x": dict(enumerate(data))})["x"]
    factor = spread.factor(CONFIDENCE)
    gm = spread.gmean
    if factor is None:
        return Interval(n, gm, raw_sd, raw_cv, None, None, "single run")
    method = (f"geometric mean ×/÷ {factor:.2f}, {n} run{'s' if n != 1 else ''}"
              + (f", moderated ({spread.df:.0f} df)" if spread.df > n - 1 else ""))
    return Interval(n, gm, raw_sd, raw_cv, gm / factor, gm * factor, method, factor)


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


def throughput_interval(per_run: Sequence[float], per_second: Sequence[np.ndarray],
                        spread: moderated.Spread | None = None) -> Interval:
    """GEO_INTERVAL over runs; with one run the interval is the within-run block bootstrap (labelled so)."""
    interval = geo_interval(per_run, spread)
    if interval.n == 1 and interval.low is None:
        ci = within_run_interval(per_second)
        if ci is not None:
            return Interval(1, interval.mean, None, None, ci[0], ci[1], "within-run block bootstrap, 1 run")
    return interval


def proven_ranks(n: int, better: Callable[[int, int], bool]) -> list[int]:
    """TIER_RULE's rank for n items: 1 + how many items are proven better (better(i, j): item i
    significantly better than item j)."""
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
    return ["".join(name for name, g in zip(names, groups, strict=True) if j in g) for j in range(n)]


@dataclass(frozen=True)
class Power:
    """What Holm's first step asks of a pair of one ranking (detectable_ratio): the ratio a pair of typical noise
    must reach to be separated, and what it rests on."""

    pairs: int             # the family: tests of the ranking
    rounds: int            # the median number of rounds a pair shares
    p_needed: float        # alpha / family
    ratio_needed: float
    df: float              # the median degrees of freedom of a pair's test
    text: str              # all of it in a sentence (the pages' note)


def detectable_ratio(tests: moderated.PairTests, family: int, alpha: float = ALPHA) -> Power | None:
    """What Holm's first step asks of a pair of this ranking: p < alpha / family, i.e. a ratio of about
    exp(t(1 - alpha / 2 family, df) · s0 / √n) at the prior's typical pair variance s0² (or the median pair
    variance without a prior) over the median number of shared rounds. None when nothing was tested."""
    paired = [s for s in tests.stats.values() if s.paired]
    if family < 1 or not paired:
        return None
    n = int(np.median([s.n for s in paired]))
    var = tests.prior.var if tests.prior.df > 0 else float(np.median([s.s2 for s in paired]))
    df = float(np.median([s.df for s in paired]))
    p_needed = alpha / family
    ratio = math.exp(t_quantile(1 - p_needed / 2, df) * math.sqrt(var / n)) if var > 0 else 1.0
    prior = (f"; moderated with {tests.prior.df:.1f} prior degrees of freedom" if 0 < tests.prior.df < math.inf
             else "; one pooled variance (the pairs' variances agree)" if math.isinf(tests.prior.df) else "")
    return Power(family, n, p_needed, ratio, df,
                 f"{family} pair{'s' if family != 1 else ''} over {n} rounds{prior}: a pair of typical noise must "
                 f"differ by about ×{ratio_number(ratio)} to be separated (p < {p_needed:.2g} at Holm's first "
                 f"step), and by at least {MIN_EFFECT:.0%} in any case; a smaller difference that misses it is not "
                 "shown to be equal: more rounds may separate it")


def rank_labels(tier_numbers: Sequence[int]) -> list[str]:
    """'1', '2=', '2=', '3': a shared tier is marked '='."""
    counts: dict[int, int] = {}
    for t in tier_numbers:
        counts[t] = counts.get(t, 0) + 1
    return [f"{t}=" if counts[t] > 1 else str(t) for t in tier_numbers]


@dataclass
class Ranking:
    """One ranking: items in the order shown (rank, then geometric mean), the ranks of the testable ones, every
    pair's corrected verdict and the moderated statistics behind them."""

    order: list[str]
    means: dict[str, float | None]               # the figure each item is ordered by (geometric mean, or given)
    tiers: dict[str, int | None]                 # TIER_RULE's rank number (None: not tested)
    labels: dict[str, str | None]
    pairs: dict[tuple[str, str], Verdict]        # (better, worse) by the figure -> Holm-corrected verdict
    vs_leader: dict[str, tuple[str, Verdict]]    # item -> (the ranking's leader, their verdict)
    family: int                                  # number of tests in the Holm family
    higher_better: bool
    letters: dict[str, str | None]               # compact letter display (None: not tested)
    power: Power | None                          # detectable_ratio of this family
    intervals: dict[str, Interval] = field(default_factory=dict)   # each item's GEO_INTERVAL (moderated)
    raw: dict[tuple[str, str], Verdict] = field(default_factory=dict)  # the same pairs before correction
    alpha: float = ALPHA

    def verdict(self, a: str, b: str) -> Verdict | None:
        """The corrected verdict of a pair, either way round (relative is then b against a)."""
        return _oriented(self.pairs, a, b)


def _oriented(pairs: Mapping[tuple[str, str], Verdict], a: str, b: str) -> Verdict | None:
    """pairs[(a, b)], or pairs[(b, a)] turned round (b against a)."""
    if (a, b) in pairs:
        return pairs[(a, b)]
    v = pairs.get((b, a))
    if v is None:
        return None

    def flip(x: float | None) -> float | None:
        return None if x is None else 1.0 / x

    relative = None if v.relative is None else 1.0 / (1.0 + v.relative) - 1.0
    return replace(v, relative=relative, diff=None if v.diff is None else -v.diff,
                   ratio_low=flip(v.ratio_high), ratio_high=flip(v.ratio_low),
                   stat=v.stat.flipped() if v.stat is not None else None)


def _pair(pairs: Mapping[tuple[str, str], Verdict], a: str, b: str) -> Verdict:
    """_oriented for a pair the family holds (every pair of a ranking's tested items): KeyError otherwise."""
    v = _oriented(pairs, a, b)
    if v is None:
        raise KeyError((a, b))
    return v


def _count(runs: Mapping) -> int:
    return sum(1 for v in runs.values() if v is not None and v > 0)


def _verdict(stat: moderated.PairStat | None, a_figure: float | None, why: str) -> Verdict:
    if stat is None:
        return Verdict(False, why, None, None, tested=False)
    method = (f"moderated paired t on log ratios, {stat.n} shared rounds, {stat.df:.1f} df" if stat.paired
              else f"moderated log Welch (fewer than {MIN_ROUNDS} shared rounds), {stat.df:.1f} df")
    relative = stat.ratio - 1.0
    return Verdict(stat.p < ALPHA, method, a_figure * relative if a_figure else relative, relative,
                   p_value=stat.p, n=stat.n, stat=stat)


def correct(raw: Mapping[K, Verdict], alpha: float = ALPHA, min_effect: float = MIN_EFFECT) -> dict[K, Verdict]:
    """One family: Holm over the tested verdicts, the minimum effect, intervals simultaneous over the family."""
    keys = [k for k, v in raw.items() if v.tested]
    adjusted = holm([_p(raw[k]) for k in keys])
    out = {k: raw[k].adjusted(p, alpha, min_effect, len(keys)) for k, p in zip(keys, adjusted, strict=True)}
    out.update({k: v for k, v in raw.items() if not v.tested})
    return {k: out[k] for k in raw}


def _p(verdict: Verdict) -> float:
    """A tested verdict's raw p (every test gives one)."""
    if verdict.p_value is None:
        raise ValueError(f"a tested verdict without a p value: {verdict.method}")
    return verdict.p_value


def rank(items: Mapping[str, Mapping], higher_better: bool = True,
         figures: Mapping[str, float | None] | None = None, alpha: float = ALPHA,
         min_effect: float = MIN_EFFECT, moderate: bool = True) -> Ranking:
    """Rank items (name -> per-round figures keyed by round) with TIER_RULE: ordered by their geometric mean,
    or by `figures` when given (a latency percentile is ordered by the percentile of the pooled samples, never
    by a mean of per-round percentiles; the tests still pair the per-round figures).

    Items with fewer than MIN_ROUNDS runs get no rank (None): nothing is claimed for them. Every pair of
    the testable items is tested (MODERATED_TEST) and the family is Holm-corrected (HOLM) at `alpha` (ALPHA; a
    run whose rounds stopped when its order was known ranks at the level each of its looks spent:
    mcpbench.analysis.sequential)."""
    spread = moderated.spreads(items)
    intervals = {name: geo_interval(list(items[name].values()), spread.get(name)) for name in items}
    means = {name: intervals[name].mean for name in items}
    if figures is not None:
        means = {name: figures.get(name) for name in items}
    sign = -1 if higher_better else 1
    by_figure = sorted(items, key=lambda n: (means[n] is None, sign * (means[n] or 0.0), n))
    testable = [n for n in by_figure if _count(items[n]) >= MIN_ROUNDS]
    pairs = [(a, b) for i, a in enumerate(testable) for b in testable[i + 1:]]
    tests = moderated.pair_tests(items, pairs, MIN_ROUNDS, moderate)
    raw = {(a, b): _verdict(tests.stats.get((a, b)), means[a],
                            f"fewer than {MIN_ROUNDS} rounds") for a, b in pairs}
    corrected = correct(raw, alpha, min_effect)
    family = sum(1 for v in raw.values() if v.tested)

    def better(x: str, y: str) -> bool:
        """x significantly better than y."""
        v = _oriented(corrected, x, y)    # y against x
        if v is None or not v.significant or v.relative is None:
            return False
        return v.relative < 0 if higher_better else v.relative > 0

    tier_of = dict(zip(testable, proven_ranks(len(testable), lambda i, j: better(testable[i], testable[j])),
                       strict=True))
    shown = sorted(testable, key=lambda n: (tier_of[n], sign * (means[n] or 0.0), n))
    order = shown + [n for n in by_figure if n not in tier_of]

    def differ(i: int, j: int) -> bool:
        return bool((_oriented(corrected, shown[i], shown[j]) or Verdict(False, "", None, None)).significant)

    letter_list = compact_letters(len(shown), differ)
    pairs_shown = {}
    for i, a in enumerate(shown):
        for b in shown[i + 1:]:
            pairs_shown[(a, b)] = _pair(corrected, a, b)
    vs_leader = {item: (shown[0], pairs_shown[(shown[0], item)]) for item in shown[1:]}
    tiers: dict[str, int | None] = {n: tier_of.get(n) for n in order}
    labels: dict[str, str | None] = {n: None for n in order}
    labels.update(zip(shown, rank_labels([tier_of[n] for n in shown]), strict=True))
    letters: dict[str, str | None] = {n: None for n in order}
    letters.update(zip(shown, letter_list, strict=True))
    raw_shown = {(a, b): _pair(raw, a, b) for a, b in pairs_shown}
    return Ranking(order, means, tiers, labels, pairs_shown, vs_leader, family, higher_better, letters,
                   detectable_ratio(tests, family, alpha), intervals, raw_shown, alpha)


@dataclass(frozen=True)
class LeaderTests:
    """A question with a leader, answered among `candidates` of one ranking (LEADER_RULE)."""

    leader: str | None
    tests: dict[str, Verdict]          # other candidate -> leader vs it (relative: the other against the leader)
    untested: list[str]                # candidates with too few rounds

    @property
    def tie(self) -> list[str]:
        """The leader and every candidate not separated from it."""
        if self.leader is None:
            return []
        return [self.leader] + [n for n, v in self.tests.items() if not v.significant]

    @property
    def family(self) -> int:
        return sum(1 for v in self.tests.values() if v.tested)


def leader_tests(ranking: Ranking, candidates: Sequence[str] | None = None, *,
                 exclude: Sequence[str] = (), min_effect: float = MIN_EFFECT) -> LeaderTests:
    """LEADER_RULE: among `candidates` (default all) less `exclude` of a ranking, the best tested one against
    each other, the raw moderated tests of the ranking Holm-corrected within these k - 1 alone."""
    pool = [n for n in ranking.order if (candidates is None or n in candidates) and n not in exclude]
    tested = [n for n in pool if ranking.tiers.get(n) is not None]
    untested = [n for n in pool if n not in tested]
    if not tested:
        return LeaderTests(None, {}, untested)
    sign = -1 if ranking.higher_better else 1
    leader = min(tested, key=lambda n: (sign * (ranking.means[n] or 0.0), n))
    raw = {other: _pair(ranking.raw, leader, other) for other in tested if other != leader}
    return LeaderTests(leader, correct(raw, ranking.alpha, min_effect), untested)


def order_held(a: Mapping, b: Mapping, higher_better: bool = True) -> tuple[int, int]:
    """(rounds in which a was strictly ahead of b, rounds both were measured in)."""
    shared = [k for k in a if k in b and a[k] is not None and b[k] is not None]
    held = sum(1 for k in shared if (a[k] > b[k] if higher_better else a[k] < b[k]))
    return held, len(shared)


def round_ratios(by_round: Mapping[K, Mapping[str, float | None]]) -> dict[str, dict[K, float | None]]:
    """Each item's figure divided by the geometric mean of its round (every item measured in that round).
    The geometric mean, not the median: with an odd number of servers the median server's ratio would be 1
    in every round by construction, and its CV 0. Rounds with a single item are left out (ratio 1)."""
    out: dict[str, dict[K, float | None]] = {}
    for rnd, figures in by_round.items():
        values = {k: v for k, v in figures.items() if v is not None}
        if len(values) < 2:
            continue
        positive = [v for v in values.values() if v > 0]
        centre = float(np.exp(np.mean(np.log(positive)))) if len(positive) == len(values) else None
        for name, v in values.items():
            out.setdefault(name, {})[rnd] = v / centre if centre else None
    return out


@dataclass(frozen=True)
class Changes:
    """One figure's changes OLD → NEW (CHANGE_TEST): per server its verdict (relative: NEW against OLD,
    centred), the shift every common server shared (NEW / OLD of the round centres' geometric means) and
    whether the rounds were centred."""

    verdicts: dict[str, Verdict]
    shared_shift: float | None
    centred: bool
    family: int


def _round_centres(logs: Mapping[str, Mapping[Hashable, float]], common: Sequence[str]) -> dict[Hashable, float]:
    """Each round's median log figure over the `common` servers it has (rounds with fewer than
    MIN_CENTRE_SERVERS of them have none)."""
    rounds = {k for n in common for k in logs.get(n, {})}
    out = {}
    for k in rounds:
        values = [logs[n][k] for n in common if k in logs.get(n, {})]
        if len(values) >= MIN_CENTRE_SERVERS:
            out[k] = float(np.median(values))
    return out


def change_tests(old: Mapping[str, Mapping], new: Mapping[str, Mapping], *, exclude_from_centre: Sequence[str] = (),
                 alpha: float = ALPHA, min_effect: float = MIN_EFFECT,
                 testable: Callable[[str, float | None], str | None] | None = None) -> Changes:
    """CHANGE_TEST of every server in both `old` and `new` (name -> per-round figures). `testable(name,
    relative)` may return why a server's change is not tested (a harness-limited throughput whose direction
    proves nothing): it then leaves the family."""
    names = [n for n in new if n in old]
    logs_old = {n: moderated.log_figures(old[n]) for n in names}
    logs_new = {n: moderated.log_figures(new[n]) for n in names}
    common = [n for n in names if n not in exclude_from_centre and logs_old[n] and logs_new[n]]
    centred = len(common) >= MIN_CENTRE_SERVERS
    shift = None
    if centred:
        c_old, c_new = _round_centres(logs_old, common), _round_centres(logs_new, common)
        # what every common server shared: NEW's mean round centre over OLD's
        shift = math.exp(float(np.mean(list(c_new.values()))) - float(np.mean(list(c_old.values()))))
        lo = {n: {k: v - c_old[k] for k, v in logs_old[n].items() if k in c_old} for n in names}
        ln = {n: {k: v - c_new[k] for k, v in logs_new[n].items() if k in c_new} for n in names}
    else:
        lo, ln = logs_old, logs_new
    own = {}
    for n in names:
        a, b = list(lo.get(n, {}).values()), list(ln.get(n, {}).values())
        if len(a) >= MIN_ROUNDS and len(b) >= MIN_ROUNDS:
            ss = float(np.sum((np.array(a) - np.mean(a)) ** 2) + np.sum((np.array(b) - np.mean(b)) ** 2))
            own[n] = (a, b, ss / (len(a) + len(b) - 2), len(a) + len(b) - 2)
    prior = moderated.fit_prior([v[2] for v in own.values()], [v[3] for v in own.values()])
    cap = max(1.0, float(sum(v[3] for v in own.values())))
    raw: dict[str, Verdict] = {}
    for n in names:
        if n not in own:
            raw[n] = Verdict(False, f"{_count(old[n])} vs {_count(new[n])} runs; a test needs "
                                    f"{MIN_ROUNDS} a side", None, None, tested=False)
            continue
        a, b, s2, df = own[n]
        post = prior.posterior(s2, df)
        stat = moderated.PairStat("OLD", "NEW", 0, float(np.mean(b) - np.mean(a)), s2,
                                  post * (1 / len(a) + 1 / len(b)), min(df + prior.df, cap), False)
        old_figure = math.exp(float(np.mean(list(logs_old[n].values()))))
        verdict = replace(_verdict(stat, old_figure, ""), n=min(len(a), len(b)),
                          method=f"moderated two-sample t on {'centred ' if centred else ''}logs, {len(a)} vs "
                                 f"{len(b)} runs, {stat.df:.1f} df")
        why = testable(n, verdict.relative) if testable else None
        raw[n] = replace(verdict, tested=False, significant=False, method=why) if why else verdict
    corrected = correct(raw, alpha, min_effect)
    return Changes(corrected, shift, centred, sum(1 for v in raw.values() if v.tested))


def per_second_counts(t_s: np.ndarray, window: tuple[float, float]) -> np.ndarray:
    """Events per second over the measured window [start, end): one value per whole second."""
    start, end = window
    n = max(0, int(math.floor(end - start + 1e-9)))
    t = np.asarray(t_s, dtype=float)
    t = t[(t >= start) & (t < start + n)]
    return np.bincount(np.floor(t - start).astype(int), minlength=n)[:n].astype(float)


@dataclass(frozen=True)
class CallsPerResource:
    """Tool calls/s per CPU core used and per GiB of memory used (None where a figure is missing)."""

    per_core: float | None
    per_gb: float | None


def efficiency(calls_per_s: float | None, cpu_avg_pct: float | None, mem_avg_mb: float | None) -> CallsPerResource:
    """Tool calls/s per CPU core used and per GiB of memory used (None where a figure is missing)."""
    per_core = calls_per_s / (cpu_avg_pct / 100) if calls_per_s is not None and cpu_avg_pct else None
    per_gb = calls_per_s / (mem_avg_mb / 1024) if calls_per_s is not None and mem_avg_mb else None
    return CallsPerResource(per_core, per_gb)


def meets_slo(p99_ms: float | None, error_rate: float | None, dropped: int, slo_p99_ms: float) -> bool:
    return (p99_ms is not None and p99_ms <= slo_p99_ms
            and (error_rate or 0.0) <= SLO_MAX_ERROR_RATE and not dropped)


@dataclass(frozen=True)
class Level:
    """One load level of a sweep as the SLO peak reads it: its all-calls p99, failed share, dropped iterations
    and the throughput reached."""

    load: float
    p99: float | None
    error_rate: float | None
    dropped_iterations: int
    throughput: float | None


def slo_peak(levels: Sequence[Level], slo_p99_ms: float) -> Level | None:
    """The highest tested load level meeting the SLO; None when no level meets it."""
    ok = [lv for lv in levels if meets_slo(lv.p99, lv.error_rate, lv.dropped_iterations, slo_p99_ms)]
    if not ok:
        return None
    return max(ok, key=lambda lv: lv.load)




# -- two configurations side by side (pages/ab.py) ---------------------------------------------------------------
# Fewer shared rounds give no variance of their own to test.
MIN_SHARED_ROUNDS = 2


@dataclass(frozen=True)
class Speedup:
    """B / A at one level: the geometric mean of the per-round ratios and its simultaneous interval."""

    ratio: float | None
    low: float | None
    high: float | None
    rounds: int
    differs: bool          # the simultaneous interval leaves 1 out

    @property
    def text(self) -> str:
        if self.ratio is None:
            return "—"
        if self.low is None or self.high is None:
            return f"×{self.ratio:#.3g} (not tested: {self.rounds} shared round(s))"
        return f"×{self.ratio:#.3g} ({self.low:#.3g}–{self.high:#.3g})"


def speedups(pairs: Mapping[K, tuple[Mapping[Any, float | None], Mapping[Any, float | None]]],
             alpha: float = ALPHA, moderate: bool = False) -> dict[K, Speedup]:
    """B / A at each level (level -> (A by round, B by round)): a paired t on log(B/A) over the rounds both have
    (Student; df = rounds - 1), intervals Bonferroni-simultaneous over the levels — the question "where does B
    differ from A" is one family. Not moderated: a prior fitted over a sweep's few levels (the rankings' limma
    moderation, moderated.pair_tests) separated A from itself in 7.5 % of 3-level families and 11.6 % of
    10-level ones when replayed on recorded rounds; unmoderated, 3.7 % and 3.1 % (validation.ab_replay,
    docs/statistics.md)."""
    items: dict[str, Mapping] = {}
    wanted = []
    names = {}
    for i, (level, (a, b)) in enumerate(pairs.items()):
        names[level] = (f"a{i}", f"b{i}")
        items[f"a{i}"], items[f"b{i}"] = a, b
        wanted.append(names[level])
    tests = moderated.pair_tests(items, wanted, MIN_SHARED_ROUNDS, moderate=moderate)
    family = max(1, len(tests.stats))
    out = {}
    for level, (a, b) in pairs.items():
        stat = tests.stats.get(names[level])
        shared = len(set(moderated.log_figures(a)) & set(moderated.log_figures(b)))
        if stat is None or not stat.paired:
            ga, gb = geo_interval(list(a.values())).mean, geo_interval(list(b.values())).mean
            out[level] = Speedup(gb / ga if ga and gb else None, None, None, shared, False)
            continue
        low, high = stat.interval(alpha, family)
        out[level] = Speedup(stat.ratio, low, high, stat.n, not low <= 1.0 <= high)
    return out

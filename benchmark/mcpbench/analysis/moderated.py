"""Empirical-Bayes moderated tests on log figures: the test behind every ranking, comparison and interval.

Why: three rounds give a paired t-test 2 degrees of freedom, and Holm over every pair of a 19-server ranking
then needs |t| > 74 at its first step: a ranking that cannot tell a 10x difference from noise. The variances
of the many pairs of one ranking hold the missing information. Smyth (2004), "Linear models and empirical
Bayes methods for assessing differential expression in microarray experiments" (Stat. Appl. Genet. Mol. Biol.
3(1), art. 3) — limma's eBayes — fits a scaled inverse-chi-square prior to the sample variances of many
parallel tests and replaces each variance by its posterior mean, adding the prior's degrees of freedom to the
test's own. Where the variances agree the test borrows strength from all of them; where they do not, the
fitted prior is weak (few prior degrees of freedom) and each test keeps its own noise.

Hand-written because no kept Python library offers limma's `fitFDist`/`squeezeVar` (statsmodels and scipy do
not; the R package is out of reach here): it is twenty lines of moment matching on log variances, checked in
the tests against hand-computed values and, on recorded rounds, by scripts/null_replay.py (false separations of
identical servers, power on pairs of known size).

Two uses, one prior each:
- pairs of one ranking: the per-round log ratio of two servers over the rounds they share (a slow spell of the
  host hits both) — `pair_tests`;
- one server's own figure over its rounds: the geometric mean and its x/÷ factor — `spread`.

Degrees of freedom are capped (as limma caps them at the total residual degrees of freedom): every pair of a
ranking is a combination of the same K x R table, which holds (K - 1)(R - 1) degrees of freedom beyond the
servers' and the rounds' means, so prior plus own degrees of freedom never exceed that.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
from scipy import special

from mcpbench.analysis import student_t

# Fewer variances than this and no prior is fitted: each test stands on its own degrees of freedom.
MIN_VARIANCES_FOR_PRIOR = 3


def _trigamma(x):
    return special.polygamma(1, x)


def trigamma_inverse(y: float) -> float:
    """The x with trigamma(x) = y (limma's trigammaInverse: Newton's method on 1/trigamma, which is nearly
    linear, from x = 0.5 + 1/y)."""
    if y > 1e7:
        return 1.0 / math.sqrt(y)
    if y < 1e-6:
        return 1.0 / y
    x = 0.5 + 1.0 / y
    for _ in range(50):
        tri = float(_trigamma(x))
        step = tri * (1.0 - tri / y) / float(special.polygamma(2, x))
        x += step
        if -step / x < 1e-8:
            break
    return x


@dataclass(frozen=True)
class Prior:
    """A scaled inverse-chi-square prior of variances: `df` prior degrees of freedom (inf: every variance is
    `var`; 0: no prior, each variance stands alone) around `var`."""

    df: float
    var: float

    def posterior(self, s2: float, df: float) -> float:
        """The moderated variance: (d0 s0² + d s²) / (d0 + d) (Smyth 2004, eq. 5)."""
        if self.df == 0:
            return s2
        if math.isinf(self.df) or df == 0:
            return self.var
        return (self.df * self.var + df * s2) / (self.df + df)


NO_PRIOR = Prior(0.0, math.nan)


def fit_prior(variances: Sequence[float], dfs: Sequence[float]) -> Prior:
    """Smyth (2004) section 6, limma's fitFDist: the prior whose log-variance moments match the sample's,
    each log s² corrected by its own chi-square's mean (digamma) and variance (trigamma). Zero variances carry
    no log and are left out; fewer than MIN_VARIANCES_FOR_PRIOR usable ones: NO_PRIOR."""
    s2 = np.asarray(variances, dtype=float)
    d = np.asarray(dfs, dtype=float)
    keep = np.isfinite(s2) & (s2 > 0) & (d > 0)
    s2, d = s2[keep], d[keep]
    n = s2.size
    if n < MIN_VARIANCES_FOR_PRIOR:
        return NO_PRIOR
    e = np.log(s2) - special.digamma(d / 2) + np.log(d / 2)
    mean = float(e.mean())
    spread = float(((e - mean) ** 2).sum() / (n - 1) - _trigamma(d / 2).mean())
    if spread > 0:
        d0 = 2.0 * trigamma_inverse(spread)
        return Prior(d0, math.exp(mean + special.digamma(d0 / 2) - math.log(d0 / 2)))
    return Prior(math.inf, math.exp(mean))


def table_df(observations: int, items: int, rounds: int) -> float:
    """Residual degrees of freedom of an items x rounds table (items' and rounds' means removed): the cap on
    prior plus own degrees of freedom. With missing cells, observations - items - rounds + 1."""
    return max(1.0, float(observations - items - rounds + 1))


@dataclass(frozen=True)
class PairStat:
    """b against a over their shared rounds, on the log scale: d = log b - log a per round."""

    a: str
    b: str
    n: int                   # shared rounds
    mean: float              # mean log ratio: exp(mean) is the geometric-mean ratio b / a
    s2: float                # the pair's own variance of d (n - 1 degrees of freedom)
    s2_post: float           # moderated
    df: float                # own + prior, capped
    paired: bool             # False: the two share too few rounds, compared unpaired (log Welch, moderated)

    @property
    def ratio(self) -> float:
        return math.exp(self.mean)

    def flipped(self) -> "PairStat":
        """The same test as a against b."""
        return replace(self, a=self.b, b=self.a, mean=-self.mean)

    @property
    def se(self) -> float:
        return math.sqrt(self.s2_post / self.n) if self.paired else math.sqrt(self.s2_post)

    @property
    def t(self) -> float:
        if self.se == 0:
            return 0.0 if self.mean == 0 else math.copysign(math.inf, self.mean)
        return self.mean / self.se

    @property
    def p(self) -> float:
        """Two-sided p-value of the moderated t."""
        return student_t.two_sided_p(self.t, self.df)

    def interval(self, alpha: float, tests: int = 1) -> tuple[float, float]:
        """The ratio b / a's two-sided 1 - alpha interval, simultaneous over `tests` (Bonferroni): never
        negative, as a ratio."""
        q = student_t.quantile(1 - alpha / (2 * max(tests, 1)), self.df) * self.se
        return math.exp(self.mean - q), math.exp(self.mean + q)


def log_figures(runs: Mapping[Hashable, float | None]) -> dict[Hashable, float]:
    """The positive figures of one item, by round, on the log scale."""
    return {k: math.log(v) for k, v in runs.items() if v is not None and v > 0}


@dataclass(frozen=True)
class Spread:
    """One item's figure over its rounds: geometric mean and its moderated log-scale variance."""

    n: int
    log_mean: float
    s2: float
    s2_post: float
    df: float

    @property
    def gmean(self) -> float:
        return math.exp(self.log_mean)

    def factor(self, confidence: float) -> float | None:
        """The x/÷ factor of the geometric mean's interval (None with one round and no prior)."""
        if self.n < 1 or not math.isfinite(self.s2_post) or self.df <= 0:
            return None
        return math.exp(student_t.quantile(0.5 + confidence / 2, self.df) * math.sqrt(self.s2_post / self.n))


def spreads(items: Mapping[str, Mapping[Hashable, float | None]]) -> dict[str, Spread]:
    """Each item's geometric mean and moderated spread over its rounds, one prior over the items (their
    variances over rounds: a noisy item keeps its noise where the items disagree)."""
    logs = {name: list(log_figures(runs).values()) for name, runs in items.items()}
    own = {name: (float(np.var(v, ddof=1)) if len(v) >= 2 else math.nan, len(v) - 1) for name, v in logs.items()}
    prior = fit_prior([s2 for s2, _ in own.values() if math.isfinite(s2)],
                      [d for s2, d in own.values() if math.isfinite(s2)])
    rounds = {k for runs in items.values() for k in log_figures(runs)}
    cap = table_df(sum(len(v) for v in logs.values()), len(items), len(rounds)) + (len(rounds) - 1)
    out = {}
    for name, values in logs.items():
        if not values:
            continue
        s2, df = own[name]
        if df < 1 and prior.df == 0:
            out[name] = Spread(len(values), float(np.mean(values)), math.nan, math.nan, 0.0)
            continue
        s2 = s2 if df >= 1 else math.nan
        post = prior.posterior(s2 if df >= 1 else 0.0, max(df, 0))
        out[name] = Spread(len(values), float(np.mean(values)), s2, post, min(max(df, 0) + prior.df, cap))
    return out


@dataclass(frozen=True)
class PairTests:
    """Every pair of a ranking, moderated with one prior fitted to the paired pairs' variances."""

    stats: dict[tuple[str, str], PairStat]
    prior: Prior
    cap: float


def pair_tests(items: Mapping[str, Mapping[Hashable, float | None]], pairs: Sequence[tuple[str, str]],
               min_shared: int, moderate: bool = True) -> PairTests:
    """PairStat of each (a, b) in `pairs` with at least `min_shared` shared rounds (paired), or, sharing fewer,
    with at least `min_shared` rounds each (unpaired: log Welch with each side's moderated spread); pairs with
    neither are left out. The prior is fitted to the paired pairs' own variances (moderate=False: none, each
    pair an ordinary paired t-test — what the report did before, kept to measure the difference)."""
    logs = {name: log_figures(runs) for name, runs in items.items()}
    own: dict[tuple[str, str], tuple[int, float, float]] = {}
    for a, b in pairs:
        shared = [k for k in logs[a] if k in logs[b]]
        if len(shared) >= max(min_shared, 2):
            d = np.array([logs[b][k] - logs[a][k] for k in shared])
            own[(a, b)] = (len(shared), float(d.mean()), float(d.var(ddof=1)))
    prior = fit_prior([s2 for _, _, s2 in own.values()], [n - 1 for n, _, _ in own.values()]) if moderate else NO_PRIOR
    rounds = {k for v in logs.values() for k in v}
    cap = table_df(sum(len(v) for v in logs.values()), len(logs), len(rounds))
    out: dict[tuple[str, str], PairStat] = {}
    for (a, b), (n, mean, s2) in own.items():
        out[(a, b)] = PairStat(a, b, n, mean, s2, prior.posterior(s2, n - 1), min(n - 1 + prior.df, cap), True)
    unpaired = [(a, b) for a, b in pairs if (a, b) not in own
                and len(logs[a]) >= min_shared and len(logs[b]) >= min_shared]
    if unpaired:
        spread = spreads(items)
        for a, b in unpaired:
            sa, sb = spread[a], spread[b]
            va, vb = sa.s2_post / sa.n, sb.s2_post / sb.n
            # Welch-Satterthwaite degrees of freedom of the two moderated variances
            df = (va + vb) ** 2 / (va ** 2 / sa.df + vb ** 2 / sb.df) if va + vb > 0 else sa.df + sb.df
            out[(a, b)] = PairStat(a, b, 0, sb.log_mean - sa.log_mean, math.nan, va + vb, df, False)
    return PairTests(out, prior, cap)

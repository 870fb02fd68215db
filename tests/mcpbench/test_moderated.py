"""mcpbench.analysis.moderated against hand-computed values (Smyth 2004's formulas written out here)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special, stats as sps

from mcpbench.analysis import moderated


@pytest.mark.parametrize("x", [0.3, 1.0, 2.5, 8.0, 40.0])
def test_trigamma_inverse_inverts_trigamma(x):
    assert moderated.trigamma_inverse(float(special.polygamma(1, x))) == pytest.approx(x, rel=1e-7)


def test_fit_prior_by_hand():
    """Three variances with 2 degrees of freedom each: the moment equations of Smyth (2004) section 6 by hand."""
    s2, d = np.array([0.001, 0.04, 0.5]), 2.0
    e = np.log(s2) - special.digamma(d / 2) + math.log(d / 2)
    spread = e.var(ddof=1) - float(special.polygamma(1, d / 2))
    assert spread > 0
    d0 = 2 * moderated.trigamma_inverse(spread)
    var0 = math.exp(e.mean() + special.digamma(d0 / 2) - math.log(d0 / 2))
    prior = moderated.fit_prior(s2, [d] * 3)
    assert prior.df == pytest.approx(d0) and prior.var == pytest.approx(var0)
    # the posterior is the weighted mean of prior and own variance
    assert prior.posterior(0.04, 2) == pytest.approx((d0 * var0 + 2 * 0.04) / (d0 + 2))


def test_fit_prior_recovers_a_known_prior():
    """Variances drawn from a scaled inverse-chi-square prior (10 degrees of freedom around 0.04), each then
    observed with 2 degrees of freedom: the fit finds the prior back."""
    rng = np.random.default_rng(7)
    true = 10 * 0.04 / rng.chisquare(10, 20000)
    observed = true * rng.chisquare(2, 20000) / 2
    prior = moderated.fit_prior(observed, [2] * 20000)
    assert prior.df == pytest.approx(10, rel=0.2) and prior.var == pytest.approx(0.04, rel=0.1)


def test_equal_variances_give_an_infinite_prior_and_too_few_none():
    """Variances that vary less than chi-square noise alone would: every variance is the prior's."""
    prior = moderated.fit_prior([0.04, 0.0401, 0.0399, 0.04], [2] * 4)
    assert math.isinf(prior.df) and prior.var == pytest.approx(0.04 * math.exp(
        -special.digamma(1) + math.log(1)), rel=1e-2)
    assert prior.posterior(5.0, 2) == prior.var
    assert moderated.fit_prior([0.01, 0.02], [2, 2]) is moderated.NO_PRIOR
    assert moderated.NO_PRIOR.posterior(0.3, 2) == 0.3
    assert moderated.fit_prior([0.0, 0.0, 0.01, 0.02], [2] * 4) is moderated.NO_PRIOR   # zeros carry no log


def test_pair_tests_by_hand():
    """Four servers, three rounds: each pair's per-round log ratio, its own variance, the prior over the six
    pairs, the moderated t with own + prior degrees of freedom (capped at (4 - 1)(3 - 1) = 6)."""
    items = {"a": {1: 1.0, 2: 1.1, 3: 0.95}, "b": {1: 2.0, 2: 2.5, 3: 1.9},
             "c": {1: 3.0, 2: 3.01, 3: 3.02}, "d": {1: 1.2, 2: 0.5, 3: 2.3}}
    pairs = [(x, y) for i, x in enumerate(items) for y in list(items)[i + 1:]]
    tests = moderated.pair_tests(items, pairs, 3)
    own = {}
    for x, y in pairs:
        d = np.log([items[y][r] / items[x][r] for r in (1, 2, 3)])
        own[(x, y)] = (d.mean(), d.var(ddof=1))
    prior = moderated.fit_prior([v for _, v in own.values()], [2] * 6)
    assert 0 < prior.df < math.inf
    assert (tests.prior.df, tests.prior.var) == pytest.approx((prior.df, prior.var)) and tests.cap == 6
    for key, (mean, var) in own.items():
        stat = tests.stats[key]
        post = prior.posterior(var, 2)
        df = min(2 + prior.df, 6)
        assert stat.paired and stat.n == 3 and stat.mean == pytest.approx(mean)
        assert stat.s2_post == pytest.approx(post) and stat.df == pytest.approx(df)
        t = mean / math.sqrt(post / 3)
        assert stat.t == pytest.approx(t) and stat.p == pytest.approx(2 * sps.t.sf(abs(t), df))
        low, high = stat.interval(0.05, 6)
        half = sps.t.ppf(1 - 0.05 / 12, df) * math.sqrt(post / 3)
        assert (low, high) == pytest.approx((math.exp(mean - half), math.exp(mean + half)))
    plain = moderated.pair_tests(items, pairs, 3, moderate=False)
    d = np.log([items["b"][r] / items["a"][r] for r in (1, 2, 3)])
    assert plain.stats[("a", "b")].p == pytest.approx(sps.ttest_1samp(d, 0).pvalue)


def test_unpaired_pairs_use_each_sides_moderated_spread():
    items = {"a": {("x", 1): 1.0, ("x", 2): 1.1, ("x", 3): 0.9}, "b": {("y", 1): 2.0, ("y", 2): 2.2, ("y", 3): 1.8},
             "c": {("x", 1): 1.5, ("x", 2): 1.4, ("x", 3): 1.6}}
    tests = moderated.pair_tests(items, [("a", "b"), ("a", "c")], 3)
    assert tests.stats[("a", "c")].paired and not tests.stats[("a", "b")].paired
    spread = moderated.spreads(items)
    stat = tests.stats[("a", "b")]
    assert stat.mean == pytest.approx(spread["b"].log_mean - spread["a"].log_mean)
    assert stat.se == pytest.approx(math.sqrt(spread["a"].s2_post / 3 + spread["b"].s2_post / 3))


def test_spread_factor_is_the_geometric_interval():
    values = [2.0, 2.2, 1.9]
    spread = moderated.spreads({"x": dict(enumerate(values))})["x"]      # one item: no prior
    logs = np.log(values)
    assert spread.gmean == pytest.approx(math.exp(logs.mean()))
    assert spread.factor(0.95) == pytest.approx(math.exp(sps.t.ppf(0.975, 2) * logs.std(ddof=1) / math.sqrt(3)))
    assert moderated.spreads({"x": {1: 3.0}})["x"].factor(0.95) is None

"""mcpbench_report.stats against hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scipy import stats as sps

from mcpbench.analysis import moderated
from mcpbench_report import stats


def test_mean_interval_by_hand():
    # runs 100, 102, 104: mean 102, sd 2, CV 2/102, t(0.975, 2) = 4.302653, half-width 4.302653 * 2 / sqrt(3)
    iv = stats.mean_interval([100.0, 102.0, 104.0])
    assert iv.n == 3
    assert iv.mean == pytest.approx(102.0)
    assert iv.std == pytest.approx(2.0)
    assert iv.cv == pytest.approx(2 / 102)
    half = 4.302653 * 2 / math.sqrt(3)
    assert iv.low == pytest.approx(102 - half, abs=1e-4)
    assert iv.high == pytest.approx(102 + half, abs=1e-4)


def test_mean_interval_small_samples():
    one = stats.mean_interval([5.0])
    assert (one.n, one.mean, one.std, one.low, one.high) == (1, 5.0, None, None, None)
    assert stats.mean_interval([]).mean is None
    two = stats.mean_interval([10.0, 12.0])  # t(0.975, 1) = 12.706205: honest, wide
    assert two.high - two.mean == pytest.approx(12.706205 * math.sqrt(2) / math.sqrt(2), abs=1e-4)


def test_t_quantile_known_values():
    assert stats.t_quantile(0.975, 2) == pytest.approx(4.302653, abs=1e-6)
    assert stats.t_quantile(0.975, 4) == pytest.approx(2.776445, abs=1e-6)
    assert stats.t_quantile(0.975, 1000) == pytest.approx(1.962339, abs=1e-6)


def test_per_second_counts_window_edges():
    # window [3, 6): 3.0 counts (start included), 6.0 does not (end excluded), 2.9 is warm-up
    t = np.array([2.9, 3.0, 3.5, 4.2, 5.99, 6.0])
    assert stats.per_second_counts(t, (3.0, 6.0)).tolist() == [2.0, 1.0, 1.0]
    assert stats.per_second_counts(np.array([]), (0.0, 2.0)).tolist() == [0.0, 0.0]


def test_block_length():
    assert stats.block_length(300) == 7      # 300^(1/3) = 6.69
    assert stats.block_length(8) == 2
    assert stats.block_length(27) == 3
    assert stats.block_length(1) == 1


def test_bootstrap_is_deterministic():
    runs = [np.arange(30, dtype=float) % 7 + 100]
    assert stats.within_run_interval(runs) == stats.within_run_interval(runs)
    lo, hi = stats.within_run_interval(runs)
    assert lo < runs[0].mean() < hi


def test_throughput_interval_single_run_is_within_run():
    iv = stats.throughput_interval([150.0], [np.array([140.0, 160.0] * 10)])
    assert iv.n == 1 and iv.low < 150 < iv.high and "within-run" in iv.method


def test_efficiency_by_hand():
    e = stats.efficiency(200.0, 50.0, 512.0)
    assert e == stats.CallsPerResource(per_core=400.0, per_gb=400.0)
    assert stats.efficiency(200.0, None, 0.0) == stats.CallsPerResource(per_core=None, per_gb=None)


def test_slo_peak():
    levels = [
        stats.Level(load=1, p99=5.0, error_rate=0.0, dropped_iterations=0, throughput=50),
        stats.Level(load=10, p99=80.0, error_rate=0.0, dropped_iterations=0, throughput=300),
        stats.Level(load=50, p99=90.0, error_rate=0.05, dropped_iterations=0, throughput=310),   # errors
        stats.Level(load=100, p99=99.0, error_rate=0.0, dropped_iterations=12, throughput=320),  # dropped
        stats.Level(load=200, p99=400.0, error_rate=0.0, dropped_iterations=0, throughput=330),  # too slow
    ]
    assert stats.slo_peak(levels, 100.0).load == 10
    assert stats.slo_peak(levels, 4.0) is None
    assert stats.slo_peak(levels, 500.0).load == 200


def _letters_agree_with_tests(letters, differ):
    """Every statement of a letter display is a test's: shared letter <=> not significantly different."""
    n = len(letters)
    for i in range(n):
        for j in range(i + 1, n):
            assert bool(set(letters[i]) & set(letters[j])) == (not differ(i, j)), (i, j, letters)


def test_ranks_and_letters_state_only_what_a_test_shows():
    """Issue 18 item 4. 0 > 2 significant; 0-1, 1-2, 1-3, 2-3 not; 0 > 3 significant. The leader rule gave
    tiers 1, 1, 2, 2: 1 and 2 in different tiers with no significant difference between them. Ranks are now
    1 + the number proven better, and letters share exactly when no test separates the two."""
    sig = {(0, 2), (0, 3)}
    differ = lambda i, j: (min(i, j), max(i, j)) in sig  # noqa: E731
    letters = stats.compact_letters(4, differ)
    assert letters == ["a", "ab", "b", "b"]
    _letters_agree_with_tests(letters, differ)
    assert stats.proven_ranks(4, lambda i, j: i < j and differ(i, j)) == [1, 1, 2, 2]
    assert stats.compact_letters(1, lambda i, j: True) == ["a"]
    assert stats.rank_labels([1, 1, 2, 2]) == ["1=", "1=", "2=", "2="]


@pytest.mark.parametrize("seed", range(40))
def test_letters_agree_with_every_pair_test_for_any_pattern(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 9))
    sig = {(i, j) for i in range(n) for j in range(i + 1, n) if rng.random() < 0.5}
    differ = lambda i, j: (min(i, j), max(i, j)) in sig  # noqa: E731
    _letters_agree_with_tests(stats.compact_letters(n, differ), differ)


def test_holm_by_hand():
    # sorted 0.01, 0.02, 0.04 of m = 3: x3 = 0.03, x2 = 0.04, x1 = 0.04 (monotone), in input order
    assert stats.holm([0.04, 0.01, 0.02]) == pytest.approx([0.04, 0.03, 0.04])
    assert stats.holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])     # 0.5 x 2 capped at 1; 0.9 x 1 raised to 1
    assert stats.holm([]) == []


def test_paired_log_by_hand():
    from mcpbench.analysis.stats import paired_log

    # log ratios d = log(a/b) = log 1.1, log 1.2, log 1.15: t = mean / (sd / sqrt 3), df 2
    a, b = [110.0, 120.0, 115.0], [100.0, 100.0, 100.0]
    d = np.log(np.array(a) / np.array(b))
    t = d.mean() / (d.std(ddof=1) / math.sqrt(3))
    scipy_stats = pytest.importorskip("scipy.stats")
    assert paired_log(a, b) == pytest.approx(2 * scipy_stats.t.sf(abs(t), 2))
    assert paired_log([1, 2, 3], [1, 2, 3]) == 1.0
    assert paired_log([2, 4, 6], [1, 2, 3]) == 0.0          # a constant ratio: no variance at all


def test_geo_interval_by_hand():
    """Three runs 100, 110, 121 (a constant ×1.1 step): geometric mean 110, factor exp(t(0.975, 2) · sd(log) / √3);
    the interval never goes below zero however wide, and the single run has none."""
    iv = stats.geo_interval([100.0, 110.0, 121.0])
    logs = np.log([100.0, 110.0, 121.0])
    factor = math.exp(stats.t_quantile(0.975, 2) * logs.std(ddof=1) / math.sqrt(3))
    assert iv.mean == pytest.approx(110.0) and iv.factor == pytest.approx(factor)
    assert iv.low == pytest.approx(110 / factor) and iv.high == pytest.approx(110 * factor)
    wide = stats.geo_interval([0.2, 3.0, 1.0])      # java-vt's kind of spread: ± on the raw scale went negative
    assert wide.low > 0 and wide.low < wide.mean < wide.high
    assert stats.geo_interval([5.0]).low is None and stats.geo_interval([]).mean is None


def _rounds(means, noise, effects=(1.0, 1.0, 1.0)):
    """Per-round figures: each server's mean × the round's host effect × its own noise of that round."""
    return {n: {("run", i + 1): m * effects[i] * noise[n][i] for i in range(len(effects))} for n, m in means.items()}


MEANS = {"A": 100.0, "B": 97.0, "C": 94.0, "D": 91.0}
CV3 = (0.97, 1.00, 1.03)     # three rounds with sd = 3 % of the mean: the host's round effect


def test_four_servers_3_percent_apart_are_below_the_minimum_effect():
    """100/97/94/91 in 3 shared rounds with a 3 % host effect and ±0.5 % of each server's own noise: the paired test
    removes the host, and every pair is significant after Holm — but 3 % steps are below MIN_EFFECT (5 %), so
    only the pairs at least 5 % apart count (A-C 6 %, A-D 9 %, B-D 6 %): A and B share rank 1, C has one server
    proven better (2), D two (3)."""
    jitter = {"A": (1.0, 1.005, 0.995), "B": (0.995, 1.0, 1.005), "C": (1.005, 0.995, 1.0),
              "D": (1.005, 1.0, 0.995)}
    ranking = stats.rank(_rounds(MEANS, jitter, CV3))
    assert ranking.family == 6 and ranking.order == ["A", "B", "C", "D"]
    for (a, b), v in ranking.pairs.items():
        assert v.p_adjusted < 0.05, (a, b)                     # every difference is real…
        assert v.significant == (abs(math.log(v.ratio)) >= math.log(1.05)), (a, b)   # …but only ≥ 5 % counts
    assert [ranking.labels[n] for n in ranking.order] == ["1=", "1=", "2", "3"]
    assert "moderated paired t" in ranking.pairs[("A", "D")].method


def test_moderation_by_hand_and_what_it_buys():
    """Six servers, 3 rounds: the test of a pair uses its own variance shrunk toward the prior fitted to all 15
    pairs, with the prior's degrees of freedom added — by hand here — and separates pairs the plain paired t-test
    (2 degrees of freedom each) cannot."""
    rng = np.random.default_rng(3)
    means = {f"s{i}": 2.0 ** i for i in range(6)}                      # 1, 2, 4 … 32: every pair ≥ 2×
    noise = {n: tuple(np.exp(rng.normal(0, 0.08, 3))) for n in means}
    items = _rounds(means, noise, (1.0, 1.2, 0.9))
    moderated_ranking = stats.rank(items, higher_better=False)
    plain = stats.rank(items, higher_better=False, moderate=False)
    names = list(means)
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    own = {}
    for a, b in pairs:
        d = np.log([items[b][k] / items[a][k] for k in items[a]])
        own[(a, b)] = (d.mean(), d.var(ddof=1))
    prior = moderated.fit_prior([v for _, v in own.values()], [2] * 15)
    raw = []
    for a, b in pairs:
        mean, var = own[(a, b)]
        post = prior.posterior(var, 2)
        df = min(2 + prior.df, (6 - 1) * (3 - 1))
        p = 2 * sps.t.sf(abs(mean / math.sqrt(post / 3)), df)
        assert moderated_ranking.verdict(a, b).p_value == pytest.approx(p)
        raw.append(p)
    assert [moderated_ranking.verdict(a, b).p_adjusted for a, b in pairs] == pytest.approx(stats.holm(raw))
    assert [moderated_ranking.labels[n] for n in moderated_ranking.order] == ["1", "2", "3", "4", "5", "6"]
    assert sum(v.significant for v in plain.pairs.values()) < 15 == sum(
        v.significant for v in moderated_ranking.pairs.values())


def test_ranks_are_shown_in_order_and_ratio_intervals_are_simultaneous():
    """A noisy server whose geometric mean sits between two others but is separated from none is shown after the
    ranks it cannot be placed between ("no 2 between 1= rows"), and every pair carries b/a with an interval
    simultaneous over the family."""
    rng = np.random.default_rng(11)
    means = {"quiet1": 1.0, "quiet2": 1.02, "noisy": 1.5, "quiet3": 3.0, "quiet4": 3.1}
    sd = {"quiet1": 0.01, "quiet2": 0.01, "noisy": 0.6, "quiet3": 0.01, "quiet4": 0.01}
    noise = {n: tuple(np.exp(rng.normal(0, sd[n], 3))) for n in means}
    ranking = stats.rank(_rounds(means, noise), higher_better=False)
    ranks = [ranking.tiers[n] for n in ranking.order]
    assert ranks == sorted(ranks)                               # shown by rank: never a 2 between 1= rows
    for v in ranking.pairs.values():
        assert 0 < v.ratio_low <= v.ratio <= v.ratio_high
    v = ranking.verdict("quiet1", "quiet3")
    assert v.significant and v.ratio == pytest.approx(3.0, rel=0.05) and "×" in v.text


def test_comparison_with_the_best_is_its_own_family():
    """The leader against each other candidate: k - 1 tests, Holm within them — a per-language answer among 2
    candidates is one test, at alpha, not one of the whole ranking's 10."""
    rng = np.random.default_rng(5)
    means = {"a": 1.0, "b": 1.3, "c": 1.35, "d": 2.0, "e": 2.1}
    noise = {n: tuple(np.exp(rng.normal(0, 0.05, 3))) for n in means}
    ranking = stats.rank(_rounds(means, noise, (1.0, 0.8, 1.1)), higher_better=False)
    best = stats.leader_tests(ranking)
    assert best.leader == "a" and best.family == 4
    raw = [ranking.raw[("a", o)].p_value for o in ("b", "c", "d", "e")]
    assert [best.tests[o].p_adjusted for o in ("b", "c", "d", "e")] == pytest.approx(stats.holm(raw))
    two = stats.leader_tests(ranking, ["b", "c"])
    assert two.leader == "b" and two.family == 1
    assert two.tests["c"].p_adjusted == pytest.approx(ranking.raw[("b", "c")].p_value)
    assert stats.leader_tests(ranking, ["a", "b"], exclude=["a"]).leader == "b"


def test_below_three_runs_nothing_is_claimed():
    """Two runs each of 100 vs 50 (a huge gap): still no tier, no rank. A 1-run row next to 3-run rows is
    ordered but unranked, and the 3-run rows are tiered among themselves."""
    two = stats.rank({"a": {1: 100.0, 2: 101.0}, "b": {1: 50.0, 2: 51.0}})
    assert two.labels == {"a": None, "b": None} and two.tiers == {"a": None, "b": None} and two.family == 0
    mixed = stats.rank({"x": {1: 500.0}, "a": {1: 100.0, 2: 101.0, 3: 99.0}, "b": {1: 50.0, 2: 51.0, 3: 49.0}})
    assert mixed.order == ["a", "b", "x"]
    assert mixed.labels == {"x": None, "a": "1", "b": "2"}
    assert stats.not_tested_text(1) == "1 run — not tested"
    changes = stats.change_tests({"x": {1: 100.0}}, {"x": {1: 50.0}})
    assert not changes.verdicts["x"].tested and changes.verdicts["x"].text.startswith("not tested")


def test_change_tests_centre_on_the_round_and_compare_itself_to_nothing():
    """Five servers measured twice: NEW is 20 % slower for every server (the host), and e is 30 % slower still.
    Centred on each round's median server, only e changed, and the shared ×0.8 is said apart; a run against
    itself changes nothing."""
    rng = np.random.default_rng(2)
    means = {n: m for n, m in zip("abcde", (100.0, 200.0, 300.0, 400.0, 500.0))}
    old = {n: {("o", r): m * math.exp(rng.normal(0, 0.03)) for r in range(3)} for n, m in means.items()}
    new = {n: {("n", r): m * 0.8 * (0.7 if n == "e" else 1.0) * math.exp(rng.normal(0, 0.03)) for r in range(3)}
           for n, m in means.items()}
    changes = stats.change_tests(old, new)
    assert changes.centred and changes.shared_shift == pytest.approx(0.8, rel=0.05)
    assert [n for n, v in changes.verdicts.items() if v.significant] == ["e"]
    assert changes.verdicts["e"].ratio == pytest.approx(0.7, rel=0.06) and changes.family == 5
    absolute = stats.change_tests(old, new, exclude_from_centre=list(means))
    assert not absolute.centred and sum(v.significant for v in absolute.verdicts.values()) == 5
    itself = stats.change_tests(old, old)
    assert not any(v.significant for v in itself.verdicts.values())
    assert all(v.relative == pytest.approx(0.0, abs=1e-12) and v.p_value == pytest.approx(1.0)
               for v in itself.verdicts.values())


def test_order_held_and_round_ratios():
    a = {1: 100.0, 2: 90.0, 3: 100.0, 4: 80.0}
    b = {1: 95.0, 2: 95.0, 3: 99.0}
    assert stats.order_held(a, b) == (2, 3)
    assert stats.order_held(a, b, higher_better=False) == (1, 3)
    ratios = stats.round_ratios({1: {"a": 100.0, "b": 50.0, "c": 80.0}, 2: {"a": 10.0}})
    centre = (100.0 * 50.0 * 80.0) ** (1 / 3)                              # geometric mean; round 2 has one server
    assert ratios == {"a": {1: pytest.approx(100 / centre)}, "b": {1: pytest.approx(50 / centre)},
                      "c": {1: pytest.approx(80 / centre)}}
    # the middle server is not 1 by construction (it would be with the median)
    assert ratios["c"][1] != pytest.approx(1.0)


def test_verdict_text():
    assert "p = " in stats.Verdict(True, "Welch", 1.0, 0.1, p_value=0.01).text
    assert "Holm-adjusted 0.04" in stats.Verdict(True, "Welch", 1.0, 0.1, p_value=0.01).adjusted(0.04).text
    assert "×1.10" in stats.Verdict(True, "x", 1.0, 0.1, p_value=0.01).text
    assert stats.Verdict(False, "x", None, None).text.startswith("not tested")

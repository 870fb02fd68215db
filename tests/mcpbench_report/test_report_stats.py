"""mcpbench_report.stats against hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest

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


def test_welch_by_hand_and_against_scipy():
    # [1,2,3] vs [4,5,6]: t = -3 / sqrt(2/3) = -3.674235, df = 4, two-sided p = 0.021311
    assert stats.welch([1, 2, 3], [4, 5, 6]) == pytest.approx(0.021311, abs=1e-5)
    scipy_stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(1)
    for _ in range(5):
        a, b = rng.normal(100, 3, 4), rng.normal(103, 8, 3)
        assert stats.welch(a, b) == pytest.approx(scipy_stats.ttest_ind(a, b, equal_var=False).pvalue, rel=1e-9)
    assert stats.welch([5, 5, 5], [5, 5, 5]) == 1.0
    assert stats.welch([5, 5, 5], [6, 6, 6]) == 0.0


def test_why_not_mann_whitney_with_three_runs():
    """The methodology's claim: with 3 runs against 3 runs, Mann-Whitney U can never reach p < 0.05."""
    scipy_stats = pytest.importorskip("scipy.stats")
    p = scipy_stats.mannwhitneyu([1, 2, 3], [10, 11, 12], alternative="two-sided", method="exact").pvalue
    assert p == pytest.approx(0.1)
    assert stats.welch([1, 2, 3], [10, 11, 12]) < stats.ALPHA


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
    assert e == {"per_core": 400.0, "per_gb": 400.0}
    assert stats.efficiency(200.0, None, 0.0) == {"per_core": None, "per_gb": None}


def test_slo_peak():
    levels = [
        {"load": 1, "p99": 5.0, "error_rate": 0.0, "dropped_iterations": 0, "throughput": 50},
        {"load": 10, "p99": 80.0, "error_rate": 0.0, "dropped_iterations": 0, "throughput": 300},
        {"load": 50, "p99": 90.0, "error_rate": 0.05, "dropped_iterations": 0, "throughput": 310},   # errors
        {"load": 100, "p99": 99.0, "error_rate": 0.0, "dropped_iterations": 12, "throughput": 320},  # dropped
        {"load": 200, "p99": 400.0, "error_rate": 0.0, "dropped_iterations": 0, "throughput": 330},  # too slow
    ]
    assert stats.slo_peak(levels, 100.0)["load"] == 10
    assert stats.slo_peak(levels, 4.0) is None
    assert stats.slo_peak(levels, 500.0)["load"] == 200


def test_t_and_welch_come_from_scipy():
    """The hand-written Student-t quantile and Welch test were replaced by scipy.stats: same results."""
    scipy_stats = pytest.importorskip("scipy.stats")
    assert stats.t_quantile(0.975, 2) == scipy_stats.t.ppf(0.975, 2)
    assert stats.welch([100, 102, 104], [90, 93, 95]) == scipy_stats.ttest_ind(
        [100, 102, 104], [90, 93, 95], equal_var=False).pvalue


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


def test_power_says_what_holm_needs():
    """10 servers, 3 rounds: 45 pairs, so the strongest pair needs p < 0.0011 — python vs rust at 1.89x with
    p = 0.00145 (the issue's reading) cannot count; that is too few rounds, not equality."""
    power = stats.holm_power(45, 3)
    assert power["p_needed"] == pytest.approx(0.05 / 45) and 0.00145 > power["p_needed"]
    assert power["t_needed"] == pytest.approx(pytest.importorskip("scipy.stats").t.ppf(1 - 0.05 / 90, 2))
    assert "more rounds" in power["text"] and stats.holm_power(0, 3) is None
    assert stats.rank_labels([1, 2, 2, 3]) == ["1", "2=", "2=", "3"]


def test_holm_by_hand():
    # sorted 0.01, 0.02, 0.04 of m = 3: x3 = 0.03, x2 = 0.04, x1 = 0.04 (monotone), in input order
    assert stats.holm([0.04, 0.01, 0.02]) == pytest.approx([0.04, 0.03, 0.04])
    assert stats.holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])     # 0.5 x 2 capped at 1; 0.9 x 1 raised to 1
    assert stats.holm([]) == []


def test_paired_log_by_hand():
    # log ratios d = log(a/b) = log 1.1, log 1.2, log 1.15: t = mean / (sd / sqrt 3), df 2
    a, b = [110.0, 120.0, 115.0], [100.0, 100.0, 100.0]
    d = np.log(np.array(a) / np.array(b))
    t = d.mean() / (d.std(ddof=1) / math.sqrt(3))
    scipy_stats = pytest.importorskip("scipy.stats")
    assert stats.paired_log(a, b) == pytest.approx(2 * scipy_stats.t.sf(abs(t), 2))
    assert stats.paired_log([1, 2, 3], [1, 2, 3]) == 1.0
    assert stats.paired_log([2, 4, 6], [1, 2, 3]) == 0.0          # a constant ratio: no variance at all


def _p_welch(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    t = (a.mean() - b.mean()) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / (a.size - 1) + vb ** 2 / (b.size - 1))
    return 2 * pytest.importorskip("scipy.stats").t.sf(abs(t), df)


MEANS = {"A": 100.0, "B": 97.0, "C": 94.0, "D": 91.0}
CV3 = (0.97, 1.00, 1.03)     # three runs with sd = 3 % of the mean: CV 3 %


def test_four_servers_100_97_94_91_independent_runs():
    """100/97/94/91, 3 runs each, CV 3 %, no shared rounds (independent runs: Welch).

    Neighbour chaining called all four "1=" though first vs last differ: Welch p = 0.0187 (by hand below).
    The leader rule compares with the leader, but the family is every pair of the ranking (6 tests) and
    Holm multiplies the smallest p by 6: 0.112 > 0.05. With 3 runs and a 3 % CV no gap survives the
    correction, so all four stay "1=" — now because of the correction, not the chaining (next test)."""
    items = {n: {(n, i): m * f for i, f in enumerate(CV3)} for n, m in MEANS.items()}
    p_ad = _p_welch([100 * f for f in CV3], [91 * f for f in CV3])
    assert p_ad == pytest.approx(0.0187, abs=5e-4)
    ranking = stats.rank(items)
    assert ranking.family == 6
    assert ranking.pairs[("A", "D")].p_value == pytest.approx(p_ad)
    assert ranking.pairs[("A", "D")].p_adjusted == pytest.approx(6 * p_ad)
    assert [ranking.labels[n] for n in ranking.order] == ["1=", "1=", "1=", "1="]
    assert "Welch" in ranking.pairs[("A", "D")].method


def test_four_servers_100_97_94_91_paired_rounds():
    """The same means and 3 % round-to-round CV, measured in 3 shared rounds: the host's round effect
    (x0.97, x1.00, x1.03) hits every server of a round, plus +-0.5 % of each server's own noise. The paired
    test on log ratios removes the round effect; by hand (t on the log differences, df 2, Holm over 6):
    every gap is significant, so the four servers are NOT "1=": 1, 2, 3, 4."""
    jitter = {"A": (1.0, 1.005, 0.995), "B": (0.995, 1.0, 1.005), "C": (1.005, 0.995, 1.0),
              "D": (1.005, 1.0, 0.995)}
    items = {n: {("run", i + 1): m * CV3[i] * jitter[n][i] for i in range(3)} for n, m in MEANS.items()}
    for runs in items.values():
        assert stats.cv(list(runs.values())) == pytest.approx(0.03, abs=0.006)
    scipy_stats = pytest.importorskip("scipy.stats")
    raw = {}
    for a, b in [("A", "B"), ("A", "C"), ("A", "D"), ("B", "C"), ("B", "D"), ("C", "D")]:
        d = np.log(np.array(list(items[a].values())) / np.array(list(items[b].values())))
        raw[(a, b)] = 2 * scipy_stats.t.sf(abs(d.mean() / (d.std(ddof=1) / math.sqrt(3))), 2)
    order = sorted(raw, key=raw.get)
    holm, running = {}, 0.0
    for i, k in enumerate(order):
        running = max(running, min(1.0, (6 - i) * raw[k]))
        holm[k] = running
    assert max(holm.values()) < 0.05
    ranking = stats.rank(items)
    for k in raw:
        assert ranking.pairs[k].p_value == pytest.approx(raw[k])
        assert ranking.pairs[k].p_adjusted == pytest.approx(holm[k])
        assert "paired" in ranking.pairs[k].method
    assert [ranking.labels[n] for n in ranking.order] == ["1", "2", "3", "4"]


def test_leader_rule_is_not_neighbour_chaining():
    """CV 2 %, independent runs: no neighbour gap is significant, so chaining gave "1=" to all four. Against
    the leader, 100 vs 91 has p = 0.0046, x6 (Holm) = 0.028 < 0.05; the next smallest (97 vs 91, p = 0.018)
    x5 = 0.09 fails, so only D leaves tier 1: 1=, 1=, 1=, 2."""
    cv2 = (0.98, 1.0, 1.02)
    items = {n: {(n, i): m * f for i, f in enumerate(cv2)} for n, m in MEANS.items()}
    assert _p_welch([100 * f for f in cv2], [91 * f for f in cv2]) * 6 == pytest.approx(0.028, abs=2e-3)
    for a, b in [(100, 97), (97, 94), (94, 91)]:
        assert _p_welch([a * f for f in cv2], [b * f for f in cv2]) > 0.05     # no neighbour is significant
    ranking = stats.rank(items)
    assert [ranking.labels[n] for n in ranking.order] == ["1=", "1=", "1=", "2"]
    assert ranking.vs_leader["D"][0] == "A" and ranking.vs_leader["D"][1].significant


def test_below_three_runs_nothing_is_claimed():
    """Two runs each of 100 vs 50 (a huge gap): still no tier, no rank. A 1-run row next to 3-run rows is
    ordered but unranked, and the 3-run rows are tiered among themselves."""
    two = stats.rank({"a": {1: 100.0, 2: 101.0}, "b": {1: 50.0, 2: 51.0}})
    assert two.labels == {"a": None, "b": None} and two.tiers == {"a": None, "b": None} and two.family == 0
    mixed = stats.rank({"x": {1: 500.0}, "a": {1: 100.0, 2: 101.0, 3: 99.0}, "b": {1: 50.0, 2: 51.0, 3: 49.0}})
    assert mixed.order == ["x", "a", "b"]
    assert mixed.labels == {"x": None, "a": "1", "b": "2"}
    assert stats.not_tested_text(1) == "1 run — not tested"
    v = stats.change_test([100.0], [50.0])
    assert not v.tested and not v.significant and v.text.startswith("not tested")


def test_change_test_uses_welch_with_runs():
    clear = stats.change_test([100, 101, 99], [90, 91, 89])
    assert clear.significant and clear.p_value < 0.01 and clear.diff == pytest.approx(-10)
    assert clear.relative == pytest.approx(-0.1) and "Welch" in clear.method
    assert not stats.change_test([100, 110, 90], [95, 105, 85]).significant
    pooled = stats.change_test([10, 11, 10.5], [20, 21, 19], 10.4, 20.2)   # the figure shown: pooled p99
    assert pooled.diff == pytest.approx(9.8) and pooled.significant
    small = clear.adjusted(0.001, min_effect=0.2)          # significant, but smaller than the minimum effect
    assert not small.significant and small.p_adjusted == 0.001


def test_pair_test_paired_or_welch():
    a = {("r", 1): 100.0, ("r", 2): 110.0, ("r", 3): 90.0}
    b = {("r", 1): 95.0, ("r", 2): 104.5, ("r", 3): 85.5}   # 5 % below in every round
    v = stats.pair_test(a, b)
    assert "paired" in v.method and v.p_value == 0.0 and v.n == 3
    unshared = {("s", i): x for i, x in enumerate(b.values())}
    assert "Welch" in stats.pair_test(a, unshared).method


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


def test_cpu_ms_per_call_is_the_orchestrators():
    from mcpbench.analysis import summary as analysis

    # 50 % of a core at 200 calls/s = 500 ms of CPU per second / 200 calls = 2.5 ms per call
    assert stats.cpu_ms_per_call(50.0, 200.0) == pytest.approx(2.5)
    assert analysis.efficiency({"tool_calls_per_s": 200.0}, {"server": {"cpu_avg_pct": 50.0}})[
        "cpu_ms_per_call"] == pytest.approx(2.5)
    assert stats.cpu_ms_per_call(None, 200.0) is None and stats.cpu_ms_per_call(50.0, 0.0) is None


def test_verdict_text():
    assert "p = " in stats.Verdict(True, "Welch", 1.0, 0.1, p_value=0.01).text
    assert "Holm-adjusted 0.04" in stats.Verdict(True, "Welch", 1.0, 0.1, p_value=0.01).adjusted(0.04).text
    assert stats.Verdict(False, "x", None, None).text.startswith("not tested")

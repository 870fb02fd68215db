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


def test_tiers_and_labels():
    assert stats.tiers([]) == [1]
    assert stats.tiers([True, False, True]) == [1, 2, 2, 3]
    assert stats.rank_labels([1, 2, 2, 3]) == ["1", "2=", "2=", "3"]
    assert stats.rank_labels([1, 1]) == ["1=", "1="]


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


def test_throughput_difference_with_runs_uses_welch():
    clear = stats.throughput_difference([100, 101, 99], [90, 91, 89], [], [])
    assert clear.significant and clear.p_value < 0.01 and clear.diff == pytest.approx(-10)
    assert clear.relative == pytest.approx(-0.1)
    assert "Welch" in clear.method and not clear.few_runs
    noisy = stats.throughput_difference([100, 110, 90], [95, 105, 85], [], [])
    assert not noisy.significant


def test_throughput_difference_single_run_bootstrap():
    rng = np.random.default_rng(7)
    base = [rng.normal(200, 4, 60)]
    same = [rng.normal(200, 4, 60)]
    far = [rng.normal(160, 4, 60)]
    near = [rng.normal(196, 1, 60)]   # clearly different inside the run, but only 2 %: below the allowance
    assert not stats.throughput_difference([200], [200], base, same).significant
    v = stats.throughput_difference([200.0], [160.0], base, far)
    assert v.significant and v.few_runs and v.low < 0 and v.high < 0
    tight = [rng.normal(200, 1, 60)]
    v = stats.throughput_difference([200.0], [196.0], tight, near)
    assert v.high < 0          # the interval excludes zero ...
    assert not v.significant   # ... but a 2 % gap from one run each is not claimed


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


def test_bootstrap_quantile_recovers_p99():
    rng = np.random.default_rng(3)
    lat = rng.lognormal(1.0, 0.5, 6000)
    t = np.sort(rng.uniform(10, 40, lat.size))
    edges = stats.log_bins(lat)
    dist = stats.bootstrap_quantile([(lat, t, (10.0, 40.0))], 0.99, edges, np.random.default_rng(0), resamples=400)
    assert np.median(dist) == pytest.approx(np.percentile(lat, 99), rel=0.05)


def test_p99_difference():
    rng = np.random.default_rng(5)

    def run(scale):
        lat = rng.lognormal(np.log(scale), 0.4, 4000)
        return lat, np.sort(rng.uniform(0, 20, lat.size)), (0.0, 20.0)

    a, b, c = run(10), run(10), run(20)
    p = lambda r: float(np.percentile(r[0], 99))  # noqa: E731
    same = stats.p99_difference([p(a)], [p(b)], p(a), p(b), [a], [b])
    assert not same.significant and same.few_runs
    worse = stats.p99_difference([p(a)], [p(c)], p(a), p(c), [a], [c])
    assert worse.significant and worse.diff > 0
    welch = stats.p99_difference([10, 11, 10.5], [20, 21, 19], 10.5, 20.0, [], [])
    assert welch.significant and "Welch" in welch.method


def test_verdict_text():
    assert "p = " in stats.Verdict(True, "Welch", 1.0, 0.1, p_value=0.01).text
    assert stats.Verdict(False, "x", None, None).text.startswith("not tested")

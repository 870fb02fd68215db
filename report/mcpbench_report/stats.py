"""Statistics of the report: run-to-run spread, confidence intervals, significance, tiers, SLO peak.

Pure functions on numbers and arrays (no file access), so each can be checked against hand-computed
values. Latency percentiles are never computed here from other percentiles: callers pool the raw samples
and use :func:`mcpbench.stats.latency_stats`.

The rules (also rendered, from these constants, on the methodology page):

- Throughput: the run is the unit. Mean of the per-run figures, sample standard deviation, CV = sd/mean,
  95 % confidence interval from Student's t with n-1 degrees of freedom (n >= 2 runs). With a single run
  the interval is a moving-block bootstrap over the per-second throughput of the measured window and is
  labelled "within-run": it shows the noise inside the run, not the run-to-run variation.
- Two servers differ when, with >= MIN_RUNS_FOR_TEST runs each, Welch's t-test over their per-run
  figures gives p < ALPHA. Mann-Whitney U is not used: with 3 runs against 3 its smallest possible
  two-sided p-value is 0.10, so it could never separate anything at the usual run counts.
- With fewer runs a moving-block bootstrap over per-second throughput (blocks keep the autocorrelation)
  gives a 95 % interval of the difference; the servers differ only when the interval excludes zero AND
  the difference exceeds MIN_EFFECT_FEW_RUNS, an allowance for the run-to-run variation one run cannot
  show. Such a verdict is marked as few-run evidence.
- Tiers: servers sorted by mean throughput; a new tier starts where a server is significantly below the
  one ranked just above it. Servers in one tier share its rank.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special

CONFIDENCE = 0.95
ALPHA = 0.05
MIN_RUNS_FOR_TEST = 3
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20261121
MIN_EFFECT_FEW_RUNS = 0.05       # relative throughput difference required with < MIN_RUNS_FOR_TEST runs
MIN_EFFECT_P99_FEW_RUNS = 0.10   # relative p99 difference required with < MIN_RUNS_FOR_TEST runs
HISTOGRAM_BINS = 4096            # log-spaced bins for bootstrapping p99 (relative bin width ~0.2 % or less)
SLO_MAX_ERROR_RATE = 0.01        # a load level meets the SLO only with at most 1 % failed tool calls


@dataclass(frozen=True)
class Interval:
    n: int
    mean: float | None
    std: float | None
    cv: float | None
    low: float | None
    high: float | None
    method: str

    def as_dict(self) -> dict:
        return {"n": self.n, "mean": self.mean, "std": self.std, "cv": self.cv, "ci_low": self.low,
                "ci_high": self.high, "ci_method": self.method}


@dataclass(frozen=True)
class Verdict:
    """Is b different from a? diff = b - a (relative = diff / a)."""

    significant: bool
    method: str
    diff: float | None
    relative: float | None
    p_value: float | None = None
    low: float | None = None
    high: float | None = None
    few_runs: bool = False

    @property
    def text(self) -> str:
        if self.diff is None:
            return f"not tested ({self.method})"
        if self.p_value is not None:
            evidence = f"p = {self.p_value:.3g}, {self.method}"
        elif self.low is not None:
            evidence = f"95 % CI of difference [{self.low:.3g}, {self.high:.3g}], {self.method}"
        else:
            evidence = self.method
        return ("significant" if self.significant else "not significant") + f" ({evidence})"


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


def t_quantile(q: float, df: float) -> float:
    """Quantile of Student's t distribution (scipy.special, without importing all of scipy.stats)."""
    return float(special.stdtrit(df, q))


def welch(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided p-value of Welch's t-test (unequal variances, Welch-Satterthwaite degrees of freedom).

    Needs >= 2 values on each side; identical constant samples give 1, different constant ones 0."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    if va + vb == 0:
        return 1.0 if a.mean() == b.mean() else 0.0
    t = (a.mean() - b.mean()) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / (a.size - 1) + vb ** 2 / (b.size - 1))
    return float(2 * special.stdtr(df, -abs(t)))


def throughput_difference(a_runs: Sequence[float], b_runs: Sequence[float],
                          a_seconds: Sequence[np.ndarray], b_seconds: Sequence[np.ndarray]) -> Verdict:
    """Whether b's throughput differs from a's (see the module docstring for the rule)."""
    a_mean, b_mean = float(np.mean(a_runs)), float(np.mean(b_runs))
    diff = b_mean - a_mean
    relative = diff / a_mean if a_mean else None
    if len(a_runs) >= MIN_RUNS_FOR_TEST and len(b_runs) >= MIN_RUNS_FOR_TEST:
        p = welch(a_runs, b_runs)
        return Verdict(p < ALPHA, f"Welch t-test, {len(a_runs)} vs {len(b_runs)} runs", diff, relative, p_value=p)
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    da, db = bootstrap_means(a_seconds, rng), bootstrap_means(b_seconds, rng)
    method = f"block bootstrap over seconds, {len(a_runs)} vs {len(b_runs)} runs"
    if da is None or db is None:
        return Verdict(False, method + ": window too short", diff, relative, few_runs=True)
    lo, hi = np.percentile(db - da, [50 * (1 - CONFIDENCE), 100 - 50 * (1 - CONFIDENCE)])
    big_enough = relative is not None and abs(relative) >= MIN_EFFECT_FEW_RUNS
    significant = bool((lo > 0 or hi < 0) and big_enough)
    return Verdict(significant, method, diff, relative, low=float(lo), high=float(hi), few_runs=True)


def tiers(significant_below: Sequence[bool]) -> list[int]:
    """Tier of each of n+1 items sorted best-first, given n flags: is item i+1 significantly below item i."""
    out = [1]
    for sig in significant_below:
        out.append(out[-1] + 1 if sig else out[-1])
    return out


def rank_labels(tier_numbers: Sequence[int]) -> list[str]:
    """'1', '2=', '2=', '3': a shared tier is marked '='."""
    counts: dict[int, int] = {}
    for t in tier_numbers:
        counts[t] = counts.get(t, 0) + 1
    return [f"{t}=" if counts[t] > 1 else str(t) for t in tier_numbers]


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


# --- p99 comparison (compare OLD NEW) -------------------------------------------------------------


def log_bins(*arrays: np.ndarray, bins: int = HISTOGRAM_BINS) -> np.ndarray:
    values = np.concatenate([np.asarray(a, dtype=float) for a in arrays])
    values = values[values > 0]
    lo, hi = (values.min(), values.max()) if values.size else (1.0, 2.0)
    return np.geomspace(lo * 0.999, hi * 1.001, bins + 1)


def _second_histograms(latency: np.ndarray, t_s: np.ndarray, window: tuple[float, float],
                       edges: np.ndarray) -> np.ndarray:
    start, end = window
    n = max(1, int(math.floor(end - start + 1e-9)))
    sec = np.clip(np.floor(np.asarray(t_s) - start).astype(int), 0, n - 1)
    b = np.clip(np.searchsorted(edges, latency, side="right") - 1, 0, len(edges) - 2)
    hist = np.zeros((n, len(edges) - 1), dtype=np.int32)
    np.add.at(hist, (sec, b), 1)
    return hist


def bootstrap_quantile(runs: Sequence[tuple[np.ndarray, np.ndarray, tuple[float, float]]], q: float,
                       edges: np.ndarray, rng: np.random.Generator,
                       resamples: int = BOOTSTRAP_RESAMPLES) -> np.ndarray | None:
    """Moving-block bootstrap distribution of the q-quantile (0..1) of pooled latencies.

    runs: (latencies, end times, window) per run. Seconds are resampled in blocks per run; a resample's
    quantile is read from the summed histograms over `edges` (log bins), at the bin's geometric centre.
    """
    block_hists = []
    for latency, t_s, window in runs:
        if len(latency) == 0:
            continue
        hist = _second_histograms(latency, t_s, window, edges)
        n = hist.shape[0]
        length = block_length(n)
        csum = np.concatenate([np.zeros((1, hist.shape[1]), dtype=np.int64), np.cumsum(hist, axis=0)])
        blocks = (csum[length:] - csum[:-length]).astype(np.int32)
        block_hists.append((blocks, math.ceil(n / length)))
    if not block_hists:
        return None
    centres = np.sqrt(edges[:-1] * edges[1:])
    out = np.empty(resamples)
    chunk = 100
    for s in range(0, resamples, chunk):
        m = min(chunk, resamples - s)
        total = np.zeros((m, len(centres)), dtype=np.int64)
        for blocks, k in block_hists:
            idx = rng.integers(0, blocks.shape[0], size=(m, k))
            total += blocks[idx].sum(axis=1)
        cum = np.cumsum(total, axis=1)
        target = q * cum[:, -1:]
        pos = (cum < target).sum(axis=1)
        out[s:s + m] = centres[np.clip(pos, 0, len(centres) - 1)]
    return out


def p99_difference(a_runs_p99: Sequence[float], b_runs_p99: Sequence[float], a_pooled: float, b_pooled: float,
                   a_samples: Sequence[tuple], b_samples: Sequence[tuple]) -> Verdict:
    """Whether b's pooled p99 differs from a's. >= MIN_RUNS_FOR_TEST runs each: Welch over per-run p99
    (a test statistic only; the figure shown stays the pooled p99); otherwise a moving-block bootstrap
    of the pooled p99, significant when its 95 % interval of the difference excludes zero and the
    difference exceeds MIN_EFFECT_P99_FEW_RUNS."""
    diff = b_pooled - a_pooled
    relative = diff / a_pooled if a_pooled else None
    if len(a_runs_p99) >= MIN_RUNS_FOR_TEST and len(b_runs_p99) >= MIN_RUNS_FOR_TEST:
        p = welch(a_runs_p99, b_runs_p99)
        return Verdict(p < ALPHA, f"Welch t-test on per-run p99, {len(a_runs_p99)} vs {len(b_runs_p99)} runs",
                       diff, relative, p_value=p)
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    edges = log_bins(*(s[0] for s in a_samples), *(s[0] for s in b_samples))
    da = bootstrap_quantile(a_samples, 0.99, edges, rng)
    db = bootstrap_quantile(b_samples, 0.99, edges, rng)
    method = f"block bootstrap of p99, {len(a_runs_p99)} vs {len(b_runs_p99)} runs"
    if da is None or db is None:
        return Verdict(False, method + ": no samples", diff, relative, few_runs=True)
    lo, hi = np.percentile(db - da, [50 * (1 - CONFIDENCE), 100 - 50 * (1 - CONFIDENCE)])
    big_enough = relative is not None and abs(relative) >= MIN_EFFECT_P99_FEW_RUNS
    return Verdict(bool((lo > 0 or hi < 0) and big_enough), method, diff, relative, low=float(lo), high=float(hi),
                   few_runs=True)

"""Latency and throughput figures computed from raw samples (never from other percentiles), and the paired test
and multiple-comparison correction every ranking uses: the report's and the run's stopping rule (sequential.py)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

# The significance level: what a ranking's family of tests may err at (Holm), and what a whole `--rounds auto`
# run spends over its looks (sequential.py).
ALPHA = 0.05
# The fewest rounds a test rests on: below it nothing is claimed for a server (no rank, no regression, no
# interval), and a `--rounds auto` run's first look comes after it. A paired t-test needs at least 3 rounds.
MIN_ROUNDS = 3

PERCENTILES: dict[str, float] = {"p50": 50, "p90": 90, "p95": 95, "p99": 99, "p999": 99.9}
LATENCY_KEYS = ("count", "avg", "min", *PERCENTILES, "max")


# latency_stats' figures: count, and the rest in ms (None for an empty sample).
Latency = dict[str, float | int | None]


def latency_stats(values: Iterable[float] | np.ndarray) -> Latency:
    """count, avg, min, p50, p90, p95, p99, p999, max of raw latency samples (ms).

    Percentiles use linear interpolation between order statistics (numpy's default), which is what
    k6 does too; an empty sample gives count 0 and None elsewhere rather than a made-up zero.
    """
    data = np.asarray(list(values) if not isinstance(values, np.ndarray) else values, dtype=float)
    if data.size == 0:
        return {key: (0 if key == "count" else None) for key in LATENCY_KEYS}
    quantiles = np.percentile(data, list(PERCENTILES.values()))
    figures: dict[str, float | int | None] = {
        "count": int(data.size),
        "avg": float(data.mean()),
        "min": float(data.min()),
    }
    figures.update({name: float(q) for name, q in zip(PERCENTILES, quantiles, strict=True)})
    figures["max"] = float(data.max())
    return figures


def paired_log(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided p-value of a paired t-test on log(a) - log(b) (scipy.stats.ttest_rel on the logs).

    a[i] and b[i] come from the same round. Constant differences give 1 when zero, else 0."""
    la, lb = np.log(np.asarray(a, dtype=float)), np.log(np.asarray(b, dtype=float))
    d = la - lb
    if np.ptp(d) <= 1e-12:   # a constant ratio (up to rounding of the logs): no variance to test against
        return 1.0 if abs(d.mean()) <= 1e-12 else 0.0
    from scipy import stats as sps  # here, not at import: 0.5-2 s that most commands never use

    return float(sps.ttest_rel(la, lb).pvalue)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the input order: sorted ascending, the i-th (0-based) of m is
    multiplied by m - i, made non-decreasing, capped at 1. Reject H_i when adjusted p_i < ALPHA."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    out = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        out[i] = running
    return out

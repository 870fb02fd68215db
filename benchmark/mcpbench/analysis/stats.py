"""Latency and throughput figures computed from raw samples: never from other percentiles."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

PERCENTILES: dict[str, float] = {"p50": 50, "p90": 90, "p95": 95, "p99": 99, "p999": 99.9}
LATENCY_KEYS = ("count", "avg", "min", *PERCENTILES, "max")


def latency_stats(values: Iterable[float] | np.ndarray) -> dict[str, float | int | None]:
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
    figures.update({name: float(q) for name, q in zip(PERCENTILES, quantiles)})
    figures["max"] = float(data.max())
    return figures

"""From raw samples to the figures of one measurement — inside the measured window only."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from .resources import Sample
from .stats import latency_stats
from .workload import TOOL_NAMES

# A harness component is called saturated when its mean CPU over the window reaches this share of what
# it can use (Redis is single-threaded: one core at most).
SATURATION = 0.85
HARNESS = ("k6", "redis", "api")


def in_window(samples: pd.DataFrame, window: tuple[float, float]) -> pd.DataFrame:
    start, end = window
    return samples[(samples["t_s"] >= start) & (samples["t_s"] < end)]


def _http_durations(column: pd.Series) -> np.ndarray:
    joined = ";".join(value for value in column.astype(str) if value)
    return np.array([float(v) for v in joined.split(";") if v], dtype=float) if joined else np.array([])


def throughput(window_samples: pd.DataFrame, seconds: float) -> dict[str, float | int]:
    calls = window_samples[window_samples["tool"].isin(TOOL_NAMES)]
    ok_calls = int(calls["ok"].sum())
    http_requests = int(window_samples["http_ms"].astype(str).map(
        lambda v: len([x for x in v.split(";") if x])).sum())
    return {
        "tool_calls_per_s": ok_calls / seconds,
        "successful_tool_calls": ok_calls,
        "tool_calls": int(len(calls)),
        "v2_rps": http_requests / seconds,
        "http_requests": http_requests,
        "iterations_per_s": int((window_samples["tool"] == "tools/list").sum()) / seconds,
    }


def latency(window_samples: pd.DataFrame) -> dict[str, object]:
    calls = window_samples[window_samples["tool"].isin(TOOL_NAMES)]
    ok_calls = calls[calls["ok"] == 1]
    return {
        "tool_call": latency_stats(ok_calls["call_ms"].dropna().to_numpy()),
        "per_tool": {tool: latency_stats(ok_calls.loc[ok_calls["tool"] == tool, "call_ms"].dropna().to_numpy())
                     for tool in TOOL_NAMES},
        "session": latency_stats(ok_calls["session_ms"].dropna().to_numpy()),
        "http_request": latency_stats(_http_durations(window_samples["http_ms"])),
    }


def errors(window_samples: pd.DataFrame) -> dict[str, object]:
    calls = window_samples[window_samples["tool"].isin(TOOL_NAMES)]
    failed = window_samples[window_samples["ok"] == 0]
    failed_calls = int((calls["ok"] == 0).sum())
    return {
        "count": int(len(failed)),
        "rate": failed_calls / len(calls) if len(calls) else None,
        "kinds": {str(k): int(v) for k, v in failed["error_kind"].value_counts().items()},
    }


def resource_figures(samples: Iterable[Sample], window: tuple[float, float]) -> dict[str, dict[str, float | None]]:
    """avg/peak CPU and memory per component over samples whose time falls in the window."""
    start, end = window
    figures: dict[str, dict[str, float | None]] = {}
    frame = pd.DataFrame([s.__dict__ for s in samples], columns=["t_s", "component", "cpu_pct", "mem_mb"])
    for component, group in frame.groupby("component"):
        inside = group[(group["t_s"] >= start) & (group["t_s"] < end)]
        figures[str(component)] = {
            "cpu_avg_pct": float(inside["cpu_pct"].mean()) if len(inside) else None,
            "cpu_peak_pct": float(inside["cpu_pct"].max()) if len(inside) else None,
            "mem_avg_mb": float(inside["mem_mb"].mean()) if len(inside) else None,
            "mem_peak_mb": float(inside["mem_mb"].max()) if len(inside) else None,
            "samples": int(len(inside)),
        }
    return figures


def bottleneck_flags(resources: dict[str, dict[str, float | None]], harness_cores: int) -> list[str]:
    flags = []
    capacity = 100.0 * max(harness_cores, 1)
    usable = {"k6": capacity, "api": capacity, "redis": min(capacity, 100.0)}
    for component in HARNESS:
        cpu = (resources.get(component) or {}).get("cpu_avg_pct")
        if cpu is not None and cpu >= SATURATION * usable[component]:
            flags.append(f"bound:{component}")
    total = sum((resources.get(c) or {}).get("cpu_avg_pct") or 0.0 for c in HARNESS)
    if total >= SATURATION * capacity and not flags:
        flags.append("bound:harness")
    return flags


# Foreign CPU (the host's busy time minus every component we run) above this share of one core marks
# a measurement as taken on a noisy machine.
FOREIGN_CPU_LIMIT_PCT = 25.0
OWN = ("server", "k6", "redis", "api")


def noisy_host(resources: dict[str, dict[str, float | None]]) -> float | None:
    """Mean foreign CPU % in the window, or None when the host was not sampled."""
    host = (resources.get("host") or {}).get("cpu_avg_pct")
    if host is None:
        return None
    own = sum((resources.get(c) or {}).get("cpu_avg_pct") or 0.0 for c in OWN)
    return max(0.0, host - own)


def summarize(samples: pd.DataFrame, window: tuple[float, float], resource_samples: list[Sample],
              harness_cores: int, limits_applied: bool, rate: float | None = None) -> dict[str, object]:
    seconds = window[1] - window[0]
    inside = in_window(samples, window)
    figures: dict[str, object] = {
        "window": {"start_s": window[0], "end_s": window[1], "seconds": seconds},
        "throughput": throughput(inside, seconds),
        "latency_ms": latency(inside),
        "errors": errors(inside),
        "resources": resource_figures(resource_samples, window),
    }
    flags = bottleneck_flags(figures["resources"], harness_cores)  # type: ignore[arg-type]
    foreign = noisy_host(figures["resources"])  # type: ignore[arg-type]
    figures["foreign_cpu_pct"] = foreign
    if foreign is not None and foreign >= FOREIGN_CPU_LIMIT_PCT:
        flags.append("noisy-host")
    if figures["errors"]["count"]:  # type: ignore[index]
        flags.append("errors")
    if not limits_applied:
        flags.append("cgroup-not-applied")
    if rate:
        # The open model's shortfall: calls the arrival rate asked for in the window but never finished.
        started = int(inside["tool"].isin(TOOL_NAMES).sum())
        dropped = max(0, round(rate * seconds) - started)
        figures["throughput"]["dropped_iterations"] = dropped  # type: ignore[index]
        if dropped > 0.01 * rate * seconds:
            flags.append("dropped-iterations")
    else:
        figures["throughput"]["dropped_iterations"] = 0  # type: ignore[index]
    figures["flags"] = flags
    return figures

"""`mcpbench soak`: does the server leak under a constant load held for a long time?

One open-model measurement per server at a constant arrival rate (given, or a share of the capacity a
`mcpbench capacity` run measured), its process tree read at 1 Hz (processes.csv: RSS, the cgroup's memory,
open file descriptors, threads). After the warm-up, the first stretch of the window is the baseline and
the last stretch the end; each criterion compares the two (medians of the 1 Hz readings, so one GC pause
or one slow second decides nothing). File descriptors and threads are held to the first half's peak, not
its start: connection pools (Redis, HTTP, the load generator's keep-alive connections) open lazily up to
their bound when a latency spike raises the concurrency, which is growth that stops; a leak keeps making
new highs after it:

  alive     the measurement ended ok: a server that crashed or was cut off fails, however flat its memory
  rss       RSS at the end at most RSS_GROWTH_MAX above the baseline
  fds       open file descriptors at the end at most FD_SLACK above the most seen in the window's first half,
            and no rise over the window's second half that its interval proves (FD_LEAK_MIN_PER_H or more)
  threads   threads at the end at most THREAD_SLACK above the most seen in the window's first half
  p99       the all-calls p99 of the last EDGE_BUCKETS buckets at most P99_DRIFT_MAX times that of the first
  errors    failed tool calls over the whole window within the error SLO

A criterion with nothing to judge (FDs unreadable, too few calls or buckets) is "not measured", never a pass.
The memory slope (MiB per hour, least squares) is shown beside the verdicts with a 95 % interval that respects
the autocorrelation of 1 Hz readings (see slope_per_hour): a soak shorter than the leak's time scale cannot
show it, and the slope says how fast memory moved meanwhile.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

from mcpbench.analysis import student_t
from mcpbench.analysis.stats import latency_stats
from mcpbench.analysis.summary import all_calls_latency_ms
from mcpbench.loads import in_window, tool_calls
from mcpbench.loads.timing import SOAK_WARMUP_FULL_S, SOAK_WARMUP_QUICK_S, Timing
from mcpbench.results.layout import MeasurementDir, ServerDir, measurement_dir
from mcpbench.results.model import (
    SOAK_FILE,
    SoakBucket,
    SoakCriteria,
    SoakCriterion,
    SoakJudgement,
    SoakMemory,
    SoakPlan,
    SoakResult,
    SoakSlope,
    SoakSlopes,
    SoakWindow,
)
from mcpbench.results.read import read_json, read_processes, read_samples

RESULT_FILE = SOAK_FILE   # the experiment result this module judges (analysis/recompute.py)



# The pass criteria (issue 12), shown on the report's soak page beside each verdict.
RSS_GROWTH_MAX = 0.15          # end RSS / baseline RSS - 1
FD_SLACK = (4, 0.05)           # FDs may rise by max(4, 5 % of the baseline): a pool opening a spare socket
THREAD_SLACK = (2, 0.10)       # threads may rise by max(2, 10 % of the baseline): a pool growing by one
P99_DRIFT_MAX = 2.0            # end p99 / baseline p99
DEFAULT_ERRORS_MAX = 0.01      # failed tool calls / tool calls over the window
DEFAULT_SHARE = 0.5            # of the measured capacity, when no --rate is given
DEFAULT_DURATION_S = 30 * 60

BUCKET_S = 60.0                # p99 per minute ...
EDGE_BUCKETS = 3               # baseline/end p99: the median over this many buckets at each end, never fewer
MIN_BUCKETS = 3 * EDGE_BUCKETS # ... and at least this many buckets (a short soak gets shorter ones)
FD_LEAK_MIN_PER_H = 4.0        # an FD rise over the second half this fast, its interval above 0, is a leak
EDGE_SHARE = 0.2               # baseline/end of the 1 Hz series: this share of the window at each end ...
EDGE_MAX_S = 120.0             # ... at most this long
MIN_CALLS_PER_BUCKET = 100     # a bucket's p99 needs this many calls to be more than its 2 slowest

QUICK_WARMUP_S, FULL_WARMUP_S = SOAK_WARMUP_QUICK_S, SOAK_WARMUP_FULL_S  # scenarios/timing.py has every preset

class SoakError(ValueError):
    """A soak argument that does not make sense (one clear line)."""


def parse_percentage(text: str, option: str) -> float:
    """'1%' or '0.5 %' as a fraction."""
    match = re.match(r"^\s*([0-9]*\.?[0-9]+)\s*%\s*$", text)
    if not match:
        raise SoakError(f"{option} {text!r}: give a percentage, e.g. 1%")
    return float(match.group(1)) / 100


def soak_plan(duration_s: float, warmup_s: float, rate: float | None, share: float, errors_max: float) -> SoakPlan:
    """The soak's constant load (run.json `config.soak`), checked (SoakError, one line): `rate` tool calls/s, or
    None for `share` x each server's measured capacity; its criteria are this module's named constants."""
    if rate is not None and rate <= 0:
        raise SoakError("--rate must be positive")
    if not 0 < share <= 1:
        raise SoakError("--share must be in (0, 1]")
    if not 0 <= errors_max < 1:
        raise SoakError("--max-errors must be below 100 %")
    criteria = SoakCriteria(rss_growth_max=RSS_GROWTH_MAX, fd_slack=list(FD_SLACK), thread_slack=list(THREAD_SLACK),
                            p99_drift_max=P99_DRIFT_MAX, errors_max=errors_max)
    return SoakPlan(duration_s=duration_s, warmup_s=warmup_s, rate=rate, share=share, errors_max=errors_max,
                    criteria=criteria)


def soak_timing(plan: SoakPlan) -> Timing:
    """The soak's timeline. A fixed warm-up: the baseline must start at the same point for every server."""
    return Timing(ramp_up_s=2, warmup_s=plan.warmup_s, duration_s=plan.duration_s, ramp_down_s=0, warmup_cap_s=None)


def _edges(frame: pd.DataFrame, column: str, start: float, end: float) -> tuple[float | None, float | None]:
    """Medians of `column` over the first and the last stretch of [start, end)."""
    span = min(EDGE_MAX_S, (end - start) * EDGE_SHARE)
    values = frame[["t_s", column]].dropna()
    first = values[(values["t_s"] >= start) & (values["t_s"] < start + span)][column]
    last = values[(values["t_s"] >= end - span) & (values["t_s"] < end)][column]
    if first.empty or last.empty:
        return None, None
    return float(first.median()), float(last.median())


def slope_per_hour(frame: pd.DataFrame, column: str, start: float, end: float) -> SoakSlope | None:
    """The least-squares slope of `column` per hour over [start, end) with a 95 % interval that respects
    autocorrelation: 1 Hz readings of memory are not independent (lag-1 0.40-0.73 in the recorded soak), and
    the plain interval was 1.5-2.5x too narrow (go's flat RSS read +4.37 MiB/h [2.15, 6.59]). The interval
    uses the effective sample size of AR(1) residuals, n (1 - r1) / (1 + r1) (Santer et al. 2000), for the
    standard error and the t quantile's degrees of freedom. Hand-written (five lines) because it covers
    better than the library alternative we measured: on stationary AR(1) with phi = 0.7 and 600-1800
    readings it covers 0 in 93-95 % of draws, statsmodels' Newey-West HAC in 85-88 %."""
    values = frame[(frame["t_s"] >= start) & (frame["t_s"] < end)][["t_s", column]].dropna()
    if len(values) < 10 or values[column].nunique() < 2:
        return None
    hours = values["t_s"].to_numpy(dtype=float) / 3600.0
    from scipy import stats as scipy_stats  # here, not at import: 0.5-2 s that most commands never use

    fit = scipy_stats.linregress(hours, values[column].to_numpy(dtype=float))
    residuals = values[column].to_numpy(dtype=float) - (fit.intercept + fit.slope * hours)
    n = len(residuals)
    r1 = float(np.corrcoef(residuals[:-1], residuals[1:])[0, 1]) if np.ptp(residuals) > 0 else 0.0
    r1 = max(0.0, r1) if np.isfinite(r1) else 0.0
    n_eff = max(3.0, n * (1 - r1) / (1 + r1))
    stderr = fit.stderr * math.sqrt((n - 2) / (n_eff - 2))
    half = student_t.quantile(0.975, n_eff - 2) * stderr
    return SoakSlope(mb_per_h=round(float(fit.slope), 2), ci_low=round(float(fit.slope - half), 2),
                     ci_high=round(float(fit.slope + half), 2), lag1=round(r1, 3), n_eff=round(n_eff, 1))


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def _criterion(value: float | None, limit: float, passed: bool | None, text: str) -> SoakCriterion:
    return SoakCriterion(value=None if value is None else round(value, 4), limit=round(limit, 4),
                         verdict="not measured" if passed is None else "pass" if passed else "fail", detail=text)


def _new_highs(name: str, frame: pd.DataFrame, column: str, start: float, end: float,
               slack: tuple[int, float]) -> SoakCriterion:
    """The end stretch's median against the first half's peak: how far the count rose past what the
    pools had reached early on."""
    values = frame[(frame["t_s"] >= start) & (frame["t_s"] < end)][["t_s", column]].dropna()
    first_half = values[values["t_s"] < start + (end - start) / 2][column]
    after = _edges(frame, column, start, end)[1]
    if first_half.empty or after is None:
        return _criterion(None, 0, None, f"no {name} readings")
    peak = float(first_half.max())
    allowed = max(slack[0], slack[1] * peak)
    rise = after - peak
    return _criterion(rise, allowed, rise <= allowed,
                      f"first-half peak {peak:g}, end {after:g} "
                      f"(median of the last stretch; may exceed the peak by {allowed:g})")


def _fd_leak(frame: pd.DataFrame, start: float, end: float) -> SoakCriterion:
    """A slow FD leak stays under the slack of a short soak (about 17 an hour passed 30 minutes on go): the
    second half's slope, once the pools have opened, fails when its interval lies above 0 and it is at
    least FD_LEAK_MIN_PER_H."""
    slope = slope_per_hour(frame, "fds", start + (end - start) / 2, end)
    if slope is None:
        return _criterion(0.0, FD_LEAK_MIN_PER_H, True, "no change in the second half")
    leak = slope.ci_low > 0 and slope.mb_per_h >= FD_LEAK_MIN_PER_H
    return _criterion(slope.mb_per_h, FD_LEAK_MIN_PER_H, not leak,
                      f"second half {slope.mb_per_h:+.1f} FDs/h [{slope.ci_low:+.1f}, {slope.ci_high:+.1f}]")


def _worse(new_highs: SoakCriterion, leak: SoakCriterion) -> SoakCriterion:
    """The FD criterion: new highs past the slack, or else a proven slow rise (whichever failed, with both said)."""
    if leak.verdict == "fail":
        return leak.model_copy(update={"detail": f"{leak.detail}; {new_highs.detail}"})
    return new_highs.model_copy(update={"detail": f"{new_highs.detail}; {leak.detail}"})


def p99_buckets(samples: pd.DataFrame, start: float, end: float,
                request_timeout_s: float) -> tuple[float, list[SoakBucket]]:
    """All-calls p99 (failures included, as the summary's and the capacity SLO's) per bucket of the window:
    a minute, shorter for a short soak."""
    bucket_s = min(BUCKET_S, (end - start) / MIN_BUCKETS)  # so a quick soak still has EDGE_BUCKETS at each end
    calls = tool_calls(in_window(samples, (start, end)))
    rows = []
    # A last bucket cut short by up to 5 % (the data ending a moment early) still counts as one.
    count = max(1, math.floor((end - start) / bucket_s + 0.05))
    for index in range(count):
        low = start + index * bucket_s
        chunk = calls[(calls["t_s"] >= low) & (calls["t_s"] < low + bucket_s)]
        figures = latency_stats(all_calls_latency_ms(chunk, request_timeout_s))
        rows.append(SoakBucket(t_s=round(low - start, 3), calls=int(len(chunk)), errors=int((chunk["ok"] == 0).sum()),
                               p50_ms=_rounded(figures["p50"]),
                               p99_ms=_rounded(figures["p99"]) if (figures["count"] or 0) >= MIN_CALLS_PER_BUCKET
                               else None))
    return bucket_s, rows


def _p99_drift(buckets: list[SoakBucket]) -> SoakCriterion:
    """Medians of EDGE_BUCKETS buckets at each end (one bucket against one was a coin toss on a quick soak)."""
    edge = EDGE_BUCKETS
    if len(buckets) < 2 * edge:
        return _criterion(None, P99_DRIFT_MAX, None, f"{len(buckets)} buckets: {2 * edge} needed")
    first = [b.p99_ms for b in buckets[:edge] if b.p99_ms is not None]
    last = [b.p99_ms for b in buckets[-edge:] if b.p99_ms is not None]
    if len(first) < edge or len(last) < edge:
        return _criterion(None, P99_DRIFT_MAX, None,
                          f"fewer than {MIN_CALLS_PER_BUCKET} calls in a bucket at the start or the end")
    before, after = float(np.median(first)), float(np.median(last))
    drift = after / before if before > 0 else math.inf
    return _criterion(drift, P99_DRIFT_MAX, drift <= P99_DRIFT_MAX,
                      f"p99 {before:.2f} -> {after:.2f} ms (median of the first and last {edge} bucket(s))")


def judge(processes: pd.DataFrame, samples: pd.DataFrame, window: tuple[float, float],
          errors_max: float, request_timeout_s: float, status: str = "ok",
          reason: str | None = None) -> SoakJudgement:
    """The verdict per criterion, the series the report charts, and the memory slopes, from the 1 Hz
    process readings and the call samples of one soak (both counted from the scenario start), and the
    measurement's status (a server that died fails). The window ends where the data ends if the soak was
    stopped early."""
    start, planned_end = window
    ends = [planned_end]
    calls = tool_calls(samples)
    if len(calls):
        ends.append(float(calls["t_s"].max()))
    if len(processes):
        ends.append(float(processes["t_s"].max()) + 1.0)
    end = min(ends)
    measured_s = max(0.0, end - start)
    rss = _edges(processes, "rss_mb", start, end)
    criteria: dict[str, SoakCriterion] = {}
    criteria["alive"] = _criterion(
        None, 0, status == "ok",
        "ran to its end" if status == "ok" else f"measurement {status}: {reason or 'no reason'}")
    if rss[0] is None or rss[1] is None:
        criteria["rss"] = _criterion(None, RSS_GROWTH_MAX, None, "no RSS readings in the window")
    else:
        growth = rss[1] / rss[0] - 1
        criteria["rss"] = _criterion(growth, RSS_GROWTH_MAX, growth <= RSS_GROWTH_MAX,
                                     f"{rss[0]:.1f} -> {rss[1]:.1f} MiB (median of the first and last stretch)")
    criteria["fds"] = _new_highs("FD", processes, "fds", start, end, FD_SLACK)
    if criteria["fds"].verdict == "pass":
        criteria["fds"] = _worse(criteria["fds"], _fd_leak(processes, start, end))
    criteria["threads"] = _new_highs("thread", processes, "threads", start, end, THREAD_SLACK)
    bucket_s, buckets = p99_buckets(samples, start, end, request_timeout_s) if measured_s > 0 else (0.0, [])
    criteria["p99"] = _p99_drift(buckets) if buckets else _criterion(None, P99_DRIFT_MAX, None, "no calls")
    window_calls = calls[(calls["t_s"] >= start) & (calls["t_s"] < end)]
    if len(window_calls):
        rate = float((window_calls["ok"] == 0).mean())
        criteria["errors"] = _criterion(rate, errors_max, rate <= errors_max,
                                        f"{int((window_calls['ok'] == 0).sum())} of {len(window_calls)} calls failed")
    else:
        criteria["errors"] = _criterion(None, errors_max, None, "no calls in the window")
    verdicts = [c.verdict for c in criteria.values()]
    verdict = "fail" if "fail" in verdicts else "not measured" if "not measured" in verdicts else "pass"
    cgroup = _edges(processes, "cgroup_mb", start, end)
    return SoakJudgement(
        verdict=verdict, criteria=criteria,
        window=SoakWindow(start_s=start, end_s=round(end, 3), planned_end_s=planned_end,
                          measured_s=round(measured_s, 1)),
        stopped_early=end < planned_end - 2.0,
        baseline=SoakMemory(rss_mb=rss[0], cgroup_mb=cgroup[0]), end=SoakMemory(rss_mb=rss[1], cgroup_mb=cgroup[1]),
        slopes=SoakSlopes(rss=slope_per_hour(processes, "rss_mb", start, end),
                          cgroup=slope_per_hour(processes, "cgroup_mb", start, end),
                          fds=slope_per_hour(processes, "fds", start, end)),
        bucket_s=round(bucket_s, 3), buckets=buckets)


def rejudge_result(document: SoakResult, server: ServerDir, request_timeout_s: float) -> SoakResult:
    """`mcpbench upgrade`'s re-judgement of a soak.json (RESULT_FILE): rejudge, from its measurement."""
    return rejudge(document, server.named(document.measurement), request_timeout_s)[0]


def rejudge(document: SoakResult, where: MeasurementDir | Path,
            request_timeout_s: float) -> tuple[SoakResult, pd.DataFrame]:
    """A soak.json judged again by today's rules from its measurement directory's files (the report reads
    soaks this way, and `mcpbench upgrade` writes the result), keeping what only the suite knew when it ran;
    and the 1 Hz process readings it was judged on (the report charts them)."""
    measurement = measurement_dir(where)
    summary = read_json(measurement.summary)
    processes = read_processes(measurement.processes)
    samples = read_samples(measurement.samples)
    window = (document.window.start_s, document.window.planned_end_s)
    errors_max = document.criteria["errors"].limit
    judgement = judge(processes, samples, window, errors_max, request_timeout_s, summary["status"],
                      summary.get("reason"))
    # what the suite knew when it ran (SoakMeasured) kept, the judgement today's
    return document.model_copy(update=dict(judgement)), processes

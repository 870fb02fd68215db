"""Merge results directories of one config and machine into per-server, per-load groups and ranked rows.

A group is one server at one load (mode + VUs, or mode + arrival rate) with every run of it found in the
results directories given. Runs are the unit for throughput; latency percentiles are pooled from the raw
samples of all runs (measured window only) through mcpbench.stats.latency_stats.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from itertools import groupby, pairwise
from typing import Any

import numpy as np
import pandas as pd
from pydantic import BaseModel

from mcpbench.analysis import summary as analysis
from mcpbench.analysis.stats import Latency, latency_stats
from mcpbench.loads import Load, in_window, tool_calls
from mcpbench.loads.timing import Timing
from mcpbench.results import model
from mcpbench.results.model import NOT_ASSESSED as NOT_ASSESSED_REASON
from mcpbench.results.model import TWIN_WHAT_IF, Summary, document
from mcpbench.results.read import http_durations

from . import stats
from .load import LoadKey, Measurement, ResultsDir, ResultsError, ServerRecord
from .rows import RANKINGS, Figures, MissingRound, OrderHeld, Placing, Row

HARNESS_BOUND_PREFIX = analysis.HARNESS_BOUND_PREFIX

# What must be equal for results to be merged or compared. Left out on purpose: the servers, modes, VUs,
# rates and run counts (they say which measurements exist, and each load is its own group), hostname,
# git commit and the language toolchains (upgrading those is what `compare` is for).
CONFIG_FINGERPRINT = ("runtime", "ramp_up_s", "warmup_s", "duration_s", "ramp_down_s", "think_time_s",
                      "profile.cpus", "profile.memory_mb")
ENVIRONMENT_FINGERPRINT = ("cpu_model", "cores", "memory_gb", "os", "kernel", "cgroup.version", "cgroup.applied",
                           "tools.redis")
MANIFEST_FINGERPRINT = ("language", "runtime", "sdk", "sdk_version", "framework")
TIMESERIES_MAX_POINTS = 240


class MixedResultsError(ResultsError):
    def __init__(self, differences: list[str]):
        self.differences = differences
        lines = "\n  ".join(differences)
        super().__init__("the results differ in config or environment and cannot be merged:\n  " + lines +
                         "\n(pass --allow-mixed to merge them anyway; the report will list these differences)")


def dotted(data: Mapping[str, Any] | BaseModel, path: str) -> Any:
    value: Any = document(data) if isinstance(data, BaseModel) else data
    for part in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


# A setting of run.json's config or environment, as the fingerprint compares it.
SettingValue = str | int | float | bool | None


def fingerprint(results: ResultsDir) -> dict[str, SettingValue]:
    """What must be equal for results to be merged: the fingerprint's dotted keys and their values."""
    fp: dict[str, SettingValue] = {f"config.{k}": dotted(results.config, k) for k in CONFIG_FINGERPRINT}
    for k in ENVIRONMENT_FINGERPRINT:
        value = dotted(results.environment, k)
        if k == "memory_gb" and isinstance(value, (int, float)):
            value = round(value)  # total memory as reported varies by a few MB between boots
        fp[f"environment.{k}"] = value
    return fp


def fingerprint_differences(dirs: list[ResultsDir]) -> list[str]:
    """One line per fingerprint key whose value is not the same in every results directory."""
    prints = [(d.run_id, fingerprint(d)) for d in dirs]
    out = []
    for key in prints[0][1] if prints else []:
        values = {run_id: fp[key] for run_id, fp in prints}
        if len({repr(v) for v in values.values()}) > 1:
            out.append(f"{key}: " + ", ".join(f"{v!r} ({run_id})" for run_id, v in values.items()))
    return out


def stack_of(manifest: model.Server | None) -> dict[str, str | None]:
    """The manifest's fields that identify the stack (MANIFEST_FINGERPRINT), None each without a manifest."""
    return {key: getattr(manifest, key) if manifest else None for key in MANIFEST_FINGERPRINT}


def manifest_differences(dirs: list[ResultsDir]) -> list[str]:
    """Servers measured in several results directories with different stacks (e.g. another SDK version)."""
    out = []
    names = sorted({n for d in dirs for n in d.servers})
    for name in names:
        stacks = [(d.run_id, stack_of(d.servers[name].manifest)) for d in dirs
                  if name in d.servers and d.servers[name].manifest]
        for key in MANIFEST_FINGERPRINT:
            values = {run_id: stack[key] for run_id, stack in stacks}
            if len({repr(v) for v in values.values()}) > 1:
                out.append(f"server {name} {key}: " + ", ".join(f"{v!r} ({r})" for r, v in values.items()))
    return out


@dataclass
class RunData:
    """One measurement reduced to what the report needs (the raw frame is dropped after reading)."""

    measurement: Measurement
    window: tuple[float, float]
    tool_calls_per_s: float
    v2_rps: float | None              # (initialize + tools/call + tools/list) / window s
    per_second: np.ndarray            # successful tool calls per second of the window
    latency: np.ndarray               # successful tool calls' call_ms in the window
    latency_t: np.ndarray             # their end times (s)
    latency_all: np.ndarray           # every tool call of the window (latency_ms.tool_call_all's population)
    v2_call: np.ndarray               # every tools/call request sent in the window (latency_ms.v2_tools_call)
    per_tool: dict[str, np.ndarray]
    http: np.ndarray                  # every HTTP request duration of the window's successful sessions
    session: np.ndarray               # session_ms of the window's successful calls: the whole iteration
                                      #   (initialize → notification → call → DELETE in session mode)
    tool_calls: int
    failed: Counter
    p99: float | None                 # this run's own p99 (successful calls): never averaged
    p99_all: float | None             # this run's own all-calls p99: the test statistic of compare
    p50_all: float | None             # this run's own all-calls p50 (equal load: a pair test's per-round figure)
    all_t: np.ndarray                 # end time and call_ms of every successful tool call of the test
    all_ms: np.ndarray                #   (whole test, for the time series)

    @cached_property
    def timeseries(self) -> pd.DataFrame:
        return _timeseries(self.all_t, self.all_ms, self.measurement.resources())

    @property
    def run_id(self) -> str:
        return self.measurement.results.run_id

    @property
    def mid(self) -> str:
        return self.measurement.mid

    @property
    def summary(self) -> Summary:
        return self.measurement.summary

    @property
    def round_id(self) -> tuple[str, int]:
        return self.measurement.round_id

    @property
    def flags(self) -> list[str]:
        return self.measurement.flags

    @property
    def harness_bound(self) -> bool:
        return any(f.startswith(HARNESS_BOUND_PREFIX) for f in self.flags)

    @property
    def publishable(self) -> bool | None:
        return self.summary.publishable

    @property
    def reasons(self) -> list[str]:
        return list(self.summary.unpublishable_reasons)

    @property
    def cpu_ms_per_call(self) -> float | None:
        return self.summary.efficiency.cpu_ms_per_call if self.summary.efficiency else None

    @property
    def startup_s(self) -> float | None:
        """This measurement's own start: process start to its first answered initialize."""
        return self.summary.startup_s

    @property
    def idle_mem_mb(self) -> float | None:
        """The server's memory (cgroup) after its start, before the load."""
        return self.summary.idle_mem_mb

    @property
    def mem_avg_mb(self) -> float | None:
        """The server's memory (cgroup) averaged over the window's readings."""
        server = self.summary.resources.get("server")
        return server.mem_avg_mb if server else None

    @property
    def mem_peak_mb(self) -> float | None:
        eff = self.summary.efficiency.mem_peak_mb if self.summary.efficiency else None
        server = self.summary.resources.get("server")
        return eff if eff is not None else (server.mem_peak_mb if server else None)


def _timeseries(t_s: np.ndarray, call_ms: np.ndarray, resources: pd.DataFrame) -> pd.DataFrame:
    """Whole-test series in bins: successful tool calls/s, p50/p99 latency, server CPU % and memory MiB."""
    end = float(max(t_s.max() if len(t_s) else 0, resources["t_s"].max() if len(resources) else 0))
    width = max(1, int(np.ceil(end / TIMESERIES_MAX_POINTS)))
    bins = np.floor(t_s / width).astype(int)
    n = int(end // width) + 1
    count = np.bincount(bins, minlength=n)[:n]
    p50 = np.full(n, np.nan)
    p99 = np.full(n, np.nan)
    values = call_ms
    order = np.argsort(bins, kind="stable")
    bounds = np.searchsorted(bins[order], np.arange(n + 1))
    for i in range(n):
        chunk = values[order[bounds[i]:bounds[i + 1]]]
        if chunk.size:
            figures = latency_stats(chunk)
            p50[i], p99[i] = figures["p50"], figures["p99"]
    out = pd.DataFrame({"t_s": np.arange(n) * width, "calls_per_s": count / width, "p50_ms": p50, "p99_ms": p99})
    server = resources[resources["component"] == "server"] if len(resources) else resources
    if len(server):
        rb = (server["t_s"] // width).astype(int)
        agg = server.groupby(rb)[["cpu_pct", "mem_mb"]].mean()
        out["cpu_pct"] = agg["cpu_pct"].reindex(range(n)).to_numpy()
        out["mem_mb"] = agg["mem_mb"].reindex(range(n)).to_numpy()
    else:
        out["cpu_pct"] = np.nan
        out["mem_mb"] = np.nan
    return out


def request_timeout_s(results: ResultsDir) -> float:
    """run.json config.request_timeout_s; results that do not record it ran with the default."""
    value = results.config.request_timeout_s
    return float(value) if value is not None else float(Timing().request_timeout_s)


def read_run(m: Measurement) -> RunData:
    df = m.samples()
    window = m.window
    win = in_window(df, window)
    calls = tool_calls(win)
    good = calls[calls["ok"] == 1]
    everything = tool_calls(df[df["ok"] == 1])
    seconds = window[1] - window[0]
    throughput = m.summary.throughput
    tps = throughput.tool_calls_per_s
    if tps is None:
        tps = len(good) / seconds if seconds > 0 else 0.0
    v2 = throughput.v2_rps
    if v2 is None and seconds > 0:   # schema 1: recounted from the samples with the orchestrator's definition
        v2 = analysis.v2_requests(win, m.key.mode) / seconds
    latency = good["call_ms"].to_numpy(dtype=float)
    counted = tool_calls(analysis.with_late_timeouts(df, win, window))  # the summary's errors and all-calls figures
    latency_all = analysis.all_calls_latency_ms(counted, request_timeout_s(m.results))
    failing = (counted["ok"] != 1) & ~counted["error_kind"].isin(analysis.NO_FAILURE)   # cancelled, unread: chosen
    failed = Counter(counted.loc[failing, "error_kind"].replace("", "unknown"))
    return RunData(
        measurement=m, window=window, tool_calls_per_s=float(tps), v2_rps=v2,
        per_second=stats.per_second_counts(good["t_s"].to_numpy(), window), latency=latency,
        latency_t=good["t_s"].to_numpy(dtype=float), latency_all=latency_all,
        v2_call=calls["call_ms"].dropna().to_numpy(dtype=float),
        per_tool={str(tool): g["call_ms"].to_numpy(dtype=float) for tool, g in good.groupby("tool")},
        http=http_durations(win[win["ok"] == 1]).to_numpy(), session=good["session_ms"].dropna().to_numpy(dtype=float),
        tool_calls=len(counted), failed=failed,
        p99=latency_stats(latency)["p99"], p99_all=latency_stats(latency_all)["p99"],
        p50_all=latency_stats(latency_all)["p50"],
        all_t=everything["t_s"].to_numpy(dtype=float), all_ms=everything["call_ms"].to_numpy(dtype=float),
    )


def around(figure: float | None, interval: stats.Interval) -> tuple[float | None, float | None]:
    """A figure ÷/× an interval's factor (a pooled percentile with the spread of the per-round ones)."""
    if figure is None or interval.factor is None:
        return None, None
    return figure / interval.factor, figure * interval.factor


def _count_text(items: list[str], n: int) -> list[str]:
    counts = Counter(items)
    return [f"{x} ({c}/{n} runs)" if c < n else x for x, c in sorted(counts.items())]


@dataclass
class Group:
    server: str
    key: LoadKey
    runs: list[RunData]
    missing: list[MissingRound] = field(default_factory=list)   # rounds this server lacks at this load, with why

    @property
    def throughputs(self) -> list[float]:
        return [r.tool_calls_per_s for r in self.runs]

    @property
    def per_second(self) -> list[np.ndarray]:
        return [r.per_second for r in self.runs]

    @property
    def pooled_latency(self) -> np.ndarray:
        return np.concatenate([r.latency for r in self.runs]) if self.runs else np.array([])

    @property
    def pooled_latency_all(self) -> np.ndarray:
        return np.concatenate([r.latency_all for r in self.runs]) if self.runs else np.array([])

    def by_round(self, metric: str) -> dict[tuple[str, int], float | None]:
        """Per-run figure keyed by round: tool_calls_per_s, cpu_ms_per_call or mem_peak_mb."""
        return {r.round_id: getattr(r, metric) for r in self.runs}

    @property
    def publishable(self) -> bool | None:
        """True only when every measurement is publishable; False when any is not; else None (not assessed)."""
        verdicts = [r.publishable for r in self.runs]
        if any(v is False for v in verdicts):
            return False
        return True if verdicts and all(v is True for v in verdicts) else None

    @property
    def harness_bound(self) -> bool:
        return any(r.harness_bound for r in self.runs)

    def reasons(self, ignore_bound: bool = False) -> list[str]:
        items = [x for r in self.runs for x in dict.fromkeys(r.reasons)
                 if not (ignore_bound and x.startswith("flag: " + HARNESS_BOUND_PREFIX))]
        return _count_text(items, len(self.runs))

    def section(self) -> str:
        """Where the row is shown: harness-limited, ranked (every measurement publishable), not assessed
        (schema-1 input without a reason against it, ranked apart), or not publishable (apart, no rank)."""
        if self.harness_bound:
            return BOUND
        return {True: RANKED, None: NOT_ASSESSED}.get(self.publishable, UNPUBLISHABLE)

    def efficiency_section(self) -> str:
        """The efficiency ranking stays valid when the harness limits throughput: bound flags do not count."""
        if not self.reasons(ignore_bound=True):
            return RANKED
        if all(x == NOT_ASSESSED_REASON for r in self.runs for x in r.reasons
               if not x.startswith("flag: " + HARNESS_BOUND_PREFIX)):
            return NOT_ASSESSED
        return UNPUBLISHABLE

    def missing_text(self) -> str | None:
        if not self.missing:
            return None
        parts = []
        for (run_id, total), group in groupby(self.missing, key=lambda m: (m.run_id, m.of)):
            items = list(group)
            rounds = ", ".join(str(m.round) for m in items)
            why = "; ".join(dict.fromkeys(m.why for m in items))
            prefix = f"{run_id}: " if len({r.run_id for r in self.runs} | {run_id}) > 1 else ""
            parts.append(f"{prefix}round{'s' if len(items) > 1 else ''} {rounds} of {total} missing: {why}")
        return "; ".join(parts)

    def figures(self) -> Figures:
        """Every figure of the group (one row of the consolidated table, before ranking)."""
        runs = self.runs
        tput = stats.throughput_interval(self.throughputs, self.per_second)
        v2 = stats.mean_interval([r.v2_rps for r in runs if r.v2_rps is not None])
        whole = [r.summary.throughput.v2_rps_whole_run for r in runs]
        latency = latency_stats(self.pooled_latency)
        latency_all = latency_stats(self.pooled_latency_all)
        v2_call = latency_stats(np.concatenate([r.v2_call for r in runs]) if runs else np.array([]))
        tools = sorted({t for r in runs for t in r.per_tool})
        per_tool = {t: latency_stats(np.concatenate([r.per_tool.get(t, np.array([])) for r in runs])) for t in tools}
        http = latency_stats(np.concatenate([r.http for r in runs])) if runs else latency_stats([])
        tool_calls = sum(r.tool_calls for r in runs)
        failed: Counter = sum((r.failed for r in runs), Counter())
        res = [r.summary.resources.get("server") for r in runs]

        def avg(key):
            vals = [getattr(x, key) for x in res if x is not None and getattr(x, key) is not None]
            return float(np.mean(vals)) if vals else None

        def peak(key):
            vals = [getattr(x, key) for x in res if x is not None and getattr(x, key) is not None]
            return float(max(vals)) if vals else None

        cpu_avg, mem_avg = avg("cpu_avg_pct"), avg("mem_avg_mb")
        flags = [f for r in runs for f in dict.fromkeys(r.flags)]
        eff = stats.efficiency(tput.mean, cpu_avg, mem_avg)
        cpu_ms = stats.geo_interval([r.cpu_ms_per_call for r in runs])
        mem_peaks = stats.geo_interval([r.mem_peak_mb for r in runs])
        # The figure shown is the p99 of every round's samples pooled; its ×/÷ factor is the spread of each round's
        # own all-calls p99 (what the p99 ranking's paired test rests on).
        p99_low, p99_high = around(latency_all["p99"], stats.geo_interval([r.p99_all for r in runs]))
        rates = [r.summary.rate for r in runs if r.summary.rate is not None]
        fractions = [r.summary.limit.fraction for r in runs if r.summary.limit.fraction is not None]
        publishable = self.publishable
        return Figures(
            server=self.server, mode=self.key.mode, kind=self.key.kind_name,
            vus=self.key.vus,
            rate=(float(np.mean(rates)) if rates else None) if self.key.kind.level_field == "rate" else None,
            rate_fraction=self.key.load if self.key.basis == "fraction" else None,
            load=self.key.load, config=self.key.label,
            runs=len(runs), run_ids=sorted({r.run_id for r in runs}),
            rounds=[f"{r.run_id}#{r.measurement.run}" for r in runs],
            measurements=[f"{r.run_id}/{self.server}/{r.mid}" for r in runs],
            schemas_read=sorted({r.measurement.schema_read for r in runs}),
            tool_calls_per_s=tput.mean, tool_calls_per_s_sd=tput.std, cv=tput.cv,
            ci_low=tput.low, ci_high=tput.high, ci_method=tput.method,
            per_run_tool_calls_per_s=self.throughputs,
            v2_rps=v2.mean,
            v2_rps_whole_run=float(np.mean([w for w in whole if w is not None])) if any(
                w is not None for w in whole) else None,
            latency_all_avg_ms=latency_all["avg"], latency_all_min_ms=latency_all["min"],
            latency_all_p50_ms=latency_all["p50"], latency_all_p90_ms=latency_all["p90"],
            latency_all_p95_ms=latency_all["p95"], latency_all_p99_ms=latency_all["p99"],
            latency_all_p999_ms=latency_all["p999"], latency_all_max_ms=latency_all["max"],
            latency_all_count=_count(latency_all),
            latency_avg_ms=latency["avg"], latency_min_ms=latency["min"], latency_p50_ms=latency["p50"],
            latency_p90_ms=latency["p90"], latency_p95_ms=latency["p95"], latency_p99_ms=latency["p99"],
            latency_p999_ms=latency["p999"], latency_max_ms=latency["max"],
            latency_count=_count(latency),
            v2_call_avg_ms=v2_call["avg"], v2_call_p95_ms=v2_call["p95"], v2_call_count=_count(v2_call),
            per_tool=per_tool,
            http_avg_ms=http["avg"], http_p95_ms=http["p95"], http_p99_ms=http["p99"],
            tool_calls=tool_calls, errors=sum(failed.values()),
            error_rate=(sum(failed.values()) / tool_calls) if tool_calls else None,
            error_kinds=dict(sorted(failed.items())),
            cpu_avg_pct=cpu_avg, cpu_peak_pct=peak("cpu_peak_pct"),
            mem_avg_mb=mem_avg, mem_peak_mb=peak("mem_peak_mb"),
            calls_per_core=eff.per_core, calls_per_gb=eff.per_gb,
            cpu_ms_per_call=cpu_ms.mean, cpu_ms_per_call_ci_low=cpu_ms.low,
            cpu_ms_per_call_ci_high=cpu_ms.high, cpu_ms_per_call_runs=cpu_ms.n,
            per_run_cpu_ms_per_call=[r.cpu_ms_per_call for r in runs],
            p99_all_round_ci_low=p99_low, p99_all_round_ci_high=p99_high,
            mem_peak_mb_mean=mem_peaks.mean, mem_peak_mb_ci_low=mem_peaks.low,
            mem_peak_mb_ci_high=mem_peaks.high, per_run_mem_peak_mb=[r.mem_peak_mb for r in runs],
            dropped_iterations=sum(int(r.summary.throughput.dropped_iterations or 0) for r in runs),
            flags=_count_text(flags, len(runs)),
            flag_names=sorted(set(flags)),
            harness_bound=self.harness_bound,
            limit_fraction_max=max(fractions) if fractions else None,
            # what limited it, in the analysis's words (one definition: analysis.LIMITED_BY)
            limited_by=list(dict.fromkeys(analysis.limited_by(flags))),
            limited_by_text=_limited_by_text(flags),
            publishable=publishable,
            publishable_text=("not assessed (schema-1 results)" if publishable is None
                              else "publishable" if publishable else "not publishable"),
            unpublishable_reasons=self.reasons(),
            missing_rounds=self.missing, missing_text=self.missing_text(),
        )


def _count(figures: Latency) -> int:
    """latency_stats' count of samples (0 for none)."""
    return int(figures["count"] or 0)


# Sections of one load's table, in the order shown.
BOUND, RANKED, NOT_ASSESSED, UNPUBLISHABLE = "harness-limited", "ranked", "not-assessed", "not-publishable"
SECTIONS = (BOUND, RANKED, NOT_ASSESSED, UNPUBLISHABLE)
RANKED_SECTIONS = (RANKED, NOT_ASSESSED)


# At an equal load, latency is ranked too: (per-run figure, row prefix, the pooled figure it is ordered by).
LATENCY_RANKINGS = (("p50_all", "p50_", "latency_all_p50_ms"), ("p99_all", "p99_", "latency_all_p99_ms"))


def _moderated(figures: Figures, prefix: str, interval: stats.Interval | None) -> Figures:
    """The figures with the interval a ranking (by its prefix) moderated in place of the figure's own: the
    geometric mean and its interval, or, for a pooled percentile (p99), the figure ÷/× the interval's factor."""
    if interval is None or interval.factor is None:
        return figures
    if prefix == "":
        return replace(figures, tool_calls_per_s=interval.mean, ci_low=interval.low, ci_high=interval.high,
                       ci_method=interval.method)
    if prefix == "cpu_":
        return replace(figures, cpu_ms_per_call=interval.mean, cpu_ms_per_call_ci_low=interval.low,
                       cpu_ms_per_call_ci_high=interval.high)
    if prefix == "mem_":
        return replace(figures, mem_peak_mb_mean=interval.mean, mem_peak_mb_ci_low=interval.low,
                       mem_peak_mb_ci_high=interval.high)
    if prefix == "p99_":
        low, high = around(figures.latency_all_p99_ms, interval)
        return replace(figures, p99_all_round_ci_low=low, p99_all_round_ci_high=high)
    return figures


def _placings(ranking: stats.Ranking, runs: Mapping[str, int], held: Mapping[str, OrderHeld],
              positions: bool = False) -> dict[str, Placing]:
    """Each item's place in one ranking: rank, tier and letters, the test against the leader and the next item,
    how often the order held against it, and (an efficiency ranking) its position in the order."""
    order = ranking.order
    out = {}
    for i, name in enumerate(order):
        label = ranking.labels[name]
        leader = ranking.vs_leader.get(name)
        nxt = order[i + 1] if i + 1 < len(order) else None
        verdict = ranking.pairs.get((name, nxt)) if nxt else None
        out[name] = Placing(
            rank=label, tier=ranking.tiers[name], ranked=label is not None,
            rank_note=None if label is not None else stats.not_tested_text(runs[name]),
            letters=ranking.letters.get(name), power_text=ranking.power.text if ranking.power else None,
            vs_leader=f"vs {leader[0]}: {leader[1].text}" if leader else None,
            vs_next=verdict.text if verdict else None, vs_next_significant=verdict.significant if verdict else None,
            family=ranking.family, order_held=held.get(name), position=i if positions else None, runs=runs[name])
    return out


def _orders_held(order: list[str], groups: dict[str, Group], metric: str,
                 higher_better: bool) -> dict[str, OrderHeld]:
    """Each item but the last against the next one of the order: in how many shared rounds it stayed ahead."""
    out = {}
    for a, b in pairwise(order):
        held, shared = stats.order_held(groups[a].by_round(metric), groups[b].by_round(metric), higher_better)
        out[a] = OrderHeld(b, held, shared)
    return out


def _rounds_with(groups: dict[str, Group], names: list[str], metric: str) -> dict[str, int]:
    return {n: sum(v is not None for v in groups[n].by_round(metric).values()) for n in names}


@dataclass(frozen=True)
class RoundSpread:
    """A server's throughput relative to its rounds: each run's ratio to its round's geometric mean, and their CV
    over the rounds of its most frequent set of servers."""

    per_run: list[float | None]
    cv: float | None
    rounds: int


def _round_spreads(groups: list[Group]) -> dict[str, RoundSpread]:
    # per-round ratio to the round's geometric mean (every server of this load measured in that round)
    rounds: dict[tuple[str, int], dict[str, float | None]] = {}
    for g in groups:
        for rnd, value in g.by_round("tool_calls_per_s").items():
            rounds.setdefault(rnd, {})[g.server] = value
    ratios = stats.round_ratios(rounds)
    out = {}
    for g in groups:
        mine = ratios.get(g.server, {})
        # A ratio is only comparable between rounds of the same set of servers (another set, another centre):
        # the CV uses the rounds of this server's most frequent set.
        sets = Counter(frozenset(rounds[rnd]) for rnd in mine)
        if sets:
            common = max(sets, key=lambda st: (sets[st], len(st)))
            values = [v for rnd, v in mine.items() if frozenset(rounds[rnd]) == common]
        else:
            values = []
        out[g.server] = RoundSpread([mine.get(r.round_id) for r in g.runs], stats.cv(values), len(values))
    return out


@dataclass
class _Standing:
    """One load's rows while rank makes its rankings: each server's figures (a ranking's moderated interval
    written over its figure's) and its placing in each ranking by prefix."""

    groups: dict[str, Group]
    figures: dict[str, Figures]
    placed: dict[str, dict[str, Placing]]

    def rank(self, names: list[str], metric: str, prefix: str, runs: Mapping[str, int], *, higher_better: bool,
             alpha: float, positions: bool = False, pooled: str | None = None) -> stats.Ranking:
        """Rank `names` on a per-round figure (ordered by a pooled one when given) and place them."""
        ranking = stats.rank({n: self.groups[n].by_round(metric) for n in names}, higher_better=higher_better,
                             figures={n: getattr(self.figures[n], pooled) for n in names} if pooled else None,
                             alpha=alpha)
        self.figures.update({n: _moderated(self.figures[n], prefix, ranking.intervals.get(n)) for n in ranking.order})
        held = _orders_held(ranking.order, self.groups, metric, higher_better)
        self.placed[prefix].update(_placings(ranking, runs, held, positions))
        return ranking

    def apart(self, names: list[str], rank_note: Callable[[str], str]) -> None:
        """Rows shown apart from the throughput ranking (harness-limited, not publishable), with why."""
        self.placed[""].update({n: Placing(ranked=False, rank_note=rank_note(n)) for n in names})

    def by_throughput(self, names: list[str]) -> list[str]:
        return sorted(names, key=lambda n: -(self.figures[n].tool_calls_per_s or 0))


def rank(groups: list[Group], alpha: float = stats.ALPHA, rankings: dict[str, stats.Ranking] | None = None,
         apart: dict[str, str] | None = None) -> list[Row]:
    """Rows of one load: harness-limited rows first (no rank), then the ranked sections (TIER_RULE with Holm
    per ranking), then rows that are not publishable (no rank). Every row also carries its efficiency rank.
    `rankings` receives the publishable section's rankings by row prefix ("" throughput, "cpu_", "mem_", and at
    an equal load "p50_", "p99_"): the decision page's claims rest on their pair tests. `apart`: servers the
    caller knows measured something else than the rest (name -> why), kept out of every ranking, shown with why."""
    rankings = {} if rankings is None else rankings
    apart = apart or {}
    by_name = {g.server: g for g in groups}
    section = {n: UNPUBLISHABLE if n in apart else g.section() for n, g in by_name.items()}
    efficiency_section = {n: UNPUBLISHABLE if n in apart else g.efficiency_section() for n, g in by_name.items()}
    standing = _Standing(by_name, {g.server: g.figures() for g in groups}, {prefix: {} for prefix in RANKINGS})
    figures = standing.figures
    bound = standing.by_throughput([n for n in by_name if section[n] == BOUND])
    standing.apart(bound, lambda n: figures[n].limited_by_text)
    ordered = list(bound)
    for part in RANKED_SECTIONS:
        names = [n for n in by_name if section[n] == part]
        ranking = standing.rank(names, "tool_calls_per_s", "", {n: figures[n].runs for n in names},
                                higher_better=True, alpha=alpha)
        if part == RANKED:
            rankings[""] = ranking
        ordered += ranking.order
    rest = standing.by_throughput([n for n in by_name if section[n] == UNPUBLISHABLE])
    standing.apart(rest, lambda n: apart.get(n, "not publishable"))
    ordered += rest
    # efficiency: CPU ms per successful call and per-run peak memory, lower is better, same rules
    for part in RANKED_SECTIONS:
        names = [n for n in by_name if efficiency_section[n] == part]
        for metric, prefix in (("cpu_ms_per_call", "cpu_"), ("mem_peak_mb", "mem_")):
            ranking = standing.rank(names, metric, prefix, _rounds_with(by_name, names, metric), higher_better=False,
                                    alpha=alpha, positions=True)
            if part == RANKED:
                rankings[prefix] = ranking
    if groups and groups[0].key.equal_load:
        # Every server was offered the same rate: how fast each answered compares them too (not where the
        # harness limited it, nor where any reason stands against publication).
        names = [n for n in by_name if section[n] in RANKED_SECTIONS]
        for metric, prefix, pooled in LATENCY_RANKINGS:
            rankings[prefix] = standing.rank(names, metric, prefix, _rounds_with(by_name, names, metric),
                                             higher_better=False, alpha=alpha, pooled=pooled)
    placed = standing.placed
    for name, why in apart.items():
        if name in by_name:
            for prefix in RANKINGS[1:]:
                placed[prefix][name] = replace(placed[prefix].get(name, Placing()), rank_note=why)
    spreads = _round_spreads(groups)
    # The figures as the rankings moderated them, then where the row stands; a ranking that did not take a row
    # leaves its placing empty.
    return [Row(**vars(figures[n]), section=section[n], efficiency_section=efficiency_section[n],
                per_run_round_ratio=spreads[n].per_run, cv_round_ratio=spreads[n].cv,
                cv_round_ratio_rounds=spreads[n].rounds, throughput=placed[""][n],
                cpu=placed["cpu_"].get(n, Placing()), mem=placed["mem_"].get(n, Placing()),
                p50=placed["p50_"].get(n, Placing()), p99=placed["p99_"].get(n, Placing()),
                bound_text=_bound_text(figures[n]) if section[n] == BOUND else None) for n in ordered]


def _bound_text(figures: Figures) -> str:
    """A harness-limited row's figure: a lower bound, with what limited it."""
    return f"≥ {figures.tool_calls_per_s:,.1f} calls/s — {figures.limited_by_text}"


def _limited_by_text(flags: list[str]) -> str:
    """"limited by the load model (its VUs and think time)", … — the limit named for what it is."""
    words = list(dict.fromkeys(analysis.limited_by(flags)))
    return "limited by " + " and ".join(words) if words else ""


@dataclass
class Failure:
    server: str
    run_id: str
    what: str            # "server" | "measurement"
    status: str
    phase: str | None
    reason: str | None
    measurement: str | None = None
    run: int | None = None          # the round of a failed measurement
    load: str | None = None         # its load label

    @property
    def why(self) -> str:
        return f"{self.status} ({self.phase or 'no phase'}: {self.reason or 'no reason given'})"


@dataclass
class ServerView:
    name: str
    records: list[ServerRecord]
    groups: list[Group] = field(default_factory=list)

    @property
    def manifest(self) -> model.Server | None:
        """The newest server.json of its results directories (None: none has one)."""
        return next((record.manifest for record in reversed(self.records) if record.manifest), None)

    @property
    def display_name(self) -> str:
        named = self.manifest.display_name if self.manifest else None
        return named or self.name

    @property
    def language(self) -> str | None:
        return self.manifest.language if self.manifest else None

    @property
    def measured(self) -> bool:
        return bool(self.groups)


@dataclass
class Consolidated:
    dirs: list[ResultsDir]
    servers: dict[str, ServerView]
    groups: dict[tuple[str, LoadKey], Group]
    failures: list[Failure]
    differences: list[str]
    warnings: list[str]
    rows: dict[LoadKey, list[Row]] = field(default_factory=dict)
    # measurements the host disturbed and that were measured again: routine, kept on disk, not used
    set_aside: list[str] = field(default_factory=list)
    # per load, its publishable rankings by row prefix (rank's `rankings`): the tests behind every tier
    rankings: dict[LoadKey, dict[str, stats.Ranking]] = field(default_factory=dict)

    @property
    def keys(self) -> list[LoadKey]:
        return sorted({k for _, k in self.groups}, key=lambda k: (k.mode, k.kind_name, k.basis, k.load))

    @property
    def protocol_revisions(self) -> list[str]:
        """Every MCP protocol revision some server's manifest says its SDK accepts, oldest first."""
        return sorted({rev for view in self.servers.values() if view.manifest for rev in view.manifest.protocols or ()})

    @property
    def kinds(self) -> list[type[Load]]:
        """The kinds of load measured (mcpbench.loads), in the order of their first load."""
        return list(dict.fromkeys(k.kind for k in self.keys))

    def given(self, server: str) -> bool:
        """A server given on the command line with a workload of its own (`--command`, `--stdio`, `--target`),
        not one of the lineup's servers, nor a dimension's twin at one of its points."""
        manifest = self.servers[server].manifest if server in self.servers else None
        return bool(manifest and manifest.workload and not manifest.point
                    and not manifest.workload.startswith(model.DIMENSION_WORKLOAD))

    @property
    def of_lineup(self) -> bool:
        """Whether a server of the lineup was measured: what the lineup's pages (the v2 comparison, "Which stack
        for me") say something about."""
        return any(not self.given(server) for server in self.servers)

    def point_of(self, server: str) -> str | None:
        """The dimension point a twin measures (`mcpbench dimension`), None for a server as it is."""
        manifest = self.servers[server].manifest if server in self.servers else None
        return manifest.point if manifest else None

    @property
    def headline(self) -> LoadKey:
        """The load most servers were measured at (ties: the v2 study's kind first, then the highest load); a
        dimension's twins count only where nothing else was measured."""
        counts = Counter(k for s, k in self.groups if self.point_of(s) is None) or Counter(k for _, k in self.groups)
        return max(counts, key=lambda k: (counts[k], k.kind.v2_comparable, k.load))

    def sweeps(self) -> list[tuple[str, str]]:
        """(mode, kind) pairs measured at more than one load."""
        loads: dict[tuple[str, str], set] = {}
        for k in self.keys:
            loads.setdefault((k.mode, k.kind_name), set()).add(k.load)
        return [pair for pair, values in loads.items() if len(values) > 1]

    def all_rows(self) -> list[Row]:
        return [row for key in self.keys for row in self.rows.get(key, [])]

    def section(self, key: LoadKey, section: str) -> list[Row]:
        return [r for r in self.rows.get(key, []) if r.section == section]

    @property
    def ranking_alpha(self) -> float:
        """The level the rankings are tested at: ALPHA, or the per-look level a --rounds auto run spent."""
        return min([stats.ALPHA] + [d.ranking_alpha for d in self.dirs if d.ranking_alpha is not None])

    @property
    def equal_keys(self) -> list[LoadKey]:
        """The loads every server was offered at the same rate (an open model's given or equal rate)."""
        return [k for k in self.keys if k.equal_load]

    @property
    def equal_headline(self) -> LoadKey | None:
        """The equal load most servers were measured at (ties: the run's --equal-load first, then the lowest)."""
        counts = Counter(k for _, k in self.groups if k.equal_load)
        if not counts:
            return None
        return max(counts, key=lambda k: (counts[k], k.basis == "equal", -k.load))

    def throughput_limited(self, key: LoadKey) -> bool:
        """Whether a limit of the harness or the load model capped any server's throughput at this load."""
        return any(row.harness_bound for row in self.rows.get(key, []))

    @property
    def equal_lead_reason(self) -> str | None:
        """Why the equal load leads rather than the throughput headline, in one sentence (console and index):
        a limit capped some server's throughput, or no server's throughput has the rounds a test needs (the
        quick profile's --closed-once measures it once, to size the equal load). None: it does not lead."""
        key = self.headline
        if self.equal_headline is None or key.equal_load:
            return None
        rows = self.rows.get(key, [])
        bound = sum(1 for row in rows if row.harness_bound)
        if bound:
            return (f"{bound} of {len(rows)} servers reached a limit of the harness at {key.label}, so their "
                    "throughput says only “at least this much”; what each server spends per call at one rate "
                    "every server sustains compares them all.")
        if rows and all(row.runs < stats.MIN_ROUNDS for row in rows) and any(
                row.runs >= stats.MIN_ROUNDS for row in self.rows.get(self.equal_headline, [])):
            return (f"the throughput at {key.label} was measured in fewer than {stats.MIN_ROUNDS} rounds "
                    "(it sized the equal load), too few to test an order; the equal load was measured in every "
                    "round.")
        return None

    @property
    def leads_with_equal_load(self) -> bool:
        """The equal load leads the ranking when it is the headline, or equal_lead_reason says why it should."""
        return self.equal_headline is not None and (self.headline.equal_load or self.equal_lead_reason is not None)

    def equal_rows(self, key: LoadKey) -> list[Row]:
        """An equal load's rows: ranked by CPU ms per call (rows the efficiency ranking takes), then the rest
        (a server that could not keep up, or with another reason against it), by the rate it reached."""
        ranked = self.efficiency_rows(key, RANKED) + self.efficiency_rows(key, NOT_ASSESSED)
        shown = {r.server for r in ranked}
        rest = sorted((r for r in self.rows.get(key, []) if r.server not in shown),
                      key=lambda r: -(r.tool_calls_per_s or 0))
        return ranked + rest

    def equal_rate(self, key: LoadKey) -> float | None:
        """The rate the equal load offered (the mean over its measurements: the same in one run)."""
        rates = [r.rate for r in self.rows.get(key, []) if r.rate]
        return float(np.mean(rates)) if rates else (key.load if key.basis == "abs" else None)

    def efficiency_rows(self, key: LoadKey, section: str = RANKED) -> list[Row]:
        rows = [r for r in self.rows.get(key, []) if r.efficiency_section == section]
        return sorted(rows, key=lambda r: r.cpu.position if r.cpu.position is not None else 1e9)

    @property
    def twins(self) -> dict[str, str]:
        """--twin A/A twins: twin -> the server it is a second copy of (results.model.TWIN_WHAT_IF)."""
        return {name: view.manifest.variant_of for name, view in self.servers.items()
                if view.manifest and view.manifest.what_if == TWIN_WHAT_IF and view.manifest.variant_of is not None
                and view.manifest.variant_of in self.servers}

    def self_checks(self) -> list[SelfCheck]:
        """The run's A/A self-checks (_self_checks)."""
        return list(self._self_checks)

    @cached_property
    def _self_checks(self) -> tuple[SelfCheck, ...]:
        """Each twin against its original in every ranking of the loads both were measured at: the run's A/A
        check of itself and of the statistics (a separated twin is a false separation). Where the published
        rankings leave the twin or its original out (a flagged measurement, a server that fell behind), the check
        is made on every server measured at that load instead (flags included, the load's lead figure), and says
        so: an A/A check must not vanish when the host was busy."""
        out = []
        for twin, original in self.twins.items():
            mine = []
            for key in self.keys:
                for prefix, ranking in self.rankings.get(key, {}).items():
                    verdict = ranking.verdict(original, twin)
                    if verdict is not None and verdict.tested:
                        mine.append(SelfCheck(twin, original, key, RANKING_FIGURES.get(prefix, prefix), verdict))
            out += mine or self._measured_checks(twin, original)
        return tuple(out)   # made once: the console, the index and the precision page each read them

    def _measured_checks(self, twin: str, original: str) -> list[SelfCheck]:
        """The twin against its original in a ranking of every measurement at each load both have (flagged ones
        included) on the load's lead figure: CPU ms per call at an equal load, else tool calls/s."""
        out = []
        for key in self.keys:
            if (twin, key) not in self.groups or (original, key) not in self.groups:
                continue
            metric, figure = (("cpu_ms_per_call", RANKING_FIGURES["cpu_"]) if key.equal_load
                              else ("tool_calls_per_s", RANKING_FIGURES[""]))
            items = {}
            for (name, k), group in self.groups.items():
                if k == key:
                    runs = {rnd: v for (_, rnd), v in group.by_round(metric).items() if v}
                    if runs:
                        items[name] = runs
            if twin not in items or original not in items:
                continue
            ranking = stats.rank(items, higher_better=metric == "tool_calls_per_s")
            verdict = ranking.verdict(original, twin)
            if verdict is not None and verdict.tested:
                out.append(SelfCheck(twin, original, key, figure, verdict, scope=MEASURED_SCOPE))
        return out

    def self_check_untested(self, twin: str, original: str) -> str:
        """Why a twin could not be checked, in the words a reader can act on."""
        counts = {name: max((len([v for v in g.by_round("tool_calls_per_s").values() if v])
                             for (n, _), g in self.groups.items() if n == name), default=0)
                  for name in (twin, original)}
        if not all(counts.values()):
            missing = [n for n, c in counts.items() if not c]
            return f"{' and '.join(missing)} measured nothing"
        shared = [k for k in self.keys if (twin, k) in self.groups and (original, k) in self.groups]
        if not shared:
            return "the two were never measured at the same load"
        name, fewest = min(counts.items(), key=lambda item: item[1])
        return (f"{name} was measured in {fewest} round{'s' if fewest != 1 else ''}; a test needs "
                f"{stats.MIN_ROUNDS}")

    def self_check_lines(self) -> list[str]:
        """One sentence per twin: the A/A self-check as the console and the index say it."""
        out = []
        checks_all = self.self_checks()
        for twin, original in self.twins.items():
            checks = [c for c in checks_all if c.twin == twin]
            if not checks:
                out.append(f"A/A self-check: {twin} against {original}: not tested "
                           f"({self.self_check_untested(twin, original)})")
                continue
            failed = [c for c in checks if not c.passed]
            lead = next((c for c in checks if c.figure == RANKING_FIGURES["cpu_"]), checks[0])
            scope = f"; {lead.scope}" if lead.scope else ""
            if failed:
                out.append(f"A/A self-check FAILED: {'; '.join(c.text for c in failed)} — the same server measured "
                           "twice was told apart: read close separations of this run with caution")
            else:
                out.append(f"A/A self-check passed: {twin} is not separated from {original} in any of its "
                           f"{len(checks)} ranking{'s' if len(checks) != 1 else ''} ({lead.figure} "
                           f"{lead.verdict.ratio_text}, p Holm {lead.verdict.p_adjusted:.2g}{scope})")
        return out

    @property
    def schema1(self) -> bool:
        return any(d.schema_read == 1 for d in self.dirs)


# A self-check made outside the published rankings (Consolidated._measured_checks) says so.
MEASURED_SCOPE = "ranked with every server measured at that load, flagged measurements included"

# What each ranking of a load ranks, by its row prefix (Consolidated.rankings).
RANKING_FIGURES = {"": "tool calls/s", "cpu_": "CPU ms per call", "mem_": "peak memory",
                   "p50_": "p50 (all calls)", "p99_": "p99 (all calls)"}


@dataclass(frozen=True)
class SelfCheck:
    """A --twin against its original in one ranking: the run's A/A check. passed: not separated."""

    twin: str
    original: str
    key: LoadKey
    figure: str
    verdict: stats.Verdict
    scope: str = ""     # "" in a published ranking; MEASURED_SCOPE when the rankings left either out

    @property
    def passed(self) -> bool:
        return not self.verdict.significant

    @property
    def text(self) -> str:
        outcome = "not separated" if self.passed else "SEPARATED — a false separation"
        scope = f"; {self.scope}" if self.scope else ""
        return (f"{self.twin} against {self.original} on {self.figure} ({self.key.label}): {outcome} "
                f"({self.verdict.ratio_text}, p Holm {self.verdict.p_adjusted:.2g}{scope})")


def _missing_rounds(d: ResultsDir, server: str, key: LoadKey, present: set[int],
                    failures: list[Failure]) -> list[MissingRound]:
    out = []
    for rnd in range(1, d.rounds + 1):
        if rnd in present:
            continue
        why = next((f.why for f in failures if f.server == server and f.run_id == d.run_id
                    and f.what == "measurement" and f.run == rnd and f.load == key.label), None)
        if why is None:
            why = next((f"server {f.why}" for f in failures if f.server == server and f.run_id == d.run_id
                        and f.what == "server"), "not measured")
        out.append(MissingRound(d.run_id, rnd, d.rounds, why))
    return out


def described(row: Row, view: ServerView) -> Row:
    """The row with the server's name and stack from its manifest."""
    stack = stack_of(view.manifest)
    return replace(row, display_name=view.display_name, language=stack["language"], sdk=stack["sdk"],
                   sdk_version=stack["sdk_version"])


def consolidate(dirs: list[ResultsDir], allow_mixed: bool = False) -> Consolidated:
    if not dirs:
        raise ResultsError("no results directories given")
    differences = fingerprint_differences(dirs) + manifest_differences(dirs)
    if differences and not allow_mixed:
        raise MixedResultsError(differences)
    servers: dict[str, ServerView] = {}
    failures: list[Failure] = []
    warnings: list[str] = []
    set_aside: list[str] = []
    by_key: dict[tuple[str, LoadKey], list[Measurement]] = {}
    for d in dirs:
        if d.status != "complete":
            warnings.append(f"{d.run_id}: run status is {d.status!r}; only its finished measurements are used")
        set_aside += [f"{d.run_id}/{line}" for line in d.set_aside]
        for name, record in d.servers.items():
            servers.setdefault(name, ServerView(name, [])).records.append(record)
            if record.status != "ok":
                failures.append(Failure(name, d.run_id, "server", record.status, record.phase, record.reason))
        for m in d.measurements:
            if not m.ok:
                try:
                    label = m.key.label
                except ResultsError:
                    label = None
                failures.append(Failure(m.server, d.run_id, "measurement", m.status, m.summary.phase,
                                        m.summary.reason, m.mid, m.run, label))
                continue
            by_key.setdefault((m.server, m.key), []).append(m)
    groups: dict[tuple[str, LoadKey], Group] = {}
    for (server, key), ms in sorted(by_key.items(), key=lambda kv: (kv[0][0], kv[0][1].load)):
        ms.sort(key=lambda m: (m.results.run_id, m.run))
        runs = [read_run(m) for m in ms]
        for r in runs:
            recorded = r.summary.throughput.successful_tool_calls
            if recorded is not None and recorded != len(r.latency):
                warnings.append(f"{r.run_id}/{server}/{r.mid}: summary.json counts {recorded} successful tool "
                                f"calls in the window, samples.csv.gz has {len(r.latency)}")
        missing = []
        for d in dirs:
            present = {r.measurement.run for r in runs if r.run_id == d.run_id}
            if present:
                missing += _missing_rounds(d, server, key, present, failures)
        group = Group(server, key, runs, missing)
        groups[(server, key)] = group
        servers[server].groups.append(group)
    # `verify --probes` measures nothing and still has a page to show: the robustness probes
    probed = any(record.verify and record.verify.probes for view in servers.values() for record in view.records)
    if not groups and not probed:
        raise ResultsError("nothing was measured: no successful measurement in "
                           + ", ".join(str(d.path) for d in dirs))
    result = Consolidated(dirs, dict(sorted(servers.items())), groups, failures, differences, warnings,
                          set_aside=set_aside)
    for key in result.keys:
        # A run whose rounds stopped when its order was known is ranked at the level its looks spent. A
        # dimension's twins (`mcpbench dimension`: one server at several points) are ranked among the servers
        # of their own point, never against their own server at another point; `rankings` (what the decision
        # page's claims rest on) are the lineup's, without them.
        result.rankings[key] = {}
        by_point: dict[str | None, list[Group]] = {}
        for (s, k), g in groups.items():
            if k == key:
                by_point.setdefault(result.point_of(s), []).append(g)
        result.rows[key] = [described(row, result.servers[row.server])
                            for point, members in sorted(by_point.items(), key=lambda item: item[0] or "")
                            for row in rank(members, result.ranking_alpha,
                                            result.rankings[key] if point is None else {})]
    return result

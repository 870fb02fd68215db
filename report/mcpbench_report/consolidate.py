"""Merge results directories of one config and machine into per-server, per-load groups and ranked rows.

A group is one server at one load (mode + VUs, or mode + arrival rate) with every run of it found in the
results directories given. Runs are the unit for throughput; latency percentiles are pooled from the raw
samples of all runs (measured window only) through mcpbench.stats.latency_stats.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd
from mcpbench.stats import latency_stats

from . import stats
from .load import TOOL_LIST, LoadKey, Measurement, ResultsDir, ResultsError, ServerRecord, http_durations, in_window

# What must be equal for results to be merged or compared. Left out on purpose: the servers, modes, VUs,
# rates and run counts (they say which measurements exist, and each load is its own group), hostname,
# git commit and the language toolchains (upgrading those is what `compare` is for).
CONFIG_FINGERPRINT = ("runtime", "ramp_up_s", "warmup_s", "duration_s", "ramp_down_s", "think_time_s",
                      "profile.cpus", "profile.memory_mb")
ENVIRONMENT_FINGERPRINT = ("cpu_model", "cores", "memory_gb", "os", "kernel", "cgroup.version", "cgroup.applied",
                           "tools.k6", "tools.redis")
MANIFEST_FINGERPRINT = ("language", "runtime", "sdk", "sdk_version", "framework")
TIMESERIES_MAX_POINTS = 240


class MixedResultsError(ResultsError):
    def __init__(self, differences: list[str]):
        self.differences = differences
        lines = "\n  ".join(differences)
        super().__init__("the results differ in config or environment and cannot be merged:\n  " + lines +
                         "\n(pass --allow-mixed to merge them anyway; the report will list these differences)")


def dotted(data: dict, path: str) -> Any:
    for part in path.split("."):
        if not isinstance(data, dict):
            return None
        data = data.get(part)
    return data


def fingerprint(results: ResultsDir) -> dict[str, Any]:
    fp: dict[str, Any] = {f"config.{k}": dotted(results.config, k) for k in CONFIG_FINGERPRINT}
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


def manifest_differences(dirs: list[ResultsDir]) -> list[str]:
    """Servers measured in several results directories with different stacks (e.g. another SDK version)."""
    out = []
    names = sorted({n for d in dirs for n in d.servers})
    for name in names:
        records = [(d.run_id, d.servers[name].manifest) for d in dirs if name in d.servers and d.servers[name].manifest]
        for key in MANIFEST_FINGERPRINT:
            values = {run_id: m.get(key) for run_id, m in records}
            if len({repr(v) for v in values.values()}) > 1:
                out.append(f"server {name} {key}: " + ", ".join(f"{v!r} ({r})" for r, v in values.items()))
    return out


@dataclass
class RunData:
    """One measurement reduced to what the report needs (the raw frame is dropped after reading)."""

    measurement: Measurement
    window: tuple[float, float]
    tool_calls_per_s: float
    v2_rps: float | None
    per_second: np.ndarray            # successful tool calls per second of the window
    latency: np.ndarray               # successful tool calls' call_ms in the window
    latency_t: np.ndarray             # their end times (s)
    per_tool: dict[str, np.ndarray]
    http: np.ndarray                  # every HTTP request duration of the window's sessions
    tool_calls: int
    failed: Counter
    p99: float | None                 # this run's own p99: a test statistic for compare, never averaged
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
    def summary(self) -> dict:
        return self.measurement.summary


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


def read_run(m: Measurement) -> RunData:
    df = m.samples()
    window = m.window
    win = in_window(df, window)
    calls = win[win["tool"] != TOOL_LIST]
    good = calls[calls["ok"] == 1]
    everything = df[(df["tool"] != TOOL_LIST) & (df["ok"] == 1)]
    seconds = window[1] - window[0]
    throughput = m.summary.get("throughput") or {}
    tps = throughput.get("tool_calls_per_s")
    if tps is None:
        tps = len(good) / seconds if seconds > 0 else 0.0
    latency = good["call_ms"].to_numpy(dtype=float)
    failed = Counter(calls.loc[calls["ok"] != 1, "error_kind"].replace("", "unknown"))
    return RunData(
        measurement=m, window=window, tool_calls_per_s=float(tps), v2_rps=throughput.get("v2_rps"),
        per_second=stats.per_second_counts(good["t_s"].to_numpy(), window), latency=latency,
        latency_t=good["t_s"].to_numpy(dtype=float),
        per_tool={tool: g["call_ms"].to_numpy(dtype=float) for tool, g in good.groupby("tool")},
        http=http_durations(win).to_numpy(), tool_calls=len(calls), failed=failed,
        p99=latency_stats(latency)["p99"],
        all_t=everything["t_s"].to_numpy(dtype=float), all_ms=everything["call_ms"].to_numpy(dtype=float),
    )


@dataclass
class Group:
    server: str
    key: LoadKey
    runs: list[RunData]

    @property
    def throughputs(self) -> list[float]:
        return [r.tool_calls_per_s for r in self.runs]

    @property
    def per_second(self) -> list[np.ndarray]:
        return [r.per_second for r in self.runs]

    @property
    def pooled_latency(self) -> np.ndarray:
        return np.concatenate([r.latency for r in self.runs]) if self.runs else np.array([])

    def figures(self) -> dict:
        """Every figure of the group (one row of the consolidated table, before ranking)."""
        runs = self.runs
        tput = stats.throughput_interval(self.throughputs, self.per_second)
        v2 = stats.mean_interval([r.v2_rps for r in runs if r.v2_rps is not None])
        latency = latency_stats(self.pooled_latency)
        tools = sorted({t for r in runs for t in r.per_tool})
        per_tool = {t: latency_stats(np.concatenate([r.per_tool.get(t, np.array([])) for r in runs])) for t in tools}
        http = latency_stats(np.concatenate([r.http for r in runs])) if runs else latency_stats([])
        tool_calls = sum(r.tool_calls for r in runs)
        failed: Counter = sum((r.failed for r in runs), Counter())
        res = [((r.summary.get("resources") or {}).get("server") or {}) for r in runs]

        def avg(key):
            vals = [x[key] for x in res if x.get(key) is not None]
            return float(np.mean(vals)) if vals else None

        def peak(key):
            vals = [x[key] for x in res if x.get(key) is not None]
            return float(max(vals)) if vals else None

        cpu_avg, mem_avg = avg("cpu_avg_pct"), avg("mem_avg_mb")
        flags = Counter(f for r in runs for f in (r.summary.get("flags") or []))
        eff = stats.efficiency(tput.mean, cpu_avg, mem_avg)
        return {
            "server": self.server, "mode": self.key.mode, "executor": self.key.executor,
            "vus": self.key.load if self.key.executor == "closed" else None,
            "rate": self.key.load if self.key.executor == "open" else None,
            "load": self.key.load, "config": self.key.label,
            "runs": len(runs), "run_ids": sorted({r.run_id for r in runs}),
            "measurements": [f"{r.run_id}/{self.server}/{r.mid}" for r in runs],
            "tool_calls_per_s": tput.mean, "tool_calls_per_s_sd": tput.std, "cv": tput.cv,
            "ci_low": tput.low, "ci_high": tput.high, "ci_method": tput.method,
            "per_run_tool_calls_per_s": self.throughputs,
            "v2_rps": v2.mean,
            **{f"latency_{k}_ms": latency[k] for k in ("avg", "min", "p50", "p90", "p95", "p99", "p999", "max")},
            "latency_count": latency["count"],
            "per_tool": per_tool,
            "http_avg_ms": http["avg"], "http_p95_ms": http["p95"], "http_p99_ms": http["p99"],
            "tool_calls": tool_calls, "errors": sum(failed.values()),
            "error_rate": (sum(failed.values()) / tool_calls) if tool_calls else None,
            "error_kinds": dict(sorted(failed.items())),
            "cpu_avg_pct": cpu_avg, "cpu_peak_pct": peak("cpu_peak_pct"),
            "mem_avg_mb": mem_avg, "mem_peak_mb": peak("mem_peak_mb"),
            "calls_per_core": eff["per_core"], "calls_per_gb": eff["per_gb"],
            "dropped_iterations": sum(int((r.summary.get("throughput") or {}).get("dropped_iterations") or 0)
                                      for r in runs),
            "flags": [f"{f} ({n}/{len(runs)} runs)" if n < len(runs) else f for f, n in sorted(flags.items())],
            "flag_names": sorted(flags),
        }


@dataclass
class Failure:
    server: str
    run_id: str
    what: str            # "server" | "measurement"
    status: str
    phase: str | None
    reason: str | None
    measurement: str | None = None


@dataclass
class ServerView:
    name: str
    records: list[ServerRecord]
    groups: list[Group] = field(default_factory=list)

    @property
    def manifest(self) -> dict:
        for record in reversed(self.records):
            if record.manifest:
                return record.manifest
        return {}

    @property
    def display_name(self) -> str:
        return str(self.manifest.get("display_name") or self.name)

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
    rows: dict[LoadKey, list[dict]] = field(default_factory=dict)

    @property
    def keys(self) -> list[LoadKey]:
        return sorted({k for _, k in self.groups}, key=lambda k: (k.mode, k.executor, k.load))

    @property
    def headline(self) -> LoadKey:
        """The load most servers were measured at (ties: closed before open, then the highest load)."""
        counts = Counter(k for _, k in self.groups)
        return max(counts, key=lambda k: (counts[k], k.executor == "closed", k.load))

    def sweeps(self) -> list[tuple[str, str]]:
        """(mode, executor) pairs measured at more than one load."""
        loads: dict[tuple[str, str], set] = {}
        for k in self.keys:
            loads.setdefault((k.mode, k.executor), set()).add(k.load)
        return [pair for pair, values in loads.items() if len(values) > 1]

    def all_rows(self) -> list[dict]:
        return [row for key in self.keys for row in self.rows.get(key, [])]


def rank(groups: list[Group]) -> list[dict]:
    """Rows of one load sorted by throughput with tiers: shared where the gap is not significant."""
    figures = [(g, g.figures()) for g in groups]
    figures.sort(key=lambda gf: -(gf[1]["tool_calls_per_s"] or 0.0))
    verdicts = [stats.throughput_difference(a.throughputs, b.throughputs, a.per_second, b.per_second)
                for (a, _), (b, _) in zip(figures, figures[1:])]
    tiers = stats.tiers([v.significant and (v.diff or 0) < 0 for v in verdicts])
    labels = stats.rank_labels(tiers)
    rows = []
    for i, (_, row) in enumerate(figures):
        row["tier"] = tiers[i]
        row["rank"] = labels[i]
        verdict = verdicts[i] if i < len(verdicts) else None
        row["vs_next"] = verdict.text if verdict else None
        row["vs_next_significant"] = verdict.significant if verdict else None
        row["vs_next_few_runs"] = verdict.few_runs if verdict else None
        rows.append(row)
    return rows


def consolidate(dirs: list[ResultsDir], allow_mixed: bool = False) -> Consolidated:
    if not dirs:
        raise ResultsError("no results directories given")
    differences = fingerprint_differences(dirs) + manifest_differences(dirs)
    if differences and not allow_mixed:
        raise MixedResultsError(differences)
    servers: dict[str, ServerView] = {}
    failures: list[Failure] = []
    warnings: list[str] = []
    by_key: dict[tuple[str, LoadKey], list[Measurement]] = {}
    for d in dirs:
        if d.status != "complete":
            warnings.append(f"{d.run_id}: run status is {d.status!r}; only its finished measurements are used")
        for name, record in d.servers.items():
            servers.setdefault(name, ServerView(name, [])).records.append(record)
            if record.status != "ok":
                failures.append(Failure(name, d.run_id, "server", record.status, record.phase, record.reason))
        for m in d.measurements:
            if not m.ok:
                failures.append(Failure(m.server, d.run_id, "measurement", m.status, m.summary.get("phase"),
                                        m.summary.get("reason"), m.mid))
                continue
            by_key.setdefault((m.server, m.key), []).append(m)
    groups: dict[tuple[str, LoadKey], Group] = {}
    for (server, key), ms in sorted(by_key.items(), key=lambda kv: (kv[0][0], kv[0][1].load)):
        ms.sort(key=lambda m: (m.results.run_id, m.run))
        runs = [read_run(m) for m in ms]
        for r in runs:
            recorded = (r.summary.get("throughput") or {}).get("successful_tool_calls")
            if recorded is not None and recorded != len(r.latency):
                warnings.append(f"{r.run_id}/{server}/{r.mid}: summary.json counts {recorded} successful tool "
                                f"calls in the window, samples.csv.gz has {len(r.latency)}")
        group = Group(server, key, runs)
        groups[(server, key)] = group
        servers[server].groups.append(group)
    if not groups:
        raise ResultsError("nothing was measured: no successful measurement in "
                           + ", ".join(str(d.path) for d in dirs))
    result = Consolidated(dirs, dict(sorted(servers.items())), groups, failures, differences, warnings)
    for key in result.keys:
        result.rows[key] = rank([g for (s, k), g in groups.items() if k == key])
        for row in result.rows[key]:
            view = result.servers[row["server"]]
            manifest = view.manifest
            row.update(display_name=view.display_name, language=manifest.get("language"), sdk=manifest.get("sdk"),
                       sdk_version=manifest.get("sdk_version"))
    return result

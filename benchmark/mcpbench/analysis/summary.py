"""From raw samples to the figures of one measurement — inside the measured window only.

Every figure of summary.json (docs/results-format.md, schema 2) is defined here once, with each threshold
a named constant; the suite, `calibrate` and the fixtures call `summarize`, the report reads its output.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mcpbench import loads as load_kinds
from mcpbench.analysis.stats import latency_stats
from mcpbench.loads.base import RecordedLoad, StageSpan
from mcpbench.results import upgrades
from mcpbench.results.layout import MeasurementDir, measurement_dir
from mcpbench.results.model import (
    FIRST_MS,
    SCHEMA,
    Checks,
    ComponentFigures,
    Context,
    Efficiency,
    Errors,
    Host,
    Latency,
    LatencyStats,
    Limit,
    LoadgenCounts,
    LoadInstance,
    MeasurementStatus,
    Probe,
    Recovery,
    Sample,
    StageFigures,
    Summary,
    Throughput,
    Window,
    document,
    parsed,
)
from mcpbench.results.read import http_durations, read_json, read_samples, resource_samples
from mcpbench.workload.file import with_call_kinds

# A harness component is called saturated when its mean CPU over the window reaches this share of what
# it can use (Redis is single-threaded: one core at most).
SATURATION = 0.85
LOADGEN = "loadgen"  # the load generator's component (resources.csv, bound:loadgen); "k6" before schema 3
HARNESS = (LOADGEN, "redis", "api")
# Foreign CPU (the host's busy time minus every component we run) above this share of one core marks
# a measurement as taken on a noisy machine.
FOREIGN_CPU_LIMIT_PCT = 25.0
OWN = ("server", LOADGEN, "redis", "api")
# Host stability: the fixed-work probe may move this much (relative) between before and after the load,
# and a CPU's mean steal may reach this share of the window, before the host counts as unstable. The probe's
# own spread is a few % (a first run's 93 probes: median |change| 2.4 %, 90th percentile 5.0 %), and a ranking
# rests on rounds whose CPU per call varies 10-20 % between starts: replayed on that run's six rounds
# (scripts/unstable_threshold.py), keeping every measurement whose probe moved up to 15 % (none moved more)
# instead of measuring it again separated no A/A twin in 1,000 replays, and kept the power at x2 and x1.3,
# where 5 % measured 6 of 72 again and left one server unranked (docs/measurement.md).
HOST_PROBE_MAX_CHANGE = 0.15
HOST_MAX_STEAL_PCT = 2.0
# A load at this share of the limit it is judged against measures that limit, not the server (calibrate.py):
# a closed-model throughput against the closed model's own limit at its VUs (LOAD_MODEL), an open-model
# offered rate against the harness's open-model capacity (HARNESS_CAPACITY).
LIMIT_FRACTION = 0.80
LOAD_MODEL = "load-model"
HARNESS_CAPACITY = "harness-capacity"
# A measurement that had no calibrated limit to be judged against (calibration skipped or failed) is flagged
# so: whether the harness or the load model limited it is not known, so it is never publishable.
NO_LIMIT_FLAG = "limit-unknown"
# resources.csv: each reading is stamped when read and covers the sampler's interval before it; a reading
# belongs to the window when the middle of that interval does.
SAMPLE_INTERVAL_S = 1.0
# k6's own counts may differ from the samples by this share (beyond the iterations in flight at the end).
COUNT_TOLERANCE = 0.01
# Little's law (closed model): VUs = iterations/s x iteration time; a larger relative gap is flagged.
LITTLES_LAW_MAX_GAP = 0.10
# Samples must reach this close to the window's end, or k6 stopped early.
LAST_SAMPLE_SLACK_S = 1.0
# The open model: more than this share of the offered calls never started flags the measurement.
DROPPED_MAX_SHARE = 0.01
# Load instances on other hosts are placed on one clock by their scenario starts, each corrected by its node's
# measured clock offset. Clocks that NTP keeps (any cloud VM) agree within a few ms; beyond this bound a node's
# clock is not kept, and one offset measured before the test is no longer trusted to hold during it.
CLOCK_OFFSET_BOUND_MS = 100.0
CLOCK_OFFSET = "clock-offset"
LOADGEN_PHASE = "loadgen"  # an invalid measurement whose load generator's cross-checks failed
# A server that stops answering (docs/faults.md): the calls it leaves unanswered time out at the request timeout
# (the one named in loads/timing.py, recorded in context.json) and the generator records each as a `timeout`
# sample. A timeout the generator noticed later than this after the timeout says the generator itself was not
# running (stopped, starved of CPU): then the silence is the harness's, not the server's.
TIMEOUT_KIND = "timeout"
TIMEOUT_NOTICED_SLACK_S = 2.0
SERVER_FAILED_PHASE = "load"  # a measurement the server failed: it exited, or it stopped answering
# Flags that make a measurement harness-limited: any flag with this prefix.
HARNESS_BOUND_PREFIX = "bound:"
# What each bound flag says limited the throughput, in the words every page uses (never just "the harness").
LIMITED_BY = {
    f"{HARNESS_BOUND_PREFIX}{LOAD_MODEL}": "the load model (its VUs and think time)",
    f"{HARNESS_BOUND_PREFIX}{HARNESS_CAPACITY}": "the harness's open-model capacity",
    f"{HARNESS_BOUND_PREFIX}{LOADGEN}": "the load generator's CPU",
    f"{HARNESS_BOUND_PREFIX}redis": "Redis's CPU",
    f"{HARNESS_BOUND_PREFIX}api": "the API service's CPU",
    f"{HARNESS_BOUND_PREFIX}harness": "the harness's CPU (its components together)",
}


# The flags that say the host, not the server, disturbed a measurement (foreign programs' CPU, or the fixed-work
# probe changing between before and after): such a measurement is measured again once on a fresh start
# (experiments/runner.py ServerRound.measure_load).
NOISY_HOST = "noisy-host"
UNSTABLE_HOST = "unstable-host"
HOST_FLAGS = (NOISY_HOST, UNSTABLE_HOST)


def host_disturbed(status: str | None, flags: list[str] | None) -> bool:
    """An ok measurement the host disturbed (noisy or unstable): measured again, nothing the server did."""
    return status == "ok" and any(flag in HOST_FLAGS for flag in flags or [])


def is_bound(flag: str) -> bool:
    """Whether a flag says something other than the server limited the measurement (a `bound:` flag)."""
    return flag.startswith(HARNESS_BOUND_PREFIX)


def limited_by(flags: Iterable[str]) -> list[str]:
    """The limits a measurement's bound flags name, in words (an unknown bound flag by its own name)."""
    return [LIMITED_BY.get(flag, flag) for flag in flags if is_bound(flag)]
SESSION_MODE = "session"


in_window = load_kinds.in_window  # the one window filter (also the report's)


def _http_entries(column: pd.Series) -> pd.Series:
    return column.fillna("").astype(str)


def _http_counts(column: pd.Series) -> pd.Series:
    """HTTP requests per sample: the entries of its ';'-joined http_ms list."""
    text = _http_entries(column)
    return (text.str.count(";") + 1).where(text != "", 0)


def v2_requests(samples: pd.DataFrame, mode: str) -> int:
    """Requests the published v2 study's k6 script counted in its `mcp_requests` counter: initialize,
    tools/call and tools/list — not notifications/initialized, not DELETE.

    session mode: a sample's http_ms lists initialize, the notification, the call, [DELETE]; a failed step
    ends the list. So initialize was sent when the list has >= 1 entry and the call when it has >= 3.
    stateless/stateless-2026/persistent: one request per sample, the call. persistent mode opens its session (initialize
    + notification) once per VU outside any sample; the v2 study counted that initialize, we do not (one
    request per VU in the whole test). A persistent sample whose session could not be opened holds the
    failed opening's one request instead of a call, and counts 1 as well (an initialize was sent).
    """
    counts = _http_counts(samples["http_ms"])
    if mode == SESSION_MODE:
        return int((counts >= 1).sum() + (counts >= 3).sum())
    return int((counts >= 1).sum())


def throughput(samples: pd.DataFrame, window: tuple[float, float], ctx: Context) -> Throughput:
    """Throughput over the measured window, and the v2 study's count over the whole run:
    tool_calls_per_s = successful tool calls / s (the primary figure; tools/list is no tool call);
    v2_rps / v2_requests = the v2 study's request count (v2_requests), over the window;
    v2_rps_whole_run / v2_requests_whole_run = the same over every sample, per second of the generator's run;
    http_rps / http_requests = every HTTP request of every sample (the figure v2_rps used to be);
    iterations_per_s = samples that end an iteration / s (closed model: the lineup's tools/list, one per
    iteration; the workload's own, load_kinds.iteration_end); dropped_iterations = the open model's calls
    never started (dropped_iterations)."""
    seconds = window[1] - window[0]
    inside = in_window(samples, window)
    calls = load_kinds.tool_calls(inside)
    ok_calls = int(calls["ok"].sum())
    http_requests = int(_http_counts(inside["http_ms"]).sum())
    v2, whole_run = v2_requests(inside, ctx.mode), v2_requests(samples, ctx.mode)
    return Throughput(
        tool_calls_per_s=ok_calls / seconds, successful_tool_calls=ok_calls, tool_calls=int(len(calls)),
        v2_rps=v2 / seconds, v2_requests=v2,
        v2_rps_whole_run=whole_run / ctx.loadgen_run_s if ctx.loadgen_run_s else None,
        v2_requests_whole_run=whole_run, loadgen_run_s=ctx.loadgen_run_s,
        http_rps=http_requests / seconds, http_requests=http_requests,
        iterations_per_s=_iterations(inside, closed_iteration(ctx)) / seconds,
        dropped_iterations=dropped_iterations(inside, seconds, ctx.rate))


def dropped_iterations(inside: pd.DataFrame, seconds: float, rate: float | None) -> int:
    """The open model's shortfall: calls the arrival rate asked for in the window but never finished (none
    without a rate: the closed model asks for none)."""
    if not rate:
        return 0
    return max(0, round(rate * seconds) - len(load_kinds.tool_calls(inside)))


def closed_iteration(ctx: Context) -> tuple[str, ...] | None:
    """The closed model's iteration the context recorded, as the kinds of load read it (None: the lineup's)."""
    return tuple(ctx.iteration) if ctx.iteration is not None else None


def _iterations(samples: pd.DataFrame, iteration: tuple[str, ...] | None) -> float:
    end, times = load_kinds.iteration_end(iteration)
    return int((samples["tool"] == end).sum()) / times


def all_calls_latency_ms(calls: pd.DataFrame, request_timeout_s: float) -> np.ndarray:
    """Every tool call's latency, failures included: a timeout at the request timeout, any other failure at
    the time it was observed (the call's duration, or the session's when the call was never sent)."""
    observed = calls["call_ms"].where(calls["call_ms"].notna(), calls["session_ms"])
    timed_out = calls["error_kind"] == "timeout"
    return observed.where(~timed_out, request_timeout_s * 1000.0).dropna().to_numpy(dtype=float)


# Session mode's requests of one sample, in the order its http_ms lists them (the load driver's sessionCall,
# load.js's): the one definition of which step each duration is (docs/results-format.md `steps`).
SESSION_STEPS = ("initialize", "notifications/initialized", "request", "DELETE")
HANDSHAKE_STEPS = ("initialize", "notifications/initialized")


def latency_figures(values: np.ndarray) -> LatencyStats:
    """latency_stats' figures of raw latencies (ms), as summary.json records them."""
    return LatencyStats(**latency_stats(values))


def session_steps(ok_samples: pd.DataFrame, mode: str) -> tuple[dict[str, LatencyStats], float | None]:
    """Every step of a session apart — initialize, notifications/initialized, each method's request (tools/call,
    tools/list, and any other a workload made) and DELETE — from the successful samples' http_ms; and the
    handshake's share of a session: the median over the successful counted calls' sessions of (initialize +
    notifications/initialized) / the whole session. Outside session mode a sample is its one request: each
    method's apart, and no handshake."""
    if not len(ok_samples):
        return {}, None
    method = load_kinds.methods_of(ok_samples)
    # Each method's requests apart: the lineup's tools/call and tools/list always when those are all there is,
    # else the methods the workload made.
    lineup = ["tools/call", load_kinds.LIST_TOOLS]
    made = set(method)
    requests = lineup if made <= set(lineup) else [m for m in lineup if m in made] + sorted(made - set(lineup))
    if mode != SESSION_MODE:
        return {name: latency_figures(ok_samples.loc[method == name, "call_ms"].dropna().to_numpy(dtype=float))
                for name in requests}, None
    parts = _http_entries(ok_samples["http_ms"]).str.split(";", expand=True)
    parts = parts.reindex(columns=range(len(SESSION_STEPS))).apply(pd.to_numeric, errors="coerce")
    steps: dict[str, LatencyStats] = {}
    for at, step in enumerate(SESSION_STEPS):
        if step == "request":
            for name in requests:
                steps[name] = latency_figures(parts.loc[method == name, at].dropna().to_numpy(dtype=float))
        else:
            steps[step] = latency_figures(parts[at].dropna().to_numpy(dtype=float))
    steps = {name: figures for name, figures in steps.items() if figures.count}  # DELETE: none when stateless
    calls = load_kinds.counted(ok_samples) & ok_samples["session_ms"].gt(0)
    handshake = parts.loc[calls, 0] + parts.loc[calls, 1]
    shares = (handshake / ok_samples.loc[calls, "session_ms"]).dropna()
    return steps, float(np.median(shares)) if len(shares) else None


def latency(window_samples: pd.DataFrame, request_timeout_s: float, mode: str = SESSION_MODE) -> Latency:
    """One population per figure: tool_call, per_tool, session and http_request are successful samples
    only; tool_call_all is every tool call; v2_tools_call is every tools/call request sent (the v2 study
    averaged per-tool percentiles of it, which we never do: samples are pooled)."""
    calls = load_kinds.tool_calls(window_samples)
    ok_calls = calls[calls["ok"] == 1]
    ok_samples = window_samples[window_samples["ok"] == 1]
    steps, handshake_share = session_steps(ok_samples, mode)
    streamed = FIRST_MS in ok_calls.columns and ok_calls[FIRST_MS].notna().any()
    return Latency(
        tool_call=latency_figures(ok_calls["call_ms"].dropna().to_numpy()),
        tool_call_all=latency_figures(all_calls_latency_ms(calls, request_timeout_s)),
        per_tool={tool: latency_figures(ok_calls.loc[ok_calls["tool"] == tool, "call_ms"].dropna().to_numpy())
                  for tool in calls["tool"].unique()},  # the workload's tools, as first called
        session=latency_figures(ok_calls["session_ms"].dropna().to_numpy()),
        http_request=latency_figures(http_durations(ok_samples).to_numpy(dtype=float)),
        v2_tools_call=latency_figures(calls["call_ms"].dropna().to_numpy()),
        steps=steps,
        handshake_share=handshake_share,
        first_progress=latency_figures(ok_calls[FIRST_MS].dropna().to_numpy(dtype=float)) if streamed else None,
    )


# The error kind of a call the client cancelled on purpose (a workload's cancel_after_ms): no failure of anyone's.
CANCELLED = "cancelled"
# An abandoning stdio client's requests: sent and never read ("unread"), or not taken by a server that had stopped
# reading its input ("stdin_full", the back-pressure a server should apply): what the client chose, no failure.
UNREAD, STDIN_FULL = "unread", "stdin_full"
NO_FAILURE = (CANCELLED, UNREAD, STDIN_FULL)


def errors(window_samples: pd.DataFrame) -> Errors:
    """count = failed samples (tools/list included; a call the client cancelled or chose not to read is none),
    failed_tool_calls, rate =
    failed tool calls / tool calls, kinds = failed samples per error_kind."""
    calls = load_kinds.tool_calls(window_samples)
    failed = window_samples[(window_samples["ok"] == 0) & ~window_samples["error_kind"].isin(NO_FAILURE)]
    failed_calls = int(((calls["ok"] == 0) & ~calls["error_kind"].isin(NO_FAILURE)).sum())
    return Errors(count=int(len(failed)), failed_tool_calls=failed_calls,
                  rate=failed_calls / len(calls) if len(calls) else None,
                  kinds={str(k): int(v) for k, v in failed["error_kind"].value_counts().items()})


def resource_figures(samples: Iterable[Sample], window: tuple[float, float]) -> dict[str, ComponentFigures]:
    """avg/peak CPU and memory per component over the readings whose interval lies in the window: a reading
    stamped at t covers (t - SAMPLE_INTERVAL_S, t], so it counts when its middle is in [start, end)."""
    start, end = window
    frame = pd.DataFrame([s.__dict__ for s in samples], columns=["t_s", "component", "cpu_pct", "mem_mb"])
    middle = frame["t_s"] - SAMPLE_INTERVAL_S / 2
    frame = frame[(middle >= start) & (middle < end)]
    return {str(component): _component_figures(group) for component, group in frame.groupby("component")}


def _component_figures(readings: pd.DataFrame) -> ComponentFigures:
    """One component's figures over its readings in a span."""
    some = len(readings) > 0
    return ComponentFigures(cpu_avg_pct=float(readings["cpu_pct"].mean()) if some else None,
                            cpu_peak_pct=float(readings["cpu_pct"].max()) if some else None,
                            mem_avg_mb=float(readings["mem_mb"].mean()) if some else None,
                            mem_peak_mb=float(readings["mem_mb"].max()) if some else None,
                            samples=int(len(readings)))


def _cpu(resources: dict[str, ComponentFigures], component: str) -> float | None:
    """A component's mean CPU in the window (None: not sampled)."""
    figures = resources.get(component)
    return figures.cpu_avg_pct if figures else None


def bottleneck_flags(resources: dict[str, ComponentFigures], harness_cores: int,
                     load_instances: list[LoadInstance] | None = None) -> list[str]:
    """The harness components that saturated their CPUs. A load generator on several hosts (the swarm) is
    judged host by host (LOADGEN@<node> against that node's CPUs), not as one total against one host's."""
    flags = []
    capacity = 100.0 * max(harness_cores, 1)
    usable = {LOADGEN: capacity, "api": capacity, "redis": min(capacity, 100.0)}
    node_cpus = {part.node: part.node_cpus or 1 for part in load_instances or []}
    for component in HARNESS:
        if component == LOADGEN and node_cpus:
            saturated = any((_cpu(resources, f"{LOADGEN}@{node}") or 0.0) >= SATURATION * 100.0 * cpus
                            for node, cpus in node_cpus.items())
            if saturated:
                flags.append(f"{HARNESS_BOUND_PREFIX}{LOADGEN}")
            continue
        cpu = _cpu(resources, component)
        if cpu is not None and cpu >= SATURATION * usable[component]:
            flags.append(f"{HARNESS_BOUND_PREFIX}{component}")
    # Together on one host: the whole harness here, Redis and the API service on a swarm's infra node.
    together = ("redis", "api") if node_cpus else HARNESS
    total = sum(_cpu(resources, c) or 0.0 for c in together)
    if total >= SATURATION * capacity and not flags:
        flags.append(f"{HARNESS_BOUND_PREFIX}harness")
    return flags


def noisy_host(resources: dict[str, ComponentFigures]) -> float | None:
    """Mean foreign CPU % in the window, or None when the host was not sampled. Only the `host` component
    and our own processes (OWN) enter: the per-CPU `cpu<N>`/`steal<N>` readings are another view."""
    host = _cpu(resources, "host")
    if host is None:
        return None
    own = sum(_cpu(resources, c) or 0.0 for c in OWN)
    return max(0.0, host - own)


def host_stability(resources: dict[str, ComponentFigures], ctx: Context) -> Host:
    """Per-CPU busy and steal in the window, the speed probe's change, and whether the host was unstable."""
    # Unpinned, every CPU sampled: this machine's ("3") or each swarm node's ("3@load1").
    cpus: list[int] | list[str] = sorted(set(ctx.server_cpus) | set(ctx.harness_cpus))
    if not cpus:
        cpus = sorted((name[5:] for name in resources if name.startswith("steal") and name[5:6].isdigit()),
                      key=lambda cpu: (cpu.partition("@")[2], int(cpu.partition("@")[0])))
    steal = {str(c): _cpu(resources, f"steal{c}") for c in cpus}
    busy = {str(c): _cpu(resources, f"cpu{c}") for c in cpus}
    probe: dict[str, Probe] = {}
    reasons = []
    for cpu, reading in (ctx.host_probe or {}).items():
        before, after = reading.before_s, reading.after_s
        change = after / before - 1 if before and after else None
        probe[str(cpu)] = Probe(before_s=before, after_s=after, change=change)
        if change is not None and abs(change) > HOST_PROBE_MAX_CHANGE:
            reasons.append(f"CPU {cpu}: the speed probe moved {change:+.1%} during the measurement")
    for cpu, pct in steal.items():
        if pct is not None and pct > HOST_MAX_STEAL_PCT:
            reasons.append(f"CPU {cpu}: {pct:.1f} % of the window was stolen by the hypervisor")
    return Host(probe=probe, probe_server_paused=ctx.probe_server_paused, steal_pct=steal, busy_pct=busy,
                server_cpus=list(ctx.server_cpus), harness_cpus=list(ctx.harness_cpus), unstable=bool(reasons),
                reasons=reasons)


def littles_law(samples: pd.DataFrame, window: tuple[float, float], ctx: Context) -> dict[str, float] | None:
    """The load generator's self-check (L = lambda x W), recorded in checks.littles_law, as the load's
    kind reads it (scenarios/: the closed model compares it with its VUs; the open model records the mean
    number of calls in flight). `summarize` flags a gap above LITTLES_LAW_MAX_GAP."""
    seconds = window[1] - window[0]
    if samples.empty or seconds <= 0:
        return None
    return load_kinds.kind(ctx.kind).littles_law(samples, window, ctx.vus, ctx.think_time_s, closed_iteration(ctx))


# HTTP requests a VU may have sent that no sample holds, per mode: a session cut short when k6 stopped
# (up to its 4 requests), or a call cut short (1); persistent mode also opens its session once per VU
# (initialize + notification) outside any sample, + the cut-short call.
UNSAMPLED_HTTP_PER_VU = {"session": 4, "stateless": 1, "persistent": 3, "stateless-2026": 1}


def count_allowance(theirs: int, ctx: Context, per_vu: int) -> float:
    """How far k6's count may be from the samples' before it is a disagreement: COUNT_TOLERANCE of k6's
    count, or what the VUs still in flight when k6 stopped can explain (per_vu each), whichever is larger.
    k6 counts only iterations that ran to their end, but counts every HTTP request sent; a sample is only
    written when its session ends."""
    return max(COUNT_TOLERANCE * theirs, load_kinds.kind(ctx.kind).max_vus(ctx.vus) * per_vu)


def loadgen_checks(samples: pd.DataFrame, inside: pd.DataFrame, window: tuple[float, float], ctx: Context,
                   littles: dict[str, float] | None) -> Checks:
    """k6 cross-checked against itself: its exit code, its own counts against the samples, samples that
    end early or leave a second of the window empty. Any problem makes the measurement invalid. (Little's
    law is recorded here but only flagged: a gap says the load did not run as configured, not that k6's
    figures are wrong.)"""
    problems = []
    if ctx.loadgen_exit_code not in (None, 0) and not ctx.loadgen_stopped_early:
        problems.append(f"the load generator exited with code {ctx.loadgen_exit_code}")
    last = float(samples["t_s"].max()) if len(samples) else None
    if last is None or last < window[1] - last_sample_slack_s(ctx.think_time_s):
        problems.append(f"samples stop at {last if last is not None else 0:.1f} s, before the window ends at "
                        f"{window[1]:.1f} s")
    seconds = max(0, int(math.floor(window[1] - window[0] + 1e-9)))
    per_second = np.bincount(np.floor(inside["t_s"].to_numpy(dtype=float) - window[0]).astype(int),
                             minlength=seconds)[:seconds] if seconds else np.array([])
    empty = int((per_second == 0).sum())
    # A second without a sample is the generator's only when it had no call in flight then either: with calls in
    # flight the server had them and did not answer yet (slow, or stopped answering: `stalled` judges that). And
    # only past what the think time explains: VUs that wait seconds between calls (the sessions dimension's held
    # sessions) leave as many seconds idle by design.
    idle = unexplained_idle(~covered_seconds(samples, window, seconds) & (per_second == 0), ctx.think_time_s)
    counts = ctx.loadgen_counts
    stalls = [(a, b) for a, b in (counts.stalls_s if counts else None) or [] if b > window[0] and a < window[1]]
    if stalls:  # the cause first: its silence follows from it
        problems.append(f"the load generator did not run for {sum(b - a for a, b in stalls):.1f} s of the window "
                        f"(from t = {stalls[0][0]:.1f} s): it was stopped or starved of CPU")
    if idle:
        problems.append(f"{idle} second(s) of the window have no sample and no call in flight: the load generator "
                        "sent nothing")
    timeouts = timeout_checks(samples, window, ctx)
    if timeouts.noticed_late:
        problems.append(f"{timeouts.noticed_late} request(s) were noticed timed out more than "
                        f"{TIMEOUT_NOTICED_SLACK_S:g} s after their {ctx.request_timeout_s:g} s timeout: the load "
                        "generator was not running")
    sample_iterations = load_kinds.kind(ctx.kind).sample_iterations(samples, closed_iteration(ctx))
    sample_http = int(_http_counts(samples["http_ms"]).sum()) if len(samples) else 0
    gaps = count_gaps(counts, sample_iterations, sample_http, ctx, problems)
    return Checks(
        loadgen_exit_code=ctx.loadgen_exit_code, loadgen_stopped_early=ctx.loadgen_stopped_early,
        loadgen_iterations=counts.iterations if counts else None,
        loadgen_http_reqs=counts.http_reqs if counts else None,
        loadgen_cursor_pages=counts.cursor_pages if counts else None, sample_iterations=sample_iterations,
        sample_http_reqs=sample_http, count_gap=max(gaps) if gaps else None, last_sample_s=last,
        empty_seconds=empty, idle_seconds=idle, loadgen_stalled_s=round(sum(b - a for a, b in stalls), 3),
        timed_out=timeouts.timed_out, timeouts_noticed_late=timeouts.noticed_late,
        last_answer_s=timeouts.last_answer_s, littles_law=littles, problems=problems)


def count_gaps(counts: LoadgenCounts | None, sample_iterations: int, sample_http: int, ctx: Context,
               problems: list[str]) -> list[float]:
    """The generator's own counts against the samples': each count's relative gap, and in `problems` each one
    beyond what count_allowance explains (none without counts)."""
    if counts is None:
        return []
    theirs_http = counts.http_reqs
    # A paged tools/list's pages after the first are sent and counted, but its sample holds the list as one
    # request's duration (its step is the whole list's): they are left out of the comparison. Over stdio they
    # were no HTTP requests (the driver counts none there).
    cursor_pages = counts.cursor_pages
    http_besides = ""  # what the compared HTTP count leaves out, said with it: the generator's file has the total
    if theirs_http is not None and cursor_pages and load_kinds.MODE_TRANSPORT.get(ctx.mode) == "http":
        theirs_http -= cursor_pages
        http_besides = f" besides its {cursor_pages} tools/list cursor pages"
    gaps = []
    # What the VUs in flight when k6 stopped sent or finished without a sample is no disagreement:
    # count_allowance.
    for what, theirs, ours, per_vu, besides in (
            ("iterations", counts.iterations, sample_iterations, 1, ""),
            ("HTTP requests", theirs_http, sample_http, UNSAMPLED_HTTP_PER_VU.get(ctx.mode, 4), http_besides)):
        if theirs is None:
            continue
        gaps.append(abs(theirs - ours) / max(theirs, 1))
        if abs(theirs - ours) > count_allowance(theirs, ctx, per_vu):
            problems.append(f"the load generator counted {theirs} {what}{besides}, the samples {ours}")
    return gaps


def last_sample_slack_s(think_time_s: float) -> float:
    """How long before the window's end the samples may stop: LAST_SAMPLE_SLACK_S, and a think time of a second or
    more on top (a VU waiting it sends nothing, as unexplained_idle allows)."""
    return LAST_SAMPLE_SLACK_S + (think_time_s if think_time_s >= 1 else 0.0)


def unexplained_idle(idle: np.ndarray, think_time_s: float) -> int:
    """The idle seconds (no sample, no call in flight) in runs longer than the think time explains: a VU's wait
    of T s between calls spans at most floor(T) + 1 seconds' middles; a think time under 1 s explains none."""
    allowed = math.floor(think_time_s) + 1 if think_time_s >= 1 else 0
    total = run = 0
    for second_idle in list(idle) + [False]:
        if second_idle:
            run += 1
            continue
        total += run if run > allowed else 0
        run = 0
    return total


def covered_seconds(samples: pd.DataFrame, window: tuple[float, float], seconds: int) -> np.ndarray:
    """For each whole second of the window, whether some call was in flight at its middle (a sample that began
    before and ended after it): a difference array over the samples' spans. The middle, not any instant: a call
    that began a millisecond before the next second does not make an idle second busy."""
    if not seconds or samples.empty:
        return np.zeros(seconds, dtype=bool)
    first = np.ceil(_began_s(samples).to_numpy(dtype=float) - window[0] - 0.5).astype(int)
    last = np.floor(samples["t_s"].to_numpy(dtype=float) - window[0] - 0.5).astype(int)
    keep = (last >= first) & (last >= 0) & (first < seconds)
    first, last = np.clip(first[keep], 0, seconds - 1), np.clip(last[keep], 0, seconds - 1)
    steps = np.zeros(seconds + 1, dtype=int)
    np.add.at(steps, first, 1)
    np.add.at(steps, last + 1, -1)
    return np.cumsum(steps)[:seconds] > 0


def _began_s(samples: pd.DataFrame) -> pd.Series:
    """When each sample began: its end (t_s) less the whole sample's duration."""
    return samples["t_s"] - samples["session_ms"].fillna(0.0) / 1000.0


def with_late_timeouts(samples: pd.DataFrame, inside: pd.DataFrame, window: tuple[float, float]) -> pd.DataFrame:
    """The window's samples plus the calls sent in it that timed out after it ended: a client that sent one
    in the window waited the whole timeout for nothing, so the all-calls latency and the errors count it (a
    sample otherwise belongs to the window it ended in)."""
    timed = samples[(samples["error_kind"] == TIMEOUT_KIND) & (samples["t_s"] >= window[1])]
    began = _began_s(timed)
    late = timed[(began >= window[0]) & (began < window[1])]
    return pd.concat([inside, late]) if len(late) else inside


def _request_wait_s(timed_out: pd.DataFrame) -> pd.Series:
    """How long each timed-out request waited, as the generator measured it: the sample's last HTTP request
    (the one that timed out), or the call itself over stdio (no HTTP requests)."""
    last_http = _http_entries(timed_out["http_ms"]).str.rsplit(";", n=1).str[-1]
    waited_ms = pd.to_numeric(last_http, errors="coerce")
    return waited_ms.where(waited_ms.notna(), timed_out["call_ms"]) / 1000.0


@dataclass(frozen=True)
class Timeouts:
    """Who stopped, in evidence (summary checks timed_out, timeouts_noticed_late, last_answer_s)."""

    timed_out: int             # requests in flight during the window that timed out
    noticed_late: int          # of those, the ones the generator noticed late: it was not running
    last_answer_s: float | None  # the last sample that was not a timeout (None: none)


def timeout_checks(samples: pd.DataFrame, window: tuple[float, float], ctx: Context) -> Timeouts:
    """The evidence of who stopped: requests in flight during the window that timed out, those whose timeout the
    generator noticed late (it was not running), and the last answer of any kind (any sample but a timeout)."""
    timed = samples[samples["error_kind"] == TIMEOUT_KIND]
    timed = timed[(_began_s(timed) < window[1]) & (timed["t_s"] > window[0])]
    late = int((_request_wait_s(timed) > ctx.request_timeout_s + TIMEOUT_NOTICED_SLACK_S).sum())
    answers = samples[samples["error_kind"] != TIMEOUT_KIND]
    last = float(answers["t_s"].max()) if len(answers) else None
    return Timeouts(timed_out=int(len(timed)), noticed_late=late, last_answer_s=last)


def no_call_completed(samples: pd.DataFrame, window: tuple[float, float]) -> str:
    """Why a window without any completed tool call is the server's: how long the calls in flight through it took."""
    calls = load_kinds.tool_calls(samples)
    through = calls[(_began_s(calls) < window[1]) & (calls["t_s"] >= window[0])]
    said = "no tool call completed in the measured window"
    if len(through):
        took = through["session_ms"].to_numpy(dtype=float) / 1000.0
        said += f" (the {len(through)} calls in flight through it took {took.min():.1f}-{took.max():.1f} s each)"
    return said


def stalled(samples: pd.DataFrame, inside: pd.DataFrame, window: tuple[float, float], ctx: Context,
            checks: Checks, resources: list[Sample]) -> str | None:
    """Why the server, not the generator, left the window without samples — or None. The generator was alive and
    passed every check of its own (it ran throughout, kept calls in flight through the silence and timed them out
    on time: checks.problems is empty); the server let them time out. The sentence gives how many, after how long,
    the last answer and the server's CPU meanwhile (near zero: hung or stopped; high: busy without answering)."""
    gap = (checks.empty_seconds
           or (checks.last_sample_s or 0.0) < window[1] - last_sample_slack_s(ctx.think_time_s))
    if not gap or not checks.timed_out or checks.problems:  # the generator's own checks must all pass
        return None
    timeout, last, count = ctx.request_timeout_s, checks.last_answer_s, checks.timed_out
    answered = int((inside["error_kind"] != TIMEOUT_KIND).sum())
    if last is not None and last >= window[1] - LAST_SAMPLE_SLACK_S:
        share = answered / max(answered + count, 1)
        return (f"answered {share:.0%} of requests, the rest timed out ({count} after {timeout:g} s); "
                f"{checks.empty_seconds} second(s) of the window had no answer at all")
    since = max(window[0], last or 0.0)
    cpu = [r.cpu_pct for r in resources if r.component == "server" and r.cpu_pct is not None
           and since <= r.t_s - SAMPLE_INTERVAL_S / 2 < window[1]]
    said = f"; its CPU {sum(cpu) / len(cpu):.0f} % of a core meanwhile" if cpu else ""
    when = f"last answer at t = {last:.1f} s" if last is not None else "it never answered"
    return (f"stopped answering: {count} requests in flight timed out after {timeout:g} s; {when} "
            f"(the window: {window[0]:.0f}-{window[1]:.0f} s){said}")


def efficiency(calls_per_s: float | None, server: ComponentFigures | None) -> Efficiency:
    """Server CPU milliseconds per successful tool call, and its peak memory: figures the harness cannot
    cap, so they rank servers even when the load generator limits throughput."""
    cpu = server.cpu_avg_pct if server else None
    return Efficiency(cpu_ms_per_call=cpu / 100.0 * 1000.0 / calls_per_s if cpu is not None and calls_per_s else None,
                      mem_peak_mb=server.mem_peak_mb if server else None)


def summarize(samples: pd.DataFrame, window: tuple[float, float], resource_samples: list[Sample], ctx: Context,
              load: RecordedLoad, server: str, run: int) -> Summary:
    """The figures of one measurement, judged: what summary.json holds of `server`'s round `run` under `load` (what
    the suite records of the load, Load.recorded). What only the suite knows beyond them (the round's order, the
    server's start, a pre-warm) its caller adds; a server or the infrastructure dying overrules the status
    (overruled)."""
    samples = with_call_kinds(samples, ctx.calls)
    inside = in_window(samples, window)
    thr = throughput(samples, window, ctx)
    resources = resource_figures(resource_samples, window)
    counted = with_late_timeouts(samples, inside, window)  # failures too: a call sent in the window that timed out
    errs = errors(counted)
    host = host_stability(resources, ctx)
    limit = limit_figures(thr.tool_calls_per_s, ctx)
    littles = littles_law(samples, window, ctx)
    checks = loadgen_checks(samples, inside, window, ctx, littles)
    foreign = noisy_host(resources)
    flags = [*bottleneck_flags(resources, ctx.harness_cores, ctx.load_instances),
             *host_flags(foreign, host), *limit_flags(limit, ctx), *load_flags(window, thr, errs, littles, ctx)]
    status, phase, reason = verdict(samples, inside, window, ctx, thr, checks, resource_samples)
    reasons = unpublishable_reasons(status, phase, checks, flags)
    return Summary(
        schema=SCHEMA, server=server, run=run, **load.model_dump(include=set(RecordedLoad.model_fields)),
        status=status, phase=phase, reason=reason, warmup=ctx.warmup,
        window=Window(start_s=window[0], end_s=window[1], seconds=window[1] - window[0]),
        throughput=thr, latency_ms=latency(counted, ctx.request_timeout_s, ctx.mode), errors=errs,
        resources=resources, efficiency=efficiency(thr.tool_calls_per_s, resources.get("server")), host=host,
        limit=limit, checks=checks, flags=flags, foreign_cpu_pct=foreign, publishable=not reasons,
        unpublishable_reasons=reasons,
        stages=stage_figures(samples, resource_samples, ctx.stages, ctx.request_timeout_s) if ctx.stages else None,
        recovery=recovery(samples, ctx.spike_s, ctx.request_timeout_s) if ctx.spike_s else None)


def host_flags(foreign_cpu_pct: float | None, host: Host) -> list[str]:
    """The host disturbed the measurement: foreign programs' CPU (noisy), or a moved probe or steal (unstable)."""
    flags = []
    if foreign_cpu_pct is not None and foreign_cpu_pct >= FOREIGN_CPU_LIMIT_PCT:
        flags.append(NOISY_HOST)
    if host.unstable:
        flags.append(UNSTABLE_HOST)
    return flags


def limit_flags(limit: Limit, ctx: Context) -> list[str]:
    """Judged against no limit (never the calibration itself: it is the limit), or near the one it was judged
    against: that limit, not the server, may have capped it."""
    if limit.kind is None:
        return [] if ctx.calibration else [NO_LIMIT_FLAG]
    assert limit.fraction is not None  # a limit's kind comes with its fraction (limit_figures)
    return [f"{HARNESS_BOUND_PREFIX}{limit.kind}"] if limit.fraction >= LIMIT_FRACTION else []


def load_flags(window: tuple[float, float], thr: Throughput, errs: Errors, littles: dict[str, float] | None,
               ctx: Context) -> list[str]:
    """What the load did that the figures must be read with: errors, limits not applied, calls the open model
    dropped, a closed loop off Little's law, a warm-up that hit its cap, load nodes' clocks beyond the bound."""
    flags = []
    if errs.count:
        flags.append("errors")
    if not ctx.limits_applied:
        flags.append("cgroup-not-applied")
    if ctx.rate and thr.dropped_iterations > DROPPED_MAX_SHARE * ctx.rate * (window[1] - window[0]):
        flags.append("dropped-iterations")
    if littles and littles.get("gap", 0.0) > LITTLES_LAW_MAX_GAP:
        flags.append("littles-law")
    if ctx.warmup and ctx.warmup.steady is False:
        flags.append("not-steady")
    offsets = [abs(part.clock_offset_ms or 0.0) for part in ctx.load_instances or []]
    if offsets and max(offsets) > CLOCK_OFFSET_BOUND_MS:
        flags.append(CLOCK_OFFSET)
    return flags


# A measurement's status, phase and reason.
Verdict = tuple[MeasurementStatus, str | None, str | None]


def verdict(samples: pd.DataFrame, inside: pd.DataFrame, window: tuple[float, float], ctx: Context,
            thr: Throughput, checks: Checks, resources: list[Sample]) -> Verdict:
    """The measurement's status, phase and reason as the analysis sees it: the server stalled, the generator's
    cross-checks failed, no tool call completed, or ok."""
    stall = stalled(samples, inside, window, ctx, checks, resources)
    if stall:
        return "failed", SERVER_FAILED_PHASE, stall
    if checks.problems:
        return "invalid", LOADGEN_PHASE, "; ".join(checks.problems)
    if thr.tool_calls == 0:
        return "failed", SERVER_FAILED_PHASE, no_call_completed(samples, window)
    return "ok", None, None


def stage_figures(samples: pd.DataFrame, resource_samples: list[Sample], stages: list[StageSpan],
                  request_timeout_s: float) -> list[StageFigures]:
    """Each stage's figures (summary `stages`), as the window's are computed over the window: throughput, every
    tool call's latency (a capacity step's population), failed tool calls, the server's CPU and memory from its
    1 Hz samples in the span."""
    out = []
    for start, end, target, name in stages:
        inside = in_window(samples, (start, end))
        calls = load_kinds.tool_calls(inside)
        figures = latency_stats(all_calls_latency_ms(calls, request_timeout_s))
        failed = int((calls["ok"] == 0).sum())
        server = resource_figures(resource_samples, (start, end)).get("server")
        out.append(StageFigures(
            name=name, start_s=start, end_s=end, target=target,
            tool_calls_per_s=int((calls["ok"] == 1).sum()) / (end - start),
            p50_ms=figures["p50"], p95_ms=figures["p95"], p99_ms=figures["p99"],
            errors=failed, error_rate=failed / len(calls) if len(calls) else None,
            cpu_avg_pct=server.cpu_avg_pct if server else None, mem_avg_mb=server.mem_avg_mb if server else None,
            mem_peak_mb=server.mem_peak_mb if server else None))
    return out


RECOVERY_BUCKET_S = 1.0
RECOVERY_TOLERANCE = 0.10  # within 10 % of the p99 before the spike


def bucket_p99(samples: pd.DataFrame, start: float, end: float, request_timeout_s: float) -> list[tuple[float, float]]:
    """Every tool call's p99 in each RECOVERY_BUCKET_S bucket of [start, end) that holds any call: (its start, p99)."""
    calls = load_kinds.tool_calls(in_window(samples, (start, end)))
    if calls.empty:
        return []
    latency = pd.Series(all_calls_latency_ms(calls, request_timeout_s), index=calls.index)
    bucket = ((calls["t_s"] - start) // RECOVERY_BUCKET_S).astype(int)
    p99 = latency.groupby(bucket).quantile(0.99)
    return [(start + int(b) * RECOVERY_BUCKET_S, float(v))
            for b, v in zip(p99.index.to_numpy(dtype=int), p99.to_numpy(), strict=True)]


def recovery(samples: pd.DataFrame, spike_s: tuple[float, float], request_timeout_s: float) -> Recovery:
    """A spike's recovery time: from the spike's end to the first 1 s bucket whose p99 is within 10 % of the
    level before the spike (the median of the buckets' p99 over as long a span before it as the spike lasted,
    at least 3 s); null when none is before the samples end."""
    begin, end = spike_s
    baseline_span = max(3 * RECOVERY_BUCKET_S, end - begin)
    before = [p for _, p in bucket_p99(samples, begin - baseline_span, begin, request_timeout_s)]
    during = [p for _, p in bucket_p99(samples, begin, end, request_timeout_s)]
    level = float(np.median(before)) if before else None
    recovered = None
    if level is not None:
        last = float(samples["t_s"].max()) if not samples.empty else end
        recovered = next((at for at, p99 in bucket_p99(samples, end, last, request_timeout_s)
                          if p99 <= level * (1 + RECOVERY_TOLERANCE)), None)
    return Recovery(bucket_s=RECOVERY_BUCKET_S, tolerance=RECOVERY_TOLERANCE, before_p99_ms=level,
                    spike_p99_ms=max(during) if during else None, spike_end_s=end, recovered_at_s=recovered,
                    recovery_s=recovered - end if recovered is not None else None)


def limit_figures(calls_per_s: float, ctx: Context) -> Limit:
    """The limit the load is judged against and the share of it the load reached: a closed model's
    throughput (its own limit is what VUs and think time allow), an open model's offered rate (the harness
    was asked for that share of what it can sustain, whatever the server achieved)."""
    limit = ctx.limit_calls_per_s if ctx.limit_kind else None
    if not limit:
        return Limit(kind=None, tool_calls_per_s=None, fraction=None)
    reached = ctx.rate or calls_per_s  # only the open model has an offered rate
    return Limit(kind=ctx.limit_kind, tool_calls_per_s=limit, fraction=reached / limit)


def harness_bound(flags: Iterable[str]) -> bool:
    return any(flag.startswith(HARNESS_BOUND_PREFIX) for flag in flags)


def unpublishable_reasons(status: str, phase: str | None, checks: Checks | None, flags: list[str]) -> list[str]:
    """Every cause that keeps a measurement unpublishable: a status other than ok, a failed self-check, a flag."""
    reasons = []
    if status != "ok":
        reasons.append(f"status {status}" + (f" ({phase})" if phase else ""))
    reasons += [f"check: {p}" for p in (checks.problems if checks else [])]
    reasons += [f"flag: {f}" for f in flags]
    return reasons


def publishable(summary: Summary) -> tuple[bool, list[str]]:
    """A measurement is publishable only when it is ok, every self-check passed and no flag is set."""
    reasons = unpublishable_reasons(summary.status, summary.phase, summary.checks, summary.flags)
    return not reasons, reasons


def judged(summary: Summary) -> Summary:
    """The summary with its publishable verdict judged again from its status, checks and flags."""
    ok, reasons = publishable(summary)
    return summary.model_copy(update={"publishable": ok, "unpublishable_reasons": reasons})


def overruled(summary: Summary, status: MeasurementStatus, phase: str | None, reason: str | None) -> Summary:
    """The summary with what only the suite knew (a server or the infrastructure dying stands above the
    analysis's own verdict), its publishable verdict judged again."""
    return judged(summary.model_copy(update={"status": status, "phase": phase, "reason": reason}))


def upgrade_summary(summary: Any, run: dict, where: Path) -> tuple[Summary, int]:
    """summary.json of any readable schema as the current SCHEMA, and the schema it was read as: the results'
    structural upgrade, then the figures an older schema lacks or judged otherwise computed by this module's
    definitions (the efficiency before schema 2; publishable, when assessed, before 3)."""
    upgraded, original = upgrades.summary_fields(summary, run, where)
    if upgraded.get("efficiency") is None:
        server = (upgraded.get("resources") or {}).get("server")
        upgraded["efficiency"] = efficiency(upgraded["throughput"].get("tool_calls_per_s"),
                                            parsed(ComponentFigures, server, where) if server else None)
    read = parsed(Summary, upgraded, where)
    if original < SCHEMA and read.publishable is not None:
        read = judged(read)
    return read, original


# summary.json fields no analysis computes: who, when and how the server started, and what the suite recorded of
# the load. A re-analysis keeps them as recorded.
RECORDED_ONLY = ("server", "run", "round_order", "mode", "kind", "vus", "rate", "rate_fraction", "equal_fraction",
                 "repeated", "startup_s", "idle_mem_mb", "idle_rss_mb", "seed_s", "prewarm")


def reanalyze(where: MeasurementDir | Path, window: tuple[float, float] | None = None) -> Summary:
    """The analysis of a recorded measurement, again, from its files alone (samples.csv.gz, resources.csv,
    context.json, and summary.json's window and what only the suite recorded, RECORDED_ONLY): what the suite
    computed when it ran, minus what only the suite knew (a server or the infra dying overrides the status).
    Stats are computed from the raw samples on load, as pyperf does, so a recorded result can always be checked
    against today's definitions. `window` analyses another part of the test instead (e.g. the first seconds of
    the window: what a shorter one would have measured, scripts/window_precision.py)."""
    measurement = measurement_dir(where)
    # A measurement with a context.json records its summary's schema (2 on): no run.json is needed to read it.
    recorded, _ = upgrade_summary(read_json(measurement.summary), {}, measurement.summary)
    context = upgrades.upgrade_context(read_json(measurement.context), measurement.context)
    window = window or (recorded.window.start_s, recorded.window.end_s)
    again = summarize(read_samples(measurement.samples), window, resource_samples(measurement.resources), context,
                      recorded, recorded.server, recorded.run)
    return again.model_copy(update={name: getattr(recorded, name) for name in RECORDED_ONLY})


# resources.csv keeps 2 decimals of CPU % and MiB, so figures derived from it may move by this much on
# re-analysis; every other figure must come back identical.
REANALYSIS_TOLERANCE = {"rel": 1e-3, "abs": 0.01}
# What only the suite knew when it wrote summary.json (who stopped the test), not the samples.
SUITE_ONLY = ("status", "phase", "reason")
# Figures added to schema 4 after it was first written (optional in Summary): a file written before them lacks
# them, which is no disagreement; a file that has them must agree.
ADDED_FIGURES = ("latency_ms.steps", "latency_ms.handshake_share", "checks.timed_out", "checks.timeouts_noticed_late",
                 "checks.last_answer_s", "checks.idle_seconds", "checks.loadgen_stalled_s")


def reanalysis_differences(where: MeasurementDir | Path, reanalysed: Summary | None = None) -> list[str]:
    """Where summary.json and a re-analysis of its raw files disagree ("throughput.tool_calls_per_s:
    12.5 != 12.4"); empty when the recorded figures are exactly what today's analysis computes. `reanalysed`:
    its re-analysis, when the caller has made it already."""
    measurement = measurement_dir(where)
    recorded = upgrades.recorded_figures(read_json(measurement.summary))
    again = document(reanalysed if reanalysed is not None else reanalyze(measurement))
    differences: list[str] = []

    def walk(path: str, a: object, b: object) -> None:
        if isinstance(a, dict) and isinstance(b, dict):
            for key in sorted(set(a) | set(b)):
                where = f"{path}.{key}" if path else str(key)
                if key not in a and where in ADDED_FIGURES:
                    continue
                walk(where, a.get(key), b.get(key))
        elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                walk(f"{path}[{i}]", x, y)
        elif isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
            if not math.isclose(a, b, rel_tol=REANALYSIS_TOLERANCE["rel"], abs_tol=REANALYSIS_TOLERANCE["abs"]):
                differences.append(f"{path}: {a} != {b}")
        elif a != b:
            differences.append(f"{path}: {a!r} != {b!r}")

    # a status the suite overrode also changed the verdict it derived from it
    skip = SUITE_ONLY + (("publishable", "unpublishable_reasons") if recorded.get("status") != again["status"] else ())
    for key in sorted(set(again)):
        if key not in skip:
            walk(key, recorded.get(key), again[key])
    return differences

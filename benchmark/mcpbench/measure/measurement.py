"""One measurement: a load test against a running target with everything watched — resources at 1 Hz,
the host's speed before and after (the target frozen meanwhile), the target and the infrastructure
alive, and (adaptive warm-up) the window placed once throughput and latency are steady — then the raw files
written and the figures computed by analysis.summarize. The suite measures servers with it, calibration the
harness's own limits."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from mcpbench.analysis import summary as analysis
from mcpbench.analysis.warmup import WarmupDecision, per_second_cpu, steady_start
from mcpbench.host.infrawatch import InfraWatch
from mcpbench.host.process_probe import ProcessProbe
from mcpbench.host.processes import stopped
from mcpbench.host.profile import ResourceProfile
from mcpbench.host.resources import Sampler, UsageReader, rebase
from mcpbench.host.speed_probe import HostView
from mcpbench.loadgen import LiveView, LoadError, LoadGenerator, Tick
from mcpbench.loads import Load, in_window, tool_calls
from mcpbench.loads.timing import Timing
from mcpbench.measure.bench import Bench
from mcpbench.results.layout import MeasurementDir
from mcpbench.results.model import Context, Limit, Prewarm, ProbeReading, Summary, document
from mcpbench.results.write import write_checked, write_processes, write_resources
from mcpbench.runtime.base import InfraHandle, RunningServer
from mcpbench.workload.file import Workload


class MeasurementFailed(Exception):
    """The load generator could not run the test (no samples, missing or stuck)."""


@dataclass(frozen=True)
class Harness:
    """Where the load comes from and what it runs on: the same for every measurement of a run (each
    measurement brings its own timing)."""

    bench: Bench
    generator: LoadGenerator
    console: Console

    @property
    def infra(self) -> InfraHandle:  # the bench's current pair: it may have been restarted
        assert self.bench.infra is not None
        return self.bench.infra

    @property
    def started_infra(self) -> InfraHandle | None:
        """The bench's current pair, None when the run needs none (runner: ServerSpec.uses_infra)."""
        return self.bench.infra

    @property
    def profile(self) -> ResourceProfile:
        return self.bench.profile

    @property
    def host(self) -> HostView:
        return self.bench.host


PREWARM_DIR = ".prewarm"   # the pre-warm load's own files, removed once it ends


def prewarm(harness: Harness, target: RunningServer, load: Load, seconds: float, out: MeasurementDir,
            think_time_s: float, workload: Workload | None = None) -> Prewarm:
    """Work before a measurement, on the same start: `load` (the closed model) for `seconds` after a 1 s ramp,
    nothing of it kept but the rate it reached (summary `prewarm`). A JIT compiles with work, not with time: at
    an equal load of 153 calls/s the JVMs' CPU per call was still falling a minute in (docs/first-run-profile.md);
    at their own saturation the same invocations take seconds. The measured load's own warm-up follows, and it
    waits for the server's CPU to settle."""
    timing = Timing(ramp_up_s=1, warmup_s=0, duration_s=seconds, ramp_down_s=0, warmup_cap_s=None,
                    think_time_s=think_time_s)
    scratch = out.scratch(PREWARM_DIR).mkdir()
    target.load_begins()
    try:
        with harness.console.status(f"  pre-warm: {load.label} for {seconds:g} s"):
            result = harness.generator.run(target.url, load, timing, scratch, checks=False,
                                           on_tick=lambda elapsed, live: Tick.GO_ON if target.alive() else Tick.ABORT,
                                           workload=workload)
    except LoadError as exc:
        raise MeasurementFailed(f"its pre-warm load failed: {exc}") from exc
    finally:
        shutil.rmtree(scratch.path, ignore_errors=True)
    if not target.alive() or result.target_died:
        raise MeasurementFailed(death(target, result.target_died, "its pre-warm load"))
    window = in_window(result.samples, timing.window)
    ok = window[window["ok"] == 1]
    calls = workload.counted_calls(ok) if workload is not None else tool_calls(ok)
    return Prewarm(seconds=seconds, vus=int(load.vus), calls_per_s=round(len(calls) / seconds, 1))


def measure(harness: Harness, target: RunningServer, load: Load, out: MeasurementDir, timing: Timing,
            limit: Limit | None = None, calibration: bool = False, probe_processes: bool = False,
            stop_requested: Callable[[], bool] | None = None, workload: Workload | None = None, *,
            server: str, run: int) -> Summary:
    """The measurement's summary, of `server`'s round `run` (not yet written: the caller adds when and how the
    server started). A target that died during the test makes it `failed`, dead infrastructure `invalid`
    (analysis.overruled). With `probe_processes` the server's
    process tree is read at 1 Hz too (processes.csv: RSS, FDs, threads; the soak's series). When
    `stop_requested` turns true the test ends as if its window were complete (a soak stopped by Ctrl-C
    keeps what it measured). `workload`: the calls the server is measured with (None: the lineup's)."""
    timing = load.timeline(timing)  # a kind with its own schedule (staged, spike) sets its own timeline
    profile, infra = harness.profile, harness.started_infra
    if workload is not None and workload.reads_work:  # the cancelled calls' work lists are read from our Redis
        assert infra is not None and infra.redis_url is not None  # such a server uses it (ServerSpec.uses_infra)
        workload = workload.reading_work_from(infra.redis_url)
    host = harness.host
    readers: dict[str, UsageReader] = {"server": target.usage, **(infra.readers() if infra else {}), **host.readers(),
                                       "server-procs": target.process_tree_usage}
    probe = ProcessProbe(target.root_pid, target.usage) if probe_processes else None
    sampler = Sampler(readers, also=[probe.read] if probe else ())
    died: list[str] = []
    decision: list[WarmupDecision] = [] if timing.adaptive else [WarmupDecision(timing.warmup_s, None)]
    with target.paused() as paused_before:
        probe_before = host.probe()

    started_epoch: list[float] = []

    def on_start(pids) -> None:
        readers.update(harness.generator.usage_readers(pids))
        started_epoch.append(time.time())
        sampler.start()

    def server_cpu(seconds: int) -> list[float | None] | None:
        """The server's CPU per second since the load started (the warm-up watches it settle)."""
        if not started_epoch:
            return None
        readings = [(s.t_s - started_epoch[0], s.cpu_pct) for s in list(sampler.samples) if s.component == "server"]
        # a server whose CPU this runtime cannot read (nothing sampled) is judged without it
        return per_second_cpu(readings, seconds) if readings else None

    with Progress(TextColumn(f"  load {load.label}"), BarColumn(), TimeElapsedColumn(), TextColumn("/"),
                  TimeRemainingColumn(), TextColumn("{task.fields[phase]}"), console=harness.console,
                  transient=True) as progress, InfraWatch(
                      infra.redis_url if infra else None, infra.api_url if infra else None) as watch:
        task = progress.add_task("load", total=timing.total_s, phase="warm-up")

        def on_tick(elapsed: float, live: LiveView) -> Tick:
            if not target.alive():
                died.append(death(target, None, "the load test"))
                return Tick.ABORT
            if watch.problem:
                return Tick.ABORT
            if stop_requested and stop_requested():
                return Tick.STOP
            if not decision:
                found = steady_start(live.per_second, timing, live.complete_s, live.latency_ms,
                                     server_cpu(live.complete_s))
                if found:
                    decision.append(found)
            if decision:
                window = timing.window_after(decision[0].used_s)
                total = window[1] + timing.ramp_down_s
                capped = "" if decision[0].steady is not False else " (warm-up capped)"
                progress.update(task, total=total, completed=min(elapsed, total),
                                phase=f"window from {window[0]:.0f} s{capped}")
                if timing.adaptive and live.latest_s >= window[1] + 1:
                    return Tick.STOP  # the window is complete; the rest of the generator's hold is not needed
            else:
                progress.update(task, completed=min(elapsed, timing.total_s))
            return Tick.GO_ON

        target.load_begins()
        try:
            result = harness.generator.run(target.url, load, timing, out, on_start=on_start, on_tick=on_tick,
                                           launch=target.stdio_launch, workload=workload)
        except LoadError as exc:
            sampler.stop()
            if died or not target.alive():  # the generator had nothing to say because the server was gone
                raise MeasurementFailed(died[0] if died else death(target, None, "the load test")) from exc
            raise MeasurementFailed(str(exc)) from exc
    resource_samples = sampler.stop()
    process_samples = list(probe.samples) if probe else None
    with target.paused() as paused_after:
        probe_after = host.probe()
    warm = decision[0] if decision else WarmupDecision(timing.warmup_cap_s or timing.warmup_s, False)
    window = load.measured_window(timing, warm.used_s)
    start_epoch = result.start_epoch_s or 0.0
    write_resources(out.resources, resource_samples, start_epoch)
    if process_samples is not None:
        write_processes(out.processes, process_samples, start_epoch)
    recorded = load.recorded()
    context = Context(
        mode=recorded.mode, kind=recorded.kind, vus=recorded.vus, rate=recorded.rate,
        think_time_s=timing.think_time_s, request_timeout_s=timing.request_timeout_s,
        harness_cores=host.harness_cores, limits_applied=target.limits_applied,
        limit_kind=limit.kind if limit else None, limit_calls_per_s=limit.tool_calls_per_s if limit else None,
        calibration=calibration,
        loadgen_exit_code=result.exit_code, loadgen_stopped_early=result.stopped_early,
        loadgen_counts=result.counts, loadgen_run_s=result.run_s,
        host_probe={cpu: ProbeReading(before_s=probe_before.get(cpu), after_s=probe_after.get(cpu))
                    for cpu in probe_before},
        probe_server_paused=paused_before and paused_after,
        server_cpus=list(profile.server_cpus or ()), harness_cpus=list(profile.harness_cpus or ()),
        warmup=warm.warmup(timing), load_instances=result.instances,
        iteration=list(workload.closed_iteration) if workload is not None else None,
        calls=workload.kinds() if workload is not None else None,
        stages=load.reported_stages(timing) or None, spike_s=load.spike_span(timing))
    write_checked(out.context, document(context))
    summary = analysis.summarize(result.samples, window, rebase(resource_samples, start_epoch), context, recorded,
                                 server, run)
    # What stopped the test decides above the cross-checks: a dead target is its own failure, dead
    # infrastructure nobody's (the measurement is invalid and the suite goes on).
    if died or not target.alive() or result.target_died:
        return analysis.overruled(summary, "failed", analysis.SERVER_FAILED_PHASE,
                                  died[0] if died else death(target, result.target_died, "the load test"))
    if watch.problem:
        return analysis.overruled(summary, "invalid", "infra", watch.problem)
    if result.lost:
        return analysis.overruled(summary, "invalid", analysis.LOADGEN_PHASE, result.lost)
    if summary.status == "failed" and stopped(target.root_pid()):  # it stopped answering: say if it was stopped
        return summary.model_copy(update={"reason": f"{summary.reason}; its process is stopped (SIGSTOP or SIGTSTP)"})
    return summary


def death(target: RunningServer, generator_said: str | None, during: str) -> str:
    """A dead server's reason ("the server exited during `during`: …"): what ended it (the runtime's word, else the
    generator's over stdio), then its own last lines since the load began — never the start-up's or verify's
    probes above the mark."""
    cause = target.exit_cause()
    if cause is None and generator_said:  # "the server exited during the test (signal killed)": the parenthesis
        line = generator_said.splitlines()[0]
        cause = line[line.find("(") + 1:-1] if line.endswith(")") and "(" in line else line
    words = target.load_log_tail().strip()
    said = cause or "it is gone (how, the runtime cannot tell)"
    return f"the server exited during {during}: {said}\n" + (
        f"its last lines since the load began:\n{words}" if words else "it wrote nothing since the load began")

"""The harness's own limits, measured against the API service's canned MCP server (canned replies, no I/O:
its /calibrate/mcp endpoint over HTTP, `api-service calibrate-stdio` started by the load generator over stdio,
in the server's place and on its CPUs), so whatever limits a load there is the harness's, never a server's
(`mcpbench calibrate`, and at the start of every suite). Two limits, because the two kinds of load meet
different ones (docs/methodology: issue 18):

- **The closed model's load-model limit** (`run.json` `calibration`): N VUs that each wait for their reply
  and then think can never offer more than N x calls per iteration / (think time + the harness's round
  trips). It grows with the VUs; a closed-model server near it is limited by the VUs and the think time,
  not by the harness's capacity and not by itself.
- **The harness's open-model capacity** (`run.json` `harness_capacity`): an arrival-rate ladder on the same
  endpoint, raised until the load generator or a service saturates its CPU, calls are dropped or fall
  behind, or latency rises; the highest passing step. An open-model load near it measures the harness.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from mcpbench.analysis import summary as analysis
from mcpbench.host import processes
from mcpbench.host.paths import API_SERVICE_BIN
from mcpbench.host.resources import Usage
from mcpbench.loadgen.base import StdioLaunch
from mcpbench.loads import MODE_TRANSPORT, ClosedLoad, Load, Mode, OpenLoad
from mcpbench.loads.timing import Timing
from mcpbench.measure.measurement import Harness, MeasurementFailed, measure
from mcpbench.results.layout import CalibrationDir, MeasurementDir
from mcpbench.results.model import Calibration, HarnessCapacity, HarnessStep, LatencyStats, Summary, document
from mcpbench.results.write import write_checked
from mcpbench.runtime.base import InfraHandle, RunningServer, ServerBase

CALIBRATION_PATH = "/calibrate/mcp"

# The open-model ladder: start x factor^k tool calls/s, at most MAX_STEPS steps.
LADDER_START = 200.0
LADDER_FACTOR = 1.5
LADDER_MAX_STEPS = 12
# A step passes when the harness kept up: no harness component saturated (analysis.SATURATION of its CPU
# budget), at least ACHIEVED_MIN_SHARE of the offered calls done, at most analysis.DROPPED_MAX_SHARE dropped,
# no error, and latency has not risen: the median within LATENCY_RISE x the first step's (a queue forming in
# the generator or the API service shows in the median first) and p99 under LATENCY_P99_MAX_MS.
ACHIEVED_MIN_SHARE = 0.95
LATENCY_RISE = 2.0
LATENCY_P99_MAX_MS = 20.0


class CalibrationTarget(ServerBase):
    """The API service's canned MCP endpoint as a load target: part of the harness, so it has no limits
    of its own and no usage apart from the API service's (sampled as `api`)."""

    name = "calibrate"
    startup_s = 0.0
    limits_applied = True

    def __init__(self, infra: InfraHandle):
        self.url = f"{infra.api_url}{CALIBRATION_PATH}"

    def alive(self) -> bool:
        return True  # the API service dying is the infrastructure watch's to see

    def usage(self) -> Usage | None:
        return None

    def log_tail(self, lines: int = 30) -> str:
        return ""

    def stop(self) -> None:
        pass


class StdioCalibrationTarget(CalibrationTarget):
    """The same canned server over stdio: the load generator starts `api-service calibrate-stdio` as it
    starts a stdio server, pinned to the server's CPUs, so what limits it is the generator and the pipe."""

    def __init__(self, server_cpus: tuple[int, ...] | None, log_path: Path):
        self.url = "stdio:"
        # The generator hands a stdio server only the environment it is given: PATH finds taskset.
        self.stdio_launch = StdioLaunch((*processes.pinned(server_cpus), str(API_SERVICE_BIN), "calibrate-stdio"),
                                        {"PATH": os.environ.get("PATH", os.defpath)}, API_SERVICE_BIN.parent, log_path)


def _target(harness: Harness, load: Load, out: MeasurementDir) -> RunningServer:
    if MODE_TRANSPORT[load.mode] == "stdio":
        return StdioCalibrationTarget(harness.profile.server_cpus, out.server_log)
    return CalibrationTarget(harness.infra)


def _measure_target(harness: Harness, load: Load, timing: Timing, out: MeasurementDir) -> Summary:
    """One measurement against the canned server of the load's transport; its summary is written."""
    out.mkdir()
    summary = measure(harness, _target(harness, load, out), load, out, timing, calibration=True,
                      server=CalibrationTarget.name, run=1)
    write_checked(out.summary, document(summary))
    return summary


def _cpu(summary: Summary, component: str) -> float | None:
    figures = summary.resources.get(component)
    return figures.cpu_avg_pct if figures else None


def measure_load_model_limit(harness: Harness, load: ClosedLoad, timing: Timing,
                             where: CalibrationDir) -> Calibration:
    """The closed model's own limit at the load's VUs (run.json `calibration[mode]`)."""
    with harness.console.status(f"calibrating the closed model's limit: {load.label} for {timing.total_s:g} s…"):
        try:
            summary = _measure_target(harness, load, timing, where.measurement(load.label))
        except MeasurementFailed as exc:  # no limit to judge by: the run's loads in this mode are limit-unknown
            harness.console.print(f"  closed-model limit {load.label}: [red]not measured: {exc}[/]")
            return Calibration(tool_calls_per_s=None, vus=load.vus, think_time_s=timing.think_time_s,
                               loadgen_cpu_pct=None, status="invalid")
    limit = load_model_limit(summary, timing.think_time_s)
    harness.console.print(
        f"  closed-model limit {load.label}: {limit.tool_calls_per_s:.0f} tool calls/s "
        f"({load.vus} VUs, {timing.think_time_s:g} s think time), "
        f"load generator CPU {limit.loadgen_cpu_pct or 0:.0f} %"
        + ("" if summary.status == "ok" else f" [red]({summary.status}: {summary.reason})[/]"))
    return limit


def load_model_limit(summary: Summary, think_time_s: float) -> Calibration:
    """What run.json keeps of a closed-model calibration."""
    return Calibration(tool_calls_per_s=summary.throughput.tool_calls_per_s, vus=summary.vus,
                       think_time_s=think_time_s, loadgen_cpu_pct=_cpu(summary, analysis.LOADGEN),
                       status=summary.status)


@dataclass(frozen=True)
class LadderStep:
    rate: float
    summary: Summary
    first_p50_ms: float | None

    @property
    def failure(self) -> str | None:
        """Why the harness did not keep up at this step (None: it did)."""
        s = self.summary
        if s.status != "ok":
            return f"{s.status}: {s.reason}"
        bound = [f for f in s.flags if f.startswith(analysis.HARNESS_BOUND_PREFIX)]
        if bound:
            return "saturated: " + ", ".join(bound)
        if s.errors.count:
            return f"{s.errors.count} errors"
        thr = s.throughput
        if thr.dropped_iterations > analysis.DROPPED_MAX_SHARE * self.rate * s.window.seconds:
            return f"{thr.dropped_iterations} calls dropped"
        if thr.tool_calls_per_s < ACHIEVED_MIN_SHARE * self.rate:
            return f"achieved {thr.tool_calls_per_s:.0f} of {self.rate:g} calls/s"
        latency = self.latency
        if latency.p99 is not None and latency.p99 > LATENCY_P99_MAX_MS:
            return f"p99 {latency.p99:.1f} ms > {LATENCY_P99_MAX_MS:g} ms"
        if self.first_p50_ms and latency.p50 is not None and latency.p50 > LATENCY_RISE * self.first_p50_ms:
            return f"p50 {latency.p50:.2f} ms > {LATENCY_RISE:g} x the first step's {self.first_p50_ms:.2f} ms"
        return None

    @property
    def latency(self) -> LatencyStats:
        """Every tool call's latency at this step (failures included): what the ladder judges."""
        assert self.summary.latency_ms.tool_call_all is not None  # every summary written today has it
        return self.summary.latency_ms.tool_call_all

    def harness_step(self) -> HarnessStep:
        """The step as run.json keeps it."""
        s = self.summary
        return HarnessStep(rate=self.rate, achieved=s.throughput.tool_calls_per_s, p50_ms=self.latency.p50,
                           p99_ms=self.latency.p99, dropped=s.throughput.dropped_iterations,
                           loadgen_cpu_pct=_cpu(s, analysis.LOADGEN), api_cpu_pct=_cpu(s, "api"),
                           redis_cpu_pct=_cpu(s, "redis"), passed=self.failure is None, why=self.failure)


def measure_harness_capacity(harness: Harness, mode: Mode, vus: int, step_timing: Timing,
                             where: CalibrationDir, enough: float | None = None) -> HarnessCapacity:
    """The harness's open-model capacity for a mode (run.json `harness_capacity[mode]`): the ladder's
    highest passing step, or None when even the first failed. `enough`: a capacity the run needs no more of
    (its highest offered rate over analysis.LIMIT_FRACTION, when known before it starts): the ladder stops at
    the first step that passes at it or above, and the capacity is a lower bound."""
    steps: list[LadderStep] = []
    rate = LADDER_START
    for _ in range(LADDER_MAX_STEPS):
        load = OpenLoad(mode, vus, round(rate, 1))
        with harness.console.status(f"calibrating the harness's open-model capacity: {load.rate:g} calls/s…"):
            try:
                summary = _measure_target(harness, load, step_timing, where.ladder_step(mode, load.label))
            except MeasurementFailed as exc:
                return _capacity(steps, _passed(steps), f"the load generator failed: {exc}", "invalid")
        first_p50 = steps[0].latency.p50 if steps else None
        step = LadderStep(load.rate, summary, first_p50)
        steps.append(step)
        said = step.harness_step()
        harness.console.print(
            f"  harness at {load.rate:g} calls/s: achieved {said.achieved:.0f}, "
            f"p50 {said.p50_ms or 0:.2f} ms, "
            f"p99 {said.p99_ms or 0:.2f} ms, load generator CPU {said.loadgen_cpu_pct or 0:.0f} %"
            + (f", API CPU {said.api_cpu_pct or 0:.0f} %" if MODE_TRANSPORT[mode] == "http" else "")
            + (f" [red]— {step.failure}[/]" if step.failure else ""))
        if step.failure:
            if summary.status != "ok":  # the infrastructure died under it: no capacity to trust
                return _capacity(steps, None, step.failure, "invalid")
            break
        if enough is not None and load.rate >= enough:
            return _capacity(steps, _passed(steps), f"enough for this run's rates ({enough:.0f} calls/s needed): "
                             "a lower bound", "ok")
        rate *= LADDER_FACTOR
    else:
        return _capacity(steps, _passed(steps), f"max steps ({LADDER_MAX_STEPS}): a lower bound", "ok")
    return _capacity(steps, _passed(steps), steps[-1].failure, "ok")


def _capacity(steps: list[LadderStep], capacity: float | None, stopped_by: str | None,
              status: str) -> HarnessCapacity:
    """The ladder as run.json keeps it: its capacity, what ended it, whether it can be trusted, every step."""
    return HarnessCapacity(tool_calls_per_s=capacity, stopped_by=stopped_by, status=status,
                           steps=[step.harness_step() for step in steps])


def _passed(steps: list[LadderStep]) -> float | None:
    passed = [s.rate for s in steps if s.failure is None]
    return max(passed) if passed else None

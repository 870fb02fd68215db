"""The one experiment runner: the results directory and run.json, builds, the infrastructure, the load
generators, calibration, rounds in a new order each, and for each server and round reset → start → verify →
the experiment's measurements → stop, every measurement recorded the same way. Experiments (base.py) say
what to measure; nothing here knows which experiment runs."""

from __future__ import annotations

import json
import os
import random
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Literal

from rich.console import Console

from mcpbench import loadgen
from mcpbench import runtime as runtimes
from mcpbench.analysis import summary as analysis
from mcpbench.catalog.build import BuildOutcome, run_commands
from mcpbench.catalog.manifest import ServerSpec
from mcpbench.experiments import events as ev
from mcpbench.experiments import resume
from mcpbench.experiments.base import Experiment
from mcpbench.experiments.listeners import ConsoleListener
from mcpbench.host import paths, ports
from mcpbench.host.fingerprint import fingerprint
from mcpbench.loads import MODE_PROTOCOL, MODE_TRANSPORT, ClosedLoad, Load
from mcpbench.loads.timing import Timing
from mcpbench.measure import calibration as calibrate
from mcpbench.measure.bench import Bench, ServerFailed, ServerUnavailable
from mcpbench.measure.measurement import Harness, MeasurementFailed, measure, prewarm
from mcpbench.results import liveness
from mcpbench.results.layout import DISTURBED, MeasurementDir, RunDir
from mcpbench.results.model import (
    Calibration,
    CgroupSupport,
    HarnessCapacity,
    Limit,
    Record,
    Resume,
    RunStatus,
    Summary,
    assign,
    document,
    parsed,
)
from mcpbench.results.write import (
    RunRecord,
    directory_said,
    io_said,
    new_run_id,
    write_checked,
    write_record,
)
from mcpbench.runtime.base import RunningServer
from mcpbench.workload import conformance, probes
from mcpbench.workload.checks import Check
from mcpbench.workload.dimension_tools import ToolSettings
from mcpbench.workload.file import lineup
from mcpbench.workload.verify import Verify, is_deployment_check, verify
from mcpbench.workload.verify_calls import verify_calls

# A calibration the infrastructure broke is measured again on a new Redis/API pair, this many tries in all.
CALIBRATION_TRIES = 2
# A workload file's `setup` that runs longer is stopped and fails the server.
SETUP_TIMEOUT_S = 300.0
# Retakes the host disturbed again that are measured once more at the end of their pass, at most this many a
# round (each costs one measurement, ~30 s in the first-run profile).
LATER_PER_ROUND = 3


class RunFailed(RuntimeError):
    """The run could not go on (the infrastructure would not start, a bug): run.json says `failed`."""


@dataclass(frozen=True)
class Started:
    """A started server and what its measurements record about the start."""

    server: RunningServer
    out: MeasurementDir
    facts: Record  # startup_s, idle_mem_mb, idle_rss_mb, seed_s


def _set_affinity(cpus: Iterable[int]) -> None:
    """This thread onto `cpus`, where the machine allows it (a container may forbid it: nothing to pin then)."""
    try:
        os.sched_setaffinity(0, cpus)
    except OSError:
        pass


@dataclass
class ServerState:
    """What the runner knows of a server across rounds."""

    spec: ServerSpec
    verified: bool = False
    failed: bool = False
    unsupported: dict[str, str] = field(default_factory=dict)  # mode -> why it is not measured in it
    # (mode, measurement) -> round 1's closed tool calls/s: keyed by measurement so that a retake replaces the
    # host-disturbed measurement it retakes rather than competing with it for the max.
    closed_rates: dict[tuple[str, str], float] = field(default_factory=dict)
    invalid: list[tuple[str, str]] = field(default_factory=list)  # (phase, why) of measurements not to trust

    def best_rate(self, mode: str) -> float | None:
        """Round 1's highest closed-model rate in the mode over the measurements kept (None: none yet)."""
        rates = [rate for (in_mode, _), rate in self.closed_rates.items() if in_mode == mode]
        return max(rates) if rates else None


class Runner:
    def __init__(self, experiment: Experiment, results_root: Path, console: Console | None = None,
                 run_id: str | None = None, resuming: bool = False, events: ev.Events | None = None):
        """`resuming`: continue the run `run_id` under results_root (`mcpbench run --resume`, experiments/resume.py)
        instead of starting a new one. `events`: where the run says what happens (default: the console alone)."""
        self.experiment = experiment
        # Absolute: the stdio load driver and the servers run in other working directories, and each is handed
        # paths under it (a relative --results-dir once sent the load driver looking for server.log in the server's).
        self.results_root = results_root.resolve()
        self.resuming = resuming
        self.resume_record: Resume | None = None  # run.json `resumes[-1]` while resuming
        self.config = experiment.config
        self.specs = experiment.specs
        self.console = console or experiment.console  # the load generators' progress bars
        self.events = events or ev.Events(ConsoleListener(self.console))
        self.run_id = run_id or new_run_id(self.config.runtime) + experiment.directory_suffix
        self.run_dir = RunDir.under(self.results_root, self.run_id)
        self.directory = self.run_dir.path
        self.record: RunRecord | None = None
        self.bench: Bench | None = None
        self.harnesses: dict[str, Harness] = {}   # by transport: the generator that speaks it
        self.harness: Harness | None = None        # the HTTP one (calibration, open-model loads)
        self.states: dict[str, ServerState] = {}
        # Retakes the host disturbed again, measured once more at the end of their pass (ServerRound.measure_load),
        # and the servers that waited so this round (one wait each, LATER_PER_ROUND in all).
        self.later: list[tuple[ServerState, Callable[[], None]]] = []
        self.waited: list[ServerState] = []
        self._calibrated_at: int | None = None     # Bench.infra_starts when the limits were last measured
        self.started_at = time.monotonic()

    # -- the whole run ---------------------------------------------------------------------------------
    def run(self) -> RunRecord:
        self._mark_abandoned()
        # Whether limits apply is the runtime's to say, once it has started (below).
        unknown = CgroupSupport(version=None, applied=False, note="not known: the runtime did not start")
        if self.resuming:
            self.record = RunRecord.reopen(self.directory)
            self.resume_record = resume.begin(self.record, fingerprint(unknown))
            self.started_at -= self.resume_record.elapsed_before_s  # the time budget counts every part
            self.events.emit(ev.RunStarted(run_id=self.run_id, directory=str(self.directory),
                                           experiment=self.experiment.name, profile_note=self.config.profile.note,
                                           resumed_status=self.resume_record.previous_status,
                                           resumed_note=resume.describe(self.resume_record)))
        else:
            try:
                self.directory.mkdir(parents=True, exist_ok=False)
            except OSError as exc:
                raise RunFailed(directory_said(self.directory, exc)) from None
            try:
                self.record = RunRecord(self.directory, self.run_id, self.config, fingerprint(unknown))
            except OSError as exc:
                raise RunFailed(f"{io_said(exc, self.directory)}; nothing was measured") from None
            self.events.emit(ev.RunStarted(run_id=self.run_id, directory=str(self.directory),
                                           experiment=self.experiment.name, profile_note=self.config.profile.note))
        caller_cpus = self._pin_orchestrator()
        # "complete" only once the run has ended normally: Ctrl-C, and a terminal or pipe that closed (Rich ends the
        # program with SystemExit when its output is a broken pipe: `… | tee log` and Ctrl-C), leave it interrupted.
        status: RunStatus = "interrupted"
        error: str | None = None
        try:
            with Bench(self.config.runtime, self.config.resources, self.directory, self.config.registry) as self.bench:
                self._record_runtime()
                self._run_all()
            status = "complete"
        except KeyboardInterrupt:
            pass  # status stays "interrupted"; RunEnded says so
        except OSError as exc:  # a full disk, a read-only file system: a sentence, not an exception's name
            status, error = "failed", io_said(exc, self.directory)
        except Exception as exc:  # recorded, then one line on the console (cli)
            status, error = "failed", f"{type(exc).__name__}: {exc}".splitlines()[0]
            # The whole traceback is for whoever debugs it, not for the console.
            try:
                self.run_dir.error_log.write_text(traceback.format_exc())
                error += f" (traceback in {self.run_dir.error_log.name})"
            except OSError:
                pass
        finally:
            unrecorded = self._finish(status, error)
            self.events.emit(ev.RunEnded(status=status, error=error, directory=str(self.directory),
                                         measurements=self._finished_count()))
            _set_affinity(caller_cpus)  # a run made in-process (a test, a library user) leaves its caller as it was
        if error or unrecorded:
            raise RunFailed("; ".join(filter(None, [error, self._kept(), unrecorded])))
        return self.record

    def _finish(self, status: RunStatus, error: str | None) -> str | None:
        """run.json says how the run ended; when even its short rewrite fails, the sentence saying so (the next
        start's abandoned check then marks it)."""
        assert self.record is not None
        try:
            self.record.finish(status, error)
        except OSError as exc:
            return (f"run.json could not be updated either ({io_said(exc)}): it still says `running`, and the next "
                    "run under this results directory marks it abandoned")
        return None

    def _finished_count(self) -> int:
        assert self.record is not None
        return sum(len(server.measurements) for server in self.record.run.servers.values())

    def _kept(self) -> str:
        """Which measurements are complete and kept, and where."""
        assert self.record is not None
        done = [f"{name}/{m}" for name, server in self.record.run.servers.items() for m in server.measurements]
        if not done:
            return f"no measurement had finished (results directory {self.directory})"
        shown = ", ".join(done[:6]) + (f" and {len(done) - 6} more" if len(done) > 6 else "")
        return f"{len(done)} finished measurement(s) kept in {self.directory}: {shown}"

    def _mark_abandoned(self) -> None:
        """Runs under the same results directory whose orchestrator died without a word (SIGKILL, OOM, a
        reboot) are marked `abandoned`, one line each: never left `running`."""
        for directory in liveness.abandoned_runs(self.results_root):
            try:
                record = RunRecord.reopen(directory)
            except ValueError as exc:
                self.events.emit(ev.Warned(text=str(exc)))
                continue
            record.abandon()
            last = record.run.abandoned.last_measurement if record.run.abandoned else None
            self.events.emit(ev.RunMarkedAbandoned(directory=str(directory), last_measurement=last))

    def _record_runtime(self) -> None:
        assert self.record is not None and self.bench is not None
        runtime = self.bench.runtime
        self.bench.host  # noqa: B018 - made now: a swarm's node agents also measure the network it records
        support = runtime.limits_support()
        self.record.set_environment(
            cgroup=support,
            runtime_description=runtimes.description(runtime.name))  # what the report says it ran as
        self._record_runtime_section()
        if not support.applied:
            self.events.emit(ev.LimitsNotApplied(reason=str(support.note)))

    def _record_runtime_section(self) -> None:
        """The runtime's own part of the environment (docker: engine, compose, base image; the swarm: its nodes and
        the images shipped to them), recorded again when it changed: the swarm ships an image when a server or the
        infrastructure first starts on a node."""
        assert self.record is not None and self.bench is not None
        runtime = self.bench.runtime
        section = runtime.environment()
        if section is None:
            return
        recorded = self.record.run.environment.model_dump(mode="json").get(runtime.name)
        if recorded != section.model_dump(mode="json"):
            self.record.set_environment(**{runtime.name: section})

    def _pin_orchestrator(self) -> set[int]:
        """The orchestrator (sampling, probes, progress) runs on the harness CPUs, never on the server's. Returns
        the CPUs it ran on before, to be given back when the run ends."""
        before = os.sched_getaffinity(0)
        if self.config.profile.harness_cpus:
            _set_affinity(self.config.profile.harness_cpus)
        return before

    def _run_all(self) -> None:
        assert self.record is not None and self.bench is not None
        self.states = {spec.name: ServerState(spec) for spec in self.specs}
        if self.resume_record is not None:
            resume.restore(self.record, self.states)
        for spec in self.specs:
            self.record.server(spec.name)
            write_record(self.run_dir.server(spec.name).server_json, spec.describe())
        if self.config.build:
            self._build_all()
        if self.needs_infra:
            self.bench.start_infra(redis=self.needs_redis)
        self._prepare_generators()
        if self.config.calibrate:
            if self.resume_record is not None and not resume.needs_calibration(self.record, self.resume_record):
                self._calibrated_at = self.bench.infra_starts  # the recorded limits, measured on this host
            else:
                self.calibrate("resumed" if self.resume_record is not None else "before the first round")
        if not self.experiment.measures_servers:
            self.experiment.measure_harness(self)
            return
        recorded = list(self.record.run.rounds or []) if self.resume_record is not None else []
        rounds: list[list[str]] = []
        round_index = 0
        while round_index == 0 or self.experiment.more_rounds(self, round_index):
            round_index += 1
            if round_index <= len(recorded):  # resumed: the round's recorded order, whatever was measured of it
                names = recorded[round_index - 1]
                order = [self.states[name] for name in names if name in self.states and not self.states[name].failed]
            else:
                order = [state for state in self.states.values() if not state.failed]
                if self.config.shuffle:
                    random.shuffle(order)  # a new order every round: a slow spell of the host hits no server twice
                names = [state.spec.name for state in order]
            rounds.append(names)
            self.record.set_rounds(rounds)
            self.events.emit(ev.RoundBegun(round=round_index, rounds=self.config.runs, auto=self.config.rounds_auto,
                                           servers=names))
            self._play_round(round_index, order)
        for state in self.states.values():
            if not state.failed and self.record.server(state.spec.name).status == "running":
                if state.invalid:
                    self.record.update_server(state.spec.name, status="invalid", phase=state.invalid[0][0],
                                              reason="; ".join(why for _, why in state.invalid))
                else:
                    self.record.update_server(state.spec.name, status="ok")

    def _play_round(self, round_index: int, order: list[ServerState]) -> None:
        """One round: every server in `order`, then the experiment's passes after it (after_round), each pass
        followed by the retakes that waited for its end."""
        self.waited = []
        for position, state in enumerate(order, start=1):
            self._guarded(state, partial(self._measure_server, state, round_index, position))
        # Before after_round, which sizes from this pass (the equal rate from round 1's closed loads): a retake
        # waiting for the end of the pass must be what it sizes from, not the measurement set aside.
        self._measure_later()
        self.experiment.after_round(self, round_index)
        self._measure_later()

    def _guarded(self, state: ServerState, measure: Callable[[], None]) -> None:
        """A server's measurements; a ServerFailed ends its part of the run (recorded, one line)."""
        assert self.record is not None
        try:
            measure()
        except ServerFailed as failure:
            state.failed = True
            status = "unavailable" if isinstance(failure, ServerUnavailable) else "failed"
            self.record.update_server(state.spec.name, status=status, phase=failure.phase, reason=failure.reason)
            self.events.emit(ev.ServerFailed(server=state.spec.name, status=status, phase=failure.phase,
                                             reason=failure.reason))

    def defer(self, state: ServerState, again: Callable[[], None]) -> bool:
        """Whether a retake the host disturbed again is measured once more at the end of its pass: a slow
        spell of a shared machine often lasts a minute or two, the length of two measurements back to back, and
        seldom the rest of a round. At most LATER_PER_ROUND a round, so a host that stays busy cannot stretch it
        without end; past it the retake stands, flagged."""
        if len(self.waited) >= LATER_PER_ROUND or any(waiting is state for waiting in self.waited):
            return False
        self.waited.append(state)
        self.later.append((state, again))
        return True

    def _measure_later(self) -> None:
        later, self.later = self.later, []
        for state, again in later:
            if not state.failed:
                self._guarded(state, again)

    def each_server(self, round_index: int, measure: Callable[[ServerRound], None]) -> None:
        """A further pass over a round (after_round): `measure` for every server still in the run, in the
        round's order, each as a ServerRound of that round."""
        assert self.record is not None
        names = (self.record.run.rounds or [[]])[round_index - 1]
        for position, name in enumerate(names, start=1):
            state = self.states[name]
            if not state.failed:
                self._guarded(state, partial(measure, ServerRound(self, state, round_index, position)))

    @property
    def elapsed_s(self) -> float:
        return time.monotonic() - self.started_at

    def closed_rates(self, mode: str) -> dict[str, float]:
        """Round 1's closed-model rate of every server still in the run that was measured in the mode."""
        rates = {name: state.best_rate(mode) for name, state in self.states.items() if not state.failed}
        return {name: rate for name, rate in rates.items() if rate is not None}

    def _prepare_generators(self) -> None:
        """One generator per transport the modes use: the chosen one where its `transports` include it, else
        the default (loadgen.for_transport), built or checked before the first measurement so none fails
        inside one."""
        assert self.bench is not None
        for transport in sorted({MODE_TRANSPORT[mode] for mode in self.config.modes} | {"http"}):
            name = loadgen.for_transport(self.config.load_generator.name, transport)
            # A stdio server has one client: only HTTP tests are split over instances.
            instances = self.config.load_generator.instances if transport == "http" else 1
            generator = (self.bench.runtime.load_generator(name, instances)
                         or loadgen.create(name, self.config.resources.harness_cpus, instances))
            generator.prepare(self.run_dir.infra())
            self.harnesses[transport] = Harness(self.bench, generator, self.console)
        self.harness = self.harnesses["http"]
        assert self.record is not None
        self.record.set_generators({transport: harness.generator.describe()
                                    for transport, harness in self.harnesses.items()})

    @property
    def needs_redis(self) -> bool:
        """Whether Redis runs: for a server that uses it (ServerSpec.uses_infra), and wherever the runtime's
        servers need the infrastructure to start at all (Runtime.infra_optional)."""
        assert self.bench is not None
        return (not self.bench.runtime.infra_optional
                or any(spec.uses_infra for spec in self.specs if not spec.unavailable))

    @property
    def needs_infra(self) -> bool:
        """Whether the API service runs: where Redis does, and for its canned endpoint that calibrates an HTTP
        mode."""
        return self.needs_redis or (self.config.calibrate
                                    and any(MODE_TRANSPORT[mode] == "http" for mode in self.config.modes))

    # -- the harness's limits ----------------------------------------------------------------------------------
    def calibrate(self, reason: str = "before the first round") -> None:
        """The harness's limits for every mode (measure/calibration.py; over stdio the canned server is started
        by the load generator in the server's place): the closed model's own limit at the run's largest VUs where
        the experiment measures closed-model loads and the harness's open-model capacity where it measures
        open-model ones. Measured again whenever the infrastructure was restarted
        (a new Redis/API pair); a calibration the infrastructure broke is retried once on a new pair.
        run.json keeps the current limits and every calibration in `calibrations`."""
        assert self.record is not None and self.harness is not None and self.bench is not None
        self.events.emit(ev.CalibrationBegun(reason=reason))
        timing, ladder = self.experiment.calibration_timing()
        index = len(self.record.run.calibrations or [])
        limits: dict[str, Calibration] = {}
        capacities: dict[str, HarnessCapacity] = {}
        for mode in self.config.modes:
            harness = self.harnesses[MODE_TRANSPORT[mode]]
            for attempt in range(CALIBRATION_TRIES):
                starts = self.bench.infra_starts
                if self.experiment.closed_model_in(mode):
                    load = ClosedLoad(mode, max(self.config.vus))
                    limits[mode] = calibrate.measure_load_model_limit(harness, load, timing,
                                                                      self.run_dir.calibration(index))
                if self.experiment.open_model_in(mode):
                    highest = self.experiment.highest_open_rate(mode)
                    capacities[mode] = calibrate.measure_harness_capacity(
                        harness, mode, max(self.config.vus), ladder, self.run_dir.calibration(index),
                        enough=highest / analysis.LIMIT_FRACTION if highest else None)
                valid = all(part.status == "ok" for part in (limits.get(mode), capacities.get(mode)) if part)
                if valid and starts == self.bench.infra_starts:
                    break
                # over stdio the canned server is the load generator's own child: a new pair would not help it
                if attempt + 1 < CALIBRATION_TRIES and MODE_TRANSPORT[mode] == "http":
                    self.bench.restart_infra()
                    self.events.emit(ev.InfraRestarted(cause="calibration"))
        self.record.add_calibration(reason, self.bench.infra_starts, limits, capacities)
        self._calibrated_at = self.bench.infra_starts

    def _recalibrate_if_restarted(self) -> None:
        """A restarted infrastructure is a new harness: its limits are measured before the next measurement
        is judged against them (never the old pair's limits, never none)."""
        assert self.bench is not None
        if self.config.calibrate and self._calibrated_at is not None and self.bench.infra_starts != self._calibrated_at:
            self.calibrate("the infrastructure was restarted")

    def limit(self, load: Load, spec: ServerSpec) -> Limit | None:
        """The limit a load is judged against (analysis.limit_figures): None when none was calibrated, or the
        calibration failed (the measurement is then flagged analysis.NO_LIMIT_FLAG)."""
        assert self.record is not None
        # The closed loop's own bound without any round trip: VUs x tool calls per iteration / think time.
        think = self.config.timing.think_time_s
        think_bound = (load.vus * (spec.workload or lineup()).tool_calls_per_iteration / think
                       if load.model == "closed" and think > 0 else None)
        if load.model == "closed":
            limit = (self.record.run.calibration or {}).get(load.mode)
            if limit is not None and limit.status == "ok" and limit.tool_calls_per_s:
                # Calibrated at the run's largest VUs; fewer VUs allow proportionally less (a little more in
                # truth: their round trips are shorter, so this errs towards flagging).
                calibrated = limit.tool_calls_per_s * load.vus / limit.vus
                # The calibration runs the lineup's iteration (3 tool calls); a workload of fewer calls per
                # iteration with a long think time (the sessions dimension: 1 call every 4 s) is bound lower, by
                # the think time alone — a true upper bound, so the lower of the two.
                return Limit(kind=analysis.LOAD_MODEL, tool_calls_per_s=min(calibrated, think_bound or calibrated),
                             fraction=None)
            return None
        capacity = self.harness_capacity(load.mode)
        return Limit(kind=analysis.HARNESS_CAPACITY, tool_calls_per_s=capacity, fraction=None) if capacity else None

    def harness_capacity(self, mode: str) -> float | None:
        """This run's harness open-model capacity for the mode (None: not calibrated, or it failed)."""
        assert self.record is not None
        capacity = (self.record.run.harness_capacity or {}).get(mode)
        return capacity.tool_calls_per_s if capacity is not None and capacity.status == "ok" else None

    def _build_all(self) -> None:
        assert self.record is not None and self.bench is not None
        outcome = self.bench.build_infra()
        if outcome.status != "ok":
            raise RuntimeError(f"the API service did not build: {outcome.reason}")
        # A server its manifest keeps out of this run (a dimension it does not offer) is listed, never built.
        jobs = [(state.spec, self.run_dir.server(state.spec.name).build_log) for state in self.states.values()
                if not state.spec.unavailable]
        if not jobs:
            return
        workers = min(self.bench.runtime.build_workers, len(jobs))
        label = f"building {len(jobs)} servers, {workers} at a time…" if workers > 1 else "building the servers…"
        with self.events.activity(label):
            for spec, outcome in self.bench.build_all(jobs):
                self._built(spec, outcome)

    def _built(self, spec: ServerSpec, outcome: BuildOutcome) -> None:
        assert self.record is not None
        state = self.states[spec.name]
        write_record(self.run_dir.server(spec.name).build_json, outcome.build_record())
        if outcome.status != "ok":
            state.failed = True
            # skipped = this machine lacks the toolchain: the server is unavailable here, not broken
            status = "unavailable" if outcome.status == "skipped" else "failed"
            self.record.update_server(spec.name, status=status, phase="build", reason=outcome.reason)
            self.events.emit(ev.ServerBuilt(server=spec.name, status=status, seconds=outcome.seconds,
                                            reason=outcome.reason))
        else:
            self.events.emit(ev.ServerBuilt(server=spec.name, status="ok", seconds=outcome.seconds))

    # -- one server --------------------------------------------------------------------------------------------
    def _unsupported_modes(self, spec: ServerSpec) -> dict[str, str]:
        """The asked-for modes the server cannot be measured in: a protocol revision its SDK does not accept
        (its manifest's `protocols`; a manifest that records none accepts the v2 study's 2024-11-05), or
        the stdio transport without a [stdio] command in its manifest."""
        accepted = spec.info.protocols or [MODE_PROTOCOL["session"]]
        unsupported: dict[str, str] = {mode: f"its SDK does not accept protocol {MODE_PROTOCOL[mode]} (it accepts "
                                       f"{', '.join(accepted)})"
                                 for mode in self.config.modes if MODE_PROTOCOL[mode] not in accepted}
        if not spec.serves_stdio:
            unsupported.update({mode: "its manifest has no [stdio] command" for mode in self.config.stdio_modes})
        if not spec.serves_http:
            unsupported.update({mode: "a --stdio server: measure it with --mode stdio" for mode in self.config.modes
                                if MODE_TRANSPORT[mode] == "http"})
        return unsupported

    def _measure_server(self, state: ServerState, round_index: int, position: int) -> None:
        """What every experiment's server round starts with (the modes it cannot be measured in said and
        recorded, the runtime that ran it), then the experiment's measurements."""
        assert self.record is not None and self.bench is not None
        spec = state.spec
        if spec.unavailable:
            raise ServerUnavailable("unsupported", spec.unavailable)
        state.unsupported = self._unsupported_modes(spec)
        if len(state.unsupported) == len(self.config.modes):
            phase = "transport" if set(state.unsupported) <= set(self.config.stdio_modes) else "protocol"
            raise ServerUnavailable(phase, "; ".join(f"{mode}: {why}" for mode, why in state.unsupported.items()))
        self.record.update_server(spec.name, status="running")
        if round_index == 1:
            if state.unsupported:
                self.record.update_server(spec.name, unsupported_modes=state.unsupported)
                for mode, why in state.unsupported.items():
                    self.events.emit(ev.ModeUnsupported(server=spec.name, mode=mode, reason=why))
            version = self.bench.runtime_version(spec)
            if version:
                self.record.update_server(spec.name, runtime_version=version)
                self.events.emit(ev.RuntimeFound(server=spec.name, version=version))
        with self.experiment.interrupts():
            self.experiment.measure_server(ServerRound(self, state, round_index, position))

    @contextmanager
    def started(self, state: ServerState, out: MeasurementDir, transport: str = "http") -> Iterator[Started]:
        """The server re-seeded, started, its start-up recorded, verified once per run; stopped on exit.
        Over stdio the load generator starts it (and every reply it checks is its verification)."""
        assert self.record is not None and self.bench is not None
        spec = state.spec
        out.mkdir()
        seed_s = self.bench.reset() if spec.uses_infra else None
        self._setup(spec, out)
        self._recalibrate_if_restarted()
        if transport == "stdio":
            with self.bench.stdio_server(spec, out.server_log) as server:
                yield Started(server, out, {"startup_s": None, "idle_mem_mb": None, "idle_rss_mb": None,
                                            "seed_s": _rounded(seed_s)})
            return
        with self.bench.server(spec, out.server_log) as server:
            idle = server.usage()
            idle_mem_mb = idle.memory_bytes / 2**20 if idle else None
            tree = server.process_tree_usage()
            idle_rss_mb = round(tree.memory_bytes / 2**20, 1) if tree else None
            if server.details is not None:  # the docker runtime: image, its size, cold start
                self.record.update_server(spec.name, **server.details.model_dump(exclude_unset=True))
                write_record(self.run_dir.server(spec.name).image_json, server.details)
                self._record_runtime_section()
            self.record.update_server(spec.name, startup_s=round(server.startup_s, 3),
                                      idle_mem_mb=round(idle_mem_mb, 1) if idle_mem_mb else None,
                                      idle_rss_mb=idle_rss_mb)
            self.events.emit(ev.ServerStarted(server=spec.name, measurement=out.name, startup_s=server.startup_s,
                                              idle_mem_mb=idle_mem_mb, idle_rss_mb=idle_rss_mb, seed_s=seed_s))
            if not state.verified:
                self._verify(spec, server)
                state.verified = True
                if spec.uses_infra:
                    seed_s = self.bench.reset()  # verify's checkout wrote to Redis
            yield Started(server, out, {"startup_s": round(server.startup_s, 3), "idle_mem_mb": idle_mem_mb,
                                        "idle_rss_mb": idle_rss_mb, "seed_s": _rounded(seed_s)})

    def _setup(self, spec: ServerSpec, out: MeasurementDir) -> None:
        """The workload file's `setup` (a server's own re-seed: a database reset, a cache cleared), run before
        every start as the lineup's Redis is re-seeded; its output in setup.log, a failure ends the server's
        part of the run (ServerFailed, phase setup)."""
        command = spec.workload.spec.setup if spec.workload is not None else None
        if not command:
            return
        outcome = run_commands((command,), spec.directory, {**os.environ, **spec.run_env}, SETUP_TIMEOUT_S,
                               out.setup_log)
        if outcome.status != "ok":
            raise ServerFailed("setup", f"the workload's setup failed: {outcome.reason}")

    def measure(self, state: ServerState, started: Started, load: Load, round_index: int, position: int,
                timing: Timing | None = None, out: MeasurementDir | None = None, probe_processes: bool = False,
                stop_requested: Callable[[], bool] | None = None, prewarm_s: float | None = None,
                shown: bool = True) -> Summary:
        """One measurement of a started server, recorded: summary.json written with who, when and how the
        server started, run.json listing it. A dead server ends its part of the run (ServerFailed); an
        invalid measurement is kept and said (and the infrastructure restarted when it was the cause).
        `shown`: False when the experiment says the measurement its own way (its Measured event says so)."""
        assert self.record is not None and self.bench is not None
        spec = state.spec
        out = (out or started.out).mkdir()
        harness = self.harnesses[MODE_TRANSPORT[load.mode]]
        timing = timing or self.config.timing
        warmed = None
        try:
            if prewarm_s and not started.server.stdio_launch:
                warmed = prewarm(harness, started.server, ClosedLoad(load.mode, load.vus), prewarm_s, out,
                                 timing.think_time_s, spec.workload)
                self.events.emit(ev.WarmedUp(server=spec.name, measurement=out.name, seconds=prewarm_s))
            record = measure(harness, started.server, load, out, timing, self.limit(load, spec),
                             probe_processes=probe_processes, stop_requested=stop_requested, workload=spec.workload,
                             server=spec.name, run=round_index)
        except MeasurementFailed as exc:
            raise ServerFailed("load", str(exc)) from exc
        facts = dict(started.facts)
        if started.server.stdio_launch:  # the load driver timed the start: spawn to initialize answered
            counts = loadgen.read_counts(out.counts)
            facts["startup_s"] = counts.startup_s if counts else None
        # What only the suite knows of the measurement (its place in the round, the server's start, a pre-warm):
        # none of it enters the verdict measure() judged.
        assign(record, str(out.summary), round_order=position, **facts, prewarm=warmed)
        write_checked(out.summary, document(record))
        self.record.list_measurement(spec.name, out.name)
        self.events.emit(self._measured(spec.name, out.name, record, shown))
        self._count(state, out, load, round_index, record)
        if record.status == "invalid":
            if record.phase == "infra":
                self.bench.restart_infra()
                self.events.emit(ev.InfraRestarted(cause="measurement"))
        return record

    @staticmethod
    def _measured(server: str, measurement: str, summary: Summary, shown: bool) -> ev.Measured:
        """The Measured event of a recorded summary: its status and headline figures."""
        lat = summary.latency_ms.tool_call
        res = summary.resources.get("server")
        return ev.Measured(server=server, measurement=measurement, status=summary.status, phase=summary.phase,
                           reason=summary.reason, tool_calls_per_s=summary.throughput.tool_calls_per_s,
                           p50_ms=lat.p50, p99_ms=lat.p99, error_rate=summary.errors.rate,
                           cpu_avg_pct=res.cpu_avg_pct if res else None, mem_peak_mb=res.mem_peak_mb if res else None,
                           flags=list(summary.flags), shown=shown)

    @staticmethod
    def _count(state: ServerState, out: MeasurementDir, load: Load, round_index: int, summary: Summary) -> None:
        """What a measurement, just made or kept by a resume, means for its server: a failed one ends its part
        (ServerFailed), an invalid one is noted for its status, round 1's closed rate is what equal loads and
        --open fractions are sized from."""
        if summary.status == "failed":
            raise ServerFailed(summary.phase or "load", summary.reason or "")
        if summary.status == "invalid":
            state.invalid.append((summary.phase or "", f"{out.name}: {summary.phase}: {summary.reason}"))
        elif load.sizes_open_rates and round_index == 1:
            state.closed_rates[(load.mode, out.name)] = summary.throughput.tool_calls_per_s

    def kept(self, state: ServerState, out: MeasurementDir, load: Load, round_index: int) -> Summary | None:
        """A resumed run's measurement finished before the stop (its summary is there): kept, not measured
        again, and counted as if just measured (round 1's closed rate, an invalid one said again)."""
        if self.resume_record is None or not out.summary.is_file():
            return None
        assert self.record is not None
        summary = parsed(Summary, json.loads(out.summary.read_text(encoding="utf-8")), out.summary)
        self.resume_record.kept += 1
        self.record.list_measurement(state.spec.name, out.name)  # stopped between writing and listing it
        self.events.emit(ev.MeasurementKept(server=state.spec.name, measurement=out.name))
        self._count(state, out, load, round_index, summary)
        return summary

    def set_aside(self, state: ServerState, out: MeasurementDir, summary: Summary, later: bool = False) -> None:
        """A host-disturbed measurement kept beside the one that replaces it: renamed <dir>.disturbed (a number
        added when that exists), its summary marked `repeated`, run.json listing it under its new name.
        `later`: it is measured again at the end of its pass rather than now."""
        assert self.record is not None
        target = out.aside(DISTURBED)
        out.path.rename(target.path)
        why = ", ".join(f for f in summary.flags if f in analysis.HOST_FLAGS)
        summary.repeated = f"{why}: measured again in {out.name}" + (
            " after the other servers of its pass" if later else "")
        write_checked(target.summary, document(summary))
        self.record.list_measurement(state.spec.name, target.name, replaces=out.name)
        self.events.emit(ev.SetAside(server=state.spec.name, measurement=out.name, why=why, later=later))

    def _verify(self, spec: ServerSpec, server: RunningServer) -> None:
        """verify.json: the server's start and the workload's checks (workload/verify.py); a fail ends its part."""
        assert self.bench is not None
        infra = self.bench.infra
        # --probes: identical calls at one instant must be the first the server gets after its start
        probing = self.config.probes and not spec.given and not spec.overrides
        prober = probes.first_concurrent(server.url) if probing else None
        with self.events.activity(f"verifying {spec.name}…"):
            # A server given on the command line is held to its workload file; the lineup's to the whole spec.
            verdict = (verify_calls(server.url, spec.workload) if spec.given and spec.workload
                       else verify(server.url, spec.name, spec.info.protocols,
                                   ToolSettings.from_environment(spec.run_env), spec.info.unsupported,
                                   infra.redis_url if infra else None))
        checks = [Check(name="start", status="pass", reason=f"ready in {server.startup_s:.2f} s"), *verdict.checks]
        suite = self._conformance(spec, server, checks) if self.config.conformance else None
        probed = None
        if prober is not None:
            with self.events.activity(f"{spec.name}: the robustness probes…"):
                probed = probes.run_rest(prober)
        listening = server.listening()
        if listening is not None:  # the local runtime: HOST is loopback (docs/server-contract.md)
            exposed = [address for address in listening if not ports.is_loopback(address)]
            # A server given on the command line is not held to the contract's HOST: where it listens is its
            # own choice, said as a warning (the load only ever goes to loopback).
            worst: Literal["warn", "fail"] = "warn" if spec.given else "fail"
            checks.append(Check(name="listens on loopback only", status=worst if exposed or not listening else "pass",
                                reason=f"also listens on {', '.join(exposed)}: reachable from other machines; the "
                                       f"contract's HOST is {ports.LOOPBACK}" if exposed else
                                       "no listening socket found" if not listening else ", ".join(listening)))
        if not server.alive():
            cause = server.exit_cause()
            checks.append(Check(name="server alive", status="fail", reason="the server exited during verify"
                                + (f": {cause}" if cause else "") + ":\n" + server.log_tail()))
        verdict = Verify.of(checks, verdict.tools_list, suite, probed)
        write_record(self.run_dir.server(spec.name).verify_json, verdict)
        self.events.emit(ev.ServerVerified(server=spec.name, status=verdict.status, checks=[
            ev.VerifyCheck(name=check.name, status=check.status, reason=check.reason) for check in verdict.checks]))
        # A --what-if twin may change how the server is deployed (its protection off): those failures are
        # recorded, and only a wrong answer ends its part.
        fatal = [c for c in verdict.failures() if not (spec.overrides and is_deployment_check(c))]
        if fatal:
            raise ServerFailed("verify", "; ".join(f"{c.name}: {c.reason}" for c in fatal))
        if verdict.status == "fail":
            self.events.emit(ev.Warned(text=f"{spec.name} is a what-if ({spec.what_if}): measured with the "
                                            "deployment checks it fails"))

    def _conformance(self, spec: ServerSpec, server: RunningServer,
                     checks: list[Check]) -> conformance.Conformance | None:
        """--conformance: the official MCP conformance suite's applicable scenarios, their checks added to
        `checks`; a suite that cannot run here is one `unavailable` check (the server is not failed for it)."""
        with self.events.activity(f"{spec.name}: the MCP conformance suite ({conformance.SUITE})…"):
            try:
                suite = conformance.run(server.url, paths.CONFORMANCE_DIR)
            except conformance.SuiteUnavailable as exc:
                checks.append(Check(name="conformance", status="unavailable", reason=str(exc)))
                return None
        checks.extend(suite.checks())
        self.events.emit(ev.ConformanceRan(server=spec.name, passed=suite.passed, applicable=suite.applicable))
        return suite


@dataclass(frozen=True)
class ServerRound:
    """What an experiment sees of one server in one round: the modes it can be measured in, and the
    runner's start and measurement, already bound to the server and the round."""

    runner: Runner
    state: ServerState
    round: int
    position: int

    @property
    def spec(self) -> ServerSpec:
        return self.state.spec

    @property
    def name(self) -> str:
        return self.state.spec.name

    @property
    def modes(self) -> list[str]:
        """The run's modes this server can be measured in."""
        return [m for m in self.runner.config.modes if m not in self.state.unsupported]

    def directory(self, label: str) -> MeasurementDir:
        """A measurement's directory: <server>/<label>-r<round>."""
        return self.runner.run_dir.server(self.name).measurement(label, self.round)

    def started(self, label: str, transport: str = "http") -> AbstractContextManager[Started]:
        return self.runner.started(self.state, self.directory(label), transport)

    def measure(self, started: Started, load: Load, timing: Timing | None = None, label: str | None = None,
                probe_processes: bool = False, stop_requested: Callable[[], bool] | None = None,
                quiet: bool = False, prewarm_s: float | None = None) -> Summary:
        """One recorded measurement (in the started server's directory, or <label>-r<round>), after `prewarm_s`
        seconds of the closed model at its VUs when given (measure.prewarm)."""
        out = self.directory(label) if label else started.out
        return self.runner.measure(self.state, started, load, self.round, self.position, timing, out,
                                   probe_processes, stop_requested, prewarm_s, shown=not quiet)

    def measure_load(self, load: Load, timing: Timing | None = None, prewarm_s: float | None = None,
                     later: Callable[[Summary], None] | None = None, retake: bool = True) -> Summary | None:
        """The load on a fresh start of the server, recorded. A measurement the host disturbed (a noisy or
        unstable host: analysis.HOST_FLAGS, nothing the server did) is set aside — kept as <dir>.disturbed,
        marked `repeated` — and measured once more on another fresh start, so one slow spell of a shared
        machine does not take a server out of the ranking. When that retake is disturbed too and `later` is
        given, it is set aside as well and measured at the end of its pass (Runner.defer), its summary then
        handed to `later` (None returned now); otherwise it stands, flagged. `retake` False: it stands, flagged,
        at once (figures the host's speed does not move, a server's memory)."""
        kept = self.runner.kept(self.state, self.directory(load.label), load, self.round)
        if kept is not None:
            return kept
        summary = self._fresh(load, timing, prewarm_s)
        if not retake or not analysis.host_disturbed(summary.status, summary.flags):
            return summary
        self.runner.set_aside(self.state, self.directory(load.label), summary)
        summary = self._fresh(load, timing, prewarm_s)
        if (later is None or not analysis.host_disturbed(summary.status, summary.flags)
                or not self.runner.defer(self.state, lambda: later(self._fresh(load, timing, prewarm_s)))):
            return summary
        self.runner.set_aside(self.state, self.directory(load.label), summary, later=True)
        return None

    def _fresh(self, load: Load, timing: Timing | None, prewarm_s: float | None) -> Summary:
        with self.started(load.label, MODE_TRANSPORT[load.mode]) as started:
            return self.measure(started, load, timing, prewarm_s=prewarm_s,
                                probe_processes=self.runner.config.processes)

    def best_closed_rate(self, mode: str) -> float | None:
        """Round 1's highest closed-model rate in the mode (what open-model fractions are taken of)."""
        return self.state.best_rate(mode)

    def harness_capacity(self, mode: str) -> float | None:
        return self.runner.harness_capacity(mode)


def _rounded(seconds: float | None) -> float | None:
    return round(seconds, 3) if seconds is not None else None

"""One suite run: build, start infra, and for each server reset → start → verify → load → stop → record."""

from __future__ import annotations

import os
import random
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from . import analysis, calibrate, cgroups, hostprobe, processes
from .build import BuildOutcome, build_api_service, build_server
from .config import FULL_TIMING, Load, ResourceProfile, RunConfig
from .fingerprint import fingerprint
from .infrawatch import InfraWatch
from .loadgen import LoadError, LiveSamples, Tick, run_k6
from .manifest import ServerSpec
from .resources import Sampler, rebase, host_reader, process_reader
from .results import SCHEMA, RunRecord, new_run_id, write_json, write_resources
from .runtime.base import InfraHandle, RunningServer, StartError
from .toolchain import MissingRequirement, environment_for
from .verify import verify
from .warmup import WarmupDecision, steady_start


class ServerFailed(Exception):
    def __init__(self, phase: str, reason: str):
        super().__init__(f"{phase}: {reason}")
        self.phase = phase
        self.reason = reason


class ServerUnavailable(ServerFailed):
    """This machine lacks what the server needs (a toolchain, a JDK): listed with the reason, not a failure."""


class SuiteFailed(RuntimeError):
    """The suite could not go on (the infrastructure would not start, a bug): run.json says `failed`."""


@dataclass
class _ServerState:
    spec: ServerSpec
    verified: bool = False
    failed: bool = False
    best_rate: dict[str, float] = field(default_factory=dict)  # mode -> round 1's max tool calls/s (closed)
    invalid: list[tuple[str, str]] = field(default_factory=list)  # (phase, why) of measurements not to trust


def server_environment(spec: ServerSpec, infra: InfraHandle, profile: ResourceProfile,
                       runtime: str = "local") -> dict[str, str]:
    """The contract's environment (docs/server-contract.md) plus the manifest's toolchain needs."""
    contract = {
        "REDIS_URL": infra.server_redis_url, "API_SERVICE_URL": infra.server_api_url, "SERVER_TYPE": spec.name,
        "CPU_LIMIT": f"{profile.cpus:g}", "MEMORY_LIMIT_MB": str(profile.memory_mb),
    }
    if runtime == "docker":  # containers get the contract variables only; their toolchains are in the images
        return contract
    env = environment_for(spec.info.requires, spec.info.jdk)
    env.update(contract)
    return env


def make_runtime(config: RunConfig, support: cgroups.Support):
    if config.runtime == "docker":
        from .runtime.docker import DockerRuntime  # imported lazily: the local path needs no docker

        return DockerRuntime(config.profile)
    from .runtime.local import LocalRuntime

    return LocalRuntime(config.profile, support)


class Suite:
    def __init__(self, config: RunConfig, specs: list[ServerSpec], results_root: Path,
                 console: Console | None = None, run_id: str | None = None):
        self.config = config
        self.specs = specs
        self.console = console or Console()
        self.support = cgroups.detect() if config.runtime == "local" else cgroups.Support(None, True, None)
        self.run_id = run_id or new_run_id(config.runtime)
        self.directory = results_root / self.run_id
        self.record: RunRecord | None = None
        self.infra: InfraHandle | None = None
        self.runtime: Any = None

    # -- the whole suite -------------------------------------------------------------------------------
    def run(self) -> RunRecord:
        self.directory.mkdir(parents=True, exist_ok=False)
        if not self.support.usable:
            self.console.print(
                f"[bold red]WARNING: cgroup limits cannot be applied ({self.support.reason}). The servers run "
                "WITHOUT CPU/memory limits; every result is flagged cgroup-not-applied.[/]")
        if self.config.profile.note:
            self.console.print(f"[yellow]Resource profile: {self.config.profile.note}[/]")
        self.record = RunRecord(self.directory, self.run_id, self.config.record(), fingerprint(self.support))
        self.console.print(f"Results: [bold]{self.directory}[/]")
        self._pin_orchestrator()
        status, error = "complete", None
        try:
            self._run_all()
        except KeyboardInterrupt:
            status = "interrupted"
            self.console.print("[bold red]Interrupted: stopping everything; finished measurements are kept.[/]")
        except Exception as exc:  # noqa: BLE001 - recorded, then one line on the console (cli)
            status, error = "failed", f"{type(exc).__name__}: {exc}".splitlines()[0]
            # The whole traceback is for whoever debugs it, not for the console.
            (self.directory / "error.log").write_text(traceback.format_exc())
        finally:
            self._shutdown()
            self.record.finish(status, error)
        if error:
            raise SuiteFailed(f"{error} (finished measurements are kept in {self.directory}; "
                              f"traceback in error.log)")
        return self.record

    def _pin_orchestrator(self) -> None:
        """The orchestrator (sampling, probes, progress) runs on the harness CPUs, never on the server's."""
        cpus = self.config.profile.harness_cpus
        if cpus:
            try:
                os.sched_setaffinity(0, cpus)
            except OSError:
                pass

    def _shutdown(self) -> None:
        if self.infra:
            self.infra.stop()
        if self.runtime:
            self.runtime.close()
        processes.stop_all()

    def _run_all(self) -> None:
        assert self.record is not None
        states = {spec.name: _ServerState(spec) for spec in self.specs}
        for spec in self.specs:
            self.record.server(spec.name)
            write_json(self.directory / spec.name / "server.json", spec.describe())
        self.runtime = make_runtime(self.config, self.support)
        if hasattr(self.runtime, "environment"):  # docker: engine, compose, base image
            self.record.data["environment"][self.runtime.name] = self.runtime.environment()
            self.record.save()
        if self.config.build:
            self._build_all(states)
        self.infra = self.runtime.start_infra(self.directory / "_infra")
        if self.config.calibrate:
            self._calibrate()
        rounds: list[list[str]] = []
        for round_index in range(1, self.config.runs + 1):
            order = [state for state in states.values() if not state.failed]
            if self.config.shuffle:
                random.shuffle(order)  # a new order every round: a slow spell of the host hits no server twice
            rounds.append([state.spec.name for state in order])
            self.record.data["rounds"] = rounds
            if self.config.runs > 1:
                self.console.print(f"[bold]Round {round_index}/{self.config.runs}:[/] " + ", ".join(rounds[-1]))
            for position, state in enumerate(order, start=1):
                try:
                    self._measure_server(state, round_index, position)
                except ServerFailed as failure:
                    state.failed = True
                    status = "unavailable" if isinstance(failure, ServerUnavailable) else "failed"
                    self.record.update_server(state.spec.name, status=status, phase=failure.phase,
                                              reason=failure.reason)
                    self.console.print(f"[red]✗ {state.spec.name} {status} in {failure.phase}:[/] "
                                       f"{failure.reason.splitlines()[0] if failure.reason else ''}")
        for state in states.values():
            if not state.failed and self.record.server(state.spec.name)["status"] == "running":
                if state.invalid:
                    self.record.update_server(state.spec.name, status="invalid", phase=state.invalid[0][0],
                                              reason="; ".join(why for _, why in state.invalid))
                else:
                    self.record.update_server(state.spec.name, status="ok")

    def _calibrate(self) -> None:
        """The harness's ceiling for every mode, once, before the first round (run.json `calibration`)."""
        assert self.record is not None and self.infra is not None
        quick = self.config.timing.duration_s < FULL_TIMING.duration_s
        timing = calibrate.SUITE_TIMING_QUICK if quick else calibrate.SUITE_TIMING_FULL
        ceilings = {}
        for mode in self.config.modes:
            load = Load(mode, max(self.config.vus))
            summary = calibrate.measure_ceiling(self.infra, load, timing,
                                                self.directory / "_calibration" / f"{load.label}",
                                                self.config.profile, self.console)
            ceilings[mode] = calibrate.ceiling_record(summary)
        self.record.data["calibration"] = ceilings
        self.record.save()

    def _build_all(self, states: dict[str, _ServerState]) -> None:
        assert self.record is not None
        infra_log = self.directory / "_infra" / "api-service-build.log"
        infra_log.parent.mkdir(parents=True, exist_ok=True)
        # A runtime that builds its own artefacts (docker: images) says so with build_infra/build_server.
        outcome = getattr(self.runtime, "build_infra", build_api_service)(infra_log)
        if outcome.status != "ok":
            raise RuntimeError(f"the API service did not build: {outcome.reason}")
        done: dict[tuple[Path, tuple[str, ...]], BuildOutcome] = {}
        for state in states.values():
            spec = state.spec
            builder = getattr(self.runtime, "build_server", None)
            key = (spec.directory, spec.build_commands) if builder is None else (spec.name,)
            with self.console.status(f"building {spec.name}…"):
                outcome = done.get(key) or (builder or build_server)(spec, self.directory / spec.name / "build.log")
            done[key] = outcome
            write_json(self.directory / spec.name / "build.json", outcome.record())
            if outcome.status != "ok":
                state.failed = True
                # skipped = this machine lacks the toolchain: the server is unavailable here, not broken
                status = "unavailable" if outcome.status == "skipped" else "failed"
                self.record.update_server(spec.name, status=status, phase="build", reason=outcome.reason)
                colour = "yellow" if status == "unavailable" else "red"
                self.console.print(f"[{colour}]✗ {spec.name}: {status}:[/] {outcome.reason}")
            else:
                self.console.print(f"[green]✓[/] built {spec.name} in {outcome.seconds:.1f} s")

    # -- one server ------------------------------------------------------------------------------------
    def _measure_server(self, state: _ServerState, round_index: int, position: int) -> None:
        assert self.record is not None
        self.record.update_server(state.spec.name, status="running")
        if round_index == 1:
            self._record_runtime_version(state.spec)
        for load in self.config.loads():
            self._measure(state, load, round_index, position)
        for fraction in self.config.rate_fractions:
            for mode in self.config.modes:
                # The rate is fixed from round 1's closed maximum, so every round offers the same load.
                best = state.best_rate.get(mode)
                if not best:
                    self.console.print(f"  [yellow]{state.spec.name}: no round-1 closed rate for {mode}; "
                                       f"open model at {fraction:g} skipped[/]")
                    continue
                load = Load(mode, max(self.config.vus), "open", round(best * fraction, 1), fraction)
                self._measure(state, load, round_index, position)

    def _record_runtime_version(self, spec: ServerSpec) -> None:
        assert self.record is not None and self.infra is not None
        try:
            env = server_environment(spec, self.infra, self.config.profile, self.config.runtime)
        except MissingRequirement:
            return  # start() reports it
        version = self.runtime.runtime_version(spec, env)
        if version:
            self.record.update_server(spec.name, runtime_version=version)
            self.console.print(f"[cyan]{spec.name}[/] runs on {version}")

    def _start(self, spec: ServerSpec, log_path: Path) -> RunningServer:
        assert self.infra is not None
        try:
            env = server_environment(spec, self.infra, self.config.profile, self.config.runtime)
            return self.runtime.start(spec, env, log_path)
        except MissingRequirement as exc:
            raise ServerUnavailable("start", str(exc)) from exc
        except StartError as exc:
            raise ServerFailed("start", str(exc)) from exc

    def _measure(self, state: _ServerState, load: Load, round_index: int, position: int) -> None:
        assert self.record is not None and self.infra is not None
        spec = state.spec
        measurement = f"{load.label}-r{round_index}"
        out_dir = self.directory / spec.name / measurement
        out_dir.mkdir(parents=True, exist_ok=True)
        try:
            seed_s = self.infra.reset()
        except (redis.RedisError, OSError, ValueError) as exc:  # died between or during seeding: not the server's doing
            self.console.print(f"  [yellow]Redis did not answer the re-seed ({type(exc).__name__}); restarting the "
                               "infrastructure[/]")
            self._restart_infra()
            assert self.infra is not None
            seed_s = self.infra.reset()
        server = self._start(spec, out_dir / "server.log")
        try:
            idle = server.usage()
            idle_mem_mb = idle.memory_bytes / 2**20 if idle else None
            tree = server.process_tree_usage() if hasattr(server, "process_tree_usage") else None
            idle_rss_mb = round(tree.memory_bytes / 2**20, 1) if tree else None
            details = getattr(server, "details", None)  # the docker runtime: image, its size, cold start
            if details:
                self.record.update_server(spec.name, **details)
                write_json(self.directory / spec.name / "image.json", details)
            self.record.update_server(spec.name, startup_s=round(server.startup_s, 3),
                                      idle_mem_mb=round(idle_mem_mb, 1) if idle_mem_mb else None,
                                      idle_rss_mb=idle_rss_mb)
            self.console.print(f"[cyan]{spec.name}[/] {measurement}: ready in {server.startup_s:.2f} s, "
                               f"idle {idle_mem_mb or 0:.1f} MiB (RSS {idle_rss_mb or 0:.1f} MiB), "
                               f"Redis seeded in {seed_s:.2f} s")
            if not state.verified:
                self._verify(spec, server)
                state.verified = True
                seed_s = self.infra.reset()  # verify's checkout wrote to Redis
            summary = self._load(spec, server, load, out_dir)
        finally:
            server.stop()
        summary.update({"server": spec.name, "mode": load.mode, "vus": load.vus, "run": round_index,
                        "round_order": position, "executor": load.executor, "rate": load.rate,
                        "rate_fraction": load.rate_fraction, "startup_s": round(server.startup_s, 3),
                        "idle_mem_mb": idle_mem_mb, "idle_rss_mb": idle_rss_mb, "seed_s": round(seed_s, 3),
                        "schema": SCHEMA})
        summary["publishable"], summary["unpublishable_reasons"] = analysis.publishable(summary)
        write_json(out_dir / "summary.json", summary)
        self.record.server(spec.name)["measurements"].append(measurement)
        self.record.save()
        if summary["status"] == "failed":
            raise ServerFailed(summary["phase"], summary["reason"])
        if summary["status"] == "invalid":
            state.invalid.append((summary["phase"], f"{measurement}: {summary['phase']}: {summary['reason']}"))
            self.console.print(f"  [bold red]{spec.name} {measurement} invalid[/] ({summary['phase']}): "
                               f"{summary['reason']}")
            if summary["phase"] == "infra":
                self._restart_infra()
            return
        if load.executor == "closed" and round_index == 1:
            rate = summary["throughput"]["tool_calls_per_s"]
            state.best_rate[load.mode] = max(state.best_rate.get(load.mode, 0.0), rate)
        self._print_summary(spec.name, measurement, summary)

    def _restart_infra(self) -> None:
        """Redis or the API service died: a fresh pair, re-seeded, and the suite goes on."""
        assert self.infra is not None and self.runtime is not None
        try:
            self.infra.stop()
        except Exception:  # noqa: BLE001 - it is already broken; the new one is what matters
            pass
        restarts = sum(1 for p in self.directory.glob("_infra-restart-*"))
        self.infra = None
        self.infra = self.runtime.start_infra(self.directory / f"_infra-restart-{restarts + 1}")
        self.infra.reset()
        self.console.print("  [yellow]infrastructure restarted and re-seeded; going on[/]")

    def _verify(self, spec: ServerSpec, server: RunningServer) -> None:
        with self.console.status(f"verifying {spec.name}…"):
            verdict = verify(server.url, spec.name)
        write_json(self.directory / spec.name / "verify.json", verdict.record())
        for check in verdict.checks:
            colour = {"pass": "green", "warn": "yellow", "fail": "red"}[check.status]
            if check.status != "pass":
                self.console.print(f"  [{colour}]{check.status}[/] {check.name}: {check.reason}")
        self.console.print(f"  verify: [bold]{verdict.status}[/] ({len(verdict.checks)} checks)")
        if verdict.status == "fail":
            reasons = "; ".join(f"{c.name}: {c.reason}" for c in verdict.failures())
            raise ServerFailed("verify", reasons)

    def _load(self, spec: ServerSpec, server: RunningServer, load: Load, out_dir: Path) -> dict[str, Any]:
        """One k6 test with everything watched: resources at 1 Hz, the host's speed before and after,
        the server and the infra alive, and (adaptive warm-up) the window placed once throughput is steady."""
        assert self.infra is not None
        timing = self.config.timing
        profile = self.config.profile
        cpus = hostprobe.involved_cpus(profile.server_cpus, profile.harness_cpus)
        readers = {"server": server.usage, **self.infra.readers(), "host": host_reader,
                   **hostprobe.cpu_readers(cpus)}
        if hasattr(server, "process_tree_usage"):
            readers["server-procs"] = server.process_tree_usage
        sampler = Sampler(readers)
        died: list[str] = []
        decision: list[WarmupDecision] = [] if timing.adaptive else [WarmupDecision(timing.warmup_s, None)]
        with server.paused() as paused_before:
            probe_before = hostprobe.probe_all(cpus)

        def on_start(pid: int) -> None:
            readers["k6"] = process_reader(pid)
            sampler.start()

        with Progress(TextColumn(f"  load {load.label}"), BarColumn(), TimeElapsedColumn(), TextColumn("/"),
                      TimeRemainingColumn(), TextColumn("{task.fields[phase]}"), console=self.console,
                      transient=True) as progress, \
                InfraWatch(self.infra.redis_url, self.infra.api_url) as watch:
            task = progress.add_task("k6", total=timing.total_s, phase="warm-up")

            def on_tick(elapsed: float, live: LiveSamples) -> Tick:
                if not server.alive():
                    died.append(server.log_tail())
                    return Tick.ABORT
                if watch.problem:
                    return Tick.ABORT
                if not decision:
                    found = steady_start(live.per_second, timing, live.complete_s)
                    if found:
                        decision.append(found)
                if decision:
                    window = timing.window_after(decision[0].used_s)
                    total = window[1] + timing.ramp_down_s
                    progress.update(task, total=total, completed=min(elapsed, total),
                                    phase=f"window from {window[0]:.0f} s" + ("" if decision[0].steady is not False
                                                                               else " (warm-up capped)"))
                    if timing.adaptive and live.latest_s >= window[1] + 1:
                        return Tick.STOP  # the window is complete; the rest of k6's hold is not needed
                else:
                    progress.update(task, completed=min(elapsed, timing.total_s))
                return Tick.GO_ON

            try:
                result = run_k6(server.url, load, timing, out_dir, profile.harness_cpus,
                                on_start=on_start, on_tick=on_tick)
            except LoadError as exc:
                sampler.stop()
                raise ServerFailed("load", str(exc)) from exc
        resource_samples = sampler.stop()
        with server.paused() as paused_after:
            probe_after = hostprobe.probe_all(cpus)
        warm = decision[0] if decision else WarmupDecision(timing.warmup_cap_s or timing.warmup_s, False)
        window = timing.window_after(warm.used_s)
        start_epoch = result.k6_start_epoch_s or 0.0
        write_resources(out_dir / "resources.csv", resource_samples, start_epoch)
        ceiling = ((self.record.data.get("calibration") or {}).get(load.mode) or {}) if self.record else {}
        context = analysis.MeasurementContext(
            mode=load.mode, executor=load.executor, vus=load.vus, rate=load.rate,
            think_time_s=timing.think_time_s, request_timeout_s=timing.request_timeout_s,
            harness_cores=len(profile.harness_cpus or ()) or 1, limits_applied=server.limits_applied,
            ceiling_calls_per_s=ceiling.get("tool_calls_per_s") if ceiling.get("status") == "ok" else None,
            k6_exit_code=result.exit_code, k6_stopped_by_orchestrator=result.stopped_early,
            k6_counts=result.counts, k6_run_s=result.run_s,
            host_probe={cpu: {"before_s": probe_before.get(cpu), "after_s": probe_after.get(cpu)}
                        for cpu in probe_before},
            probe_server_paused=paused_before and paused_after,
            server_cpus=tuple(profile.server_cpus or ()), harness_cpus=tuple(profile.harness_cpus or ()),
            warmup=warm.record(timing))
        write_json(out_dir / analysis.CONTEXT_FILE, context.to_json())
        summary = analysis.summarize(result.samples, window, rebase(resource_samples, start_epoch), context)
        # What stopped the test decides above the cross-checks: a dead server is the server's failure,
        # dead infrastructure nobody's (the measurement is invalid and the suite goes on).
        if died or not server.alive():
            summary.update(status="failed", phase="load",
                           reason="the server exited during the load test:\n" + (died[0] if died else server.log_tail()))
        elif watch.problem:
            summary.update(status="invalid", phase="infra", reason=watch.problem)
        elif summary["status"] == "ok" and summary["throughput"]["tool_calls"] == 0:
            summary.update(status="failed", phase="load", reason="no tool call completed in the measured window")
        return summary

    def _print_summary(self, name: str, measurement: str, summary: dict[str, Any]) -> None:
        thr = summary["throughput"]
        lat = summary["latency_ms"]["tool_call"]
        res = summary["resources"].get("server", {})
        err = summary["errors"]
        flags = ", ".join(summary["flags"]) or "-"
        p50 = lat["p50"] if lat["p50"] is not None else float("nan")
        p99 = lat["p99"] if lat["p99"] is not None else float("nan")
        self.console.print(
            f"  [bold]{name}[/] {measurement}: {thr['tool_calls_per_s']:.1f} tool calls/s, "
            f"p50 {p50:.2f} ms, p99 {p99:.2f} ms, errors {err['rate'] or 0:.2%}, "
            f"CPU {res.get('cpu_avg_pct') or 0:.0f} %, peak mem {res.get('mem_peak_mb') or 0:.1f} MiB, flags {flags}")

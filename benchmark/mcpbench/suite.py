"""One suite run: build, start infra, and for each server reset → start → verify → load → stop → record."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from . import analysis, cgroups, processes
from .build import BuildOutcome, build_api_service, build_server
from .config import Load, ResourceProfile, RunConfig
from .fingerprint import fingerprint
from .loadgen import LoadError, run_k6
from .manifest import ServerSpec
from .resources import Sampler, rebase, host_reader, process_reader
from .results import RunRecord, new_run_id, write_json, write_resources
from .runtime.base import InfraHandle, RunningServer, StartError
from .toolchain import MissingRequirement, environment_for
from .verify import verify


class ServerFailed(Exception):
    def __init__(self, phase: str, reason: str):
        super().__init__(f"{phase}: {reason}")
        self.phase = phase
        self.reason = reason


@dataclass
class _ServerState:
    spec: ServerSpec
    verified: bool = False
    failed: bool = False
    best_rate: dict[str, float] = field(default_factory=dict)  # mode -> max tool calls/s (closed)


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
        status = "complete"
        try:
            self._run_all()
        except KeyboardInterrupt:
            status = "interrupted"
            self.console.print("[bold red]Interrupted: stopping everything; finished measurements are kept.[/]")
        finally:
            self._shutdown()
            self.record.finish(status)
        return self.record

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
        for round_index in range(1, self.config.runs + 1):
            order = list(states.values())
            if self.config.shuffle:
                random.shuffle(order)
            for state in order:
                if state.failed:
                    continue
                try:
                    self._measure_server(state, round_index)
                except ServerFailed as failure:
                    state.failed = True
                    self.record.update_server(state.spec.name, status="failed", phase=failure.phase,
                                              reason=failure.reason)
                    self.console.print(f"[red]✗ {state.spec.name} failed in {failure.phase}:[/] "
                                       f"{failure.reason.splitlines()[0] if failure.reason else ''}")
        for state in states.values():
            if not state.failed and self.record.server(state.spec.name)["status"] == "running":
                self.record.update_server(state.spec.name, status="ok")

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
                self.record.update_server(spec.name, status="skipped" if outcome.status == "skipped" else "failed",
                                          phase="build", reason=outcome.reason)
                self.console.print(f"[red]✗ {spec.name}: build {outcome.status}:[/] {outcome.reason}")
            else:
                self.console.print(f"[green]✓[/] built {spec.name} in {outcome.seconds:.1f} s")

    # -- one server ------------------------------------------------------------------------------------
    def _measure_server(self, state: _ServerState, round_index: int) -> None:
        assert self.record is not None
        self.record.update_server(state.spec.name, status="running")
        if round_index == 1:
            self._record_runtime_version(state.spec)
        for load in self.config.loads():
            self._measure(state, load, round_index)
        for fraction in self.config.rate_fractions:
            for mode in self.config.modes:
                best = state.best_rate.get(mode)
                if not best:
                    continue
                rate = round(best * fraction, 1)
                self._measure(state, Load(mode, max(self.config.vus), "open", rate), round_index)

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
            raise ServerFailed("start", str(exc)) from exc
        except StartError as exc:
            raise ServerFailed("start", str(exc)) from exc

    def _measure(self, state: _ServerState, load: Load, round_index: int) -> None:
        assert self.record is not None and self.infra is not None
        spec = state.spec
        measurement = f"{load.label}-r{round_index}"
        out_dir = self.directory / spec.name / measurement
        out_dir.mkdir(parents=True, exist_ok=True)
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
                        "executor": load.executor, "rate": load.rate, "startup_s": round(server.startup_s, 3),
                        "idle_mem_mb": idle_mem_mb, "idle_rss_mb": idle_rss_mb, "seed_s": round(seed_s, 3), "schema": 1})
        write_json(out_dir / "summary.json", summary)
        self.record.server(spec.name)["measurements"].append(measurement)
        self.record.save()
        if summary["status"] != "ok":
            raise ServerFailed(summary["phase"], summary["reason"])
        if load.executor == "closed":
            rate = summary["throughput"]["tool_calls_per_s"]
            state.best_rate[load.mode] = max(state.best_rate.get(load.mode, 0.0), rate)
        self._print_summary(spec.name, measurement, summary)

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
        assert self.infra is not None
        timing = self.config.timing
        readers = {"server": server.usage, **self.infra.readers(), "host": host_reader}
        if hasattr(server, "process_tree_usage"):
            readers["server-procs"] = server.process_tree_usage
        sampler = Sampler(readers)
        died: list[str] = []

        def on_start(pid: int) -> None:
            readers["k6"] = process_reader(pid)
            sampler.start()

        with Progress(TextColumn(f"  load {load.label}"), BarColumn(), TimeElapsedColumn(), TextColumn("/"),
                      TimeRemainingColumn(), console=self.console, transient=True) as progress:
            task = progress.add_task("k6", total=timing.total_s)

            def on_tick(elapsed: float) -> bool:
                progress.update(task, completed=min(elapsed, timing.total_s))
                if not server.alive():
                    died.append(server.log_tail())
                    return False
                return True

            try:
                result = run_k6(server.url, load, timing, out_dir, self.config.profile.harness_cpus,
                                on_start=on_start, on_tick=on_tick)
            except LoadError as exc:
                sampler.stop()
                raise ServerFailed("load", str(exc)) from exc
        resource_samples = sampler.stop()
        start_epoch = result.k6_start_epoch_s or 0.0
        write_resources(out_dir / "resources.csv", resource_samples, start_epoch)
        rebased = rebase(resource_samples, start_epoch)
        harness_cores = len(self.config.profile.harness_cpus or ()) or 1
        summary = analysis.summarize(result.samples, timing.window, rebased, harness_cores,
                                     server.limits_applied, load.rate)
        summary["status"], summary["phase"], summary["reason"] = "ok", None, None
        if died or not server.alive():
            summary.update(status="failed", phase="load",
                           reason="the server exited during the load test:\n" + (died[0] if died else server.log_tail()))
        elif summary["throughput"]["tool_calls"] == 0:
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

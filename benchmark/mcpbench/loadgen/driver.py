"""The load driver (benchmark/load-driver, Go, standard library): the suite's load generator for every mode
— Streamable HTTP (session, stateless, persistent, stateless-2026) and stdio, the closed and the open
model. It writes the raw sample lines and counts the analysis reads, so nothing downstream knows which
generator ran. Over stdio it starts the server itself (a stdio server has exactly one client).

Several instances split one HTTP test by segments (`--segment i/n`: VUs or rate divided, VU ids global),
merged like k6's execution segments (merge.py) — the unit a multi-host runtime places on load nodes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from mcpbench.catalog.build import go_sources, run_commands, up_to_date
from mcpbench.host import processes
from mcpbench.host.paths import ROOT
from mcpbench.host.resources import UsageReader, process_group_reader, process_reader
from mcpbench.host.toolchain import MissingRequirement, environment_for
from mcpbench.loadgen.base import LoadError, LoadRun, OnStart, OnTick, StdioLaunch, seconds_text
from mcpbench.loadgen.instances import OVERRUN_S, Instance, LocalInstances
from mcpbench.loads import MODE_PROTOCOL
from mcpbench.results.layout import MeasurementDir
from mcpbench.results.model import GENERATOR_BUILD_LOG, LoadgenCounts
from mcpbench.workload.file import Workload, lineup

if TYPE_CHECKING:
    from mcpbench.loads import Load
    from mcpbench.loads.base import Stage
    from mcpbench.loads.timing import Timing

DRIVER_DIR = ROOT / "benchmark" / "load-driver"
DRIVER_BIN = DRIVER_DIR / "bin" / "load-driver"
BUILD_COMMAND = "go build -trimpath -o bin/load-driver ."
# A stdio server's start-up (initialize) may take this long before the test's own time starts: a JVM
# server starting under a small CPU quota.
INIT_TIMEOUT_S = 120
SERVER_EXITED = 4  # the driver's exit code when a stdio server exited during the test (its README)


def ensure_built(log_path: Path) -> Path:
    """The driver's binary, built first when it is missing or older than one of its sources."""
    if up_to_date(DRIVER_BIN, go_sources(DRIVER_DIR)):
        return DRIVER_BIN
    try:
        env = environment_for(["go"], None)
    except MissingRequirement as exc:
        raise LoadError(f"the load driver cannot be built: {exc}") from None
    log_path.parent.mkdir(parents=True, exist_ok=True)
    outcome = run_commands((BUILD_COMMAND,), DRIVER_DIR, env, 600, log_path)
    if outcome.status != "ok":
        # The reason is "`command` exited N:" and the log's tail; the compiler's first error says most.
        lines = (outcome.reason or "").splitlines()
        errors = [line for line in lines[1:] if line.strip() and not line.startswith(("$ ", "# "))]
        first = errors[0] if errors else lines[0] if lines else "failed"
        raise LoadError(f"the load driver did not build: {first} (see {log_path})")
    return DRIVER_BIN


def stages_text(stages: Sequence[Stage]) -> str:
    """The driver's --stages: `duration:target` pairs (its README)."""
    return ",".join(f"{seconds_text(duration)}:{target:.10g}" for duration, target in stages)


def schedule_arguments(load: Load, timing: Timing) -> list[str]:
    """The driver's arguments that give the load's schedule: its model, its stages and, in the open model, the
    VUs it pre-allocates and may grow to."""
    argv = ["--model", load.model, "--stages", stages_text(load.stages(timing))]
    if load.model == "open":
        argv += ["--vus", str(load.vus), "--max-vus", str(load.max_vus(load.vus))]
    return argv


def driver_argv(binary: Path, url: str, load: Load, timing: Timing, checks: bool, samples_log: Path,
                counts_path: Path, segment: tuple[int, int] = (0, 1), launch: StdioLaunch | None = None,
                workload: Workload | None = None) -> list[str]:
    """The driver's command line (its contract: benchmark/load-driver/README.md); the calls are the workload
    file's (the lineup's unless another is given)."""
    argv = [str(binary), "--mode", load.mode, *schedule_arguments(load, timing),
            "--workload", (workload or lineup()).driver_json(), "--think-time-s", f"{timing.think_time_s:g}",
            "--timeout-s", f"{timing.request_timeout_s:g}", "--checks", "on" if checks else "off",
            "--protocol", MODE_PROTOCOL[load.mode], "--segment", f"{segment[0]}/{segment[1]}",
            "--samples", str(samples_log), "--counts", str(counts_path)]
    if launch is None:
        return [*argv, "--target", url]
    return [*argv, "--server-log", str(launch.log_path), "--init-timeout-s", str(INIT_TIMEOUT_S),
            "--", *launch.argv]


class LoadDriver(LocalInstances):
    name = "driver"
    transports = frozenset({"http", "stdio"})

    def prepare(self, log_dir: Path) -> None:
        ensure_built(log_dir / GENERATOR_BUILD_LOG)

    def usage_reader(self, pids: Sequence[int]) -> UsageReader:
        # Over stdio the driver's child is the server, measured on its own through its cgroup: the driver
        # alone is the load generator. Over HTTP the driver has no children.
        if len(pids) == 1:
            return process_reader(pids[0], children=False)
        return process_group_reader(pids)

    def run(self, url: str, load: Load, timing: Timing, out: MeasurementDir, on_start: OnStart | None = None,
            on_tick: OnTick | None = None, checks: bool = True, launch: StdioLaunch | None = None,
            workload: Workload | None = None) -> LoadRun:
        out = MeasurementDir(out.path.resolve())  # over stdio the driver runs in the server's directory
        out_dir = out.path
        binary = ensure_built(out_dir / GENERATOR_BUILD_LOG)
        # A stdio server has one client: its test is never split.
        count = 1 if launch is not None else self.instances

        def spawn(index: int, samples_log: Path, counts_path: Path, log_path: Path) -> processes.ManagedProcess:
            argv = driver_argv(binary, url, load, timing, checks, samples_log, counts_path, (index, count), launch,
                               workload)
            # Over stdio the driver gets the server's environment and directory, which the server inherits
            # from it; over HTTP a plain one.
            env = dict(launch.env) if launch else {"PATH": "/usr/bin:/bin", "HOME": str(out_dir)}
            return processes.spawn("load-driver", argv, cwd=launch.cwd if launch else out_dir, env=env,
                                   log_path=log_path, cpus=self.cpus)

        limit = (INIT_TIMEOUT_S if launch else 0) + timing.total_s + OVERRUN_S
        done = self.run_instances(count, spawn, out, limit, "the load driver", on_start, on_tick,
                                  timing.request_timeout_s)
        if done.samples.empty:
            raise LoadError(_no_samples_reason(done.instances[0], done.exit_code, done.all_counts[0], launch))
        died = None
        if launch is not None and done.exit_code == SERVER_EXITED:
            tail = launch.log_path.read_text(errors="replace").splitlines()[-20:] if launch.log_path.exists() else []
            said = done.counts.error if done.counts else None
            died = "\n".join([said or "the server exited during the test", *tail])
        return LoadRun(done.samples, done.start_epoch, done.exit_code, done.run_s, done.stopped_early, done.counts,
                       done.ended_epoch - done.start_epoch if done.start_epoch is not None else None, died)


def _no_samples_reason(instance: Instance, exit_code: int | None, counts: LoadgenCounts | None,
                       launch: StdioLaunch | None) -> str:
    # The driver's failure is its counts' "error" (also its last stderr line); one line, with where to look.
    lines = [line.strip() for line in instance.process.log_tail().splitlines() if line.strip()]
    reason = (counts.error if counts else None) or (lines[-1] if lines else f"see {instance.process.log_path}")
    where = f" (server log: {launch.log_path})" if launch else ""
    return f"the load driver produced no samples (exit {exit_code}): {reason}{where}"

"""The stdio driver (benchmark/stdio-driver): the load generator for servers on the stdio transport, which
k6 cannot speak. One local Go process starts the server itself (a stdio server has exactly one client),
runs load.js's closed model over its stdin/stdout and writes k6's raw sample lines, which are read back
like k6's: nothing downstream knows the load came from elsewhere.

The driver is driven as a k6 instance is (k6.py): the same live warm-up reading, the same graceful stop
on SIGINT, the same files in the measurement directory (samples.csv.gz, k6-counts.json, k6.log).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any


from .. import processes
from ..build import run_commands
from ..paths import ROOT
from ..resources import UsageReader, process_reader
from ..toolchain import MissingRequirement, environment_for
from ..warmup import LiveSamples
from .base import LoadError, LoadGenerator, LoadRun, OnStart, OnTick, StdioLaunch
from .k6 import COUNTS_FILE, OVERRUN_S, SAMPLES_FILE, compress_samples, drive, Instance, parse_samples, read_counts

if TYPE_CHECKING:
    from ..config import Timing
    from ..scenarios import Load

DRIVER_DIR = ROOT / "benchmark" / "stdio-driver"
DRIVER_BIN = DRIVER_DIR / "bin" / "stdio-driver"
BUILD_COMMAND = "go build -trimpath -o bin/stdio-driver ."
# The driver's start-up (initialize) may take this long before the test's own time starts: a JVM server
# starting under a small CPU quota.
INIT_TIMEOUT_S = 120
SERVER_EXITED = 4  # the driver's exit code when the server exited during the test (its README)


def _sources() -> list[Path]:
    return [path for path in DRIVER_DIR.iterdir()
            if (path.suffix == ".go" and not path.name.endswith("_test.go")) or path.name in ("go.mod", "go.sum")]


def ensure_built(log_path: Path) -> Path:
    """The driver's binary, built first when it is missing or older than one of its sources."""
    sources = _sources()
    if DRIVER_BIN.exists() and DRIVER_BIN.stat().st_mtime >= max(path.stat().st_mtime for path in sources):
        return DRIVER_BIN
    try:
        env = environment_for(["go"], None)
    except MissingRequirement as exc:
        raise LoadError(f"the stdio driver cannot be built: {exc}") from None
    outcome = run_commands((BUILD_COMMAND,), DRIVER_DIR, env, 600, log_path)
    if outcome.status != "ok":
        # The reason is "`command` exited N:" and the log's tail; the compiler's first error says most.
        lines = (outcome.reason or "").splitlines()
        errors = [line for line in lines[1:] if line.strip() and not line.startswith(("$ ", "# "))]
        first = errors[0] if errors else lines[0] if lines else "failed"
        raise LoadError(f"the stdio driver did not build: {first} (see {log_path})")
    return DRIVER_BIN


class StdioDriver(LoadGenerator):
    name = "stdio"
    transports = frozenset({"stdio"})

    def __init__(self, cpus: tuple[int, ...] | None, instances: int = 1):
        if instances != 1:
            raise ValueError("the stdio driver runs as one instance: a stdio server has one client")
        self.cpus = cpus

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "where": "local", "instances": 1}

    def prepare(self, log_dir: Path) -> None:
        log_dir.mkdir(parents=True, exist_ok=True)
        ensure_built(log_dir / "stdio-driver-build.log")

    def usage_reader(self, pids: Sequence[int]) -> UsageReader:
        # The driver alone: its child is the server, measured on its own through its cgroup.
        return process_reader(pids[0], children=False)

    def argv(self, binary: Path, load: Load, timing: Timing, checks: bool, samples_log: Path,
             counts_path: Path, launch: StdioLaunch) -> list[str]:
        """The driver's command line (its contract: benchmark/stdio-driver/README.md)."""
        return [str(binary), "--vus", str(load.vus), "--duration-s", f"{timing.total_s:g}",
                "--think-time-s", f"{timing.think_time_s:g}", "--timeout-s", f"{timing.request_timeout_s:g}",
                "--init-timeout-s", str(INIT_TIMEOUT_S), "--checks", "on" if checks else "off",
                "--samples", str(samples_log), "--counts", str(counts_path), "--server-log", str(launch.log_path),
                "--", *launch.argv]

    def run(self, url: str, load: Load, timing: Timing, out_dir: Path, on_start: OnStart | None = None,
            on_tick: OnTick | None = None, checks: bool = True, launch: StdioLaunch | None = None) -> LoadRun:
        if launch is None:
            raise LoadError("the stdio driver starts a stdio server itself: it needs the server's launch")
        if load.kind != "closed":
            raise LoadError(f"the stdio driver runs the closed model only, not {load.kind}")
        out_dir = out_dir.resolve()  # the driver runs in the server's directory
        binary = ensure_built(out_dir / "stdio-driver-build.log")
        samples_log, counts_path, log_path = out_dir / "k6-samples.log", out_dir / COUNTS_FILE, out_dir / "k6.log"
        argv = self.argv(binary, load, timing, checks, samples_log, counts_path, launch)
        started = time.monotonic()
        # The driver gets the server's environment and directory, which the server inherits from it.
        process = processes.spawn("stdio-driver", argv, cwd=launch.cwd, env=dict(launch.env), log_path=log_path,
                                  cpus=self.cpus)
        instance = Instance(process, samples_log, counts_path, LiveSamples(samples_log))
        try:
            if on_start:
                on_start([process.pid])
            stopped_early = drive([instance], INIT_TIMEOUT_S + timing.total_s + OVERRUN_S, started, on_tick)
        finally:
            process.stop(grace_s=5)  # the driver's group: the server too, if the driver left it behind
        ended_epoch = time.time()
        samples, start_epoch = parse_samples(samples_log)
        compress_samples([samples_log], out_dir / SAMPLES_FILE, samples, log_path)
        exit_code = process.popen.returncode
        counts = read_counts(counts_path)
        if samples.empty:
            raise LoadError(_no_samples_reason(process, exit_code, counts, launch))
        died = None
        if exit_code == SERVER_EXITED:
            tail = launch.log_path.read_text(errors="replace").splitlines()[-20:] if launch.log_path.exists() else []
            died = "\n".join([(counts or {}).get("error") or "the server exited during the test", *tail])
        return LoadRun(samples, start_epoch, exit_code, time.monotonic() - started, stopped_early, counts,
                       ended_epoch - start_epoch if start_epoch is not None else None, died)


def _no_samples_reason(process: processes.ManagedProcess, exit_code: int | None, counts: dict | None,
                       launch: StdioLaunch) -> str:
    # The driver's failure is its counts' "error" (also its last stderr line); one line, with where to look.
    lines = [line.strip() for line in process.log_tail().splitlines() if line.strip()]
    reason = (counts or {}).get("error") or (lines[-1] if lines else f"see {process.log_path}")
    return f"the stdio driver produced no samples (exit {exit_code}): {reason} (server log: {launch.log_path})"

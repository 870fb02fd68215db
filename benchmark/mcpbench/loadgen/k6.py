"""k6, only where the user installed it themselves (`--loadgen k6`; the project never fetches it: k6 is
under the AGPL). It runs `k6/load.js`, the same iteration the load driver runs, so a user can cross-check
the driver against k6 on their own machine; one or several local processes per test, split by k6's own
execution segments (`--execution-segment i/n:(i+1)/n`) and merged like the driver's segments (merge.py).
"""

from __future__ import annotations

import json
import os
import time
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import processes
from ..paths import K6_SCRIPT
from ..toolchain import which
from ..warmup import LiveSamples
from .base import LoadError, LoadGenerator, LoadRun, OnStart, OnTick, StdioLaunch
from .instances import (COUNTS_FILE, GENERATOR_LOG, OVERRUN_S, SAMPLES_FILE, Instance, compress_samples, drive,
                        instance_files, parse_samples, read_counts)
from .merge import merge_counts, merge_samples

if TYPE_CHECKING:
    from ..config import Timing
    from ..scenarios import Load

NOT_INSTALLED = ("k6 is not installed: --loadgen k6 uses a k6 you installed yourself (on PATH, or K6=/path/to/k6); "
                 "mcpbench never fetches it (AGPL). The default load generator, the load driver, needs nothing.")


def k6_binary() -> str:
    found = os.environ.get("K6") or which("k6")
    if not found or not Path(found).exists():
        raise LoadError(NOT_INSTALLED)
    return found


def available() -> bool:
    try:
        k6_binary()
    except LoadError:
        return False
    return True


def k6_env(url: str, load: Load, timing: Timing, counts_path: Path, checks: bool = True) -> dict[str, str]:
    """What load.js reads: the target, the session mode, the load's k6 scenario (built by its kind), and
    the per-request settings."""
    return {
        "TARGET_URL": url, "MODE": load.mode, "SCENARIO": json.dumps(load.k6_scenario(timing)),
        "THINK_TIME_S": str(timing.think_time_s), "REQUEST_TIMEOUT": f"{timing.request_timeout_s:g}s",
        "COUNTS_PATH": str(counts_path), "CHECKS": "on" if checks else "off",
    }


def segments(instances: int) -> list[list[str]]:
    """k6's arguments for each instance: none for a single one, else its execution segment."""
    if instances == 1:
        return [[]]
    bounds = [Fraction(i, instances) for i in range(instances + 1)]
    sequence = ",".join(str(b) for b in bounds)
    return [["--execution-segment", f"{bounds[i]}:{bounds[i + 1]}", "--execution-segment-sequence", sequence]
            for i in range(instances)]


class LocalK6(LoadGenerator):
    name = "k6"

    def __init__(self, cpus: tuple[int, ...] | None, instances: int = 1):
        if instances < 1:
            raise ValueError("load instances must be at least 1")
        self.cpus = cpus
        self.instances = instances

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "where": "local", "instances": self.instances}

    def prepare(self, log_dir: Path) -> None:
        k6_binary()  # fail before the first measurement, in one line

    def run(self, url: str, load: Load, timing: Timing, out_dir: Path, on_start: OnStart | None = None,
            on_tick: OnTick | None = None, checks: bool = True, launch: StdioLaunch | None = None) -> LoadRun:
        if launch is not None:
            raise LoadError("k6 speaks HTTP only: a stdio server needs the load driver")
        out_dir = out_dir.resolve()  # k6 runs with cwd=out_dir, so a relative path would point below itself
        started = time.monotonic()
        instances: list[Instance] = []
        try:
            for index, segment in enumerate(segments(self.instances)):
                samples_log, counts_path, log_path = instance_files(out_dir, index, self.instances)
                env = {"PATH": "/usr/bin:/bin", "HOME": str(out_dir), "K6_NO_USAGE_REPORT": "true",
                       **k6_env(url, load, timing, counts_path, checks),
                       # k6's garbage collector cost ~12 % of its CPU at Go's default GOGC=100; 400 makes it
                       # ~2 % (the heap may grow to 5x the live heap; GOMEMLIMIT keeps it bounded).
                       "GOGC": "400", "GOMEMLIMIT": "2GiB"}
                # Port 0 for k6's REST API: its default 6565 may be taken (another k6, another program).
                argv = [k6_binary(), "run", "--quiet", "--no-color", "--no-usage-report", "--address", "127.0.0.1:0",
                        "--log-format", "raw", "--log-output", f"file={samples_log}", *segment, str(K6_SCRIPT)]
                process = processes.spawn("k6", argv, cwd=out_dir, env=env, log_path=log_path, cpus=self.cpus)
                instances.append(Instance(process, samples_log, counts_path, LiveSamples(samples_log)))
            if on_start:
                on_start([instance.process.pid for instance in instances])
            stopped_early = drive(instances, timing.total_s + OVERRUN_S, started, on_tick, "k6")
        finally:
            for instance in instances:
                instance.process.stop(grace_s=5)  # also reaps it and takes it off the registry
        ended_epoch = time.time()
        parsed = [parse_samples(instance.samples_log) for instance in instances]
        samples, start_epoch = merge_samples(parsed)
        compress_samples([i.samples_log for i in instances], out_dir / SAMPLES_FILE, samples, out_dir / GENERATOR_LOG)
        exit_codes = [instance.process.popen.returncode for instance in instances]
        exit_code = next((code for code in exit_codes if code), exit_codes[0])
        if samples.empty:
            raise LoadError(_no_samples_reason(instances, exit_code))
        counts = merge_counts([read_counts(instance.counts_path) for instance in instances])
        if self.instances > 1 and counts is not None:
            (out_dir / COUNTS_FILE).write_text(json.dumps(counts))
        return LoadRun(samples, start_epoch, exit_code, time.monotonic() - started, stopped_early, counts,
                       ended_epoch - start_epoch if start_epoch is not None else None)


def _no_samples_reason(instances: list[Instance], exit_code: int | None) -> str:
    tail = instances[0].process.log_tail()
    # The console shows a failure's first line only, so k6's own last error goes there.
    # k6's own logger writes `level=error msg=…`; a script exception comes raw (--log-format raw).
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    errors = [line.split("msg=", 1)[-1] for line in lines if "level=error" in line]
    reason = errors[-1] if errors else lines[0] if lines else f"see {instances[0].process.log_path}"
    return f"k6 produced no samples (exit {exit_code}): {reason}\n{tail}"

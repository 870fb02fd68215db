"""k6 as local processes: one test per measurement, raw samples read back from each process's console log.

With `instances` > 1 the test is split by k6's own execution segments (`--execution-segment i/n:(i+1)/n`
over the sequence 0,1/n,…,1), one process per segment, and the samples merged (merge.py): the way k6
spreads one test over several machines, here on the harness's CPUs.
"""

from __future__ import annotations

import gzip
import json
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from .. import processes
from ..model import SAMPLE_COLUMNS
from ..paths import K6_SCRIPT
from ..toolchain import which
from ..warmup import LiveSamples
from .base import LoadError, LoadGenerator, LoadRun, OnStart, OnTick, StdioLaunch, Tick
from .merge import MergedLive, merge_counts, merge_samples

if TYPE_CHECKING:
    from ..config import Timing
    from ..scenarios import Load

COUNTS_FILE = "k6-counts.json"
SAMPLES_FILE = "samples.csv.gz"
# Beyond the test's own length, how long k6 may take before it is called stuck.
OVERRUN_S = 120


def k6_binary() -> str:
    found = which("k6")
    if not found:
        raise LoadError("k6 is not installed (scripts/setup.sh builds it: go install go.k6.io/k6@v1.8.1)")
    return found


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


@dataclass
class Instance:
    """One k6 process and where it writes."""

    process: processes.ManagedProcess
    samples_log: Path
    counts_path: Path
    live: LiveSamples


class LocalK6(LoadGenerator):
    name = "k6"

    def __init__(self, cpus: tuple[int, ...] | None, instances: int = 1):
        if instances < 1:
            raise ValueError("k6 instances must be at least 1")
        self.cpus = cpus
        self.instances = instances

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "where": "local", "instances": self.instances}

    def _files(self, out_dir: Path, index: int) -> tuple[Path, Path, Path]:
        # One instance keeps the plain names of the results format; several number theirs.
        suffix = "" if self.instances == 1 else f".{index}"
        return (out_dir / f"k6-samples{suffix}.log", out_dir / f"k6-counts{suffix}.json",
                out_dir / f"k6{suffix}.log")

    def run(self, url: str, load: Load, timing: Timing, out_dir: Path, on_start: OnStart | None = None,
            on_tick: OnTick | None = None, checks: bool = True, launch: StdioLaunch | None = None) -> LoadRun:
        if launch is not None:
            raise LoadError("k6 speaks HTTP only: a stdio server needs the stdio driver")
        out_dir = out_dir.resolve()  # k6 runs with cwd=out_dir, so a relative path would point below itself
        started = time.monotonic()
        instances: list[Instance] = []
        try:
            for index, segment in enumerate(segments(self.instances)):
                samples_log, counts_path, log_path = self._files(out_dir, index)
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
            stopped_early = drive(instances, timing.total_s + OVERRUN_S, started, on_tick)
        finally:
            for instance in instances:
                instance.process.stop(grace_s=5)  # also reaps it and takes it off the registry
        ended_epoch = time.time()
        parsed = [parse_samples(instance.samples_log) for instance in instances]
        samples, start_epoch = merge_samples(parsed)
        compress_samples([i.samples_log for i in instances], out_dir / SAMPLES_FILE, samples, out_dir / "k6.log")
        exit_codes = [instance.process.popen.returncode for instance in instances]
        exit_code = next((code for code in exit_codes if code), exit_codes[0])
        if samples.empty:
            raise LoadError(_no_samples_reason(instances, exit_code))
        counts = merge_counts([read_counts(instance.counts_path) for instance in instances])
        if self.instances > 1 and counts is not None:
            (out_dir / COUNTS_FILE).write_text(json.dumps(counts))
        return LoadRun(samples, start_epoch, exit_code, time.monotonic() - started, stopped_early, counts,
                       ended_epoch - start_epoch if start_epoch is not None else None)


def drive(instances: list[Instance], limit_s: float, started: float, on_tick: OnTick | None) -> bool:
    """Wait for every instance to end, asking `on_tick` about once a second; True when it ended them."""
    live = instances[0].live if len(instances) == 1 else MergedLive([i.live for i in instances])
    while True:
        running = [i for i in instances if i.process.popen.poll() is None]
        if not running:
            return False
        try:
            running[0].process.popen.wait(timeout=1.0)
            continue
        except subprocess.TimeoutExpired:
            pass
        elapsed = time.monotonic() - started
        if elapsed > limit_s:
            raise LoadError(f"k6 did not finish within {limit_s:g} s")
        live.poll()
        if on_tick and (action := on_tick(elapsed, live)) is not Tick.GO_ON:
            # SIGINT is k6's own graceful stop: iterations in flight finish (gracefulStop) and
            # handleSummary still writes the counts.
            for instance in running:
                instance.process.popen.send_signal(signal.SIGINT)
            deadline = time.monotonic() + (15 if action is Tick.STOP else 5)
            for instance in running:
                try:
                    instance.process.popen.wait(timeout=max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    pass
            return True


def _no_samples_reason(instances: Sequence[Instance], exit_code: int | None) -> str:
    tail = instances[0].process.log_tail()
    # The console shows a failure's first line only, so k6's own last error goes there.
    # k6's own logger writes `level=error msg=…`; a script exception comes raw (--log-format raw).
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    errors = [line.split("msg=", 1)[-1] for line in lines if "level=error" in line]
    reason = errors[-1] if errors else lines[0] if lines else f"see {instances[0].process.log_path}"
    return f"k6 produced no samples (exit {exit_code}): {reason}\n{tail}"


def read_counts(path: Path) -> dict | None:
    """k6's own counts of the test (written by the script's handleSummary), for the cross-check."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def parse_samples(log_path: Path) -> tuple[pd.DataFrame, float | None]:
    """The `S,…` lines of the k6 console log as a table, and the scenario start (epoch seconds)."""
    rows: list[list[str]] = []
    start_ms: float | None = None
    if log_path.exists():
        with open(log_path, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.startswith("S,"):
                    parts = line.rstrip("\n").split(",")
                    if len(parts) == 9:
                        rows.append(parts[1:])
                elif line.startswith("T,") and start_ms is None:
                    start_ms = float(line[2:])
    frame = pd.DataFrame(rows, columns=list(SAMPLE_COLUMNS))
    for column in ("t_s", "call_ms", "session_ms"):
        frame[column] = pd.to_numeric(frame[column], errors="coerce")
    frame["vu"] = pd.to_numeric(frame["vu"], errors="coerce").astype("Int64")
    frame["ok"] = pd.to_numeric(frame["ok"], errors="coerce").fillna(0).astype(int)
    frame["error_kind"] = frame["error_kind"].fillna("")
    return frame, (start_ms / 1000 if start_ms is not None else None)


def compress_samples(logs: Sequence[Path], target: Path, samples: pd.DataFrame, k6_log: Path) -> None:
    tmp = target.with_suffix(".tmp")
    with gzip.open(tmp, "wt", encoding="utf-8", compresslevel=5) as handle:
        samples.to_csv(handle, index=False)
    tmp.replace(target)
    # Keep what k6 said besides samples (warnings, errors) in k6.log; drop the bulky raw logs.
    with open(k6_log, "a", encoding="utf-8") as dst:
        for log_path in logs:
            if log_path.exists():
                with open(log_path, encoding="utf-8", errors="replace") as src:
                    dst.writelines(line for line in src if not line.startswith(("S,", "T,")))
                log_path.unlink()

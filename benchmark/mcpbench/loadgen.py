"""Driving k6: one test per measurement, raw samples read back from its console log."""

from __future__ import annotations

import enum
import gzip
import json
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from . import processes
from .config import Load, Timing
from .paths import K6_SCRIPT
from .toolchain import which
from .warmup import LiveSamples

COUNTS_FILE = "k6-counts.json"
SAMPLE_COLUMNS = ["t_s", "vu", "tool", "ok", "error_kind", "call_ms", "session_ms", "http_ms"]


class LoadError(RuntimeError):
    pass


class Tick(enum.Enum):
    """What the orchestrator wants after a look at a running test."""

    GO_ON = "go on"
    STOP = "stop"    # the measured window is complete: end k6 now, as a normal end of the test
    ABORT = "abort"  # the server or the infrastructure died: end k6, the measurement is lost


@dataclass(frozen=True)
class LoadRun:
    samples: pd.DataFrame
    k6_start_epoch_s: float | None
    exit_code: int | None
    wall_s: float
    stopped_early: bool = False           # ended by the orchestrator (Tick.STOP or Tick.ABORT)
    counts: dict | None = None            # k6's own counts (k6-counts.json), None when k6 wrote none
    run_s: float | None = None            # scenario start -> k6 exit


def k6_binary() -> str:
    found = which("k6")
    if not found:
        raise LoadError("k6 is not installed (scripts/setup.sh builds it: go install go.k6.io/k6@v1.8.1)")
    return found


def k6_env(url: str, load: Load, timing: Timing, counts_path: Path, checks: bool = True) -> dict[str, str]:
    return {
        "TARGET_URL": url, "MODE": load.mode, "EXECUTOR": load.executor, "VUS": str(load.vus),
        "RATE": str(load.rate or 0), "RAMP_UP_S": str(timing.ramp_up_s),
        "HOLD_S": str(timing.hold_s), "RAMP_DOWN_S": str(timing.ramp_down_s),
        "THINK_TIME_S": str(timing.think_time_s), "REQUEST_TIMEOUT": f"{timing.request_timeout_s:g}s",
        "COUNTS_PATH": str(counts_path), "CHECKS": "on" if checks else "off",
    }


def run_k6(url: str, load: Load, timing: Timing, out_dir: Path, cpus: tuple[int, ...] | None,
           on_start: Callable[[int], None] | None = None,
           on_tick: Callable[[float, LiveSamples], Tick] | None = None, checks: bool = True) -> LoadRun:
    """Run one k6 test until it ends or `on_tick` ends it.

    `on_start(pid)` is called once k6 runs (resource sampling); `on_tick(elapsed_s, live)` about once a
    second with the samples so far (progress, the adaptive warm-up, watching the server and the infra).
    """
    out_dir = out_dir.resolve()  # k6 runs with cwd=out_dir, so a relative path would point below itself
    samples_log = out_dir / "k6-samples.log"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(out_dir),
           "K6_NO_USAGE_REPORT": "true", **k6_env(url, load, timing, out_dir / COUNTS_FILE, checks),
           # k6's garbage collector cost ~12 % of its CPU at Go's default GOGC=100; 400 makes it ~2 %
           # (the heap may grow to 5x the live heap; GOMEMLIMIT keeps it bounded).
           "GOGC": "400", "GOMEMLIMIT": "2GiB"}
    # Port 0 for k6's REST API: its default 6565 may be taken (another k6, another program).
    argv = [k6_binary(), "run", "--quiet", "--no-color", "--no-usage-report", "--address", "127.0.0.1:0",
            "--log-format", "raw",
            "--log-output", f"file={samples_log}", str(K6_SCRIPT)]
    started = time.monotonic()
    process = processes.spawn("k6", argv, cwd=out_dir, env=env, log_path=out_dir / "k6.log", cpus=cpus)
    if on_start:
        on_start(process.pid)
    limit = timing.total_s + 120
    live = LiveSamples(samples_log)
    stopped_early = False
    try:
        while True:
            try:
                process.popen.wait(timeout=1.0)
                break
            except subprocess.TimeoutExpired:
                elapsed = time.monotonic() - started
                if elapsed > limit:
                    raise LoadError(f"k6 did not finish within {limit:g} s") from None
                live.poll()
                if on_tick and (action := on_tick(elapsed, live)) is not Tick.GO_ON:
                    stopped_early = True
                    # SIGINT is k6's own graceful stop: iterations in flight finish (gracefulStop) and
                    # handleSummary still writes the counts.
                    process.popen.send_signal(signal.SIGINT)
                    try:
                        process.popen.wait(timeout=15 if action is Tick.STOP else 5)
                    except subprocess.TimeoutExpired:
                        pass
                    break
    finally:
        process.stop(grace_s=5)  # also reaps it and takes it off the registry
    ended_epoch = time.time()
    exit_code = process.popen.returncode
    samples, start_epoch = parse_samples(samples_log)
    _compress(samples_log, out_dir / "samples.csv.gz", samples)
    if samples.empty:
        tail = process.log_tail()
        # The console shows a failure's first line only, so k6's own last error goes there.
        # k6's own logger writes `level=error msg=…`; a script exception comes raw (--log-format raw).
        lines = [line.strip() for line in tail.splitlines() if line.strip()]
        errors = [line.split("msg=", 1)[-1] for line in lines if "level=error" in line]
        if errors:
            reason = errors[-1]
        elif lines:
            reason = lines[0]
        else:
            reason = f"see {process.log_path}"
        raise LoadError(f"k6 produced no samples (exit {exit_code}): {reason}\n{tail}")
    return LoadRun(samples, start_epoch, exit_code, time.monotonic() - started, stopped_early,
                   read_counts(out_dir / COUNTS_FILE),
                   ended_epoch - start_epoch if start_epoch is not None else None)


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
    frame = pd.DataFrame(rows, columns=SAMPLE_COLUMNS)
    for column in ("t_s", "call_ms", "session_ms"):
        frame[column] = pd.to_numeric(frame[column], errors="coerce")
    frame["vu"] = pd.to_numeric(frame["vu"], errors="coerce").astype("Int64")
    frame["ok"] = pd.to_numeric(frame["ok"], errors="coerce").fillna(0).astype(int)
    frame["error_kind"] = frame["error_kind"].fillna("")
    return frame, (start_ms / 1000 if start_ms is not None else None)


def _compress(log_path: Path, target: Path, samples: pd.DataFrame) -> None:
    tmp = target.with_suffix(".tmp")
    with gzip.open(tmp, "wt", encoding="utf-8", compresslevel=5) as handle:
        samples.to_csv(handle, index=False)
    tmp.replace(target)
    if log_path.exists():
        # Keep what k6 said besides samples (warnings, errors) in k6.log; drop the bulky raw log.
        with open(log_path, encoding="utf-8", errors="replace") as src, \
                open(log_path.parent / "k6.log", "a", encoding="utf-8") as dst:
            dst.writelines(line for line in src if not line.startswith(("S,", "T,")))
        log_path.unlink()


def load_samples(path: Path) -> pd.DataFrame:
    frame = pd.read_csv(path, dtype={"tool": str, "error_kind": str, "http_ms": str}, keep_default_na=False,
                        na_values={"call_ms": [""], "session_ms": [""]})
    return frame

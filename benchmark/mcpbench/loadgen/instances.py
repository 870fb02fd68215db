"""A load generator as local processes (the load driver, or a k6 the user installed): each instance writes
the raw sample lines of one test to its own log, which the orchestrator tails live (warm-up), stops
gracefully with SIGINT, and reads back into one table (docs/results-format.md, samples.csv.gz)."""

from __future__ import annotations

import gzip
import json
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .. import processes
from ..model import SAMPLE_COLUMNS
from ..warmup import LiveSamples
from .base import LoadError, OnTick, Tick
from .merge import MergedLive

# The generator's own counts of a test (k6-counts.json: the name the results format has always used).
COUNTS_FILE = "k6-counts.json"
SAMPLES_FILE = "samples.csv.gz"
# What the generator said besides samples (warnings, errors), kept in the measurement's directory.
GENERATOR_LOG = "k6.log"
# Beyond the test's own length, how long a generator may take before it is called stuck.
OVERRUN_S = 120


@dataclass
class Instance:
    """One generator process and where it writes."""

    process: processes.ManagedProcess
    samples_log: Path
    counts_path: Path
    live: LiveSamples


def instance_files(out_dir: Path, index: int, instances: int) -> tuple[Path, Path, Path]:
    """Raw samples, counts and console log of instance `index`: one instance keeps the plain names of the
    results format; several number theirs."""
    suffix = "" if instances == 1 else f".{index}"
    return (out_dir / f"k6-samples{suffix}.log", out_dir / f"k6-counts{suffix}.json",
            out_dir / f"k6{suffix}.log")


def drive(instances: list[Instance], limit_s: float, started: float, on_tick: OnTick | None, who: str) -> bool:
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
            raise LoadError(f"{who} did not finish within {limit_s:g} s")
        live.poll()
        if on_tick and (action := on_tick(elapsed, live)) is not Tick.GO_ON:
            # SIGINT is the generators' graceful stop: iterations in flight finish and the counts are
            # still written.
            for instance in running:
                instance.process.popen.send_signal(signal.SIGINT)
            deadline = time.monotonic() + (15 if action is Tick.STOP else 5)
            for instance in running:
                try:
                    instance.process.popen.wait(timeout=max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    pass
            return True


def read_counts(path: Path) -> dict | None:
    """The generator's own counts of the test, for the cross-check against the samples."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def parse_samples(log_path: Path) -> tuple[pd.DataFrame, float | None]:
    """The `S,…` lines of a raw sample log as a table, and the scenario start (epoch seconds)."""
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


def compress_samples(logs: Sequence[Path], target: Path, samples: pd.DataFrame, generator_log: Path) -> None:
    tmp = target.with_suffix(".tmp")
    with gzip.open(tmp, "wt", encoding="utf-8", compresslevel=5) as handle:
        samples.to_csv(handle, index=False)
    tmp.replace(target)
    # Keep what the generator said besides samples (warnings, errors); drop the bulky raw logs.
    with open(generator_log, "a", encoding="utf-8") as dst:
        for log_path in logs:
            if log_path.exists():
                with open(log_path, encoding="utf-8", errors="replace") as src:
                    dst.writelines(line for line in src if not line.startswith(("S,", "T,")))
                log_path.unlink()

"""A load generator as local processes (the load driver, or a k6 the user installed): each instance writes
the raw sample lines of one test to its own log, which the orchestrator tails live (warm-up), stops
gracefully with SIGINT, and reads back into one table (docs/results-format.md, samples.csv.gz)."""

from __future__ import annotations

import gzip
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import pandas as pd

from mcpbench.analysis.warmup import LiveSamples
from mcpbench.loadgen.base import LoadError, LoadGenerator, OnStart, OnTick, Tick
from mcpbench.loadgen.merge import MergedLive, merge_counts, merge_samples
from mcpbench.results.layout import MeasurementDir
from mcpbench.results.model import (
    FIRST_MS,
    SAMPLE_COLUMNS,
    LoadgenCounts,
    LocalGenerator,
    SwarmGenerator,
    parsed,
)
from mcpbench.results.write import writing

# Beyond the test's own length, how long a generator may take before it is called stuck.
OVERRUN_S = 120
# Told to stop, a generator still lets the calls in flight end: answered, or timed out at the request timeout
# (the load driver's drain), and then writes its counts. It gets that long, and this much more.
STOP_SLACK_S = 5.0


class GeneratorProcess(Protocol):
    """One generator instance's process, on this machine (processes.ManagedProcess) or as a task on another
    host (runtime/swarm_load.py)."""

    @property
    def pid(self) -> int | None: ...  # None: not on this machine

    @property
    def log_path(self) -> Path | None: ...

    @property
    def clock_offset_s(self) -> float: ...  # its host's clock minus ours (0 here): the merge corrects its start by it

    def poll(self) -> int | None: ...
    def wait(self, timeout: float) -> bool: ...
    def interrupt(self) -> None: ...
    def stop(self, grace_s: float = 10.0) -> int | None: ...
    def log_tail(self, lines: int = 30) -> str: ...

    @property
    def returncode(self) -> int | None: ...


@dataclass
class Instance:
    """One generator process and where it writes."""

    process: GeneratorProcess
    samples_log: Path
    counts_path: Path
    live: LiveSamples


def drive(instances: list[Instance], limit_s: float, started: float, on_tick: OnTick | None, who: str,
          drain_s: float) -> bool:
    """Wait for every instance to end, asking `on_tick` about once a second; True when it ended them. Stopped
    (Tick.STOP), an instance gets `drain_s` to let its calls in flight end; aborted, a few seconds."""
    live = instances[0].live if len(instances) == 1 else MergedLive([i.live for i in instances])
    while True:
        running = [i for i in instances if i.process.poll() is None]
        if not running:
            return False
        if running[0].process.wait(1.0):
            continue
        elapsed = time.monotonic() - started
        if elapsed > limit_s:
            raise LoadError(f"{who} did not finish within {limit_s:g} s")
        live.poll()
        if on_tick and (action := on_tick(elapsed, live)) is not Tick.GO_ON:
            # SIGINT is the generators' graceful stop: iterations in flight finish and the counts are
            # still written.
            for instance in running:
                instance.process.interrupt()
            deadline = time.monotonic() + (drain_s + STOP_SLACK_S if action is Tick.STOP else STOP_SLACK_S)
            for instance in running:
                instance.process.wait(max(0.1, deadline - time.monotonic()))
            return True


def read_counts(path: Path) -> LoadgenCounts | None:
    """The generator's own counts of the test, for the cross-check against the samples (None: it wrote none, or
    no JSON object). Counts the model does not know are drift in the generator: a ResultsError naming the file."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return parsed(LoadgenCounts, data, path) if isinstance(data, dict) else None


def parse_samples(log_path: Path) -> tuple[pd.DataFrame, float | None]:
    """The `S,…` lines of a raw sample log as a table, and the scenario start (epoch seconds). A line of a call
    that streamed progress has a tenth field, first_ms (the table then has that column, empty elsewhere)."""
    rows: list[list[str]] = []
    streamed = False
    start_ms: float | None = None
    if log_path.exists():
        with open(log_path, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.startswith("S,"):
                    parts = line.rstrip("\n").split(",")
                    if len(parts) == 9:
                        rows.append(parts[1:] + [""])
                    elif len(parts) == 10:
                        rows.append(parts[1:])
                        streamed = True
                elif line.startswith("T,") and start_ms is None:
                    start_ms = float(line[2:])
    frame = pd.DataFrame(rows, columns=[*SAMPLE_COLUMNS, FIRST_MS])
    if not streamed:
        frame = frame.drop(columns=FIRST_MS)
    for column in ("t_s", "call_ms", "session_ms", *((FIRST_MS,) if streamed else ())):
        frame[column] = pd.to_numeric(frame[column], errors="coerce")
    frame["vu"] = pd.to_numeric(frame["vu"], errors="coerce").astype("Int64")
    frame["ok"] = pd.to_numeric(frame["ok"], errors="coerce").fillna(0).astype(int)
    frame["error_kind"] = frame["error_kind"].fillna("")
    return frame, (start_ms / 1000 if start_ms is not None else None)


def compress_samples(logs: Sequence[Path], target: Path, samples: pd.DataFrame, generator_log: Path) -> None:
    tmp = target.with_suffix(".tmp")
    with writing(target):
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


@dataclass(frozen=True)
class InstancesOutcome:
    """What a test of N local generator processes left, merged (samples.csv.gz already written)."""

    instances: list[Instance]
    samples: pd.DataFrame
    start_epoch: float | None
    exit_code: int | None
    counts: LoadgenCounts | None            # merged; written as the measurement's counts when several
    all_counts: list[LoadgenCounts | None]  # each instance's own
    stopped_early: bool
    run_s: float
    ended_epoch: float


# spawn(index, samples_log, counts_path, log_path) -> the instance's process
Spawn = Callable[[int, Path, Path, Path], GeneratorProcess]


class LocalInstances(LoadGenerator):
    """A load generator run as `instances` local processes, each one segment of the test (the load driver,
    k6): the one lifecycle of starting them, tailing them live, stopping them and merging what they wrote."""

    def __init__(self, cpus: tuple[int, ...] | None, instances: int = 1):
        if instances < 1:
            raise ValueError("load instances must be at least 1")
        self.cpus = cpus
        self.instances = instances

    def describe(self) -> LocalGenerator | SwarmGenerator:
        return LocalGenerator(name=self.name, where="local", instances=self.instances)

    def run_instances(self, count: int, spawn: Spawn, out: MeasurementDir, limit_s: float, who: str,
                      on_start: OnStart | None, on_tick: OnTick | None, drain_s: float) -> InstancesOutcome:
        """`drain_s`: how long a stopped instance may take to end its calls in flight (the request timeout)."""
        started = time.monotonic()
        instances: list[Instance] = []
        try:
            for index in range(count):
                samples_log, counts_path, log_path = out.instance_files(index, count)
                process = spawn(index, samples_log, counts_path, log_path)
                instances.append(Instance(process, samples_log, counts_path, LiveSamples(samples_log)))
            if on_start:
                on_start([instance.process.pid for instance in instances if instance.process.pid is not None])
            stopped_early = drive(instances, limit_s, started, on_tick, who, drain_s)
        finally:
            for instance in instances:
                instance.process.stop(grace_s=5)  # its group (a stdio server too); also reaps it
        ended_epoch = time.time()
        parts = [parse_samples(instance.samples_log) for instance in instances]
        samples, start_epoch = merge_samples([
            (frame, start - instance.process.clock_offset_s if start is not None else None)
            for (frame, start), instance in zip(parts, instances, strict=True)])
        compress_samples([i.samples_log for i in instances], out.samples, samples, out.loadgen_log)
        exit_codes = [instance.process.returncode for instance in instances]
        exit_code = next((code for code in exit_codes if code), exit_codes[0])
        all_counts = [read_counts(instance.counts_path) for instance in instances]
        counts = merge_counts(all_counts)
        if count > 1 and counts is not None and not samples.empty:
            out.counts.write_text(counts.model_dump_json())
        return InstancesOutcome(instances, samples, start_epoch, exit_code, counts, all_counts, stopped_early,
                                time.monotonic() - started, ended_epoch)

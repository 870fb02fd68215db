"""What the suite needs from a load generator, wherever it runs: a test driven until it ends or the
orchestrator ends it, and its raw samples back in one format (docs/results-format.md, samples.csv.gz).
The analysis and the report read only that format, so where the load came from never reaches them."""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Protocol

import pandas as pd

from mcpbench.analysis.summary import LOADGEN
from mcpbench.host.resources import UsageReader, process_group_reader
from mcpbench.results.layout import MeasurementDir
from mcpbench.results.model import LoadgenCounts, LoadInstance, LocalGenerator, SwarmGenerator

if TYPE_CHECKING:
    from mcpbench.loads import Load
    from mcpbench.loads.timing import Timing
    from mcpbench.workload.file import Workload


class LoadError(RuntimeError):
    pass


class Tick(enum.Enum):
    """What the orchestrator wants after a look at a running test."""

    GO_ON = "go on"
    STOP = "stop"    # the measured window is complete: end the test now, as a normal end of it
    ABORT = "abort"  # the server or the infrastructure died: end it, the measurement is lost


class LiveView(Protocol):
    """The samples so far, while the test runs (the adaptive warm-up reads them)."""

    @property
    def per_second(self) -> list[int]: ...  # successful tool calls per second since the scenario start

    @property
    def latency_ms(self) -> list[list[float]]: ...  # their call_ms, per second

    @property
    def latest_s(self) -> float: ...  # the latest sample's time

    @property
    def complete_s(self) -> int: ...  # seconds known complete


@dataclass(frozen=True)
class LoadRun:
    samples: pd.DataFrame                 # SAMPLE_COLUMNS, t_s from the scenario start
    start_epoch_s: float | None           # the scenario start (the earliest instance's), epoch seconds
    exit_code: int | None
    wall_s: float
    stopped_early: bool = False           # ended by the orchestrator (Tick.STOP or Tick.ABORT)
    counts: LoadgenCounts | None = None   # the generator's own counts (loadgen-counts.json), None when none
    run_s: float | None = None            # scenario start -> generator exit
    target_died: str | None = None        # a generator that runs the target itself (stdio): why it died
    instances: list[LoadInstance] | None = None  # instances on other hosts, each with its node's clock (None: local)
    lost: str | None = None               # an instance ended before the test did (its host went away): why


@dataclass(frozen=True)
class StdioLaunch:
    """A server the load generator itself starts and talks to over stdin/stdout (the stdio transport):
    argv already carries whatever puts it under the server's limits (runtime's business), env and cwd are
    the server's, its stderr goes to log_path."""

    argv: tuple[str, ...]
    env: dict[str, str]
    cwd: Path
    log_path: Path


OnStart = Callable[[Sequence[int]], None]       # the generator's local process ids (resource sampling)
OnTick = Callable[[float, LiveView], Tick]      # about once a second: elapsed seconds, the samples so far


class LoadGenerator(ABC):
    name: ClassVar[str]

    @abstractmethod
    def describe(self) -> LocalGenerator | SwarmGenerator:
        """What run.json records of the generator (config.load_generator.by_transport)."""

    # The transports it speaks: "http" (a URL) and/or "stdio" (a StdioLaunch it starts itself).
    transports: ClassVar[frozenset[str]] = frozenset({"http"})

    @classmethod
    def unavailable(cls) -> str | None:
        """Why this generator cannot run on this machine (None: it can): checked when it is chosen."""
        return None

    @abstractmethod
    def run(self, url: str, load: Load, timing: Timing, out: MeasurementDir, on_start: OnStart | None = None,
            on_tick: OnTick | None = None, checks: bool = True, launch: StdioLaunch | None = None,
            workload: Workload | None = None) -> LoadRun:
        """Run one test until it ends or `on_tick` ends it; its samples and counts are written to the
        measurement's directory (`out.samples`, `out.counts`). LoadError when no sample came back. With `launch`
        (stdio) the generator starts the server itself and `url` is not used. `workload`: the calls to make (None:
        the lineup's)."""

    def prepare(self, log_dir: Path) -> None:
        """Whatever the generator needs before its first test (a build), so none happens inside one. By default,
        nothing."""
        return None

    def usage_readers(self, pids: Sequence[int]) -> dict[str, UsageReader]:
        """The generator's components for the sampler: its own CPU and memory as LOADGEN ("loadgen"), and
        where it runs on several hosts, each host's share as LOADGEN@<host> (judged against that host's CPUs)."""
        return {LOADGEN: self.usage_reader(pids)}

    def usage_reader(self, pids: Sequence[int]) -> UsageReader:
        """The generator's own CPU and memory (the loadgen component) from the pids on_start gave: by default
        the processes and their children."""
        return process_group_reader(pids)


def seconds_text(seconds: float) -> str:
    """A stage's duration as the generators read one (Go's time.ParseDuration, k6's durations): seconds to the
    millisecond, never in an exponent."""
    text = f"{round(seconds * 1000) / 1000:.3f}".rstrip("0").rstrip(".")
    return (text or "0") + "s"

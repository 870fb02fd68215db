"""What an experiment is (docs/architecture.md): the fourth seam, beside runtimes, load generators and kinds of
load. An experiment declares its options (experiments/options.py groups plus its own), turns their values into
the run's configuration (RunConfig: run.json's config), says what it measures per server and round, and judges
what it measured. The one runner (runner.py) owns everything else: the results directory and run.json, builds,
the infrastructure, the load generators, calibration, rounds and their order, starting, verifying and stopping
servers, and recording every measurement. A new experiment is a module of this package holding
`EXPERIMENT = <its class>` (experiments/__init__.py finds it).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from typing import Any, ClassVar, Protocol

from pydantic import BaseModel
from rich.console import Console

from mcpbench.catalog.manifest import ServerSpec
from mcpbench.experiments.config import RunConfig
from mcpbench.experiments.options import Option, Values
from mcpbench.experiments.resume import recordable
from mcpbench.loads import Load, Mode
from mcpbench.loads.timing import (
    CALIBRATION_FULL,
    CALIBRATION_QUICK,
    FULL_TIMING,
    LADDER_STEP_FULL,
    LADDER_STEP_QUICK,
    Timing,
)
from mcpbench.results.layout import MeasurementDir, RunDir
from mcpbench.results.model import Summary
from mcpbench.results.write import RunRecord


# The runner (runner.py) runs experiments and imports this module, so the hooks below do not name its classes:
# they name what an experiment sees of them, which runner.Runner and runner.ServerRound are (the type checker
# holds them to it where the runner calls a hook).
class Runner(Protocol):
    """What an experiment sees of the run (runner.Runner)."""

    @property
    def record(self) -> RunRecord | None: ...

    @property
    def run_dir(self) -> RunDir: ...

    @property
    def elapsed_s(self) -> float: ...

    def closed_rates(self, mode: str) -> dict[str, float]: ...

    def harness_capacity(self, mode: str) -> float | None: ...

    def each_server(self, round_index: int, measure: Callable[[ServerRound], None]) -> None: ...


class ServerRound(Protocol):
    """What an experiment sees of one server in one round (runner.ServerRound)."""

    @property
    def runner(self) -> Runner: ...

    @property
    def name(self) -> str: ...

    @property
    def round(self) -> int: ...

    @property
    def modes(self) -> list[str]: ...

    def directory(self, label: str) -> MeasurementDir: ...

    def started(self, label: str, transport: str = "http") -> AbstractContextManager[Any]: ...

    def measure(self, started: Any, load: Load, timing: Timing | None = None, label: str | None = None,
                probe_processes: bool = False, stop_requested: Callable[[], bool] | None = None,
                quiet: bool = False, prewarm_s: float | None = None) -> Summary: ...

    def measure_load(self, load: Load, timing: Timing | None = None, prewarm_s: float | None = None,
                     later: Callable[[Summary], None] | None = None) -> Summary | None: ...

    def best_closed_rate(self, mode: str) -> float | None: ...

    def harness_capacity(self, mode: str) -> float | None: ...


class Experiment(ABC):
    """One kind of experiment. Subclasses set the class attributes and implement configure and measure_server
    (or, for one that measures no server, measure_harness)."""

    name: ClassVar[str]                 # the command: `mcpbench <name>`
    order: ClassVar[int] = 100          # its place among the commands (experiments/__init__.py)
    help: ClassVar[str]                 # its --help
    options: ClassVar[tuple[Option, ...]]
    measures_servers: ClassVar[bool] = True
    directory_suffix: ClassVar[str] = ""  # the results directory is <run id><suffix>
    # The option that makes it print one JSON document on stdout (its progress then goes to stderr).
    json_option: ClassVar[str | None] = None

    def __init__(self, values: Values, specs: list[ServerSpec], console: Console | None = None):
        """`values` by option name (defaults filled by the caller); ValueError (one sentence) on a bad one."""
        self.values = values
        self.specs = specs
        self.console = console or Console()
        self.config = self.configure(values, specs)
        # What run.json's config says of the experiment itself: which, its options as given (what `--resume` runs
        # again) and its own settings as its own model dumps them.
        settings = self.settings()
        self.config.experiment = self.name
        self.config.options = recordable(values)
        self.config.settings = settings.model_dump(mode="json") if settings is not None else None

    # -- what it is --------------------------------------------------------------------------------------------
    @abstractmethod
    def configure(self, values: Values, specs: list[ServerSpec]) -> RunConfig:
        """The run configuration (RunConfig.from_options, validated: ValueError on a bad value), with the
        experiment's own part of run.json's config where model.Config has one (its plan); keep what else it needs
        on self."""

    def settings(self) -> BaseModel | None:
        """The experiment's own settings, as a model of its own module (run.json `config.settings`): what no
        other experiment records needs no field of results/model.py's Config. None: it has none."""
        return None

    # -- what the runner asks ----------------------------------------------------------------------------------
    def closed_model_in(self, mode: Mode) -> bool:
        """Whether it measures closed-model loads in the mode (calibrated: the closed model's own limit)."""
        return False

    def open_model_in(self, mode: Mode) -> bool:
        """Whether it measures open-model loads in the mode (calibrated: the harness's open-model capacity)."""
        return False

    def highest_open_rate(self, mode: Mode) -> float | None:
        """The highest rate it will offer in the mode, when known before the first round (the capacity ladder
        then stops once it is safely above it); None: not known, the whole ladder."""
        return None

    def calibration_timing(self) -> tuple[Timing, Timing]:
        """The closed-model calibration's timing and one open-model ladder step's: short ones for a quick run. The
        closed model's limit is measured at the run's own think time (--think 0 allows more calls per VU than the
        v2 study's 50 ms: a limit measured at 50 ms would flag the run's loads as bound by it)."""
        quick = self.config.timing.duration_s < FULL_TIMING.duration_s
        closed, ladder = (CALIBRATION_QUICK, LADDER_STEP_QUICK) if quick else (CALIBRATION_FULL, LADDER_STEP_FULL)
        return replace(closed, think_time_s=self.config.timing.think_time_s), ladder

    def measure_server(self, server: ServerRound) -> None:
        """One server's measurements in one round (server.started, server.measure); ServerFailed ends its part."""
        raise NotImplementedError(f"{self.name} measures no server")

    def more_rounds(self, runner: Runner, round_index: int) -> bool:
        """After round `round_index` (its after_round done): whether to measure another. By default the
        configured number of rounds."""
        return round_index < self.config.runs

    def after_round(self, runner: Runner, round_index: int) -> None:
        """After every server's measurements of a round: a further pass over it (runner.each_server), e.g.
        a load whose level needed the whole round first. By default, nothing."""
        return None

    def measure_harness(self, runner: Runner) -> None:
        """An experiment that measures no server: what it measures once the infrastructure is up. By default,
        nothing."""
        return None

    @contextmanager
    def interrupts(self) -> Iterator[None]:
        """Around a server's measurements: how Ctrl-C is handled (by default it interrupts at once)."""
        yield

    # -- its verdicts ------------------------------------------------------------------------------------------
    def conclude(self, runner: Runner) -> None:
        """After the run (complete, interrupted or failed): what the console says of it. By default, nothing."""
        return None

    def exit_code(self, runner: Runner) -> int | None:
        """After conclude: the exit code the experiment's own verdict gives (`mcpbench ci`: 1 on a confirmed
        regression), or None for the run's (0, 1 a server failed, 130 interrupted)."""
        return None

"""What a kind of load is (docs/architecture.md): its name, its label, its schedule (its model and its stages, which
each load generator's module translates: loadgen/driver.py, loadgen/k6.py), and how the analysis and the report read
its measurements. A new kind is a module here plus a registry entry."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import pandas as pd

from mcpbench.records import Closed, described

if TYPE_CHECKING:  # config imports the kinds; the kinds need Timing only in annotations
    from mcpbench.loads.timing import Timing


Mode = Literal["session", "stateless", "persistent", "stateless-2026", "stdio"]
MODES: tuple[Mode, ...] = ("session", "stateless", "persistent", "stateless-2026", "stdio")
# The MCP protocol revision each mode speaks (docs/workload.md): the v2 study's 2024-11-05 sessions, the
# 2026-07-28 revision's self-contained requests. stdio speaks 2024-11-05 too, so the transport ratio
# (HTTP stateless over stdio) compares one revision over two transports. A server whose manifest does not
# list a mode's revision among its `protocols` is not measured in that mode.
MODE_PROTOCOL: dict[str, str] = {"session": "2024-11-05", "stateless": "2024-11-05", "persistent": "2024-11-05",
                                 "stateless-2026": "2026-07-28", "stdio": "2024-11-05"}
# How each mode reaches the server: Streamable HTTP, or one stdio session the load generator spawns
# the server for (the manifest's [stdio] command; the load driver keeps the calls in flight on it).
MODE_TRANSPORT: dict[str, str] = {mode: "http" for mode in MODE_PROTOCOL} | {"stdio": "stdio"}

# The two load models a schedule's targets are read in: VUs that each loop over the iteration (closed), or an
# arrival rate in calls/s (open).
Model = Literal["closed", "open"]
# A load's schedule, generator-neutral: (duration in seconds, target) pairs, as k6's `stages` are. Each stage moves
# the target linearly from the previous stage's target (0 before the first) to its own; a 0 s stage is a step.
Stage = tuple[float, float]
# A span of the test reported on its own: (start_s, end_s, target, name).
StageSpan = tuple[float, float, float, str]


class MeasuredLoad(Closed):
    """What summary.json and context.json both say about the load."""

    mode: str = described("`session`, `stateless`, `persistent`")
    kind: str = described("the load's kind (loads.KINDS): `closed`, `open`")
    vus: int = described("VUs (open model: pre-allocated VUs)")
    rate: float | None = described("open model: offered tool calls/s")


class RecordedLoad(MeasuredLoad):
    """What summary.json says about the load (Load.recorded), and what a kind reads its level back from (level_of)."""

    rate_fraction: float | None = described("open model: the fraction of round 1's closed maximum", None)
    equal_fraction: float | None = described("equal load: the fraction of the slowest server's round-1 closed "
                                             "rate (the same rate for every server)", None)


@dataclass(frozen=True)
class Wording:
    """How the report speaks of a kind of load."""

    title: str        # "closed model (VUs)": a sweep section's heading
    description: str  # the methodology page's sentence about it
    level_unit: str   # what a sweep of it varies (a report column)
    axis_label: str   # a sweep chart's x axis
    sweep_what: str   # "concurrency": what a sweep of it varies, in a chart title


@dataclass(frozen=True)
class Load(ABC):
    """One load test's load: the parameters a measurement is named by. Subclasses are the kinds."""

    mode: Mode
    vus: int

    kind: ClassVar[str]             # recorded as `kind` in summary.json and context.json (`executor` before schema 4)
    model: ClassVar[Model]          # how its stages' targets are read: VUs (closed) or calls/s (open)
    level_option: ClassVar[str]     # the command-line option its levels come from (--vus, --rate)
    words: ClassVar[Wording]
    level_field: ClassVar[str]      # the summary field its level is (vus, rate)
    drops_iterations: ClassVar[bool] = False  # the generator may drop iterations (counted, shown in the report)
    paced_by_think_time: ClassVar[bool] = False  # iterations wait the think time between them
    v2_comparable: ClassVar[bool] = False     # the v2 study's kind of load (set beside its figures)
    # Its round-1 throughput is one level's closed-model maximum, which the open model's rates (--open) and the
    # equal load (--equal-load) are sized from: a closed load that holds one level over its window.
    sizes_open_rates: ClassVar[bool] = False

    # -- naming ------------------------------------------------------------------------------------------
    @property
    @abstractmethod
    def level(self) -> float:
        """The value a sweep of this kind varies (VUs, offered rate, fraction of the closed rate)."""

    @property
    @abstractmethod
    def label(self) -> str:
        """The measurement's name in the results directory: `<mode>-<load>`."""

    @classmethod
    @abstractmethod
    def at(cls, mode: Mode, vus: int, level: float, **options: Any) -> Load:
        """This kind of load at a level of its option (`--load <kind>`): VUs for the closed model, an
        offered rate for the open one (which pre-allocates `vus`). `options`: the run's load options
        (RunConfig.load_options: --stages, --spike), each kind taking the ones it reads."""

    def recorded(self) -> RecordedLoad:
        """What summary.json says about the load."""
        return RecordedLoad(mode=self.mode, kind=self.kind, vus=self.vus, rate=None)

    # -- the report: measurements of one kind pool by (mode, level, basis) -------------------------------
    @classmethod
    def level_of(cls, recorded: RecordedLoad) -> tuple[float, str] | None:
        """A summary's level and its basis ("abs", or "fraction" of round 1's closed rate); None when the
        summary lacks it."""
        value = getattr(recorded, cls.level_field)
        return None if value is None else (float(value), "abs")

    @classmethod
    def level_text(cls, level: float, basis: str) -> str:
        return f"{level:g} {cls.words.level_unit}"

    @classmethod
    def heading(cls, mode: str, level: float, basis: str = "abs") -> str:
        """A load as the report heads its measurements: its mode and level ("session · 10 VUs")."""
        return f"{mode} · {cls.level_text(level, basis)}"

    @classmethod
    def equal_load(cls, basis: str) -> bool:
        """Whether every server at this level was offered the same work rate (an open model's fixed rate):
        then cost per call and latency compare servers directly, whatever each could sustain."""
        return False

    @classmethod
    def level_slug(cls, level: float, basis: str) -> str:
        return f"{level:g}{cls.level_field}"

    @classmethod
    def unit_of(cls, basis: str) -> str:
        return cls.words.level_unit

    # -- the schedule every load generator follows -----------------------------------------------------------
    @abstractmethod
    def stages(self, timing: Timing) -> list[Stage]:
        """The schedule over the timing: (seconds, target) stages, targets in the model's unit (VUs or calls/s).
        A kind at one level ramps to it, holds it for warm-up + window, and ramps down (`ramp`)."""

    def timeline(self, timing: Timing) -> Timing:
        """The timing the load is measured over: the run's, unless the kind's schedule sets its own."""
        return timing

    def measured_window(self, timing: Timing, warmup_s: float) -> tuple[float, float]:
        """The summary's window, once the warm-up lasted `warmup_s`: after the ramp-up and warm-up, the window."""
        return timing.window_after(warmup_s)

    def reported_stages(self, timing: Timing) -> list[StageSpan] | None:
        """The spans the summary gives figures of one by one (summary `stages`); None: the window alone."""
        return None

    def spike_span(self, timing: Timing) -> tuple[float, float] | None:
        """Where a spike begins and ends (summary `recovery`: the p99's time to recover after it); None: no spike."""
        return None

    # -- analysis --------------------------------------------------------------------------------------------
    @classmethod
    def max_vus(cls, vus: int) -> int:
        """The most VUs the generator may run for this load (count_allowance: samples a stopped VU never wrote)."""
        return vus

    @classmethod
    @abstractmethod
    def sample_iterations(cls, samples: pd.DataFrame, iteration: tuple[str, ...] | None = None) -> int:
        """How many iterations the samples hold (the cross-check against the generator's own count).
        `iteration`: the closed model's iteration, its samples' names in order (None: the lineup's)."""

    @classmethod
    @abstractmethod
    def littles_law(cls, samples: pd.DataFrame, window: tuple[float, float], vus: int,
                    think_time_s: float, iteration: tuple[str, ...] | None = None) -> dict[str, float] | None:
        """The load generator's self-check, L = lambda x W, as this kind reads it (analysis.littles_law);
        a `gap` in the result is flagged above analysis.LITTLES_LAW_MAX_GAP."""


# The samples of a method rather than a tool (the lineup's closed iteration ends with tools/list): every other
# sample is a tool call, whatever the workload's tools are called. The one definition, for the analysis, the
# report and the workload files' names.
LIST_TOOLS = "tools/list"
METHODS = (LIST_TOOLS,)


# Columns with_kinds adds to samples read from a workload file's measurement (never written to samples.csv.gz):
# whether each sample is a counted call, and its MCP method.
COUNTED, METHOD = "counted", "method"


def with_kinds(samples: pd.DataFrame, methods: dict[str, str], uncounted: Iterable[str]) -> pd.DataFrame:
    """The samples with each one's method (by its name; tools/call for a name not given) and whether it is
    counted, as the measurement's workload said (its context's `calls`): tool_calls and the per-method figures
    read these columns, and the lineup's rule where they are absent."""
    marked = samples.copy()
    marked[COUNTED] = ~samples["tool"].isin(list(uncounted))
    marked[METHOD] = samples["tool"].map(methods).fillna("tools/call")
    return marked


def counted(samples: pd.DataFrame) -> pd.Series:
    """Which samples are counted calls: tool calls, and method calls a workload made arrivals (not an uncounted
    method's, such as the lineup's closed iteration's tools/list)."""
    if COUNTED in samples.columns:
        return samples[COUNTED].astype(bool)
    return ~samples["tool"].isin(METHODS)


def tool_calls(samples: pd.DataFrame) -> pd.DataFrame:
    """The samples that are counted calls (counted)."""
    return samples[counted(samples)]


def methods_of(samples: pd.DataFrame) -> pd.Series:
    """Each sample's MCP method (the lineup's: tools/list by its name, every other sample tools/call)."""
    if METHOD in samples.columns:
        return samples[METHOD]
    return samples["tool"].where(samples["tool"].isin(METHODS), "tools/call")


def in_window(samples: pd.DataFrame, window: tuple[float, float]) -> pd.DataFrame:
    """The rows whose t_s lies in [start, end): the measured window, warm-up and ramps excluded."""
    start, end = window
    return samples[(samples["t_s"] >= start) & (samples["t_s"] < end)]


def ramp(timing: Timing, target: float) -> list[Stage]:
    """The stages of one level: ramp up to `target`, hold it for warm-up + window, ramp down."""
    return [(timing.ramp_up_s, target), (timing.hold_s, target), (timing.ramp_down_s, 0.0)]

"""What a dimension is (TechEmpower's test types are the model: each declares what it runs and checks, and a
framework opts in): its load preset, its points — each a contract setting that starts a server's twin NAME-POINT
and the calls it is measured with — what its report section shows, and the question the decision page asks of
it. The experiment (experiments/dimension.py) makes the twins and runs them; the plan it records (`plan`) is all
the report reads of a dimension."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from mcpbench.results.model import (
    DIMENSION_WORKLOAD,
    DimensionDecision,
    DimensionFigure,
    DimensionPlan,
    DimensionSection,
    dimension_headings,
    plain_section,
)
from mcpbench.workload.dimension_tools import ToolSettings
from mcpbench.workload.file import Workload, WorkloadFile


def dimension_workload(name: str, spec: WorkloadFile) -> Workload:
    """A dimension's own calls, named in server.json as `dimension:<name>` (results.model.DIMENSION_WORKLOAD)."""
    return Workload(Path(f"{DIMENSION_WORKLOAD}{name}"), spec)


@dataclass(frozen=True)
class Point:
    """One point of a dimension: its label (the twin's suffix), its display (its table's heading), its contract
    settings, and the calls it is measured with (None: the lineup's)."""

    label: str
    display: str
    settings: ToolSettings
    workload: Workload | None = None
    # A manifest's `unsupported` key that rules this point out as well as the dimension's own: its contract setting
    # is one the SDK lacks (SESSIONS=1 is `abandoned`'s).
    opt_out: str | None = None


@dataclass(frozen=True)
class Question:
    """The decision page's question of a dimension, asked at one of its points: `text` with `{point}` put in,
    answered by the ranking of `figure` at that point. `at` picks the point in the order the Dimensions page
    shows them (-1: the last, the largest), among the loads in `mode` only when it is set (a dimension without
    points has a point per load)."""

    text: str
    figure: DimensionFigure
    unit: str
    at: int = -1
    mode: str | None = None
    # The point it is asked at, by its display, whatever else was measured: a question of one method of several
    # (the surface's) is asked only where that method was; None: `at` picks among the points measured.
    point: str | None = None

    def asked(self, headings: list[tuple[str, str | None]]) -> DimensionDecision | None:
        """The question at its point among `headings` (each table's heading and its load's mode); None when no
        point is there to ask it of."""
        if self.point is not None:
            headings = [(heading, mode) for heading, mode in headings if heading == self.point]
        return DimensionDecision.asked(self.text, self.figure, self.unit, self.at, self.mode, headings)


@dataclass(frozen=True)
class Dimension:
    name: str
    question: str                            # what its section answers (the Dimensions page's heading)
    mode: str                                # the load preset: modes, VUs, think time (the command line overrides)
    vus: str
    think_s: float
    points: tuple[Point, ...] = ()           # none: the servers as they are, at the preset load
    more_points: tuple[Point, ...] = ()      # --all-points adds these
    workload: Workload | None = None         # a dimension without points: what its servers are called with
    ramp_up_s: float | None = None           # None: the run's
    stages: str | None = None                # a staged load's stages (`--load staged --stages`); None: closed
    processes: bool = False                  # its servers' processes read at 1 Hz (`--processes`)
    # Whether its figures move with the host's speed, so a host-disturbed measurement is retaken; False for one
    # that reads what a server keeps (memory, sockets), which a slow minute of the host does not change.
    host_bound: bool = True
    asks: tuple[Question, ...] = ()          # the decision page's questions of it (none: it asks none)
    section: DimensionSection = field(default_factory=plain_section)
    # How a server whose manifest opts out of this dimension (`unsupported.<name>`) is listed, before its reason.
    not_offered: str = ""
    order: int = 100                         # its place in `--dimension`'s choices

    def not_offered_reason(self, why: str) -> str:
        return f"{self.not_offered or f'it does not offer the {self.name} dimension'}: {why}"

    def plan(self, points: list[str], modes: list[str], kind: str, vus: list[int],
             rates: list[float] | None) -> DimensionPlan:
        """What the run records of it (run.json `config.dimension`), all the report reads of a dimension: its
        points as measured (their displays), its section, and each of its questions at its point among the run's."""
        headings = dimension_headings(points, modes, kind, vus, rates)
        asked = [decision for decision in (question.asked(headings) for question in self.asks) if decision]
        return DimensionPlan(name=self.name, question=self.question, points=points, decisions=asked,
                             section=self.section)

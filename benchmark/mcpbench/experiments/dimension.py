"""`mcpbench dimension`: what MCP clients do besides the workload's one small tool call, measured on every
server (issue 37, docs/dimensions.md). A dimension (mcpbench/dimensions/: payload, tools-list, agent, churn,
sessions, progress, abandoned, and any registered from outside) is `mcpbench run` with its load preset and, where
it sweeps a point (a reply size, a number of registered tools), each server measured at every point as a twin of its own
(NAME-POINT, started with the point's contract settings and called with its workload) in the same interleaved
rounds, so the points of one server are compared round by round as any two servers are. A server whose manifest
opts out of the dimension (`unsupported.<name>`) is listed as unavailable with its reason, never started. The
run records the dimension's plan (what its report section shows, the decision page's question)."""

from __future__ import annotations

import dataclasses
from typing import Optional

from mcpbench import dimensions
from mcpbench.catalog.manifest import ServerSpec
from mcpbench.catalog.selection import setting_twin
from mcpbench.dimensions import Dimension, Point
from mcpbench.experiments.options import DEFAULT_VUS, Option, Values
from mcpbench.experiments.run import RunExperiment
from mcpbench.loads import DEFAULT_KIND
from mcpbench.loads.staged import StagedLoad


def chosen_points(dimension: Dimension, all_points: bool, labels: str | None) -> tuple[Point, ...]:
    """The dimension's points: its default ones, every one with --all-points, or those --points names."""
    every = dimension.points + dimension.more_points
    if not labels:
        return every if all_points else dimension.points
    wanted = [label.strip().lower() for label in labels.split(",") if label.strip()]
    unknown = [label for label in wanted if label not in {p.label for p in every}]
    if unknown or not every:
        raise ValueError(f"--points {labels!r}: the {dimension.name} dimension's points are "
                         f"{', '.join(p.label for p in every) or 'none'}")
    return tuple(p for p in every if p.label in wanted)


def twins(specs: list[ServerSpec], dimension: Dimension, points: tuple[Point, ...]) -> list[ServerSpec]:
    """Each server at every point of the dimension, as NAME-POINT (docstring above); the servers themselves
    when it has no points. A server whose manifest opts out of it is kept with why (`unavailable`: listed, not
    started). A server given on the command line (its own workload file, or a URL) has no dimension tools to
    call: ValueError."""
    def offered(spec: ServerSpec, point: Point | None = None) -> ServerSpec:
        why = spec.info.unsupported.get(dimension.name)
        if not why and point is not None and point.opt_out and (why := spec.info.unsupported.get(point.opt_out)):
            return dataclasses.replace(spec, unavailable=f"{point.display} is not offered: {why}")
        return dataclasses.replace(spec, unavailable=dimension.not_offered_reason(why)) if why else spec

    if not points and dimension.workload is None:
        return [offered(spec) for spec in specs]
    for spec in specs:
        if spec.given:
            raise ValueError(f"{spec.name}: the {dimension.name} dimension calls the lineup's or the contract's "
                             "dimension tools (docs/workload.md §6), which only the reference servers under servers/ "
                             "register")
    if not points:
        return [offered(dataclasses.replace(spec, workload=dimension.workload)) for spec in specs]
    taken = {spec.name for spec in specs}
    out = []
    for spec in specs:
        for point in points:
            twin = setting_twin(spec, taken, point.label, point.settings.environment(), point.display)
            out.append(offered(dataclasses.replace(twin, workload=point.workload, point=point.display), point))
    return out


class DimensionExperiment(RunExperiment):
    name = "dimension"
    order = 25
    help = ("Measure what MCP clients do besides one small tool call: payload (reply size), tools-list (many "
            "tools), agent (one caller in sequence), churn (a session per call against persistent sessions), "
            "sessions (memory holding 1, 100, 1,000 open sessions), progress (streamed progress notifications), "
            "abandoned (sessions never closed), cancellation (calls cancelled part-way).")
    options = (Option("dimension", str, "payload", f"Which: {', '.join(dimensions.names())}.", ("--dimension",)),
               Option("all_points", bool, False, "Every point, the costly ones too (tools-list: 10,000 tools).",
                      ("--all-points",)),
               Option("points", Optional[str], None, "Only these points, e.g. 1kib,1mib (payload: 1kib, 64kib, 1mib, "
                      "4mib; tools-list: tools0, tools100, tools1000, tools10000; "
                      "progress: progress1, progress10, progress100)."),
               *RunExperiment.options)
    directory_suffix = "-dimension"

    def __init__(self, values: Values, specs: list[ServerSpec], console=None):
        dimension = dimensions.dimension(values.get("dimension") or "")
        self.dimension = dimension
        self.retakes = dimension.host_bound
        preset = {"mode": dimension.mode, "vus": dimension.vus, "think": dimension.think_s,
                  "runs": None if values.get("quick") else "5",
                  **({"ramp_up": dimension.ramp_up_s} if dimension.ramp_up_s is not None else {}),
                  **({"load": StagedLoad.kind, "stages": dimension.stages} if dimension.stages else {}),
                  **({"processes": True} if dimension.processes else {})}
        # What the command line gave overrides the preset (the defaults of --vus, 50, --load, closed, and of
        # the flags count as not given).
        defaults = {"vus": DEFAULT_VUS, "load": DEFAULT_KIND, "processes": False}
        given = {key: value for key, value in values.items()
                 if value is not None and not (key in defaults and value == defaults[key])}
        super().__init__({**values, **{k: v for k, v in preset.items() if k not in given}},
                         twins(specs, dimension, chosen_points(dimension, values.get("all_points", False),
                                                               values.get("points"))), console)
        # Its plan (what its report section shows, the decision page's question): run.json's config.dimension.
        config = self.config
        points = list(dict.fromkeys(spec.point for spec in self.specs if spec.point))
        config.dimension = dimension.plan(points, list(config.modes), config.load, list(config.vus),
                                          list(config.rates or []))


EXPERIMENT = DimensionExperiment

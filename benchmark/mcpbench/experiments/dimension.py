"""`mcpbench dimension`: what MCP clients do besides the workload's one small tool call, measured on every
server (issue 37, docs/dimensions.md). A dimension is `mcpbench run` with its load preset and, where it sweeps a
point (a reply size, a number of registered tools), each server measured at every point as a twin of its own
(NAME-POINT, started with the point's contract settings and, for the payload, called with its workload) in the
same interleaved rounds, so the points of one server are compared round by round as any two servers are.

- payload:    echo_payload replies of 1 KiB, 64 KiB, 1 MiB and 4 MiB (persistent sessions, 10 VUs, no think time)
- tools-list: EXTRA_TOOLS = 0, 100, 1,000 registered tools (10,000 with --all-points); the lineup's calls with its
              tools/list, whose latency and the server's memory move with N
- agent:      one caller, one persistent session, one call after another: the latency an agent sees
- churn:      a whole session per call (connect, one call, disconnect) beside persistent sessions, closed loop
              at 10 VUs without think time: what a session costs
- sessions:   1, 100 and 1,000 persistent sessions opened (initialize, a call) and held, each calling one small
              tool every 4 s: the memory a server holds per open session, and whether it keeps answering
- progress:   stream_progress sending 1 and 100 progress notifications on the call's SSE reply before its result
              (10 with --all-points; persistent sessions, 10 VUs, no think time): the time to the first
              notification, to the result, and what a notification costs
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from mcpbench.catalog.manifest import ServerSpec
from mcpbench.catalog.selection import setting_twin
from mcpbench.experiments.options import Option, Values
from mcpbench.experiments.run import RunExperiment
from mcpbench.results.model import Record
from mcpbench.workload import dimension_tools as dims
from mcpbench.workload.dimension_tools import Capability, ToolSettings
from mcpbench.workload.file import Call, Check, Workload, WorkloadFile, lineup


@dataclass(frozen=True)
class Point:
    """One point of a dimension: its label (the twin's suffix), its contract settings, and the calls it is
    measured with (None: the lineup's)."""

    label: str
    display: str
    settings: ToolSettings
    workload: Workload | None = None


def _size_label(size: int) -> tuple[str, str]:
    """The payload point's twin suffix and display: "1mib", "1 MiB"."""
    display = dims.size_text(size)
    return display.replace(" ", "").lower(), display


def payload_workload(size: int) -> Workload:
    """echo_payload at one size, its reply checked as the load driver can check every call: its size, the
    characters of data it counted, and the payload's length (verify checks its content once, at the start)."""
    label, display = _size_label(size)
    call = Call(tool=dims.ECHO_PAYLOAD, arguments={"size": size, "data": dims.argument(size)},
                check=[Check(pointer="/size", equals=size), Check(pointer="/received", equals=len(dims.argument(size))),
                       Check(pointer="/payload", length=size)])
    spec = WorkloadFile(description=f"echo_payload replies of {display} (docs/workload.md §6)", call=[call])
    return Workload(Path(f"dimension:payload:{label}"), spec)


def progress_workload(count: int) -> Workload:
    """stream_progress asking for `count` notifications: each must arrive on the call's reply before its result
    (the load driver counts them and times the first), and the result says all were sent."""
    call = Call(tool=dims.STREAM_PROGRESS, arguments={"count": count}, progress=count,
                check=[Check(pointer="/count", equals=count), Check(pointer="/sent", equals=count)])
    spec = WorkloadFile(description=f"stream_progress with {count} notification(s) (docs/workload.md §6)", call=[call])
    return Workload(Path(f"dimension:progress:{count}"), spec)


def _progress_point(count: int) -> Point:
    return Point(f"progress{count}", f"{count} notification{'s' if count > 1 else ''}",
                 ToolSettings(dimension_tools=True, sse_replies=True), progress_workload(count))


def held_session_workload() -> Workload:
    """A held session's keep-alive: the lineup's cart lookup alone (one small Redis read, checked as the lineup
    checks it), so a thousand held sessions cost the server little work besides their state."""
    whole = lineup()
    cart = next(call for call in whole.spec.call if call.tool == "get_user_cart")
    spec = WorkloadFile(description="one held session's keep-alive: the lineup's get_user_cart", call=[cart])
    return Workload(Path("dimension:sessions:get_user_cart"), spec)


@dataclass(frozen=True)
class Dimension:
    name: str
    question: str
    mode: str
    vus: str
    think_s: float
    points: tuple[Point, ...] = ()           # none: the servers as they are, at the preset load
    more_points: tuple[Point, ...] = ()      # --all-points adds these
    workload: Workload | None = None         # a dimension without points: what its servers are called with
    ramp_up_s: float | None = None           # None: the run's
    needs: Capability | None = None          # what a server's SDK must be able to do (ServerInfo.unsupported's key)


TOOL_COUNTS = (0, 100, 1000)
# Two counts apart by 99 notifications: what one costs is the difference over 99 (report: per notification).
PROGRESS_COUNTS = (1, 100)

DIMENSIONS: dict[str, Dimension] = {d.name: d for d in (
    Dimension("payload", "fastest at large replies", "persistent", "10", 0.0, points=tuple(
        Point(*_size_label(size), ToolSettings(dimension_tools=True), payload_workload(size))
        for size in dims.PAYLOAD_SIZES)),
    Dimension("tools-list", "fastest tools/list with many tools", "persistent", "10", 0.0, points=tuple(
        Point(f"tools{n}", f"{n:,} extra tools", ToolSettings(extra_tools=n)) for n in TOOL_COUNTS),
        more_points=(Point("tools10000", "10,000 extra tools", ToolSettings(extra_tools=10000)),)),
    Dimension("agent", "lowest latency for one agent", "persistent", "1", 0.0),
    Dimension("churn", "cheapest session", "session,persistent", "10", 0.0),
    # Each VU is one session, held: opened at its first call during the ramp-up, then a call every 4 s (the think
    # time), so the window holds N sessions that are idle nearly all of it. The ramp-up as long as the think time
    # spreads the sessions' calls evenly (1,000 sessions: 250 small calls/s) rather than in bursts. Under 5 s: a
    # VU's own connection (k6's model) idle exactly 5 s races uvicorn's and Node's 5 s keep-alive timeout, the
    # server closing it as the call goes out (measured at 5 s: python-lowlevel, 437 transport errors in a window).
    Dimension("sessions", "smallest memory holding open sessions", "persistent", "1,100,1000", 4.0,
              workload=held_session_workload(), ramp_up_s=4.0),
    Dimension("progress", "cheapest streamed progress", "persistent", "10", 0.0,
              points=tuple(_progress_point(n) for n in PROGRESS_COUNTS), more_points=(_progress_point(10),),
              needs=dims.PROGRESS),
)}


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
    when it has no points. A server given on the command line (its own workload file, or a URL) has no dimension
    tools to call: ValueError."""
    if not points and dimension.workload is None:
        return specs
    for spec in specs:
        if spec.given:
            raise ValueError(f"{spec.name}: the {dimension.name} dimension calls the lineup's or the contract's "
                             "dimension tools (docs/workload.md §6), which only the reference servers under servers/ "
                             "register")
    if not points:
        return [dataclasses.replace(spec, workload=dimension.workload) for spec in specs]
    taken = {spec.name for spec in specs}
    out = []
    for spec in specs:
        why = spec.info.unsupported.get(dimension.needs) if dimension.needs else None
        for point in points:
            twin = setting_twin(spec, taken, point.label, point.settings.environment(), point.display)
            out.append(dataclasses.replace(twin, workload=point.workload, point=point.display,
                                           unavailable=f"its SDK cannot stream progress: {why}" if why else None))
    return out


class DimensionExperiment(RunExperiment):
    name = "dimension"
    order = 25
    help = ("Measure what MCP clients do besides one small tool call: payload (reply size), tools-list (many "
            "tools), agent (one caller in sequence), churn (a session per call against persistent sessions), "
            "sessions (memory holding 1, 100, 1,000 open sessions), progress (streamed progress notifications).")
    options = (Option("dimension", str, "payload", f"Which: {', '.join(DIMENSIONS)}.", ("--dimension",)),
               Option("all_points", bool, False, "Every point, the costly ones too (tools-list: 10,000 tools).",
                      ("--all-points",)),
               Option("points", Optional[str], None, "Only these points, e.g. 1kib,1mib (payload: 1kib, 64kib, 1mib, "
                      "4mib; tools-list: tools0, tools100, tools1000, tools10000; "
                      "progress: progress1, progress10, progress100)."),
               *RunExperiment.options)
    directory_suffix = "-dimension"

    def __init__(self, values: Values, specs: list[ServerSpec], console=None):
        dimension = DIMENSIONS.get(values.get("dimension") or "")
        if dimension is None:
            raise ValueError(f"--dimension {values.get('dimension')!r}: choose {', '.join(DIMENSIONS)}")
        self.dimension = dimension
        preset = {"mode": dimension.mode, "vus": dimension.vus, "think": dimension.think_s,
                  "runs": None if values.get("quick") else "5",
                  **({"ramp_up": dimension.ramp_up_s} if dimension.ramp_up_s is not None else {})}
        # What the command line gave overrides the preset (--vus's default, 50, counts as not given).
        given = {key: value for key, value in values.items()
                 if value is not None and not (key == "vus" and value == "50")}
        super().__init__({**values, **{k: v for k, v in preset.items() if k not in given}},
                         twins(specs, dimension, chosen_points(dimension, values.get("all_points", False),
                                                               values.get("points"))), console)

    def record(self) -> Record:
        return {"dimension": {"name": self.dimension.name, "question": self.dimension.question,
                              "points": list(dict.fromkeys(spec.point for spec in self.specs if spec.point))}}


EXPERIMENT = DimensionExperiment

"""progress: stream_progress sending 1 and 100 progress notifications on the call's SSE reply before its result (10
with --all-points; persistent sessions, 10 VUs, no think time): the time to the first notification, to the result,
and what a notification costs. A server whose SDK cannot stream says so in its manifest (`unsupported.progress`)."""

from __future__ import annotations

from mcpbench.dimensions.base import Dimension, Point, Question, dimension_workload
from mcpbench.results.model import DimensionSection
from mcpbench.workload import dimension_tools as dims
from mcpbench.workload.dimension_tools import ToolSettings
from mcpbench.workload.file import Call, ReplyCheck, Workload, WorkloadFile

# Two counts apart by 99 notifications: what one costs is the difference over 99 (report: per notification).
PROGRESS_COUNTS = (1, 100)


def progress_workload(count: int) -> Workload:
    """stream_progress asking for `count` notifications: each must arrive on the call's reply before its result
    (the load driver counts them and times the first), and the result says all were sent."""
    call = Call(tool=dims.STREAM_PROGRESS, arguments={"count": count}, progress=count,
                check=[ReplyCheck(pointer="/count", equals=count), ReplyCheck(pointer="/sent", equals=count)])
    spec = WorkloadFile(description=f"stream_progress with {count} notification(s) (docs/workload.md §6)", call=[call])
    return dimension_workload(f"progress:{count}", spec)


def progress_point(count: int) -> Point:
    return Point(f"progress{count}", f"{count} notification{'s' if count > 1 else ''}",
                 ToolSettings(dimension_tools=True, sse_replies=True), progress_workload(count))


DIMENSION = Dimension(
    dims.PROGRESS, "cheapest streamed progress", "persistent", "10", 0.0,
    points=tuple(progress_point(n) for n in PROGRESS_COUNTS), more_points=(progress_point(10),),
    # CPU per call at the most notifications, as for the payload: streaming is the server's work, and a fast
    # server's calls/s there is capped by the load driver reading the streams on the same host.
    asks=(Question("Most streamed calls per CPU-second ({point} each)", "cpu_per_call", "calls per CPU-second"),),
    section=DimensionSection(columns=["first_notification"], tables=["progress_cost"], latency_ranking=False,
                             changes=True),
    not_offered="its SDK cannot stream progress",
    order=60)

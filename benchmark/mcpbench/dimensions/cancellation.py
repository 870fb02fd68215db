"""cancellation: each server's stepped_work (docs/workload.md §6: 20 Redis writes 50 ms apart) called by 10 clients in
persistent sessions and cancelled 225 ms in, between its 5th and 6th write, each client's get_user_cart in between
(the other calls, ranked as any load's): over Streamable HTTP without a session by closing the response stream (the
lineup as it runs, stateless), and in a session (SESSIONS=1) by notifications/cancelled. Read from Redis 2 s after the
last cancellation: the steps each server still wrote for a call its client had given up on, and whether a reply still
came after the notification (the spec says none should). What stops a handler is the SDK's: the tool uses what its
SDK hands it (analysis/cancellation.py). A server whose SDK keeps no sessions (`unsupported.abandoned`) has no
notification point. Under `--mode stdio` both points' calls are cancelled by notifications/cancelled, over stdio."""

from __future__ import annotations

from mcpbench.dimensions.base import Dimension, Point, Question, dimension_workload
from mcpbench.results.model import DimensionSection
from mcpbench.workload import dimension_tools as dims
from mcpbench.workload.dimension_tools import ToolSettings
from mcpbench.workload.file import Call, Workload, WorkloadFile, lineup

# 20 steps 50 ms apart, cancelled 225 ms in: five written before, fifteen left that a server that ran on writes
# within 775 ms, inside the load driver's 2 s watch (load-driver/cancel.go).
STEPS, INTERVAL_MS, CANCEL_AFTER_MS = 20, 50, 225
KEY = "c-{vu}-{iteration}"


def cancelling_workload(how: str) -> Workload:
    """Each client's iteration: a stepped_work call it cancels, then the lineup's cart lookup (checked as the lineup
    checks it), which is the counted call: cancelled calls have no latency to rank."""
    cancelled = Call(tool=dims.STEPPED_WORK, name="cancelled", cancel_after_ms=CANCEL_AFTER_MS,
                     arguments=dims.stepped_arguments(KEY, STEPS, INTERVAL_MS), work_list=dims.steps_list(KEY))
    cart = next(call for call in lineup().spec.call if call.tool == "get_user_cart")
    spec = WorkloadFile(description=f"stepped_work cancelled after {CANCEL_AFTER_MS} ms by {how}, and get_user_cart",
                        call=[cancelled, cart])
    return dimension_workload(f"cancellation:{how}", spec)


# Over HTTP without a session the client has only the stream to close (the 2026-07-28 revision's cancellation).
CLOSED = Point("closed", "no session: stream closed", ToolSettings(dimension_tools=True),
               cancelling_workload("closing the stream"))
# In a session the client says so (MCP 2025-11-25 "Cancellation"), and listens on for a reply that should not come.
# A server whose SDK keeps no sessions says so for the abandoned dimension, which needs SESSIONS=1 too.
NOTICE = Point("notice", "SESSIONS=1: notifications/cancelled", ToolSettings(dimension_tools=True, sessions=True),
               cancelling_workload("notifications/cancelled"), opt_out="abandoned")

DIMENSION = Dimension(
    dims.CANCELLATION, "stops work when a call is cancelled", "persistent", "10", 0.0, points=(CLOSED, NOTICE),
    host_bound=False, not_offered="its SDK cannot be told of a cancellation",
    asks=(Question("Stops work when a call is cancelled", "stops_on_cancel", "steps after the cancellation", at=0),),
    section=DimensionSection(columns=[], tables=["cancellations"], latency_ranking=False, changes=False),
    order=57)

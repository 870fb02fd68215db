"""sessions: 1, 100 and 1,000 persistent sessions opened (initialize, a call) and held, each calling one small tool
every 4 s: the memory a server holds per open session, and whether it keeps answering."""

from __future__ import annotations

from mcpbench.dimensions.base import Dimension, Question, dimension_workload
from mcpbench.results.model import DimensionSection
from mcpbench.workload.file import Workload, WorkloadFile, lineup


def held_session_workload() -> Workload:
    """A held session's keep-alive: the lineup's cart lookup alone (one small Redis read, checked as the lineup
    checks it), so a thousand held sessions cost the server little work besides their state."""
    whole = lineup()
    cart = next(call for call in whole.spec.call if call.tool == "get_user_cart")
    spec = WorkloadFile(description="one held session's keep-alive: the lineup's get_user_cart", call=[cart])
    return dimension_workload("sessions:get_user_cart", spec)


# Each VU is one session, held: opened at its first call during the ramp-up, then a call every 4 s (the think
# time), so the window holds N sessions that are idle nearly all of it. The ramp-up as long as the think time
# spreads the sessions' calls evenly (1,000 sessions: 250 small calls/s) rather than in bursts. Under 5 s: a
# VU's own connection (k6's model) idle exactly 5 s races uvicorn's and Node's 5 s keep-alive timeout, the
# server closing it as the call goes out (measured at 5 s: python-lowlevel, 437 transport errors in a window).
DIMENSION = Dimension(
    "sessions", "smallest memory holding open sessions", "persistent", "1,100,1000", 4.0,
    workload=held_session_workload(), ramp_up_s=4.0,
    # Memory with the most sessions held: the peak-memory ranking of that load (lower is better, valid whatever
    # capped the throughput — here the think time, by design); the per-session increment is beside it.
    asks=(Question("Smallest memory holding open sessions ({point})", "mem_peak", "MiB"),),
    # Its points are loads whose rate the think time sets (N sessions ÷ 4 s): a change of calls/s or CPU per call
    # between them says how many calls were offered, not what the server did. Memory per session says that.
    section=DimensionSection(columns=["memory_rank"], tables=["session_memory"], latency_ranking=False,
                             changes=False),
    order=50)

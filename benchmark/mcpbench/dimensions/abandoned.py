"""abandoned: each server with its SDK's sessions switched on (SESSIONS=1), clients that open a session, make one
call and leave without DELETE — a client that crashed, a laptop that slept, an agent framework that forgot — 10 at a
time for 30 s, then nobody for 60 s, the server's processes read at 1 Hz throughout: what each server keeps of a
session nobody closes (memory, open files, threads, CLOSE_WAIT sockets), whether it gives it back and after how
long, and whether its answers meanwhile degrade (analysis/abandoned.py). An SDK idle timeout longer than the watch
shows as "not reclaimed"; `--stages` watches longer (the last stage is the watch). Under `--mode stdio` the client is
one that hangs with the pipes open: it sends on and reads no reply until the watch (load-driver/server.go), so what
is measured is what the server keeps of replies nobody reads, and whether it answers again once read."""

from __future__ import annotations

from mcpbench.dimensions.base import Dimension, Point, Question, dimension_workload
from mcpbench.results.model import DimensionSection
from mcpbench.workload.dimension_tools import ToolSettings
from mcpbench.workload.file import Workload, WorkloadFile, lineup


def abandoning_workload(drop_stream: bool = False) -> Workload:
    """One session per call, left open: the lineup's cart lookup (one small Redis read, checked as the lineup checks
    it), so what grows is the sessions' state rather than the calls' work. `drop_stream`: each client then opens the
    session's GET stream and drops the TCP connection under it."""
    cart = next(call for call in lineup().spec.call if call.tool == "get_user_cart")
    how = "its GET stream dropped" if drop_stream else "never closed"
    spec = WorkloadFile(description=f"a session per get_user_cart call, {how}", session="session",
                        abandon=True, drop_stream=drop_stream, call=[cart])
    return dimension_workload(f"abandoned:{'dropped' if drop_stream else 'kept'}", spec)


# 10 VUs with 50 ms of think time: up to 200 sessions/s, fewer where a session takes longer than the pause, so every
# server is left a few thousand sessions in 30 s. A 1 s step down, then 60 s without a client.
STAGES = "2s:10,30s:10,1s:0,60s:0"

# The lineup runs stateless, where a server keeps nothing between requests: each server is measured as a twin
# started with SESSIONS=1, its SDK's stateful transport (verify fails a twin that issues no Mcp-Session-Id).
KEPT = Point("sessions", "sessions kept (SESSIONS=1)", ToolSettings(sessions=True), abandoning_workload())
# The same clients dying while they listen (`--all-points`): each opens its session's standalone GET stream and
# drops the TCP connection under it, the case reported against servers that leave such sockets in CLOSE_WAIT.
DROPPED = Point("dropped", "streams dropped (SESSIONS=1)", ToolSettings(sessions=True),
                abandoning_workload(drop_stream=True))

DIMENSION = Dimension(
    "abandoned", "frees abandoned sessions", "session", "10", 0.05, points=(KEPT,), more_points=(DROPPED,),
    stages=STAGES, processes=True, host_bound=False, not_offered="SESSIONS=1 does not switch its sessions on",
    asks=(Question("Frees abandoned sessions", "reclaimed", "s after the last client", at=0),),
    section=DimensionSection(columns=[], tables=["abandoned_sessions"], latency_ranking=False, changes=False),
    order=55)

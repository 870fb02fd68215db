"""payload: echo_payload replies of 1 KiB, 64 KiB, 1 MiB and 4 MiB (persistent sessions, 10 VUs, no think time),
each size a twin started with the dimension tools on, every reply checked by the load driver as it arrives."""

from __future__ import annotations

from mcpbench.dimensions.base import Dimension, Point, Question, dimension_workload
from mcpbench.workload import dimension_tools as dims
from mcpbench.workload.dimension_tools import ToolSettings
from mcpbench.workload.file import Call, ReplyCheck, Workload, WorkloadFile


def size_label(size: int) -> tuple[str, str]:
    """The payload point's twin suffix and display: "1mib", "1 MiB"."""
    display = dims.size_text(size)
    return display.replace(" ", "").lower(), display


def payload_workload(size: int) -> Workload:
    """echo_payload at one size, its reply checked as the load driver can check every call: its size, the
    characters of data it counted, and the payload's length (verify checks its content once, at the start)."""
    label, display = size_label(size)
    call = Call(tool=dims.ECHO_PAYLOAD, arguments={"size": size, "data": dims.argument(size)},
                check=[ReplyCheck(pointer="/size", equals=size),
                       ReplyCheck(pointer="/received", equals=len(dims.argument(size))),
                       ReplyCheck(pointer="/payload", length=size)])
    spec = WorkloadFile(description=f"echo_payload replies of {display} (docs/workload.md §6)", call=[call])
    return dimension_workload(f"payload:{label}", spec)


def payload_point(size: int) -> Point:
    return Point(*size_label(size), ToolSettings(dimension_tools=True), payload_workload(size))


DIMENSION = Dimension(
    "payload", "fastest at large replies", "persistent", "10", 0.0,
    points=tuple(payload_point(size) for size in dims.PAYLOAD_SIZES),
    # CPU per call, not calls/s: at 1 MiB the load driver, sharing the host, caps every server near the same rate
    # (bound:loadgen), and the efficiency ranking stays valid where the harness limits throughput.
    asks=(Question("Most {point} replies per CPU-second", "cpu_per_call", "replies per CPU-second"),),
    order=10)

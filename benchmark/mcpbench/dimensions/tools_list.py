"""tools-list: EXTRA_TOOLS = 0, 100, 1,000 registered tools (10,000 with --all-points), each count a twin; the
lineup's calls with its tools/list, whose latency and the server's memory move with N."""

from __future__ import annotations

from mcpbench.dimensions.base import Dimension, Point, Question
from mcpbench.results.model import DimensionSection
from mcpbench.workload.dimension_tools import ToolSettings

TOOL_COUNTS = (0, 100, 1000)


def tools_point(count: int) -> Point:
    return Point(f"tools{count}", f"{count:,} extra tools", ToolSettings(extra_tools=count))


DIMENSION = Dimension(
    "tools-list", "fastest tools/list with many tools", "persistent", "10", 0.0,
    points=tuple(tools_point(n) for n in TOOL_COUNTS), more_points=(tools_point(10000),),
    # CPU per call, as for the payload: with 1,000 tools each tools/list reply is large, and the load driver parsing
    # it caps the fastest servers near one rate, which leaves only slow ones ranked by throughput (measured: 10 of
    # 19 stacks capped at 199-341 calls/s).
    asks=(Question("Most calls per CPU-second with {point} registered", "cpu_per_call", "calls per CPU-second"),),
    section=DimensionSection(columns=["tools_list"], tables=[], latency_ranking=False, changes=True),
    order=20)

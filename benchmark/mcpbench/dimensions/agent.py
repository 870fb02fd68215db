"""agent: one caller, one persistent session, one call after another: the latency an agent sees. Its throughput is
1 / latency (the load model's by design), so its points' servers are ranked on the all-calls p50 too."""

from __future__ import annotations

from mcpbench.dimensions.base import Dimension, Question
from mcpbench.results.model import DimensionSection

DIMENSION = Dimension(
    "agent", "lowest latency for one agent", "persistent", "1", 0.0,
    asks=(Question("Lowest latency for one agent", "p50_all_calls", "ms, p50 of all calls", at=0),),
    section=DimensionSection(columns=[], tables=[], latency_ranking=True, changes=True),
    order=30)

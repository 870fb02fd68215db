"""Several generator instances' samples as one test's (k6's --execution-segment splits a test so that
together the instances run exactly the whole of it: VU ids and iteration numbers stay unique, the rate
or the VUs divide between them)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from mcpbench.analysis.warmup import STEADY_LAG_S, LiveSamples
from mcpbench.results.model import LoadgenCounts


def merge_samples(parts: list[tuple[pd.DataFrame, float | None]]) -> tuple[pd.DataFrame, float | None]:
    """One table on one clock: each instance counts t_s from its own scenario start, so every part is
    rebased on the earliest start. A stable sort keeps each VU's samples in the order it wrote them (one
    VU runs in one instance), which the closed model's iteration split relies on."""
    starts = [start for _, start in parts if start is not None]
    if not starts:
        return pd.concat([frame for frame, _ in parts], ignore_index=True), None
    zero = min(starts)
    frames = [frame.assign(t_s=frame["t_s"] + round(start - zero, 3)) for frame, start in parts
              if start is not None and not frame.empty]
    if not frames:
        return parts[0][0], zero
    merged = pd.concat(frames, ignore_index=True).sort_values("t_s", kind="stable", ignore_index=True)
    return merged, zero


# Counts that are no totals: the worst instance's is kept (a pooled p99 cannot be derived from the parts').
WORST_OF = ("start_lag_p99_ms", "start_lag_max_ms")


def merge_counts(parts: list[LoadgenCounts | None]) -> LoadgenCounts | None:
    """The instances' own counts as one test's: totals summed, WORST_OF the largest, anything else (a
    failure's reason) the first given; None unless every instance wrote its counts. Only the counts the
    instances wrote are merged (k6 writes three of them)."""
    written = [part for part in parts if part is not None]
    if not parts or len(written) < len(parts):
        return None
    if len(written) == 1:
        return written[0]
    given = [part.model_dump(exclude_unset=True) for part in written]
    merged = {key: _merged(key, [part[key] for part in given if part.get(key) is not None])
              for key in sorted(set().union(*given))}
    return LoadgenCounts.model_validate(merged)


def _merged(key: str, values: list[Any]) -> Any:
    """One count over the instances that gave it."""
    if key in WORST_OF:
        return max(values, default=None)
    if values and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return sum(values)
    if values and all(isinstance(v, list) for v in values):  # spans (stalls_s): every instance's
        return [item for value in values for item in value]
    return values[0] if values else None


class MergedLive:
    """The instances' live samples as one (LiveView): calls per second summed, complete only as far as
    every instance is. Seconds are each instance's own; their starts differ by well under a second,
    which the warm-up's 10 s spans do not see."""

    def __init__(self, parts: list[LiveSamples]):
        self.parts = parts

    def poll(self) -> None:
        for part in self.parts:
            part.poll()

    @property
    def per_second(self) -> list[int]:
        length = max((len(part.per_second) for part in self.parts), default=0)
        return [sum(part.per_second[i] for part in self.parts if i < len(part.per_second)) for i in range(length)]

    @property
    def latency_ms(self) -> list[list[float]]:
        length = max((len(part.latency_ms) for part in self.parts), default=0)
        return [[v for part in self.parts if i < len(part.latency_ms) for v in part.latency_ms[i]]
                for i in range(length)]

    @property
    def latest_s(self) -> float:
        return min((part.latest_s for part in self.parts), default=0.0)

    @property
    def complete_s(self) -> int:
        return max(0, int(self.latest_s) - STEADY_LAG_S)

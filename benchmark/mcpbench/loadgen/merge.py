"""Several generator instances' samples as one test's (k6's --execution-segment splits a test so that
together the instances run exactly the whole of it: VU ids and iteration numbers stay unique, the rate
or the VUs divide between them)."""

from __future__ import annotations

import pandas as pd

from mcpbench.analysis.warmup import STEADY_LAG_S, LiveSamples


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


def merge_counts(parts: list[dict | None]) -> dict | None:
    """The instances' own counts as one test's: totals summed, WORST_OF the largest, anything else (a
    failure's reason) the first given; None unless every instance wrote its counts."""
    written = [part for part in parts if part is not None]
    if not parts or len(written) < len(parts):
        return None
    if len(written) == 1:
        return written[0]
    merged: dict = {}
    for key in sorted(set().union(*written)):
        values = [part[key] for part in written if part.get(key) is not None]
        if key in WORST_OF:
            merged[key] = max(values, default=None)
        elif values and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            merged[key] = sum(values)
        elif values and all(isinstance(v, list) for v in values):  # spans (stalls_s): every instance's
            merged[key] = [item for value in values for item in value]
        else:
            merged[key] = values[0] if values else None
    return merged


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

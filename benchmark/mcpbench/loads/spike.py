"""A spike (`--load spike --spike 4 --vus 10`): the closed model at its level, a step to `factor` x the level
and back, with the time the p99 takes to recover after the spike (summary `recovery`)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

import pandas as pd

from mcpbench.loads.base import Stage, StageSpan, Wording
from mcpbench.loads.closed import ClosedLoad
from mcpbench.loads.staged import spans
from mcpbench.loads.timing import Timing

DEFAULT_FACTOR = 4.0
# The window's parts: the level before the spike (the p99 the recovery returns to), the spike, and after it
# (where the recovery is timed), as shares of the timing's window.
BEFORE_SHARE, SPIKE_SHARE, AFTER_SHARE = 1 / 3, 1 / 6, 1 / 2
PARTS = ("before", "spike", "after")


@dataclass(frozen=True)
class SpikeLoad(ClosedLoad):
    """`vus` is the spike's VUs (the most it runs); `base_vus` the level before and after it."""

    base_vus: int = 1
    factor: float = DEFAULT_FACTOR

    kind: ClassVar[str] = "spike"
    words: ClassVar[Wording] = Wording(
        "spike (VUs, a step up and back)", "the closed model at a level, a step to a multiple of it and back; "
        "the time the p99 takes to return within 10 % of its level before the spike", level_unit="VUs before the spike",
        axis_label="virtual users before the spike (VUs)", sweep_what="spike")
    v2_comparable: ClassVar[bool] = False
    sizes_open_rates: ClassVar[bool] = False

    @classmethod
    def at(cls, mode, vus: int, level: float, **options: object) -> SpikeLoad:
        factor = float(options.get("spike") or DEFAULT_FACTOR)  # type: ignore[arg-type]
        base = int(level)
        return cls(mode, max(base, round(base * factor)), base, factor)

    @property
    def level(self) -> float:
        return float(self.base_vus)

    @property
    def label(self) -> str:
        return f"{self.mode}-spike{self.factor:g}x{self.base_vus}vu"

    def _parts(self, timing: Timing) -> tuple[float, float, float]:
        d = timing.duration_s
        return d * BEFORE_SHARE, d * SPIKE_SHARE, d * AFTER_SHARE

    def stages(self, timing: Timing) -> list[Stage]:
        before, spike, after = self._parts(timing)
        base, peak = float(self.base_vus), float(self.vus)
        return [(timing.ramp_up_s, base), (timing.warmup_s + before, base), (0.0, peak), (spike, peak),
                (0.0, base), (after, base), (timing.ramp_down_s, 0.0)]

    def timeline(self, timing: Timing) -> Timing:
        # A fixed warm-up: the spike must come at a known time, not when an adaptive warm-up ends.
        return replace(timing, warmup_cap_s=None)

    def reported_stages(self, timing: Timing) -> list[StageSpan] | None:
        before, spike, after = self._parts(timing)
        start = timing.ramp_up_s + timing.warmup_s
        return spans(((before, self.base_vus), (spike, self.vus), (after, self.base_vus)), start, PARTS)

    def spike_span(self, timing: Timing) -> tuple[float, float] | None:
        before, spike, _ = self._parts(timing)
        start = timing.ramp_up_s + timing.warmup_s + before
        return start, start + spike

    @classmethod
    def littles_law(cls, samples: pd.DataFrame, window: tuple[float, float], vus: int,
                    think_time_s: float, iteration: tuple[str, ...] | None = None) -> dict[str, float] | None:
        # The window holds two populations (the level and the spike): no one VU count to compare with.
        return None

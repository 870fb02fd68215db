"""A staged load (`--load staged --stages 2m:10,3m:25,10m:50,2m:0`): the closed model following the user's
stages, as k6's `stages` and Locust's LoadTestShape give them, with figures for each stage (summary `stages`)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar, cast

import numpy as np
import pandas as pd

from mcpbench.loads.base import Stage, StageSpan, Wording
from mcpbench.loads.closed import ClosedLoad
from mcpbench.loads.timing import Timing

_UNIT_S = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h)")


def parse_duration(text: str) -> float:
    """Seconds of `90s`, `2m`, `1m30s`, `500ms` (the load driver's durations; a bare number is seconds)."""
    text = text.strip()
    if re.fullmatch(r"\d+(?:\.\d+)?", text):
        return float(text)
    parts = _DURATION.findall(text)
    if not parts or "".join(number + unit for number, unit in parts) != text:
        raise ValueError(f"{text!r} is no duration (e.g. 30s, 2m, 1m30s)")
    return sum(float(number) * _UNIT_S[unit] for number, unit in parts)


def parse_stages(text: str, option: str = "--stages") -> tuple[Stage, ...]:
    """`duration:target,...` (the driver's --stages): the stages, each checked. ValueError in one line."""
    stages = []
    for index, part in enumerate(text.split(","), 1):
        duration, colon, target = part.strip().partition(":")
        try:
            seconds, value = parse_duration(duration), float(target)
        except ValueError:
            raise ValueError(f"{option} {text!r}: stage {index} {part.strip()!r} is not duration:target "
                             "(e.g. 2m:10)") from None
        if not colon or value < 0 or value != int(value):
            raise ValueError(f"{option} {text!r}: stage {index} {part.strip()!r}: the target is a whole number "
                             "of VUs, 0 or more")
        stages.append((seconds, value))
    if sum(d for d, _ in stages) <= 0 or max(t for _, t in stages) < 1:
        raise ValueError(f"{option} {text!r}: the stages must last and reach at least 1 VU")
    return tuple(stages)


def spans(stages: tuple[Stage, ...], start_s: float = 0.0, names: tuple[str, ...] | None = None) -> list[StageSpan]:
    """Each stage of non-zero duration as a span of the test: its start, its end, the target it reaches."""
    out: list[StageSpan] = []
    at = start_s
    for index, (duration, target) in enumerate(stages):
        if duration > 0:
            out.append((at, at + duration, target, names[index] if names else f"stage {index + 1}"))
        at += duration
    return out


def level_at(stages: tuple[Stage, ...], t: np.ndarray) -> np.ndarray:
    """The target in force at each t (the driver's stages.level)."""
    level = np.zeros_like(t, dtype=float)
    at, before = 0.0, 0.0
    for duration, target in stages:
        inside = (t >= at) & (t < at + duration)
        if duration > 0:
            level[inside] = before + (target - before) * (t[inside] - at) / duration
        at += duration
        before = target
    return level


def running_span(stages: tuple[Stage, ...], offset_s: float = 0.0) -> tuple[float, float]:
    """Where at least one VU runs (to 10 ms): the window of a staged test, so a ramp from or to 0 leaves no idle
    second in it for the load generator's checks to take for a stall."""
    total = sum(d for d, _ in stages)
    t = np.arange(0.0, total, 0.01)
    running = t[np.floor(level_at(stages, t) + 1e-9) >= 1]
    return (offset_s + float(running[0]), offset_s + float(running[-1]) + 0.01) if len(running) else (0.0, total)


@dataclass(frozen=True)
class StagedLoad(ClosedLoad):
    """The closed model over the user's stages; `vus` is their largest target (the most VUs it runs)."""

    profile: tuple[Stage, ...] = ()

    kind: ClassVar[str] = "staged"
    words: ClassVar[Wording] = Wording(
        "staged load (VUs over stages)", "the closed model following a list of stages (duration, VUs), each "
        "moving linearly from the last one's VUs; figures for each stage", level_unit="VUs at the peak",
        axis_label="virtual users at the peak (VUs)", sweep_what="staged load")
    level_option: ClassVar[str] = "stages"
    v2_comparable: ClassVar[bool] = False
    sizes_open_rates: ClassVar[bool] = False

    @classmethod
    def at(cls, mode, vus: int, level: float, **options: object) -> StagedLoad:
        stages = options.get("stages")
        if not stages:
            raise ValueError("--load staged needs --stages, e.g. --stages 2m:10,3m:25,10m:50,2m:0")
        profile: tuple[Stage, ...] = tuple(cast("Iterable[Stage]", stages))
        return cls(mode, int(max(t for _, t in profile)), profile)

    @property
    def label(self) -> str:
        return f"{self.mode}-staged-" + "-".join(f"{d:g}s{t:g}" for d, t in self.profile)

    def stages(self, timing: Timing) -> list[Stage]:
        return list(self.profile)

    def timeline(self, timing: Timing) -> Timing:
        # Its own stages are the whole test: no ramp, no warm-up of the run's timing.
        return Timing(ramp_up_s=0, warmup_s=0, duration_s=sum(d for d, _ in self.profile), ramp_down_s=0,
                      think_time_s=timing.think_time_s, request_timeout_s=timing.request_timeout_s,
                      warmup_cap_s=None)

    def measured_window(self, timing: Timing, warmup_s: float) -> tuple[float, float]:
        return running_span(self.profile)

    def reported_stages(self, timing: Timing) -> list[StageSpan] | None:
        return spans(self.profile)

    @classmethod
    def littles_law(cls, samples: pd.DataFrame, window: tuple[float, float], vus: int,
                    think_time_s: float, iteration: tuple[str, ...] | None = None) -> dict[str, float] | None:
        # The population changes stage by stage: no one VU count for L = lambda x W to be compared with.
        return None

"""The closed model: a fixed number of VUs, each starting its next iteration (the workload's calls in order —
the lineup's three tool calls, then tools/list — then the think time) when its last one ended. The v2 study's
load."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import pandas as pd

if TYPE_CHECKING:  # config imports the kinds; the kinds need Timing only in annotations
    from mcpbench.loads.timing import Timing

from mcpbench.loads.base import LIST_TOOLS, Load, Model, Stage, Wording, in_window, ramp


@dataclass(frozen=True)
class ClosedLoad(Load):
    kind: ClassVar[str] = "closed"
    model: ClassVar[Model] = "closed"
    words: ClassVar[Wording] = Wording(
        "closed model (VUs)", "a fixed number of VUs, each starting its next iteration when its last one ended",
        level_unit="VUs", axis_label="virtual users (VUs)", sweep_what="concurrency")
    level_field: ClassVar[str] = "vus"
    level_option: ClassVar[str] = "vus"
    v2_comparable: ClassVar[bool] = True
    paced_by_think_time: ClassVar[bool] = True
    sizes_open_rates: ClassVar[bool] = True

    @property
    def level(self) -> float:
        return float(self.vus)

    @classmethod
    def at(cls, mode, vus: int, level: float, **options: object) -> ClosedLoad:
        return cls(mode, int(level))

    @property
    def label(self) -> str:
        return f"{self.mode}-{self.vus}vu"

    @classmethod
    def level_slug(cls, level: float, basis: str) -> str:
        return f"{level:g}vu"

    def stages(self, timing: Timing) -> list[Stage]:
        return ramp(timing, self.vus)

    @classmethod
    def sample_iterations(cls, samples: pd.DataFrame, iteration: tuple[str, ...] | None = None) -> int:
        end, times = iteration_end(iteration)  # every iteration ends with its last call's samples
        return int((samples["tool"] == end).sum()) // times

    @classmethod
    def littles_law(cls, samples: pd.DataFrame, window: tuple[float, float], vus: int,
                    think_time_s: float, iteration: tuple[str, ...] | None = None) -> dict[str, float] | None:
        """The VUs the generator ran should equal iterations/s x mean iteration time, where iterations/s = iterations
        whose tools/list sample ended in the window / window seconds, and iteration time = the sum of that
        iteration's sessions' session_ms (closed_iterations) + the think time, averaged over those same
        iterations. gap = |predicted - VUs| / VUs. What the formula leaves out (the generator's own time between
        sessions) makes `predicted` slightly low; a large gap means the VUs did not run the loop as
        configured (stalled or starved VUs)."""
        iterations = in_window(closed_iterations(samples, iteration), window)
        if iterations.empty or vus <= 0:
            return None
        iterations_per_s = len(iterations) / (window[1] - window[0])
        iteration_s = float(iterations["busy_ms"].mean()) / 1000.0 + think_time_s
        predicted = iterations_per_s * iteration_s
        return {"vus": float(vus), "predicted": float(predicted), "gap": abs(predicted - vus) / vus,
                "iterations_per_s": float(iterations_per_s), "mean_iteration_s": iteration_s}


def iteration_end(iteration: tuple[str, ...] | None) -> tuple[str, int]:
    """The name of the samples that end an iteration, and how many of them it holds (a last call of weight
    2 writes two): the lineup's iteration ends with one tools/list."""
    if not iteration:
        return LIST_TOOLS, 1
    return iteration[-1], iteration.count(iteration[-1])


def closed_iterations(samples: pd.DataFrame, iteration: tuple[str, ...] | None = None) -> pd.DataFrame:
    """The closed model's iterations, one row each: the VU, the time its last sample ended it (t_s) and its
    busy time (busy_ms).

    The generator runs, per VU and iteration, one session per call of the workload (the lineup's: one per
    tool, then tools/list), then sleeps the think time; a failed session does not end the iteration. So a
    VU's samples, in the order it wrote them (its console lines are in order; times alone can tie at ms
    resolution), split into iterations after the iteration's last call (iteration_end), and an iteration's
    busy time is the sum of its sessions' session_ms. Only iterations that reached their end are returned
    (the last samples of a VU stopped mid-iteration form none).
    """
    columns = ["vu", "t_s", "busy_ms", "sessions"]
    if samples.empty:
        return pd.DataFrame(columns=columns)
    end, times = iteration_end(iteration)
    frame = samples[["vu", "tool", "t_s", "session_ms"]].reset_index(drop=True)
    is_end = (frame["tool"] == end).astype(int)
    seen = is_end.groupby(frame["vu"]).cumsum()  # end samples the VU has written up to this one
    ends = ((is_end == 1) & (seen % times == 0)).astype(int)  # the one that completes an iteration
    # iteration number within the VU: how many iterations the VU completed before this sample
    frame["iteration"] = (seen - is_end) // times
    frame["ends"] = ends
    grouped = frame.groupby(["vu", "iteration"], sort=False)
    iterations = grouped.agg(busy_ms=("session_ms", "sum"), sessions=("session_ms", "size"),
                             ended=("ends", "max"), t_s=("t_s", "last")).reset_index()
    return iterations.loc[iterations["ended"] == 1, columns].reset_index(drop=True)

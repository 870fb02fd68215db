"""The open model: the load generator starts iterations (one tool call each, the tools in turn) at a fixed arrival rate
whatever the server does; an iteration that finds no free VU is dropped and counted."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import pandas as pd

if TYPE_CHECKING:  # config imports the kinds; the kinds need Timing only in annotations
    from mcpbench.loads.timing import Timing

from mcpbench.loads.base import Load, Model, RecordedLoad, Stage, Wording, in_window, ramp

# The open model may grow to this many times its pre-allocated VUs (the driver's --max-vus, k6's maxVUs).
MAX_VUS_FACTOR = 4


@dataclass(frozen=True)
class OpenLoad(Load):
    rate: float = 0.0                    # tool calls per second offered
    rate_fraction: float | None = None   # the fraction of round 1's closed rate it was set from
    # Equal load: the same rate offered to every server of the run, this fraction of the slowest server's
    # round-1 closed rate (analysis/equal_load.py); None when the rate was given or set per server.
    equal_fraction: float | None = None

    kind: ClassVar[str] = "open"
    model: ClassVar[Model] = "open"
    words: ClassVar[Wording] = Wording(
        "open model (arrival rate)", "the load generator starts iterations at a fixed rate whatever the "
        "server does; an iteration that finds no free VU is dropped and counted",
        level_unit="iterations/s (offered)", axis_label="offered arrival rate (iterations/s)",
        sweep_what="arrival rate")
    level_field: ClassVar[str] = "rate"
    level_option: ClassVar[str] = "rate"
    drops_iterations: ClassVar[bool] = True

    @property
    def level(self) -> float:
        if self.equal_fraction is not None:
            return self.equal_fraction
        return self.rate_fraction if self.rate_fraction is not None else self.rate

    @classmethod
    def at(cls, mode, vus: int, level: float, **options: object) -> OpenLoad:
        return cls(mode, vus, float(level))

    @property
    def label(self) -> str:
        # Named by fraction, not rate: the rate is fixed after round 1, and every round's measurement of
        # that fraction must pool under one name.
        if self.equal_fraction is not None:
            load = f"equal{self.equal_fraction:g}"
        elif self.rate_fraction is not None:
            load = f"open{self.rate_fraction:g}"
        else:
            load = f"rate{self.rate:g}"
        return f"{self.mode}-{load}"

    def recorded(self) -> RecordedLoad:
        return super().recorded().model_copy(update={"rate": self.rate, "rate_fraction": self.rate_fraction,
                                                     "equal_fraction": self.equal_fraction})

    @classmethod
    def level_of(cls, recorded: RecordedLoad) -> tuple[float, str] | None:
        # Rates set from a fraction of round 1's closed maximum pool by that fraction (they differ a little
        # between runs), an equal load by its fraction of the slowest server's; a rate given directly is its
        # own level.
        if recorded.equal_fraction is not None:
            return recorded.equal_fraction, "equal"
        if recorded.rate_fraction is not None:
            return recorded.rate_fraction, "fraction"
        return super().level_of(recorded)

    @classmethod
    def level_text(cls, level: float, basis: str) -> str:
        return {"fraction": f"{level * 100:g} % of round-1 max",
                "equal": f"equal load, {level * 100:g} % of the slowest"}.get(basis, f"{level:g} it/s")

    @classmethod
    def level_slug(cls, level: float, basis: str) -> str:
        return {"fraction": f"{level * 100:g}pct", "equal": f"{level * 100:g}equal"}.get(basis, f"{level:g}rate")

    @classmethod
    def unit_of(cls, basis: str) -> str:
        return {"fraction": "% of round 1's closed maximum (offered)",
                "equal": "% of the slowest server's round-1 closed rate (offered to every server)"}.get(
                    basis, cls.words.level_unit)

    @classmethod
    def equal_load(cls, basis: str) -> bool:
        # Every server of the level was offered the same rate: a given rate, or the run's equal load.
        return basis in ("abs", "equal")

    def stages(self, timing: Timing) -> list[Stage]:
        return ramp(timing, self.rate)

    @classmethod
    def max_vus(cls, vus: int) -> int:
        return vus * MAX_VUS_FACTOR

    @classmethod
    def sample_iterations(cls, samples: pd.DataFrame, iteration: tuple[str, ...] | None = None) -> int:
        return len(samples)  # one call per iteration

    @classmethod
    def littles_law(cls, samples: pd.DataFrame, window: tuple[float, float], vus: int,
                    think_time_s: float, iteration: tuple[str, ...] | None = None) -> dict[str, float] | None:
        """L = arrival rate (samples ended in the window / s) x mean session time = the mean number of
        calls in flight (no fixed population to compare it with, so no gap)."""
        inside = in_window(samples, window)
        session_s = inside["session_ms"].dropna().mean() / 1000.0
        if inside.empty or not math.isfinite(session_s):
            return None
        arrivals = len(inside) / (window[1] - window[0])
        return {"arrivals_per_s": float(arrivals), "mean_session_s": float(session_s),
                "in_flight": float(arrivals * session_s)}

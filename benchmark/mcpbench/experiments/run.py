"""`mcpbench run`: fixed loads in interleaved rounds — per server and round, every load of the chosen kind at
each level (a VU sweep by default), in each mode, on a fresh start each; then the open model at fractions of
round 1's closed maximum (`--open`)."""

from __future__ import annotations

import random
from typing import Any, Optional

from mcpbench.catalog.manifest import ServerSpec
from mcpbench.experiments.base import Experiment
from mcpbench.experiments.config import FULL_ROUNDS, RunConfig
from mcpbench.experiments.options import (CALIBRATION, LOAD, MEASURING, QUICK, Option, csv, duration, kind_name,
                                          resource_profile_of)
from mcpbench.scenarios import KINDS, MODE_TRANSPORT, ClosedLoad, OpenLoad
from mcpbench.scenarios.timing import FULL_TIMING, QUICK_TIMING, Timing


def warmup(value: str | None, base: Timing) -> tuple[float, float | None]:
    """--warmup auto (steady-state detection between the profile's bounds) or a fixed number of seconds."""
    if value is None or value == "auto":
        return base.warmup_s, base.warmup_cap_s
    try:
        return float(value), None
    except ValueError:
        raise ValueError(f"--warmup takes 'auto' or seconds, got {value!r}") from None


# The timing options of every experiment that holds fixed loads (run, and experiments built like it).
TIMING = (
    Option("duration", Optional[str], None, "Measured time: seconds or 90s, 5m (default 300 s; quick 15 s)."),
    Option("warmup", Optional[str], None, "'auto' (default): warm up until throughput and latency are steady, "
           "full 30-180 s, quick 10-60 s; or fixed seconds."),
    Option("ramp_up", Optional[float], None, "Ramp-up seconds, excluded (default 15)."),
    Option("ramp_down", Optional[float], None, "Ramp-down seconds, excluded (default 10)."),
    Option("think", Optional[float], None, "Think time per iteration (default 0.05 s)."),
)


def timing_of(values: dict[str, Any]) -> Timing:
    """The load's timeline from the TIMING and QUICK options."""
    base = QUICK_TIMING if values.get("quick") else FULL_TIMING
    warmup_s, warmup_cap_s = warmup(values.get("warmup"), base)
    measured = duration(values.get("duration"))
    return Timing(
        ramp_up_s=base.ramp_up_s if values.get("ramp_up") is None else values["ramp_up"],
        warmup_s=warmup_s, warmup_cap_s=warmup_cap_s,
        duration_s=base.duration_s if measured is None else measured,
        ramp_down_s=base.ramp_down_s if values.get("ramp_down") is None else values["ramp_down"],
        think_time_s=base.think_time_s if values.get("think") is None else values["think"],
    )


class RunExperiment(Experiment):
    name = "run"
    help = ("Measure servers in interleaved rounds: for each, reset Redis, start, verify, warm up, measure, "
            "stop, record.")
    options = (*MEASURING, *CALIBRATION, *LOAD, *QUICK, *TIMING,
               Option("runs", Optional[int], None,
                      f"Rounds: each measures every server once, interleaved (default: quick 1, full {FULL_ROUNDS})."),
               Option("shuffle", bool, True, "A new random server order in every round.", ("--shuffle/--no-shuffle",)),
               Option("transport", str, "http", "http, or stdio: the servers' [stdio] commands driven by the load "
                      "driver (same as --mode stdio; --mode stateless,stdio measures both side by side)."),
               Option("load", str, ClosedLoad.kind, f"The kind of load at each level: {', '.join(KINDS)} (closed: "
                      "the levels are --vus; open: --rate).", check=kind_name),
               Option("rate", Optional[str], None, "With --load open: offered rates, tool calls/s (e.g. 200,400)."),
               Option("open_fractions", Optional[str], None, "Open model too: arrival-rate runs at these fractions "
                      "of round 1's measured closed maximum, e.g. 0.5,0.8.", ("--open",)))

    def configure(self, values: dict[str, Any], specs: list[ServerSpec]) -> RunConfig:
        transport = values.get("transport", "http")
        if transport not in ("http", "stdio"):
            raise ValueError(f"--transport {transport!r}: choose http or stdio")
        kind = values.get("load", ClosedLoad.kind)
        rates = csv(values.get("rate"), float, "--rate")
        if kind == OpenLoad.kind and not rates:
            raise ValueError("--load open needs --rate, e.g. --rate 200,400")
        if rates and kind != OpenLoad.kind:
            raise ValueError("--rate sets the open model's levels: give it with --load open")
        return RunConfig(
            runtime=values["runtime"], servers=tuple(s.name for s in specs),
            modes=("stdio",) if transport == "stdio" else csv(values["mode"], str, "--mode"),
            vus=csv(values["vus"], int, "--vus"),
            runs=values.get("runs") or (1 if values.get("quick") else FULL_ROUNDS),
            shuffle=values.get("shuffle", True), timing=timing_of(values), profile=resource_profile_of(values),
            rate_fractions=csv(values.get("open_fractions"), float, "--open"), kind=kind, rates=rates,
            build=not values["no_build"], calibrate=not values.get("no_calibrate"),
            load_generator=values["load_generator"], load_instances=values["load_instances"])

    @property
    def closed_model_used(self) -> bool:
        return self.config.kind == ClosedLoad.kind and any(MODE_TRANSPORT[m] == "http" for m in self.config.modes)

    @property
    def open_model_used(self) -> bool:
        return bool(self.config.rate_fractions) or self.config.kind == OpenLoad.kind

    def measure_server(self, server) -> None:
        loads = [load for load in self.config.loads() if load.mode in server.modes]
        if self.config.shuffle:
            random.shuffle(loads)  # modes and levels in a new order too: no mode always runs first on a fresh server
        for load in loads:
            with server.started(load.label, MODE_TRANSPORT[load.mode]) as started:
                server.measure(started, load)
        for fraction in self.config.rate_fractions:
            for mode in server.modes:
                # The rate is fixed from round 1's closed maximum, so every round offers the same load.
                best = server.best_closed_rate(mode)
                if not best:
                    self.console.print(f"  [yellow]{server.name}: no round-1 closed rate for {mode}; "
                                       f"open model at {fraction:g} skipped[/]")
                    continue
                load = OpenLoad(mode, max(self.config.vus), round(best * fraction, 1), fraction)
                with server.started(load.label) as started:
                    server.measure(started, load)

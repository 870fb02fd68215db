"""`mcpbench run`: fixed loads in interleaved rounds — per server and round, every load of the chosen kind at
each level (a VU sweep by default), in each mode, on a fresh start each; then the open model at fractions of
round 1's closed maximum (`--open`); and an equal load, the same offered rate for every server
(`--equal-load`, `--equal-rate`: analysis/equal_load.py)."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import ClassVar, Optional

from mcpbench.analysis import sequential, slo
from mcpbench.analysis.equal_load import DEFAULT_FRACTION, choose_rate, rate_text
from mcpbench.catalog.manifest import ServerSpec
from mcpbench.experiments.base import Experiment
from mcpbench.experiments.config import RunConfig
from mcpbench.experiments.options import (
    CALIBRATION,
    LOAD,
    MEASURING,
    QUICK,
    Option,
    Values,
    csv,
    duration,
    kind_name,
)
from mcpbench.experiments.stopping import Headline, StoppingRule
from mcpbench.loads import DEFAULT_KIND, KINDS, MODE_TRANSPORT, Mode, OpenLoad
from mcpbench.loads.staged import parse_stages
from mcpbench.loads.timing import FULL_TIMING, QUICK_TIMING, SIZING_WINDOW_S, Timing
from mcpbench.results.assertions import ASSERTIONS_SCHEMA, AssertionResult, Assertions
from mcpbench.results.model import EqualRate, Summary


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
    Option("request_timeout", Optional[float], None, "Seconds a request may take before the load generator gives "
           "up on it (default 30): a timed-out call counts at this in all-calls latency, and a server that leaves "
           "calls unanswered this long has stopped answering (docs/faults.md)."),
)


def timing_of(values: Values) -> Timing:
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
        request_timeout_s=base.request_timeout_s if values.get("request_timeout") is None
        else values["request_timeout"],
        steady_span_s=base.steady_span_s,
    )


ASSERT = Option("assert_", Optional[str], None, "Criteria every server must meet at every level, judged on the "
                "median over its rounds: p50…p999<N ms (all calls), errors<N %, cpu_ms_per_call<N, e.g. "
                f"'{slo.EXAMPLE}' (capacity --slo's grammar); each outcome printed and written to "
                "assertions.json and assertions.junit.xml; exit 1 when one fails.", ("--assert",), metavar="'SLO'")


class RunExperiment(Experiment):
    name = "run"
    order = 20
    help = ("Measure servers in interleaved rounds: for each, reset Redis, start, verify, warm up, measure, "
            "stop, record.")
    options: ClassVar[tuple[Option, ...]] = (*MEASURING, *CALIBRATION, *LOAD, *QUICK, *TIMING,
               Option("runs", Optional[str], None,
                      "Rounds, each measuring every server once, interleaved: a number, or 'auto' (the full profile's "
                      "default): from round 3 on, stop once every adjacent pair of the headline ranking is ordered or "
                      f"equivalent within {sequential.MARGIN:.0%} (alpha spent over the looks). Default quick 1.",
                      ("--rounds", "--runs")),
               Option("max_rounds", int, sequential.DEFAULT_MAX_ROUNDS, "--rounds auto: at most this many rounds.",
                      minimum=sequential.MIN_ROUNDS),
               Option("time_budget", Optional[str], None, "--rounds auto: start no round after this much time "
                      "(seconds or 30m, 1.5h)."),
               Option("shuffle", bool, True, "A new random server order in every round.", ("--shuffle/--no-shuffle",)),
               Option("transport", str, "http", "http, or stdio: the servers' [stdio] commands driven by the load "
                      "load driver (same as --mode stdio; --mode stateless,stdio measures both side by side)."),
               Option("load", str, DEFAULT_KIND, f"The kind of load at each level: {', '.join(KINDS)} (each "
                      "reads its levels from the option it names: closed --vus, open --rate).", check=kind_name),
               Option("rate", Optional[str], None, "With --load open: offered rates, tool calls/s (e.g. 200,400)."),
               Option("stages", Optional[str], None, "With --load staged: the stages, duration:VUs each moving "
                      "linearly from the last (0 s: a step), e.g. 2m:10,3m:25,10m:50,2m:0; figures per stage."),
               Option("spike", Optional[float], None, "With --load spike: the spike's multiple of the level "
                      "(--vus), default 4; the p99's recovery time after it is recorded."),
               Option("open_fractions", Optional[str], None, "Open model too: arrival-rate runs at these fractions "
                      "of round 1's measured closed maximum, e.g. 0.5,0.8.", ("--open",)),
               Option("equal_load", Optional[float], None, "Equal load too: every server offered the same rate, this "
                      f"fraction of the slowest server's round-1 closed rate (e.g. {DEFAULT_FRACTION}), capped below "
                      "the harness's open-model capacity; ranked on CPU ms per call and p50/p99."),
               Option("closed_once", bool, False, "With --equal-load: the closed model in round 1 only, where it "
                      "sizes the equal load (its throughput is then one round, never ranked); later rounds measure "
                      "the equal load alone. The quick first-run profile uses it to keep three rounds short.",
                      ("--closed-once/--closed-every-round",)),
               Option("equal_rate", Optional[str], None, "Equal load too, at these offered rates (tool calls/s, "
                      "e.g. 100,300): a server that cannot keep up is shown with the rate it reached."),
               Option("prewarm", Optional[float], None, "Seconds of the closed model at the load's VUs on the same "
                      "start before each open-model load (an equal load, --rate, --open), nothing of it kept but its "
                      "rate: a JIT compiles with work, not with time (at a low equal rate a JVM still compiles a "
                      "minute in). The measured load's warm-up follows and waits for the server's CPU to settle."),
               Option("processes", bool, False, "Read the server's processes at 1 Hz beside each measurement "
                      "(processes.csv: RSS, open files, threads, TCP sockets and those in CLOSE_WAIT)."),
               ASSERT,
               Option("resume", Optional[Path], None, "Continue this interrupted or abandoned run directory with the "
                      "options it was started with: finished measurements are kept, the rounds keep their order "
                      "(experiments/resume.py)."))

    # Whether a host-disturbed measurement is retaken (ServerRound.measure_load): its figures move with the host.
    retakes = True

    def criteria(self, values: Values) -> None:
        """--assert's criteria (SloError, a ValueError, on a bad one) and where the rounds' summaries are kept."""
        given = values.get("assert_")
        self.asserted = given
        self.asserts = slo.parse_slo(given, "--assert") if given else ()
        self.assertions: Assertions | None = None
        # (server, level) -> round -> its summary as the round keeps it (a retake's when the host disturbed one)
        self.measured: dict[tuple[str, str], dict[int, Summary]] = defaultdict(dict)

    def configure(self, values: Values, specs: list[ServerSpec]) -> RunConfig:
        self.criteria(values)
        transport = values.get("transport", "http")
        if transport not in ("http", "stdio"):
            raise ValueError(f"--transport {transport!r}: choose http or stdio")
        kind = values.get("load", DEFAULT_KIND)
        chosen = KINDS[kind_name(kind)]
        rates = csv(values.get("rate"), float, "--rate")
        if chosen.level_option == "rate" and not rates:
            raise ValueError(f"--load {kind} needs --rate, e.g. --rate 200,400")
        if rates and chosen.level_option != "rate":
            raise ValueError("--rate sets the open model's levels: give it with --load open")
        if values.get("equal_load") is not None and (not chosen.sizes_open_rates or transport != "http"):
            raise ValueError("--equal-load is set from the slowest server's closed-model rate over HTTP: "
                             "give it with the closed model (--load closed) and HTTP modes")
        self.equal_rates: dict[str, EqualRate] = {}  # the equal load's rate per HTTP mode, set after round 1
        rounds = values.get("runs") or ("1" if values.get("quick") else "auto")
        auto = rounds == "auto"
        if not auto and not rounds.isdigit():
            raise ValueError(f"--rounds takes a number or 'auto', got {rounds!r}")
        config = RunConfig.from_options(
            values, specs, timing_of(values), modes=("stdio",) if transport == "stdio" else None,
            runs=values.get("max_rounds", sequential.DEFAULT_MAX_ROUNDS) if auto else int(rounds),
            shuffle=values.get("shuffle", True), load=kind,
            rate_fractions=csv(values.get("open_fractions"), float, "--open"),
            rounds_auto=auto, time_budget_s=duration(values.get("time_budget"), "--time-budget") if auto else None,
            rates=rates, equal_load=values.get("equal_load"),
            equal_rates=csv(values.get("equal_rate"), float, "--equal-rate"),
            closed_once=values.get("closed_once", False), stacks_only=values.get("stacks_only", False),
            first_run=values.get("first_run", False),
            prewarm_s=values.get("prewarm"), spike=values.get("spike"), processes=values.get("processes", False),
            stages=parse_stages(values["stages"]) if values.get("stages") else ())
        if values.get("time_budget") and not auto:
            raise ValueError("--time-budget caps --rounds auto: give it with --rounds auto")
        self.stopping = StoppingRule(self.headline(config), config.runs, config.time_budget_s) if auto else None
        return config

    @staticmethod
    def headline(config: RunConfig) -> Headline:
        """The ranking --rounds auto watches: the equal load's CPU per call when there is one (the ranking valid
        for every server on one machine), else the throughput at the largest load of the first mode."""
        mode = next((m for m in config.modes if MODE_TRANSPORT[m] == "http"), config.modes[0])
        vus = max(config.vus)
        if MODE_TRANSPORT[mode] == "http" and config.equal_load is not None:
            return Headline(OpenLoad(mode, vus, 1.0, equal_fraction=config.equal_load).label,
                            "cpu_ms_per_call", False)
        rates = config.equal_rates or config.rates
        if MODE_TRANSPORT[mode] == "http" and rates:
            return Headline(OpenLoad(mode, vus, rates[0]).label, "cpu_ms_per_call", False)
        return Headline(KINDS[config.load].at(mode, vus, max(config.levels), **config.load_options).label,
                        "tool_calls_per_s", True)

    def more_rounds(self, runner, round_index: int) -> bool:
        if self.stopping is None:
            return super().more_rounds(runner, round_index)
        more, line = self.stopping.more(round_index, runner.elapsed_s, runner.record.run.rounds or [])
        runner.record.set_rounds_auto(self.stopping.record)
        if line:
            self.console.print(f"[bold]Rounds auto:[/] {line}")
        return more

    def _measure(self, server, load, timing: Timing | None = None) -> None:
        """One load on the server; a retake the host disturbed again is measured at the end of its pass, and
        noted for --rounds auto then. A sizing load is retaken too: one low reading sets every server's rate."""
        def note(summary: Summary) -> None:
            self.noted(server.name, load.label, server.round, summary)

        summary = server.measure_load(load, timing, prewarm_s=self.config.prewarm_s and self.config.prewarm_for(load),
                                      later=note, retake=self.retakes)
        if summary is not None:
            note(summary)

    def noted(self, server: str, label: str, round_index: int, summary: Summary) -> None:
        """A load's summary as the round keeps it (after any retake): --rounds auto's stopping rule and
        --assert read them."""
        self.measured[(server, label)][round_index] = summary
        if self.stopping is not None:
            self.stopping.note(server, label, round_index, summary)

    def judge_assertions(self, runner) -> Assertions | None:
        """--assert's outcomes over what was measured, printed and written (None: no --assert)."""
        if not self.asserts or runner.record is None:
            return None
        found = slo.assertions(self.asserts, self.measured)
        self.assertions = Assertions(
            schema=ASSERTIONS_SCHEMA, run_id=runner.record.run.run_id, given=self.asserted or "",
            results=[AssertionResult(server=a.server, level=a.level, criterion=a.criterion.text, value=a.value,
                                     by_round=a.by_round, outcome=a.outcome, text=a.text) for a in found])
        paths = self.assertions.write(runner.run_dir.path)
        for result in self.assertions.results:
            colour = {"pass": "green", "fail": "red"}.get(result.outcome, "yellow")
            self.console.print(f"[{colour}]assert[/] {result.text}", highlight=False)
        self.console.print("Assertions: " + ", ".join(str(p) for p in paths.values()), highlight=False)
        return self.assertions

    def conclude(self, runner) -> None:
        self.judge_assertions(runner)

    def exit_code(self, runner) -> int | None:
        """1 when an assertion failed, else the run's own."""
        return 1 if self.assertions is not None and self.assertions.failed else None

    @property
    def sizing_timing(self) -> Timing:
        """--closed-once's closed load only sizes the equal load (its one round of throughput is never ranked):
        a fixed warm-up of the profile's minimum rather than the adaptive one, which at saturation took 20-49 s
        of the quick profile's 10-60 s per server (issue 21). A server not yet warm reads slower, so the
        equal rate errs low: every server still keeps up with it. Not shorter until interleaved runs say it
        reads as well: the one first run with a 5 s warm-up set the equal rate at 59.6 calls/s where earlier
        runs had ~180 (docs/first-run-profile.md). Its window is at most SIZING_WINDOW_S and it has no
        ramp-down: a saturated closed model's rate needs neither (loads/timing.py)."""
        timing = self.config.timing
        return replace(timing, warmup_cap_s=None, duration_s=min(timing.duration_s, SIZING_WINDOW_S), ramp_down_s=0)

    def closed_model_in(self, mode: Mode) -> bool:
        return KINDS[self.config.load].model == "closed"

    def highest_open_rate(self, mode: Mode) -> float | None:
        if self.config.rate_fractions or self.config.equal_load is not None:
            return None  # rates set from round 1's closed rates
        rates = [load.rate for load in self.config.loads() if isinstance(load, OpenLoad) and load.mode == mode]
        rates += list(self.config.equal_rates or ()) if MODE_TRANSPORT[mode] == "http" else []
        return max(rates) if rates else None

    def open_model_in(self, mode: Mode) -> bool:
        # the equal load is measured in HTTP modes only (equal_loads)
        return (bool(self.config.rate_fractions) or KINDS[self.config.load].model == "open"
                or (self.config.equal and MODE_TRANSPORT[mode] == "http"))

    def http_modes(self, modes: Iterable[Mode]) -> list[Mode]:
        return [m for m in modes if MODE_TRANSPORT[m] == "http"]

    def equal_loads(self, modes) -> list[OpenLoad]:
        """The equal loads in these modes: every --equal-rate, and --equal-load once its rate is set."""
        vus = max(self.config.vus)
        loads = [OpenLoad(mode, vus, rate) for mode in self.http_modes(modes) for rate in self.config.equal_rates or ()]
        for mode in self.http_modes(modes):
            chosen = self.equal_rates.get(mode)
            if chosen:
                loads.append(OpenLoad(mode, vus, chosen.rate, equal_fraction=chosen.fraction))
        return loads

    def measure_server(self, server) -> None:
        loads = [load for load in self.config.loads(server.round) if load.mode in server.modes]
        loads += self.equal_loads(server.modes)
        if self.config.shuffle:
            random.shuffle(loads)  # modes and levels in a new order too: no mode always runs first on a fresh server
        for load in loads:
            self._measure(server, load, self.sizing_timing if self.config.sizes_equal_load(load) else None)
        for fraction in self.config.rate_fractions or ():
            for mode in server.modes:
                # The rate is fixed from round 1's closed maximum, so every round offers the same load.
                best = server.best_closed_rate(mode)
                if not best:
                    self.console.print(f"  [yellow]{server.name}: no round-1 closed rate for {mode}; "
                                       f"open model at {fraction:g} skipped[/]")
                    continue
                load = OpenLoad(mode, max(self.config.vus), round(best * fraction, 1), fraction)
                self._measure(server, load)

    def after_round(self, runner, round_index: int) -> None:
        """After round 1 (--equal-load): the equal rate of each HTTP mode, recorded, then round 1's pass of it
        (later rounds measure it with their other loads)."""
        fraction = self.config.equal_load
        if fraction is None or round_index != 1:
            return
        self.equal_rates = {}
        recorded = runner.record.run.equal_load or {}  # a resumed run keeps the rate it measured at
        for mode in self.http_modes(self.config.modes):
            chosen = recorded[mode] if mode in recorded else \
                choose_rate(fraction, runner.closed_rates(mode), runner.harness_capacity(mode))
            if chosen is None:
                self.console.print(f"[yellow]Equal load ({mode}): no server has a round-1 closed rate; not measured[/]")
                continue
            self.equal_rates[mode] = chosen
            self.console.print(f"[bold]Equal load ({mode}):[/] {rate_text(chosen)}")
        runner.record.set_equal_load(self.equal_rates)
        if self.equal_rates:
            self.console.print("[bold]Round 1, equal load:[/] every server at the same rate")
            runner.each_server(1, self._measure_equal)

    def _measure_equal(self, server) -> None:
        for load in self.equal_loads(server.modes):
            if load.equal_fraction is None:
                continue  # a given --equal-rate was measured with round 1's other loads
            self._measure(server, load)


EXPERIMENT = RunExperiment

"""`mcpbench capacity`: capacity under an SLO — per server, round and mode, an open-model step ladder on one
start of the server, raised until a step breaks the SLO, the server stops keeping up, or the offered rate nears
the harness's open-model capacity (analysis/capacity.py has the ladder, the SLO and the verdicts)."""

from __future__ import annotations

from statistics import median
from typing import Optional

from rich.table import Table

from mcpbench.analysis.capacity import (
    DEFAULT_SLO,
    FULL_FIRST_WARMUP_S,
    FULL_STEP,
    QUICK_FIRST_WARMUP_S,
    QUICK_STEP,
    Plan,
    instances_for,
    judge,
    ladder_verdict,
)
from mcpbench.analysis.slo import parse_slo
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
    duration,
    modes_of,
)
from mcpbench.loads import MODE_TRANSPORT, Mode, OpenLoad
from mcpbench.loads.timing import Timing
from mcpbench.results.model import CAPACITY_FILE, SCHEMA, Capacity, CapacityRound, CapacityStep, document
from mcpbench.results.write import write_checked


class CapacityExperiment(Experiment):
    name = "capacity"
    order = 30
    help = ("Capacity under an SLO: an open-model step test per server, raised until the SLO breaks, the server "
            "saturates or the offered rate nears the harness's open-model capacity (a lower bound then); the "
            "highest passing step is its capacity.")
    options = (*MEASURING, *CALIBRATION, *LOAD, *QUICK,
               Option("slo", str, DEFAULT_SLO, "Criteria every step must meet: p50/p90/p95/p99/p999<N ms, errors<N %."),
               Option("start_rate", float, 50.0, "The first step's arrival rate, tool calls/s."),
               Option("factor", float, 1.25, "Each step's rate is the one before times this."),
               Option("max_steps", int, 20, "The most steps per ladder."),
               Option("step_duration", Optional[str], None,
                      "Measured time per step: seconds or 30s (quick 10, full 30)."),
               Option("target_rate", Optional[float], None,
                      "Size a deployment: instances of each stack for this many tool calls/s."),
               Option("runs", int, 1, "Rounds: a ladder per server each, in a new order."))

    def open_model_in(self, mode: Mode) -> bool:
        return True  # every step is open-model: judged against the harness's open-model capacity

    def configure(self, values: Values, specs: list[ServerSpec]) -> RunConfig:
        quick = values.get("quick", False)
        base = QUICK_STEP if quick else FULL_STEP
        step = Timing(base.ramp_up_s, base.warmup_s, duration(values.get("step_duration"), "--step-duration")
                      or base.duration_s, base.ramp_down_s, warmup_cap_s=None)
        self.plan = Plan(parse_slo(values.get("slo", DEFAULT_SLO)), values.get("start_rate", 50.0),
                         values.get("factor", 1.25), values.get("max_steps", 20), step,
                         QUICK_FIRST_WARMUP_S if quick else FULL_FIRST_WARMUP_S)
        self.target_rate = values.get("target_rate")
        if self.target_rate is not None and self.target_rate <= 0:
            raise ValueError("--target-rate must be positive")
        modes = modes_of(values, specs)
        if any(MODE_TRANSPORT.get(m) == "stdio" for m in modes):
            raise ValueError("--mode stdio: a capacity ladder is measured over HTTP; "
                             "use `mcpbench run --transport stdio`")
        self.capacities: dict[str, Capacity] = {}  # server -> capacity.json
        return RunConfig.from_options(values, specs, step, modes=modes, runs=values.get("runs", 1), load=OpenLoad.kind,
                                      capacity=self.plan.recorded)

    def measure_server(self, server) -> None:
        for mode in server.modes:
            # One start per ladder: the first step's warm-up warms the server for all of them.
            with server.started(f"capacity-{mode}") as started:
                steps: list[CapacityStep] = []
                for step in range(self.plan.max_steps):
                    load = OpenLoad(mode, max(self.config.vus), self.plan.rate(step))
                    summary = server.measure(started, load, self.plan.timing(step), label=load.label, quiet=True)
                    verdict = judge(summary, load, self.plan.slo, server.harness_capacity(mode),
                                    server.directory(load.label).name)
                    steps.append(verdict)
                    self._print_step(server.name, verdict)
                    if verdict.stop:
                        break
            self._record_capacity(server, mode, steps)

    def _record_capacity(self, server, mode: str, steps: list[CapacityStep]) -> None:
        entry = ladder_verdict(mode, server.round, steps, self.plan.max_steps)
        result = self.capacities.setdefault(server.name, Capacity(schema=SCHEMA, server=server.name,
                                                                  plan=self.plan.recorded, rounds=[]))
        result.rounds.append(entry)
        write_checked(server.runner.run_dir.server(server.name).result(CAPACITY_FILE), document(result))
        capacity = entry.capacity_calls_per_s
        self.console.print(f"  [bold]{server.name}[/] {mode} round {server.round}: capacity "
                           + (f"{'≥ ' if entry.lower_bound else ''}{capacity:g} calls/s" if capacity
                              else "below the first step" if entry.below_first_step else "unknown")
                           + f" — stopped by {entry.stopped_by}")

    def _print_step(self, server: str, step: CapacityStep) -> None:
        def ms(value: float | None) -> str:
            return f"{value:.1f}" if value is not None else "—"

        mark = "[green]pass[/]" if step.passed else "[red]fail[/]"
        self.console.print(
            f"  {server} step {step.rate_offered:g} calls/s: achieved {step.rate_achieved:.1f}, p50/p95/p99 "
            f"{ms(step.p50_ms)}/{ms(step.p95_ms)}/{ms(step.p99_ms)} ms, errors {step.error_rate or 0:.2%}, "
            f"dropped {step.dropped_iterations}, CPU {step.cpu_avg_pct or 0:.0f} % {mark}")

    def conclude(self, runner) -> None:
        """The capacities, per server and mode (the median over rounds), and the instances for --target-rate."""
        if not self.capacities:
            return
        table = Table(title="capacity (highest passing step, tool calls/s)")
        columns = ("server", "mode", "per round", "median", "stopped by") + (("instances",) if self.target_rate else ())
        for column in columns:
            table.add_column(column)
        for server, result in self.capacities.items():
            by_mode: dict[str, list[CapacityRound]] = {}
            for entry in result.rounds:
                by_mode.setdefault(entry.mode, []).append(entry)
            for mode, entries in by_mode.items():
                values = [e.capacity_calls_per_s or 0.0 for e in entries]
                middle = median(values)
                row = [server, mode, ", ".join(f"{v:g}" for v in values), f"{middle:g}",
                       "; ".join(dict.fromkeys(e.stopped_by for e in entries))]
                if self.target_rate:
                    needed = instances_for(self.target_rate, middle)
                    row.append("—" if needed is None else str(needed))
                table.add_row(*row)
        self.console.print(table)


EXPERIMENT = CapacityExperiment

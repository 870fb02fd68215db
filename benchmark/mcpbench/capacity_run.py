"""`mcpbench capacity`: the suite's rounds, builds, calibration and records, with a step ladder per server
instead of fixed loads (capacity.py has the ladder, the SLO and the verdicts)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from .capacity import CAPACITY_FILE, Plan, StepVerdict, capacity_record, judge
from .config import RunConfig
from .manifest import ServerSpec
from .measure import Harness
from .model import SCHEMA
from .results import write_checked
from .scenarios import OpenLoad
from .session import ServerUnavailable
from .suite import Suite, _ServerState


class CapacitySuite(Suite):
    def __init__(self, config: RunConfig, plan: Plan, specs: list[ServerSpec], results_root: Path,
                 console: Console | None = None):
        super().__init__(config, specs, results_root, console)
        self.plan = plan
        self.capacities: dict[str, dict[str, Any]] = {}  # server -> capacity.json

    def _config_record(self) -> dict[str, Any]:
        return {**super()._config_record(), "capacity": self.plan.record()}

    def _measure_server(self, state: _ServerState, round_index: int, position: int) -> None:
        assert self.record is not None and self.bench is not None and self.harness is not None
        spec = state.spec
        unsupported = self._unsupported_modes(spec)
        if len(unsupported) == len(self.config.modes):
            raise ServerUnavailable("protocol", "; ".join(f"{mode}: {why}" for mode, why in unsupported.items()))
        self.record.update_server(spec.name, status="running")
        for mode in (m for m in self.config.modes if m not in unsupported):
            # One start per ladder: the first step's warm-up warms the server for all of them.
            with self._started(state, self.directory / spec.name / f"capacity-{mode}-r{round_index}") as started:
                steps: list[StepVerdict] = []
                for step in range(self.plan.max_steps):
                    load = OpenLoad(mode, max(self.config.vus), self.plan.rate(step))
                    out_dir = self.directory / spec.name / f"{load.label}-r{round_index}"
                    out_dir.mkdir(parents=True, exist_ok=True)
                    harness = Harness(self.bench, self.harness.generator, self.plan.timing(step), self.console)
                    summary = self._load(started, load, harness, out_dir)
                    summary = self._record_measurement(state, started, load, round_index, position, summary, out_dir)
                    verdict = judge(summary, load, self.plan.slo, self._harness_capacity(mode), out_dir.name)
                    steps.append(verdict)
                    self._print_step(spec.name, verdict)
                    if verdict.stop:
                        break
            self._record_capacity(spec.name, mode, round_index, steps)

    def _closed_model_used(self) -> bool:
        return False   # every step is open-model: no closed-model limit to calibrate

    def _open_model_used(self) -> bool:
        return True    # …judged against the harness's open-model capacity

    def _record_capacity(self, server: str, mode: str, round_index: int, steps: list[StepVerdict]) -> None:
        entry = {"mode": mode, "run": round_index,
                 **capacity_record(steps, self.plan)}
        document = self.capacities.setdefault(server, {"schema": SCHEMA, "server": server, "plan": self.plan.record(),
                                                       "rounds": []})
        document["rounds"].append(entry)
        write_checked(self.directory / server / CAPACITY_FILE, document)
        capacity = entry["capacity_calls_per_s"]
        self.console.print(f"  [bold]{server}[/] {mode} round {round_index}: capacity "
                           + (f"{'≥ ' if entry['lower_bound'] else ''}{capacity:g} calls/s" if capacity
                              else "below the first step" if entry["below_first_step"] else "unknown")
                           + f" — stopped by {entry['stopped_by']}")

    def _print_step(self, server: str, step: StepVerdict) -> None:
        def ms(value: float | None) -> str:
            return f"{value:.1f}" if value is not None else "—"

        mark = "[green]pass[/]" if step.passed else "[red]fail[/]"
        self.console.print(
            f"  {server} step {step.rate_offered:g} calls/s: achieved {step.rate_achieved:.1f}, p50/p95/p99 "
            f"{ms(step.p50_ms)}/{ms(step.p95_ms)}/{ms(step.p99_ms)} ms, errors {step.error_rate or 0:.2%}, "
            f"dropped {step.dropped_iterations}, CPU {step.cpu_avg_pct or 0:.0f} % {mark}")

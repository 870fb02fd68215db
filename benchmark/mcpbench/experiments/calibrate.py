"""`mcpbench calibrate`: the harness's own limits and nothing else — the runner's calibration (the closed
model's own limit at the VUs, the harness's open-model capacity) against the API service's canned MCP server
(over HTTP its endpoint, over stdio `api-service calibrate-stdio`), with no server (measure/calibration.py)."""

from __future__ import annotations

from dataclasses import replace

from rich.table import Table

from mcpbench.catalog.manifest import ServerSpec
from mcpbench.experiments.base import Experiment
from mcpbench.experiments.config import RunConfig
from mcpbench.experiments.options import LOAD, LOAD_SOURCE, QUICK, RESULTS, Option, Values, duration, modes_of
from mcpbench.loads import Mode
from mcpbench.loads.timing import CALIBRATE_FULL, CALIBRATE_QUICK, LADDER_STEP_FULL, LADDER_STEP_QUICK, Timing
from mcpbench.results.model import Calibration, HarnessCapacity


class CalibrateExperiment(Experiment):
    name = "calibrate"
    order = 50
    help = "Measure the harness's own limits: the load generator + infra against a trivial MCP endpoint with no I/O."
    options = (*LOAD_SOURCE, *RESULTS, *QUICK,
               LOAD[0].but(default="session,stateless"),
               LOAD[1].but(help="VUs of the closed model's limit (the open-model ladder pre-allocates them)."),
               Option("duration", str, "60", "Measured time of the closed-model test: seconds or 1m."))
    measures_servers = False
    directory_suffix = "-calibrate"

    def configure(self, values: Values, specs: list[ServerSpec]) -> RunConfig:
        modes = modes_of(values, specs)
        self.timing = (CALIBRATE_QUICK if values.get("quick") else
                       replace(CALIBRATE_FULL, duration_s=duration(values.get("duration", "60"))))
        self.ladder = LADDER_STEP_QUICK if values.get("quick") else LADDER_STEP_FULL
        # No server and no PLACEMENT option: the default runtime and limits.
        return RunConfig.from_options(values, specs, self.timing, modes=modes, calibrate=True)

    def closed_model_in(self, mode: Mode) -> bool:
        return True  # what it is for: both limits

    def open_model_in(self, mode: Mode) -> bool:
        return True

    def calibration_timing(self) -> tuple[Timing, Timing]:
        return self.timing, self.ladder

    def conclude(self, runner) -> None:
        if runner.record is None:
            return
        run = runner.record.run
        table = Table(title="the harness's limits (tool calls/s)")
        for column in ("mode", "closed-model limit", "VUs", "open-model capacity", "stopped by"):
            table.add_column(column)
        for mode in self.config.modes:
            limit = (run.calibration or {}).get(mode)
            capacity = (run.harness_capacity or {}).get(mode)
            table.add_row(mode, _rate(limit), str(limit.vus if limit else "—"), _rate(capacity),
                          str((capacity.stopped_by if capacity else None) or "—"))
        self.console.print(table)


def _rate(part: Calibration | HarnessCapacity | None) -> str:
    if part is None:
        return "— (not measured)"
    value = part.tool_calls_per_s
    return f"{value:.0f}" if part.status == "ok" and value else f"— ({part.status})"


EXPERIMENT = CalibrateExperiment

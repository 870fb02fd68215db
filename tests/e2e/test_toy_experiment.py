"""The experiments seam, from the outside: a new experiment — latency at three fixed offered rates — written
here as one class and added to the registry (in the package it would be its module's `EXPERIMENT`), gets a command with the shared options, runs end to end
against a real server on the one experiment runner (build, Redis and the API service, verify, calibration, records), and
its results read like any other run's. What it records that no other experiment does (its offered rates) is
its own model, recorded as run.json `config.settings`, with no field of results/model.py's Config for it."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import typer
from pydantic import BaseModel, ConfigDict
from typer.testing import CliRunner

from mcpbench import experiments
from mcpbench.catalog.manifest import ServerSpec
from mcpbench.cli.experiments import register
from mcpbench.experiments.base import Experiment
from mcpbench.experiments.config import RunConfig
from mcpbench.experiments.options import MEASURING, Option, csv
from mcpbench.results.model import RUN_FILE, SUMMARY_FILE, Run, Summary, validated
from mcpbench.loads import OpenLoad
from mcpbench.loads.timing import Timing

pytestmark = pytest.mark.e2e

SERVER = os.environ.get("MCPBENCH_E2E_SERVER", "go")


# -- the toy experiment: everything a new experiment needs ---------------------------------------------------
class LatencyAtRatesSettings(BaseModel):
    """What this experiment records that no other does (run.json `config.settings`): its own model, here."""

    model_config = ConfigDict(extra="forbid")
    offered_rates_per_s: list[float]
    measured_on_one_start: bool = True


class LatencyAtRates(Experiment):
    name = "latency-at-rates"
    help = "All-calls latency of each server at a few fixed offered rates, on one start."
    options = (*MEASURING, Option("rates", str, "40,80,120", "Offered rates, tool calls/s."))

    def open_model_in(self, mode: str) -> bool:
        return True  # judged against the harness's open-model capacity, which the runner calibrates

    def configure(self, values: dict[str, Any], specs: list[ServerSpec]) -> RunConfig:
        self.rates = csv(values["rates"], float, "--rates")
        if len(self.rates) < 1:
            raise ValueError("--rates: give at least one rate")
        self.p99: dict[float, float] = {}
        # The shared options (runtime, limits, build, load generator) read as every experiment reads them.
        return RunConfig.from_options(values, specs, Timing(ramp_up_s=1, warmup_s=1, duration_s=3, ramp_down_s=0,
                                                            warmup_cap_s=None),
                                      modes=("session",), vus=(10,), calibrate=True, load=OpenLoad.kind)

    def settings(self) -> LatencyAtRatesSettings:
        return LatencyAtRatesSettings(offered_rates_per_s=list(self.rates))

    def calibration_timing(self) -> tuple[Timing, Timing]:
        short = Timing(ramp_up_s=1, warmup_s=0, duration_s=2, ramp_down_s=0, warmup_cap_s=None)
        return short, short

    def measure_server(self, server) -> None:
        with server.started("latency") as started:
            for rate in self.rates:
                load = OpenLoad("session", 10, rate)
                summary = server.measure(started, load, label=load.label)
                self.p99[rate] = summary.latency_ms.tool_call_all.p99

    def conclude(self, runner) -> None:
        self.console.print("p99 by rate: " + ", ".join(f"{r:g}/s {p:.1f} ms" for r, p in self.p99.items()))


@pytest.fixture(autouse=True)
def _affinity_restored():
    """The runner pins its own process to the harness CPUs, and this test runs it in pytest's process: the tests
    after it must get pytest's CPUs back (the smoke run compares the probed CPUs with them)."""
    cpus = os.sched_getaffinity(0)
    yield
    os.sched_setaffinity(0, cpus)


def test_a_new_experiment_is_a_class_in_the_registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(experiments.ADDED, LatencyAtRates.name, LatencyAtRates)  # outside the package
    app = typer.Typer()
    register(app)
    runner = CliRunner()
    helped = runner.invoke(app, [LatencyAtRates.name, "--help"], terminal_width=200)
    assert helped.exit_code == 0
    # The shared options came with it, declared nowhere in the experiment.
    for flag in ("--runtime", "--cpus", "--loadgen", "--load-instances", "--no-build", "--results-dir", "--rates"):
        assert flag in helped.output
    bad = runner.invoke(app, [LatencyAtRates.name, SERVER, "--rates", "fast", "--results-dir", str(tmp_path)])
    assert bad.exit_code == 2 and "--rates takes a comma-separated list" in bad.output

    # Its open-model load split over two load driver processes, as any experiment's can be (segments of the rate).
    done = runner.invoke(app, [LatencyAtRates.name, SERVER, "--rates", "40,80,120", "--load-instances", "2",
                               "--results-dir", str(tmp_path)])
    assert done.exit_code == 0, done.output
    assert "p99 by rate: 40/s" in done.output
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    run = validated(Run, json.loads((run_dir / RUN_FILE).read_text()), run_dir)
    assert run["status"] == "complete" and run["servers"][SERVER]["status"] == "ok"
    assert run["config"]["experiment"] == LatencyAtRates.name and run["config"]["kind"] == "open"
    # Its own settings, recorded as its own model dumped them (no field of results/model.py's Config for them),
    # and read back through that model.
    assert run["config"]["settings"] == {"offered_rates_per_s": [40, 80, 120], "measured_on_one_start": True}
    assert LatencyAtRatesSettings.model_validate(run["config"]["settings"]).offered_rates_per_s == [40, 80, 120]
    assert run["config"]["rates"] is None and run["config"]["load_generator"]["instances"] == 2
    # The runner calibrated the open model for it, and judged every measurement against that capacity.
    assert run["harness_capacity"]["session"]["status"] == "ok"
    assert run["servers"][SERVER]["measurements"] == ["session-rate40-r1", "session-rate80-r1", "session-rate120-r1"]
    assert json.loads((run_dir / SERVER / "verify.json").read_text())["status"] in ("pass", "warn")
    for name in run["servers"][SERVER]["measurements"]:
        summary = validated(Summary, json.loads((run_dir / SERVER / name / SUMMARY_FILE).read_text()), name)
        assert summary["kind"] == "open" and summary["status"] == "ok"
        assert summary["limit"]["kind"] == "harness-capacity" and summary["limit"]["tool_calls_per_s"] > 0
        assert summary["throughput"]["tool_calls_per_s"] > 0.8 * summary["rate"]

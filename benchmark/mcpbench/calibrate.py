"""The harness's own ceiling — k6 + infra against a trivial MCP endpoint (`mcpbench calibrate`, and once
at the start of every suite).

The API service answers MCP on /calibrate/mcp with canned replies and no I/O, so whatever rate k6
reaches there is the most this machine's harness can measure; a server near it is harness-bound.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from . import loadgen
from . import runtime as runtimes
from .config import ResourceProfile, Timing
from .measure import Harness, MeasurementFailed, measure
from .resources import Usage
from .results import SCHEMA, write_checked
from .runtime.base import InfraHandle, ServerBase
from .scenarios import Load
from .session import Bench

# The suite's calibration: short, a fixed warm-up (the endpoint has nothing to warm up).
SUITE_TIMING_QUICK = Timing(ramp_up_s=2, warmup_s=3, duration_s=10, ramp_down_s=1, warmup_cap_s=None)
SUITE_TIMING_FULL = Timing(ramp_up_s=5, warmup_s=10, duration_s=30, ramp_down_s=2, warmup_cap_s=None)
CALIBRATION_PATH = "/calibrate/mcp"


class CalibrationTarget(ServerBase):
    """The API service's canned MCP endpoint as a load target: part of the harness, so it has no limits
    of its own and no usage apart from the API service's (sampled as `api`)."""

    name = "calibrate"
    startup_s = 0.0
    limits_applied = True

    def __init__(self, infra: InfraHandle):
        self.url = f"{infra.api_url}{CALIBRATION_PATH}"

    def alive(self) -> bool:
        return True  # the API service dying is the infrastructure watch's to see

    def usage(self) -> Usage | None:
        return None

    def log_tail(self, lines: int = 30) -> str:
        return ""

    def stop(self) -> None:
        pass


def measure_ceiling(harness: Harness, load: Load, timing: Timing, out_dir: Path) -> dict[str, Any]:
    """One calibration measurement against the infra's API service; its summary.json is written to out_dir."""
    out_dir.mkdir(parents=True, exist_ok=True)
    at_timing = Harness(harness.bench, harness.generator, timing, harness.console)
    with harness.console.status(f"calibrating the harness: {load.label} for {timing.total_s:g} s…"):
        summary = measure(at_timing, CalibrationTarget(harness.infra), load, out_dir)
    summary.update({"server": CalibrationTarget.name, **load.record(), "run": 1, "schema": SCHEMA})
    write_checked(out_dir / "summary.json", summary)
    thr = summary["throughput"]
    k6_cpu = summary["resources"].get("k6", {}).get("cpu_avg_pct") or 0
    harness.console.print(
        f"  harness ceiling {load.label}: {thr['tool_calls_per_s']:.0f} tool calls/s, k6 CPU {k6_cpu:.0f} %, "
        f"p99 {summary['latency_ms']['tool_call']['p99'] or 0:.2f} ms"
        + ("" if summary["status"] == "ok" else f" [red]({summary['status']}: {summary['reason']})[/]"))
    return summary


def ceiling_record(summary: dict[str, Any]) -> dict[str, Any]:
    """What run.json keeps of a calibration measurement."""
    return {"tool_calls_per_s": summary["throughput"]["tool_calls_per_s"], "vus": summary["vus"],
            "k6_cpu_pct": (summary["resources"].get("k6") or {}).get("cpu_avg_pct"),
            "status": summary["status"]}


def calibrate(out_dir: Path, loads: list[Load], timing: Timing, profile: ResourceProfile, console: Console,
              runtime: str = runtimes.DEFAULT, k6_instances: int = 1) -> list[dict[str, Any]]:
    """`mcpbench calibrate`: its own Redis and API service, one measurement per load."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with Bench(runtime, profile, out_dir) as bench:
        outcome = bench.build_infra()
        if outcome.status != "ok":
            raise MeasurementFailed(f"the API service did not build: {outcome.reason}")
        bench.start_infra()
        harness = Harness(bench, loadgen.create(loadgen.DEFAULT, profile.harness_cpus, k6_instances), timing,
                          console)
        return [measure_ceiling(harness, load, timing, out_dir / "calibrate" / f"{load.label}-r1")
                for load in loads]

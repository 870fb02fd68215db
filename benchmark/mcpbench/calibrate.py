"""The harness's own ceiling — k6 + infra against a trivial MCP endpoint (`mcpbench calibrate`, and once
at the start of every suite).

The API service answers MCP on /calibrate/mcp with canned replies and no I/O, so whatever rate k6
reaches there is the most this machine's harness can measure; a server near it is harness-bound.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from . import analysis, processes
from .config import Load, ResourceProfile, Timing
from .infra import Infra
from .loadgen import run_k6
from .resources import Sampler, UsageReader, process_reader, rebase
from .results import SCHEMA, write_json, write_resources
from .runtime.base import InfraHandle

# The suite's calibration: short, a fixed warm-up (the endpoint has nothing to warm up).
SUITE_TIMING_QUICK = Timing(ramp_up_s=2, warmup_s=3, duration_s=10, ramp_down_s=1, warmup_cap_s=None)
SUITE_TIMING_FULL = Timing(ramp_up_s=5, warmup_s=10, duration_s=30, ramp_down_s=2, warmup_cap_s=None)


def measure_ceiling(infra: InfraHandle, load: Load, timing: Timing, out_dir: Path, profile: ResourceProfile,
                    console: Console) -> dict[str, Any]:
    """One calibration measurement against the infra's API service; its summary.json is written to out_dir."""
    out_dir.mkdir(parents=True, exist_ok=True)
    readers: dict[str, UsageReader] = dict(infra.readers())
    sampler = Sampler(readers)

    def on_start(pid: int) -> None:
        readers["k6"] = process_reader(pid)
        sampler.start()

    with console.status(f"calibrating the harness: {load.label} for {timing.total_s:g} s…"):
        result = run_k6(f"{infra.api_url}/calibrate/mcp", load, timing, out_dir, profile.harness_cpus,
                        on_start=on_start)
    samples = sampler.stop()
    rebased = rebase(samples, result.k6_start_epoch_s or 0.0)
    write_resources(out_dir / "resources.csv", samples, result.k6_start_epoch_s or 0.0)
    context = analysis.MeasurementContext(
        mode=load.mode, executor=load.executor, vus=load.vus, rate=None, think_time_s=timing.think_time_s,
        request_timeout_s=timing.request_timeout_s, harness_cores=len(profile.harness_cpus or ()) or 1,
        limits_applied=True, k6_exit_code=result.exit_code, k6_counts=result.counts, k6_run_s=result.run_s)
    write_json(out_dir / analysis.CONTEXT_FILE, context.to_json())
    summary = analysis.summarize(result.samples, timing.window, rebased, context)
    summary.update({"server": "calibrate", "mode": load.mode, "vus": load.vus, "run": 1,
                    "executor": load.executor, "rate": None, "schema": SCHEMA})
    write_json(out_dir / "summary.json", summary)
    thr = summary["throughput"]
    k6_cpu = summary["resources"].get("k6", {}).get("cpu_avg_pct") or 0
    console.print(f"  harness ceiling {load.label}: {thr['tool_calls_per_s']:.0f} tool calls/s, "
                  f"k6 CPU {k6_cpu:.0f} %, p99 {summary['latency_ms']['tool_call']['p99'] or 0:.2f} ms"
                  + ("" if summary["status"] == "ok" else f" [red]({summary['status']}: {summary['reason']})[/]"))
    return summary


def ceiling_record(summary: dict[str, Any]) -> dict[str, Any]:
    """What run.json keeps of a calibration measurement."""
    return {"tool_calls_per_s": summary["throughput"]["tool_calls_per_s"], "vus": summary["vus"],
            "k6_cpu_pct": (summary["resources"].get("k6") or {}).get("cpu_avg_pct"),
            "status": summary["status"]}


def calibrate(out_dir: Path, loads: list[Load], timing: Timing, profile: ResourceProfile,
              console: Console) -> list[dict[str, Any]]:
    """`mcpbench calibrate`: its own Redis and API service, one measurement per load."""
    out_dir.mkdir(parents=True, exist_ok=True)
    infra = Infra.start(out_dir / "_infra", profile.harness_cpus)
    try:
        return [measure_ceiling(infra, load, timing, out_dir / "calibrate" / f"{load.label}-r1", profile, console)
                for load in loads]
    finally:
        infra.stop()
        processes.stop_all()

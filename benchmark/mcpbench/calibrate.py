"""`mcpbench calibrate`: the harness's own ceiling — k6 + infra against a trivial MCP endpoint.

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
from .resources import Sampler, rebase, process_reader
from .results import write_json


def calibrate(out_dir: Path, loads: list[Load], timing: Timing, profile: ResourceProfile,
              console: Console) -> list[dict[str, Any]]:
    out_dir.mkdir(parents=True, exist_ok=True)
    infra = Infra.start(out_dir / "_infra", profile.harness_cpus)
    figures = []
    try:
        url = f"{infra.api_url}/calibrate/mcp"
        for load in loads:
            measurement = out_dir / "calibrate" / f"{load.label}-r1"
            measurement.mkdir(parents=True, exist_ok=True)
            readers = {"api": process_reader(infra.api_process.pid)}
            sampler = Sampler(readers)

            def on_start(pid: int, readers=readers, sampler=sampler) -> None:
                readers["k6"] = process_reader(pid)
                sampler.start()

            with console.status(f"calibrating {load.label} for {timing.total_s:g} s…"):
                result = run_k6(url, load, timing, measurement, profile.harness_cpus, on_start=on_start)
            samples = sampler.stop()
            start = result.k6_start_epoch_s or 0.0
            rebased = rebase(samples, start)
            summary = analysis.summarize(result.samples, timing.window, rebased,
                                         len(profile.harness_cpus or ()) or 1, True)
            summary.update({"server": "calibrate", "mode": load.mode, "vus": load.vus, "run": 1,
                            "executor": load.executor, "rate": None, "status": "ok", "schema": 1})
            write_json(measurement / "summary.json", summary)
            figures.append(summary)
            thr = summary["throughput"]
            k6_cpu = summary["resources"].get("k6", {}).get("cpu_avg_pct") or 0
            console.print(f"  ceiling {load.label}: {thr['tool_calls_per_s']:.0f} tool calls/s, "
                          f"{thr['v2_rps']:.0f} HTTP req/s, k6 CPU {k6_cpu:.0f} %, "
                          f"p99 {summary['latency_ms']['tool_call']['p99'] or 0:.2f} ms")
    finally:
        infra.stop()
        processes.stop_all()
    return figures

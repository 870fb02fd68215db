#!/usr/bin/env python3
"""What the load generator itself costs: its own CPU per call and per MCP session against the API service's
no-I/O endpoint (/calibrate/mcp), closed and open model, repeated and reported as medians with their range.

    .venv/bin/python scripts/driver_cost.py [--runs 5] [--generator driver|k6] [--vus 50] [--rate 600] [--seconds 20]

A benchmark, not a test: run it on a quiet machine and read it beside a second run. The harness runs pinned
to the first CPU, as the suite pins it (host.profile.resource_profile)."""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path

from mcpbench import loadgen
from mcpbench.loads.timing import Timing
from mcpbench.host.profile import resource_profile
from mcpbench.runtime.local_infra import Infra
from mcpbench.loads import ClosedLoad, OpenLoad
from mcpbench.workload.tools import TOOL_NAMES


def one(generator: str, url: str, load, timing: Timing, cpus) -> dict:
    with tempfile.TemporaryDirectory() as out:
        run = loadgen.create(generator, cpus).run(url, load, timing, Path(out))
    counts = run.counts
    calls = int(run.samples["tool"].isin(TOOL_NAMES).sum())   # tool calls (tools/list rows apart)
    sessions = (counts.iterations if counts else None) or None   # one iteration = one MCP session in session mode
    cpu_s = counts.driver_cpu_s if counts else None
    return {"calls": calls, "calls_per_s": calls / run.run_s if run.run_s else None,
            "cpu_us_per_call": cpu_s / calls * 1e6 if cpu_s and calls else None,
            "cpu_us_per_session": cpu_s / sessions * 1e6 if cpu_s and sessions else None,
            "start_lag_p99_ms": counts.start_lag_p99_ms if counts else None}


def summary(values: list[float]) -> str:
    values = [v for v in values if v is not None]
    if not values:
        return "—"
    return f"{statistics.median(values):.1f} [{min(values):.1f}–{max(values):.1f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--generator", default=loadgen.DEFAULT)
    parser.add_argument("--vus", type=int, default=50)
    parser.add_argument("--rate", type=float, default=600.0)
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    profile = resource_profile()
    timing = Timing(ramp_up_s=1, warmup_s=0, duration_s=args.seconds, ramp_down_s=0, warmup_cap_s=None)
    with tempfile.TemporaryDirectory() as logs:
        infra = Infra.start(Path(logs), profile.harness_cpus)
        try:
            url = f"{infra.api_url}/calibrate/mcp"
            loads = {"closed session": ClosedLoad("session", args.vus), "closed stateless": ClosedLoad("stateless", args.vus),
                     "open session": OpenLoad("session", args.vus, args.rate),
                     "open stateless": OpenLoad("stateless", args.vus, args.rate)}
            results: dict[str, list[dict]] = {name: [] for name in loads}
            for _ in range(args.runs):  # interleaved: a slow spell of the host hits every load once
                for name, load in loads.items():
                    results[name].append(one(args.generator, url, load, timing, profile.harness_cpus))
        finally:
            infra.stop()
    print(f"{args.generator}: CPU µs per call (one call = one MCP session in session mode), median [range] of {args.runs}")
    for name, runs in results.items():
        print(f"  {name:17} {summary([r['cpu_us_per_call'] for r in runs])} µs/call, "
              f"{summary([r['cpu_us_per_session'] for r in runs])} µs/iteration at "
              f"{summary([r['calls_per_s'] for r in runs])} calls/s"
              + (f", start lag p99 {summary([r['start_lag_p99_ms'] for r in runs])} ms" if name.startswith("open") else ""))
    print(json.dumps(results))


if __name__ == "__main__":
    main()

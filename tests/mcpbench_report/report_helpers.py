"""Test helpers of the report tests: where the recorded results are (tests/fixtures/results/, recorded from
real servers, real k6 and the real analysis: tests/fixtures/README.md), and a writer of tiny hand-made results
directories for rules whose figures must be computable by hand. (A module of its own, not conftest.py: test
modules import from it, and `conftest` is an ambiguous module name when several test directories have one.)"""

from __future__ import annotations

import copy
import gzip
import json
import shutil
from collections.abc import Sequence
from pathlib import Path

from mcpbench.analysis import summary as analysis
from mcpbench.results.model import document
from mcpbench.results.read import read_samples
from mcpbench.loads import in_window


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "results"
# rust, go, python, nodejs x 3 shuffled rounds at 8 VUs (rust, go, nodejs at the closed model's limit); broken: its
# build fails; exotic: its toolchain is missing (unavailable)
ROUNDS = FIXTURES / "20261123-113219-local"
AGAIN = FIXTURES / "20261123-113459-local"      # the same code and config, minutes later
HALF_CPU = FIXTURES / "20261123-113729-local"   # the same code at --cpus 0.5: python and nodejs really slower
SWEEP = FIXTURES / "20261123-114002-local"      # rust, python at 1, 4, 16 VUs, 1 round
CAPACITY = FIXTURES / "20261123-161510-local"   # mcpbench capacity: rust and go, one ladder of 5 steps each
OPEN = FIXTURES / "20261123-114126-local"       # rust: closed 4 VUs, then open at 50, 90, 150 % of that max
SOAK = FIXTURES / "20261123-184242-local"            # mcpbench soak: go and python, 1 min each at 60 calls/s
OVERHEADS = FIXTURES / "20261125-053426-local"  # baseline, go, python in modes session, stateless, stdio x 3 rounds
WHAT_IF = FIXTURES / "20261126-125834-local"  # go and its --what-if twin go-unguarded (ALLOWED_HOSTS=*) x 3 rounds
EQUAL = FIXTURES / "20261125-111418-local"   # baseline, go: 5 VUs and --equal-load 0.5 x 3 rounds, host-disturbed ones set aside
# mcpbench dimension --dimension tools-list: go at 100 and 10,000 extra tools (at 10,000 the Go SDK's tools/list came
# in 11 pages), baseline and rust at 10,000, 3 rounds (the run's other twins left out for size, run.json as written)
TOOLS_LIST = FIXTURES / "20261128-162656-local-dimension"
TOOLS_LIST_FOLLOWED = FIXTURES / "20261128-195645-local-dimension"  # the same points, the load following pages
SCHEMA1 = FIXTURES / "20261123-114227-local"    # rust, go x 3 runs at 8 VUs, written by schema-1 mcpbench (584cd9c)

def copy_with_manifest(tmp_path: Path, root: Path, server: str, **changes) -> Path:
    """A copy of a recorded results directory whose server.json of `server` says something else (an SDK
    upgrade, say), under the same run id."""
    copy_dir = tmp_path / root.name
    shutil.copytree(root, copy_dir)
    path = copy_dir / server / "server.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **changes}))
    return copy_dir


CONFIG = {  # run.json config as mcpbench writes it (mcpbench.model.Config)
    "runtime": "local", "modes": ["session"], "vus": [10], "runs": 1, "shuffle": False, "kind": "closed",
    "rate_fractions": None, "calibrate": False, "ramp_up_s": 5, "warmup_s": 5, "warmup_cap_s": None,
    "warmup_adaptive": False, "duration_s": 10, "ramp_down_s": 1, "think_time_s": 0.05, "request_timeout_s": 30,
    "profile": {"cpus": 1.0, "memory_mb": 2048, "server_cpus": [1], "harness_cpus": [0], "cpuset": "1",
                "note": None},
}
ENVIRONMENT = {
    "hostname": "test", "cpu_model": "Test CPU", "cores": 2, "memory_gb": 16.0, "kernel": "6.1", "os": "Debian 12",
    "cgroup": {"version": 2, "applied": True, "note": None},
    "runtime_description": "local processes in cgroups",  # what a local run records (runtime.description)
    "tools": {"k6": "v1.8.1", "redis": "7.0.15", "mcpbench": "0.1.0"}, "git": {"commit": "abc", "dirty": False},
}


def write_results(root: Path, servers: dict[str, Sequence[Sequence[tuple]]], *, run_id: str = "20260101-000000-local",
                  config: dict | None = None, environment: dict | None = None, manifests: dict | None = None,
                  extra_servers: dict | None = None, resources: dict | None = None, schema: int = 1,
                  summaries: dict | None = None, run_extra: dict | None = None) -> Path:
    """A results directory by hand. servers: name -> runs; a run is a list of samples
    (t_s, tool, ok, call_ms[, error_kind[, session_ms]]) (call_ms None = never sent). The window is
    [ramp_up + warmup, + duration) of `config`. summary.json carries the throughput and error counts of the
    window (what the orchestrator writes). schema=2 writes schema-2 files: publishable unless a flag is set;
    summaries: name -> list (per run) of dicts merged over each summary.json (e.g. flags, efficiency)."""
    cfg = copy.deepcopy(CONFIG)
    cfg.update(config or {})
    start = cfg["ramp_up_s"] + cfg["warmup_s"]
    end = start + cfg["duration_s"]
    path = root / run_id
    status = {}
    for name, runs in servers.items():
        sdir = path / name
        sdir.mkdir(parents=True)
        manifest = {"name": name, "display_name": name.title(), "language": "Lang", "runtime": "rt 1",
                    "sdk": "sdk", "sdk_version": "1.0", "framework": "fw", "build": [], "run": [f"./{name}"]}
        manifest.update((manifests or {}).get(name, {}))
        (sdir / "server.json").write_text(json.dumps(manifest))
        (sdir / "verify.json").write_text(json.dumps({"status": "pass", "checks": [
            {"name": "initialize", "status": "pass", "reason": None}]}))
        mids = []
        for run, samples in enumerate(runs, start=1):
            mid = f"session-{cfg['vus'][0]}vu-r{run}"
            mids.append(mid)
            mdir = sdir / mid
            mdir.mkdir()
            lines = ["t_s,vu,tool,ok,error_kind,call_ms,session_ms,http_ms"]
            for sample in samples:
                t, tool, ok, ms = sample[:4]
                kind = sample[4] if len(sample) > 4 else ("" if ok else "http_500")
                session = sample[5] if len(sample) > 5 else (ms + 1 if ms is not None else "")
                if ms is None:
                    lines.append(f"{t},1,{tool},{ok},{kind},,{session},1.0")
                else:
                    lines.append(f"{t},1,{tool},{ok},{kind},{ms},{session},{ms / 2};{ms / 2}")
            with gzip.open(mdir / "samples.csv.gz", "wt") as fh:
                fh.write("\n".join(lines) + "\n")
            res = (resources or {}).get(name, (50.0, 100.0))
            (mdir / "resources.csv").write_text("t_s,component,cpu_pct,mem_mb\n" + "".join(
                f"{t},server,{res[0]},{res[1]}\n" for t in range(int(end) + 2)))
            in_win = [s for s in samples if start <= s[0] < end and s[1] != "tools/list"]
            good = [s for s in in_win if s[2] == 1]
            figures = document(analysis.latency(in_window(read_samples(mdir / "samples.csv.gz"), (start, end)),
                                                cfg["request_timeout_s"]))   # the orchestrator's own definitions
            summary = {
                "schema": 1, "server": name, "mode": "session", "vus": cfg["vus"][0], "run": run,
                "kind": "closed", "rate": None, "status": "ok", "phase": None, "reason": None,
                "window": {"start_s": float(start), "end_s": float(end), "seconds": float(end - start)},
                "throughput": {"tool_calls_per_s": len(good) / (end - start), "successful_tool_calls": len(good),
                               "tool_calls": len(in_win), "v2_rps": 2 * len(in_win) / (end - start),
                               "http_requests": 2 * len(in_win), "iterations_per_s": 0.0, "dropped_iterations": 0},
                "errors": {"count": len(in_win) - len(good),
                           "rate": (len(in_win) - len(good)) / len(in_win) if in_win else 0.0, "kinds": {}},
                "latency_ms": figures,
                "resources": {"server": {"cpu_avg_pct": res[0], "cpu_peak_pct": res[0], "mem_avg_mb": res[1],
                                         "mem_peak_mb": res[1], "samples": int(end - start)}},
                "flags": [], "foreign_cpu_pct": None,
            }
            if schema == 2:  # what schema 2 adds, as a run without host probe or cross-checks has it, with a
                # calibrated closed-model limit far above the run (a run without one is limit-unknown on upgrade)
                tput = len(good) / (end - start)
                summary.update(schema=2, efficiency={"cpu_ms_per_call": res[0] / 100 * 1000 / tput
                                                     if good else None, "mem_peak_mb": res[1]},
                               warmup=None, host=None, checks=None,
                               ceiling={"tool_calls_per_s": FAR_LIMIT, "fraction": tput / FAR_LIMIT})
                summary["throughput"].update(v2_requests=2 * len(in_win), v2_rps_whole_run=None,
                                             v2_requests_whole_run=None, loadgen_run_s=None,
                                             http_rps=2 * len(in_win) / (end - start))
                summary["errors"]["failed_tool_calls"] = len(in_win) - len(good)
            overrides = ((summaries or {}).get(name) or [])
            if run - 1 < len(overrides):
                summary.update(overrides[run - 1])
            if schema == 2:
                summary.setdefault("publishable", not summary["flags"])
                summary.setdefault("unpublishable_reasons", [f"flag: {f}" for f in summary["flags"]])
            (mdir / "summary.json").write_text(json.dumps(summary))
        status[name] = {"status": "ok", "phase": None, "reason": None, "measurements": mids, "startup_s": 0.1,
                        "idle_mem_mb": 5.0}
    status.update({name: {"phase": None, "reason": None, "measurements": [], "startup_s": None, "idle_mem_mb": None,
                          **entry} for name, entry in (extra_servers or {}).items()})
    cfg["servers"] = list(status)
    env = copy.deepcopy(ENVIRONMENT)
    env.update(environment or {})
    run = {"schema": schema, "run_id": run_id, "status": "complete", "started_at": "2026-01-01T00:00:00Z",
           "finished_at": "2026-01-01T00:10:00Z", "config": cfg, "environment": env, "servers": status}
    if schema == 2:
        run.update(error=None, calibration=None, rounds=None)
    run.update(run_extra or {})
    path.mkdir(parents=True, exist_ok=True)
    (path / "run.json").write_text(json.dumps(run))
    return path


FAR_LIMIT = 1e6  # calls/s: a calibrated limit no hand-written run comes near


def steady(rate: float, ms: float, start: float = 0.0, end: float = 21.0, tool: str = "checkout") -> list[tuple]:
    """Samples at a steady `rate` per second, all ok with the same latency."""
    n = int((end - start) * rate)
    return [(round(start + (i + 0.5) / rate, 6), tool, 1, ms) for i in range(n)]

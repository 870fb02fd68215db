"""End-to-end soak: the real CLI, the load driver, Redis, API service and servers (one compiled, one interpreted, as CI
runs it), with results in a temp dir."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest

from mcpbench.results import model

from mcpbench.analysis.soak import MIN_BUCKETS

from test_smoke_run import leftovers, mcpbench, only_run
from mcpbench.results.read import read_json, read_processes
from mcpbench.results.model import PROCESSES_FILE, SOAK_FILE

pytestmark = pytest.mark.e2e

SHORT = ["--quick", "--rate", "120", "--vus", "10"]


def test_a_short_soak_of_a_compiled_and_an_interpreted_server_is_judged_on_every_criterion(tmp_path: Path) -> None:
    started = time.monotonic()
    proc = mcpbench("soak", "go", "python", *SHORT, "--duration", "12s", "--results-dir", str(tmp_path))
    out, _ = proc.communicate(timeout=900)
    wall_s = time.monotonic() - started
    assert proc.returncode in (0, 1), out  # 1: a verdict failed on this host; the files are what is tested
    run_dir = only_run(tmp_path)
    run = read_json(run_dir / "run.json")
    assert run["status"] == "complete", out
    assert run["config"]["soak"]["duration_s"] == 12
    for server in ("go", "python"):
        soak = model.validated(model.SoakResult, read_json(run_dir / server / SOAK_FILE), server)
        assert soak["rate"] == 120 and soak["rate_from"] == "given" and not soak["interrupted"]
        assert soak["window"]["measured_s"] >= 10, soak["window"]
        # every criterion judged: the process tree was readable, calls enough for a p99 per bucket
        assert {c: v["verdict"] for c, v in soak["criteria"].items() if v["verdict"] == "not measured"} == {}
        assert soak["verdict"] in ("pass", "fail")
        processes = read_processes(run_dir / server / soak["measurement"] / PROCESSES_FILE)
        assert len(processes) >= 17  # 1 Hz over warm-up (10 s) + window (12 s)
        assert processes["fds"].min() > 0 and processes["threads"].min() >= 1 and processes["rss_mb"].min() > 1
        assert len(soak["buckets"]) == MIN_BUCKETS and sum(b["calls"] for b in soak["buckets"]) > 0.9 * 120 * 12
    print(f"CI-length soak of go + python: {wall_s:.0f} s wall")  # the closing note's figure
    assert not leftovers(str(tmp_path))


def test_ctrl_c_ends_a_soak_early_and_judges_what_was_measured(tmp_path: Path) -> None:
    proc = mcpbench("soak", "go", *SHORT, "--duration", "10m", "--no-build", "--results-dir", str(tmp_path))
    deadline = time.monotonic() + 300
    run_dir = None
    while time.monotonic() < deadline:  # into the window: 2 s ramp + 10 s warm-up + 8 s of soak
        runs = [p for p in tmp_path.iterdir() if p.is_dir()]
        if runs and (csv := next(runs[0].glob("go/soak-*/loadgen-samples.log"), None)) and csv.stat().st_size > 0:
            run_dir = runs[0]
            break
        time.sleep(0.5)
    assert run_dir is not None, "the soak never started"
    time.sleep(20)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 130, out
    assert "Traceback" not in out
    soak = model.validated(model.SoakResult, read_json(run_dir / "go" / SOAK_FILE), "go")
    assert soak["interrupted"] and soak["stopped_early"]
    assert 5 <= soak["window"]["measured_s"] <= 40, soak["window"]
    assert soak["criteria"]["rss"]["verdict"] != "not measured"
    run = json.loads((run_dir / "run.json").read_text())
    assert run["status"] == "interrupted"
    assert not leftovers(str(tmp_path))

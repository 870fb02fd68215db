"""End-to-end: the real CLI, real k6, real Redis and API service, a real server; results in a temp dir."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from mcpbench.paths import SERVERS_DIR

pytestmark = pytest.mark.e2e

SERVER = os.environ.get("MCPBENCH_E2E_SERVER", "go")
TINY = ["--quick", "--vus", "5", "--ramp-up", "1", "--warmup", "2", "--duration", "6", "--ramp-down", "1"]


def mcpbench(*args: str, **kwargs) -> subprocess.Popen:
    # SIGINT back to default in the child: a runner may start the tests as a background job, with SIGINT
    # ignored, and Python would then never turn the test's Ctrl-C into KeyboardInterrupt.
    return subprocess.Popen([sys.executable, "-m", "mcpbench.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL), **kwargs)


def only_run(results: Path) -> Path:
    runs = [p for p in results.iterdir() if p.is_dir()]
    assert len(runs) == 1, runs
    return runs[0]


def leftovers(marker: str) -> list[str]:
    found = []
    for proc in psutil.process_iter(["pid", "cmdline", "cwd"]):
        try:
            text = " ".join(proc.info["cmdline"] or []) + " " + (proc.info["cwd"] or "")
        except psutil.Error:
            continue
        if marker in text and proc.pid != os.getpid():
            found.append(f"{proc.pid}: {text[:200]}")
    return found


def test_a_quick_run_produces_a_complete_results_directory(tmp_path: Path) -> None:
    proc = mcpbench("run", SERVER, *TINY, "--results-dir", str(tmp_path))
    out, _ = proc.communicate(timeout=900)
    assert proc.returncode == 0, out
    run_dir = only_run(tmp_path)
    run = json.loads((run_dir / "run.json").read_text())
    assert run["status"] == "complete"
    assert run["servers"][SERVER]["status"] == "ok"
    assert run["environment"]["tools"]["k6"] and run["environment"]["git"]["commit"]
    assert json.loads((run_dir / SERVER / "verify.json").read_text())["status"] in ("pass", "warn")
    measurement = run_dir / SERVER / "session-5vu-r1"
    summary = json.loads((measurement / "summary.json").read_text())
    assert summary["window"] == {"start_s": 3.0, "end_s": 9.0, "seconds": 6.0}
    assert summary["throughput"]["tool_calls_per_s"] > 0
    assert summary["errors"]["count"] == 0, summary["errors"]
    assert summary["latency_ms"]["tool_call"]["p99"] > 0
    assert summary["resources"]["server"]["mem_peak_mb"] > 0
    assert set(summary["resources"]) >= {"server", "k6", "redis", "api"}
    with gzip.open(measurement / "samples.csv.gz", "rt") as handle:
        rows = handle.read().splitlines()
    assert rows[0].startswith("t_s,vu,tool,ok") and len(rows) > 10
    assert (measurement / "resources.csv").read_text().startswith("t_s,component,cpu_pct,mem_mb")
    assert not leftovers(str(run_dir))


def test_a_server_that_will_not_start_is_recorded_and_the_suite_goes_on(tmp_path: Path) -> None:
    servers = tmp_path / "servers"
    (servers / "crasher").mkdir(parents=True)
    (servers / "crasher" / "mcpbench.toml").write_text(
        '[server]\ndisplay_name = "Crasher"\nlanguage = "bash"\nruntime = "bash"\nsdk = "none"\n'
        'sdk_version = "-"\n[run]\ncommand = ["bash", "-c", "echo boom: no such config >&2; exit 3"]\n')
    (servers / SERVER).symlink_to(SERVERS_DIR / SERVER)
    results = tmp_path / "results"
    proc = mcpbench("run", "crasher", SERVER, *TINY, "--servers-dir", str(servers), "--results-dir", str(results))
    out, _ = proc.communicate(timeout=900)
    assert proc.returncode == 1, out
    run = json.loads((only_run(results) / "run.json").read_text())
    crasher = run["servers"]["crasher"]
    assert (crasher["status"], crasher["phase"]) == ("failed", "start")
    assert "boom: no such config" in crasher["reason"]
    assert run["servers"][SERVER]["status"] == "ok"
    assert "crasher failed in start" in out


def test_ctrl_c_keeps_what_was_measured_and_leaves_nothing_running(tmp_path: Path) -> None:
    proc = mcpbench("run", SERVER, *TINY, "--vus", "2,3", "--no-build", "--results-dir", str(tmp_path),
                    start_new_session=True)
    deadline = time.monotonic() + 600
    first = None
    while time.monotonic() < deadline and proc.poll() is None:
        done = list(tmp_path.glob(f"*/{SERVER}/session-2vu-r1/summary.json"))
        if done:
            first = done[0]
            break
        time.sleep(0.2)
    assert first, "the first measurement never finished"
    time.sleep(3)  # into the second measurement's load phase
    os.killpg(proc.pid, signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 130, out
    run_dir = only_run(tmp_path)
    run = json.loads((run_dir / "run.json").read_text())
    assert run["status"] == "interrupted"
    assert "session-2vu-r1" in run["servers"][SERVER]["measurements"]
    assert json.loads(first.read_text())["status"] == "ok"
    time.sleep(0.5)
    assert not leftovers(str(run_dir))
    assert not leftovers(str(SERVERS_DIR / SERVER))

"""End-to-end: an orchestrator killed with SIGKILL mid-measurement leaves nothing running; the next start finds
its run abandoned, and `mcpbench run --resume` finishes it without measuring again what was finished."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import psutil
import pytest

from mcpbench.analysis.summary import HOST_FLAGS
from mcpbench.results.model import RUN_FILE, SUMMARY_FILE

from test_smoke_run import leftovers, mcpbench, only_run

pytestmark = pytest.mark.e2e

SERVERS = ("go", "baseline")
# 6 s a measurement: the kill, 3 s into the second, lands inside it (server start, ramp-up and warm-up before)
SHORT = ["--quick", "--vus", "5", "--ramp-up", "1", "--warmup", "1", "--duration", "4", "--ramp-down", "0",
         "--no-calibrate"]


def _stays(summary: Path) -> bool:
    """A finished measurement the run keeps: one a busy host disturbed is set aside and measured again."""
    try:
        flags = json.loads(summary.read_text())["flags"]
    except (OSError, ValueError, KeyError):
        return False  # being written
    return not set(flags) & set(HOST_FLAGS)


def kill_in_the_second_measurement(proc, results: Path) -> list[psutil.Process]:
    """SIGKILL to the orchestrator alone (not its group: as the OOM killer does) 3 s into its second
    measurement; the processes it had started, taken just before."""
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and proc.poll() is None:
        if any(_stays(path) for path in results.glob(f"*/*/session-*-r1/{SUMMARY_FILE}")):
            break
        time.sleep(0.2)
    assert proc.poll() is None, proc.communicate()[0]
    time.sleep(3)
    started = psutil.Process(proc.pid).children(recursive=True)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    return started


def test_a_run_killed_without_a_word_is_marked_abandoned_and_resumed_where_it_stopped(tmp_path: Path) -> None:
    # Built by the run (no --no-build): on a fresh clone nothing before this test may have built them.
    proc = mcpbench("run", *SERVERS, *SHORT, "--rounds", "2", "--results-dir", str(tmp_path))
    started = kill_in_the_second_measurement(proc, tmp_path)
    assert started, "the orchestrator had started nothing"
    _, alive = psutil.wait_procs(started, timeout=15)
    assert not alive, f"outlived the orchestrator: {[p.pid for p in alive]}"  # Redis, API, driver, server
    run_dir = only_run(tmp_path)
    before = json.loads((run_dir / RUN_FILE).read_text())
    assert before["status"] == "running"  # nobody could say otherwise
    finished = {p.parent.relative_to(run_dir): p.read_bytes() for p in run_dir.glob(f"*/*/{SUMMARY_FILE}")
                if "." not in p.parent.name}  # not the set-aside (.disturbed): kept, but not "kept" by the resume
    assert finished

    refused = mcpbench("run", "--resume", str(run_dir), "--rounds", "3")
    out, _ = refused.communicate(timeout=60)
    assert refused.returncode == 2 and "leave out --rounds" in " ".join(out.split()) and "Traceback" not in out, out

    resumed = mcpbench("run", "--resume", str(run_dir))
    out, _ = resumed.communicate(timeout=600)
    assert resumed.returncode == 0, out
    assert "marked abandoned" in out and "Traceback" not in out, out
    run = json.loads((run_dir / RUN_FILE).read_text())
    assert run["status"] == "complete"
    (entry,) = run["resumes"]
    assert entry["previous_status"] == "abandoned" and entry["kept"] == len(finished), entry
    assert len(entry["set_aside"]) == 1 and entry["set_aside"][0].endswith(".incomplete")  # the one cut short
    assert entry["host_changed"] == [] and not entry["recalibrated"]
    assert run["rounds"][0] == before["rounds"][0]  # the recorded order
    for where, content in finished.items():  # kept as they were, not measured again
        assert (run_dir / where / SUMMARY_FILE).read_bytes() == content
    for server in SERVERS:
        listed = [m for m in run["servers"][server]["measurements"] if ".disturbed" not in m]  # a busy host's retry
        assert sorted(listed) == ["session-5vu-r1", "session-5vu-r2"], listed
        assert run["servers"][server]["status"] == "ok"
    time.sleep(0.5)
    assert not leftovers(str(run_dir))

    again = mcpbench("run", "--resume", str(run_dir))
    out, _ = again.communicate(timeout=60)
    assert again.returncode == 2 and "nothing to resume" in " ".join(out.split()), out

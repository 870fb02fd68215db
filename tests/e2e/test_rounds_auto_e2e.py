"""End-to-end --rounds auto: the real CLI looks at its headline ranking after round 3, stops (resolved, or at
the cap of 3 rounds it was given), records the look and why in run.json, and the report ranks the run at the
level the look spent and says how the rounds stopped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpbench.analysis import sequential
from mcpbench.results.model import RUN_FILE, Run, validated
from test_smoke_run import leftovers, mcpbench, only_run

pytestmark = pytest.mark.e2e

SERVERS = ("baseline", "go")
SHORT = ["--quick", "--vus", "5", "--ramp-up", "1", "--warmup", "1", "--duration", "2", "--ramp-down", "0"]


def test_rounds_stop_at_a_look_and_the_report_ranks_at_its_level(tmp_path: Path) -> None:
    results = tmp_path / "results"
    # Open model at one given rate: an equal load, so the headline is CPU ms per call (no harness limit to meet).
    # Built by the run (no --no-build): on a fresh clone nothing before this test has built go.
    proc = mcpbench("run", *SERVERS, *SHORT, "--load", "open", "--rate", "60", "--rounds", "auto", "--max-rounds",
                    "3", "--no-calibrate", "--results-dir", str(results))
    out, _ = proc.communicate(timeout=900)
    assert proc.returncode == 0, out
    run_dir = only_run(results)
    run = validated(Run, json.loads((run_dir / RUN_FILE).read_text()), RUN_FILE)
    auto = run["rounds_auto"]
    assert run["config"]["rounds_auto"] is True and run["config"]["runs"] == 3
    assert auto["alpha"] == pytest.approx(sequential.look_alpha(3)) and auto["headline"] == "session-rate60 cpu_ms_per_call"
    assert auto["rounds"] == 3 and len(run["rounds"]) == 3 and auto["stopped_by"] in ("resolved", "max-rounds")
    assert auto["rounds_by_server"] == {"baseline": 3, "go": 3}
    # --no-calibrate: every measurement is limit-unknown, so none takes part and the look has no pair to judge
    assert auto["looks"] == [] or [look["round"] for look in auto["looks"]] == [3]
    assert "Rounds auto: no further round" in " ".join(out.split())
    site = tmp_path / "site"
    proc = mcpbench("report", str(run_dir), "--out", str(site))
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, out
    index = (site / "index.html").read_text()
    assert f'id="rounds-auto-{run["run_id"]}"' in index and "Rounds until the order was known" in index
    assert not leftovers(str(tmp_path))

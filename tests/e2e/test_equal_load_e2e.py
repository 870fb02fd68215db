"""End-to-end equal load: the real CLI measures two servers' closed model in round 1 only (--closed-once, the
first-run profile), sets one rate from the slower of them, offers it to both (round 1's pass after its closed
loads, then alone in rounds 2 and 3), and the report leads with the equal load, saying why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpbench.results.model import RUN_FILE, SUMMARY_FILE, Run, Summary, validated
from test_smoke_run import leftovers, mcpbench, only_run

pytestmark = pytest.mark.e2e

SERVERS = ("baseline", "go")
SHORT = ["--quick", "--vus", "5", "--ramp-up", "1", "--warmup", "1", "--duration", "2", "--ramp-down", "0"]


def test_every_server_is_offered_the_slowest_servers_share(tmp_path: Path) -> None:
    results = tmp_path / "results"
    # No calibration (it takes a minute): the rate is then the slowest server's share, with no harness cap.
    # Built by the run (no --no-build): on a fresh clone nothing before this test has built go.
    proc = mcpbench("run", *SERVERS, *SHORT, "--runs", "3", "--equal-load", "0.5", "--closed-once", "--no-calibrate",
                    "--results-dir", str(results))
    out, _ = proc.communicate(timeout=900)
    assert proc.returncode == 0, out
    run_dir = only_run(results)
    run = validated(Run, json.loads((run_dir / RUN_FILE).read_text()), RUN_FILE)
    assert run["config"]["equal_load"] == 0.5 and run["config"]["kind"] == "open"
    plan = run["equal_load"]["session"]
    closed = {name: validated(Summary, json.loads((run_dir / name / "session-5vu-r1" / SUMMARY_FILE).read_text()),
                              SUMMARY_FILE)["throughput"]["tool_calls_per_s"] for name in SERVERS}
    slowest = min(closed, key=closed.get)
    assert plan["slowest"] == slowest and plan["slowest_tool_calls_per_s"] == round(closed[slowest], 1)
    assert plan["rate"] == round(0.5 * closed[slowest], 1) and plan["harness_cap"] is None
    for name in SERVERS:
        assert run["servers"][name]["status"] == "ok", run["servers"][name]
        assert not (run_dir / name / "session-5vu-r2").exists()  # closed once: round 1 only
        for round_index in (1, 2, 3):
            # (a host-disturbed measurement is set aside as <dir>.disturbed; the one measured again is here)
            summary = json.loads((run_dir / name / f"session-equal0.5-r{round_index}" / SUMMARY_FILE).read_text())
            assert (summary["kind"], summary["rate"], summary["equal_fraction"]) == ("open", plan["rate"], 0.5)
            assert summary["run"] == round_index
    # Round 1 measured the equal load after every server's closed load: its measurements come last.
    assert [m for m in run["servers"]["go"]["measurements"] if m.endswith("-r1")][-1] == "session-equal0.5-r1"
    site = tmp_path / "site"
    proc = mcpbench("report", str(run_dir), "--out", str(site))
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, out
    assert f"{plan['rate']:,.1f} calls/s offered to every server" in " ".join(out.split())
    index = (site / "index.html").read_text()
    assert 'id="equal-session-50equal"' in index and "Rank (CPU)" in index
    # one round of throughput cannot be tested: the equal load leads, and the page says so in one sentence
    assert "Why this ranking leads:" in index and "fewer than 3 rounds" in index
    assert not leftovers(str(tmp_path))

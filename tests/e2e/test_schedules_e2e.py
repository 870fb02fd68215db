"""End-to-end kinds of load that are schedules: the real CLI runs a staged load and a spike through the real Go
load driver on the go and python servers with stages of a few seconds, and summary.json and the report carry the
figures of every stage and the spike's recovery time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpbench.results.model import SUMMARY_FILE, Summary, validated
from test_smoke_run import leftovers, mcpbench, only_run

pytestmark = pytest.mark.e2e

SERVERS = ("go", "python")
STAGES = "2s:3,3s:6,3s:6,2s:0"  # up to 3 VUs, up to 6, 6 held, down to 0
# a 12 s window: 4 s before the spike, the spike 2 s, 6 s after it (time for a server to recover in)
SPIKE = ["--vus", "3", "--spike", "4", "--ramp-up", "1", "--warmup", "1", "--duration", "12", "--ramp-down", "0"]


def _run(tmp_path: Path, *options: str) -> tuple[Path, Path]:
    results = tmp_path / "results"
    proc = mcpbench("run", *SERVERS, "--quick", "--no-calibrate", *options, "--results-dir", str(results))
    out, _ = proc.communicate(timeout=900)
    assert proc.returncode == 0, out
    run_dir = only_run(results)
    site = tmp_path / "site"
    proc = mcpbench("report", str(run_dir), "--out", str(site))
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, out
    return run_dir, site / "index.html"


def _summary(run_dir: Path, server: str, measurement: str) -> dict:
    return validated(Summary, json.loads((run_dir / server / measurement / SUMMARY_FILE).read_text()), SUMMARY_FILE)


def test_a_staged_load_has_figures_for_every_stage(tmp_path: Path) -> None:
    run_dir, index = _run(tmp_path, "--load", "staged", "--stages", STAGES)
    page = index.read_text()
    assert 'id="stages"' in page
    for server in SERVERS:
        measurement = "session-staged-2s3-3s6-3s6-2s0-r1"
        summary = _summary(run_dir, server, measurement)
        assert summary["status"] == "ok" and summary["kind"] == "staged" and summary["vus"] == 6, summary["reason"]
        stages = summary["stages"]
        assert [(s["start_s"], s["end_s"], s["target"]) for s in stages] == [(0, 2, 3), (2, 5, 6), (5, 8, 6),
                                                                            (8, 10, 0)]
        for stage in stages:
            assert stage["tool_calls_per_s"] > 0 and 0 < stage["p50_ms"] <= stage["p95_ms"] <= stage["p99_ms"]
            assert stage["errors"] == 0 and stage["cpu_avg_pct"] is not None and stage["mem_peak_mb"] > 0
        # 6 VUs held do more than 3 on the way up: the stages are measured apart
        assert stages[2]["tool_calls_per_s"] > stages[0]["tool_calls_per_s"]
        assert summary["recovery"] is None
        assert f'id="stages-{server}-{measurement}"' in page
        held = f"{stages[2]['tool_calls_per_s']:,.1f}"
        assert held in page
    assert not leftovers(str(tmp_path))


def test_a_spike_records_the_p99_recovery_time(tmp_path: Path) -> None:
    run_dir, index = _run(tmp_path, "--load", "spike", *SPIKE)
    page = index.read_text()
    for server in SERVERS:
        measurement = "session-spike4x3vu-r1"
        summary = _summary(run_dir, server, measurement)
        assert summary["status"] == "ok" and summary["vus"] == 12, summary["reason"]
        before, spike, after = summary["stages"]
        assert (before["name"], before["target"], spike["target"], after["target"]) == ("before", 3, 12, 3)
        assert (spike["start_s"], spike["end_s"]) == (6, 8)  # 1 s ramp-up + 1 s warm-up + 4 s before it
        # Each stage has its own figures. Not that the spike served more: a server already saturated at 3 VUs on
        # a busy host serves fewer calls at 12 (python read 43.0 calls/s in the spike against 51.25 before it).
        assert all(stage["tool_calls_per_s"] > 0 and stage["p99_ms"] for stage in (before, spike, after))
        recovery = summary["recovery"]
        assert recovery["spike_end_s"] == 8 and recovery["before_p99_ms"] > 0 and recovery["spike_p99_ms"] > 0
        if recovery["recovery_s"] is not None:
            assert recovery["recovery_s"] >= 0 and recovery["recovered_at_s"] == 8 + recovery["recovery_s"]
        said = (f"{recovery['recovery_s']:,.1f} s" if recovery["recovery_s"] is not None else "not recovered")
        section = page[page.index(f'id="stages-{server}-{measurement}"'):]
        assert "Recovery after the spike" in section and said in section[:section.index("</p>", section.index(
            "Recovery after the spike"))]
    assert not leftovers(str(tmp_path))

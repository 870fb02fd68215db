"""Who stopped, read from what each did — on recorded real measurements (tests/fixtures/recorded/faults, the drills of
tests/e2e/test_faults_e2e.py): a frozen server is the server's failure, a frozen load driver the harness's, a server
busy at its memory limit without answering the server's; and no healthy recorded measurement is called either."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpbench.analysis.summary import reanalysis_differences, reanalyze

FAULTS = Path(__file__).resolve().parents[1] / "fixtures" / "recorded" / "faults"
RESULTS = Path(__file__).resolve().parents[1] / "fixtures" / "results"


def test_a_frozen_server_stopped_answering_and_the_generator_timed_its_calls_out_on_time() -> None:
    again = reanalyze(FAULTS / "go-frozen")  # go SIGSTOPped 2 s into its window, 5 VUs
    assert again.status == "failed" and again.phase == "load"
    assert again.reason.startswith("stopped answering: 5 requests in flight timed out after 30 s; last answer at t = 5.0 s")
    assert "its CPU 0 % of a core meanwhile" in again.reason
    checks = again.checks
    assert checks.problems == [] and checks.timeouts_noticed_late == 0 and checks.idle_seconds == 0
    assert checks.empty_seconds == 4 and checks.timed_out == 5
    # the calls it left unanswered count in the window they were sent in, at the timeout
    assert again.errors.kinds == {"timeout": 5}
    assert again.latency_ms.tool_call_all.max == pytest.approx(30_000.0)
    assert reanalysis_differences(FAULTS / "go-frozen") == []


def test_a_frozen_load_driver_is_the_harnesss_however_quiet_the_server() -> None:
    again = reanalyze(FAULTS / "driver-frozen")  # the load driver SIGSTOPped for 4 s of go's window
    assert again.status == "invalid" and again.phase == "loadgen"
    assert again.reason.startswith("the load generator did not run for 4.1 s of the window (from t = 4.9 s)")
    assert again.checks.loadgen_stalled_s == pytest.approx(4.1, abs=0.2) and again.checks.timed_out == 0
    assert reanalysis_differences(FAULTS / "driver-frozen") == []


def test_a_server_busy_at_its_memory_limit_without_answering_is_the_servers() -> None:
    again = reanalyze(FAULTS / "go-4mib-busy-at-its-memory-limit")  # 4 MiB replies at 40 MiB: no OOM kill, no answer
    assert again.status == "failed" and "it never answered" in again.reason
    assert "its CPU 79 % of a core meanwhile" in again.reason


def test_no_recorded_healthy_measurement_is_called_stalled_or_idle(reanalysed) -> None:
    measured = [path.parent for path in RESULTS.glob("*/*/*/context.json")]
    assert len(measured) > 100  # the report's recorded runs: every server, mode and round
    verdicts = {str(where.relative_to(RESULTS)): reanalysed(where) for where in measured}
    stalled = [where for where, s in verdicts.items() if s.status == "failed"]
    idle = [where for where, s in verdicts.items() if (s.checks.idle_seconds or 0) > 0]
    assert stalled == [] and idle == [], (stalled, idle)

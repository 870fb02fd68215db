"""The abandoned dimension's figures (analysis/abandoned.py) on a recorded real run (the e2e test's: go and python as
their SESSIONS=1 twins, 5 VUs leaving a session per call for 6 s, then 6 s without a client; rust listed as not
offering it), and the Dimensions page's table of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpbench.analysis.abandoned import abandonment
from mcpbench.analysis.summary import reanalysis_differences
from mcpbench.results.layout import MeasurementDir
from mcpbench.results.read import read_json, read_processes, read_samples

RUN = Path(__file__).resolve().parents[1] / "fixtures" / "abandoned" / "20261206-190117-local-dimension"


def measurement(server: str) -> MeasurementDir:
    (where,) = (RUN / server).glob("session-staged-*-r1")
    return MeasurementDir(where)


def inputs(m: MeasurementDir):
    """What the report hands the analysis: samples, process readings, the abandonment's window, the timeout."""
    summary = read_json(m.summary)
    return (read_samples(m.samples), read_processes(m.processes),
            (summary["window"]["start_s"], summary["window"]["end_s"]), 30.0)


def figures(server: str):
    m = measurement(server)
    left = read_json(m.context)["loadgen_counts"]["sessions_left_open"]
    return abandonment(*inputs(m), left), left, m


@pytest.mark.parametrize(("server", "kib"), [("go-sessions", 5.6), ("python-sessions", 37.5)])
def test_a_server_that_keeps_abandoned_sessions_is_measured_as_such(server: str, kib: float) -> None:
    found, left, m = figures(server)
    assert found is not None and found.issued_ids and found.sessions == left > 500
    assert found.kib_per_session == pytest.approx(kib, abs=0.1)
    assert found.peak.rss_mb is not None and found.before.rss_mb is not None
    assert found.kib_per_session_whole == pytest.approx((found.peak.rss_mb - found.before.rss_mb) * 1024 / left)
    assert found.grew and found.reclaimed_after_s is None and found.kept_share is not None and found.kept_share > 1
    assert found.verdict.startswith("not reclaimed: ") and found.watched_s > 5
    assert found.before.close_wait == 0 and found.peak.fds is not None and found.p99_late_ms is not None
    assert reanalysis_differences(m) == []  # the staged summary re-analyses to what was recorded


def test_a_server_that_issued_no_session_id_kept_none() -> None:
    stateless = abandonment(*inputs(measurement("go-sessions")), left_open=0)
    assert stateless is not None and not stateless.issued_ids
    assert stateless.verdict == "no session to keep: the server issued no session id"

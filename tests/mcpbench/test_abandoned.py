"""The abandoned dimension's figures (analysis/abandoned.py) on a recorded real run (the e2e test's: go and python as
their SESSIONS=1 twins, 5 VUs leaving a session per call for 6 s, then 6 s without a client; rust listed as not
offering it), and the Dimensions page's table of them."""

from __future__ import annotations

import json
import shutil
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


def test_the_decision_page_says_who_frees_abandoned_sessions(tmp_path: Path) -> None:
    # The fixture was recorded before the dimension asked its question: a copy with the plan's question as a run
    # made now records it (DIMENSION.plan), the rest as recorded.
    from mcpbench.dimensions.abandoned import DIMENSION
    from mcpbench_report import decision
    from mcpbench_report.consolidate import consolidate
    from mcpbench_report.load import load

    run = tmp_path / RUN.name
    shutil.copytree(RUN, run)
    recorded = json.loads((run / "run.json").read_text())
    dimension = recorded["config"]["dimension"]
    plan = DIMENSION.plan(dimension["points"], ["session"], "staged", [5], None)
    assert [decision.figure for decision in plan.decisions] == ["reclaimed"]
    dimension.pop("decision", None)   # recorded when a dimension asked one question
    dimension["decisions"] = [plan.decisions[0].model_dump()]
    (run / "run.json").write_text(json.dumps(recorded))
    answer = next(a for a in decision.decide(consolidate(load([run]))).answers if a.key == "dimension-abandoned")
    assert answer.question == "Frees abandoned sessions" and answer.verdict == "not tested" and answer.top == []
    # neither twin gave any of its growth back in the 6 s watch; go's kept less per session over the whole
    # recorded before the driver pinged the first session after the watch: the RSS alone decides
    assert answer.note.startswith("0 of the 2 servers that grew gave it back within the 6 s watch (one round, "
                                  "described; 0 of them asked"), answer.note
    assert answer.note.endswith("least kept per session: go-sessions, 6.2 KiB"), answer.note


def test_the_first_sessions_answer_after_the_watch_decides_whether_it_was_freed() -> None:
    found, left, _ = figures("go-sessions")
    assert found is not None and not found.freed
    m = measurement("go-sessions")
    held = abandonment(*inputs(m), left, oldest_status=200)
    assert held is not None and held.oldest_held and not held.freed
    assert held.verdict.startswith("still held: the first session answered after ")
    gone = abandonment(*inputs(m), left, oldest_status=404)
    assert gone is not None and gone.oldest_held is False and gone.freed
    assert gone.verdict.startswith("not reclaimed: the first session let go (404), but ")


STDIO_RUN = Path(__file__).resolve().parents[1] / "fixtures" / "abandoned-stdio" / "20261207-041854-local-dimension"


@pytest.mark.parametrize(("server", "unread"), [("go-sessions", 2251), ("python-sessions", 2247)])
def test_a_stdio_client_that_stops_reading_is_measured_per_request_left_unread(server: str, unread: int) -> None:
    (where,) = (STDIO_RUN / server).glob("stdio-staged-*-r1")
    m = MeasurementDir(where)
    counts = read_json(m.context)["loadgen_counts"]
    # every request sent unread, every reply read as the backlog once the client read again, then a ping answered
    assert counts["requests_unread"] == counts["late_replies"] == unread and counts["answered_after_watch"] is True
    assert read_json(m.summary)["errors"]["count"] == 0   # unread requests are the client's choice, no failure
    found = abandonment(*inputs(m), counts["requests_unread"], None, counts["answered_after_watch"])
    assert found is not None and found.sessions == unread and found.answered_after is True
    assert found.grew and found.kib_per_session is not None and found.kib_per_session > 0
    assert found.p99_early_ms is None   # no call had an answer to wait for
    assert found.verdict.startswith("not reclaimed: ")
    assert reanalysis_differences(m) == []
    silent = abandonment(*inputs(m), counts["requests_unread"], None, False)
    assert silent is not None and silent.verdict.startswith("stopped answering: no reply to a ping")

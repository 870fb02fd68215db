"""The analysis on real k6 samples, trimmed to whole iterations (tests/fixtures/recorded/README.md)."""

from pathlib import Path

import pytest

from analysis_helpers import context as recorded_context
from analysis_helpers import summarize
from mcpbench.results.model import Context
from mcpbench.results.read import read_samples

RECORDED = Path(__file__).resolve().parents[1] / "fixtures" / "recorded"
WINDOW = (5.0, 7.0)  # every row of the trimmed files lies in it


def context(**overrides) -> Context:
    return recorded_context(**{**dict(mode="session", kind="closed", vus=4, rate=None), **overrides})


# Hand-counted from the files (zcat | awk): rows, HTTP entries per row, iterations (tools/list rows).
EXPECTED = {
    # name: (rows, http per session, iterations)
    "rust": (528, 3, 132),      # no session id: initialize, notification, call
    "quarkus": (372, 4, 93),    # a session id: + DELETE
}


@pytest.mark.parametrize("name", EXPECTED)
def test_v2_rps_is_8_requests_per_3_tool_calls_whether_or_not_the_server_issues_a_session_id(name: str) -> None:
    rows, http_per_session, iterations = EXPECTED[name]
    samples = read_samples(RECORDED / f"{name}-session-4vu.csv.gz")
    assert len(samples) == rows and samples["ok"].all()
    summary = summarize(samples, WINDOW, [], context())
    thr = summary.throughput
    calls = 3 * iterations                      # one session per tool per iteration, all successful
    assert thr.successful_tool_calls == calls and thr.tool_calls_per_s == pytest.approx(calls / 2.0)
    # v2: initialize + tools/call (or tools/list) per session: 3 tool sessions x 2 + 1 tools/list session x 2
    assert thr.v2_requests == 2 * rows == 8 * iterations
    assert thr.v2_rps == pytest.approx(8 * iterations / 2.0)
    assert thr.v2_rps / thr.tool_calls_per_s == pytest.approx(8 / 3)
    # every HTTP request, the old figure: here the two servers differ
    assert thr.http_requests == http_per_session * rows
    assert thr.http_rps / thr.tool_calls_per_s == pytest.approx(http_per_session * 4 / 3)
    # the whole run: every sample / k6's run time
    whole = summarize(samples, WINDOW, [], context(loadgen_run_s=4.0)).throughput
    assert whole.v2_requests_whole_run == 2 * rows and whole.v2_rps_whole_run == pytest.approx(2 * rows / 4.0)


@pytest.mark.parametrize("name", EXPECTED)
def test_v2_tools_call_latency_is_the_call_request_pooled_and_real_samples_pass_every_cross_check(name: str) -> None:
    rows, http_per_session, iterations = EXPECTED[name]
    samples = read_samples(RECORDED / f"{name}-session-4vu.csv.gz")
    summary = summarize(samples, WINDOW, [], context(loadgen_exit_code=0,
                                                     loadgen_counts={"iterations": iterations,
                                                                     "http_reqs": http_per_session * rows,
                                                                     "dropped_iterations": 0}))
    calls = samples[samples["tool"] != "tools/list"]
    third = calls["http_ms"].str.split(";").str[2].astype(float)   # the tools/call request
    lat = summary.latency_ms
    assert lat.v2_tools_call.count == 3 * iterations
    assert lat.v2_tools_call.max == pytest.approx(third.max())
    assert lat.v2_tools_call.p50 == pytest.approx(third.median())
    assert lat.tool_call_all == lat.tool_call          # no failure: the same population
    assert summary.status == "ok" and summary.checks.problems == []
    assert summary.checks.empty_seconds == 0
    # Real closed-loop samples: Little's law holds within its tolerance.
    assert summary.checks.littles_law["gap"] < 0.10 and "littles-law" not in summary.flags

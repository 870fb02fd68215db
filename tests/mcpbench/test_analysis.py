from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis_helpers import context
from analysis_helpers import summarize as summarize_with
from mcpbench.analysis.summary import HARNESS_CAPACITY, LOAD_MODEL, bottleneck_flags
from mcpbench.analysis.summary import overruled
from mcpbench.analysis.summary import publishable as analysis_publishable
from mcpbench.results.model import ComponentFigures, Sample, document
from mcpbench.results.read import read_json, read_samples
from mcpbench.results.upgrades import upgrade_context
from mcpbench.results.write import write_checked


# A limit no test load comes near, so that only the tests about limits see one judged.
FAR_LIMIT = {"limit_kind": LOAD_MODEL, "limit_calls_per_s": 1e9}


def summarize(samples, window, resources, harness_cores=1, limits_applied=True, rate=None, **fields):
    """The analysis as the suite calls it, with a context like the one the old positional call implied."""
    fields = {**FAR_LIMIT, **fields}
    ctx = context(mode=fields.pop("mode", "session"), kind="open" if rate else "closed", vus=fields.pop("vus", 1),
                  rate=rate, harness_cores=harness_cores, limits_applied=limits_applied, **fields)
    return summarize_with(samples, window, resources, ctx)


def counts(iterations: int, http_reqs: int, **driver: int) -> dict[str, int]:
    """The generator's own counts (loadgen-counts.json): k6's three, and any of the load driver's."""
    return {"iterations": iterations, "http_reqs": http_reqs, "dropped_iterations": 0, **driver}


def cpu(pct: float) -> ComponentFigures:
    """A component's figures in the window that say only its mean CPU."""
    return ComponentFigures(cpu_avg_pct=pct, cpu_peak_pct=pct, mem_avg_mb=None, mem_peak_mb=None, samples=1)


def frame(rows: list[tuple]) -> pd.DataFrame:
    data = pd.DataFrame(rows, columns=["t_s", "vu", "tool", "ok", "error_kind", "call_ms", "session_ms", "http_ms"])
    return data


def test_warm_up_and_ramps_are_excluded_from_every_figure() -> None:
    rows = [
        (1.0, 1, "search_products", 1, "", 500.0, 510.0, "5;5;500"),     # ramp-up
        (5.0, 1, "checkout", 0, "http_500", 1.0, 2.0, "1;1;1"),           # warm-up error
        (10.0, 1, "search_products", 1, "", 2.0, 3.0, "0.5;0.5;2"),
        (11.0, 1, "get_user_cart", 1, "", 4.0, 5.0, "0.5;0.5;4"),
        (12.0, 1, "tools/list", 1, "", 1.0, 2.0, "0.5;0.5;1"),
        (19.9, 1, "checkout", 0, "jsonrpc_-32603", 3.0, 4.0, "0.5;0.5;3"),
        (20.0, 1, "checkout", 1, "", 900.0, 901.0, "1;1;900"),            # ramp-down (window is half-open)
    ]
    summary = summarize(frame(rows), (10.0, 20.0), [], harness_cores=1, limits_applied=True)
    thr = summary.throughput
    assert thr.tool_calls == 3  # tools/list is not a tool call
    assert thr.successful_tool_calls == 2
    assert thr.tool_calls_per_s == pytest.approx(0.2)
    assert thr.http_requests == 12 and thr.http_rps == pytest.approx(1.2)
    # the v2 study's count: initialize + the call, per session (not the notification, not DELETE)
    assert thr.v2_requests == 8 and thr.v2_rps == pytest.approx(0.8)
    assert summary.latency_ms.tool_call.max == 4.0  # neither 500 nor 900 leaked in
    assert document(summary.errors) == {"count": 1, "failed_tool_calls": 1, "rate": pytest.approx(1 / 3),
                                 "kinds": {"jsonrpc_-32603": 1}}
    # One iteration in 10 s at 1 VU is no closed loop that ran as configured: Little's law says so.
    assert summary.flags == ["errors", "littles-law"]


def test_the_cross_tool_p99_is_a_percentile_of_all_samples_not_an_average_of_percentiles() -> None:
    rng = np.random.default_rng(7)
    fast = rng.uniform(1, 2, 990)       # search_products: many fast calls
    slow = rng.uniform(100, 200, 10)    # checkout: few slow ones
    rows = [(10 + i * 0.001, 1, "search_products", 1, "", float(v), float(v), str(v)) for i, v in enumerate(fast)]
    rows += [(15 + i * 0.001, 1, "checkout", 1, "", float(v), float(v), str(v)) for i, v in enumerate(slow)]
    latency = summarize(frame(rows), (10.0, 20.0), [], 1, True).latency_ms
    pooled = np.percentile(np.concatenate([fast, slow]), 99)
    averaged = (latency.per_tool["search_products"].p99 + latency.per_tool["checkout"].p99) / 2
    count_weighted = (990 * latency.per_tool["search_products"].p99 + 10 * latency.per_tool["checkout"].p99) / 1000
    assert latency.tool_call.p99 == pytest.approx(pooled)
    assert latency.tool_call.p99 != pytest.approx(averaged, rel=0.05)
    assert latency.tool_call.p99 != pytest.approx(count_weighted, rel=0.05)


def test_resources_count_only_inside_the_window_and_saturation_is_flagged() -> None:
    samples = [Sample(t, "server", cpu, 100.0 + t) for t, cpu in [(5, 10.0), (11, 90.0), (12, 100.0), (25, 5.0)]]
    samples += [Sample(t, "loadgen", 95.0, 50.0) for t in (11, 12)]
    summary = summarize(frame([(11.0, 1, "checkout", 1, "", 1.0, 1.0, "1")]), (10.0, 20.0), samples, 1, False)
    server = summary.resources["server"]
    assert server.cpu_avg_pct == pytest.approx(95.0)
    assert server.mem_peak_mb == pytest.approx(112.0)
    assert "bound:loadgen" in summary.flags and "cgroup-not-applied" in summary.flags


def test_bottleneck_flags_respect_what_each_component_can_use() -> None:
    assert bottleneck_flags({"redis": cpu(90.0)}, harness_cores=4) == ["bound:redis"]
    assert bottleneck_flags({"loadgen": cpu(90.0)}, harness_cores=4) == []
    assert bottleneck_flags({"loadgen": cpu(60.0), "api": cpu(30.0)}, 1) == ["bound:harness"]


def test_open_model_reports_the_calls_it_could_not_start() -> None:
    rows = [(10 + i * 0.1, 1, "checkout", 1, "", 1.0, 1.0, "1") for i in range(50)]
    summary = summarize(frame(rows), (10.0, 20.0), [], 1, True, rate=10.0)
    assert summary.throughput.dropped_iterations == 50
    assert "dropped-iterations" in summary.flags


def test_cpu_spent_by_other_programs_marks_the_measurement_noisy() -> None:
    quiet = [Sample(11, "server", 90.0, 1.0), Sample(11, "loadgen", 60.0, 1.0), Sample(11, "host", 160.0, 1.0)]
    noisy = [Sample(11, "server", 90.0, 1.0), Sample(11, "loadgen", 60.0, 1.0), Sample(11, "host", 190.0, 1.0)]
    row = frame([(11.0, 1, "checkout", 1, "", 1.0, 1.0, "1")])
    assert "noisy-host" not in summarize(row, (10.0, 20.0), quiet, 1, True).flags
    summary = summarize(row, (10.0, 20.0), noisy, 1, True)
    assert "noisy-host" in summary.flags
    assert summary.foreign_cpu_pct == pytest.approx(40.0)


# --- schema 2 rules: each test fails if its rule is broken ---------------------------------------------

def steady_rows(seconds: range, per_second: int = 10, vus: int = 1, session_ms: float = 1.0) -> list[tuple]:
    """A closed loop that ran as configured: per second, `per_second` tool sessions + per_second/3 tools/list."""
    rows = []
    for s in seconds:
        for i in range(per_second):
            rows.append((s + i / per_second, 1 + i % vus, ("search_products", "get_user_cart", "checkout")[i % 3], 1,
                         "", session_ms, session_ms, "0.1;0.1;0.5"))
    return rows


def test_a_timeout_reaches_the_all_calls_p99_at_the_timeout_and_failures_stay_out_of_success_latency() -> None:
    rows = steady_rows(range(10, 20))
    rows += [(15.5, 1, "checkout", 0, "timeout", 30000.0, 30001.0, "0.1;0.1;30000")]
    rows += [(16.5, 1, "checkout", 0, "transport", None, 7.0, "7")]  # initialize failed: no call sent
    summary = summarize(frame(rows), (10.0, 20.0), [])
    lat = summary.latency_ms
    assert lat.tool_call.max == 1.0 and lat.tool_call.count == 100
    assert lat.tool_call_all.count == 102
    assert lat.tool_call_all.max == 30000.0  # the timeout at the request timeout (30 s)
    assert lat.tool_call_all.p99 == pytest.approx(np.percentile([1.0] * 100 + [7.0, 30000.0], 99))
    assert lat.http_request.max == 0.5       # successful samples only: one population


def test_an_empty_second_or_samples_that_stop_early_make_the_measurement_invalid() -> None:
    gap = steady_rows(range(10, 14)) + steady_rows(range(15, 20))
    summary = summarize(frame(gap), (10.0, 20.0), [])
    assert summary.status == "invalid" and summary.phase == "loadgen"
    assert summary.checks.empty_seconds == 1 and not summary.publishable
    early = summarize(frame(steady_rows(range(10, 17))), (10.0, 20.0), [])
    assert early.status == "invalid" and "before the window ends" in early.reason
    whole = summarize(frame(steady_rows(range(8, 22))), (10.0, 20.0), [])
    assert whole.status == "ok" and whole.checks.problems == []


def test_k6s_exit_code_counts_unless_the_orchestrator_stopped_it() -> None:
    rows = frame(steady_rows(range(8, 22)))
    failed = summarize(rows, (10.0, 20.0), [], loadgen_exit_code=1)
    assert failed.status == "invalid" and "exited with code 1" in failed.reason
    stopped = summarize(rows, (10.0, 20.0), [], loadgen_exit_code=105, loadgen_stopped_early=True)
    assert stopped.status == "ok"


def test_k6s_own_counts_must_agree_with_the_samples() -> None:
    rows = frame(steady_rows(range(8, 22)))  # 140 sessions, 3 requests each; 0 tools/list
    agree = summarize(rows, (10.0, 20.0), [], loadgen_counts=counts(0, 421))
    assert agree.status == "ok" and agree.checks.sample_http_reqs == 420
    disagree = summarize(rows, (10.0, 20.0), [], loadgen_counts=counts(0, 500))
    assert disagree.status == "invalid" and "the load generator counted 500 HTTP requests" in disagree.reason


def test_the_pages_after_a_first_of_a_paged_tools_list_are_counted_apart() -> None:
    # the driver sent 80 cursor pages besides the 420 requests the samples hold (a sample is its whole list)
    rows = frame(steady_rows(range(8, 22)))
    paged = summarize(rows, (10.0, 20.0), [], loadgen_counts=counts(0, 501, cursor_pages=80))
    assert paged.status == "ok", paged.reason
    assert paged.checks.loadgen_http_reqs == 501 and paged.checks.loadgen_cursor_pages == 80
    # a disagreement beyond them names them: the total is the generator's own, the rest is what was compared
    short = summarize(rows, (10.0, 20.0), [], loadgen_counts=counts(0, 580, cursor_pages=80))
    assert short.status == "invalid" and short.checks.loadgen_http_reqs == 580
    assert ("the load generator counted 500 HTTP requests besides its 80 tools/list cursor pages, the samples 420"
            in short.reason)
    # over stdio they were no HTTP requests: the driver counts none, and nothing is left out
    stdio = frame([(8 + i * 0.1, 1, "checkout", 1, "", 1.0, 1.0, "") for i in range(140)])
    piped = summarize(stdio, (10.0, 20.0), [], mode="stdio",
                      loadgen_counts=counts(0, 0, cursor_pages=80))
    assert piped.status == "ok" and piped.checks.sample_http_reqs == 0, piped.reason
    # a generator that does not follow cursors says nothing of them (k6)
    assert summarize(rows, (10.0, 20.0), [], loadgen_counts=counts(0, 421)
                     ).checks.loadgen_cursor_pages is None


def closed_loop_rows(session_ms: float = 20.0) -> list[tuple]:
    """10 iterations/s, each 4 sessions of `session_ms` + 50 ms think: with 20 ms, 0.13 s, so 1.3 VUs busy
    (Little's law); with 12.5 ms, 0.1 s: one VU."""
    rows = []
    for s in range(8, 22):
        for i in range(10):
            t = s + i / 10
            rows += [(t, 1, tool, 1, "", session_ms, session_ms, "1;1;18") for tool in
                     ("search_products", "get_user_cart", "checkout", "tools/list")]
    return rows


def test_littles_law_flags_a_closed_loop_that_did_not_run_as_configured() -> None:
    # One VU whose iterations took 4 x 13.5 + 50 = 104 ms at 10 iterations/s: 1.04 VUs busy, a 4 % gap.
    ok = summarize(frame(closed_loop_rows(13.5)), (10.0, 20.0), [], vus=1)
    assert "littles-law" not in ok.flags
    assert ok.checks.littles_law["predicted"] == pytest.approx(1.04)
    off = summarize(frame(closed_loop_rows(17.5)), (10.0, 20.0), [], vus=1)   # 120 ms: 1.2 VUs busy, a 20 % gap
    assert "littles-law" in off.flags and not off.publishable


# the probe may move up to 15 % (HOST_PROBE_MAX_CHANGE: a few % is the probe's own spread)
@pytest.mark.parametrize("steal, after, unstable", [(0.5, 1.04, False), (3.0, 1.0, True), (0.0, 1.12, False),
                                                    (0.0, 0.88, False), (0.0, 1.16, True), (0.0, 0.84, True)])
def test_host_stability_from_steal_and_the_speed_probe(steal: float, after: float, unstable: bool) -> None:
    resources = [Sample(t, name, value, 0.0) for t in (11, 12)
                 for name, value in (("steal0", 0.0), ("steal1", steal), ("cpu0", 50.0), ("cpu1", 90.0))]
    summary = summarize(frame(steady_rows(range(8, 22))), (10.0, 20.0), resources,
                        server_cpus=(1,), harness_cpus=(0,),
                        host_probe={"0": {"before_s": 1.0, "after_s": 1.0}, "1": {"before_s": 1.0, "after_s": after}})
    host = summary.host
    assert host.steal_pct == {"0": 0.0, "1": steal} and host.busy_pct == {"0": 50.0, "1": 90.0}
    assert host.probe["1"].change == pytest.approx(after - 1)
    assert host.unstable is unstable and ("unstable-host" in summary.flags) is unstable
    assert summary.foreign_cpu_pct is None  # the per-CPU readings are not the host component


def test_a_closed_throughput_near_the_load_models_limit_is_bound_by_it_and_efficiency_is_cpu_per_call() -> None:
    rows = frame(steady_rows(range(8, 22)))  # 10 successful calls/s in the window
    server = [Sample(t, "server", 40.0, 20.0 + t) for t in (11.5, 12.5)]
    near = summarize(rows, (10.0, 20.0), server, limit_kind=LOAD_MODEL, limit_calls_per_s=12.0)
    assert document(near.limit) == {"kind": LOAD_MODEL, "tool_calls_per_s": 12.0, "fraction": pytest.approx(10 / 12)}
    assert "bound:load-model" in near.flags
    assert document(near.efficiency) == {"cpu_ms_per_call": pytest.approx(40.0), "mem_peak_mb": 32.5}
    far = summarize(rows, (10.0, 20.0), server, limit_kind=LOAD_MODEL, limit_calls_per_s=13.0)
    assert not [f for f in far.flags if f.startswith("bound:")]


def test_an_open_load_is_judged_by_its_offered_rate_against_the_harness_capacity() -> None:
    # The server fell behind (10 calls/s of 40 offered): the harness was still asked for 40 of its 45.
    rows = frame(steady_rows(range(8, 22)))
    bound = summarize(rows, (10.0, 20.0), [], rate=40.0, limit_kind=HARNESS_CAPACITY, limit_calls_per_s=45.0)
    assert bound.limit.fraction == pytest.approx(40 / 45) and "bound:harness-capacity" in bound.flags
    free = summarize(rows, (10.0, 20.0), [], rate=40.0, limit_kind=HARNESS_CAPACITY, limit_calls_per_s=100.0)
    assert "bound:harness-capacity" not in free.flags


def test_a_load_judged_against_no_limit_says_so_and_is_never_publishable() -> None:
    # Issue 18: a calibration the infrastructure broke left the suite with no limit, and rust was then
    # recorded publishable at 95 % of what the broken calibration had measured.
    rows = frame(steady_rows(range(8, 22)))
    unjudged = summarize(rows, (10.0, 20.0), [], limit_kind=None, limit_calls_per_s=None)
    assert document(unjudged.limit) == {"kind": None, "tool_calls_per_s": None, "fraction": None}
    assert "limit-unknown" in unjudged.flags and not unjudged.publishable
    itself = summarize(rows, (10.0, 20.0), [], limit_kind=None, limit_calls_per_s=None, calibration=True)
    assert "limit-unknown" not in itself.flags  # the calibration is the limit


def test_a_resource_reading_counts_where_the_second_it_covers_lies() -> None:
    # A reading stamped at 10.2 s covers 9.2-10.2 s: mostly before a window that starts at 10 s. One stamped at
    # 20.3 s covers 19.3-20.3 s: mostly inside a window that ends at 20 s.
    samples = [Sample(10.2, "server", 100.0, 1.0), Sample(11.2, "server", 10.0, 1.0),
               Sample(20.3, "server", 30.0, 1.0), Sample(21.3, "server", 100.0, 1.0)]
    summary = summarize(frame(steady_rows(range(8, 22))), (10.0, 20.0), samples)
    assert summary.resources["server"].cpu_avg_pct == pytest.approx(20.0)
    assert summary.resources["server"].samples == 2


def test_a_warm_up_that_hit_its_cap_is_flagged_and_a_fixed_one_is_not() -> None:
    rows = frame(closed_loop_rows(12.5))  # one VU busy: Little's law holds
    capped = summarize(rows, (10.0, 20.0), [], vus=1,
                       warmup={"used_s": 60, "min_s": 10, "cap_s": 60, "steady": False})
    assert "not-steady" in capped.flags and capped.warmup.steady is False and not capped.publishable
    fixed = summarize(rows, (10.0, 20.0), [], vus=1, warmup={"used_s": 5, "min_s": 5, "cap_s": 5, "steady": None})
    assert fixed.flags == [] and fixed.publishable is True and fixed.unpublishable_reasons == []


@pytest.mark.parametrize("name, http_per_session", [("rust", 3), ("quarkus", 4)])
def test_v2_rps_counts_what_the_study_counted_on_recorded_stateless_and_stateful_sessions(
        name: str, http_per_session: int) -> None:
    from pathlib import Path


    samples = read_samples(Path(__file__).parents[1] / "fixtures" / "recorded" / f"v2-{name}-session-4vu.csv.gz")
    window = (3.0, 8.0)
    inside = samples[(samples["t_s"] >= 3.0) & (samples["t_s"] < 8.0)]
    # By hand: every recorded session succeeded, so each sent initialize and its call (2 counted requests),
    # and the server's session handling shows in the number of HTTP requests per session.
    assert inside["ok"].all()
    assert set(inside["http_ms"].str.split(";").map(len)) == {http_per_session}
    sessions, tool_calls = len(inside), int((inside["tool"] != "tools/list").sum())
    summary = summarize(samples, window, [], vus=4)
    thr = summary.throughput
    assert thr.v2_requests == 2 * sessions and thr.v2_rps == pytest.approx(2 * sessions / 5.0)
    assert thr.http_requests == http_per_session * sessions
    # 3 tool sessions + 1 tools/list session per iteration, 2 counted requests each: 8 per 3 tool calls,
    # whatever the server does with sessions (the old all-HTTP count gave 4.00 and 5.33).
    assert thr.v2_requests / tool_calls == pytest.approx(8 / 3, rel=0.02)
    assert thr.http_requests / tool_calls == pytest.approx(4 * http_per_session / 3, rel=0.02)
    assert summary.latency_ms.v2_tools_call.count == tool_calls  # tools/call requests only


def simulated_closed_loop(vus: int, until_s: float, think_s: float, seed: int = 3) -> list[tuple]:
    """What load.js writes in the closed model: per VU, one session per tool then tools/list, then think."""
    rng = np.random.default_rng(seed)
    rows = []
    for vu in range(1, vus + 1):
        t = rng.uniform(0, 0.05)
        while t < until_s:
            for tool in ("search_products", "get_user_cart", "checkout", "tools/list"):
                session_ms = float(rng.gamma(4.0, 5.0 if tool != "checkout" else 15.0))
                t += session_ms / 1000
                rows.append((round(t, 3), vu, tool, 1, "", session_ms * 0.8, session_ms, "1;1;1;1"))
            t += think_s
    return sorted(rows, key=lambda row: row[0])  # interleaved by time, as k6's console log is


def test_littles_law_holds_for_a_closed_loop_that_ran_as_configured_and_counts_each_iterations_sessions() -> None:
    rows = frame(simulated_closed_loop(vus=3, until_s=30.0, think_s=0.05))
    summary = summarize(rows, (10.0, 20.0), [], vus=3)
    law = summary.checks.littles_law
    assert law["vus"] == 3 and law["gap"] < 0.02 and "littles-law" not in summary.flags
    # iterations/s x mean iteration time, by definition
    assert law["predicted"] == pytest.approx(law["iterations_per_s"] * law["mean_iteration_s"])
    # One VU stalled for half the window: the loop no longer ran 3 VUs.
    stalled = rows[~((rows["vu"] == 3) & (rows["t_s"] >= 12.0) & (rows["t_s"] < 17.0))]
    assert "littles-law" in summarize(stalled, (10.0, 20.0), [], vus=3).flags


def test_the_open_model_records_the_calls_in_flight_without_a_flag() -> None:
    rows = [(10 + i * 0.1, 1, "checkout", 1, "", 150.0, 200.0, "150") for i in range(100)]
    summary = summarize(frame(rows), (10.0, 20.0), [], rate=10.0, vus=1)
    law = summary.checks.littles_law
    assert law["in_flight"] == pytest.approx(10.0 * 0.2)  # 10 arrivals/s x 0.2 s
    assert "littles-law" not in summary.flags


@pytest.mark.parametrize("mode, http_ms, v2", [
    ("session", "5", 1),             # initialize failed: only it was sent
    ("session", "5;1", 1),           # the notification failed: no call
    ("session", "5;1;3", 2),         # no session id (no DELETE): initialize + the call
    ("session", "5;1;3;1", 2),       # with DELETE: still initialize + the call
    ("stateless", "3", 1),
    ("persistent", "3", 1),          # the VU's one initialize is in no sample and not counted
])
def test_v2_requests_count_initialize_and_the_call_only(mode: str, http_ms: str, v2: int) -> None:
    rows = [(10 + i * 0.1, 1, "checkout", 1, "", 3.0, 10.0, http_ms) for i in range(100)]
    rows += [(1.0, 1, "checkout", 1, "", 3.0, 10.0, http_ms)] * 50        # ramp-up: the whole run only
    summary = summarize(frame(rows), (10.0, 20.0), [], mode=mode, loadgen_run_s=25.0)
    thr = summary.throughput
    assert thr.v2_requests == 100 * v2 and thr.v2_rps == pytest.approx(10.0 * v2)
    assert thr.v2_requests_whole_run == 150 * v2 and thr.v2_rps_whole_run == pytest.approx(150 * v2 / 25.0)
    assert thr.loadgen_run_s == 25.0
    assert thr.http_requests == 100 * len(http_ms.split(";"))
    assert summarize(frame(rows), (10.0, 20.0), [], mode=mode).throughput.v2_rps_whole_run is None


def test_v2_tools_call_latency_pools_every_call_sent_failed_or_not() -> None:
    rows = [(10 + i * 0.01, 1, "search_products", 1, "", 2.0, 5.0, "1;1;2") for i in range(99)]
    rows += [(15.0, 1, "checkout", 0, "jsonrpc_-32603", 40.0, 45.0, "1;1;40")]
    rows += [(15.1, 1, "checkout", 0, "transport", None, 3.0, "3")]         # never sent: not a tools/call
    rows += [(15.2, 1, "tools/list", 1, "", 9.0, 12.0, "1;1;9")]            # tools/list: not a tools/call
    lat = summarize(frame(rows), (10.0, 20.0), []).latency_ms
    assert lat.v2_tools_call.count == 100 and lat.v2_tools_call.max == 40.0
    assert lat.tool_call.count == 99 and lat.tool_call.max == 2.0


@pytest.mark.parametrize("mode, extra_per_vu, ok", [("persistent", 2, True), ("stateless", 2, False),
                                                    ("session", 4, True), ("session", 5, False)])
def test_k6_counts_allow_what_the_vus_sent_outside_any_sample(mode: str, extra_per_vu: int, ok: bool) -> None:
    # 140 samples, 1 request each; 50 VUs: 50 x extra_per_vu requests no sample holds (persistent mode's
    # session openings, sessions cut short at the end) are no disagreement up to what the mode can explain.
    rows = [(8 + i * 0.1, 1 + i % 50, "checkout", 1, "", 1.0, 1.0, "1") for i in range(140)]
    summary = summarize(frame(rows), (10.0, 20.0), [], mode=mode, vus=50,
                        loadgen_counts=counts(0, 140 + 50 * extra_per_vu))
    assert (summary.status == "ok") is ok
    assert summary.checks.count_gap == pytest.approx(50 * extra_per_vu / (140 + 50 * extra_per_vu))


def test_k6_iterations_beyond_the_vus_in_flight_and_one_percent_are_a_disagreement() -> None:
    rows = frame(closed_loop_rows())  # 140 iterations (tools/list samples), 560 sessions
    http = 560 * 3
    assert summarize(rows, (10.0, 20.0), [], vus=2,
                     loadgen_counts=counts(142, http)).status == "ok"
    bad = summarize(rows, (10.0, 20.0), [], vus=2, loadgen_counts=counts(145, http))
    assert bad.status == "invalid" and "the load generator counted 145 iterations, the samples 140" in bad.reason
    missing = summarize(rows, (10.0, 20.0), [], vus=2)
    assert missing.checks.loadgen_iterations is None and missing.checks.count_gap is None


def test_per_cpu_readings_are_neither_our_own_nor_the_hosts_cpu() -> None:
    resources = [Sample(11, "server", 90.0, 1.0), Sample(11, "loadgen", 60.0, 1.0), Sample(11, "host", 160.0, 1.0),
                 Sample(11, "cpu0", 95.0, 0.0), Sample(11, "cpu1", 95.0, 0.0), Sample(11, "steal0", 1.0, 0.0)]
    summary = summarize(frame([(11.0, 1, "checkout", 1, "", 1.0, 1.0, "1")]), (10.0, 20.0), resources, 2, True)
    assert summary.foreign_cpu_pct == pytest.approx(10.0)
    assert not any(flag.startswith("bound:") for flag in summary.flags) and "noisy-host" not in summary.flags


def test_publishable_lists_every_cause() -> None:
    rows = frame(steady_rows(range(10, 17)) + [(17.5, 1, "checkout", 0, "timeout", 1.0, 1.0, "1")])
    summary = summarize(rows, (10.0, 20.0), [], loadgen_exit_code=99, limits_applied=False)
    ok, reasons = summary.publishable, summary.unpublishable_reasons
    assert ok is False
    assert "status invalid (loadgen)" in reasons
    assert any("exited with code 99" in r for r in reasons) and any("before the window ends" in r for r in reasons)
    assert "flag: errors" in reasons and "flag: cgroup-not-applied" in reasons
    # the suite changes the status afterwards and re-runs the verdict
    assert overruled(summary, "failed", "load", "it exited").unpublishable_reasons[0] == "status failed (load)"
    assert analysis_publishable(summary.model_copy(update={"status": "failed", "phase": "load"}))[1][0] == (
        "status failed (load)")
    clean = summary.model_copy(update={"status": "ok", "phase": None, "flags": [],
                                       "checks": summary.checks.model_copy(update={"problems": []})})
    assert analysis_publishable(clean) == (True, [])


def test_the_context_survives_json_so_a_recorded_measurement_can_be_analysed_again(tmp_path: Path) -> None:
    ctx = context(mode="session", kind="closed", vus=4, rate=None, limit_kind=LOAD_MODEL, limit_calls_per_s=990.0,
                  loadgen_exit_code=105, loadgen_stopped_early=True,
                  loadgen_counts={"iterations": 10, "http_reqs": 130, "dropped_iterations": 0}, loadgen_run_s=9.5,
                  host_probe={"0": {"before_s": 0.2, "after_s": 0.21}}, server_cpus=[1], harness_cpus=[0],
                  warmup={"used_s": 12.0, "min_s": 10.0, "cap_s": 60.0, "steady": True})
    path = tmp_path / "context.json"
    write_checked(path, document(ctx))
    again = upgrade_context(read_json(path), path)
    assert again == ctx
    # the generator's counts as it wrote them: k6's three, no null for a count only the load driver keeps
    assert read_json(path)["loadgen_counts"] == {"iterations": 10, "http_reqs": 130, "dropped_iterations": 0}
    # a field a later schema added is ignored by this one rather than refused
    assert upgrade_context({**document(ctx), "added_later": 1}, path) == ctx


SCHEMA2_CONTEXT = (Path(__file__).resolve().parents[1] / "fixtures" / "schema2" / "20261123-114126-local" / "rust"
                   / "session-open0.5-r1" / "context.json")


@pytest.mark.parametrize("executor, kind", [("closed", LOAD_MODEL), ("open", None)])
def test_a_schema_2_ceiling_is_the_closed_models_limit_and_no_limit_for_an_open_load(executor: str, kind) -> None:
    recorded = read_json(SCHEMA2_CONTEXT)  # as schema 2 wrote it: k6_ names, `executor`, one ceiling
    old = {**recorded, "executor": executor, "rate": 300.0 if executor == "open" else None,
           "ceiling_calls_per_s": 199.2}
    ctx = upgrade_context(old, SCHEMA2_CONTEXT)
    assert ctx.limit_kind == kind and ctx.limit_calls_per_s == (199.2 if kind else None)
    # schema 3's names are schema 4's: the generator's fields and the load's kind
    assert ctx.kind == executor and ctx.loadgen_exit_code == recorded["k6_exit_code"]
    assert ctx.loadgen_counts is not None and document(ctx.loadgen_counts) == recorded["k6_counts"]

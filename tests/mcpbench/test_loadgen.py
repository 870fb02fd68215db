import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from mcpbench.loads.timing import Timing
from mcpbench.loadgen.instances import compress_samples, parse_samples, read_counts
from mcpbench.loadgen.merge import merge_counts
from mcpbench.loadgen.driver import driver_argv, schedule_arguments
from mcpbench.loadgen.k6 import k6_env, k6_scenario
from mcpbench.loads import ClosedLoad, OpenLoad
from mcpbench.results.model import LoadgenCounts, ResultsError, document
from mcpbench.results.read import read_samples


def test_samples_and_the_scenario_start_are_read_back_from_the_k6_log(fixtures_dir: Path) -> None:
    samples, start = parse_samples(fixtures_dir / "k6-samples.log")
    assert start == pytest.approx(1763750000.123)
    assert list(samples["tool"]) == ["search_products", "get_user_cart", "tools/list", "checkout"]
    assert list(samples["ok"]) == [1, 0, 1, 0]
    assert list(samples["error_kind"]) == ["", "http_503", "", "timeout"]
    assert samples["call_ms"].isna().tolist() == [False, False, False, True]  # a timed-out call has no duration


def test_compressed_samples_round_trip_and_the_raw_log_is_reduced_to_k6s_own_messages(
        fixtures_dir: Path, tmp_path: Path) -> None:
    log = tmp_path / "k6-samples.log"
    log.write_text((fixtures_dir / "k6-samples.log").read_text())
    samples, _ = parse_samples(log)
    compress_samples([log], tmp_path / "samples.csv.gz", samples, tmp_path / "loadgen.log")
    assert not log.exists()
    assert "a k6 warning" in (tmp_path / "loadgen.log").read_text()
    again = read_samples(tmp_path / "samples.csv.gz")
    assert again["http_ms"].tolist() == samples["http_ms"].tolist()
    assert again["error_kind"].tolist() == samples["error_kind"].tolist()
    with gzip.open(tmp_path / "samples.csv.gz", "rt") as handle:
        assert handle.readline().strip() == "t_s,vu,tool,ok,error_kind,call_ms,session_ms,http_ms"


def test_k6_is_told_the_whole_timeline_and_the_load() -> None:
    env = k6_env("http://127.0.0.1:1/mcp", OpenLoad("stateless", 10, 250.0),
                 Timing(ramp_up_s=3, warmup_s=7, duration_s=20, ramp_down_s=2, warmup_cap_s=None), Path("/x/s.json"))
    scenario = json.loads(env["SCENARIO"])
    # ramp-up, then warm-up + measured at full load, then ramp-down
    assert [s["duration"] for s in scenario["stages"]] == ["3s", "27s", "2s"]
    adaptive = k6_env("http://127.0.0.1:1/mcp", ClosedLoad("session", 10),
                      Timing(ramp_up_s=3, warmup_s=7, duration_s=20, ramp_down_s=2, warmup_cap_s=40), Path("/x/s.json"))
    closed = json.loads(adaptive["SCENARIO"])
    # the longest warm-up + measured; the orchestrator ends it earlier
    assert [s["duration"] for s in closed["stages"]] == ["3s", "60s", "2s"]
    assert env["MODE"] == "stateless"
    # the open model: 250 calls/s as iterations per 10 s, 10 VUs pre-allocated, one call per iteration
    assert (scenario["executor"], scenario["exec"], scenario["preAllocatedVUs"], scenario["stages"][1]["target"]) \
        == ("ramping-arrival-rate", "openIteration", 10, 2500)
    assert (closed["executor"], closed["exec"], closed["stages"][1]["target"]) == ("ramping-vus", "closedIteration", 10)


def test_each_generator_translates_a_loads_model_and_stages() -> None:
    timing = Timing(ramp_up_s=3, warmup_s=7, duration_s=20, ramp_down_s=2.5, warmup_cap_s=None)
    assert schedule_arguments(ClosedLoad("session", 8), timing) == ["--model", "closed", "--stages",
                                                                     "3s:8,27s:8,2.5s:0"]
    assert schedule_arguments(OpenLoad("session", 8, 12.34), timing) == [
        "--model", "open", "--stages", "3s:12.34,27s:12.34,2.5s:0", "--vus", "8", "--max-vus", "32"]
    closed = k6_scenario(ClosedLoad("session", 8), timing)
    assert closed["executor"] == "ramping-vus" and closed["exec"] == "closedIteration"
    assert closed["stages"] == [{"duration": "3s", "target": 8}, {"duration": "27s", "target": 8},
                                {"duration": "2.5s", "target": 0}]
    opened = k6_scenario(OpenLoad("session", 8, 12.34), timing)
    assert opened["executor"] == "ramping-arrival-rate" and opened["exec"] == "openIteration"
    assert opened["maxVUs"] == 8 * 4 and opened["stages"][1]["target"] == 123  # per 10 s: 0.1/s resolution
    argv = driver_argv(Path("/bin/load-driver"), "http://127.0.0.1:1/mcp", ClosedLoad("session", 8), timing, True,
                       Path("s.log"), Path("c.json"))
    assert argv[argv.index("--stages") + 1] == "3s:8,27s:8,2.5s:0" and "--ramp-up-s" not in argv


def test_a_streamed_calls_first_notification_is_a_column_of_its_own(tmp_path: Path) -> None:
    # the load driver's lines: a streamed call has a tenth field (first_ms), a call that streamed nothing nine
    log = tmp_path / "samples.log"
    log.write_text("T,1763750000123\n"
                   "S,1.000,1,stream_progress,1,,12.500,12.600,12.500,0.800\n"
                   "S,1.100,2,stream_progress,0,progress_missing,13.000,13.100,13.000\n")
    samples, _ = parse_samples(log)
    assert samples["first_ms"].tolist()[0] == 0.8 and np.isnan(samples["first_ms"].tolist()[1])
    compress_samples([log], tmp_path / "samples.csv.gz", samples, tmp_path / "loadgen.log")
    again = read_samples(tmp_path / "samples.csv.gz")
    assert again["first_ms"].tolist()[0] == 0.8 and np.isnan(again["first_ms"].tolist()[1])
    # a file from before (or of calls that streamed nothing) reads with the column empty
    plain = tmp_path / "plain.log"
    plain.write_text("T,1763750000123\nS,1.000,1,get_user_cart,1,,2.0,2.0,2.0\n")
    samples, _ = parse_samples(plain)
    assert "first_ms" not in samples.columns
    compress_samples([plain], tmp_path / "plain.csv.gz", samples, tmp_path / "loadgen.log")
    assert read_samples(tmp_path / "plain.csv.gz")["first_ms"].isna().all()


def _counts(**counts: object) -> LoadgenCounts:
    return LoadgenCounts.model_validate(counts)


def test_the_instances_counts_merge_into_one_tests_as_they_wrote_them() -> None:
    # k6 writes three counts: the merge writes those three, no null for the counts only the load driver keeps
    k6 = [_counts(iterations=3, http_reqs=12, dropped_iterations=0), _counts(iterations=4, http_reqs=16,
                                                                             dropped_iterations=1)]
    assert document(merge_counts(k6)) == {"iterations": 7, "http_reqs": 28, "dropped_iterations": 1}
    # the driver's: totals summed, a lag's worst kept, every instance's stalls, the first failure's reason
    driver = [_counts(iterations=3, http_reqs=12, dropped_iterations=0, start_lag_p99_ms=2.0, stalls_s=[[1.0, 2.5]],
                      error=None),
              _counts(iterations=4, http_reqs=16, dropped_iterations=0, start_lag_p99_ms=5.0, stalls_s=[[4.0, 5.5]],
                      error="the server exited")]
    merged = merge_counts(driver)
    assert merged is not None and (merged.iterations, merged.start_lag_p99_ms) == (7, 5.0)
    assert merged.stalls_s == [(1.0, 2.5), (4.0, 5.5)] and merged.error == "the server exited"
    assert merge_counts([driver[0], None]) is None  # an instance that wrote none: no counts of the whole test


def test_counts_the_model_does_not_know_are_the_generators_drift(tmp_path: Path) -> None:
    path = tmp_path / "loadgen-counts.json"
    assert read_counts(path) is None  # none written
    path.write_text(json.dumps({"iterations": 3, "http_reqs": 12, "dropped_iterations": 0}))
    assert document(read_counts(path)) == {"iterations": 3, "http_reqs": 12, "dropped_iterations": 0}
    path.write_text(json.dumps({"iterations": 3, "http_reqs": 12, "dropped_iterations": 0, "sessions": 3}))
    with pytest.raises(ResultsError, match="sessions"):
        read_counts(path)

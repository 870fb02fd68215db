import numpy as np
import pandas as pd
import pytest

from mcpbench.analysis import bottleneck_flags, summarize
from mcpbench.resources import Sample


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
    thr = summary["throughput"]
    assert thr["tool_calls"] == 3  # tools/list is not a tool call
    assert thr["successful_tool_calls"] == 2
    assert thr["tool_calls_per_s"] == pytest.approx(0.2)
    assert thr["http_requests"] == 12 and thr["v2_rps"] == pytest.approx(1.2)
    assert summary["latency_ms"]["tool_call"]["max"] == 4.0  # neither 500 nor 900 leaked in
    assert summary["errors"] == {"count": 1, "rate": pytest.approx(1 / 3), "kinds": {"jsonrpc_-32603": 1}}
    assert summary["flags"] == ["errors"]


def test_the_cross_tool_p99_is_a_percentile_of_all_samples_not_an_average_of_percentiles() -> None:
    rng = np.random.default_rng(7)
    fast = rng.uniform(1, 2, 990)       # search_products: many fast calls
    slow = rng.uniform(100, 200, 10)    # checkout: few slow ones
    rows = [(10 + i * 0.001, 1, "search_products", 1, "", float(v), float(v), str(v)) for i, v in enumerate(fast)]
    rows += [(15 + i * 0.001, 1, "checkout", 1, "", float(v), float(v), str(v)) for i, v in enumerate(slow)]
    latency = summarize(frame(rows), (10.0, 20.0), [], 1, True)["latency_ms"]
    pooled = np.percentile(np.concatenate([fast, slow]), 99)
    averaged = (latency["per_tool"]["search_products"]["p99"] + latency["per_tool"]["checkout"]["p99"]) / 2
    count_weighted = (990 * latency["per_tool"]["search_products"]["p99"] + 10 * latency["per_tool"]["checkout"]["p99"]) / 1000
    assert latency["tool_call"]["p99"] == pytest.approx(pooled)
    assert latency["tool_call"]["p99"] != pytest.approx(averaged, rel=0.05)
    assert latency["tool_call"]["p99"] != pytest.approx(count_weighted, rel=0.05)


def test_resources_count_only_inside_the_window_and_saturation_is_flagged() -> None:
    samples = [Sample(t, "server", cpu, 100.0 + t) for t, cpu in [(5, 10.0), (11, 90.0), (12, 100.0), (25, 5.0)]]
    samples += [Sample(t, "k6", 95.0, 50.0) for t in (11, 12)]
    summary = summarize(frame([(11.0, 1, "checkout", 1, "", 1.0, 1.0, "1")]), (10.0, 20.0), samples, 1, False)
    server = summary["resources"]["server"]
    assert server["cpu_avg_pct"] == pytest.approx(95.0)
    assert server["mem_peak_mb"] == pytest.approx(112.0)
    assert "bound:k6" in summary["flags"] and "cgroup-not-applied" in summary["flags"]


def test_bottleneck_flags_respect_what_each_component_can_use() -> None:
    assert bottleneck_flags({"redis": {"cpu_avg_pct": 90.0}}, harness_cores=4) == ["bound:redis"]
    assert bottleneck_flags({"k6": {"cpu_avg_pct": 90.0}}, harness_cores=4) == []
    assert bottleneck_flags({"k6": {"cpu_avg_pct": 60.0}, "api": {"cpu_avg_pct": 30.0}}, 1) == ["bound:harness"]


def test_open_model_reports_the_calls_it_could_not_start() -> None:
    rows = [(10 + i * 0.1, 1, "checkout", 1, "", 1.0, 1.0, "1") for i in range(50)]
    summary = summarize(frame(rows), (10.0, 20.0), [], 1, True, rate=10.0)
    assert summary["throughput"]["dropped_iterations"] == 50
    assert "dropped-iterations" in summary["flags"]


def test_cpu_spent_by_other_programs_marks_the_measurement_noisy() -> None:
    quiet = [Sample(11, "server", 90.0, 1.0), Sample(11, "k6", 60.0, 1.0), Sample(11, "host", 160.0, 1.0)]
    noisy = [Sample(11, "server", 90.0, 1.0), Sample(11, "k6", 60.0, 1.0), Sample(11, "host", 190.0, 1.0)]
    row = frame([(11.0, 1, "checkout", 1, "", 1.0, 1.0, "1")])
    assert "noisy-host" not in summarize(row, (10.0, 20.0), quiet, 1, True)["flags"]
    summary = summarize(row, (10.0, 20.0), noisy, 1, True)
    assert "noisy-host" in summary["flags"]
    assert summary["foreign_cpu_pct"] == pytest.approx(40.0)

"""The staged load and the spike: their schedules, their options, their figures per stage and the recovery time."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mcpbench.analysis.summary import recovery, stage_figures
from mcpbench.experiments.config import RunConfig
from mcpbench.loadgen.driver import schedule_arguments
from mcpbench.loadgen.k6 import k6_scenario
from mcpbench.loads import KINDS
from mcpbench.loads.spike import SpikeLoad
from mcpbench.loads.staged import StagedLoad, parse_stages, running_span
from mcpbench.loads.timing import QUICK_TIMING, Timing
from mcpbench.results.model import Recovery, Sample, StageFigures

SEED_PROFILE = "2m:10,3m:25,10m:50,2m:0"  # seed 004's k6 profile


def test_the_seed_profile_parses_into_its_four_stages() -> None:
    stages = parse_stages(SEED_PROFILE)
    assert stages == ((120, 10), (180, 25), (600, 50), (120, 0))
    load = KINDS["staged"].at("session", 50, 50, stages=stages)
    assert isinstance(load, StagedLoad) and load.vus == 50 and load.model == "closed"
    assert schedule_arguments(load, QUICK_TIMING) == ["--model", "closed", "--stages", "120s:10,180s:25,600s:50,120s:0"]
    assert [s["target"] for s in k6_scenario(load, QUICK_TIMING)["stages"]] == [10, 25, 50, 0]
    timeline = load.timeline(QUICK_TIMING)
    assert (timeline.total_s, timeline.adaptive) == (1020, False)  # its own stages are the whole test
    assert [(a, b, t) for a, b, t, _ in load.reported_stages(timeline)] == [(0, 120, 10), (120, 300, 25),
                                                                            (300, 900, 50), (900, 1020, 0)]
    # the window is where a VU runs: from 12 s (1 VU of 10 on the way up) to 117.6 s into the ramp-down
    assert running_span(stages) == pytest.approx((12.0, 1017.61), abs=0.02)


@pytest.mark.parametrize("text, said", [
    ("2m:10,3m", "stage 2 '3m' is not duration:target"), ("2x:10", "stage 1 '2x:10' is not duration:target"),
    ("2m:2.5", "the target is a whole number of VUs"), ("2m:-1", "the target is a whole number of VUs"),
    ("0s:5", "the stages must last"), ("1m:0", "reach at least 1 VU")])
def test_a_malformed_stage_list_is_one_line(text: str, said: str) -> None:
    with pytest.raises(ValueError, match=said) as raised:
        parse_stages(text)
    assert "\n" not in str(raised.value)


def test_the_options_belong_to_their_kinds() -> None:
    with pytest.raises(ValueError, match="give it with --load staged"):
        RunConfig.from_options({}, [], Timing(), stages=((1, 1),))
    with pytest.raises(ValueError, match="--load staged needs --stages"):
        RunConfig.from_options({}, [], Timing(), load="staged")
    with pytest.raises(ValueError, match="give it with --load spike"):
        RunConfig.from_options({}, [], Timing(), spike=4)
    staged = RunConfig.from_options({}, [], Timing(), load="staged", stages=parse_stages("1s:2,1s:4"))
    assert [load.label for load in staged.loads()] == ["session-staged-1s2-1s4"]
    assert staged.model_dump(mode="json")["stages"] == [[1, 2], [1, 4]]
    spike = RunConfig.from_options({}, [], Timing(), load="spike", vus=(5,), spike=3)
    assert [(load.label, load.vus, load.level) for load in spike.loads()] == [("session-spike3x5vu", 15, 5)]


def test_a_spike_steps_to_its_multiple_and_back_and_names_its_spans() -> None:
    timing = SpikeLoad("session", 12, 3, 4).timeline(Timing(ramp_up_s=1, warmup_s=2, duration_s=12, ramp_down_s=1))
    load = SpikeLoad("session", 12, 3, 4)
    assert not timing.adaptive  # the spike comes at a known time
    assert load.stages(timing) == [(1, 3), (6, 3), (0, 12), (2, 12), (0, 3), (6, 3), (1, 0)]
    assert load.reported_stages(timing) == [(3, 7, 3, "before"), (7, 9, 12, "spike"), (9, 15, 3, "after")]
    assert load.spike_span(timing) == (7, 9)


def _samples(rows: list[tuple[float, float, int]]) -> pd.DataFrame:
    t, ms, ok = zip(*rows)
    n = len(rows)
    return pd.DataFrame({"t_s": t, "vu": [1] * n, "tool": ["checkout"] * n, "ok": ok,
                         "error_kind": ["" if o else "http_503" for o in ok], "call_ms": ms, "session_ms": ms,
                         "http_ms": [""] * n})


def test_each_stage_gets_its_throughput_latency_errors_cpu_and_memory() -> None:
    rows = [(0.05 + i * 0.1, 10.0, 1) for i in range(20)]            # 0-2 s: 10 calls/s at 10 ms
    rows += [(2.025 + i * 0.05, 40.0, int(i % 10 != 0)) for i in range(40)]  # 2-4 s: 20/s at 40 ms, 1 in 10 failing
    resources = [Sample(t, "server", cpu, mem) for t, cpu, mem in
                 ((1.0, 20, 100), (2.0, 30, 110), (3.0, 80, 150), (4.0, 90, 170))]
    figures = stage_figures(_samples(rows), resources, [(0, 2, 5, "stage 1"), (2, 4, 10, "stage 2")], 30)
    first, second = figures
    assert isinstance(first, StageFigures) and isinstance(second, StageFigures)  # summary `stages` as recorded
    assert (first.tool_calls_per_s, first.p50_ms, first.errors, first.error_rate) == (10, 10, 0, 0)
    assert (second.tool_calls_per_s, second.p99_ms, second.errors, second.error_rate) == (18, 40, 4, 0.1)
    assert (first.cpu_avg_pct, first.mem_peak_mb, second.cpu_avg_pct, second.mem_avg_mb) == (25, 110, 85, 160)


def test_the_recovery_is_when_the_bucket_p99_returns_within_ten_percent() -> None:
    rng = np.random.default_rng(1)
    # 10 ms before the spike (4-7 s), 200 ms during it (7-9 s), then 150, 80, 30 ms and back to 10.5 ms from 12 s
    def level(t: float) -> float:
        return 10.0 if t < 7 else 200.0 if t < 9 else 150.0 if t < 10 else 80.0 if t < 11 else 30.0 if t < 12 else 10.5
    rows = [(t, level(t) * rng.uniform(0.99, 1.0), 1) for t in np.arange(4.0, 15.0, 0.01)]
    found = recovery(_samples(rows), (7.0, 9.0), 30)
    assert isinstance(found, Recovery)  # summary `recovery` as recorded
    assert found.before_p99_ms == pytest.approx(10, rel=0.01) and found.spike_p99_ms == pytest.approx(200, rel=0.01)
    assert (found.spike_end_s, found.recovered_at_s, found.recovery_s) == (9, 12, 3)
    # never back within 10 %: no recovery time
    rows = [(t, 10.0 if t < 7 else 50.0, 1) for t in np.arange(4.0, 15.0, 0.01)]
    assert recovery(_samples(rows), (7.0, 9.0), 30).recovery_s is None

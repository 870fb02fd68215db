"""The adaptive warm-up: where the window starts, from per-second throughput, and the live log tail."""

from __future__ import annotations

from pathlib import Path

from mcpbench.loads.timing import Timing
from mcpbench.analysis.warmup import STEADY_SPAN_S, LiveSamples, steady_start
from mcpbench.workload.tools import TOOL_NAMES
from mcpbench.results.read import read_samples

TIMING = Timing(ramp_up_s=2, warmup_s=10, duration_s=15, ramp_down_s=2, warmup_cap_s=60)


def test_a_server_that_keeps_getting_faster_is_not_steady_until_it_levels_off() -> None:
    # +2 %/s for 40 s after the ramp (a JIT still compiling), then flat at the level reached.
    rising = [round(100 * 1.02 ** s) for s in range(40)]
    per_second = [0, 0] + rising + [rising[-1]] * 40
    decision = steady_start(per_second, TIMING, complete_s=len(per_second))
    assert decision is not None and decision.steady is True
    # Two 10 s spans at +2 %/s differ by ~22 %: steady only once the later span is (nearly) all flat.
    assert 2 + decision.used_s >= 2 + 40 + STEADY_SPAN_S - 2
    assert decision.used_s <= 40 + 2 * STEADY_SPAN_S


def test_a_flat_server_gets_the_minimum_that_two_spans_allow() -> None:
    per_second = [0, 0] + [500] * 60
    decision = steady_start(per_second, TIMING, complete_s=62)
    assert decision is not None and decision.steady is True
    assert decision.used_s == 2 * STEADY_SPAN_S  # both spans after the ramp-up; 20 s >= the 10 s minimum


def test_undecided_while_data_is_missing_and_capped_when_never_steady() -> None:
    per_second = [0, 0] + [500] * 15
    assert steady_start(per_second, TIMING, complete_s=17) is None
    still_rising = [0, 0] + [round(100 * 1.01 ** s) for s in range(70)]  # +1 %/s: spans differ by ~10 %
    assert steady_start(still_rising, TIMING, complete_s=50) is None
    capped = steady_start(still_rising, TIMING, complete_s=62)
    assert capped is not None and capped.steady is False and capped.used_s == 60


def test_the_window_follows_the_warm_up_used() -> None:
    assert TIMING.window_after(23.0) == (25.0, 40.0)
    assert TIMING.hold_s == 75 and TIMING.total_s == 79
    fixed = Timing(ramp_up_s=1, warmup_s=2, duration_s=6, ramp_down_s=1, warmup_cap_s=None)
    assert not fixed.adaptive and fixed.window == (3.0, 9.0) and fixed.hold_s == 8


def test_the_live_tail_counts_successful_tool_calls_per_second_and_waits_for_whole_lines(tmp_path: Path) -> None:
    log = tmp_path / "k6-samples.log"
    log.write_text("T,1700000000000\nS,0.5,1,search_products,1,,1,2,1\nS,1.2,1,tools/list,1,,1,2,1\n"
                   "S,1.7,2,checkout,0,http_500,1,2,1\nS,1.9,2,get_user")
    live = LiveSamples(log)
    live.poll()
    assert live.per_second == [1]          # tools/list and the failed call do not count
    assert live.latest_s == 1.7            # the half-written line is not read yet
    with open(log, "a") as handle:
        handle.write("_cart,1,,1,2,1\nS,4.1,1,checkout,1,,1,2,1\n")
    live.poll()
    assert live.per_second == [1, 1, 0, 0, 1]
    assert live.complete_s == 2            # samples of second 3 may still arrive


SOAK_GO = Path(__file__).resolve().parents[1] / "fixtures" / "results" / "20261123-184242-local" / "go" / \
    "soak-session-rate60-r1"   # a recorded open-model run: 60 calls/s offered, so throughput is flat by construction


def _per_second(samples) -> tuple[list[int], list[list[float]]]:
    """What the live tail collects (LiveSamples): successful tool calls and their call_ms, per second."""
    calls = samples[(samples["ok"] == 1) & samples["tool"].isin(TOOL_NAMES)]
    seconds = int(calls["t_s"].max()) + 1
    counts, latency = [0] * seconds, [[] for _ in range(seconds)]
    for t, ms in zip(calls["t_s"], calls["call_ms"]):
        counts[int(t)] += 1
        latency[int(t)].append(float(ms))
    return counts, latency


def test_a_server_still_getting_faster_at_a_steady_rate_is_not_warm() -> None:
    """Issue 18 item 6, on a recorded open-model run: its throughput is steady from the start (the arrival
    rate fixes it), so a throughput-only rule ends the warm-up at the first two spans even while the calls
    are still getting faster (a JIT compiling, caches filling: 60 % slower at first, 2 % of that less every
    second for 30 s). Judged on the median latency too, the window waits until they level off."""
    samples = read_samples(SOAK_GO / "samples.csv.gz")
    timing = Timing(ramp_up_s=2, warmup_s=10, duration_s=15, ramp_down_s=0, warmup_cap_s=45)
    cold = samples.copy()
    cold["call_ms"] *= (1.6 - 0.02 * (cold["t_s"] - 2)).clip(1.0, 1.6)   # warm from 32 s on
    counts, latency = _per_second(cold)
    complete = len(counts) - 2
    throughput_only = steady_start(counts, timing, complete)
    assert throughput_only is not None and throughput_only.steady and throughput_only.used_s == 2 * STEADY_SPAN_S
    judged = steady_start(counts, timing, complete, latency)
    assert judged is not None and judged.steady
    assert judged.used_s >= 30   # not before the later span is (nearly) all warm
    # the recording as it was (warm from the start): the latency rule does not hold it back
    counts, latency = _per_second(samples)
    assert steady_start(counts, timing, complete, latency).used_s == 2 * STEADY_SPAN_S


def test_the_live_tail_keeps_each_second_s_latencies(tmp_path: Path) -> None:
    log = tmp_path / "samples.log"
    log.write_text("S,0.5,1,search_products,1,,1.5,2,1\nS,0.7,1,checkout,1,,2.5,3,1\nS,1.2,1,checkout,0,http_500,9,9,9\n")
    live = LiveSamples(log)
    live.poll()
    assert live.latency_ms == [[1.5, 2.5]]


def test_the_quick_profile_compares_5_s_spans_so_a_flat_server_is_warm_after_10_s() -> None:
    from mcpbench.loads.timing import QUICK_TIMING

    ramp = [0] * int(QUICK_TIMING.ramp_up_s)
    per_second = ramp + [500] * 40
    decision = steady_start(per_second, QUICK_TIMING, complete_s=42)
    assert decision is not None and decision.steady is True and decision.used_s == 2 * QUICK_TIMING.steady_span_s == 10
    # a server still 10 % faster in its second 5 s span is not warm yet
    rising = ramp + [400] * 5 + [440] * 5 + [450] * 30
    late = steady_start(rising, QUICK_TIMING, complete_s=42)
    assert late is not None and late.used_s > 10


def test_a_jit_still_compiling_at_a_steady_rate_and_latency_is_not_warm_until_its_cpu_settles() -> None:
    """Quarkus at the equal load (recorded 2026-11-27, quarkus session-equal0.7-r2, % of a core per second): the
    rate is the offered one and the latency steady from 10 s on, while the compiler still spends CPU; the rule
    that watches the server's CPU waits until two 5 s spans of CPU per call agree — later than the latency rule,
    though a burst can still make two spans agree early (docs/first-run-profile.md measures what is left)."""
    from mcpbench.analysis.warmup import CpuRule, cpu_steady

    cpu = [88, 99, 88, 86, 67, 77, 45, 46, 31, 35, 22, 32, 27, 24, 59, 42, 53, 24, 48, 20, 22, 14, 12, 12, 9, 15,
           13, 12, 11, 13, 12, 12, 13, 11, 12, 12]
    per_second = [0] + [153] * (len(cpu) - 1)
    latency = [[]] + [[2.0] * 153 for _ in cpu[1:]]
    timing = Timing(ramp_up_s=1, warmup_s=10, duration_s=5, ramp_down_s=2, warmup_cap_s=60, steady_span_s=5)
    without = steady_start(per_second, timing, len(cpu), latency)
    with_cpu = steady_start(per_second, timing, len(cpu), latency, [float(c) for c in cpu])
    three = steady_start(per_second, timing, len(cpu), latency, [float(c) for c in cpu], CpuRule(spans=3))
    assert without is not None and without.used_s == 10           # the latency rule: the minimum
    assert with_cpu is not None and with_cpu.steady and with_cpu.used_s == 15   # [6, 11) and [11, 16) agree
    assert three is not None and three.used_s >= 20                # three spans: past the burst at 15-19 s
    # a server using a few % of a core moves by more than 15 % from noise alone: the 2 %-of-a-core floor
    assert cpu_steady([5.0] * 5 + [6.5] * 5, [150] * 10, 10, 5)
    assert not cpu_steady([40.0] * 5 + [21.0] * 5, [150] * 10, 10, 5)
    assert not cpu_steady([40.0] * 5 + [None] * 5, [150] * 10, 10, 5)   # a second without a reading
    assert cpu_steady(None, [150] * 10, 10, 5)                            # not watched: steady


def test_per_second_cpu_takes_the_reading_whose_interval_covers_the_second() -> None:
    from mcpbench.analysis.warmup import per_second_cpu

    # readings at ~1 Hz covering (t - 1, t]: 1.02 covers second 0, 2.05 second 1; a missed tick takes the
    # neighbouring reading (second 3), a gap of two none (second 4)
    assert per_second_cpu([(1.02, 10.0), (2.05, 20.0), (3.01, 30.0), (7.0, 70.0)], 7) == [
        10.0, 20.0, 30.0, 30.0, None, 70.0, 70.0]

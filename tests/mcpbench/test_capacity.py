"""Capacity under an SLO: the SLO's grammar, the ladder, and the verdicts — on recorded real step summaries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpbench.results import model
from mcpbench.analysis.capacity import Plan, instances_for, judge, ladder_verdict
from mcpbench.analysis.slo import Criterion, SloError, parse_slo
from mcpbench.loads import OpenLoad
from mcpbench.results.model import CAPACITY_FILE

RECORDED = Path(__file__).parents[1] / "fixtures" / "results" / "20261123-161510-local"  # mcpbench capacity: rust, go


def test_an_slo_reads_latency_percentiles_and_an_error_share() -> None:
    assert parse_slo("p99<100ms,p95<50ms,errors<1%") == (
        Criterion("p99", 100.0), Criterion("p95", 50.0), Criterion("errors", 0.01))
    assert parse_slo(" p999 < 0.25s ") == (Criterion("p999", 250.0),)
    assert [c.text for c in parse_slo("p99<100ms,errors<1%")] == ["p99<100ms", "errors<1%"]


@pytest.mark.parametrize("text, message", [
    ("p99<abc", "cannot read 'p99<abc'"), ("p98<10ms", "cannot read"), ("p99<100", "needs a unit"),
    ("errors<1ms", "errors take a percentage"), ("p99<0ms", "can never hold"), ("p99<1ms,p99<2ms", "at most once"),
])
def test_an_slo_that_does_not_parse_is_one_clear_line(text: str, message: str) -> None:
    with pytest.raises(SloError, match=message) as error:
        parse_slo(text)
    assert "\n" not in str(error.value)


def test_the_ladder_is_the_same_for_every_server_and_warms_up_once() -> None:
    plan = Plan(parse_slo("p99<100ms"), start_rate=100, factor=1.5)
    assert [plan.rate(k) for k in range(4)] == [100.0, 150.0, 225.0, 337.5]
    assert plan.timing(0).warmup_s == plan.first_warmup_s and plan.timing(1).warmup_s == plan.step.warmup_s
    for bad in ({"start_rate": 0}, {"factor": 1.0}, {"max_steps": 0}):
        with pytest.raises(ValueError):
            Plan(parse_slo("p99<100ms"), **bad)


def test_sizing_rounds_instances_up() -> None:
    assert instances_for(1000, 337.5) == 3
    assert instances_for(100, 337.5) == 1
    assert instances_for(1000, None) is None


def _ladder(server: str) -> list[model.Summary]:
    """The recorded ladder's step summaries, in order (real k6 runs through the real analysis)."""
    capacity = json.loads((RECORDED / server / CAPACITY_FILE).read_text())
    names = [step["measurement"] for step in capacity["rounds"][0]["steps"]]
    paths = [RECORDED / server / name / "summary.json" for name in names]
    return [model.parsed(model.Summary, json.loads(path.read_text()), path) for path in paths]


def _rejudge(summaries: list[model.Summary], slo: str, ceiling: float | None = None) -> model.CapacityRound:
    """The ladder judged again under another SLO, stopping where the suite would have stopped."""
    plan = Plan(parse_slo(slo), start_rate=summaries[0].rate, factor=1.5)
    steps = []
    for summary in summaries:
        verdict = judge(summary, OpenLoad(summary.mode, summary.vus, summary.rate), plan.slo, ceiling, "step")
        steps.append(verdict)
        if verdict.stop:
            break
    return ladder_verdict(summaries[0].mode, 1, steps, plan.max_steps)


def test_a_p99_crossing_the_slo_at_step_k_gives_the_capacity_of_step_k_minus_1() -> None:
    summaries = _ladder("go")
    p99s = [s.latency_ms.tool_call_all.p99 for s in summaries]
    # the last step whose p99 is above every step's before it: an SLO between them breaks exactly there
    k = max(i for i in range(1, len(p99s)) if p99s[i] > max(p99s[:i]))
    limit = (max(p99s[:k]) + p99s[k]) / 2
    record = _rejudge(summaries, f"p99<{limit:.3f}ms")
    assert record.capacity_calls_per_s == summaries[k - 1].rate
    assert record.steps[-1].rate_offered == summaries[k].rate
    assert record.stopped_by.startswith("slo broken: p99<")
    # an SLO even the first step breaks: below the first step, not a capacity of 0
    first = _rejudge(summaries, f"p99<{p99s[0] / 2:.3f}ms")
    assert first.capacity_calls_per_s is None and first.below_first_step


def test_the_harness_capacity_stops_the_ladder_with_a_lower_bound() -> None:
    summaries = _ladder("rust")
    capacity = summaries[1].rate / 0.8  # step 1 offers 80 % of it: nothing beyond is the server's
    record = _rejudge(summaries, "p99<10000ms", ceiling=capacity)
    assert record.capacity_calls_per_s == summaries[1].rate
    assert record.stopped_by.startswith("harness capacity") and record.stop_kind == "harness-capacity"
    # the harness ended the ladder, not the server: a lower bound with no step the server failed
    assert record.lower_bound and record.next_step_calls_per_s is None


def test_a_ladder_ending_on_max_steps_is_a_lower_bound_never_apart_from_its_equal() -> None:
    """Issue 18 item 2: the recorded rust and go ladders both ended on max steps at 506.2 calls/s; the page
    called them apart (a capacity compared with itself). A lower bound is never apart from anything above."""
    path = RECORDED / "go" / CAPACITY_FILE
    go = model.parsed(model.Capacity, json.loads(path.read_text()), path)
    entry = go.rounds[0]
    verdict = ladder_verdict(entry.mode, entry.run, entry.steps, go.plan.max_steps)
    assert verdict.stop_kind == "max-steps" and verdict.lower_bound
    assert verdict.capacity_calls_per_s == 506.2 and verdict.next_step_calls_per_s is None


def test_an_invalid_step_is_not_the_server_s_limit() -> None:
    """A step the harness made invalid ends the ladder, but the capacity below it is only a lower bound and
    cannot be trusted (before: it counted as the server's limit)."""
    summaries = _ladder("go")[:3]
    summaries[2] = summaries[2].model_copy(update={"status": "invalid", "reason": "the load generator failed"})
    record = _rejudge(summaries, "p99<10000ms")
    assert record.capacity_calls_per_s == summaries[1].rate
    assert record.stop_kind == "invalid" and record.lower_bound
    assert not record.trustworthy and "invalid step" in record.doubts


def test_a_server_outside_its_cgroup_is_not_a_trustworthy_capacity() -> None:
    summaries = _ladder("go")[:3]
    summaries[1] = summaries[1].model_copy(update={"flags": [*summaries[1].flags, "cgroup-not-applied"]})
    record = _rejudge(summaries, "p99<10000ms")
    assert not record.trustworthy and "cgroup-not-applied" in record.doubts


def test_an_slo_break_is_the_server_s_limit_with_the_step_it_failed() -> None:
    summaries = _ladder("go")
    p99s = [s.latency_ms.tool_call_all.p99 for s in summaries]
    record = _rejudge(summaries, f"p99<{(p99s[0] + max(p99s)) / 2:.3f}ms")
    assert record.stop_kind == "slo" and not record.lower_bound
    assert record.next_step_calls_per_s == record.steps[-1].rate_offered


def test_the_recorded_capacity_files_are_what_the_model_says() -> None:
    paths = sorted(RECORDED.glob(f"*/{CAPACITY_FILE}"))
    assert paths, f"no {CAPACITY_FILE} under {RECORDED}: the recorded capacity run is missing"
    for path in paths:
        document = model.parsed(model.Capacity, json.loads(path.read_text()), path)
        assert document.rounds and all(entry.steps for entry in document.rounds)

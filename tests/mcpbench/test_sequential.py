"""--rounds auto (analysis/sequential.py, experiments/stopping.py): the stopping rule's verdicts on figures
whose answer is known, and its false-ordering rate when two servers are equal."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from mcpbench.analysis import sequential
from mcpbench.experiments.stopping import Headline, StoppingRule


def rounds(*values: float) -> dict[int, float]:
    return {i + 1: v for i, v in enumerate(values)}


def test_a_clear_order_is_resolved_after_three_rounds() -> None:
    figures = {"rust": rounds(2400, 2300, 2450), "python": rounds(400, 380, 410)}
    [pair] = sequential.judge(figures, higher_better=True, alpha=sequential.look_alpha(6))
    assert (pair.better, pair.worse, pair.state, pair.rounds) == ("rust", "python", "ordered", 3)
    assert pair.ratio == pytest.approx(np.exp(np.mean(np.log([400 / 2400, 380 / 2300, 410 / 2450]))))


def test_a_pair_within_the_margin_is_equivalent_and_a_noisy_one_stays_open() -> None:
    tight = {"a": rounds(1000, 1010, 990, 1005, 995, 1000), "b": rounds(1001, 1009, 992, 1004, 996, 1001)}
    assert sequential.judge(tight, True, sequential.look_alpha(6))[0].state == "equivalent"
    noisy = {"a": rounds(1000, 1300, 800), "b": rounds(1100, 1000, 1000)}
    assert sequential.judge(noisy, True, sequential.look_alpha(6))[0].state == "open"
    # lower is better: the order flips, the verdict does not
    [pair] = sequential.judge({"a": rounds(0.3, 0.31, 0.29), "b": rounds(0.9, 0.95, 0.92)}, False, 0.01)
    assert (pair.better, pair.state) == ("a", "ordered")


def test_alpha_is_spent_over_the_looks() -> None:
    assert sequential.looks(6) == 4 and sequential.look_alpha(6) == pytest.approx(0.0125)
    assert sequential.look_alpha(3) == sequential.ALPHA


def test_spending_keeps_false_orderings_of_equal_servers_at_the_nominal_level() -> None:
    # Residuals with the spread this machine's rounds show (CV ~5 %), centred: the two servers are equal.
    residuals = np.random.default_rng(3).normal(0.0, 0.05, 400)
    residuals -= residuals.mean()
    naive = sequential.simulate(residuals, 10, 2000, seed=11, alpha=sequential.ALPHA)
    spent = sequential.simulate(residuals, 10, 2000, seed=11, alpha=sequential.look_alpha(10))
    assert naive.interval()[0] > sequential.ALPHA      # testing at 5 % after every round orders them too often
    assert spent.interval()[1] < sequential.ALPHA + 0.01 and spent.rate <= sequential.ALPHA


def _summary(rate: float = 0.0, cpu: float | None = None, reasons: tuple[str, ...] = ()) -> SimpleNamespace:
    """The parts of a summary (results.model.Summary) the stopping rule reads."""
    return SimpleNamespace(status="ok", unpublishable_reasons=list(reasons),
                           throughput=SimpleNamespace(tool_calls_per_s=rate),
                           efficiency=SimpleNamespace(cpu_ms_per_call=cpu))


def test_the_rule_stops_when_resolved_and_records_why() -> None:
    rule = StoppingRule(Headline("session-50vu", "tool_calls_per_s", True), max_rounds=6, time_budget_s=None)
    for r, (fast, slow) in enumerate([(2400, 400), (2300, 380), (2450, 410)], start=1):
        rule.note("rust", "session-50vu", r, _summary(fast))
        rule.note("python", "session-50vu", r, _summary(slow))
        rule.note("python", "session-rate100", r, _summary(1.0))  # not the headline
        more, line = rule.more(r, 60.0 * r, [["rust", "python"]] * r)
        assert more is (r < 3)
    assert "ordered or equivalent" in line
    assert rule.record.stopped_by == "resolved" and rule.record.rounds == 3
    assert rule.record.rounds_by_server == {"python": 3, "rust": 3}
    assert [look.round for look in rule.record.looks] == [3]


def test_the_caps_stop_the_rounds_and_unpublishable_figures_take_no_part() -> None:
    headline = Headline("session-equal0.7", "cpu_ms_per_call", False)
    bound = _summary(cpu=0.3, reasons=("flag: bound:load-model",))
    noisy = _summary(cpu=0.3, reasons=("flag: errors",))
    assert headline.figure(bound) == 0.3 and headline.figure(noisy) is None
    rule = StoppingRule(headline, max_rounds=4, time_budget_s=100.0)
    assert rule.more(1, 150.0, [["a"]]) == (False, "no further round: the time budget (2 min) is spent")
    assert rule.record.stopped_by == "time-budget"
    rule = StoppingRule(headline, max_rounds=4, time_budget_s=None)
    assert rule.more(4, 10.0, [["a"]] * 4)[0] is False and rule.record.stopped_by == "max-rounds"

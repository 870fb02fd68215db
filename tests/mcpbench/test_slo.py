"""The one SLO grammar (analysis/slo.py) as `--assert` reads it, and the assertions judged on recorded summaries
(tests/fixtures/results: go measured in two rounds)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpbench.analysis.slo import Criterion, SloError, assertions, parse_slo
from mcpbench.results.model import Summary, parsed
from mcpbench.results.read import read_json
from mcpbench.results.upgrades import upgrade_document

RUN = Path(__file__).resolve().parents[1] / "fixtures" / "results" / "20261126-125834-local"


def _summary(path: Path) -> Summary:
    return parsed(Summary, upgrade_document(Summary, read_json(path), path), path)


@pytest.fixture(scope="module")
def go_rounds() -> dict[tuple[str, str], dict[int, Summary]]:
    rounds = {r: _summary(RUN / "go" / f"session-8vu-r{r}" / "summary.json") for r in (1, 2)}
    assert all(s.status == "ok" for s in rounds.values())
    return {("go", "session-8vu"): rounds}


def test_cpu_per_call_is_part_of_the_grammar() -> None:
    assert parse_slo("p99<50ms,errors<1%,cpu_ms_per_call<2", "--assert") == (
        Criterion("p99", 50.0), Criterion("errors", 0.01), Criterion("cpu_ms_per_call", 2.0))
    assert [c.text for c in parse_slo("cpu_ms_per_call<0.5ms")] == ["cpu_ms_per_call<0.5"]
    with pytest.raises(SloError, match="^--assert: cpu_ms_per_call is in ms"):
        parse_slo("cpu_ms_per_call<2%", "--assert")


def test_assertions_hold_and_fail_as_written_on_the_median_of_the_rounds(go_rounds) -> None:
    summaries = go_rounds[("go", "session-8vu")]
    p99s = sorted(s.latency_ms.tool_call_all.p99 for s in summaries.values())  # type: ignore[union-attr]
    middle = sum(p99s) / 2     # the median of two rounds
    loose = assertions(parse_slo(f"p99<{middle * 1.01:.6f}ms,errors<1%"), go_rounds)
    assert [a.outcome for a in loose] == ["pass", "pass"]
    assert loose[0].value == pytest.approx(middle) and set(loose[0].by_round) == {1, 2}
    tight = assertions(parse_slo(f"p99<{middle * 0.99:.6f}ms"), go_rounds)
    assert [a.outcome for a in tight] == ["fail"] and "go session-8vu p99<" in tight[0].text
    cpu = [s.efficiency.cpu_ms_per_call for s in summaries.values()]
    assert all(c is not None for c in cpu)
    assert assertions(parse_slo(f"cpu_ms_per_call<{max(cpu) * 2:.6f}"), go_rounds)[0].outcome == "pass"  # type: ignore[type-var, operator]


def test_a_figure_no_round_has_is_not_measured(go_rounds) -> None:
    failed = {key: {r: s.model_copy(update={"status": "failed"}) for r, s in rounds.items()}
              for key, rounds in go_rounds.items()}
    assert [a.outcome for a in assertions(parse_slo("p99<1s"), failed)] == ["not measured"]

"""The decision page (decision.html, data/decision.json) and the history page (history.html), on recorded runs
(tests/fixtures/results) through the real consolidation and statistics; one figure of a copy is changed where a
test needs a claim to move."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mcpbench_report import decision, stats
from mcpbench_report.consolidate import consolidate
from mcpbench_report.history import history
from mcpbench_report.load import load
from mcpbench_report.build import build_site

from report_helpers import AGAIN, HALF_CPU, ROUNDS, WHAT_IF


def _decide(*dirs: Path, **kwargs) -> decision.Decision:
    return decision.decide(consolidate(load(list(dirs))), **kwargs)


def _answer(d: decision.Decision, key: str) -> decision.Answer:
    return next(a for a in d.answers if a.key == key)


def test_a_claim_is_made_only_where_every_test_against_the_leader_is_significant():
    d = _decide(ROUNDS)
    cons = consolidate(load([ROUNDS]))
    ranking = cons.rankings[cons.headline]["cpu_"]
    cpu = _answer(d, "cpu")
    assert cpu.verdict == "win" and [e.server for e in cpu.top] == [ranking.order[0]] == ["rust"]
    leader = ranking.order[0]
    # every other server's test against the leader is significant after Holm: that is the claim
    assert all(ranking.pairs[(leader, other)].significant for other in ranking.order[1:])
    # the page shows the weakest of them (largest corrected p within the question's family: the leader against
    # each of the three others, Holm over those three), with its raw and Holm p-values and the family
    best = stats.leader_tests(ranking)
    weakest = max(best.tests.values(), key=lambda v: v.p_adjusted)
    assert len(cpu.tests) == 1 and cpu.tests[0].p_holm == weakest.p_adjusted and cpu.tests[0].family == 3
    assert cpu.runner_up is not None and cpu.runner_up.server == ranking.order[1]
    # idle memory: rust and go are not separated, so the answer names the tie and its failed test
    idle = _answer(d, "mem-idle")
    assert idle.verdict == "tie" and {e.server for e in idle.top} == {"rust", "go"}
    assert any(not t.significant and t.other in {"rust", "go"} for t in idle.tests)
    # one stack per language here: each is the only one, nothing claimed against another language's
    assert {a.verdict for a in d.by_language} == {"only one"}
    # no equal load, capacity, image or soak in these results: said so, no server named
    for key in ("p99", "capacity", "image", "soak"):
        assert _answer(d, key).verdict == "not measured" and not _answer(d, key).top


def _scale_cpu(results: Path, server: str, factor: float) -> None:
    """Multiply a server's recorded CPU ms per call in every round of a copied results directory."""
    for path in (results / server).glob("*/summary.json"):
        summary = json.loads(path.read_text())
        summary["efficiency"]["cpu_ms_per_call"] *= factor
        path.write_text(json.dumps(summary))


def test_changing_one_figure_turns_a_tie_into_a_win_and_back(tmp_path):
    """go and its twin without DNS-rebinding protection are not separated on CPU per call (a tie); the twin's CPU
    per call made 1.5x in every round separates them (go wins); the recorded figure back, the tie is back. The
    page's sentence follows each time."""
    copy = tmp_path / WHAT_IF.name
    shutil.copytree(WHAT_IF, copy)

    def page() -> tuple[decision.Answer, str]:
        out = tmp_path / "site"
        build_site(consolidate(load([copy])), out)
        row = re.search(r'<tr id="q-cpu".*?</tr>', (out / "decision.html").read_text(), re.S).group(0)
        return _answer(_decide(copy), "cpu"), row

    answer, row = page()
    assert answer.verdict == "tie" and {e.server for e in answer.top} == {"go", "go-unguarded"}
    assert 'verdict-tie' in row and answer.tests[0].p_holm >= 0.05
    _scale_cpu(copy, "go-unguarded", 1.5)
    answer, row = page()
    assert answer.verdict == "win" and [e.server for e in answer.top] == ["go"]
    assert 'verdict-win' in row and answer.tests[0].significant and answer.tests[0].p_holm < 0.05
    _scale_cpu(copy, "go-unguarded", 1 / 1.5)
    answer, row = page()
    assert answer.verdict == "tie" and 'verdict-tie' in row


def test_budgets_narrow_the_candidates():
    cons = consolidate(load([ROUNDS]))
    rows = {r.server: r for r in cons.rows[cons.headline]}
    smallest = min(max(r.per_run_mem_peak_mb) for r in rows.values())
    only = [n for n, r in rows.items() if max(r.per_run_mem_peak_mb) == smallest]
    d = decision.decide(cons, budget_mb=smallest)
    budget = _answer(d, "budget-mem")
    assert [e.server for e in budget.top] == only and budget.verdict == "only one"
    none = _answer(decision.decide(cons, budget_mb=smallest / 2), "budget-mem")
    assert none.verdict == "not measured" and not none.top


def test_cost_per_million_calls_from_the_servers_own_figures():
    cons = consolidate(load([ROUNDS]))
    d = decision.decide(cons, price_vcpu_hour=0.1, price_gib_hour=0.01)
    assert not d.prices_are_examples
    for cost in d.costs:
        row = next(r for r in cons.rows[cons.headline] if r.server == cost.server)
        assert cost.cpu_s_per_million == pytest.approx(row.cpu_ms_per_call * 1000)
        assert cost.gib_s_per_million == pytest.approx(row.mem_avg_mb / 1024 * 1e6 / row.tool_calls_per_s)
        assert cost.money_per_million == pytest.approx(cost.cpu_s_per_million / 3600 * 0.1
                                                       + cost.gib_s_per_million / 3600 * 0.01)
    assert decision.decide(cons).prices_are_examples


def test_the_decision_page_and_its_json(tmp_path):
    out = tmp_path / "site"
    build_site(consolidate(load([ROUNDS])), out, options={"budget_mb": 64})
    page = (out / "decision.html").read_text()
    assert "Which stack for me" in page and "example prices" in page and "within 64 MiB" in page
    doc = json.loads((out / "data" / "decision.json").read_text())
    assert {a["key"] for a in doc["answers"]} >= {"cpu", "p99", "capacity", "mem-peak", "mem-idle", "cold-start",
                                                  "image", "budget-mem", "soak"}
    index = (out / "index.html").read_text()
    # the first screen: summary, then the headline chart, then the ranking; the decision page first in the menu
    assert index.index('id="summary"') < index.index('class="headline"') < index.index('id="ranking"')
    nav = re.search(r'<header class="top">.*?</header>', index, re.S).group(0)
    assert re.findall(r'href="([^"]+)"', nav)[1] == "decision.html"
    # harness-limited rows after the ranked ones
    assert index.index('id="ranking-session-8vu"') < index.index('id="bound-session-8vu"')


def test_history_marks_the_real_change_only():
    """Three recorded runs of the same four servers; the third at half a CPU. Between the first two (the same
    code, minutes apart) nothing changed; at half a CPU python's and nodejs's throughput fell and their p99 rose
    (rust and go were limited by the harness on both sides: their throughput says nothing, their p99 held).
    Four servers are too few to centre each round on its median server: their own figures are compared."""
    h = history(load([HALF_CPU, ROUNDS, AGAIN]))
    assert h.run_ids == sorted([ROUNDS.name, AGAIN.name, HALF_CPU.name])
    changes = sorted((s.server, step.figure.field, step.direction, step.after) for s in h.servers for step in s.changes)
    assert changes == [("nodejs", "latency_all_p99_ms", "regression", HALF_CPU.name),
                       ("nodejs", "tool_calls_per_s", "regression", HALF_CPU.name),
                       ("python", "latency_all_p99_ms", "regression", HALF_CPU.name),
                       ("python", "tool_calls_per_s", "regression", HALF_CPU.name)]
    assert h.family == sum(step.verdict.tested for s in h.servers for step in s.steps)
    assert any("cpus" in line for line in h.differences)   # the profile changed across the last step: said


def test_report_history_command(tmp_path):
    from mcpbench.cli.app import app
    out = tmp_path / "site"
    result = CliRunner().invoke(app, ["report", str(ROUNDS), str(AGAIN), str(HALF_CPU), "--history", "-o", str(out)],
                                env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    page = (out / "history.html").read_text()
    assert "4 significant changes found (4 regressions)" in page
    assert (out / "charts" / "history.svg").is_file()
    # the other pages show the newest directory only
    assert HALF_CPU.name in (out / "index.html").read_text() and not (out / "raw" / ROUNDS.name).exists()
    one = CliRunner().invoke(app, ["report", str(ROUNDS), "--history", "-o", str(tmp_path / "one")])
    assert one.exit_code == 2 and "at least two results directories" in one.output
    assert "Traceback" not in one.output

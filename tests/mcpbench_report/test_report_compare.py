"""mcpbench_report.compare: regression check between two results."""

from __future__ import annotations

import json
import shutil

import pytest
from rich.console import Console

from mcpbench_report import load
from mcpbench_report import stats
from mcpbench_report.compare import (IMPROVEMENT, NOT_TESTED, REGRESSION, UNCHANGED, compare_results,
                                     print_comparison, write_html)
from mcpbench_report.consolidate import MixedResultsError

from report_helpers import BASIC, NEWER, SWEEP, steady, write_results


@pytest.fixture(scope="module")
def basic_vs_newer():
    return compare_results(load.load([BASIC]), load.load([NEWER]))


def test_verdicts(basic_vs_newer):
    by = {c.server: c for c in basic_vs_newer.changes}
    assert set(by) == {"rust", "go", "java", "python"}
    assert by["go"].verdict == IMPROVEMENT
    assert by["go"].throughput.significant and by["go"].throughput.relative == pytest.approx(0.113, abs=0.01)
    assert by["go"].versions == ["sdk_version: 1.1.0 → 1.2.0"]
    assert by["python"].verdict == REGRESSION and by["python"].throughput.relative < -0.15
    assert by["rust"].verdict == UNCHANGED and by["java"].verdict == UNCHANGED
    assert not by["rust"].versions
    assert [c.server for c in basic_vs_newer.regressions] == ["python"]
    assert "Welch" in by["go"].throughput.method and "Welch" in by["go"].p99.method
    assert by["go"].p99.p_adjusted is not None and by["python"].throughput.p_adjusted < 0.05


def test_terminal_output(basic_vs_newer):
    console = Console(record=True, width=200)
    print_comparison(basic_vs_newer, console)
    text = console.export_text()
    assert "regression" in text and "improvement" in text and "1 significant regression" in text
    assert "sdk_version: 1.22.0 → 1.23.0" in text


def test_html_page(basic_vs_newer, tmp_path):
    path = tmp_path / "cmp" / "compare.html"
    write_html(basic_vs_newer, path)
    html = path.read_text()
    assert "<table" in html and "regression" in html and "Python · FastMCP" in html
    assert "http://" not in html and "https://" not in html


def test_single_runs_are_not_tested(tmp_path):
    """Replaces the few-run bootstrap rule: with fewer than 3 runs a side nothing is claimed."""
    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(BASIC, old)
    shutil.copytree(NEWER, new)
    for root in (old, new):
        for extra in list(root.glob("*/session-10vu-r2")) + list(root.glob("*/session-10vu-r3")):
            shutil.rmtree(extra)
    result = compare_results(load.load([old]), load.load([new]), allow_mixed=False)
    assert all(not c.throughput.tested and not c.p99.tested for c in result.changes)
    assert {c.verdict for c in result.changes} == {NOT_TESTED} and not result.regressions
    assert result.family == 0


def test_same_code_gives_no_regression():
    same = compare_results(load.load([BASIC]), load.load([BASIC]))
    assert {c.verdict for c in same.changes} == {UNCHANGED} and not same.regressions
    assert all(c.throughput.p_value == 1.0 for c in same.changes)


def test_holm_across_the_whole_comparison(basic_vs_newer):
    """One family: throughput and p99 of every server x load (4 servers x 2 = 8 tests)."""
    assert basic_vs_newer.family == 8
    raw = [getattr(c, a).p_value for c in basic_vs_newer.changes for a in ("throughput", "p99")]
    adj = [getattr(c, a).p_adjusted for c in basic_vs_newer.changes for a in ("throughput", "p99")]
    assert adj == pytest.approx(stats.holm(raw))
    assert min(adj) == pytest.approx(8 * min(raw))


def _tiny(tmp_path, rate_new, run_id):
    runs = [steady(10 + 0.01 * i, 1.0) for i in range(3)]
    new_runs = [steady(rate_new + 0.01 * i, 1.0) for i in range(3)]
    a = write_results(tmp_path / "a", {"x": runs}, config={"runs": 3})
    b = write_results(tmp_path / "b", {"x": new_runs}, config={"runs": 3}, run_id=run_id)
    return load.load([a]), load.load([b])


def test_min_effect(tmp_path):
    """A 2 % slower throughput with almost no noise is significant after Holm, but below MIN_EFFECT (3 %):
    not a regression; with min_effect 1 % it is."""
    old, new = _tiny(tmp_path, 9.8, "20260102-000000-local")
    default = compare_results(old, new)
    t = default.changes[0].throughput
    assert t.p_adjusted < 0.05 and t.relative == pytest.approx(-0.02, abs=2e-3)
    assert not t.significant and default.changes[0].verdict == UNCHANGED and stats.MIN_EFFECT == 0.03
    strict = compare_results(old, new, min_effect=0.01)
    assert strict.changes[0].verdict == REGRESSION and len(strict.regressions) == 1


def test_refuses_other_machine(tmp_path):
    new = tmp_path / "new"
    shutil.copytree(NEWER, new)
    run = json.loads((new / "run.json").read_text())
    run["environment"]["cores"] = 8
    (new / "run.json").write_text(json.dumps(run))
    with pytest.raises(MixedResultsError, match="environment.cores"):
        compare_results(load.load([BASIC]), load.load([new]))
    result = compare_results(load.load([BASIC]), load.load([new]), allow_mixed=True)
    assert result.differences and result.changes


def test_servers_in_one_side_only(tmp_path):
    a = write_results(tmp_path / "a", {"x": [steady(5, 1.0)], "y": [steady(5, 1.0)]})
    b = write_results(tmp_path / "b", {"x": [steady(5, 1.0)], "z": [steady(5, 1.0)]}, run_id="20260102-000000-local",
                      extra_servers={"y": {"status": "failed", "phase": "build", "reason": "broke",
                                           "measurements": []}})
    result = compare_results(load.load([a]), load.load([b]))
    assert [c.server for c in result.changes] == ["x"]
    assert result.only_old[0][0] == "y" and "broke" in result.only_old[0][2]
    assert [s for s, _ in result.only_new] == ["z"]


def test_compare_sweep_against_itself():
    result = compare_results(load.load([SWEEP]), load.load([SWEEP]))
    assert all(c.verdict == NOT_TESTED for c in result.changes)     # 1 run a side: not tested
    assert len(result.changes) == 5   # rust 1/10/50, python 1/10 (python 50 failed)

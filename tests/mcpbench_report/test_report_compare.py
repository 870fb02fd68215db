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

from report_helpers import AGAIN, HALF_CPU, ROUNDS, SWEEP, copy_with_manifest, steady, write_results


@pytest.fixture(scope="module")
def rounds_vs_half_cpu():
    """The same code measured again with half the CPU (recorded): a real loss. --allow-mixed: the CPU
    limit is part of the configuration fingerprint."""
    return compare_results(load.load([ROUNDS]), load.load([HALF_CPU]), allow_mixed=True)


def test_verdicts(rounds_vs_half_cpu):
    by = {c.server: c for c in rounds_vs_half_cpu.changes}
    assert set(by) == {"rust", "go", "nodejs", "python"}
    assert by["python"].verdict == REGRESSION and by["python"].throughput.relative < -0.3
    assert by["python"].throughput.significant and by["python"].throughput.p_adjusted < 0.05
    assert "moderated two-sample t" in by["python"].throughput.method and "moderated" in by["python"].p99.method
    # rust and go were limited by the harness on both sides: their throughput change is not tested
    for name in ("rust", "go"):
        assert not by[name].throughput.tested and "limited by the harness on OLD and NEW" in by[name].throughput.method
    # nodejs was limited in OLD only: OLD is a lower bound, so NEW's loss is tested (and enters Holm's family)
    node = by["nodejs"].throughput
    assert node.tested and "OLD limited by the harness" in node.method and node.relative < -0.3
    assert sorted(c.server for c in rounds_vs_half_cpu.regressions) == sorted(["python"] + (["nodejs"] if node.significant else []))
    assert rounds_vs_half_cpu.differences == ["config.profile.cpus: 1.0 (20261123-113219-local), 0.5 (20261123-113729-local)"]


def test_a_limited_new_side_can_only_show_a_gain():
    reverse = {c.server: c for c in compare_results(load.load([HALF_CPU]), load.load([ROUNDS]), allow_mixed=True).changes}
    assert reverse["python"].verdict == IMPROVEMENT
    assert "NEW limited by the harness" in reverse["nodejs"].throughput.method


def test_sdk_versions_are_shown(tmp_path):
    newer = copy_with_manifest(tmp_path, AGAIN, "go", sdk_version="9.9.9")
    result = compare_results(load.load([ROUNDS]), load.load([newer]))
    go = next(c for c in result.changes if c.server == "go")
    old_version = json.loads((ROUNDS / "go" / "server.json").read_text())["sdk_version"]
    assert go.versions == [f"sdk_version: {old_version} → 9.9.9"]
    console = Console(record=True, width=200)
    print_comparison(result, console)
    assert f"sdk_version: {old_version} → 9.9.9" in console.export_text()


def test_terminal_output(rounds_vs_half_cpu):
    console = Console(record=True, width=200)
    print_comparison(rounds_vs_half_cpu, console)
    text = console.export_text()
    assert "regression" in text and "significant regression" in text and "config.profile.cpus" in text


def test_html_page(rounds_vs_half_cpu, tmp_path):
    path = tmp_path / "cmp" / "compare.html"
    write_html(rounds_vs_half_cpu, path)
    html = path.read_text()
    assert "<table" in html and "regression" in html and "Python · FastMCP" in html
    assert "http://" not in html and "https://" not in html


def test_single_runs_are_not_tested(tmp_path):
    """With fewer than 3 runs a side nothing is claimed."""
    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(ROUNDS, old)
    shutil.copytree(HALF_CPU, new)
    for root in (old, new):
        for extra in list(root.glob("*/session-8vu-r2")) + list(root.glob("*/session-8vu-r3")):
            shutil.rmtree(extra)
    result = compare_results(load.load([old]), load.load([new]), allow_mixed=True)
    assert all(not c.throughput.tested and not c.p99.tested for c in result.changes)
    assert {c.verdict for c in result.changes} == {NOT_TESTED} and not result.regressions
    assert result.family == 0


def test_same_code_gives_no_regression():
    """ROUNDS and AGAIN: the same code and configuration measured twice, minutes apart (recorded)."""
    again = compare_results(load.load([ROUNDS]), load.load([AGAIN]))
    assert {c.verdict for c in again.changes} == {UNCHANGED} and not again.regressions
    itself = compare_results(load.load([ROUNDS]), load.load([ROUNDS]))
    assert {c.verdict for c in itself.changes} == {UNCHANGED}
    assert all(c.p99.p_value == pytest.approx(1.0) and c.p99.relative == pytest.approx(0.0, abs=1e-12)
               for c in itself.changes)


def test_holm_within_each_figure(rounds_vs_half_cpu):
    """A family is the question: which servers changed on this figure at this load — python's and nodejs's
    throughput (rust and go are limited by the harness on both sides), and the 4 servers' p99."""
    assert rounds_vs_half_cpu.family == 6
    for attr, size in (("throughput", 2), ("p99", 4)):
        tests = [getattr(c, attr) for c in rounds_vs_half_cpu.changes if getattr(c, attr).tested]
        assert len(tests) == size
        assert [t.p_adjusted for t in tests] == pytest.approx(stats.holm([t.p_value for t in tests]))


def _tiny(tmp_path, rate_new, run_id):
    runs = [steady(10 + 0.01 * i, 1.0) for i in range(3)]
    new_runs = [steady(rate_new + 0.01 * i, 1.0) for i in range(3)]
    a = write_results(tmp_path / "a", {"x": runs}, config={"runs": 3})
    b = write_results(tmp_path / "b", {"x": new_runs}, config={"runs": 3}, run_id=run_id)
    return load.load([a]), load.load([b])


def test_min_effect(tmp_path):
    """A 2 % slower throughput with almost no noise is significant after Holm, but below MIN_EFFECT (5 %):
    not a regression; with min_effect 1 % it is."""
    old, new = _tiny(tmp_path, 9.8, "20260102-000000-local")
    default = compare_results(old, new)
    t = default.changes[0].throughput
    assert t.p_adjusted < 0.05 and t.relative == pytest.approx(-0.02, abs=2e-3)
    assert not t.significant and default.changes[0].verdict == UNCHANGED and stats.MIN_EFFECT == 0.05
    strict = compare_results(old, new, min_effect=0.01)
    assert strict.changes[0].verdict == REGRESSION and len(strict.regressions) == 1


def test_refuses_other_machine(tmp_path):
    new = tmp_path / "new"
    shutil.copytree(AGAIN, new)
    run = json.loads((new / "run.json").read_text())
    run["environment"]["cores"] = 8
    (new / "run.json").write_text(json.dumps(run))
    with pytest.raises(MixedResultsError, match="environment.cores"):
        compare_results(load.load([ROUNDS]), load.load([new]))
    result = compare_results(load.load([ROUNDS]), load.load([new]), allow_mixed=True)
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
    assert len(result.changes) == 6   # rust and python at 1, 4 and 16 VUs

"""The CI gate's rule (analysis/gate.py) on recorded rounds, and its record's files (results/gate.py) from a
recorded real `mcpbench ci` run: gate.json read back, gate.md's verdict first and a table per level, gate.junit.xml
read by junitparser and by the standard library's XML parser with a failure per confirmed regression."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from junitparser import Failure, JUnitXml
from markdown_it import MarkdownIt

from mcpbench.analysis import gate
from mcpbench.results.gate import GATE_SCHEMA, Gate

RECORDED = Path(__file__).resolve().parents[1] / "fixtures" / "recorded"
SIX_ROUNDS = RECORDED / "six-rounds-20261127-cpu.json"
# A real `mcpbench ci` run (docs/ci.md): server-everything against itself with `node --no-opt`, whose regression
# at 10 VUs was suspected by the screen and confirmed.
RECORDED_GATE = RECORDED / "ci-gate" / "gate.json"


def _rounds(server: str) -> dict[int, float]:
    figures = json.loads(SIX_ROUNDS.read_text())["figures"][server]
    return {int(r): v for r, v in figures}


def _pairs(base: dict[int, float], candidate: dict[int, float], figure: str = "cpu_ms_per_call") -> gate.Pairs:
    return {("session-10vu", figure): (base, candidate)}


def test_a_server_against_itself_twice_as_costly_is_a_regression_and_half_as_costly_an_improvement() -> None:
    go = {r: v for r, v in _rounds("go").items() if r <= 3}
    worse = gate.screen(_pairs(go, {r: 2 * v for r, v in go.items()}))[("session-10vu", "cpu_ms_per_call")]
    assert worse.outcome == "regression" and worse.ratio == pytest.approx(2.0)
    assert worse.low is not None and worse.low > 1
    better = gate.screen(_pairs(go, {r: v / 2 for r, v in go.items()}))[("session-10vu", "cpu_ms_per_call")]
    assert better.outcome == "improvement"
    # calls/s: more is better, so half the rate is the regression
    slower = gate.screen(_pairs(go, {r: v / 2 for r, v in go.items()}, "calls_per_s"))
    assert slower[("session-10vu", "calls_per_s")].outcome == "regression"


def test_rounds_of_the_same_server_are_no_change_and_the_confirmation_never_reads_an_improvement() -> None:
    rounds = _rounds("go")
    first, later = {r: rounds[r] for r in (1, 2, 3)}, {r - 3: rounds[r] for r in (4, 5, 6)}
    check = gate.screen(_pairs(first, later))[("session-10vu", "cpu_ms_per_call")]
    assert check.outcome == "no change" and check.low is not None and check.low < 1 < (check.high or 0)
    halved = gate.confirm(_pairs(first, {r: v / 2 for r, v in first.items()}))
    assert halved[("session-10vu", "cpu_ms_per_call")].outcome == "no change"


def test_the_confirmation_is_one_sided_so_it_reads_a_regression_the_two_sided_screen_at_its_level_would_not() -> None:
    base = {1: 1.0, 2: 1.1, 3: 0.9, 4: 1.05, 5: 0.95}
    candidate = {r: v * f for (r, v), f in zip(base.items(), (1.30, 1.18, 1.32, 1.15, 1.28), strict=True)}
    one = gate.confirm(_pairs(base, candidate))[("session-10vu", "cpu_ms_per_call")]
    two = gate.test(_pairs(base, candidate), gate.CONFIRM_ALPHA)[("session-10vu", "cpu_ms_per_call")]
    assert one.low is not None and two.low is not None and one.low > two.low
    assert one.ratio == pytest.approx(two.ratio or 0)


def test_a_change_below_the_minimum_effect_is_no_change_however_clear() -> None:
    base = {1: 1.0, 2: 1.2, 3: 0.8}
    check = gate.screen(_pairs(base, {r: v * 1.03 for r, v in base.items()}))[("session-10vu", "cpu_ms_per_call")]
    assert check.outcome == "no change" and check.ratio == pytest.approx(1.03)


def test_one_shared_round_is_not_tested() -> None:
    check = gate.screen(_pairs({1: 1.0, 2: 1.0}, {2: 3.0, 3: 3.0}))[("session-10vu", "cpu_ms_per_call")]
    assert check.outcome == "not tested" and check.rounds == 1


def test_the_figures_a_gate_can_check() -> None:
    assert [f.name for f in gate.figures_for(True)] == ["cpu_ms_per_call", "p99_ms", "calls_per_s"]
    assert [f.name for f in gate.figures_for(False)] == ["p99_ms", "calls_per_s"]   # a URL's CPU is not read


def test_suspected_and_confirmed() -> None:
    screen = {("a", "p99_ms"): gate.Check("a", "p99_ms", 2.0, 1.5, 2.5, 3, "regression"),
              ("b", "p99_ms"): gate.Check("b", "p99_ms", 0.5, 0.3, 0.7, 3, "improvement")}
    assert gate.suspected(screen) == [("a", "p99_ms")]
    confirmation = {("a", "p99_ms"): gate.Check("a", "p99_ms", 1.9, 1.2, 2.8, 5, "regression")}
    assert gate.confirmed(confirmation, screen) == [("a", "p99_ms")]
    assert gate.confirmed({("a", "p99_ms"): gate.Check("a", "p99_ms", 1.1, 0.9, 1.3, 5, "no change")}, screen) == []


def test_the_geometric_mean_ignores_what_was_not_measured() -> None:
    assert gate.geometric_mean([2.0, None, 8.0]) == pytest.approx(4.0)
    assert gate.geometric_mean([None]) is None


# -- the record and its files, from a real run --------------------------------------------------------------------
@pytest.fixture(scope="module")
def recorded() -> Gate:
    return Gate.model_validate_json(RECORDED_GATE.read_text())


def test_the_recorded_gate_is_a_confirmed_regression(recorded: Gate) -> None:
    assert recorded.schema_ == GATE_SCHEMA and recorded.verdict == "regression" and recorded.exit_code == 1
    assert recorded.confirmed
    confirmed = {(c.level, c.figure) for c in recorded.stage("confirmation") if c.outcome == "regression"}
    assert {tuple(key.split(" ")) for key in recorded.confirmed} == confirmed
    for check in recorded.checks:   # every ratio is the candidate's figure over the base's
        if check.base and check.candidate and check.ratio:
            assert math.isclose(check.ratio, check.candidate / check.base, rel_tol=0.5)


def test_the_files_are_written_and_read_back(recorded: Gate, tmp_path: Path) -> None:
    paths = recorded.write(tmp_path)
    assert Gate.model_validate_json(paths["json"].read_text()) == recorded
    # JUnit: junitparser and the standard library agree on the cases and their one failure per confirmed check
    xml = JUnitXml.fromfile(str(paths["junit"]))
    cases = [case for suite in xml for case in suite]
    assert len(cases) == len(recorded.checks)
    failures = [case.name for case in cases if any(isinstance(r, Failure) for r in case.result)]
    assert sorted(failures) == sorted(recorded.confirmed)
    root = ET.parse(paths["junit"]).getroot()
    assert root.tag == "testsuites" and len(root.findall(".//testcase")) == len(recorded.checks)
    assert len(root.findall(".//testcase/failure")) == len(recorded.confirmed)
    assert int(root.find("testsuite").get("failures")) == len(recorded.confirmed)  # type: ignore[union-attr]


def test_the_markdown_says_the_verdict_first_then_a_table_per_level(recorded: Gate) -> None:
    text = recorded.markdown()
    assert text.splitlines()[0].startswith("### mcpbench: ❌ **Regression confirmed**")
    html = MarkdownIt("commonmark").enable("table").render(text)
    levels = list(dict.fromkeys(c.level for c in recorded.checks))
    assert html.count("<table>") == len(levels)
    assert html.index("Regression confirmed") < html.index("<table>")
    assert len(text.encode()) < 65536   # a GitHub comment's limit

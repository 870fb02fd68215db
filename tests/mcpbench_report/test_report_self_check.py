"""The run's A/A self-check (--twin) on a recorded run whose twins the published ranking left out: rounds 4-6
of run 20261127-035935-local shared the cores with a test suite, so rust and rust-twin were flagged "noisy host"
in round 4 (tests/fixtures/README.md). The check must still be made, and say on what."""

from __future__ import annotations

import shutil
from pathlib import Path

from mcpbench_report.consolidate import MEASURED_SCOPE, consolidate
from mcpbench_report.load import load

from report_helpers import FIXTURES

TWINS = FIXTURES / "20261127-035935-local"   # rust, its --twin copy, baseline x 4 rounds at 153 calls/s


def test_a_twin_left_out_of_the_ranking_is_checked_against_every_measurement():
    cons = consolidate(load([TWINS]))
    assert cons.twins == {"rust-twin": "rust"}
    ranked = {r.server for key in cons.keys for r in cons.rows[key] if r.efficiency_section == "ranked"}
    assert "rust-twin" not in ranked and "rust" not in ranked
    checks = {c.twin: c for c in cons.self_checks()}
    assert set(checks) == {"rust-twin"}
    for check in checks.values():
        assert check.passed and check.scope == MEASURED_SCOPE and check.figure == "CPU ms per call"
        assert 0 < check.verdict.ratio_low < 1 < check.verdict.ratio_high
    lines = cons.self_check_lines()
    assert len(lines) == 1 and all(line.startswith("A/A self-check passed") and MEASURED_SCOPE in line
                                   for line in lines)


def test_a_twin_too_short_to_test_says_why(tmp_path: Path):
    run = tmp_path / TWINS.name
    shutil.copytree(TWINS, run)
    for rnd in range(3, 5):
        shutil.rmtree(run / "rust-twin" / f"session-rate153-r{rnd}")
    cons = consolidate(load([run]))
    line = next(line for line in cons.self_check_lines() if "rust-twin" in line)
    assert line == ("A/A self-check: rust-twin against rust: not tested "
                    "(rust-twin was measured in 2 rounds; a test needs 3)")


def test_servers_listed_in_run_json_without_a_server_json_still_get_an_index(tmp_path: Path):
    """The fixture keeps run.json as written, listing the 18 servers and twins its directory left out: each is
    a server whose part of the run never began (as in a run stopped before it), with no server.json."""
    from mcpbench_report.build import build_site

    cons = consolidate(load([TWINS]))
    absent = [name for name, view in cons.servers.items() if view.manifest is None]
    assert absent, "the fixture lists servers without a server.json"
    build_site(cons, tmp_path / "site")
    index = (tmp_path / "site" / "index.html").read_text()
    assert f'<span class="sub">{absent[0]}</span></td><td>—</td><td>—</td>' in index

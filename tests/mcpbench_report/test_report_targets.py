"""The report of a run of servers given on the command line alone (a recorded real run: server-everything over
stdio, tests/fixtures/recorded/README.md): the pages that apply to it and none of the lineup's, and what `mcpbench
run` prints and writes after such a run (after_run.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

from rich.console import Console

from mcpbench.host.paths import ROOT
from mcpbench_report.after_run import REPORT_DIR, after_run
from mcpbench_report.build import build_site
from mcpbench_report.consolidate import consolidate
from mcpbench_report.load import load

RUN = ROOT / "tests" / "fixtures" / "recorded" / "stdio-target" / "20261207-142151-local"


def test_a_run_of_targets_has_no_lineup_pages(tmp_path: Path) -> None:
    cons = consolidate(load([RUN]))
    assert cons.given("everything") and not cons.of_lineup
    info = build_site(cons, tmp_path / "site")
    pages = sorted(str(p.relative_to(info.out)) for p in info.out.rglob("*.html"))
    assert pages == ["index.html", "methodology.html", "servers/everything.html"], pages
    index = (info.out / "index.html").read_text()
    assert "decision.html" not in index and "v2.html" not in index and info.summary == ()


def test_after_a_run_of_targets_its_figures_are_printed_and_its_pages_written(tmp_path: Path) -> None:
    run = shutil.copytree(RUN, tmp_path / RUN.name)
    console = Console(record=True, width=120)
    after_run(console, "run", run)
    said = console.export_text()
    assert "everything" in said and "CPU ms/call" in said, said
    assert f"Report: {run / REPORT_DIR / 'index.html'} (3 pages)" in said.replace("\n", ""), said
    assert (run / REPORT_DIR / "servers" / "everything.html").is_file()
    # the run directory still reads as one server: the site in it is no server
    assert [d.config.servers for d in load([run])] == [["everything"]]
    # `ci` writes its own verdict files, and a run of the lineup is left to `mcpbench report`
    other = shutil.copytree(RUN, tmp_path / "other")
    after_run(Console(record=True), "ci", other)
    assert not (other / REPORT_DIR).exists()
    lineup = shutil.copytree(ROOT / "tests" / "fixtures" / "results" / "20261123-113219-local", tmp_path / "lineup")
    after_run(Console(record=True), "run", lineup)
    assert not (lineup / REPORT_DIR).exists()

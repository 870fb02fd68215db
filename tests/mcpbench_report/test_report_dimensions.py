"""The Dimensions page's tools-list tables on the recorded TOOLS_LIST run (go at 100 and 10,000 extra tools, baseline
and rust at 10,000): each twin's whole tools/list as verify read it, and a twin whose list came in pages (go at 10,000:
the Go SDK pages at 1,000 tools) shown with its figures but kept out of every ranking at that point, since its
load (the driver before it followed cursors) fetched the first page only. TOOLS_LIST_FOLLOWED is the same command
once the load driver followed every page: go at 10,000 is then judged like the rest."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from mcpbench.results.upgrades import PLANS_BY_NAME
from mcpbench_report import load
from mcpbench_report.build import site_options
from mcpbench_report.consolidate import consolidate
from mcpbench_report.dimensions import views
from mcpbench_report.pages.dimensions import DimensionsPage
from mcpbench_report.site import Site

from report_helpers import TOOLS_LIST, TOOLS_LIST_FOLLOWED

PAGED_NOTE = "not ranked: tools/list came in 11 pages and the load fetched the first only"


def _tables(fixture=TOOLS_LIST):
    (view,) = views(consolidate(load.load([fixture])))
    assert view.name == "tools-list"
    return {t.point: {c.server: c for c in t.cells} for t in view.tables}, view


def test_each_twins_tools_list_size_is_its_whole_list_every_page_counted() -> None:
    tables, _ = _tables()
    assert set(tables) == {"100 extra tools", "10,000 extra tools"}
    assert set(tables["100 extra tools"]) == {"go"}
    assert set(tables["10,000 extra tools"]) == {"go", "baseline", "rust"}
    for cells in tables.values():
        for cell in cells.values():
            listed = json.loads((TOOLS_LIST / cell.twin / "verify.json").read_text())["tools_list"]
            assert cell.list_bytes == listed["bytes"] and cell.list_kib == listed["bytes"] / 1024
    go = json.loads((TOOLS_LIST / "go-tools10000" / "verify.json").read_text())["tools_list"]
    rust = json.loads((TOOLS_LIST / "rust-tools10000" / "verify.json").read_text())["tools_list"]
    assert go["pages"] == 11 and rust["pages"] == 1 and go["tools"] == rust["tools"] == 10_003
    # go's eleven pages together weigh about what rust's one does: the size counts every page
    assert 0.8 < go["bytes"] / rust["bytes"] < 1.25
    assert tables["10,000 extra tools"]["go"].list_bytes > 50 * tables["100 extra tools"]["go"].list_bytes


def test_a_paged_twin_is_shown_but_ranked_nowhere_at_that_point() -> None:
    tables, view = _tables()
    paged = tables["10,000 extra tools"]["go"].row
    assert paged.throughput.rank is None and paged.cpu.rank is None and paged.mem.rank is None
    assert paged.throughput.rank_note == paged.cpu.rank_note == PAGED_NOTE
    assert paged.tool_calls_per_s > 0  # its figures stay on the page
    ten_thousand = next(t for t in view.tables if t.point == "10,000 extra tools")
    for ranking in ten_thousand.rankings.values():
        assert "go-tools10000" not in ranking.order
    # at 100 tools go's list is one page: ranked there like every other server
    assert tables["100 extra tools"]["go"].row.cpu.rank is not None
    assert "go-tools100" in next(t for t in view.tables if t.point == "100 extra tools").rankings["cpu_"].order
    # nor is its change from 100 tools a change of the same work: no change, no chart point at 10,000
    assert all(change.server != "go" for change in view.changes)
    assert [point for point, _ in view.series.get("go", [])] == ["100 extra tools"]


def test_a_paged_twin_whose_load_followed_every_page_is_judged_like_the_rest() -> None:
    tables, view = _tables(TOOLS_LIST_FOLLOWED)
    go = tables["10,000 extra tools"]["go"]
    for summary in (TOOLS_LIST_FOLLOWED / "go-tools10000").glob("persistent-10vu-r*/summary.json"):
        checks = json.loads(summary.read_text())["checks"]
        # 41 lists of 11 pages: 10 cursor pages each, sent besides the samples' requests, which agree
        assert checks["loadgen_cursor_pages"] == 410 and checks["problems"] == [], checks
    # no paging note: what keeps it unranked here is its own round 3 (Little's law failed in an 8 s window)
    assert go.row.throughput.rank_note == "not publishable" and go.row.cpu.rank_note != PAGED_NOTE
    assert [change.server for change in view.changes] == ["go"]
    assert [point for point, _ in view.series["go"]] == ["100 extra tools", "10,000 extra tools"]
    # its tools/list step is the whole list: 11 pages take longer than the first alone did (TOOLS_LIST)
    first_page_only = _tables()[0]["10,000 extra tools"]["go"]
    assert go.list_p50_ms > 10 * first_page_only.list_p50_ms


def test_a_server_not_measured_in_a_dimension_is_listed_with_its_reason(tmp_path) -> None:
    # rust's twin as the runner leaves a server whose manifest opts out (unsupported.tools-list): listed, never started
    copy = tmp_path / TOOLS_LIST.name
    shutil.copytree(TOOLS_LIST, copy)
    why = "it does not offer the tools-list dimension: its SDK lists every tool in one page"
    run = json.loads((copy / "run.json").read_text())
    run["servers"]["rust-tools10000"].update(status="unavailable", phase="unsupported", reason=why, measurements=[])
    (copy / "run.json").write_text(json.dumps(run))
    for measurement in (copy / "rust-tools10000").glob("persistent-*"):
        shutil.rmtree(measurement)
    (copy / "rust-tools10000" / "verify.json").unlink()
    cons = consolidate(load.load([copy]))
    (view,) = views(cons)
    assert view.not_measured == [("rust", why)]
    assert all(cell.server != "rust" for table in view.tables for cell in table.cells)
    site = Site(cons, tmp_path / "site", site_options({}), 100.0, None)
    site.env.globals["nav"] = []   # the page alone (the whole site of this fixture: its index needs every manifest)
    DimensionsPage().build(site)
    assert f"Not measured: rust ({why})." in (tmp_path / "site" / "dimensions.html").read_text()


def test_the_report_asks_no_dimension_by_its_name() -> None:
    # what each dimension shows and asks is in its recorded plan (results.model.DimensionPlan); only the upgrade
    # of plans recorded without it knows the built-in names (mcpbench/results/upgrades.py)
    names = "|".join(re.escape(name) for name in PLANS_BY_NAME)
    quoted = re.compile(rf"""["']({names})["']""")
    report = Path(load.__file__).parent
    found = [f"{path.relative_to(report)}: {line.strip()}" for path in sorted(report.rglob("*"))
             if path.suffix in (".py", ".html") for line in path.read_text().splitlines() if quoted.search(line)]
    assert len(PLANS_BY_NAME) == 6 and found == []

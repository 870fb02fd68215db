"""The console ranking and comparison at the 80 columns a log or a fresh terminal has: one line per server,
nothing wider than the terminal; every column when wide. On recorded runs through the real analysis."""

from __future__ import annotations

import io

from rich.console import Console

from mcpbench_report import load
from mcpbench_report.compare import compare_results, print_comparison
from mcpbench_report.console import ranking_table, short_note
from mcpbench_report.consolidate import consolidate
from mcpbench_report.site import FLAG_HELP, FLAG_SHORT

from report_helpers import HALF_CPU, ROUNDS


def _render(renderable_or_print, width: int) -> list[str]:
    console = Console(file=io.StringIO(), width=width, color_system=None, soft_wrap=False)
    renderable_or_print(console)
    return console.file.getvalue().splitlines()


def test_the_ranking_fits_80_columns_one_line_per_server() -> None:
    cons = consolidate(load.load([ROUNDS]))
    rows = cons.rows[cons.headline]
    lines = _render(lambda c: c.print(ranking_table("Ranking", rows, wide=False)), 80)
    assert max(len(line) for line in lines) <= 80, "\n".join(lines)
    header = next(line for line in lines if "server" in line)
    for column in ("#", "calls/s ×/÷95 %", "p99 ms", "CPU ms/call", "note"):
        assert column in header
    for row in rows:  # one line each, named by its directory (unique and short, never cut), figure and note on it
        (line,) = [line for line in lines if row.server in line.split()]
        assert f"{row.tool_calls_per_s:,.0f}" in line and short_note(row) in line
    # python is the ranked one in this recording; the others sit at the load model's limit: a lower bound
    assert any(line.lstrip().startswith("≥") or " ≥ " in line for line in lines)


def test_a_wide_ranking_shows_every_column() -> None:
    cons = consolidate(load.load([ROUNDS]))
    lines = _render(lambda c: c.print(ranking_table("Ranking", cons.rows[cons.headline], wide=True)), 200)
    header = " ".join(lines[:4])
    for column in ("runs", "95 % interval", "errors", "flags"):
        assert column in header


def test_the_comparison_fits_80_columns() -> None:
    cmp = compare_results(load.load([ROUNDS]), load.load([HALF_CPU]), allow_mixed=True)
    lines = _render(lambda c: print_comparison(cmp, c), 80)
    table = lines[:lines.index(next(line for line in lines if line.startswith("Δ: the change tested")))]
    assert max(len(line) for line in table) <= 80, "\n".join(table)
    for change in cmp.changes:  # one line each, with its verdict whole
        (line,) = [line for line in table if change.server in line.split() and change.key.label[:10] in line]
        assert change.verdict in line
    assert "regression" in "\n".join(table)


def test_every_flag_has_a_short_form() -> None:
    assert set(FLAG_HELP) == set(FLAG_SHORT) and max(map(len, FLAG_SHORT.values())) <= 18

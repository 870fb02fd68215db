"""What follows `mcpbench run` of servers given on the command line (`--command`, `--stdio`, `--url`, `--target`):
its figures on the console and the report's pages that apply to it written into the run's directory
(`<run>/report/index.html`), so an author sees what was measured without knowing `mcpbench report`. A run of
the lineup is left to `mcpbench report`, which merges runs and publishes the site. Registered under the
`mcpbench.after_run` entry point (pyproject.toml): the CLI calls it and never imports this package."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from .build import build_site
from .console import print_rankings
from .consolidate import consolidate
from .load import ResultsError, load

REPORT_DIR = "report"   # in the run's directory; results/layout.py skips a directory holding a site


def after_run(console: Console, experiment: str, directory: Path) -> None:
    """After a `run` whose servers were all given on the command line: the console ranking, then the site."""
    if experiment != "run":   # `ci` writes its verdict files; the other experiments print their own tables
        return
    try:
        cons = consolidate(load([directory]))
        if cons.of_lineup or not cons.groups:
            return
        print_rankings(console, cons, wide=False)
        info = build_site(cons, directory / REPORT_DIR)
    except ResultsError as exc:   # the run is measured and kept; only its pages are missing
        console.print(f"[yellow]The report was not written: {exc} (`mcpbench report {directory}` tries again)[/]")
        return
    console.print(f"Report: {info.out / 'index.html'} ({info.pages} pages)", highlight=False)

"""The report's two CLI commands, `mcpbench report` and `mcpbench compare`. The report package registers them
with the orchestrator's CLI through the `mcpbench.commands` entry point (pyproject.toml → `register`): the CLI
loads what is registered and never imports this package (import-linter's contract), so the arrow between the
two packages runs one way only — the report reads the orchestrator's results, never the other way round."""

from __future__ import annotations

import inspect
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from .load import ResultsError

console = Console(soft_wrap=False)
err_console = Console(stderr=True, soft_wrap=True)


def _fail(exc: Exception) -> typer.Exit:
    err_console.print(f"[bold red]error:[/bold red] {exc}", highlight=False, markup=True)
    return typer.Exit(code=2)


def report(
    results: Annotated[list[Path], typer.Argument(
        help="Results directories (results/<run-id>), or a directory holding several; runs of the same "
             "config are merged.", show_default=False)],
    out: Annotated[Path, typer.Option(
        "--out", "-o", help="Where to write the site (replaced if it is an earlier report).")] = Path("site"),
    allow_mixed: Annotated[bool, typer.Option(
        "--allow-mixed", help="Merge results whose config or environment differ (the site lists the "
                              "differences).")] = False,
    slo_p99_ms: Annotated[float, typer.Option(
        "--slo-p99-ms", help="p99 SLO (ms) for the peak-load figure of a concurrency sweep.")] = 100.0,
    wide: Annotated[bool, typer.Option(
        "--wide", help="Every column of the console ranking (a terminal of 140 columns or more shows them anyway).")]
    = False,
    history: Annotated[bool, typer.Option(
        "--history", help="The RESULTS are the same servers over time (SDK upgrades): each directory is one point; "
                          "history.html shows each server's figures per point with the significant changes "
                          "(compare's rules); the other pages show the newest directory.")] = False,
    **page_options: Any,
) -> None:
    """Build the static report site (ranking, charts, server pages, methodology, downloads) from results."""
    from .build import build_site, site_options
    from .console import print_rankings
    from .consolidate import consolidate
    from .load import load

    started = time.perf_counter()
    try:
        if slo_p99_ms <= 0:
            raise ResultsError("--slo-p99-ms must be positive")
        site_options(page_options)   # a bad value is one line before anything is read
        dirs = load(results)
        timeline = None
        if history:
            if len(dirs) < 2:
                raise ResultsError("--history needs at least two results directories")
            from .history import history as history_of
            timeline = history_of(dirs)
        # The other pages show the newest directory, which the history has consolidated already.
        cons = timeline.newest if timeline else consolidate(dirs, allow_mixed=allow_mixed)
        info = build_site(cons, out, options=page_options, slo_p99_ms=slo_p99_ms, history=timeline)
    except ResultsError as exc:
        raise _fail(exc) from None
    elapsed = time.perf_counter() - started

    print_rankings(console, cons, wide)
    if info.summary:   # the first screen's paragraph: what the tests support, in sentences
        console.print(" ".join(info.summary) + f" (decision page: {info.out}/decision.html)", highlight=False)
    for line in cons.self_check_lines():
        console.print(line, style="bold red" if "FAILED" in line else None, highlight=False)
    for failure in cons.failures:
        console.print(f"[yellow]{failure.server}[/yellow] ({failure.run_id}"
                      f"{' ' + failure.measurement if failure.measurement else ''}): {failure.status}"
                      f"{' at ' + failure.phase if failure.phase else ''} — {failure.reason or 'no reason given'}",
                      highlight=False)
    for line in cons.differences:
        console.print(f"[yellow]mixed:[/yellow] {line}", highlight=False)
    console.print(f"wrote {info.out}/index.html: {info.pages} pages, {info.charts} charts, "
                  f"{info.pages_bytes / 1e6:.2f} MB of pages and charts + raw files = {info.total_bytes / 1e6:.2f} MB, "
                  f"in {elapsed:.1f} s", highlight=False)


def _with_page_options(command):
    """The report command's signature: its own parameters, then every page's options (pages/*.py) — a page
    that adds an option adds it here without touching this module. Typer reads __signature__."""
    from . import pages

    # eval_str: the module's annotations are strings (postponed), and Typer reads flags like "-o" from them
    own = [p for p in inspect.signature(command, eval_str=True).parameters.values()
           if p.kind is not p.VAR_KEYWORD]
    extra = [inspect.Parameter(o.name, inspect.Parameter.KEYWORD_ONLY, default=o.default,
                               annotation=Annotated[o.annotation, typer.Option(o.flag, help=o.help,
                                                                               show_default=o.default is not None)])
             for o in pages.options()]
    command.__signature__ = inspect.Signature(own + extra)
    return command


report = _with_page_options(report)


def compare(
    old: Annotated[Path, typer.Argument(help="Results before the change (a results directory, or one holding "
                                             "several).", show_default=False)],
    new: Annotated[Path, typer.Argument(help="Results after the change.", show_default=False)],
    html: Annotated[Path | None, typer.Option(help="Also write the comparison as a self-contained HTML page.")] = None,
    allow_mixed: Annotated[bool, typer.Option("--allow-mixed", help="Compare even if config or environment "
                                                                    "differ.")] = False,
    min_effect: Annotated[float, typer.Option(
        "--min-effect", help="Smallest change as a ratio (0.05 = 5 %) that counts as a regression or improvement, "
                             "on top of significance after Holm's correction.")] = 0.05,
    absolute: Annotated[bool, typer.Option(
        "--absolute", help="Test each server's own figures, not centred on the median server of its round (a host "
                           "that was slower for every server then moves every server).")] = False,
    fail_on_regression: Annotated[bool, typer.Option(
        "--fail-on-regression", help="Exit with code 1 when any regression is found (for CI).")] = False,
    wide: Annotated[bool, typer.Option(
        "--wide", help="The old and new figures and p-values too (a terminal of 140 columns or more shows them).")]
    = False,
) -> None:
    """Per server and load: the change from OLD to NEW (CPU ms per call and p99 at an equal load, else throughput
    and p99), with significance."""
    from .compare import compare_results, print_comparison, write_html
    from .load import load

    try:
        if not 0 <= min_effect < 1:
            raise ResultsError("--min-effect must be in [0, 1)")
        result = compare_results(load([old]), load([new]), allow_mixed=allow_mixed, min_effect=min_effect,
                                 centre=not absolute)
    except ResultsError as exc:
        raise _fail(exc) from None
    if not result.changes:
        raise _fail(ResultsError("OLD and NEW have no server measured at the same load in both"))
    print_comparison(result, console, wide)
    if html is not None:
        write_html(result, html)
        console.print(f"wrote {html}", highlight=False)
    if fail_on_regression and result.regressions:
        raise typer.Exit(code=1)


def metrics(
    results: Annotated[list[Path], typer.Argument(help="Results directories (as `mcpbench report` takes them).",
                                                  show_default=False)],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write to this file (e.g. a textfile "
                                             "collector's directory/mcpbench.prom); default: stdout.")] = None,
    allow_mixed: Annotated[bool, typer.Option("--allow-mixed", help="Merge results whose config or environment "
                                                                    "differ.")] = False,
) -> None:
    """Every figure of the results as OpenMetrics text: a gauge per figure, labelled by server, mode, kind and level
    (Prometheus' textfile collector, a push gateway)."""
    from .consolidate import consolidate
    from .load import load
    from .openmetrics import openmetrics

    try:
        text = openmetrics(consolidate(load(results), allow_mixed=allow_mixed))
    except ResultsError as exc:
        raise _fail(exc) from None
    if out is None:
        print(text, end="")
        return
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise _fail(ResultsError(f"--out {out}: {exc.strerror or exc}")) from None
    err_console.print(f"wrote {out}", highlight=False)


def register(app: typer.Typer) -> None:
    """The `mcpbench.commands` entry point: add this package's commands to the `mcpbench` CLI."""
    app.command("report")(report)
    app.command("compare")(compare)
    app.command("metrics")(metrics)

"""`mcpbench compare OLD NEW`: per server and load, what changed, each figure tested as the report tests it.

The regression check after upgrading an SDK: each side is consolidated on its own (its rounds pooled), the two
sides must share config and machine (unless allow_mixed). The figures tested at a load (`figures_for`): where
every server was offered the same rate (an equal load) what each spent per call (CPU ms per call) and its
all-calls p99 — the throughput there is the offered rate and is never tested; elsewhere throughput and p99.
Each figure is stats.change_tests' (CHANGE_TEST): each server's log figure centred on the median server of
its round when at least MIN_CENTRE_SERVERS servers are common to both sides (a host that is 20 % slower for
everyone moves no server; that shared shift is reported on its own), OLD against NEW by a moderated two-sample
t-test on the logs, Holm within the figure at that load (the question "which servers changed on this
figure"), and a change counts only when corrected-significant AND at least `min_effect` (MIN_EFFECT) large.
Fewer than MIN_ROUNDS runs a side: "not tested". A harness-limited throughput is a lower bound of the
server's: with both sides limited its change is not tested; with one side limited only the direction that
bound still proves (a loss below a limited OLD, a gain above a limited NEW) is tested. An equal load offered at
different rates on the two sides is named: CPU per call and latency depend on the rate. Output: a rich table
for the terminal and an optional self-contained page.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from rich import box
from rich.console import Console, JustifyMethod
from rich.table import Table
from rich.text import Text

from . import stats
from .changes import (
    CPU,
    IMPROVEMENT,
    NOT_TESTED,
    REGRESSION,
    THROUGHPUT,
    UNCHANGED,
    Figure,
    direction,
    figures_for,
    test_figure,
)
from .consolidate import (
    MANIFEST_FINGERPRINT,
    Consolidated,
    MixedResultsError,
    consolidate,
    fingerprint_differences,
    stack_of,
)
from .load import LoadKey, ResultsDir
from .rows import Row

MIXED = "mixed"


@dataclass
class Change:
    server: str
    display_name: str
    key: LoadKey
    old: Row                           # the server's row at this load in OLD
    new: Row
    headline: stats.Verdict            # figures_for(key)[0]: throughput, or CPU ms per call at an equal load
    p99: stats.Verdict
    versions: list[str]

    @property
    def figures(self) -> tuple[Figure, Figure]:
        return figures_for(self.key)

    @property
    def tests(self) -> list[tuple[Figure, stats.Verdict]]:
        return list(zip(self.figures, (self.headline, self.p99), strict=True))

    @property
    def throughput(self) -> stats.Verdict | None:
        return self.headline if self.figures[0] is THROUGHPUT else None

    @property
    def verdict(self) -> str:
        if not any(v.tested for _, v in self.tests):
            return NOT_TESTED
        directions = {direction(figure, v) for figure, v in self.tests}
        worse, better = REGRESSION in directions, IMPROVEMENT in directions
        if worse and better:
            return MIXED
        return REGRESSION if worse else IMPROVEMENT if better else UNCHANGED


@dataclass
class Shift:
    """What every server common to both sides shared at one load and figure: NEW / OLD of the rounds' median
    servers (the host, or something all of them share)."""

    key: LoadKey
    figure: Figure
    ratio: float


@dataclass
class Comparison:
    old: Consolidated
    new: Consolidated
    changes: list[Change]
    only_old: list[tuple[str, LoadKey, str]] = field(default_factory=list)   # (server, load, why)
    only_new: list[tuple[str, LoadKey]] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)
    min_effect: float = stats.MIN_EFFECT
    family: int = 0                      # tests in all the families together
    shifts: list[Shift] = field(default_factory=list)
    rate_notes: list[str] = field(default_factory=list)   # equal loads offered at different rates
    centred: bool = True

    @property
    def regressions(self) -> list[Change]:
        return [c for c in self.changes if c.verdict in (REGRESSION, MIXED)]


def _row(cons: Consolidated, server: str, key: LoadKey) -> Row:
    return next(r for r in cons.rows[key] if r.server == server)


def _versions(old: Consolidated, new: Consolidated, server: str) -> list[str]:
    a, b = stack_of(old.servers[server].manifest), stack_of(new.servers[server].manifest)
    return [f"{k}: {a[k]} → {b[k]}" for k in MANIFEST_FINGERPRINT if a[k] != b[k]]


def compare_results(old_dirs: list[ResultsDir], new_dirs: list[ResultsDir], allow_mixed: bool = False,
                    min_effect: float = stats.MIN_EFFECT, centre: bool = True) -> Comparison:
    differences = fingerprint_differences(old_dirs + new_dirs)
    if differences and not allow_mixed:
        raise MixedResultsError(differences)
    old, new = consolidate(old_dirs, allow_mixed), consolidate(new_dirs, allow_mixed)
    changes, shifts, notes, family = [], [], [], 0
    keys = sorted({k for (_, k) in new.groups if any(k == ko for (_, ko) in old.groups)},
                  key=lambda k: (k.mode, k.kind_name, k.load))
    for key in keys:
        g_old = {s: g for (s, k), g in old.groups.items() if k == key}
        g_new = {s: g for (s, k), g in new.groups.items() if k == key}
        tested = [test_figure(g_old, g_new, figure, centre=centre, min_effect=min_effect)
                  for figure in figures_for(key)]
        for figure, result in zip(figures_for(key), tested, strict=True):
            family += result.family
            if result.shared_shift is not None:
                shifts.append(Shift(key, figure, result.shared_shift))
        if key.equal_load:
            rate_old, rate_new = old.equal_rate(key), new.equal_rate(key)
            if rate_old and rate_new and abs(rate_new / rate_old - 1) > 0.005:
                notes.append(f"{key.label}: the equal load offered {rate_old:,.1f} calls/s in OLD and {rate_new:,.1f} "
                             f"in NEW (×{rate_new / rate_old:.3f}): throughput is the rate offered and is not tested; "
                             "CPU per call and latency depend on the rate, so part of any change is the rate's")
        for server in sorted(g_new, key=lambda s: s):
            if server not in g_old:
                continue
            changes.append(Change(server, new.servers[server].display_name, key, _row(old, server, key),
                                  _row(new, server, key), tested[0].verdicts[server], tested[1].verdicts[server],
                                  _versions(old, new, server)))
    only_old = []
    for (server, key) in old.groups:
        if (server, key) not in new.groups:
            why = next((f"{f.status} ({f.phase or 'no phase'}): {f.reason or 'no reason given'}"
                        for f in new.failures if f.server == server), "not measured in NEW")
            only_old.append((server, key, why))
    only_new = [(s, k) for (s, k) in new.groups if (s, k) not in old.groups]
    return Comparison(old, new, changes, only_old, only_new, differences, min_effect, family, shifts, notes, centre)


def _pct(rel: float | None) -> str:
    return "—" if rel is None or not np.isfinite(rel) else f"{rel * 100:+.1f} %"


def _ms(value: float | None) -> str:
    return "—" if value is None else f"{value:,.2f}"


def _sig(v: stats.Verdict) -> str:
    if not v.tested:
        return "not tested"
    return f"{'yes' if v.significant else 'no'} ({v.ratio_text}, p_Holm {v.p_adjusted:.3g})"


def explanation(cmp: Comparison) -> str:
    centred = (f"each server's log figure centred on the median server of its round (when at least "
               f"{stats.MIN_CENTRE_SERVERS} servers are common to both sides: what they all shared is given apart), "
               if cmp.centred else "uncentred (--absolute), ")
    return (f"sig.: {centred}OLD against NEW by a moderated two-sample t-test on the logs "
            f"(≥ {stats.MIN_ROUNDS} runs a side, else not tested), Holm within each figure at each load "
            f"({cmp.family} tests in all; p_Holm < {stats.ALPHA}), and a change of at least {cmp.min_effect:.0%}; "
            f"ratios NEW/OLD with intervals simultaneous within their figure. At an equal load the figures are CPU "
            f"ms per call and p99 (the throughput is the rate offered); elsewhere throughput and p99. p99 = all tool "
            f"calls (failures and timeouts included), pooled per side; tested on each run's own p99. A harness-limited "
            f"throughput is a lower bound: not tested when both sides are limited; with one side limited only a loss "
            f"below a limited OLD (or a gain above a limited NEW) counts.")


def _style(verdict: str) -> str:
    return {REGRESSION: "bold red", IMPROVEMENT: "bold green", MIXED: "bold yellow"}.get(verdict, "")


def _figure_text(c: Change, side: Row, figure: Figure) -> str:
    value = figure.of(side)
    digits = 3 if figure is CPU else 1 if figure is THROUGHPUT else 2
    return "—" if value is None else f"{value:,.{digits}f}"


def _comparison_table(title: str, changes: list[Change], wide: bool) -> Table:
    """`mcpbench compare`: narrow, one line per server and load (the headline figure's and p99's changes, the
    verdict); wide, the old and new figures and the tests beside them."""
    if wide:
        table = Table(title=title, title_justify="left")
        columns: tuple[tuple[str, JustifyMethod], ...] = (
            ("server", "left"), ("load", "left"), ("figure", "left"), ("old → new", "right"), ("Δ tested", "right"),
            ("sig.", "left"), ("p99 ms (all calls) old → new", "right"), ("Δ tested ", "right"), ("sig. ", "left"),
            ("verdict", "left"))
        for col, justify in columns:
            table.add_column(col, justify=justify)
        for c in changes:
            head, p = c.headline, c.p99
            figure = c.figures[0]
            table.add_row(
                c.display_name, c.key.label, figure.label,
                f"{_figure_text(c, c.old, figure)} → {_figure_text(c, c.new, figure)}", _pct(head.relative), _sig(head),
                f"{_ms(c.old.latency_all_p99_ms)} → {_ms(c.new.latency_all_p99_ms)}", _pct(p.relative), _sig(p),
                Text(c.verdict, style=_style(c.verdict)))
        return table
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    table.add_column("server", no_wrap=True, max_width=16, overflow="ellipsis")
    table.add_column("load", no_wrap=True, max_width=15, overflow="ellipsis")
    table.add_column("Δ figure", justify="right", no_wrap=True, min_width=12)
    table.add_column("p99 Δ", justify="right", no_wrap=True, min_width=9)
    table.add_column("verdict", no_wrap=True, overflow="ellipsis", min_width=20)

    def mark(v: stats.Verdict) -> str:
        return "*" if v.tested and v.significant else ""  # significant after Holm

    for c in changes:
        head, p = c.headline, c.p99
        short = "CPU " if c.figures[0] is CPU else ""
        # the directory name: display names cut to 16 characters are ambiguous ("Java · Spring B…" is three)
        table.add_row(c.server, c.key.label, short + _pct(head.relative) + mark(head), _pct(p.relative) + mark(p),
                      Text(c.verdict, style=_style(c.verdict)))
    table.caption = ("Δ: the change tested (centred on the round's median server where 3 or more are in both) of "
                     "calls/s, or of CPU ms per call (CPU) at an equal load · *: significant after Holm · --wide: the "
                     "figures, ratios and p-values")
    table.caption_justify = "left"
    return table


def shift_lines(cmp: Comparison) -> list[str]:
    """What every common server shared, per load and figure: said apart from the servers' changes."""
    return [f"{s.key.label}, {s.figure.label}: every server common to both moved ×{stats.ratio_number(s.ratio)} "
            "together (the rounds' median servers, NEW/OLD) — the host, or something all of them share; the "
            "changes above are each server's against that" for s in cmp.shifts]


def print_comparison(cmp: Comparison, console: Console | None = None, wide: bool = False) -> None:
    from .console import wide_enough

    console = console or Console()
    old_ids = ", ".join(d.run_id for d in cmp.old.dirs)
    new_ids = ", ".join(d.run_id for d in cmp.new.dirs)
    table = _comparison_table(f"mcpbench compare: OLD {old_ids} → NEW {new_ids}", cmp.changes,
                              wide_enough(console, wide))
    console.print(table)
    for server, key, why in cmp.only_old:
        console.print(f"[yellow]{server} ({key.label}) is in OLD only: {why}[/yellow]")
    for server, key in cmp.only_new:
        console.print(f"{server} ({key.label}) is new in NEW")
    for c in cmp.changes:
        if c.versions:
            console.print(f"{c.server} ({c.key.label}): {'; '.join(c.versions)}", highlight=False)
    for line in cmp.rate_notes + shift_lines(cmp):
        console.print(line, highlight=False)
    if cmp.differences:
        console.print("[yellow]compared although OLD and NEW differ (--allow-mixed):[/yellow]")
        for line in cmp.differences:
            console.print(f"  {line}")
    console.print(explanation(cmp), highlight=False)
    n_reg = len(cmp.regressions)
    console.print(f"[bold red]{n_reg} significant regression(s)[/bold red]" if n_reg
                  else "[green]no significant regression[/green]")


def write_html(cmp: Comparison, path: Path) -> None:
    from .site import _environment  # the site's jinja environment (autoescape, filters, inline CSS/JS)

    env = _environment()
    page = env.get_template("compare.html").render(cmp=cmp, stats=stats, root="", explanation=explanation(cmp),
                                                   shifts=shift_lines(cmp), figures_for=figures_for)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page)

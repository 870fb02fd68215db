"""`mcpbench compare OLD NEW`: per server and load, the change in throughput and p99 with significance.

The regression check after upgrading an SDK: each side is consolidated on its own (its runs pooled), the
two sides must share config and machine (unless allow_mixed), and each change is tested with the rules of
:mod:`mcpbench_report.stats`: Welch's t-test per figure (the sides are independent runs; throughput on the
per-run figures, p99 on each run's all-calls p99 while the figure shown is the pooled all-calls p99), Holm
across every test of the comparison (throughput and p99 of every server and load: one family), and a
change counts only when corrected-significant AND at least `min_effect` (MIN_EFFECT) large. Fewer than
MIN_RUNS_FOR_TEST runs on a side: "not tested". A harness-limited throughput is a lower bound of the
server's: with both sides limited its change is not tested; with one side limited only the direction that
bound still proves (a loss below a limited OLD, a gain above a limited NEW) is tested. Output: a rich table for the terminal and an optional self-contained page.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from . import stats
from .consolidate import (MANIFEST_FINGERPRINT, Consolidated, MixedResultsError, consolidate,
                          fingerprint_differences)
from .load import LoadKey, ResultsDir

REGRESSION, IMPROVEMENT, MIXED, UNCHANGED = "regression", "improvement", "mixed", "no significant change"
NOT_TESTED = "not tested"


@dataclass
class Change:
    server: str
    display_name: str
    key: LoadKey
    old: dict
    new: dict
    throughput: stats.Verdict
    p99: stats.Verdict
    versions: list[str]

    @property
    def verdict(self) -> str:
        t, p = self.throughput, self.p99
        if not t.tested and not p.tested:
            return NOT_TESTED
        worse = (t.significant and (t.diff or 0) < 0) or (p.significant and (p.diff or 0) > 0)
        better = (t.significant and (t.diff or 0) > 0) or (p.significant and (p.diff or 0) < 0)
        if worse and better:
            return MIXED
        return REGRESSION if worse else IMPROVEMENT if better else UNCHANGED


@dataclass
class Comparison:
    old: Consolidated
    new: Consolidated
    changes: list[Change]
    only_old: list[tuple[str, LoadKey, str]] = field(default_factory=list)   # (server, load, why)
    only_new: list[tuple[str, LoadKey]] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)
    min_effect: float = stats.MIN_EFFECT
    family: int = 0                      # tests in the Holm family

    @property
    def regressions(self) -> list[Change]:
        return [c for c in self.changes if c.verdict in (REGRESSION, MIXED)]


def _row(cons: Consolidated, server: str, key: LoadKey) -> dict:
    return next(r for r in cons.rows[key] if r["server"] == server)


def _versions(old: Consolidated, new: Consolidated, server: str) -> list[str]:
    a, b = old.servers[server].manifest, new.servers[server].manifest
    return [f"{k}: {a.get(k)} → {b.get(k)}" for k in MANIFEST_FINGERPRINT if a.get(k) != b.get(k)]


def throughput_change(g_old, g_new) -> stats.Verdict:
    """stats.bounded_throughput_change of two groups (a harness-limited side is a lower bound)."""
    return stats.bounded_throughput_change(g_old.throughputs, g_new.throughputs, g_old.harness_bound,
                                           g_new.harness_bound)


def compare_results(old_dirs: list[ResultsDir], new_dirs: list[ResultsDir], allow_mixed: bool = False,
                    min_effect: float = stats.MIN_EFFECT) -> Comparison:
    differences = fingerprint_differences(old_dirs + new_dirs)
    if differences and not allow_mixed:
        raise MixedResultsError(differences)
    old, new = consolidate(old_dirs, allow_mixed), consolidate(new_dirs, allow_mixed)
    changes = []
    for (server, key), g_new in sorted(new.groups.items(), key=lambda kv: (kv[0][1].mode, kv[0][1].executor,
                                                                             kv[0][1].load, kv[0][0])):
        g_old = old.groups.get((server, key))
        if g_old is None:
            continue
        o, n = _row(old, server, key), _row(new, server, key)
        tput = throughput_change(g_old, g_new)
        p99 = stats.change_test([r.p99_all for r in g_old.runs], [r.p99_all for r in g_new.runs],
                                o["latency_all_p99_ms"], n["latency_all_p99_ms"])
        changes.append(Change(server, new.servers[server].display_name, key, o, n, tput, p99,
                              _versions(old, new, server)))
    # one family: every tested change of the comparison
    tests = [(c, attr) for c in changes for attr in ("throughput", "p99") if getattr(c, attr).tested]
    adjusted = stats.holm([getattr(c, attr).p_value for c, attr in tests])
    for (c, attr), p in zip(tests, adjusted):
        setattr(c, attr, getattr(c, attr).adjusted(p, min_effect=min_effect))
    only_old = []
    for (server, key) in old.groups:
        if (server, key) not in new.groups:
            why = next((f"{f.status} ({f.phase or 'no phase'}): {f.reason or 'no reason given'}"
                        for f in new.failures if f.server == server), "not measured in NEW")
            only_old.append((server, key, why))
    only_new = [(s, k) for (s, k) in new.groups if (s, k) not in old.groups]
    return Comparison(old, new, changes, only_old, only_new, differences, min_effect, len(tests))


def _pct(rel: float | None) -> str:
    return "—" if rel is None or not np.isfinite(rel) else f"{rel * 100:+.1f} %"


def _ms(value: float | None) -> str:
    return "—" if value is None else f"{value:,.2f}"


def _sig(v: stats.Verdict) -> str:
    if not v.tested:
        return "not tested"
    return f"{'yes' if v.significant else 'no'} (p_Holm {v.p_adjusted:.3g})"


def explanation(cmp: Comparison) -> str:
    return (f"sig.: Welch's t-test over runs (≥ {stats.MIN_RUNS_FOR_TEST} runs a side, else not tested), Holm-corrected "
            f"across all {cmp.family} tests of this comparison (p_Holm < {stats.ALPHA}), and a change of at least "
            f"{cmp.min_effect:.0%}. p99 = all tool calls (failures and timeouts included), pooled per side; tested "
            f"on each run's own p99. A harness-limited throughput is a lower bound: not tested when both sides are "
            f"limited; with one side limited only a loss below a limited OLD (or a gain above a limited NEW) counts.")


def _style(verdict: str) -> str:
    return {REGRESSION: "bold red", IMPROVEMENT: "bold green", MIXED: "bold yellow"}.get(verdict, "")


def _comparison_table(title: str, changes: list, wide: bool) -> Table:
    """`mcpbench compare`: narrow, one line per server and load (throughput and p99 changes, the verdict);
    wide, the old and new figures and the tests beside them."""
    if wide:
        table = Table(title=title, title_justify="left")
        for col, justify in (("server", "left"), ("load", "left"), ("tool calls/s old → new", "right"),
                             ("Δ", "right"), ("sig.", "left"), ("p99 ms (all calls) old → new", "right"),
                             ("Δ ", "right"), ("sig. ", "left"), ("verdict", "left")):
            table.add_column(col, justify=justify)
        for c in changes:
            t, p = c.throughput, c.p99
            table.add_row(
                c.display_name + ("\n" + "; ".join(c.versions) if c.versions else ""), c.key.label,
                f"{c.old['tool_calls_per_s']:,.1f} → {c.new['tool_calls_per_s']:,.1f}", _pct(t.relative), _sig(t),
                f"{_ms(c.old['latency_all_p99_ms'])} → {_ms(c.new['latency_all_p99_ms'])}", _pct(p.relative), _sig(p),
                Text(c.verdict, style=_style(c.verdict)))
        return table
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    table.add_column("server", no_wrap=True, max_width=16, overflow="ellipsis")
    table.add_column("load", no_wrap=True, max_width=15, overflow="ellipsis")
    table.add_column("calls/s Δ", justify="right", no_wrap=True, min_width=9)
    table.add_column("p99 Δ", justify="right", no_wrap=True, min_width=9)
    table.add_column("verdict", no_wrap=True, overflow="ellipsis", min_width=20)
    for c in changes:
        t, p = c.throughput, c.p99
        mark = lambda v: "*" if v.tested and v.significant else ""  # noqa: E731 - significant after Holm
        # the directory name: display names cut to 16 characters are ambiguous ("Java · Spring B…" is three)
        table.add_row(c.server, c.key.label, _pct(t.relative) + mark(t), _pct(p.relative) + mark(p),
                      Text(c.verdict, style=_style(c.verdict)))
    table.caption = "*: significant after Holm's correction · --wide: the figures and p-values"
    table.caption_justify = "left"
    return table


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
    page = env.get_template("compare.html").render(cmp=cmp, stats=stats, root="", explanation=explanation(cmp))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page)

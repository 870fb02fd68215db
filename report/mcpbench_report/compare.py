"""`mcpbench compare OLD NEW`: per server and load, the change in throughput and p99 with significance.

The regression check after upgrading an SDK: each side is consolidated on its own (its runs pooled), the
two sides must share config and machine (unless allow_mixed), and each change is tested with the rules of
:mod:`mcpbench_report.stats`. Output: a rich table for the terminal and an optional self-contained page.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table
from rich.text import Text

from . import stats
from .consolidate import (MANIFEST_FINGERPRINT, Consolidated, MixedResultsError, consolidate,
                          fingerprint_differences)
from .load import LoadKey, ResultsDir

REGRESSION, IMPROVEMENT, MIXED, UNCHANGED = "regression", "improvement", "mixed", "no significant change"


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

    @property
    def regressions(self) -> list[Change]:
        return [c for c in self.changes if c.verdict in (REGRESSION, MIXED)]


def _row(cons: Consolidated, server: str, key: LoadKey) -> dict:
    return next(r for r in cons.rows[key] if r["server"] == server)


def _versions(old: Consolidated, new: Consolidated, server: str) -> list[str]:
    a, b = old.servers[server].manifest, new.servers[server].manifest
    return [f"{k}: {a.get(k)} → {b.get(k)}" for k in MANIFEST_FINGERPRINT if a.get(k) != b.get(k)]


def compare_results(old_dirs: list[ResultsDir], new_dirs: list[ResultsDir], allow_mixed: bool = False) -> Comparison:
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
        tput = stats.throughput_difference(g_old.throughputs, g_new.throughputs, g_old.per_second, g_new.per_second)
        p99 = stats.p99_difference(
            [r.p99 for r in g_old.runs if r.p99 is not None], [r.p99 for r in g_new.runs if r.p99 is not None],
            o["latency_p99_ms"], n["latency_p99_ms"],
            [(r.latency, r.latency_t, r.window) for r in g_old.runs],
            [(r.latency, r.latency_t, r.window) for r in g_new.runs])
        changes.append(Change(server, new.servers[server].display_name, key, o, n, tput, p99,
                              _versions(old, new, server)))
    only_old = []
    for (server, key) in old.groups:
        if (server, key) not in new.groups:
            why = next((f"{f.status} ({f.phase or 'no phase'}): {f.reason or 'no reason given'}"
                        for f in new.failures if f.server == server), "not measured in NEW")
            only_old.append((server, key, why))
    only_new = [(s, k) for (s, k) in new.groups if (s, k) not in old.groups]
    return Comparison(old, new, changes, only_old, only_new, differences)


def _pct(rel: float | None) -> str:
    return "—" if rel is None or not np.isfinite(rel) else f"{rel * 100:+.1f} %"


def _style(verdict: str) -> str:
    return {REGRESSION: "bold red", IMPROVEMENT: "bold green", MIXED: "bold yellow"}.get(verdict, "")


def print_comparison(cmp: Comparison, console: Console | None = None) -> None:
    console = console or Console()
    old_ids = ", ".join(d.run_id for d in cmp.old.dirs)
    new_ids = ", ".join(d.run_id for d in cmp.new.dirs)
    table = Table(title=f"mcpbench compare: OLD {old_ids} → NEW {new_ids}", title_justify="left")
    for col, justify in (("server", "left"), ("load", "left"), ("tool calls/s old → new", "right"),
                         ("Δ", "right"), ("sig.", "left"), ("p99 ms old → new", "right"), ("Δ ", "right"),
                         ("sig. ", "left"), ("verdict", "left")):
        table.add_column(col, justify=justify)
    for c in cmp.changes:
        t, p = c.throughput, c.p99
        table.add_row(
            c.display_name + ("\n" + "; ".join(c.versions) if c.versions else ""), c.key.label,
            f"{c.old['tool_calls_per_s']:,.1f} → {c.new['tool_calls_per_s']:,.1f}", _pct(t.relative),
            ("yes" if t.significant else "no") + (" †" if t.few_runs else ""),
            f"{c.old['latency_p99_ms']:,.2f} → {c.new['latency_p99_ms']:,.2f}", _pct(p.relative),
            ("yes" if p.significant else "no") + (" †" if p.few_runs else ""),
            Text(c.verdict, style=_style(c.verdict)))
    console.print(table)
    for server, key, why in cmp.only_old:
        console.print(f"[yellow]{server} ({key.label}) is in OLD only: {why}[/yellow]")
    for server, key in cmp.only_new:
        console.print(f"{server} ({key.label}) is new in NEW")
    if cmp.differences:
        console.print("[yellow]compared although OLD and NEW differ (--allow-mixed):[/yellow]")
        for line in cmp.differences:
            console.print(f"  {line}")
    console.print("sig.: Welch's t-test over runs (p < 0.05) with ≥ 3 runs each; † = fewer runs, block bootstrap "
                  f"over seconds and a change of at least {stats.MIN_EFFECT_FEW_RUNS:.0%} (throughput) / "
                  f"{stats.MIN_EFFECT_P99_FEW_RUNS:.0%} (p99).")
    n_reg = len(cmp.regressions)
    console.print(f"[bold red]{n_reg} significant regression(s)[/bold red]" if n_reg
                  else "[green]no significant regression[/green]")


def write_html(cmp: Comparison, path: Path) -> None:
    from .site import _environment  # the site's jinja environment (autoescape, filters, inline CSS/JS)

    env = _environment()
    page = env.get_template("compare.html").render(cmp=cmp, stats=stats, root="")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page)

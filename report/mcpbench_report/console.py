"""The ranking as the terminal shows it: one line per server at 80 columns (rank, server, the headline figure
with its interval, p99, CPU ms per call, one short note), every column when the terminal is wide or `--wide`
asks (compare.print_comparison does the same for a comparison). Rich's tables do the fitting: each cell is cut
with an ellipsis, never wrapped."""

from __future__ import annotations

import math

from rich import box
from rich.console import Console
from rich.table import Table

from .rows import Row
from .site import FLAG_SHORT

# A terminal at least this wide gets every column without --wide.
WIDE_COLUMNS = 140


def wide_enough(console: Console, wide: bool) -> bool:
    return wide or console.width >= WIDE_COLUMNS


def short_note(row: Row) -> str:
    """One short note per server: the limit it met (a lower bound), why else it is unranked, or its most
    telling flag; +N when it has more flags."""
    flags = row.flag_names
    if not row.throughput.rank and not row.harness_bound:
        return row.throughput.rank_note or "unranked"
    ordered = sorted(flags, key=lambda f: (not f.startswith("bound:"), f))
    if not ordered:
        return ""
    more = f" +{len(ordered) - 1}" if len(ordered) > 1 else ""
    return FLAG_SHORT.get(ordered[0], ordered[0]) + more


def interval_text(value: float | None, low: float | None, high: float | None, digits: int) -> str:
    """'1,234 ×/÷1.05' for a geometric interval (value ÷/× its factor), '1,234 (1,200–1,260)' for another (a
    single run's within-run bootstrap); never a ± that could read below zero."""
    if value is None:
        return "—"
    text = f"{value:,.{digits}f}"
    if low is None or high is None or low <= 0:
        return text
    if abs(math.log(high / value) - math.log(value / low)) < 1e-6:
        return f"{text} ×/÷{high / value:.2f}"
    return f"{text} ({low:,.{digits}f}–{high:,.{digits}f})"


def _rate(row: Row) -> str:
    if row.harness_bound:
        return f"≥ {row.tool_calls_per_s:,.0f}"  # a lower bound: no interval to give
    return interval_text(row.tool_calls_per_s, row.ci_low, row.ci_high, 0)


def _number(value: float | None, digits: int = 1) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


def ranking_table(title: str, rows: list[Row], wide: bool) -> Table:
    """The headline ranking. Narrow: 6 columns that fit 80 characters; wide: every figure and the full flags."""
    if wide:
        table = Table(title=title, title_justify="left")
        for col in ("rank", "server", "runs", "tool calls/s", "95 % interval", "p99 ms (all calls)", "CPU ms/call",
                    "errors", "flags"):
            table.add_column(col, justify="right" if col not in ("server", "flags", "rank") else "left")
        for row in rows:
            ci = f"{row.ci_low:,.1f}–{row.ci_high:,.1f}" if row.ci_low is not None else "—"
            tput = f"{row.tool_calls_per_s:,.1f}"
            table.add_row(row.throughput.rank or f"— ({row.throughput.rank_note})", row.display_name, str(row.runs),
                          ("≥ " + tput) if row.harness_bound else tput, ci, _number(row.latency_all_p99_ms, 2),
                          _number(row.cpu_ms_per_call, 3), f"{(row.error_rate or 0) * 100:.2f} %",
                          ", ".join(row.flags))
        return table
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    # Widths that add up to 80 with the separators: the server and the note are cut (…), never the figures.
    table.add_column("#", justify="right", no_wrap=True, max_width=4, overflow="ellipsis")
    table.add_column("server", no_wrap=True, max_width=18, overflow="ellipsis")
    table.add_column("calls/s ×/÷95 %", justify="right", no_wrap=True, min_width=13)
    table.add_column("p99 ms", justify="right", no_wrap=True, min_width=6)
    table.add_column("CPU ms/call", justify="right", no_wrap=True, min_width=11)
    table.add_column("note", no_wrap=True, overflow="ellipsis", max_width=20)
    for row in rows:
        # the server's directory name: unique and short, where display names cut to 18 characters are not
        # ("Java · Spring B…" is three servers)
        table.add_row(row.throughput.rank or "—", row.server, _rate(row), _number(row.latency_all_p99_ms),
                      _number(row.cpu_ms_per_call, 3), short_note(row))
    table.caption = "×/÷ the 95 % interval's factor · ≥ a lower bound (a limit, not the server) · --wide: all"
    table.caption_justify = "left"
    return table


def _cpu(row: Row) -> str:
    return interval_text(row.cpu_ms_per_call, row.cpu_ms_per_call_ci_low, row.cpu_ms_per_call_ci_high, 3)


def equal_note(row: Row, rate: float | None) -> str:
    """Why a row of an equal load is unranked: the rate it reached when it could not keep up, else its reason;
    a ranked row's most telling flag."""
    flags = row.flag_names
    if row.cpu.rank is None:
        if rate and "dropped-iterations" in flags:
            return f"kept up to {row.tool_calls_per_s:,.0f}/s"
        if row.cpu.rank_note:
            return row.cpu.rank_note
        against = [f for f in flags if not f.startswith("bound:")]
        return FLAG_SHORT.get(against[0], against[0]) if against else "not publishable"
    return FLAG_SHORT.get(flags[0], flags[0]) + (f" +{len(flags) - 1}" if len(flags) > 1 else "") if flags else ""


def equal_table(title: str, rows: list[Row], rate: float | None, wide: bool) -> Table:
    """An equal load's ranking: by server CPU ms per call (rank and interval), all-calls p50/p99 and peak memory
    beside (wide: their own ranks, letters, the rate reached and every flag)."""
    if wide:
        table = Table(title=title, title_justify="left")
        for col in ("rank", "letters", "server", "runs", "CPU ms/call", "95 % interval", "p50 ms", "p50 rank", "p99 ms",
                    "p99 95 % interval", "p99 rank", "peak MiB", "calls/s", "flags"):
            table.add_column(col, justify="left" if col in ("rank", "letters", "server", "flags") else "right")
        for row in rows:
            ci = (f"{row.cpu_ms_per_call_ci_low:.3f}–{row.cpu_ms_per_call_ci_high:.3f}"
                  if row.cpu_ms_per_call_ci_low is not None else "—")
            table.add_row(row.cpu.rank or f"— ({equal_note(row, rate)})", row.cpu.letters or "",
                          row.display_name, str(row.runs), _number(row.cpu_ms_per_call, 3), ci,
                          _number(row.latency_all_p50_ms, 2), row.p50.rank or "—",
                          _number(row.latency_all_p99_ms, 2),
                          f"{row.p99_all_round_ci_low:.2f}–{row.p99_all_round_ci_high:.2f}"
                          if row.p99_all_round_ci_low is not None else "—", row.p99.rank or "—",
                          _number(row.mem_peak_mb), _number(row.tool_calls_per_s), ", ".join(row.flags))
        return table
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    table.add_column("#", justify="right", no_wrap=True, max_width=4, overflow="ellipsis")
    table.add_column("server", no_wrap=True, max_width=16, overflow="ellipsis")
    table.add_column("CPU ms/call ×/÷95 %", justify="right", no_wrap=True, min_width=13)
    table.add_column("p50 ms", justify="right", no_wrap=True, min_width=6)
    table.add_column("p99 ms", justify="right", no_wrap=True, min_width=6)
    table.add_column("peak MiB", justify="right", no_wrap=True, min_width=8)
    table.add_column("note", no_wrap=True, overflow="ellipsis", max_width=15)
    for row in rows:
        table.add_row(row.cpu.rank or "—", row.server, _cpu(row), _number(row.latency_all_p50_ms, 2),
                      _number(row.latency_all_p99_ms, 2), _number(row.mem_peak_mb, 0), equal_note(row, rate))
    table.caption = "ranked on CPU ms/call · ×/÷ the 95 % interval's factor · all calls · --wide: ranks of p50/p99"
    table.caption_justify = "left"
    return table


def equal_title(cons, key) -> str:
    rate = cons.equal_rate(key)
    if rate:
        return f"Equal load — {key.mode}, {rate:,.1f} calls/s offered to every server"
    return f"Equal load — {key.label}"


def print_rankings(console: Console, cons, wide: bool) -> None:
    """The report's console ranking: the equal load first when a limit capped any server's throughput (and one
    sentence why), then the throughput ranking; otherwise the throughput ranking, then the equal load."""
    if not cons.groups:
        return  # nothing measured (verify's probes alone): no ranking to print
    wide = wide_enough(console, wide)
    key, equal = cons.headline, cons.equal_headline
    tables = []
    if not key.equal_load:
        tables.append(ranking_table(f"Ranking — {key.label}", cons.rows[key], wide))
    if equal is not None:
        table = equal_table(equal_title(cons, equal), cons.equal_rows(equal), cons.equal_rate(equal), wide)
        tables.insert(0 if cons.leads_with_equal_load else len(tables), table)
    if cons.equal_lead_reason:
        console.print(f"The equal-load ranking comes first: {cons.equal_lead_reason}", highlight=False)
    for table in tables:
        console.print(table)

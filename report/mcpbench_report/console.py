"""The ranking as the terminal shows it: one line per server at 80 columns (rank, server, the headline figure
with its interval, p99, CPU ms per call, one short note), every column when the terminal is wide or `--wide`
asks (compare.print_comparison does the same for a comparison). Rich's tables do the fitting: each cell is cut
with an ellipsis, never wrapped."""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.table import Table

from .site import FLAG_SHORT

# A terminal at least this wide gets every column without --wide.
WIDE_COLUMNS = 140


def wide_enough(console: Console, wide: bool) -> bool:
    return wide or console.width >= WIDE_COLUMNS


def short_note(row: dict) -> str:
    """One short note per server: the limit it met (a lower bound), why else it is unranked, or its most
    telling flag; +N when it has more flags."""
    flags = row.get("flag_names") or []
    if not row["rank"] and not row["harness_bound"]:
        return row["rank_note"] or "unranked"
    ordered = sorted(flags, key=lambda f: (not f.startswith("bound:"), f))
    if not ordered:
        return ""
    more = f" +{len(ordered) - 1}" if len(ordered) > 1 else ""
    return FLAG_SHORT.get(ordered[0], ordered[0]) + more


def _rate(row: dict) -> str:
    value = f"{row['tool_calls_per_s']:,.0f}"
    if row["harness_bound"]:
        return f"≥ {value}"  # a lower bound: no interval to give
    if row["ci_low"] is None:
        return value
    return f"{value} ±{(row['ci_high'] - row['ci_low']) / 2:,.0f}"


def _number(value: float | None, digits: int = 1) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


def ranking_table(title: str, rows: list[dict], wide: bool) -> Table:
    """The headline ranking. Narrow: 6 columns that fit 80 characters; wide: every figure and the full flags."""
    if wide:
        table = Table(title=title, title_justify="left")
        for col in ("rank", "server", "runs", "tool calls/s", "95 % CI", "p99 ms (all calls)", "CPU ms/call",
                    "errors", "flags"):
            table.add_column(col, justify="right" if col not in ("server", "flags", "rank") else "left")
        for row in rows:
            ci = f"{row['ci_low']:,.1f}–{row['ci_high']:,.1f}" if row["ci_low"] is not None else "—"
            tput = f"{row['tool_calls_per_s']:,.1f}"
            table.add_row(row["rank"] or f"— ({row['rank_note']})", row["display_name"], str(row["runs"]),
                          ("≥ " + tput) if row["harness_bound"] else tput, ci, _number(row["latency_all_p99_ms"], 2),
                          _number(row["cpu_ms_per_call"], 3), f"{(row['error_rate'] or 0) * 100:.2f} %",
                          ", ".join(row["flags"]))
        return table
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    # Widths that add up to 80 with the separators: the server and the note are cut (…), never the figures.
    table.add_column("#", justify="right", no_wrap=True, max_width=4, overflow="ellipsis")
    table.add_column("server", no_wrap=True, max_width=18, overflow="ellipsis")
    table.add_column("calls/s ±95 %", justify="right", no_wrap=True, min_width=13)
    table.add_column("p99 ms", justify="right", no_wrap=True, min_width=6)
    table.add_column("CPU ms/call", justify="right", no_wrap=True, min_width=11)
    table.add_column("note", no_wrap=True, overflow="ellipsis", max_width=20)
    for row in rows:
        table.add_row(row["rank"] or "—", row["display_name"], _rate(row), _number(row["latency_all_p99_ms"]),
                      _number(row["cpu_ms_per_call"], 3), short_note(row))
    table.caption = "± half the 95 % CI · ≥ a lower bound (a limit, not the server) · --wide: all"
    table.caption_justify = "left"
    return table

"""SVG charts of the report (matplotlib, text kept as text, deterministic output).

Each function draws one figure from already computed rows or groups, writes it to `path` and returns
nothing. Every axis carries its unit; every chart has a title so it also reads on its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from mcpbench.loads import Load

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.typing import RcKeyType

    from mcpbench.results.model import SoakResult

    from .changes import Figure
    from .history import ServerHistory
    from .rows import Row


@cache
def _pyplot() -> ModuleType:
    """matplotlib's pyplot on the Agg backend, imported when the first chart is drawn: every `mcpbench` command
    loads the report's pages (their options), and only `mcpbench report` draws (0.6-2 s of imports)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


@cache
def _ticker() -> ModuleType:
    import matplotlib.ticker

    return matplotlib.ticker

RC: dict[RcKeyType, Any] = {
    "svg.fonttype": "none",          # text stays text: smaller files, selectable, scales cleanly
    "svg.hashsalt": "mcpbench",      # stable element ids: same input, same bytes
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans", "Liberation Sans", "Arial", "Helvetica"],
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.titleweight": "bold",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": "#dddddd",
    "grid.linewidth": 0.6,
    "legend.fontsize": 8,
    "legend.frameon": False,
    "figure.dpi": 100,
}
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd"]
PERCENTILE_COLOURS = {"p50": "#9ecae1", "p95": "#4292c6", "p99": "#08306b"}


def colours(names: Sequence[str]) -> dict[str, str]:
    """A fixed colour per server name (by sorted name, so every chart agrees)."""
    return {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(sorted(set(names)))}


def _save(fig, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="svg", metadata={"Date": None, "Creator": "mcpbench report"})
    _pyplot().close(fig)


def _figure(width: float, height: float, margins: dict[str, float] | None = None, **kwargs):
    """A figure; with `margins` (fractions for subplots_adjust) the layout is fixed, which draws about twice
    as fast as the constrained layout used otherwise (that one is needed where label widths vary)."""
    with _pyplot().rc_context(RC):
        if margins is None:
            return _pyplot().subplots(figsize=(width, height), layout="constrained", **kwargs)
        fig, axes = _pyplot().subplots(figsize=(width, height), **kwargs)
        fig.subplots_adjust(**margins)
        return fig, axes


def _label(row: Row, prefix: str = "") -> str:
    """The server's name after its rank in the chart's own ranking (prefix: "" throughput, "cpu_" …)."""
    if prefix:
        return f"{row.placing(prefix).rank or ''}  {row.display_name or row.server}".strip()
    rank = row.throughput.rank or ("≥" if row.harness_bound else "")
    return f"{rank}  {row.display_name or row.server}".strip()


def _log(ax, axis: str = "x") -> None:
    """Log scale with plain tick labels (1, 10, 100; 2 and 5 in between) instead of mathtext powers."""
    getattr(ax, f"set_{axis}scale")("log")
    target = ax.xaxis if axis == "x" else ax.yaxis
    target.set_major_locator(_ticker().LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    target.set_major_formatter(_ticker().FuncFormatter(lambda v, _: f"{v:g}"))
    target.set_minor_formatter(_ticker().NullFormatter())


def _fmt(value: float) -> str:
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def throughput_bars(rows: Sequence[Row], path: Path, title: str,
                    colour_of: Mapping[str, str] | None = None) -> None:
    """Horizontal bars of the geometric mean of tool calls/s with the 95 % interval as error bars, best on top."""
    _interval_bars(rows, path, title, colour_of, "tool_calls_per_s", "ci_low", "ci_high",
                   "successful tool calls per second (geometric mean of runs; error bar: 95 % interval, ×/÷)", "")


def cpu_bars(rows: Sequence[Row], path: Path, title: str, colour_of: Mapping[str, str] | None = None) -> None:
    """Horizontal bars of the geometric mean of server CPU ms per successful call with the 95 % interval, best
    (lowest) on top."""
    _interval_bars([r for r in rows if r.cpu_ms_per_call is not None], path, title, colour_of,
                   "cpu_ms_per_call", "cpu_ms_per_call_ci_low", "cpu_ms_per_call_ci_high",
                   "server CPU milliseconds per successful call "
                   "(geometric mean of rounds; error bar: 95 % interval, ×/÷; lower is better)",
                   "cpu_")


def _interval_bars(rows: Sequence[Row], path: Path, title: str, colour_of: Mapping[str, str] | None,
                   value: str, low: str, high: str, xlabel: str, rank_prefix: str) -> None:
    with _pyplot().rc_context(RC):
        fig, ax = _figure(8, 1.0 + 0.42 * len(rows))
        rows = list(rows)[::-1]
        y = np.arange(len(rows))
        means = np.array([getattr(r, value) or 0 for r in rows])
        lows, highs = [getattr(r, low) for r in rows], [getattr(r, high) for r in rows]
        lo = np.array([v if v is not None else m for v, m in zip(lows, means, strict=True)])
        hi = np.array([v if v is not None else m for v, m in zip(highs, means, strict=True)])
        col = colour_of or colours([r.server for r in rows])
        ax.barh(y, means, color=[col[r.server] for r in rows], height=0.6)
        ax.errorbar(means, y, xerr=[np.clip(means - lo, 0, None), np.clip(hi - means, 0, None)], fmt="none",
                    ecolor="#222222", capsize=3, linewidth=1)
        for yi, m, h in zip(y, means, hi, strict=True):
            ax.text(max(m, h) * 1.01 + means.max() * 0.01, yi, _fmt(m), va="center", fontsize=8)
        ax.set_yticks(y, [_label(r, rank_prefix) for r in rows])
        ax.set_xlim(0, max(hi.max(), means.max()) * 1.15 if len(rows) else 1)
        ax.set_xlabel(xlabel)
        ax.set_title(title)
        ax.grid(axis="y", visible=False)
        _save(fig, path)


def latency_percentiles(rows: Sequence[Row], path: Path, title: str) -> None:
    """p50 / p95 / p99 of the pooled tool-call latency per server, log scale."""
    with _pyplot().rc_context(RC):
        fig, ax = _figure(8, 1.2 + 0.55 * len(rows))
        rows = list(rows)[::-1]
        y = np.arange(len(rows))
        h = 0.26
        for i, (p, pick) in enumerate((("p50", lambda r: r.latency_all_p50_ms), ("p95", lambda r: r.latency_all_p95_ms),
                                       ("p99", lambda r: r.latency_all_p99_ms))):
            vals = [pick(r) or np.nan for r in rows]
            ax.barh(y + (i - 1) * h, vals, height=h, color=PERCENTILE_COLOURS[p], label=p)
        _log(ax, "x")
        ax.set_yticks(y, [_label(r) for r in rows])
        ax.set_xlabel("tool-call latency (ms, log scale; all calls incl. failures; all runs' samples pooled)")
        ax.set_title(title)
        ax.grid(axis="y", visible=False)
        fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=3)
        _save(fig, path)


def per_tool_latency(rows: Sequence[Row], path: Path, title: str) -> None:
    """One panel per tool: p99 (light bar) with p50 (dark bar) per server, log scale."""
    tools = sorted({t for r in rows for t in r.per_tool})
    if not tools:
        tools = ["(none)"]
    with _pyplot().rc_context(RC):
        fig, axes = _figure(3.0 * len(tools) + 1.5, 1.4 + 0.4 * len(rows), ncols=len(tools), sharey=True,
                            squeeze=False)
        rows = list(rows)[::-1]
        y = np.arange(len(rows))
        for ax, tool in zip(axes[0], tools, strict=True):
            p99 = [(r.per_tool.get(tool) or {}).get("p99") or np.nan for r in rows]
            p50 = [(r.per_tool.get(tool) or {}).get("p50") or np.nan for r in rows]
            ax.barh(y, p99, height=0.6, color=PERCENTILE_COLOURS["p95"], label="p99")
            ax.barh(y, p50, height=0.6, color=PERCENTILE_COLOURS["p99"], label="p50")
            _log(ax, "x")
            ax.set_title(tool, fontweight="normal")
            ax.set_xlabel("latency (ms, log)")
            ax.grid(axis="y", visible=False)
        axes[0][0].set_yticks(y, [_label(r) for r in rows])
        fig.legend(*axes[0][-1].get_legend_handles_labels(), loc="outside lower center", ncols=2)
        fig.suptitle(title, fontweight="bold", fontsize=10)
        _save(fig, path)


def efficiency_scatter(rows: Sequence[Row], path: Path, title: str,
                       colour_of: Mapping[str, str] | None = None) -> None:
    """Throughput against memory and against CPU used: up and to the left is more efficient."""
    with _pyplot().rc_context(RC):
        fig, axes = _figure(9, 3.8, margins={"left": 0.075, "right": 0.98, "top": 0.9, "bottom": 0.13,
                                             "wspace": 0.08}, ncols=2, sharey=True)
        col = colour_of or colours([r.server for r in rows])
        for ax, memory, scale, label in (
                (axes[0], True, 1.0, "server memory (MiB, average over the window, log scale)"),
                (axes[1], False, 0.01, "server CPU (cores, average over the window)")):
            used = [(r, r.mem_avg_mb if memory else r.cpu_avg_pct) for r in rows]
            for r, x in used:
                tput = r.tool_calls_per_s
                if x is None or tput is None:
                    continue
                err = None
                if r.ci_low is not None and r.ci_high is not None:
                    err = [[max(tput - r.ci_low, 0)], [max(r.ci_high - tput, 0)]]
                ax.errorbar([x * scale], [tput], yerr=err, fmt="o", color=col[r.server], capsize=3, markersize=6)
                ax.annotate(r.display_name or r.server, (x * scale, tput), textcoords="offset points",
                            xytext=(5, 4), fontsize=8)
            ax.set_xlabel(label)
            xs = [x * scale for _, x in used if x]
            if memory:
                _log(ax, "x")
                if xs:
                    ax.set_xlim(min(xs) / 1.5, max(xs) * 4)   # room for the labels on the right
            else:
                ax.set_xlim(0, max([1.0, *xs]) * 1.35)
        axes[0].set_ylabel("successful tool calls per second")
        axes[0].set_ylim(bottom=0)
        fig.suptitle(title, fontweight="bold", fontsize=10)
        _save(fig, path)


def _percentile_axis(ax, n_max: int) -> None:
    top = max(2, int(np.ceil(np.log10(max(n_max, 10)))))
    ticks = list(range(0, top + 1))
    names = {0: "0 %", 1: "90 %", 2: "99 %", 3: "99.9 %", 4: "99.99 %", 5: "99.999 %", 6: "99.9999 %"}
    ax.xaxis.set_major_locator(_ticker().FixedLocator(ticks))
    ax.xaxis.set_major_formatter(_ticker().FuncFormatter(lambda v, _: names.get(int(round(v)), "")))
    ax.xaxis.set_minor_formatter(_ticker().NullFormatter())
    ax.set_xlim(0, top)


def hdr_points(values: np.ndarray, points: int = 300) -> tuple[np.ndarray, np.ndarray]:
    """Empirical percentile curve for plotting: (x = -log10(1 - p), the order statistic at rank ceil(p (n-1))),
    from the minimum (x = 0) to the maximum (x = log10 n). No interpolation, no averaging."""
    data = np.sort(np.asarray(values, dtype=float))
    n = data.size
    if n == 0:
        return np.array([]), np.array([])
    x = np.linspace(0, np.log10(n), points)
    p = 1 - 10.0 ** (-x)
    idx = np.clip(np.ceil(p * (n - 1) - 1e-9).astype(int), 0, n - 1)
    return x, data[idx]


def latency_distribution(series: Mapping[str, np.ndarray], path: Path, title: str,
                         colour_of: Mapping[str, str] | None = None) -> None:
    """HDR-style percentile plot: latency at each percentile, tail stretched out to the right."""
    with _pyplot().rc_context(RC):
        fig, ax = _figure(8, 4, margins={"left": 0.09, "right": 0.97, "top": 0.92, "bottom": 0.12})
        n_max = 10
        for i, (label, values) in enumerate(series.items()):
            x, y = hdr_points(values)
            if x.size == 0:
                continue
            n_max = max(n_max, len(values))
            colour = (colour_of or {}).get(label, PALETTE[i % len(PALETTE)])
            ax.plot(x, y, label=f"{label} (n = {len(values):,})", color=colour, linewidth=1.5)
        _percentile_axis(ax, n_max)
        _log(ax, "y")
        ax.set_xlabel("percentile (log scale towards the tail)")
        ax.set_ylabel("tool-call latency (ms, log scale)")
        ax.set_title(title)
        ax.legend(loc="upper left")
        _save(fig, path)


def timeseries(runs: Sequence[tuple[str, pd.DataFrame]], window: tuple[float, float], path: Path, title: str) -> None:
    """Per-run time series over the whole test: throughput, latency, CPU, memory; window shaded.

    runs: (label, DataFrame with t_s, calls_per_s, p50_ms, p99_ms, cpu_pct, mem_mb)."""
    with _pyplot().rc_context(RC):
        fig, axes = _figure(8.6, 7.2, margins={"left": 0.085, "right": 0.8, "top": 0.95, "bottom": 0.07,
                                               "hspace": 0.12}, nrows=4, sharex=True)
        panels = (("calls_per_s", "tool calls/s"), ("p99_ms", "latency (ms)\np99 —, p50 - -"),
                  ("cpu_pct", "server CPU (%)"), ("mem_mb", "server memory (MiB)"))
        for i, (label, df) in enumerate(runs):
            colour = PALETTE[i % len(PALETTE)]
            for ax, (col, _) in zip(axes, panels, strict=True):
                ax.plot(df["t_s"], df[col], color=colour, linewidth=1.1, alpha=0.9, label=label)
                if col == "p99_ms":
                    ax.plot(df["t_s"], df["p50_ms"], color=colour, linewidth=0.9, linestyle="--")
        for ax, (_, ylabel) in zip(axes, panels, strict=True):
            ax.axvspan(window[0], window[1], color="#2ca02c", alpha=0.08, linewidth=0)
            ax.set_ylabel(ylabel)
            ax.set_ylim(bottom=0)
        axes[0].legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), title="run", fontsize=7)
        axes[0].set_title(title + "  (green: measured window)")
        axes[-1].set_xlabel("time since the load test started (s)")
        _save(fig, path)


def by_point(series: Mapping[str, Sequence[tuple[str, float | None]]], path: Path, title: str) -> None:
    """One line per server across a dimension's points (categorical x, log y: the points span orders of size)."""
    with _pyplot().rc_context(RC):
        fig, ax = _figure(9, 3.8)
        points = list(dict.fromkeys(p for values in series.values() for p, _ in values))
        for i, (server, values) in enumerate(series.items()):
            xs = [points.index(p) for p, v in values if v]
            ax.plot(xs, [v for _, v in values if v], marker="o", color=PALETTE[i % len(PALETTE)], label=server)
        ax.set_xticks(range(len(points)), points)
        ax.set_ylabel("successful tool calls per second (log)")
        _log(ax, "y")
        ax.legend(loc="best", fontsize=7, ncol=2)
        fig.suptitle(title, fontweight="bold", fontsize=10)
        _save(fig, path)


class CurvePoint(Protocol):
    """A point of a load curve: a consolidated row (rows.Row), or a capacity ladder's step (capacity.Step)."""

    @property
    def load(self) -> float: ...
    @property
    def tool_calls_per_s(self) -> float | None: ...
    @property
    def ci_low(self) -> float | None: ...
    @property
    def ci_high(self) -> float | None: ...
    @property
    def latency_all_p99_ms(self) -> float | None: ...
    @property
    def dropped_iterations(self) -> int: ...
    @property
    def display_name(self) -> str | None: ...


def concurrency(curves: Mapping[str, Sequence[CurvePoint]], path: Path, title: str, kind: type[Load],
                slo_p99_ms: float, colour_of: Mapping[str, str] | None = None) -> None:
    """Throughput and p99 against load (VUs, or offered arrival rate) per server; the SLO as a line."""
    with _pyplot().rc_context(RC):
        fig, axes = _figure(9, 3.8, margins={"left": 0.075, "right": 0.98, "top": 0.88, "bottom": 0.13,
                                             "wspace": 0.22}, ncols=2)
        xlabel = kind.words.axis_label
        loads = sorted({r.load for points in curves.values() for r in points})
        for i, (label, points) in enumerate(curves.items()):
            rows = sorted(points, key=lambda r: r.load)
            colour = (colour_of or {}).get(label, PALETTE[i % len(PALETTE)])
            x = [r.load for r in rows]
            y = [r.tool_calls_per_s for r in rows]
            lo = [max(_below(r.tool_calls_per_s, r.ci_low), 0) for r in rows]
            hi = [max(_below(r.ci_high, r.tool_calls_per_s), 0) for r in rows]
            name = rows[0].display_name or label
            axes[0].errorbar(x, y, yerr=[lo, hi], marker="o", color=colour, capsize=3, label=name)
            axes[1].plot(x, [r.latency_all_p99_ms for r in rows], marker="o", color=colour, label=name)
            dropped = [r for r in rows if r.dropped_iterations]
            if dropped:
                axes[1].plot([r.load for r in dropped], [r.latency_all_p99_ms for r in dropped], "x",
                             color="#d62728", markersize=10, markeredgewidth=2)
        axes[1].axhline(slo_p99_ms, color="#d62728", linestyle=":", linewidth=1.2)
        axes[1].annotate(f"SLO p99 ≤ {slo_p99_ms:g} ms", (0.01, slo_p99_ms), xycoords=("axes fraction", "data"),
                         xytext=(2, 3), textcoords="offset points", color="#d62728", fontsize=8)
        axes[0].set_ylabel("successful tool calls per second")
        axes[0].set_ylim(bottom=0)
        axes[1].set_ylabel("tool-call p99 latency (ms, log scale; all calls)")
        _log(axes[1], "y")
        for ax in axes:
            ax.set_xlabel(xlabel)
            if len(loads) > 1 and loads[0] > 0 and loads[-1] / loads[0] >= 10:
                _log(ax, "x")
                ax.xaxis.set_major_locator(_ticker().FixedLocator(loads))
                ax.xaxis.set_major_formatter(_ticker().FuncFormatter(lambda v, _: f"{v:g}"))
                ax.xaxis.set_minor_formatter(_ticker().NullFormatter())
        axes[0].legend(loc="lower right")
        if kind.drops_iterations:
            axes[1].text(0.99, 0.02, "× = dropped iterations", transform=axes[1].transAxes, ha="right",
                         color="#d62728", fontsize=8)
        fig.suptitle(title, fontweight="bold", fontsize=10)
        _save(fig, path)


def _below(upper: float | None, lower: float | None) -> float:
    """How far an interval's bound lies from its figure (0 without one)."""
    return upper - lower if upper is not None and lower is not None else 0


def soak_series(processes, document: SoakResult, path: Path, title: str) -> None:
    """One soak over time: memory (RSS, the cgroup's), file descriptors, threads, and p99 per bucket, with
    the window, its baseline and end stretches shaded as the verdicts read them."""
    start = document.window.start_s
    with _pyplot().rc_context(RC):
        fig, axes = _figure(9, 5.2, margins={"left": 0.08, "right": 0.98, "top": 0.9, "bottom": 0.09,
                                             "wspace": 0.22, "hspace": 0.45}, ncols=2, nrows=2)
        memory, p99, fds, threads = axes[0][0], axes[0][1], axes[1][0], axes[1][1]
        minutes = processes["t_s"] / 60
        memory.plot(minutes, processes["rss_mb"], color=PALETTE[0], linewidth=1, label="RSS (process tree)")
        if processes["cgroup_mb"].notna().any():
            memory.plot(minutes, processes["cgroup_mb"], color=PALETTE[1], linewidth=1, label="cgroup memory")
        memory.set_ylabel("MiB")
        memory.set_title("memory")
        memory.legend(loc="lower right")
        fds.plot(minutes, processes["fds"], color=PALETTE[2], linewidth=1)
        fds.set_ylabel("open file descriptors")
        fds.set_title("file descriptors")
        threads.plot(minutes, processes["threads"], color=PALETTE[4], linewidth=1)
        threads.set_ylabel("threads")
        threads.set_title("threads")
        buckets = [b for b in document.buckets if b.p99_ms is not None]
        p99.plot([(start + b.t_s + document.bucket_s / 2) / 60 for b in buckets], [b.p99_ms for b in buckets],
                 marker="o", color=PALETTE[3], linewidth=1)
        p99.set_ylabel("all-calls p99 (ms)")
        p99.set_title(f"p99 per {document.bucket_s:g} s")
        p99.set_ylim(bottom=0)
        for ax in (memory, fds, threads, p99):
            ax.axvspan(0, start / 60, color="#eeeeee", zorder=0)  # ramp and warm-up: not judged
            ax.set_xlabel("minutes since the load started")
            if ax is not memory:
                ax.set_ylim(bottom=0)
        fig.suptitle(title, fontsize=10, fontweight="bold")
        _save(fig, path)


def ratio_intervals(rows: Sequence, columns: Sequence[tuple[str, str]], path: Path, title: str) -> None:
    """Each server's overhead ratios with their intervals, one panel per kind of overhead, 1 marked."""
    with _pyplot().rc_context(RC):
        height = 1.2 + 0.28 * len(rows)
        fig, axes = _figure(9, height, margins={"left": 0.2, "right": 0.98, "top": 0.82, "bottom": 0.2,
                                                "wspace": 0.08}, ncols=len(columns), sharey=True)
        names = [r.display_name for r in rows]
        y = np.arange(len(rows))
        for ax, (key, label) in zip(axes, columns, strict=True):
            for i, row in enumerate(rows):
                cell = row.cells[key]
                if cell is None:
                    continue
                low = cell.value - cell.low if cell.low is not None else 0
                high = cell.high - cell.value if cell.high is not None else 0
                ax.errorbar([cell.value], [i], xerr=[[low], [high]], marker="o", color=PALETTE[i % len(PALETTE)],
                            capsize=3)
            ax.axvline(1.0, color="#999999", linestyle=":", linewidth=1)
            ax.set_title(label.replace(": ", ":\n", 1), fontsize=8)
            ax.set_xlabel("ratio")
        axes[0].set_yticks(y, names)
        axes[0].invert_yaxis()
        fig.suptitle(title, fontsize=10, fontweight="bold")
        _save(fig, path)


def history_small_multiples(servers: Sequence[ServerHistory], figure: Figure, path: Path, title: str,
                            colour_of: Mapping[str, str] | None = None) -> None:
    """One small panel per server: its figure at each results directory (geometric mean of that directory's rounds,
    its 95 % ×/÷ interval as error bar), a step that is a significant change marked at its later point by an arrow in
    the value's direction, red when worse, green when better. servers: history.ServerHistory."""
    with _pyplot().rc_context(RC):
        n = max(len(servers), 1)
        cols = min(n, 4)
        rows_n = (n + cols - 1) // cols
        fig, axes = _figure(2.6 * cols, 0.6 + 1.9 * rows_n, squeeze=False, nrows=rows_n, ncols=cols)
        col = colour_of or colours([h.server for h in servers])
        for ax in axes.flat[len(servers):]:
            ax.set_visible(False)
        for ax, h in zip(axes.flat, servers, strict=False):
            xs, ys, lo, hi = [], [], [], []
            for i, point in enumerate(h.points):
                row = point.row
                value = figure.of(row) if row is not None else None
                if row is None or value is None:
                    continue
                xs.append(i)
                ys.append(value)
                low, high = figure.interval_of(row)
                lo.append(value - low if low is not None else 0)
                hi.append(high - value if high is not None else 0)
            ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", color=col.get(h.server, PALETTE[0]), capsize=3,
                        linewidth=1.2)
            for step in h.steps:
                if step.figure != figure or step.direction not in ("regression", "improvement"):
                    continue
                i = next(k for k, p in enumerate(h.points) if p.run_id == step.after)
                mark = "^" if (step.verdict.relative or 0) > 0 else "v"   # the value's direction; colour: worse/better
                changed = h.points[i].row
                ax.plot([i], [figure.of(changed) if changed else None], marker=mark, markersize=11, linestyle="none",
                        color="#b42318" if step.direction == "regression" else "#1a7f37")
            ax.set_title(h.display_name, fontsize=8)
            ax.set_xticks(range(len(h.points)), [f"#{i + 1}" for i in range(len(h.points))])
            ax.set_ylim(bottom=0)
            ax.margins(x=0.15)
        fig.supxlabel("results directory, oldest first (#1 …)", fontsize=8)
        fig.supylabel(figure.label, fontsize=8)
        fig.suptitle(title, fontsize=10, fontweight="bold")
        _save(fig, path)

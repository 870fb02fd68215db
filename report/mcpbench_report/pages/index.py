"""index.html: the first screen — the ranking the run leads with, its charts, the other loads, the sweeps."""

from __future__ import annotations

from dataclasses import dataclass

from mcpbench import loads as load_kinds
from mcpbench.loads import Load
from mcpbench.results.model import Recovery, StageFigures

from .. import charts, stats
from ..load import LoadKey
from ..rows import Row
from ..site import Site, slug
from . import Page


class IndexPage(Page):
    file = "index.html"
    template = "index.html"
    nav = (("Ranking", "#ranking"), ("Charts", "#charts"), ("Servers", "#servers"), ("Downloads", "#downloads"))
    order = 20

    def build(self, site: Site) -> None:
        index_charts = headline_charts(site, site.cons.headline)
        sweeps = sweep_sections(site)
        site.render(self.template, self.file, charts=index_charts, sweeps=sweeps, summary=site.summary,
                    schedules=schedule_sections(site))
        site.index_charts = list(dict.fromkeys(index_charts.values())) + [s.chart for s in sweeps]


def headline_charts(site: Site, key: LoadKey) -> dict[str, str]:
    cons = site.cons
    rows = cons.rows[key]
    s = key.slug
    out = {
        "throughput": site.chart(f"{s}-throughput", charts.throughput_bars, rows,
                                 title=f"Throughput — {key.label}", colour_of=site.colour),
        "latency": site.chart(f"{s}-latency", charts.latency_percentiles, rows,
                              title=f"Tool-call latency percentiles — {key.label}"),
        "per_tool": site.chart(f"{s}-per-tool", charts.per_tool_latency, rows,
                               title=f"Latency per tool (p50 dark, p99 light) — {key.label}"),
        "efficiency": site.chart(f"{s}-efficiency", charts.efficiency_scatter, rows,
                                 title=f"Throughput against resources used — {key.label}", colour_of=site.colour),
    }
    series = {}
    colour = {}
    for row in rows:
        group = cons.groups[(row.server, key)]
        series[row.display_name or row.server] = group.pooled_latency
        colour[row.display_name or row.server] = site.colour[row.server]
    equal = cons.equal_headline
    if cons.leads_with_equal_load and equal is not None:  # (it leads only when there is one)
        out["lead"] = site.chart(f"{equal.slug}-cpu", charts.cpu_bars, cons.equal_rows(equal),
                                 title=f"Server CPU per call at the equal load ({equal.mode})", colour_of=site.colour)
    else:
        out["lead"] = out["throughput"]
    out["distribution"] = site.chart(f"{s}-distribution", charts.latency_distribution, series,
                                     title=f"Latency distribution, all runs pooled — {key.label}", colour_of=colour)
    return out


@dataclass(frozen=True)
class Schedule:
    """One measurement of a load over several stages (a staged load, a spike): its figures stage by stage, and a
    spike's recovery time."""

    server: str
    display_name: str
    measurement: str
    kind: str                            # the kind of load, as its title words it
    status: str
    stages: list[StageFigures]
    recovery: Recovery | None


def schedule_sections(site: Site) -> list[Schedule]:
    """Every measurement of a load over several stages (summary `stages`, `recovery`), in the order the run
    measured them."""
    sections = []
    for results in site.cons.dirs:
        for m in results.measurements:
            if not m.summary.stages:
                continue
            kind = load_kinds.kind(m.summary.kind)
            sections.append(Schedule(m.server, site.cons.servers[m.server].display_name
                                     if m.server in site.cons.servers else m.server, m.mid, kind.words.title,
                                     m.status, m.summary.stages, m.summary.recovery))
    return sections


@dataclass(frozen=True)
class SloRow:
    """One server's curve of a sweep in the SLO table: each level tested, and the highest meeting the SLO."""

    server: str
    display_name: str
    best: stats.Level | None
    levels: list[stats.Level]


@dataclass(frozen=True)
class Sweep:
    """One mode and kind of load measured at several levels: its chart and each server's SLO peak."""

    mode: str
    kind: type[Load]
    chart: str
    slo_rows: list[SloRow]
    unit: str                            # the unit of a level (VUs, calls/s)


def sweep_sections(site: Site) -> list[Sweep]:
    """Per mode and kind of load measured at several levels: the curves and each server's SLO peak."""
    cons = site.cons
    sections = []
    for mode, kind_name in cons.sweeps():
        curves: dict[str, list[Row]] = {}
        for key in cons.keys:
            if (key.mode, key.kind_name) != (mode, kind_name):
                continue
            for row in cons.rows[key]:
                curves.setdefault(row.server, []).append(row)
        curves = {s: rows for s, rows in curves.items() if len(rows) > 1}
        if not curves:
            continue
        kind = load_kinds.kind(kind_name)
        rel = site.chart(f"sweep-{slug(mode)}-{kind_name}", charts.concurrency, curves,
                         title=f"Throughput and p99 against {kind.words.sweep_what} — {mode}", kind=kind,
                         slo_p99_ms=site.slo, colour_of=site.colour)
        slo_rows = []
        for server, rows in sorted(curves.items()):
            levels = [stats.Level(r.load, r.latency_all_p99_ms, r.error_rate, r.dropped_iterations, r.tool_calls_per_s)
                      for r in rows]
            slo_rows.append(SloRow(server, cons.servers[server].display_name, stats.slo_peak(levels, site.slo),
                                   sorted(levels, key=lambda lv: lv.load)))
        slo_rows.sort(key=lambda r: -((r.best.throughput or 0.0) if r.best else -1))
        sections.append(Sweep(mode, kind, rel, slo_rows, kind.words.level_unit))
    return sections


PAGE = IndexPage()

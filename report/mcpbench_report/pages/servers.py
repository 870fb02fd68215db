"""servers/<name>.html: one page per server — its builds and checks, each load's runs with their raw files,
time series, latency distribution, sweeps and what-if variants."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, replace

from mcpbench import loads as load_kinds
from mcpbench.analysis.stats import latency_stats
from mcpbench.results.model import Host, Limit, Warmup

from .. import charts, decomposition
from ..consolidate import Consolidated, Group, RunData
from ..load import LoadKey, ServerRecord
from ..rows import Row
from ..site import RawFile, Site, slug
from . import Page


class ServerPages(Page):
    file = "servers/"
    template = "server.html"
    order = 90

    def build(self, site: Site) -> None:
        for name in site.cons.servers:
            self.server_page(site, name)

    def server_page(self, site: Site, name: str) -> None:
        cons = site.cons
        view = cons.servers[name]
        loads = []
        for key, row in group_rows(cons, name):
            group: Group = cons.groups[(name, key)]
            ts_rel = site.chart(f"server-{slug(name)}-{key.slug}-timeseries", charts.timeseries,
                                [(run_label(r, group), r.timeseries) for r in group.runs],
                                group.runs[0].window, title=f"{view.display_name} — {key.label}")
            runs = [run_line(r, ratio, site.raw_links(r.measurement.files(), r.run_id, name, r.mid))
                    for r, ratio in zip(group.runs, row.per_run_round_ratio, strict=True)]
            loads.append(LoadSection(key, row, ts_rel, runs, request_lines(group)))
        distribution = None
        if len(view.groups) > 1:
            series = {g.key.label: g.pooled_latency for g in view.groups}
            title = f"{view.display_name} — latency distribution per load (runs pooled)"
        elif view.groups:
            series = {run_label(r, view.groups[0]): r.latency for r in view.groups[0].runs}
            title = f"{view.display_name} — latency distribution per run ({view.groups[0].key.label})"
        if view.groups:
            distribution = site.chart(f"server-{slug(name)}-distribution", charts.latency_distribution, series,
                                      title=title)
        per_tool = None
        if view.groups:
            # each load a bar of its own, named by the load rather than by its rank and server
            rows = [replace(row, display_name=key.label, throughput=replace(row.throughput, rank=""))
                    for key, row in group_rows(cons, name)]
            per_tool = site.chart(f"server-{slug(name)}-per-tool", charts.per_tool_latency, rows,
                                  title=f"{view.display_name} — latency per tool (p50 dark, p99 light)")
        sweeps = []
        for mode, kind_name in cons.sweeps():
            rows = [row for key, row in group_rows(cons, name) if (key.mode, key.kind_name) == (mode, kind_name)]
            if len(rows) > 1:
                sweeps.append(site.chart(f"server-{slug(name)}-sweep-{slug(mode)}-{kind_name}", charts.concurrency,
                                         {name: rows}, title=f"{view.display_name} — {mode}",
                                         kind=load_kinds.kind(kind_name), slo_p99_ms=site.slo,
                                         colour_of=site.colour))
        records = [RecordFiles(record, site.raw_links(record.files(), record.results.run_id, name))
                   for record in view.records]
        site.render(self.template, f"servers/{slug(name)}.html", view=view, loads=loads, records=records,
                    distribution=distribution, per_tool=per_tool, sweeps=sweeps, manifests=site.manifests,
                    what_ifs=decomposition.what_ifs_of(site.decomposition, name, site.manifests),
                    finding=decomposition.beyond, finding_margin=decomposition.FINDING_MARGIN,
                    failures=[f for f in cons.failures if f.server == name])


@dataclass(frozen=True)
class RunLine:
    """One run of a load as the server page lists it: its own figures, flags and verdict, warm-up, host and
    limit, and its raw files."""

    run_id: str
    mid: str
    run: int
    round_order: int | None
    round_ratio: float | None       # its throughput / its round's geometric mean
    tool_calls_per_s: float
    v2_rps: float | None
    p50: float | None               # every tool call of this run
    p95: float | None
    p99: float | None
    p99_ok: float | None            # its successful calls
    error_rate: float | None
    cpu_avg: float | None
    mem_avg: float | None
    cpu_ms_per_call: float | None
    dropped: int | None
    flags: list[str]
    publishable: bool | None
    reasons: list[str]
    warmup: Warmup | None
    host: Host | None
    limit: Limit
    files: list[RawFile]


def run_line(r: RunData, ratio: float | None, files: list[RawFile]) -> RunLine:
    s = r.summary
    lat = latency_stats(r.latency_all)
    server = s.resources.get("server")   # a component the sampler may have missed
    return RunLine(r.run_id, r.mid, r.measurement.run, s.round_order, ratio, r.tool_calls_per_s, r.v2_rps,
                   lat["p50"], lat["p95"], lat["p99"], r.p99, s.errors.rate,
                   server.cpu_avg_pct if server else None, server.mem_avg_mb if server else None,
                   r.cpu_ms_per_call, s.throughput.dropped_iterations, s.flags, r.publishable, r.reasons,
                   s.warmup, s.host, s.limit, files)


@dataclass(frozen=True)
class LoadSection:
    """One load of the server: its row, its time series chart and its runs."""

    key: LoadKey
    row: Row
    timeseries: str
    runs: list[RunLine]
    requests: list[RequestLine]


@dataclass(frozen=True)
class RequestLine:
    """One kind of request of a load's runs (summary latency_ms.steps: a session's initialize and DELETE, each
    method's requests): how many were timed, and the median over the runs of each run's p50 and p99."""

    step: str
    count: int
    p50_ms: float | None
    p99_ms: float | None


def request_lines(group: Group) -> list[RequestLine]:
    """Each request of the load apart, in the order the summaries give them; none when no run timed steps."""
    steps = [r.summary.latency_ms.steps or {} for r in group.runs]
    lines = []
    for step in dict.fromkeys(name for timed in steps for name in timed):
        figures = [timed[step] for timed in steps if step in timed and timed[step].count]
        if figures:
            lines.append(RequestLine(step, sum(f.count for f in figures), _median([f.p50 for f in figures]),
                                     _median([f.p99 for f in figures])))
    return lines


def _median(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None


@dataclass(frozen=True)
class RecordFiles:
    """The server as one results directory knows it, with the files of its directory."""

    record: ServerRecord
    files: list[RawFile]


def run_label(run, group: Group) -> str:
    """'r2', or 'r2 · 20261121-201500' when the group pools runs of several results directories."""
    if len({r.run_id for r in group.runs}) > 1:
        return f"r{run.measurement.run} · {run.run_id.rsplit('-', 1)[0] if run.run_id.count('-') >= 2 else run.run_id}"
    return f"r{run.measurement.run}"


def group_rows(cons: Consolidated, server: str) -> list[tuple[LoadKey, Row]]:
    """(load, row) of one server, the headline load first."""
    out = []
    for key in sorted(cons.keys, key=lambda k: k != cons.headline):
        for row in cons.rows.get(key, []):
            if row.server == server:
                out.append((key, row))
    return out


PAGE = ServerPages()

"""dimensions.html: what MCP clients do besides one small tool call (`mcpbench dimension`, issue 37): per dimension
run, every server at every point — ranked at each point with the headline's rules (consolidate.rank: the
moderated pair tests, Holm over the point's servers, a harness-limited result never ranked) — and how each
server's throughput and CPU per call move from the first point to each other one (stats.speedups, the A/B page's
paired t on the log ratio, simultaneous over the server's points). And, from any session-mode run, the
handshake's share of a session per server (summary latency_ms.handshake_share)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import charts, consolidate, stats
from ..consolidate import Group, LoadKey
from ..site import Site
from . import Page


@dataclass(frozen=True)
class Cell:
    server: str                  # the base server
    twin: str                    # what was measured (NAME-POINT, or the server itself)
    row: dict                    # consolidate.rank's row: figures and rank
    p50_ms: float | None         # every tool call, failures included, pooled over the rounds
    p99_ms: float | None


@dataclass(frozen=True)
class PointTable:
    point: str
    cells: list[Cell]            # in ranked order


@dataclass(frozen=True)
class Change:
    server: str
    points: list[tuple[str, stats.Speedup, stats.Speedup]]   # (point, throughput ×, CPU per call ×) vs the first


@dataclass(frozen=True)
class DimensionView:
    name: str
    question: str
    run_id: str
    first: str
    tables: list[PointTable]
    changes: list[Change]
    chart: str | None


@dataclass(frozen=True)
class Handshake:
    server: str
    share: float                 # median over the rounds of each round's median share
    rounds: int
    initialize_p50_ms: float | None
    call_p50_ms: float | None


def _percentiles(group: Group) -> tuple[float | None, float | None]:
    latency = group.pooled_latency_all
    if not latency.size:
        return None, None
    return float(np.percentile(latency, 50)), float(np.percentile(latency, 99))


def _points(site: Site, d) -> dict[str, dict[str, Group]]:
    """point -> base server -> its group, for one dimension run: a twin's point from its server record, or, for
    a dimension without points (agent, churn), each load of the run as a point."""
    out: dict[str, dict[str, Group]] = {}
    names = set(d.config.servers)
    for (name, key), group in site.cons.groups.items():
        runs = [r for r in group.runs if r.run_id == d.run_id]
        if not runs or name not in names:
            continue
        manifest = site.cons.servers[name].manifest
        point = manifest.get("point")
        base = manifest.get("variant_of") if point else name
        label = point or key.label
        out.setdefault(label, {})[base] = Group(name, key, runs)
    order = list(d.config.dimension.points) or sorted(out)
    return {p: out[p] for p in order if p in out}


def _view(site: Site, d) -> DimensionView | None:
    points = _points(site, d)
    if not points:
        return None
    tables = []
    for point, groups in points.items():
        rows = consolidate.rank(list(groups.values()))
        base_of = {g.server: base for base, g in groups.items()}
        cells = [Cell(base_of[row["server"]], row["server"], row, *_percentiles(groups[base_of[row["server"]]]))
                 for row in rows]
        tables.append(PointTable(point, cells))
    first, *rest = list(points)
    changes = []
    for server in points[first]:
        pairs = {p: (points[first][server], points[p][server]) for p in rest if server in points[p]}
        if not pairs:
            continue
        speed = stats.speedups({p: (a.by_round("tool_calls_per_s"), b.by_round("tool_calls_per_s"))
                                for p, (a, b) in pairs.items()})
        cpu = stats.speedups({p: (a.by_round("cpu_ms_per_call"), b.by_round("cpu_ms_per_call"))
                              for p, (a, b) in pairs.items()})
        changes.append(Change(server, [(p, speed[p], cpu[p]) for p in pairs]))
    chart = None
    if len(points) > 1:
        series = {server: [(p, stats.geo_interval(points[p][server].throughputs).mean) for p in points
                           if server in points[p]] for server in points[first]}
        chart = site.chart(f"dimension-{d.config.dimension.name}-{d.run_id}", charts.by_point, series,
                           title=f"{d.config.dimension.name}: successful tool calls per second at each point")
    return DimensionView(d.config.dimension.name, d.config.dimension.question, d.run_id, first, tables, changes, chart)


def handshakes(site: Site) -> tuple[LoadKey | None, list[Handshake]]:
    """Per server, the handshake's share of a session at the headline load when it is session mode, else at the
    session-mode load most servers were measured at."""
    keys = [k for k in site.cons.keys if k.mode == "session"]
    if not keys:
        return None, []
    key = site.cons.headline if site.cons.headline in keys else max(
        keys, key=lambda k: sum(1 for (_, kk) in site.cons.groups if kk == k))
    out = []
    for (name, k), group in site.cons.groups.items():
        if k != key:
            continue
        shares = [r.summary.latency_ms.handshake_share for r in group.runs]
        shares = [s for s in shares if s is not None]
        if not shares:
            continue
        steps = [r.summary.latency_ms.steps or {} for r in group.runs]
        init = [s["initialize"].p50 for s in steps if "initialize" in s and s["initialize"].p50 is not None]
        call = [s["tools/call"].p50 for s in steps if "tools/call" in s and s["tools/call"].p50 is not None]
        out.append(Handshake(name, float(np.median(shares)), len(shares),
                             float(np.median(init)) if init else None, float(np.median(call)) if call else None))
    return key, sorted(out, key=lambda h: -h.share)


class DimensionsPage(Page):
    file = "dimensions.html"
    template = "dimensions.html"
    nav = (("Dimensions", ""),)
    order = 16

    @staticmethod
    def runs(site: Site) -> list:
        return [d for d in site.cons.dirs if d.config.dimension is not None]

    def applies(self, site: Site) -> bool:
        return bool(self.runs(site)) or bool(handshakes(site)[1])

    def build(self, site: Site) -> None:
        views = [v for v in (_view(site, d) for d in self.runs(site)) if v is not None]
        key, shares = handshakes(site)
        site.render(self.template, self.file, views=views, handshakes=shares, handshake_key=key, alpha=stats.ALPHA)


PAGE = DimensionsPage()

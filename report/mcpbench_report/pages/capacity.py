"""capacity.html: `mcpbench capacity` ladders — the rate each server holds within the SLO, and the instances
a target rate needs."""

from __future__ import annotations

from dataclasses import dataclass

from mcpbench.analysis.slo import parse_slo
from mcpbench.loads import OpenLoad

from .. import capacity, charts
from ..site import Site, slug
from . import Option, Page

TARGET_RATE = Option("target_rate", list[float] | None, list(capacity.DEFAULT_TARGETS),
                     "Capacity page: size a deployment for this many tool calls/s (repeatable; default 1000 and "
                     "10000).", positive=True)


@dataclass(frozen=True)
class SizingRow:
    """One server's line of the sizing table: what each target rate takes of it."""

    row: capacity.CapacityRow
    cells: list[capacity.Sizing]


@dataclass(frozen=True)
class Section:
    """One session mode's ladders: the servers in order of capacity, the chart of their curves, the sizing."""

    mode: str
    rows: list[capacity.CapacityRow]
    chart: str
    sizing: list[SizingRow]


class CapacityPage(Page):
    file = "capacity.html"
    template = "capacity.html"
    nav = (("Capacity", ""),)
    order = 50
    options = (TARGET_RATE,)

    def applies(self, site: Site) -> bool:
        return bool(site.capacity_rows)

    def build(self, site: Site) -> None:
        plans = [d.config.capacity for d in site.cons.dirs if d.config.capacity]
        slo = plans[0].slo if plans else []
        p99_limit = next((c.limit for c in parse_slo(",".join(slo)) if c.metric == "p99"), site.slo) if slo \
            else site.slo
        targets = tuple(site.options.target_rate)
        sections = []
        for mode, rows in site.capacity_rows.items():
            chart = site.chart(f"capacity-{slug(mode)}", charts.concurrency, {r.server: r.curve for r in rows},
                               title=f"Latency and throughput against the offered rate — {mode}", kind=OpenLoad,
                               slo_p99_ms=p99_limit, colour_of=site.colour)
            sections.append(Section(mode, rows, chart, [SizingRow(r, [r.sizing(t) for t in targets]) for r in rows]))
        site.render(self.template, self.file, sections=sections, slo_criteria=slo, plans=plans, targets=targets)


PAGE = CapacityPage()

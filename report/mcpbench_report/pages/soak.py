"""soak.html: `mcpbench soak` verdicts — per server each criterion, the memory slope and the series it was
judged on."""

from __future__ import annotations

from .. import charts, soak
from ..site import Site, slug
from . import Page


class SoakPage(Page):
    file = "soak.html"
    template = "soak.html"
    nav = (("Soak", ""),)
    order = 60

    def applies(self, site: Site) -> bool:
        return bool(site.soaks)

    def build(self, site: Site) -> None:
        for row in site.soaks:
            row.chart = site.chart(f"soak-{slug(row.server)}", charts.soak_series, row.processes, row.document,
                                   title=f"{row.display_name}: soak at {row.document.rate:g} calls/s")
        plans = [d.config.soak for d in site.cons.dirs if d.config.soak]
        site.render(self.template, self.file, rows=site.soaks, plans=plans, criteria=soak.CRITERIA_TEXT)


PAGE = SoakPage()

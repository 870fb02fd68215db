"""decomposition.html: where the time goes — each overhead (SDK, session, transport) as a paired ratio."""

from __future__ import annotations

from .. import charts, decomposition, stats
from ..site import Site
from . import Page


class DecompositionPage(Page):
    file = "decomposition.html"
    template = "decomposition.html"
    nav = (("Where the time goes", ""),)
    order = 80

    def applies(self, site: Site) -> bool:
        return bool(site.decomposition)

    def build(self, site: Site) -> None:
        chart = site.chart("decomposition", charts.ratio_intervals, site.decomposition, decomposition.COLUMNS,
                           title="Overheads per server: ratio and 95 % interval (1 = no overhead)")
        references = [v.display_name for v in site.cons.servers.values()
                      if v.manifest and v.manifest.sdk == decomposition.NO_SDK]
        site.render(self.template, self.file, rows=site.decomposition, columns=decomposition.COLUMNS,
                    references=references, chart=chart, min_rounds=stats.MIN_ROUNDS)


PAGE = DecompositionPage()

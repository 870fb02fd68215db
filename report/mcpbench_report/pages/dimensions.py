"""dimensions.html: what MCP clients do besides one small tool call (`mcpbench dimension`, issue 37): per dimension
run, every server at every point ranked with the headline's rules, each server's change from the first point, and
the handshake's share of a session per server (the figures: ../dimensions.py)."""

from __future__ import annotations

from mcpbench.analysis.abandoned import MIN_GROWTH_MB

from .. import charts, stats
from ..dimensions import handshakes, views
from ..site import Site
from . import Page


class DimensionsPage(Page):
    file = "dimensions.html"
    template = "dimensions.html"
    nav = (("Dimensions", ""),)
    order = 16

    def applies(self, site: Site) -> bool:
        return bool(views(site.cons)) or bool(handshakes(site.cons)[1])

    def build(self, site: Site) -> None:
        shown = []
        for view in views(site.cons):
            chart = (site.chart(f"dimension-{view.name}-{view.run_id}", charts.by_point, view.series,
                                title=f"{view.name}: successful tool calls per second at each point")
                     if view.series else None)
            shown.append((view, chart))
        key, shares = handshakes(site.cons)
        site.render(self.template, self.file, views=shown, handshakes=shares, handshake_key=key, alpha=stats.ALPHA,
                    min_growth_mb=MIN_GROWTH_MB)


PAGE = DimensionsPage()

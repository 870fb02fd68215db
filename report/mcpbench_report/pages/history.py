"""history.html: the same servers over several results directories (`mcpbench report --history`)."""

from __future__ import annotations

from .. import charts
from ..site import Site
from . import Page


class HistoryPage(Page):
    file = "history.html"
    template = "history.html"
    nav = (("History", ""),)
    order = 70

    def applies(self, site: Site) -> bool:
        return site.history is not None

    def build(self, site: Site) -> None:
        history = site.history
        assert history is not None  # applies()
        figure = history.figures[0]
        chart = site.chart("history", charts.history_small_multiples, history.servers, figure,
                           title=f"History — {history.key.label}", colour_of=site.colour)
        site.render(self.template, self.file, history=history, chart=chart, figures=history.figures)


PAGE = HistoryPage()

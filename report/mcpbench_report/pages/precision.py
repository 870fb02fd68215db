"""precision.html: how finely this run can tell servers apart — per ranking, the ratio a pair of typical noise
needs to be separated (its family, rounds and the moderated prior), each server's ×/÷ spread over its rounds,
and the run's A/A self-check (--twin). What a reader needs before trusting, or distrusting, a tie."""

from __future__ import annotations

from dataclasses import dataclass

from .. import stats
from ..consolidate import RANKING_FIGURES, LoadKey
from ..site import Site
from . import Page


@dataclass(frozen=True)
class RankingPrecision:
    key: LoadKey
    figure: str
    power: stats.Power                          # what a pair needs to be separated in this ranking
    spreads: list[tuple[str, stats.Interval]]   # server -> its geometric interval, tightest first


class PrecisionPage(Page):
    file = "precision.html"
    template = "precision.html"
    nav = (("Precision", ""),)
    order = 85

    def applies(self, site: Site) -> bool:
        return bool(self.rankings(site))

    @staticmethod
    def rankings(site: Site) -> list[RankingPrecision]:
        out = []
        for key in site.ordered_keys:
            for prefix, ranking in site.cons.rankings.get(key, {}).items():
                # At an equal load the throughput is the rate offered: nothing to tell apart (compare does not
                # test it either).
                if not ranking.power or (key.equal_load and prefix == ""):
                    continue
                spreads = sorted(((name, iv) for name, iv in ranking.intervals.items() if iv.factor),
                                 key=lambda item: item[1].factor or 0.0)
                out.append(RankingPrecision(key, RANKING_FIGURES.get(prefix, prefix), ranking.power, spreads))
        return out

    def build(self, site: Site) -> None:
        site.render(self.template, self.file, rankings=self.rankings(site), self_checks=site.cons.self_check_lines())


PAGE = PrecisionPage()

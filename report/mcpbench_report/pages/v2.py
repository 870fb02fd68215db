"""v2.html: our figures beside the published v2 study's, as ratios to the same reference server."""

from __future__ import annotations

from .. import v2
from ..consolidate import Consolidated
from ..load import LoadKey
from ..site import Site
from . import Option, Page


class V2Page(Page):
    file = "v2.html"
    template = "v2.html"
    nav = (("v2 comparison", ""),)
    order = 40
    options = (Option("reference", str, "rust", "Server the v2 comparison divides by."),)

    def applies(self, site: Site) -> bool:
        return site.cons.of_lineup  # the study measured the lineup's stacks, not a server of the reader's

    def build(self, site: Site) -> None:
        key = v2_load(site.cons)
        comparison = v2.comparison(site.cons.rows[key], site.manifests, site.options.reference)
        site.render(self.template, self.file, v2_key=key, comparison=comparison, v2=v2,
                    profile_notes=v2.profile_differences(site.cons.dirs))


def v2_load(cons: Consolidated) -> LoadKey:
    """The load to set beside the published figures: closed model, the most servers that the study also
    measured, then the closest to its 50 VUs, then session mode."""
    closed = [k for k in cons.keys if k.kind.v2_comparable] or cons.keys

    def score(key: LoadKey):
        known = sum(1 for r in cons.rows[key] if v2.published_name(r.server, cons.servers[r.server].manifest))
        return (known, -abs(key.load - v2.PUBLISHED_VUS), key.mode == "session")

    return max(closed, key=score)


PAGE = V2Page()

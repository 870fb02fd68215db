"""robustness.html: `mcpbench verify --probes` — each server against each robustness probe (workload/probes.py),
passed, warned or failed, with what came back."""

from __future__ import annotations

from dataclasses import dataclass

from mcpbench.workload.checks import Check
from mcpbench.workload.probes import PREFIX

from ..site import Site
from . import Page


@dataclass(frozen=True)
class ProbedServer:
    server: str
    display_name: str
    run_id: str
    probes: dict[str, Check]   # by probe name (no `probe: ` prefix), in the order they ran

    def count(self, status: str) -> int:
        return sum(1 for check in self.probes.values() if check.status == status)


def probed(site: Site) -> list[ProbedServer]:
    """Each server's newest probes (verify.json `probes`), servers in the site's order."""
    out = []
    for name, view in site.cons.servers.items():
        record = next((r for r in reversed(view.records) if r.verify and r.verify.probes), None)
        if record is not None and record.verify is not None and record.verify.probes:
            out.append(ProbedServer(name, view.display_name, record.results.run_id,
                                    {check.name.removeprefix(PREFIX): check for check in record.verify.probes}))
    return out


class RobustnessPage(Page):
    file = "robustness.html"
    template = "robustness.html"
    nav = (("Robustness", ""),)
    order = 62
    needs_measurements = False

    def applies(self, site: Site) -> bool:
        return bool(probed(site))

    def build(self, site: Site) -> None:
        servers = probed(site)
        names = list(dict.fromkeys(name for server in servers for name in server.probes))
        site.render(self.template, self.file, servers=servers, names=names)
        if not site.cons.groups:  # verify's results alone: this page is the site, and its front page too
            site.render(self.template, "index.html", servers=servers, names=names)


PAGE = RobustnessPage()

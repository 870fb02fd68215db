"""decision.html: "which stack for me" — each question answered from its own family of tests, under the
reader's budgets and prices (report decision.py holds the answers)."""

from __future__ import annotations

import dataclasses
import json
from types import SimpleNamespace

from .. import decision
from ..load import ResultsError
from ..site import Site, json_default
from . import Option, Page
from .capacity import TARGET_RATE


class DecisionPage(Page):
    file = "decision.html"
    template = "decision.html"
    nav = (("Which stack for me", ""),)
    order = 10
    options = (
        Option("budget_mb", float, decision.DEFAULT_BUDGET_MB,
               "Decision page: the memory budget per instance (MiB) a stack must stay within in every round.",
               positive=True),
        Option("budget_p99_ms", float | None, None,
               "Decision page: the latency budget (all-calls p99 at equal load, ms; default: --slo-p99-ms).",
               positive=True),
        Option("price_vcpu_hour", float | None, None,
               "Decision page: your price of a vCPU-hour (default: an example price, labelled so).", positive=True),
        Option("price_gib_hour", float | None, None,
               "Decision page: your price of a GiB-hour of memory (default: an example price, labelled so).",
               positive=True),
        TARGET_RATE,
    )

    def applies(self, site: Site) -> bool:
        return site.cons.of_lineup  # which stack to choose: a question about the lineup's

    def check(self, options: SimpleNamespace) -> None:
        if (options.price_vcpu_hour is None) != (options.price_gib_hour is None):
            raise ResultsError("give both --price-vcpu-hour and --price-gib-hour, or neither (example prices)")

    def build(self, site: Site) -> None:
        site.render(self.template, self.file, decision=site.decision, summary=site.summary,
                    claim_rule=decision.CLAIM_RULE)
        (site.root / "data" / "decision.json").write_text(
            json.dumps(dataclasses.asdict(site.decision), indent=1, default=json_default) + "\n")


PAGE = DecisionPage()

"""methodology.html: every rule from its named constant, and the configuration and environment measured in."""

from __future__ import annotations

from mcpbench.analysis import summary as analysis
from mcpbench.loads.timing import Timing

from ..consolidate import CONFIG_FINGERPRINT, ENVIRONMENT_FINGERPRINT
from ..site import Site, merged_settings, rules
from . import Page


class MethodologyPage(Page):
    file = "methodology.html"
    template = "methodology.html"
    nav = (("Methodology", ""),)
    order = 30

    def build(self, site: Site) -> None:
        site.render(self.template, self.file, config_fp=CONFIG_FINGERPRINT, rules=rules(),
                    limited_by=analysis.LIMITED_BY, env_fp=ENVIRONMENT_FINGERPRINT,
                    request_timeout_s=Timing().request_timeout_s,
                    timeout_slack_s=analysis.TIMEOUT_NOTICED_SLACK_S,
                    config_rows=merged_settings(site.cons.dirs, "config"),
                    env_rows=merged_settings(site.cons.dirs, "environment"))


PAGE = MethodologyPage()

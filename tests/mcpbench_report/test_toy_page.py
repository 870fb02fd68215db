"""A report page added from outside the package (pages.register, its template in a directory of its own) is
built from recorded results, reads its own `mcpbench report` option and appears in every page's nav: nothing
in the report package names it."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from mcpbench_report import pages
from mcpbench_report.build import build_site
from mcpbench_report.consolidate import consolidate
from mcpbench_report.load import load
from mcpbench_report.pages import Option, Page

from report_helpers import ROUNDS


class ServersCountedPage(Page):
    """The servers of the run and how many rounds each was measured in."""

    file = "toy-rounds.html"
    template = "toy_rounds.html"
    nav = (("Rounds counted", ""),)
    order = 999
    options: ClassVar[tuple[Option, ...]] = (Option("toy_title", str, "Rounds per server", "The toy page's title."),)

    def build(self, site) -> None:
        rows = sorted((name, len(server.measurements)) for d in site.cons.dirs for name, server in d.run.servers.items())
        site.render(self.template, self.file, title=site.options.toy_title, rows=rows)


def test_a_page_registered_from_outside_is_built_and_linked(tmp_path: Path) -> None:
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "toy_rounds.html").write_text(
        '{% extends "base.html" %}{% block main %}<h1>{{ title }}</h1>'
        '{% for name, n in rows %}<p class="toy">{{ name }}: {{ n }}</p>{% endfor %}{% endblock %}')
    page = pages.register(ServersCountedPage(), templates)
    try:
        out = tmp_path / "site"
        build_site(consolidate(load([ROUNDS])), out, options={"toy_title": "Measurements per server"})
        html = (out / "toy-rounds.html").read_text()
        assert "<h1>Measurements per server</h1>" in html
        assert html.count('<p class="toy">') >= 2
        assert 'href="toy-rounds.html"' in (out / "index.html").read_text()  # the nav of every page links it
    finally:
        pages.ADDED.remove(page)
        pages.TEMPLATE_DIRS.remove(templates)

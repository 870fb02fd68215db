"""The report's pages, as a registry (docs/architecture.md, "A report page"): a page is one module of this
package holding `PAGE`, an instance of a Page subclass that declares its file, its nav links, its template,
whether the results hold what it shows, and the `mcpbench report` options it reads. site.py builds every page
that applies; the nav (base.html) and the command's options (commands.py) are read from here. A new page is
its module and its template — nothing else names it. A page from outside the package (a plugin, a test) joins
through `register`, with the directory its template is in.
"""

from __future__ import annotations

import importlib
import pkgutil
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from ..load import ResultsError

if TYPE_CHECKING:  # the site imports this package; a page sees the site through its methods only
    from ..site import Site


@dataclass(frozen=True)
class Option:
    """One `mcpbench report` option a page reads (`site.options.<name>`)."""

    name: str                 # the Python name; the flag is --name with dashes
    annotation: Any           # float, str, float | None, list[float] | None
    default: Any
    help: str
    positive: bool = False    # a number (or each of a list) must be > 0

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def check(self, value: Any) -> None:
        if not self.positive or value is None:
            return
        if any(v <= 0 for v in (value if isinstance(value, (list, tuple)) else [value])):
            raise ResultsError(f"{self.flag} must be positive")


class Page(ABC):
    """One page (or one kind of page: a page per server)."""

    file: ClassVar[str]                                # its path in the site, e.g. "capacity.html"
    template: ClassVar[str]                            # under templates/
    nav: ClassVar[tuple[tuple[str, str], ...]] = ()     # (title, "file#anchor" or "") links in the header
    order: ClassVar[int]                               # place in the nav and the build
    options: ClassVar[tuple[Option, ...]] = ()
    # False: the page shows something results without any measurement hold (verify's probes)
    needs_measurements: ClassVar[bool] = True

    def applies(self, site: Site) -> bool:
        """Whether the results hold what the page shows (a capacity page needs capacity ladders)."""
        return True

    def check(self, options: Any) -> None:
        """A bad combination of this page's option values: ResultsError, one sentence (single values are
        checked by their Option). By default, none."""
        return None

    @abstractmethod
    def build(self, site: Site) -> None:
        """Draw its charts and render its template through the site."""

    def links(self) -> list[tuple[str, str]]:
        return [(title, self.file + anchor) for title, anchor in self.nav]


# Pages registered from outside the package, and the directories their templates are in (site.py's loader
# looks there after the package's own templates/).
ADDED: list[Page] = []
TEMPLATE_DIRS: list[Path] = []


def register(page: Page, templates: Path | None = None) -> Page:
    """Add a page defined outside this package; `templates`: the directory holding its template."""
    ADDED.append(page)
    if templates is not None and templates not in TEMPLATE_DIRS:
        TEMPLATE_DIRS.append(templates)
    return page


def registry() -> list[Page]:
    """Every page of this package and every one registered, in nav order."""
    found = []
    for info in pkgutil.iter_modules(__path__):
        page = getattr(importlib.import_module(f"{__name__}.{info.name}"), "PAGE", None)
        if isinstance(page, Page):
            found.append(page)
    return sorted(found + ADDED, key=lambda p: p.order)


def options() -> list[Option]:
    """Every page's options, each once (two pages may read the same one)."""
    out: dict[str, Option] = {}
    for page in registry():
        for option in page.options:
            out.setdefault(option.name, option)
    return list(out.values())

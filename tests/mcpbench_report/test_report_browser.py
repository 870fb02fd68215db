"""Headless Chromium loads the report from disk: ranking table, charts, working JS, no console errors.

    pytest -m browser tests/mcpbench_report            # screenshot in pytest's tmp directory
    MCPBENCH_SCREENSHOT=docs/report-screenshot.png pytest -m browser tests/mcpbench_report

Needs Debian's chromium (`apt-get install -y chromium`); skipped when /usr/bin/chromium is absent.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from report_cdp import CHROMIUM, Chromium

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium "
                                                     "(apt-get install -y chromium)"),
]

ALL_IMAGES_LOADED = """
Promise.all(Array.from(document.images).map(img => img.complete ? null :
    new Promise(ok => { img.onload = img.onerror = ok; })))
  .then(() => Array.from(document.images).map(img => [img.getAttribute('src'), img.naturalWidth]))
"""


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    profile = tmp_path_factory.mktemp("chromium-profile")
    chromium = Chromium(profile)
    try:
        chromium.open_page(1280, 1000)
        yield chromium
    finally:
        chromium.close()


def test_index_in_headless_chromium(browser, site, tmp_path):
    url = (site.out / "index.html").as_uri()
    browser.navigate(url)
    assert browser.evaluate("document.documentElement.getAttribute('data-report-ready')") == "1"
    rows = browser.evaluate("Array.from(document.querySelectorAll('#ranking-session-10vu tbody tr'))"
                            ".map(r => r.querySelector('td.name a').textContent)")
    assert rows == ["Rust · rmcp", "Java · Spring AI (MVC)"]     # go and python: not publishable, shown apart
    images = browser.evaluate(ALL_IMAGES_LOADED)
    assert len(images) >= 5
    assert all(width > 0 for _, width in images), images
    assert any(src.endswith("-throughput.svg") for src, _ in images)

    # sorting: a first click on p99 (all calls) sorts best (lowest) first, a second one worst first; filtering
    # hides rows
    browser.evaluate("document.querySelectorAll('#ranking-session-10vu thead th')[10].querySelector('button').click()")
    first = browser.evaluate("document.querySelector('#ranking-session-10vu tbody tr td.name a').textContent")
    browser.evaluate("document.querySelectorAll('#ranking-session-10vu thead th')[10].querySelector('button').click()")
    first_desc = browser.evaluate("document.querySelector('#ranking-session-10vu tbody tr td.name a').textContent")
    assert first_desc == "Java · Spring AI (MVC)" and first != first_desc
    visible = browser.evaluate("""(() => { const f = document.querySelector('input.filter');
        f.value = 'java'; f.dispatchEvent(new Event('input'));
        const n = Array.from(document.querySelectorAll('#ranking-session-10vu tbody tr')).filter(r => !r.hidden).length;
        f.value = ''; f.dispatchEvent(new Event('input')); return n; })()""")
    assert visible == 1

    # the reader sees the ranking first: restore the default order for the screenshot
    browser.navigate(url)
    browser.evaluate(ALL_IMAGES_LOADED)
    shot = Path(os.environ.get("MCPBENCH_SCREENSHOT") or tmp_path / "report-screenshot.png")
    browser.evaluate("window.scrollTo(0, 0)")
    browser.screenshot(shot, height=1500)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
    assert browser.console_errors() == []


@pytest.mark.parametrize("page", ["servers/rust.html", "servers/nodejs.html", "methodology.html", "v2.html"])
def test_other_pages_load_cleanly(browser, site, page):
    before = len(browser.console_errors())
    browser.navigate((site.out / page).as_uri())
    images = browser.evaluate(ALL_IMAGES_LOADED)
    assert all(width > 0 for _, width in images), images
    assert browser.evaluate("document.querySelector('h1').textContent")
    assert browser.console_errors()[before:] == []


def test_site_opens_from_a_sub_path(browser, site, tmp_path):
    """Moved under another directory (as on a host's sub-path), every relative link still works."""
    import shutil

    moved = tmp_path / "some" / "sub" / "path"
    shutil.copytree(site.out, moved)
    before = len(browser.console_errors())
    browser.navigate((moved / "servers" / "go.html").as_uri())
    images = browser.evaluate(ALL_IMAGES_LOADED)
    assert images and all(width > 0 for _, width in images)
    href = browser.evaluate("document.querySelector('a.brand').href")
    assert href == (moved / "index.html").as_uri()
    assert browser.console_errors()[before:] == []

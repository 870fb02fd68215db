"""Headless Chromium loads the report from disk: ranking table, charts, working JS, no console errors.

Driven by Playwright (a maintained library rather than a hand-written DevTools client) on Debian's
/usr/bin/chromium via executable_path, so no browser is downloaded (`playwright install` is never needed).

    pytest -m browser tests/mcpbench_report            # screenshot in pytest's tmp directory
    MCPBENCH_SCREENSHOT=docs/report-screenshot.png pytest -m browser tests/mcpbench_report

Needs Debian's chromium (`apt-get install -y chromium`); skipped when /usr/bin/chromium is absent.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium "
                                                     "(apt-get install -y chromium)"),
]

from playwright import sync_api  # noqa: E402 - scripts/setup.sh installs it (requirements.lock): a missing one fails

# as the former DevTools client launched it (headless=True adds --headless): fine as root in a container
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars"]

ALL_IMAGES_LOADED = """
Promise.all(Array.from(document.images).map(img => img.complete ? null :
    new Promise(ok => { img.onload = img.onerror = ok; })))
  .then(() => Array.from(document.images).map(img => [img.getAttribute('src'), img.naturalWidth]))
"""
RANKING = "#ranking-session-8vu"
EFFICIENCY = "#efficiency-ranked-session-8vu"   # every server of the load, harness-limited or not


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=FLAGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def errors() -> list[str]:
    """Uncaught exceptions, console.error/assert calls, error-level log entries and failed loads of `page`."""
    return []


@pytest.fixture
def page(browser, errors):
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    page.on("pageerror", lambda exc: errors.append(f"exception: {exc}"))
    page.on("console", lambda msg: errors.append(f"console.{msg.type}: {msg.text} {msg.location}")
            if msg.type in ("error", "assert") else None)
    page.on("requestfailed", lambda req: errors.append(f"request failed: {req.url} ({req.failure})"))
    try:
        yield page
    finally:
        context.close()


def test_index_in_headless_chromium(page, errors, site, consolidated, tmp_path):
    url = (site.out / "index.html").as_uri()
    page.goto(url)
    assert page.evaluate("document.documentElement.getAttribute('data-report-ready')") == "1"
    names = page.locator(f"{RANKING} tbody tr td.name a")
    assert names.all_text_contents() == ["Python · FastMCP"]  # rust, go, nodejs: limited by the harness
    images = page.evaluate(ALL_IMAGES_LOADED)
    assert len(images) >= 5
    assert all(width > 0 for _, width in images), images
    assert any(src.endswith("-throughput.svg") for src, _ in images)

    # sorting: a first (real mouse) click on "Peak MiB" sorts best (lowest) first, a second one worst first;
    # typing in the filter hides rows
    rows_by_mem = sorted(consolidated.rows[consolidated.headline], key=lambda r: r.mem_peak_mb)
    display = {name: server.display_name for name, server in consolidated.servers.items()}
    efficiency_names = page.locator(f"{EFFICIENCY} tbody tr td.name a")
    peak = page.locator(f"{EFFICIENCY} thead th", has_text="Peak MiB").locator("button")
    peak.click()
    assert efficiency_names.first.text_content() == display[rows_by_mem[0].server]
    peak.click()
    assert efficiency_names.first.text_content() == display[rows_by_mem[-1].server]
    rows = page.locator(f"{EFFICIENCY} tbody tr")
    visible = "rows => rows.filter(r => !r.hidden).length"
    filter_box = page.locator("input.filter").first     # one filter for every ranking table of the page
    filter_box.fill("python")
    assert rows.evaluate_all(visible) == 1
    filter_box.fill("")
    assert rows.evaluate_all(visible) == 4

    # the reader sees the ranking first: restore the default order for the screenshot
    page.goto(url)
    page.evaluate(ALL_IMAGES_LOADED)
    shot = Path(os.environ.get("MCPBENCH_SCREENSHOT") or tmp_path / "report-screenshot.png")
    shot.parent.mkdir(parents=True, exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    height = min(1500, page.evaluate("document.documentElement.scrollHeight"))
    page.screenshot(path=shot, full_page=True, clip={"x": 0, "y": 0, "width": 1280, "height": height})
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
    assert errors == []


@pytest.mark.parametrize("path", ["servers/rust.html", "servers/nodejs.html", "methodology.html", "v2.html"])
def test_other_pages_load_cleanly(page, errors, site, path):
    page.goto((site.out / path).as_uri())
    images = page.evaluate(ALL_IMAGES_LOADED)
    assert all(width > 0 for _, width in images), images
    assert page.locator("h1").first.text_content()
    assert errors == []


def test_site_opens_from_a_sub_path(page, errors, site, tmp_path):
    """Moved under another directory (as on a host's sub-path), every relative link still works."""
    moved = tmp_path / "some" / "sub" / "path"
    shutil.copytree(site.out, moved)
    page.goto((moved / "servers" / "go.html").as_uri())
    images = page.evaluate(ALL_IMAGES_LOADED)
    assert images and all(width > 0 for _, width in images)
    assert page.locator("a.brand").first.evaluate("a => a.href") == (moved / "index.html").as_uri()
    assert errors == []


@pytest.mark.parametrize("width", [1280, 390])
def test_the_first_screen_reads_at_desktop_and_phone_widths(browser, site, tmp_path, width):
    """No horizontal overflow of the page at 1280 and 390 px; at 1280 every ranking table fits its column with one
    line per row (secondary columns behind "all columns"); the summary and the headline chart come before the
    ranking. Screenshots: MCPBENCH_SCREENSHOT_DIR (else pytest's tmp directory)."""
    shots = Path(os.environ.get("MCPBENCH_SCREENSHOT_DIR") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    for name in ("index.html", "decision.html"):
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto((site.out / name).as_uri())
        page.evaluate(ALL_IMAGES_LOADED)
        assert page.evaluate("document.documentElement.scrollWidth") <= width, name
        if name == "index.html":
            top = page.evaluate("""[...['#summary', 'figure.headline', '#ranking']].map(
                s => document.querySelector(s).getBoundingClientRect().top)""")
            assert top == sorted(top)
            if width == 1280:
                tables = page.evaluate("""Array.from(document.querySelectorAll('table.filterable'))
                    .filter(t => t.offsetParent).map(t => [t.id, t.scrollWidth, t.parentElement.clientWidth,
                      Math.max(...Array.from(t.tBodies[0].rows).map(r => r.getBoundingClientRect().height))])""")
                assert tables
                for table_id, table_width, room, tallest_row in tables:
                    assert table_width <= room, (table_id, table_width, room)
                    assert tallest_row < 40, (table_id, tallest_row)   # one line of text
        page.screenshot(path=shots / f"{name.removesuffix('.html')}-{width}.png")
        assert errors == []
        context.close()


def test_filters_keep_their_state_in_the_url(page, errors, site):
    page.goto((site.out / "index.html").as_uri() + "?language=Python")
    assert page.locator("select.facet[data-facet=language]").input_value() == "Python"
    rows = page.locator(f"{EFFICIENCY} tbody tr")
    shown = rows.evaluate_all("rows => rows.filter(r => !r.hidden).map(r => r.getAttribute('data-language'))")
    assert shown == ["Python"]
    page.locator("select.facet[data-facet=language]").select_option("")
    assert len(rows.evaluate_all("rows => rows.filter(r => !r.hidden)")) == 4
    page.locator("select.facet[data-facet=mode]").select_option("session")
    page.locator("input.all-columns").check()
    query = page.evaluate("window.location.search")
    assert "mode=session" in query and "columns=all" in query and "language" not in query
    assert page.evaluate("document.body.classList.contains('wide')")
    assert errors == []


def test_the_ci_gate_markdown_reads_as_a_pull_request_shows_it(page, errors, tmp_path):
    """gate.md of a recorded `mcpbench ci` run rendered as GitHub renders Markdown (CommonMark with tables, by
    markdown-it-py), in headless Chromium: the verdict is the first thing read, then a table per level with the
    base, the candidate, the ratio and its interval. Screenshot: MCPBENCH_GATE_SCREENSHOT (else tmp)."""
    from markdown_it import MarkdownIt

    from mcpbench.results.gate import Gate

    recorded = Path(__file__).resolve().parents[1] / "fixtures" / "recorded" / "ci-gate" / "gate.json"
    gate = Gate.model_validate_json(recorded.read_text())
    body = MarkdownIt("commonmark").enable("table").render(gate.markdown())
    page.set_content(f"<!doctype html><meta charset=utf-8><body style='font-family:sans-serif;max-width:900px'>"
                     f"{body}</body>")
    first = page.locator("body > *").first
    assert first.evaluate("e => e.tagName") == "H3" and "Regression confirmed" in first.text_content()
    tables = page.locator("table")
    levels = list(dict.fromkeys(c.level for c in gate.checks))
    assert tables.count() == len(levels)
    headers = tables.first.locator("thead th").all_text_contents()
    assert headers == ["figure", "stage", "base", "candidate", "ratio", "interval", "outcome"]
    assert tables.locator("tbody tr").count() == len(gate.checks)
    # the verdict above every table, on the first screen
    assert first.bounding_box()["y"] < tables.first.bounding_box()["y"] < 1000
    shot = Path(os.environ.get("MCPBENCH_GATE_SCREENSHOT") or tmp_path / "gate.png")
    shot.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=shot, full_page=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
    assert errors == []

"""mcpbench_report.site: the generated site is complete, self-contained, relative-linked and escaped."""

from __future__ import annotations

import csv
import html
import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from mcpbench.results import model
from mcpbench_report import load
from mcpbench_report.consolidate import consolidate
from mcpbench_report.load import ResultsError
from mcpbench_report import capacity as capacity_page
from mcpbench_report.build import build_site
from mcpbench.results.layout import SITE_MARKER as MARKER

from report_helpers import (CAPACITY, HALF_CPU, OVERHEADS, ROUNDS, SCHEMA1, SOAK, SWEEP, copy_with_manifest, steady,
                            write_results)


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[tuple[str, str, str]] = []   # (tag, attribute, value)
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value is not None:
                self.links.append((tag, name, value))
            if name == "id":
                self.ids.add(value)


def parse(path: Path) -> Links:
    parser = Links()
    parser.feed(path.read_text())
    return parser


def test_site_layout(site, consolidated):
    out = site.out
    for rel in ("index.html", "methodology.html", "v2.html", "data/results.csv", "data/results.json", ".nojekyll",
                MARKER):
        assert (out / rel).is_file(), rel
    for name in consolidated.servers:   # measured or not: broken failed to build, exotic unavailable
        assert (out / "servers" / f"{name}.html").is_file()
    assert {"broken", "exotic"} <= set(consolidated.servers)
    assert (out / "raw" / ROUNDS.name / "run.json").is_file()
    assert (out / "raw" / ROUNDS.name / "rust" / "session-8vu-r1" / "samples.csv.gz").is_file()
    # index, decision, methodology, v2, precision + one per server
    assert site.pages == 5 + len(consolidated.servers)
    assert site.charts == len(list((out / "charts").glob("*.svg")))


def test_every_link_is_relative_and_resolves(site):
    pages = sorted(site.out.rglob("*.html"))
    assert pages
    for page in pages:
        parsed = parse(page)
        for tag, attr, value in parsed.links:
            parts = urlsplit(value)
            assert not parts.scheme and not parts.netloc, f"{page.name}: absolute link {value}"
            assert not value.startswith("/"), f"{page.name}: root-relative link {value}"
            if not parts.path:
                continue   # same-page anchor
            target = (page.parent / unquote(parts.path)).resolve()
            assert target.exists(), f"{page.relative_to(site.out)}: broken {tag} {attr}={value}"
            assert site.out.resolve() in target.parents
            if parts.fragment and target.suffix == ".html":
                assert parts.fragment in parse(target).ids, f"{value}: no such anchor"


def test_no_network_fetch_at_view_time(site):
    pages = list(site.out.glob("*.html")) + list(site.out.glob("servers/*.html"))
    charts = list(site.out.glob("charts/*.svg"))
    assert len(pages) == site.pages and len(charts) == site.charts and site.charts > 0   # every file is read
    for path in pages + charts:
        text = path.read_text()
        assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text), path
        assert "@import" not in text and "url(http" not in text
        assert "<script src" not in text and "<link " not in text


def _table(html_text: str, table_id: str) -> str:
    table = html_text[html_text.index(f'id="{table_id}"'):]
    return table[:table.index("</table>")]


def test_ranking_table(site):
    html_text = (site.out / "index.html").read_text()
    ranking = _table(html_text, "ranking-session-8vu")
    assert re.findall(r'servers/(\w+)\.html', ranking) == ["python"]
    assert re.findall(r'class="n rank"[^>]*>([^<]+)<', ranking) == ["1"]
    assert "p99 ms<br>all calls" in ranking and "p99 ms<br>successful" in ranking
    bound = _table(html_text, "bound-session-8vu")
    assert re.findall(r'servers/(\w+)\.html', bound) == ["rust", "go", "nodejs"]
    assert bound.count("≥ ") == 3 and "limited by the load model (its VUs and think time)" in bound
    efficiency = _table(html_text, "efficiency-ranked-session-8vu")
    assert re.findall(r'servers/(\w+)\.html', efficiency) == ["rust", "go", "nodejs", "python"]
    assert '<table class="sortable filterable" id="ranking-session-8vu">' in html_text
    assert "Not measured or failed" in html_text and "no-such-toolchain-mcpbench" in html_text
    assert "fails on purpose" in html_text
    assert 'id="concurrency"' in html_text and "Peak load meeting SLO" in html_text


def test_tiers_rank_stability_and_not_assessed_on_the_index(tmp_path):
    """At half a CPU nodejs and python are ranked with their rank stability; a schema-1 result is ranked
    apart as "not assessed"."""
    half = build_site(consolidate(load.load([HALF_CPU])), tmp_path / "half")
    ranking = _table((half.out / "index.html").read_text(), "ranking-session-8vu")
    assert re.findall(r'servers/(\w+)\.html', ranking) == ["nodejs", "python"]
    assert re.search(r"held in [0-3]/3 rounds", ranking)
    old = build_site(consolidate(load.load([SCHEMA1])), tmp_path / "old")
    assert "Ranking — not assessed for publication" in (old.out / "index.html").read_text()
    assert 'id="efficiency-not-assessed-session-8vu"' in (old.out / "index.html").read_text()


def test_downloads_match_table(site, consolidated):
    rows = list(csv.DictReader((site.out / "data" / "results.csv").open()))
    assert len(rows) == len(consolidated.groups)
    python = next(r for r in rows if r["server"] == "python" and r["config"] == "session · 8 VUs")
    table_python = next(r for r in consolidated.rows[consolidated.headline] if r.server == "python")
    assert float(python["tool_calls_per_s"]) == pytest.approx(table_python.tool_calls_per_s)
    assert float(python["latency_p99_ms"]) == pytest.approx(table_python.latency_p99_ms)
    assert python["rank"] == "1" and python["run_ids"] == ROUNDS.name and python["section"] == "ranked"
    assert python["cv_round_ratio"]
    doc = json.loads((site.out / "data" / "results.json").read_text())
    assert doc["schema"] == model.SCHEMA and len(doc["rows"]) == len(rows)
    bound = next(r for r in doc["rows"] if r["config"] == "session · 8 VUs" and r["server"] == "rust")
    assert bound["rank"] is None and bound["ranked"] is False and bound["harness_bound"] is True
    for key in ("cv", "cv_round_ratio", "order_held", "latency_all_p99_ms", "latency_p99_ms", "cpu_ms_per_call",
                "cpu_rank", "mem_rank", "publishable", "unpublishable_reasons", "missing_text", "section"):
        assert key in doc["rows"][0], key
    assert {r["name"] for r in doc["rules"]} >= {"MIN_ROUNDS", "LIMIT_FRACTION", "HOLM", "TIER_RULE"}
    assert {f["server"] for f in doc["not_measured"]} == {"broken", "exotic"}
    assert doc["results"][0]["config"]["duration_s"] == 4


def test_methodology_shows_every_rule_constant(site):
    from mcpbench.analysis import summary as analysis
    from mcpbench.analysis import warmup

    from mcpbench_report import stats

    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", (site.out / "methodology.html").read_text()))
    for name, value in (("MIN_ROUNDS", stats.MIN_ROUNDS), ("LIMIT_FRACTION", analysis.LIMIT_FRACTION),
                        ("HOST_PROBE_MAX_CHANGE", analysis.HOST_PROBE_MAX_CHANGE),
                        ("HOST_MAX_STEAL_PCT", analysis.HOST_MAX_STEAL_PCT),
                        ("FOREIGN_CPU_LIMIT_PCT", analysis.FOREIGN_CPU_LIMIT_PCT),
                        ("LITTLES_LAW_MAX_GAP", analysis.LITTLES_LAW_MAX_GAP), ("MIN_EFFECT", stats.MIN_EFFECT)):
        assert f"{name} {value}" in text, name
    assert (analysis.LIMIT_FRACTION, analysis.HOST_PROBE_MAX_CHANGE, analysis.HOST_MAX_STEAL_PCT,
            analysis.FOREIGN_CPU_LIMIT_PCT, analysis.LITTLES_LAW_MAX_GAP) == (0.80, 0.15, 2.0, 25.0, 0.10)
    assert (warmup.STEADY_SPAN_S, warmup.STEADY_TOLERANCE) == (10, 0.03)
    assert "last 10 s (quick: 5 s) are within 3% of the span before in throughput and within 10% in the median " \
        "latency" in text
    assert "bounds quick 10–60 s, full 30–180 s" in text
    assert stats.TIER_RULE in text and "Holm" in text


def test_methodology_schema2_profile_and_rate_fractions(tmp_path):
    path = write_results(tmp_path / "r", {"srv": [steady(5, 1.0)]}, schema=2, config={
        "rate_fractions": [0.5, 0.9], "warmup_cap_s": 60,
        "profile": {"cpus": 1.0, "memory_mb": 2048, "server_cpus": [1], "harness_cpus": [0], "cpuset": "1",
                    "note": None}})
    info = build_site(consolidate(load.load([path])), tmp_path / "site")
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", (info.out / "methodology.html").read_text()))
    assert "load generator and services on CPUs 0" in text
    assert "50.0 % of round-1 max, 90.0 % of round-1 max" in text and "between 5 s and 60 s" in text
    v2_page = html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", (info.out / "v2.html").read_text())))
    assert "our profile differs from the study's" in v2_page


def test_server_page_host_warmup_and_runs(tmp_path):
    host = {"probe": {"1": {"before_s": 0.1, "after_s": 0.104, "change": 0.04}}, "steal_pct": {"1": 0.5},
            "busy_pct": {"1": 97.0}, "server_cpus": [1], "harness_cpus": [0], "unstable": False, "reasons": []}
    warm = {"used_s": 42.0, "min_s": 30, "cap_s": 180, "steady": True}
    path = write_results(tmp_path / "r", {"srv": [steady(5, 1.0)]}, schema=2,
                         summaries={"srv": [{"host": host, "warmup": warm, "round_order": 2}]})
    info = build_site(consolidate(load.load([path])), tmp_path / "site")
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", (info.out / "servers" / "srv.html").read_text()))
    assert "cpu1: 0.100 → 0.104 s (4.0 %)" in text and "cpu1: 0.50" in text and "cpu1: 97.0" in text
    assert "42.0 s" in text and "30–180 s" in text and "stable" in text
    assert "CV of the per-round ratio" in text and "1 run — not tested" in text
    assert "Publication: publishable" in text


def test_methodology_comes_from_config(tmp_path):
    path = write_results(tmp_path / "r", {"srv": [steady(5, 1.0, end=150.0)]},
                         config={"ramp_up_s": 7, "warmup_s": 13, "duration_s": 123, "think_time_s": 0.25})
    info = build_site(consolidate(load.load([path])), tmp_path / "site")
    text = re.sub(r"<[^>]+>", "", (info.out / "methodology.html").read_text())
    assert "measured window 123 s" in text
    assert "[20 s, 143 s)" in text
    assert "0.25 s think time" in text
    assert "Test CPU" in text


def test_untrusted_text_is_escaped(tmp_path):
    evil = '<script>alert("x")</script>'
    path = write_results(tmp_path / "r", {"srv": [steady(5, 1.0)]},
                         manifests={"srv": {"display_name": evil, "description": "<img src=x onerror=alert(1)>"}})
    info = build_site(consolidate(load.load([path])), tmp_path / "site")
    index, server = ((info.out / page).read_text() for page in ("index.html", "servers/srv.html"))
    assert evil not in index and "&lt;script&gt;" in index and "<img src=x" not in index
    assert evil not in server and "&lt;script&gt;" in server and "<img src=x" not in server


def test_refuses_to_overwrite_a_foreign_directory(tmp_path, consolidated):
    path = write_results(tmp_path / "r", {"srv": [steady(5, 1.0)]})
    cons = consolidate(load.load([path]))
    out = tmp_path / "site"
    out.mkdir()
    (out / "precious.txt").write_text("keep me")
    with pytest.raises(ResultsError, match="refusing to overwrite"):
        build_site(cons, out)
    assert (out / "precious.txt").read_text() == "keep me"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".site.")], "temporary build left behind"
    (out / "precious.txt").unlink()
    build_site(cons, out)                  # an empty directory is fine
    (out / "stale.html").write_text("old")
    build_site(cons, out)                  # an earlier report is replaced as a whole
    assert not (out / "stale.html").exists() and (out / MARKER).is_file()


def test_page_weight(site):
    """Pages stay light: SVG charts, inline CSS/JS, no framework."""
    assert site.index_bytes < 1_000_000
    assert (site.out / "index.html").stat().st_size < 120_000
    for svg in (site.out / "charts").glob("*.svg"):
        assert svg.stat().st_size < 250_000, svg.name


def test_v2_page(site):
    html_text = (site.out / "v2.html").read_text()
    assert "ratio to the same reference server" in html_text
    # published go / rust RPS = 3616 / 4845 = 0.746
    assert ">0.75<" in html_text
    assert "session · 8 VUs" in html_text
    assert "RPS whole run" in html_text and "pool the samples" in html_text and "our profile differs" in html_text
    assert "limited by the load model (its VUs and think time): RPS is a lower bound" in html_text    # each row's flags are shown


def test_server_pages(site):
    rust = (site.out / "servers" / "rust.html").read_text()
    manifest = json.loads((ROUNDS / "rust" / "server.json").read_text())
    assert "rmcp" in rust and manifest["sdk_version"] in rust
    assert "session-8vu-r1" in rust and "samples.csv.gz" in rust and "build.log" in rust
    assert rust.count("-timeseries.svg") == 7          # 8 VUs; 1, 4, 16 VUs; 50, 90, 150 % of round-1 max
    assert "cargo build --release --locked" in rust     # the manifest's build command (build.json has none)
    broken = (site.out / "servers" / "broken.html").read_text()
    assert "failed" in broken and "fails on purpose" in broken
    exotic = (site.out / "servers" / "exotic.html").read_text()
    assert "unavailable" in exotic and "no-such-toolchain-mcpbench" in exotic


def test_docker_results_show_runtime_image_and_cold_start(tmp_path):
    path = write_results(tmp_path / "r", {"srv": [steady(5, 1.0)], "srv2": [steady(5, 1.0)]},
                         run_id="20260101-000000-docker",
                         config={"runtime": "docker"},
                         environment={"docker": {  # as the docker runtime records it (model.DockerEnvironment)
                             "engine": "20.10.24", "api": "1.41", "os": "Debian GNU/Linux 13 (trixie)",
                             "storage_driver": "overlay2", "cgroup_version": 2, "cgroup_driver": "systemd", "cpus": 4,
                             "memory_gb": 15.6, "compose": "2.40.3", "project": "mcpbench-4242",
                             "base_image": "mcpbench/base:trixie", "base_image_id": "sha256:base",
                             "limits_supported": True, "limit_warnings": []}})
    image = {"runtime": "docker", "image": "mcpbench/srv:latest", "image_size_mb": 98.6,
             "image_own_layers_mb": 8.8, "cold_start_s": 0.33, "build_s": 12.5}
    (path / "srv" / "image.json").write_text(json.dumps(image))
    run = json.loads((path / "run.json").read_text())
    run["servers"]["srv"].update(image, startup_s=0.33, runtime_version="Python 3.13.5")
    (path / "run.json").write_text(json.dumps(run))
    (path / "srv" / "verify.json").chmod(0o600)            # as an interrupted writer may leave a file
    # a --no-build run's image.json has no build_s
    (path / "srv2" / "image.json").write_text(json.dumps({"image": "mcpbench/srv2:latest", "image_size_mb": 50.0}))
    info = build_site(consolidate(load.load([path])), tmp_path / "site")
    text = lambda page: re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", (info.out / page).read_text()))
    assert "runtime: docker (Engine 20.10.24, compose 2.40.3" in text("index.html")
    server = text("servers/srv.html")
    assert "mcpbench/srv:latest" in server and "98.6 MB" in server and "8.8 MB above the base" in server
    assert "0.33 s" in server and "built in 12.5 s" in server and "Python 3.13.5" in server
    assert "50.0 MB" in text("servers/srv2.html")
    assert "docker" in text("methodology.html")
    raw = info.out / "raw" / "20260101-000000-docker" / "srv" / "verify.json"
    assert raw.stat().st_mode & 0o004, "a published raw file must be readable by the web server"


def test_local_results_say_so_and_show_no_image_columns(tmp_path):
    path = write_results(tmp_path / "r", {"srv": [steady(5, 1.0)]})
    info = build_site(consolidate(load.load([path])), tmp_path / "site")
    assert "runtime: local processes in cgroups" in (info.out / "index.html").read_text()
    server = (info.out / "servers" / "srv.html").read_text()
    assert "Image size" not in server and "Runs on" not in server


def test_server_page_shows_the_build_command(tmp_path):
    """build.json records the command the build ran (BuildOutcome.build_record, the orchestrator's writer); the server
    page shows it. The recorded run was made with --no-build: its other servers have no build.json."""
    from mcpbench.catalog.build import BuildOutcome

    copy = tmp_path / SWEEP.name
    shutil.copytree(SWEEP, copy)
    outcome = BuildOutcome("ok", 0.27, None, copy / "rust" / "build.log", "cargo build --release --locked")
    (copy / "rust" / "build.json").write_text(json.dumps(outcome.build_record().model_dump()))
    info = build_site(consolidate(load.load([copy])), tmp_path / "site")
    assert "<code>cargo build --release --locked</code>" in (info.out / "servers" / "rust.html").read_text()
    assert "<code>cargo build" not in (info.out / "servers" / "python.html").read_text()


def test_server_page_shows_the_conformance_suites_verdict_where_verify_ran_it(tmp_path):
    # verify.json files of real `mcpbench verify --conformance` runs (tests/fixtures/conformance/README.md): go
    # 4/4; unguarded (go with its DNS-rebinding protection off) 3/4; srv's verify ran without --conformance
    recorded = Path(__file__).resolve().parents[1] / "fixtures" / "conformance" / "verify"
    path = write_results(tmp_path / "r", {"go": [steady(5, 1.0)], "unguarded": [steady(5, 1.0)],
                                          "srv": [steady(5, 1.0)]})
    for name in ("go", "unguarded"):
        shutil.copy(recorded / f"{name}.json", path / name / "verify.json")
    info = build_site(consolidate(load.load([path])), tmp_path / "site")
    text = lambda page: re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", (info.out / page).read_text()))
    go = text("servers/go.html")
    assert "conformance: 4/4 (@modelcontextprotocol/conformance 0.1.16; 28 scenarios not applicable)" in go
    assert "failed:" not in go
    unguarded = text("servers/unguarded.html")
    assert "conformance: 3/4 — failed: dns-rebinding-protection (@modelcontextprotocol/conformance 0.1.16" in unguarded
    assert "Expected HTTP 4xx for invalid Host/Origin headers, got 200" in unguarded  # the failing check's reason
    assert "conformance:" not in text("servers/srv.html")


def test_the_protocol_matrix_shows_what_each_sdk_accepts(tmp_path):
    # recorded results whose manifests (server.json) record the revisions their SDKs accept
    path = copy_with_manifest(tmp_path / "a", ROUNDS, "go", protocols=["2024-11-05", "2025-06-18", "2026-07-28"])
    (path / "rust" / "server.json").write_text(json.dumps(
        {**json.loads((path / "rust" / "server.json").read_text()), "protocols": ["2024-11-05", "2025-06-18"]}))
    info = build_site(consolidate(load.load([path])), tmp_path / "site")
    page = (info.out / "index.html").read_text()
    table = page[page.index('id="protocols"'):page.index('id="downloads"')]
    rows = {name: re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", row)).split()
            for name, row in re.findall(r'<tr><td><a href="servers/([a-z0-9-]+)\.html">(.*?)</tr>', table, re.S)}
    assert "2024-11-05" in table and "2025-06-18" in table and "2026-07-28" in table
    assert rows["go"][-3:] == ["✓", "✓", "✓"]
    assert rows["rust"][-3:] == ["✓", "✓", "—"]
    assert rows["python"][-2:] == ["not", "recorded"]




def test_the_capacity_page_orders_capacities_and_sizes_a_deployment(tmp_path):
    # a recorded `mcpbench capacity` run (rust and go, one ladder each)
    info = build_site(consolidate(load.load([CAPACITY])), tmp_path / "site", options={"target_rate": [1000.0]})
    index = (info.out / "index.html").read_text()
    assert 'href="capacity.html"' in index
    page = html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", (info.out / "capacity.html").read_text())))
    assert "p99<100ms, errors<1%" in page
    for server in ("rust", "go"):
        capacity = json.loads((CAPACITY / server / "capacity.json").read_text())["rounds"][0]
        assert capacity["stopped_by"] in page
        assert f"≥ {capacity['capacity_calls_per_s']:,.1f}" in page   # both ladders ended on max steps
    # issue 18 item 2: both reached 506.2 calls/s on max steps — lower bounds, never "apart"; and recorded
    # with a schema-2 "ceiling" no open-model load meets (limit-unknown), so neither orders nor sizes
    rows = capacity_page.capacity_rows(consolidate(load.load([CAPACITY])))["session"]
    assert {r.server for r in rows} == {"rust", "go"} and all(r.lower_bound for r in rows)
    assert not any(r.distinct_from_next for r in rows) and "apart from the next" not in page.replace("not apart", "")
    assert all(r.sizing(1000.0).instances is None and "limit-unknown" in r.sizing(1000.0).why for r in rows)
    assert "not sized: " in page
    assert (info.out / "charts" / "capacity-session.svg").exists() or any(
        p.name.startswith("capacity-session") for p in (info.out / "charts").iterdir())


def _text(path: Path) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", path.read_text())))


def test_the_soak_page_shows_every_criterion_its_figures_and_the_series(tmp_path):
    info = build_site(consolidate(load.load([SOAK])), tmp_path / "site")
    assert 'href="soak.html"' in (info.out / "index.html").read_text()
    page = _text(info.out / "soak.html")
    from mcpbench.analysis import soak as criteria

    assert f"at most {criteria.RSS_GROWTH_MAX:.0%} above" in page  # the constants, as the page states them
    for server in ("go", "python"):
        document = json.loads((SOAK / server / "soak.json").read_text())
        for criterion in document["criteria"].values():
            assert criterion["detail"] in page
        assert (info.out / "charts" / f"soak-{server}.svg").exists()
        slope = document["slopes"]["rss"]
        assert f"{slope['mb_per_h']:,.1f} MiB/h" in page


def test_the_decomposition_page_pairs_rounds_and_says_what_was_not_measured(tmp_path):
    info = build_site(consolidate(load.load([OVERHEADS])), tmp_path / "site")
    assert 'href="decomposition.html"' in (info.out / "index.html").read_text()
    page = _text(info.out / "decomposition.html")
    rows = {name: page.split(name, 1)[1][:900] for name in ("Go · official MCP SDK", "Python")}
    assert "×" in rows["Go · official MCP SDK"] and "n=3" in rows["Go · official MCP SDK"]
    assert "too few rounds for an interval" in rows["Go · official MCP SDK"]   # the unsteady round left out
    # the baseline is the SDK reference: its own SDK cell is not measured, its other cells are
    baseline = page.split("Baseline · Go, no MCP SDK", 2)[-1][:900]
    assert baseline.split("×", 1)[0].count("not measured") == 1
    assert (info.out / "charts" / "decomposition.svg").exists()
    # a results set without a baseline, a second mode or stdio has no such page
    plain = build_site(consolidate(load.load([CAPACITY])), tmp_path / "plain")
    assert not (plain.out / "decomposition.html").exists() and not (plain.out / "soak.html").exists()


def test_precision_page_from_the_registry(site, consolidated):
    """The page added after the registry (pages/precision.py + its template, nothing else): in the nav of every
    page, with the ratio each ranking needs and every ranked server's spread."""
    from mcpbench_report import pages
    assert [p.file for p in pages.registry()].count("precision.html") == 1
    assert ("a", "href", "precision.html") in parse(site.out / "index.html").links
    main = (site.out / "precision.html").read_text().split("<main", 1)[1].split("</main>", 1)[0]
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", main))
    assert "How precise this run is" in text and "a pair of typical noise must differ by about ×" in text
    ranked = [r.server for key in consolidated.keys for r in consolidated.rows[key] if r.cpu.rank]
    assert ranked and all(consolidated.servers[name].display_name in text for name in ranked)
    assert "×/÷ " in text and not re.search(r"(?<![\w.])-\d", text)   # no negative figure or bound

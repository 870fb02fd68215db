"""An equal load in the report, on a recorded run through the real analysis: baseline and go at 5 VUs (both at
the load model's limit there: their throughput is a lower bound) and at one rate for both, half the slower one's
round-1 rate, in 3 rounds (`run --equal-load 0.5`). The equal load leads, ranked on CPU ms per call with p50/p99
ranked beside; the console says why in one sentence and fits 80 columns."""

from __future__ import annotations

import io
import json

from rich.console import Console

from mcpbench_report import load
from mcpbench_report.console import print_rankings
from mcpbench_report.consolidate import consolidate
from mcpbench_report.build import build_site

from report_helpers import EQUAL


def test_the_equal_load_is_one_key_ranked_on_cpu_with_latency_beside() -> None:
    cons = consolidate(load.load([EQUAL]))
    key = cons.equal_headline
    assert key is not None and key.basis == "equal" and key.load == 0.5 and key.equal_load
    plan = cons.dirs[0].run.equal_load["session"]
    rows = cons.equal_rows(key)
    assert {r.server for r in rows} == {"baseline", "go"}
    assert all(r.rate == plan.rate for r in rows)            # one rate for every server
    assert cons.equal_rate(key) == plan.rate
    ranked = [r for r in rows if r.cpu.rank]
    for row in ranked:
        assert row.cpu.runs == 3 and row.p50.runs == 3 and row.p99.runs == 3
        assert row.p99.rank is not None and row.p50.family == 1
    # CPU order: the ranking's own order (lower is better)
    cpu = [r.cpu_ms_per_call for r in ranked]
    assert cpu == sorted(cpu)
    # The measurements the host disturbed were measured again; the set-aside ones are named, not pooled.
    set_aside = [w for w in cons.set_aside if "measured again" in w]  # folded into one line of the index
    assert set_aside and all(".disturbed" in w for w in set_aside)
    assert all(len(r.rounds) == 3 for r in cons.rows[cons.headline])
    # Throughput at a fixed VU count is not an equal load: no latency ranking there.
    assert not cons.headline.equal_load and cons.rows[cons.headline][0].p99.rank is None


def test_the_equal_load_leads_when_throughput_met_a_limit() -> None:
    cons = consolidate(load.load([EQUAL]))
    assert cons.throughput_limited(cons.headline) and cons.leads_with_equal_load
    console = Console(file=io.StringIO(), width=80, color_system=None, soft_wrap=False)
    print_rankings(console, cons, wide=False)
    lines = console.file.getvalue().splitlines()
    assert max(len(line) for line in lines) <= 80, "\n".join(lines)
    text = " ".join(" ".join(lines).split())  # the sentence wraps at 80 columns
    assert "The equal-load ranking comes first:" in text and "reached a limit of the harness" in text
    assert text.index("Equal load — session") < text.index("Ranking — session · 5 VUs")
    assert f"{cons.equal_rate(cons.equal_headline):,.1f} calls/s offered to every server" in text


def test_the_index_page_leads_with_it_and_names_the_rate(tmp_path) -> None:
    cons = consolidate(load.load([EQUAL]))
    build_site(cons, tmp_path / "site")
    index = (tmp_path / "site" / "index.html").read_text()
    plan = cons.dirs[0].run.equal_load["session"]
    assert "Why this ranking leads" in index
    assert index.index('id="equal-session-50equal"') < index.index('id="load-session-5vu"')
    assert f"{plan.slowest}, " in index and "Rank (CPU)" in index
    data = json.loads((tmp_path / "site" / "data" / "results.json").read_text())
    assert data["results"][0]["equal_load"]["session"]["rate"] == plan.rate

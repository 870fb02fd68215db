"""End-to-end: `mcpbench verify --probes` against a real server, and the report's robustness page from its results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpbench.workload import probes

from test_smoke_run import SERVER, leftovers, mcpbench, only_run

pytestmark = pytest.mark.e2e

# Every probe the Prober runs, by name: the fuzz corpus, the deleted session, and the six others.
EXPECTED = len(probes.CORPUS) + 1 + 6


def test_verify_probes_a_server_and_the_report_shows_each_probe(tmp_path: Path) -> None:
    results = tmp_path / "results"
    proc = mcpbench("verify", SERVER, "--probes", "--results-dir", str(results), "--json")
    out, _ = proc.communicate(timeout=900)
    assert proc.returncode == 0, out
    document = json.loads(out[out.index("{\n"):])
    probed = document["servers"][SERVER]["probes"]
    assert len(probed) == EXPECTED, [p["name"] for p in probed]
    assert all(p["name"].startswith(probes.PREFIX) and p["status"] in ("pass", "warn", "fail") and p["reason"]
               for p in probed), probed
    by_name = {p["name"].removeprefix(probes.PREFIX): p for p in probed}
    # the reference server answers its first concurrent calls alike, and stays normal under the slow clients
    assert by_name[f"{probes.CONCURRENT_CALLS} identical calls at once, first after start"]["status"] == "pass", by_name
    assert by_name[f"{probes.SILENT_CONNECTIONS} connections opened and left silent"]["status"] == "pass", by_name
    # the dimension tools' twin is started for its own checks, not probed again
    assert "probes" not in document["servers"][f"{SERVER}-tools"], document["servers"][f"{SERVER}-tools"]
    run_dir = only_run(results)
    verify_json = json.loads((run_dir / "servers" / SERVER / "verify.json").read_text())
    assert [p["name"] for p in verify_json["probes"]] == [p["name"] for p in probed]
    assert json.loads((run_dir / "run.json").read_text())["config"]["probes"] is True

    site = tmp_path / "site"
    proc = mcpbench("report", str(run_dir), "--out", str(site))
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, out
    page = (site / "robustness.html").read_text()
    assert "Robustness" in page and f"<th>{SERVER}</th>" in page
    assert page.count("<tr><td>") >= EXPECTED  # a row per probe in the matrix
    assert leftovers(str(run_dir)) == []

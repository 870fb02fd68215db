"""`mcpbench metrics` on a recorded run (tests/fixtures/results): OpenMetrics text that prometheus_client's own
OpenMetrics parser reads back, a gauge per figure with the report's figures."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from prometheus_client.openmetrics.parser import text_string_to_metric_families

from mcpbench_report.consolidate import consolidate
from mcpbench_report.load import load
from mcpbench_report.openmetrics import FIGURES, openmetrics

RUN = Path(__file__).resolve().parents[1] / "fixtures" / "results" / "20261126-125834-local"


def test_the_figures_parse_as_openmetrics_and_are_the_reports_own() -> None:
    cons = consolidate(load([RUN]))
    text = openmetrics(cons)
    assert text.endswith("# EOF\n")
    families = {f.name: f for f in text_string_to_metric_families(text)}
    assert set(families) == {"mcpbench_" + name for name, _, _ in FIGURES}
    assert all(f.type == "gauge" for f in families.values())
    rows = {row.server: row for key in cons.keys for row in cons.rows[key]}
    cpu = {s.labels["server"]: s for s in families["mcpbench_cpu_ms_per_call"].samples}
    assert set(cpu) == set(rows) == {"go", "go-unguarded"}
    for server, sample in cpu.items():
        assert sample.value == rows[server].cpu_ms_per_call
        assert sample.labels["load"] == "session · 8 VUs" and sample.labels["level"] == "8"
        assert sample.labels["publishable"] in ("true", "false", "unknown")


def test_the_command_writes_a_file_and_says_a_bad_directory_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "mcpbench.prom"
    done = subprocess.run([sys.executable, "-m", "mcpbench.cli", "metrics", str(RUN), "-o", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert list(text_string_to_metric_families(out.read_text()))
    bad = subprocess.run([sys.executable, "-m", "mcpbench.cli", "metrics", str(tmp_path / "nowhere")],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and len(bad.stderr.strip().splitlines()) == 1

"""mcpbench_report.charts: every chart is a valid, labelled, deterministic SVG."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from mcpbench_report import charts
from mcpbench_report.load import LoadKey
from mcpbench.loads import ClosedLoad

EIGHT = LoadKey("session", "closed", 8.0)   # the recorded ROUNDS fixture


def svg_text(path) -> str:
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")
    return " ".join(t.strip() for t in root.itertext() if t.strip())


def test_ranking_charts_are_labelled(tmp_path, consolidated):
    rows = consolidated.rows[EIGHT]
    cases = [
        (charts.throughput_bars, "tool calls per second"),
        (charts.latency_percentiles, "latency (ms"),
        (charts.per_tool_latency, "latency (ms"),
        (charts.efficiency_scatter, "memory (MiB"),
    ]
    for draw, label in cases:
        path = tmp_path / f"{draw.__name__}.svg"
        draw(rows, path=path, title="T")
        text = svg_text(path)
        assert label in text, (draw.__name__, text[:300])
        assert "Rust · rmcp" in text
        assert path.stat().st_size < 200_000


def test_charts_are_deterministic(tmp_path, consolidated):
    rows = consolidated.rows[EIGHT]
    a, b = tmp_path / "a.svg", tmp_path / "b.svg"
    charts.throughput_bars(rows, path=a, title="T")
    charts.throughput_bars(rows, path=b, title="T")
    assert a.read_bytes() == b.read_bytes()


def test_timeseries_and_distribution(tmp_path, consolidated):
    group = consolidated.groups[("rust", EIGHT)]
    path = tmp_path / "ts.svg"
    charts.timeseries([(f"r{r.measurement.run}", r.timeseries) for r in group.runs], group.runs[0].window,
                      path=path, title="rust")
    text = svg_text(path)
    for label in ("tool calls/s", "latency (ms)", "server CPU (%)", "server memory (MiB)", "time since"):
        assert label in text
    path = tmp_path / "dist.svg"
    charts.latency_distribution({"rust": group.pooled_latency}, path=path, title="d")
    text = svg_text(path)
    assert "99 %" in text and "percentile" in text and "ms" in text


def test_concurrency_curve_has_slo(tmp_path, consolidated):
    curves = {}
    for key in consolidated.keys:
        if key.kind_name == "closed":
            for row in consolidated.rows[key]:
                curves.setdefault(row.server, []).append(row)
    path = tmp_path / "c.svg"
    charts.concurrency(curves, path=path, title="c", kind=ClosedLoad, slo_p99_ms=100.0)
    text = svg_text(path)
    assert "SLO p99 ≤ 100 ms" in text and "virtual users (VUs)" in text and "p99 latency (ms" in text


def test_hdr_points_are_order_statistics():
    values = np.arange(1, 1001, dtype=float)[::-1]
    x, y = charts.hdr_points(values, points=50)
    assert x[0] == 0 and y[0] == 1.0
    assert y[-1] == 1000.0
    assert np.all(np.diff(y) >= 0) and set(y) <= set(values)
    assert charts.hdr_points(np.array([]))[0].size == 0


def test_colours_are_stable():
    a = charts.colours(["go", "rust", "java"])
    b = charts.colours(["rust", "java", "go"])
    assert a == b and len(set(a.values())) == 3


@pytest.mark.parametrize("rows", [[]])
def test_empty_rows_do_not_crash(tmp_path, rows):
    charts.throughput_bars(rows, path=tmp_path / "e.svg", title="empty")
    assert (tmp_path / "e.svg").is_file()

"""mcpbench_report.v2: our figures and the published ones as ratios to the same reference."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

import pytest

from mcpbench.results import model
from mcpbench_report import v2


@dataclass(frozen=True)
class Ours:
    """The figures of one of our servers that the comparison reads (v2.Measured), written by hand."""

    server: str
    display_name: str
    v2_rps: float
    v2_call_avg_ms: float
    v2_call_p95_ms: float
    mem_avg_mb: float
    cpu_avg_pct: float
    v2_rps_whole_run: float | None = None
    flags: list[str] = field(default_factory=list)
    runs: int = 3
    harness_bound: bool = False
    limited_by_text: str = ""


def row(server, rps, avg, p95, mem, cpu):
    """avg / p95: tools/call request durations (latency_ms.v2_tools_call), no longer every HTTP request."""
    return Ours(server, server, rps, avg, p95, mem, cpu)


def metric(entry, label):
    return next(m for m in entry.metrics if m.label == label)


def test_ratios_by_hand():
    rows = [row("rust", 1000.0, 2.0, 4.0, 10.0, 100.0), row("go", 800.0, 3.0, 8.0, 20.0, 150.0)]
    cmp = v2.comparison(rows, {}, "rust")
    assert cmp.reference == "rust" and cmp.note is None
    rust, go = cmp.rows
    assert metric(rust, "RPS").ours_ratio == 1.0 and metric(rust, "RPS").published_ratio == 1.0
    assert metric(go, "RPS").ours_ratio == pytest.approx(0.8)
    assert metric(go, "RPS").published_ratio == pytest.approx(3616 / 4845)
    assert metric(go, "p95 ms").ours_ratio == pytest.approx(2.0)
    assert metric(go, "p95 ms").published_ratio == pytest.approx(17.62 / 10.99)
    assert "python" in cmp.missing


def test_aliases_and_manifest_name():
    assert v2.published_name("java-spring") == "java"
    manifest = model.Server.model_validate({
        "name": "my-node", "display_name": "My Node", "language": "TypeScript", "runtime": "Node.js 22",
        "sdk": "ts-sdk", "sdk_version": "1.0", "framework": None, "build": [], "run": ["node"],
        "v2_name": "nodejs"})   # a key of the manifest's own, beside the format's fields
    assert v2.published_name("my-node", manifest) == "nodejs"
    assert v2.published_name("unknown") is None
    rows = [row("rust", 1000.0, 2.0, 4.0, 10.0, 100.0), row("java-spring", 700.0, 3.0, 6.0, 300.0, 180.0)]
    cmp = v2.comparison(rows, {}, "rust")
    assert [r.name for r in cmp.rows] == ["rust", "java"]


def test_reference_fallback():
    rows = [row("go", 800.0, 3.0, 8.0, 20.0, 150.0), row("python", 100.0, 30.0, 80.0, 60.0, 100.0)]
    cmp = v2.comparison(rows, {}, "rust")
    assert cmp.reference == "go" and "rust" in cmp.note
    assert metric(cmp.rows[1], "RPS").ours_ratio == pytest.approx(0.125)
    assert v2.comparison([row("x", 1, 1, 1, 1, 1)], {}, "rust").rows == []


def test_profile_differences_are_said():
    class D:  # the three fields of a ResultsDir the sentence reads, typed as run.json is
        def __init__(self, cpus, cores):
            self.run_id = "r"
            self.config = SimpleNamespace(profile=model.Profile.model_construct(cpus=cpus))
            self.environment = SimpleNamespace(cores=cores)

    assert v2.profile_differences([D(2.0, 8)]) == []
    (note,) = v2.profile_differences([D(1.0, 2)])
    assert "1.0 CPU per server (study: 2)" in note and "2-core machine (study: 8-vCPU host)" in note

"""One test split across two generator processes by segments reads as one test: the same figures as a
single instance (the real load driver, and k6 where installed, against the API service's canned MCP
endpoint, real Redis)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis_helpers import context, summarize
from mcpbench.analysis import summary as analysis
from mcpbench.loads.timing import Timing
from mcpbench import loadgen
from mcpbench.loadgen.k6 import segments
from mcpbench.results.layout import MeasurementDir
from mcpbench.results.model import Summary
from mcpbench.runtime.local_infra import Infra
from mcpbench.loads import ClosedLoad, OpenLoad

TIMING = Timing(ramp_up_s=1, warmup_s=2, duration_s=6, ramp_down_s=1, warmup_cap_s=None)


def _summary(infra: Infra, load, instances: int, out: Path, generator: str) -> tuple[Summary, list[int]]:
    """The test's summary, and the VU ids its samples hold."""
    out.mkdir()
    run = loadgen.create(generator, None, instances).run(f"{infra.api_url}/calibrate/mcp", load, TIMING, MeasurementDir(out))
    ctx = context(mode=load.mode, kind=load.kind, vus=load.vus, rate=load.recorded().rate,
                  think_time_s=TIMING.think_time_s, request_timeout_s=TIMING.request_timeout_s,
                  loadgen_exit_code=run.exit_code, loadgen_counts=run.counts, loadgen_run_s=run.run_s)
    return summarize(run.samples, TIMING.window, [], ctx), sorted(int(v) for v in run.samples["vu"].unique())


def test_segments_cover_the_test_once() -> None:
    assert segments(1) == [[]]
    two = segments(2)
    assert [args[1] for args in two] == ["0:1/2", "1/2:1"]
    assert all(args[3] == "0,1/2,1" for args in two)


def test_two_instances_at_an_arrival_rate_offer_what_one_does(infra: Infra, tmp_path: Path,
                                                              generator_name: str) -> None:
    load = OpenLoad("stateless", 4, 100.0)
    one, _ = _summary(infra, load, 1, tmp_path / "one", generator_name)
    two, _ = _summary(infra, load, 2, tmp_path / "two", generator_name)
    for summary in (one, two):
        assert summary.status == "ok", summary.reason  # its own counts agree with the merged samples
        # the rate is the generator's to keep whatever the host does: 100 calls/s offered is what the window holds
        assert summary.throughput.tool_calls_per_s == pytest.approx(100.0, rel=0.03)
    counts = [json.loads((tmp_path / "two" / f"loadgen-counts.{i}.json").read_text())["iterations"] for i in (0, 1)]
    assert counts[0] == pytest.approx(counts[1], rel=0.05)  # each segment offered half the rate


def test_two_instances_share_the_vus_of_a_closed_test_and_their_samples_merge_per_vu(
        infra: Infra, tmp_path: Path, generator_name: str) -> None:
    two, vu_ids = _summary(infra, ClosedLoad("session", 4), 2, tmp_path / "two", generator_name)
    assert two.status == "ok", two.reason
    assert vu_ids == [1, 2, 3, 4]  # each VU once, across both instances (global VU ids)
    # Little's law holds only if every VU's samples kept their order and one clock through the merge
    assert two.checks is not None and two.checks.littles_law is not None
    assert two.checks.littles_law["gap"] < analysis.LITTLES_LAW_MAX_GAP
    assert two.checks.loadgen_iterations == pytest.approx(two.checks.sample_iterations, abs=4)

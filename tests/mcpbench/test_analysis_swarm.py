"""The analysis of a measurement whose load came from two swarm load nodes, on a recorded real one
(tests/fixtures/recorded/README.md): merged samples, per-node components, clock offsets."""

from __future__ import annotations

from pathlib import Path

from analysis_helpers import summarize as summarize_with
from mcpbench.analysis import summary as analysis
from mcpbench.results.model import ComponentFigures, Context, LoadInstance, Summary
from mcpbench.results.read import read_json, read_samples, resource_samples
from mcpbench.results.upgrades import upgrade_context

RECORDED = Path(__file__).resolve().parents[1] / "fixtures" / "recorded" / "swarm-baseline-session-10vu"


def recorded_context() -> Context:
    """Its context.json, written by schema 3 (k6_ names, `executor`), as the analysis reads it."""
    return upgrade_context(read_json(RECORDED / "context.json"), RECORDED / "context.json")


def summarize(context: Context) -> Summary:
    window = read_json(RECORDED / "summary.json")["window"]
    return summarize_with(read_samples(RECORDED / "samples.csv.gz"), (window["start_s"], window["end_s"]),
                          resource_samples(RECORDED / "resources.csv"), context)


def cpu(pct: float) -> ComponentFigures:
    """A component's figures in the window that say only its mean CPU."""
    return ComponentFigures(cpu_avg_pct=pct, cpu_peak_pct=pct, mem_avg_mb=None, mem_peak_mb=None, samples=1)


def node(name: str, cpus: int) -> LoadInstance:
    """A load node with its CPUs, its clock in step with ours."""
    return LoadInstance(node=name, node_cpus=cpus, clock_offset_ms=0.0, clock_rtt_ms=1.0, exit_code=0)


def test_the_recorded_swarm_measurement_reanalyses_to_what_it_recorded() -> None:
    assert analysis.reanalysis_differences(RECORDED) == []


def test_two_nodes_samples_merged_pass_every_cross_check() -> None:
    context = recorded_context()
    assert context.load_instances is not None
    assert sorted(part.node for part in context.load_instances) == ["load1", "load2"]
    summary = summarize(context)
    assert summary.checks.problems == [] and summary.checks.count_gap <= 0.01
    assert summary.checks.littles_law["gap"] <= analysis.LITTLES_LAW_MAX_GAP
    # Each node watched as the local host is: its load, its CPUs, the probe on the server's machine.
    assert {"loadgen@load1", "loadgen@load2"} <= set(summary.resources)
    assert {"0@server", "1@server"} <= set(summary.host.steal_pct)
    assert any(cpu.endswith("@server") for cpu in summary.host.probe)
    assert analysis.CLOCK_OFFSET not in summary.flags


def test_nodes_whose_clocks_disagree_beyond_the_bound_are_flagged() -> None:
    context = recorded_context()
    assert context.load_instances is not None
    off = [part.model_copy(update={"clock_offset_ms": analysis.CLOCK_OFFSET_BOUND_MS + 50}) if i == 1 else part
           for i, part in enumerate(context.load_instances)]
    summary = summarize(context.model_copy(update={"load_instances": off}))
    assert analysis.CLOCK_OFFSET in summary.flags
    assert summary.status == "ok" and summary.checks is not None and summary.checks.problems == []
    assert not analysis.publishable(summary)[0]


def test_the_load_generator_is_judged_node_by_node() -> None:
    two_nodes = [node("load1", 1), node("load2", 1)]
    # 150 % of load in all: past one host's core, but each of the two nodes at 75 % of its own.
    spread = {"loadgen": cpu(150.0), "loadgen@load1": cpu(75.0), "loadgen@load2": cpu(75.0)}
    assert analysis.bottleneck_flags(spread, 1) == ["bound:loadgen"]          # on this machine: the bound
    assert analysis.bottleneck_flags(spread, 1, two_nodes) == []               # on two nodes: neither is
    one_full = {**spread, "loadgen@load1": cpu(95.0)}
    assert analysis.bottleneck_flags(one_full, 1, two_nodes) == ["bound:loadgen"]
    # Redis and the API service together on the infra node are judged without the load's CPU.
    infra = {**spread, "redis": cpu(10.0), "api": cpu(60.0)}
    assert analysis.bottleneck_flags(infra, 1, two_nodes) == []

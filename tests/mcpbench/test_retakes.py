"""A measurement the host disturbed is measured again at once; a retake disturbed too waits for the end of the
round (a slow spell of a shared machine seldom lasts a round), within Runner's budget. The summaries are a
recorded real measurement's, its flags set as the host probes set them."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from mcpbench.catalog.manifest import discover
from mcpbench.experiments import experiment_class
from mcpbench.experiments.runner import LATER_PER_ROUND, Runner, ServerRound, ServerState
from mcpbench.host.fingerprint import fingerprint
from mcpbench.host.paths import SERVERS_DIR
from mcpbench.loads import ClosedLoad, OpenLoad
from mcpbench.results.layout import MeasurementDir
from mcpbench.results.model import CgroupSupport, Summary
from mcpbench.results.write import RunRecord

RUN = experiment_class("run")
RECORDED = Path(__file__).resolve().parents[1] / "fixtures" / "recorded" / "held-session-rust-1vu" / "summary.json"
LOAD = OpenLoad("session", 50, 100.0)


@dataclass(frozen=True)
class Scripted(ServerRound):
    """A server round whose fresh measurements read as `disturbed` says, one entry per start."""

    disturbed: list[bool] = field(default_factory=list)

    def _fresh(self, load, timing, prewarm_s) -> Summary:
        out = self.directory(load.label)
        out.mkdir()
        summary = Summary.model_validate(json.loads(RECORDED.read_text()))
        summary.flags = ["noisy-host"] if self.disturbed.pop(0) else []
        out.summary.write_text(summary.model_dump_json())
        return summary


def a_runner(tmp_path: Path) -> Runner:
    values = {**{o.name: o.default for o in RUN.options}, "servers": ["go", "python", "rust", "nodejs"],
              "quick": True}
    specs = [discover(SERVERS_DIR).by_name()[name] for name in values["servers"]]
    experiment = RUN(values, specs)
    runner = Runner(experiment, tmp_path)
    runner.record = RunRecord(runner.directory, runner.run_id, experiment.config,
                              fingerprint(CgroupSupport(version=None, applied=False, note="test")))
    runner.states = {spec.name: ServerState(spec) for spec in specs}
    return runner


def test_a_retake_disturbed_again_waits_for_the_end_of_the_round(tmp_path: Path) -> None:
    runner = a_runner(tmp_path)
    server = Scripted(runner, runner.states["go"], 1, 1, [True, True, False])
    noted: list[Summary] = []
    assert server.measure_load(LOAD, later=noted.append) is None  # two disturbed: the third waits
    assert len(runner.later) == 1 and server.disturbed == [False]
    runner._measure_later()
    assert [s.flags for s in noted] == [[]] and runner.later == []
    aside = sorted(p.name for p in (runner.directory / "go").iterdir() if p.is_dir())
    assert aside == [LOAD.label + "-r1", LOAD.label + "-r1.disturbed", LOAD.label + "-r1.disturbed2"]
    listed = json.loads((runner.directory / "run.json").read_text())["servers"]["go"]["measurements"]
    assert sorted(listed) == aside[1:]  # the ones set aside (Runner.measure lists the one that stands)


def test_the_budget_and_one_wait_per_server(tmp_path: Path) -> None:
    runner = a_runner(tmp_path)
    names = ["go", "python", "rust", "nodejs"][:LATER_PER_ROUND + 1]
    waited = [Scripted(runner, runner.states[name], 1, i, [True, True]).measure_load(LOAD, later=print)
              for i, name in enumerate(names, start=1)]
    assert [summary is None for summary in waited] == [True] * LATER_PER_ROUND + [False] * (len(names) - LATER_PER_ROUND)
    assert "noisy-host" in waited[-1].flags  # past the budget the retake stands, flagged
    again = Scripted(runner, runner.states["go"], 1, 9, [True, True])
    assert not runner.defer(again.state, lambda: None)  # go already waits


def test_the_retake_not_the_measurement_it_replaces_sizes_the_equal_load(tmp_path: Path) -> None:
    # A disturbed measurement can read faster than its retake (an equal-load e2e run sized its rate from a
    # set-aside 182.2 calls/s where the retake that stands read 178.8).
    runner = a_runner(tmp_path)
    state = runner.states["go"]
    load = ClosedLoad("session", 5)
    out = runner.directory / "go" / (load.label + "-r1")
    summary = Summary.model_validate(json.loads(RECORDED.read_text()))
    rates = []
    for rate in (182.2, 178.8):
        summary.throughput.tool_calls_per_s = rate
        Runner._count(state, MeasurementDir(out), load, 1, summary)
        rates.append(runner.closed_rates("session"))
    assert rates == [{"go": 182.2}, {"go": 178.8}]
    other = ClosedLoad("session", 10)
    summary.throughput.tool_calls_per_s = 150.0
    Runner._count(state, MeasurementDir(runner.directory / "go" / (other.label + "-r1")), other, 1, summary)
    assert state.best_rate("session") == 178.8 and state.best_rate("stdio") is None  # the best of the loads kept


@dataclass(frozen=True)
class Sized(Scripted):
    """A scripted server round whose fresh measurements read `rates` in turn, counted as Runner.measure counts
    them (round 1's closed rate)."""

    rates: list[float] = field(default_factory=list)

    def _fresh(self, load, timing, prewarm_s) -> Summary:
        summary = super()._fresh(load, timing, prewarm_s)
        summary.throughput.tool_calls_per_s = self.rates.pop(0)
        Runner._count(self.state, self.directory(load.label), load, self.round, summary)
        return summary


def test_a_retake_that_waited_for_the_end_of_the_closed_pass_sizes_the_equal_load(tmp_path: Path,
                                                                                   monkeypatch) -> None:
    # As recorded in an equal-load e2e run: go's closed load read 249.75, its retake 257.25 (both disturbed),
    # and the retake at the end of the pass 265.25, which stands; the rate was sized from 257.25 when the
    # waiting retake was measured only after round 1's equal pass.
    runner = a_runner(tmp_path)
    load = ClosedLoad("session", 5)

    def measure_server(state: ServerState, round_index: int, position: int) -> None:
        Sized(runner, state, round_index, position, [True, True, False], [249.75, 257.25, 265.25]).measure_load(
            load, later=lambda summary: None)

    sized_from: list[dict[str, float]] = []
    monkeypatch.setattr(runner, "_measure_server", measure_server)
    monkeypatch.setattr(runner.experiment, "after_round", lambda r, i: sized_from.append(r.closed_rates("session")))
    runner._play_round(1, [runner.states["go"]])
    assert sized_from == [{"go": 265.25}] and runner.later == []

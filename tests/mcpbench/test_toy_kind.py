"""A kind of load defined and registered from outside the package, in a few lines: the run configuration builds it,
both load generators translate it, and the real load driver runs it. Nothing else of the orchestrator changes."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest

from mcpbench.experiments.config import RunConfig
from mcpbench.loadgen import StdioLaunch
from mcpbench.loadgen.driver import LoadDriver, schedule_arguments
from mcpbench.loadgen.k6 import k6_scenario
from mcpbench.loads import KINDS, ClosedLoad, Stage
from mcpbench.loads.timing import Timing
from mcpbench.host.toolchain import which
from mcpbench.results.layout import MeasurementDir
from test_load_driver_stdio import STAND_IN


@dataclass(frozen=True)
class DoublingLoad(ClosedLoad):
    """The level for half the hold, then twice it: a kind no module of the package defines."""

    kind: ClassVar[str] = "doubling"

    @property
    def label(self) -> str:
        return f"{self.mode}-doubling{self.vus}vu"

    def stages(self, timing: Timing) -> list[Stage]:
        half = timing.hold_s / 2
        return [(0.0, self.vus), (half, self.vus), (0.0, 2 * self.vus), (half, 2 * self.vus)]


@pytest.fixture
def doubling(monkeypatch: pytest.MonkeyPatch) -> type[DoublingLoad]:
    monkeypatch.setitem(KINDS, DoublingLoad.kind, DoublingLoad)  # its registry line
    return DoublingLoad


TIMING = Timing(ramp_up_s=0, warmup_s=0, duration_s=2, ramp_down_s=0, warmup_cap_s=None)


def test_a_kind_from_outside_is_built_and_translated_for_both_generators(doubling) -> None:
    config = RunConfig.from_options({}, [], TIMING, modes=("stdio",), vus=(2,), load="doubling")
    [load] = config.loads()
    assert isinstance(load, doubling) and load.label == "stdio-doubling2vu"
    assert schedule_arguments(load, TIMING) == ["--model", "closed", "--stages", "0s:2,1s:2,0s:4,1s:4"]
    scenario = k6_scenario(load, TIMING)
    assert scenario["executor"] == "ramping-vus" and [s["target"] for s in scenario["stages"]] == [2, 2, 4, 4]


def test_the_real_driver_runs_a_kind_from_outside(doubling, tmp_path: Path) -> None:
    if not which("go"):
        pytest.skip("go is not installed: the load driver cannot be built")
    stand_in = tmp_path / "stand_in.py"
    stand_in.write_text(STAND_IN)
    launch = StdioLaunch(argv=(sys.executable, str(stand_in), "{}"), env={"PATH": os.environ["PATH"]}, cwd=tmp_path,
                         log_path=tmp_path / "server.log")
    out = tmp_path / "out"
    out.mkdir()
    run = LoadDriver(None).run("", doubling("stdio", 2), TIMING, MeasurementDir(out), launch=launch)
    first = run.samples.groupby("vu")["t_s"].min()
    # VUs 1 and 2 from the start, 3 and 4 at the step to twice the level, 1 s in
    assert sorted(first.index) == [1, 2, 3, 4] and (first[[1, 2]] < 0.5).all()
    assert ((first[[3, 4]] >= 1.0) & (first[[3, 4]] < 1.5)).all(), first

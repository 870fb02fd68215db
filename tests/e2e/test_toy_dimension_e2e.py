"""The dimensions seam, from the outside: a new dimension — echo_payload, the contract's tool, at two reply sizes
no built-in dimension measures (2 KiB and 8 KiB) — written here and registered (`dimensions.register`, the door
for dimensions outside the package), runs through the real orchestrator (`mcpbench dimension`: each point a twin
started with the dimension tools on, verified, its replies checked by the load driver under load), and the
report, a process of its own that has never heard of it, shows its section on the Dimensions page and asks its
own question on the decision page — from what the run recorded. No file of the orchestrator or the report
names it."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from mcpbench import dimensions
from mcpbench.cli.experiments import register
from mcpbench.dimensions import Dimension, Point, Question
from mcpbench.dimensions.payload import payload_workload
from mcpbench.results.model import DimensionSection
from mcpbench.workload.dimension_tools import ToolSettings

from test_smoke_run import SERVER, leftovers, mcpbench, only_run

pytestmark = pytest.mark.e2e

SIZES = (2 * 1024, 8 * 1024)
SMALL_REPLIES = Dimension(
    "small-replies", "fastest at small replies", "persistent", "4", 0.0,
    points=tuple(Point(f"echo{size // 1024}k", f"{size // 1024} KiB echoed", ToolSettings(dimension_tools=True),
                       payload_workload(size)) for size in SIZES),
    asks=(Question("Most {point} replies per CPU-second (a toy dimension)", "cpu_per_call", "replies per CPU-second"),),
    section=DimensionSection(columns=["memory_rank"], tables=[], latency_ranking=False, changes=True))
# Calibrated: the limit each measurement is judged against is known, so its point is ranked and the decision page
# answers the toy's question (uncalibrated, every measurement is limit-unknown: shown, never ranked).
SHORT = ["--quick", "--rounds", "3", "--ramp-up", "1", "--warmup", "1", "--duration", "2", "--ramp-down", "0"]


def test_a_dimension_registered_from_outside_runs_and_is_reported(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dimensions, "ADDED", {})
    dimensions.register(SMALL_REPLIES)
    app = typer.Typer()
    register(app)
    caller_cpus = os.sched_getaffinity(0)
    done = CliRunner().invoke(app, ["dimension", "--dimension", SMALL_REPLIES.name, SERVER, *SHORT,
                                    "--results-dir", str(tmp_path / "r")], terminal_width=200)
    assert done.exit_code == 0, done.output[-3000:]
    # The run pins itself to the harness CPUs; made in this process, it gives the caller its CPUs back (a later
    # test comparing the probed CPUs with its own affinity read {'0'} after this one once).
    assert os.sched_getaffinity(0) == caller_cpus
    run_dir = only_run(tmp_path / "r")
    assert not leftovers(str(tmp_path)), "a process of the run is still running"
    run = json.loads((run_dir / "run.json").read_text())
    plan = run["config"]["dimension"]
    assert plan["name"] == "small-replies" and plan["points"] == ["2 KiB echoed", "8 KiB echoed"]
    assert plan["decisions"] == [{"question": "Most 8 KiB echoed replies per CPU-second (a toy dimension)",
                                  "figure": "cpu_per_call", "point": "8 KiB echoed", "unit": "replies per CPU-second"}]
    assert run["config"]["modes"] == ["persistent"] and run["config"]["vus"] == [4]   # its preset
    twins = [f"{SERVER}-echo2k", f"{SERVER}-echo8k"]
    assert list(run["servers"]) == twins
    kept: dict[str, list[Path]] = {}   # each twin's measurements that stand
    for twin, size in zip(twins, SIZES):
        assert run["servers"][twin]["status"] == "ok", run["servers"][twin]
        checks = json.loads((run_dir / twin / "verify.json").read_text())["checks"]
        # a server whose SDK runs a cancelled call on is warned of it, measured (the cancellation dimension)
        assert {c["name"] for c in checks if c["status"] != "pass"} <= {"cancellation"}, checks
        measurements = sorted(path for path in (run_dir / twin).glob("persistent-4vu-r*/summary.json")
                              if path.parent.name.rsplit("-r", 1)[1].isdigit())   # not one the host disturbed
        assert len(measurements) == 3, measurements
        kept[twin] = measurements
        for path in measurements:
            summary = json.loads(path.read_text())
            assert summary["errors"]["count"] == 0 and summary["throughput"]["successful_tool_calls"] > 0, path
        with gzip.open(measurements[0].parent / "samples.csv.gz", "rt") as samples:
            samples.readline()
            assert {line.split(",")[2] for line in samples} == {"echo_payload"}   # its workload, checked under load

    site = tmp_path / "site"
    report = mcpbench("report", str(run_dir), "--out", str(site))   # a process without the toy registered
    text, _ = report.communicate(timeout=300)
    assert report.returncode == 0, text[-2000:]
    page = (site / "dimensions.html").read_text()
    assert f'id="small-replies-{run["run_id"]}"' in page and "small-replies — fastest at small replies" in page
    for heading in ("<h3>2 KiB echoed</h3>", "<h3>8 KiB echoed</h3>", "Change from 2 KiB echoed", "memory rank"):
        assert heading in page, heading
    assert "tools/list KiB" not in page and "Memory per open session" not in page   # what its section does not show
    decision = (site / "decision.html").read_text()
    assert "Most 8 KiB echoed replies per CPU-second (a toy dimension)" in decision
    # Answered from its point's CPU ranking, linked to its section (one server: the only one measured) — unless
    # the host flagged the point's measurements that stand (a retake disturbed again stays flagged), and then
    # the page says no server qualifies and links nothing: a flagged measurement is never ranked.
    linked = f'href="dimensions.html#small-replies-{run["run_id"]}"' in decision
    flagged = [path.parent.name for path in kept[twins[-1]] if json.loads(path.read_text())["flags"]]
    answer = decision[decision.index("Most 8 KiB echoed replies per CPU-second (a toy dimension)"):]
    answer = answer[:answer.index("</tr>")]
    if not flagged:
        assert linked, answer
    else:
        assert linked or "no server qualifies" in answer, (flagged, answer)

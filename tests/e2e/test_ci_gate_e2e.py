"""End-to-end: `mcpbench ci` (docs/ci.md) on a server nobody here wrote (@modelcontextprotocol/server-everything,
pinned in benchmark/third-party/): a candidate that does more work per call (`node --no-opt`: V8 without its
optimising compiler, the same server code) is reported as a regression, confirmed in new rounds, exit 1; the
same configuration against itself over stdio exits 0. Short windows: the claim is the gate's path end to end,
whose statistics tests/mcpbench/test_gate.py and the recorded replays check."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from junitparser import JUnitXml

from mcpbench.host.paths import ROOT

from test_smoke_run import leftovers, mcpbench, only_run
from test_target_e2e import SERVER_JS, everything  # noqa: F401 - the fixture

pytestmark = pytest.mark.e2e

BRIEF = ["--ramp-up", "1", "--warmup", "2", "--duration", "3", "--ramp-down", "0", "--no-calibrate"]
# The regression's path: `node --no-opt` costs ~1.8x at 10 VUs, which 2 s windows after a 1 s warm-up still show.
SHORTEST = ["--ramp-up", "1", "--warmup", "1", "--duration", "2", "--ramp-down", "0", "--no-calibrate"]


def ci(directory: Path, *args: str) -> tuple[int, str]:
    proc = mcpbench("ci", *args, cwd=directory)
    out, _ = proc.communicate(timeout=900)
    return proc.returncode, out


def test_a_candidate_doing_more_work_per_call_is_a_confirmed_regression(everything: Path, tmp_path: Path) -> None:  # noqa: F811
    # through the GitHub Action's one step (action.yml runs scripts/ci-gate.sh with these variables)
    summary, outputs = tmp_path / "step-summary.md", tmp_path / "github-output"
    env = {**os.environ, "MCPBENCH_BASE": f"node {SERVER_JS} streamableHttp",
           "MCPBENCH_CANDIDATE": f"node --no-opt {SERVER_JS} streamableHttp", "MCPBENCH_WORKLOAD": "workload.toml",
           "MCPBENCH_LEVELS": "10", "MCPBENCH_ROUNDS": "3", "MCPBENCH_CONFIRM_ROUNDS": "4",
           "MCPBENCH_ARGS": " ".join(SHORTEST),
           "MCPBENCH_RESULTS": str(tmp_path / "results"), "GITHUB_STEP_SUMMARY": str(summary),
           "GITHUB_OUTPUT": str(outputs)}
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "ci-gate.sh")], cwd=everything, env=env, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=900)
    out = proc.stdout
    assert proc.returncode == 1, out
    said = dict(line.split("=", 1) for line in outputs.read_text().splitlines())
    assert said["verdict"] == "regression", said
    run_dir = Path(said["results"])
    assert run_dir == only_run(tmp_path / "results")
    gate = json.loads(Path(said["json"]).read_text())
    assert gate["verdict"] == "regression" and gate["confirmed"], out
    stages = {check["stage"] for check in gate["checks"]}
    assert stages == {"screen", "confirmation"}
    cpu = next(c for c in gate["checks"] if c["stage"] == "confirmation" and c["figure"] == "cpu_ms_per_call")
    assert cpu["ratio"] > 1.2 and cpu["rounds"] == 4, cpu
    run = json.loads((run_dir / "run.json").read_text())
    assert len(run["rounds"]) == 7 and all(sorted(r) == ["base", "candidate"] for r in run["rounds"])
    assert summary.read_text() == Path(said["markdown"]).read_text()
    assert "Regression confirmed" in summary.read_text()
    assert JUnitXml.fromfile(said["junit"]).failures >= 1
    assert "Gate: regression" in out
    assert not leftovers("server-everything/dist")


def test_the_same_server_against_itself_over_stdio_passes(everything: Path, tmp_path: Path) -> None:  # noqa: F811
    code, out = ci(everything, "--transport", "stdio", "--base", f"node {SERVER_JS} stdio",
                   "--candidate", f"node {SERVER_JS} stdio", "--workload", "workload.toml", "--vus", "4",
                   "--rounds", "2", *BRIEF, "--assert", "errors<1%", "--results-dir", str(tmp_path))
    assert code == 0, out
    run_dir = only_run(tmp_path)
    gate = json.loads((run_dir / "gate.json").read_text())
    assert gate["verdict"] == "no regression" and not gate["confirmed"], out
    assert [a["outcome"] for a in gate["assertions"]] == ["pass", "pass"]   # errors<1%, for base and candidate
    screen = [c for c in gate["checks"] if c["stage"] == "screen"]
    assert {c["figure"] for c in screen} >= {"cpu_ms_per_call", "p99_ms"} and all(c["rounds"] == 2 for c in screen)
    run = json.loads((run_dir / "run.json").read_text())
    measured = sorted(m for m in run["servers"]["base"]["measurements"] if "." not in m)
    assert measured[:2] == ["stdio-4vu-r1", "stdio-4vu-r2"], measured
    assert not leftovers("server-everything/dist")


def test_a_side_that_cannot_start_is_not_measured_exit_2(everything: Path, tmp_path: Path) -> None:  # noqa: F811
    # both sides exit at start (the base too, so that nothing is measured for long): each named in the reason
    code, out = ci(everything, "--base", "node -e process.exit(4)", "--candidate", "node -e process.exit(3)",
                   "--workload", "workload.toml", "--vus", "2", "--rounds", "2", *BRIEF,
                   "--results-dir", str(tmp_path))
    assert code == 2, out
    gate = json.loads((only_run(tmp_path) / "gate.json").read_text())
    assert gate["verdict"] == "not measured" and "candidate" in gate["reason"] and "base" in gate["reason"], gate
    assert "Traceback" not in out and not leftovers("server-everything/dist")


def test_assertions_on_a_run_pass_and_fail_as_written(everything: Path, tmp_path: Path) -> None:  # noqa: F811
    proc = mcpbench("run", "--command", f"node {SERVER_JS} streamableHttp", "--name", "everything",
                    "--workload", "workload.toml", "--vus", "2", "--rounds", "1", *BRIEF,
                    "--assert", "errors<1%,p99<0.001ms",
                    "--results-dir", str(tmp_path), cwd=everything)
    out, _ = proc.communicate(timeout=600)
    assert proc.returncode == 1, out   # p99 under a microsecond never holds
    run_dir = only_run(tmp_path)
    said = json.loads((run_dir / "assertions.json").read_text())
    outcomes = {r["criterion"]: r["outcome"] for r in said["results"]}
    assert outcomes == {"errors<1%": "pass", "p99<0.001ms": "fail"}, said
    xml = JUnitXml.fromfile(str(run_dir / "assertions.junit.xml"))
    assert (xml.tests, xml.failures) == (2, 1)
    assert "assert everything session-2vu p99<0.001ms" in out and "fail" in out

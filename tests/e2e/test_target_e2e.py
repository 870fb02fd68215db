"""End-to-end: an MCP server nobody on this project wrote (@modelcontextprotocol/server-everything, pinned in
benchmark/third-party/, installed by scripts/setup.sh) measured as a server given on the command line — over
Streamable HTTP (--command) and stdio (--stdio), with its workload file's calls — then two configurations of it
side by side (--target, two Node.js versions), and every bad target said in one line."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from mcpbench.host.paths import ROOT
from mcpbench.host.ports import free_port
from mcpbench.results.read import read_json

from test_smoke_run import leftovers, mcpbench, only_run

pytestmark = pytest.mark.e2e

EVERYTHING = ROOT / "benchmark" / "third-party" / "server-everything"
SERVER_JS = "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
WORKLOAD = EVERYTHING / "workload.toml"
SHORT = ["--quick", "--ramp-up", "1", "--warmup", "1", "--duration", "2", "--ramp-down", "0", "--no-calibrate",
         "--think", "0"]


@pytest.fixture(scope="module")
def everything() -> Path:
    if not (EVERYTHING / SERVER_JS).is_file() or shutil.which("node") is None:
        pytest.fail("benchmark/third-party/server-everything is not installed: scripts/setup.sh installs it (npm ci)")
    return EVERYTHING


def run_in(directory: Path, *args: str, timeout: int = 900) -> tuple[int, str]:
    proc = mcpbench("run", *args, cwd=directory)
    out, _ = proc.communicate(timeout=timeout)
    return proc.returncode, out


def test_a_server_of_someone_else_is_measured_with_its_own_workload(everything: Path, tmp_path: Path) -> None:
    code, out = run_in(everything, "--command", f"node {SERVER_JS} streamableHttp", "--stdio", f"node {SERVER_JS} stdio",
                       "--name", "everything", "--workload", "workload.toml", "--mode", "persistent,stdio",
                       "--vus", "1,5", *SHORT, "--results-dir", str(tmp_path))
    assert code == 0, out
    run_dir = only_run(tmp_path)
    run = json.loads((run_dir / "run.json").read_text())
    assert run["status"] == "complete" and run["servers"]["everything"]["status"] == "ok", out
    server = read_json(run_dir / "everything" / "server.json")
    assert server["workload"] == str(WORKLOAD) and server["stdio"] and server["run"][0] == "node"
    verify = read_json(run_dir / "everything" / "verify.json")
    names = {check["name"]: check["status"] for check in verify["checks"]}
    assert names["tools/list"] == "pass" and names["call echo"] == "pass" and names["call get-sum"] == "pass", verify
    # (a measurement a busy host disturbed is set aside as <name>.disturbed and measured again)
    measured = sorted(m for m in run["servers"]["everything"]["measurements"] if "." not in m)
    assert measured == ["persistent-1vu-r1", "persistent-5vu-r1", "stdio-1vu-r1", "stdio-5vu-r1"], measured
    for name in measured:
        summary = read_json(run_dir / "everything" / name / "summary.json")
        assert summary["status"] == "ok", (name, summary.get("reason"))
        assert set(summary["latency_ms"]["per_tool"]) == {"echo", "get-sum"}
        assert summary["errors"]["count"] == 0 and summary["throughput"]["tool_calls_per_s"] > 10
        # every iteration is echo, echo, get-sum: the generator's count and the samples' agree
        assert summary["checks"]["problems"] == [], summary["checks"]
        assert summary["resources"]["server"]["cpu_avg_pct"] > 0  # started by the suite, under its cgroup
        # its workload reads nothing of the suite's: no Redis seeded, none watched (and no calibration asked for one)
        assert summary["seed_s"] is None and "redis" not in summary["resources"], summary["resources"].keys()
    assert not (run_dir / "_infra" / "redis.log").exists() and not (run_dir / "_infra" / "api-service.log").exists()
    # The run ends with its figures and the report's pages that apply to one server given on the command line.
    assert "Ranking — " in out and f"Report: {run_dir / 'report' / 'index.html'}" in out, out
    for site in (run_dir / "report", tmp_path / "site"):
        if site.name == "site":  # `mcpbench report` of the same directory builds the same pages
            report = mcpbench("report", str(run_dir), "-o", str(site))
            text, _ = report.communicate(timeout=600)
            assert report.returncode == 0 and "Traceback" not in text, text
        assert "everything" in (site / "index.html").read_text()
        assert (site / "servers" / "everything.html").is_file() and (site / "methodology.html").is_file()
        assert not (site / "ab.html").exists()  # one configuration: nothing to put side by side
        # the lineup's pages say nothing about a server of the reader's own
        assert not (site / "v2.html").exists() and not (site / "decision.html").exists()
        assert "decision.html" not in (site / "index.html").read_text()
    assert not leftovers("server-everything/dist")


def test_a_stdio_server_alone_is_calibrated_and_publishable(everything: Path, tmp_path: Path) -> None:
    # The stdio transport's own limit is measured against the canned server (`api-service calibrate-stdio`)
    # started in the server's place; the ladder stops once it is safely above the run's one rate.
    code, out = run_in(everything, "--stdio", f"node {SERVER_JS} stdio", "--name", "everything",
                       "--workload", "workload.toml", "--load", "open", "--rate", "300", "--vus", "5",
                       "--ramp-up", "1", "--warmup", "2", "--duration", "3", "--ramp-down", "0",
                       "--results-dir", str(tmp_path))
    assert code == 0, out
    run_dir = only_run(tmp_path)
    run = json.loads((run_dir / "run.json").read_text())
    assert run["config"]["modes"] == ["stdio"]  # a --stdio server alone is measured over stdio
    capacity = run["harness_capacity"]["stdio"]
    assert capacity["status"] == "ok" and capacity["tool_calls_per_s"] >= 300 / 0.8, capacity
    assert capacity["stopped_by"].startswith("enough for this run's rates") and len(capacity["steps"]) <= 4
    summary = read_json(run_dir / "everything" / "stdio-rate300-r1" / "summary.json")
    assert summary["limit"]["kind"] == "harness-capacity" and summary["limit"]["fraction"] < 0.8, summary["limit"]
    assert summary["publishable"] and summary["flags"] == [], summary["unpublishable_reasons"]
    assert not (run_dir / "_infra" / "redis.log").exists()  # nothing needed Redis or the API service
    assert "CPU ms/call" in out and (run_dir / "report" / "index.html").is_file()
    assert not leftovers("server-everything/dist")
    assert not leftovers("calibrate-stdio")


def test_resources_prompts_and_completions_are_measured_with_figures_per_method(everything: Path,
                                                                               tmp_path: Path) -> None:
    # methods.toml: resources/read, prompts/get and completion/complete counted as calls; resources/list and
    # prompts/list made in each iteration, paged, with figures of their own.
    code, out = run_in(everything, "--command", f"node {SERVER_JS} streamableHttp", "--stdio", f"node {SERVER_JS} stdio",
                       "--name", "everything", "--workload", "methods.toml", "--mode", "persistent,stdio",
                       "--vus", "5", *SHORT, "--results-dir", str(tmp_path))
    assert code == 0, out
    run_dir = only_run(tmp_path)
    verify = read_json(run_dir / "everything" / "verify.json")
    names = {check["name"]: check["status"] for check in verify["checks"]}
    for call in ("read", "prompt", "complete", "resources/list", "prompts/list"):
        assert names[f"call {call}"] == "pass", verify
    for name in ("persistent-5vu-r1", "stdio-5vu-r1"):
        summary = read_json(run_dir / "everything" / name / "summary.json")
        assert summary["status"] == "ok", (name, summary.get("reason"))
        assert summary["errors"]["count"] == 0 and summary["checks"]["problems"] == [], summary
        per_call = summary["latency_ms"]["per_tool"]
        assert set(per_call) == {"read", "prompt", "complete"}, per_call
        steps = summary["latency_ms"]["steps"]
        assert set(steps) == {"resources/read", "prompts/get", "completion/complete", "resources/list",
                              "prompts/list"}, steps
        # The counted calls are the three arrivals, each once an iteration, as the lists are.
        calls = summary["throughput"]["tool_calls"]
        assert calls == sum(per_call[c]["count"] for c in per_call) + summary["errors"]["failed_tool_calls"]
        assert min(steps[m]["count"] for m in steps) > 0 and calls > 0
    site = tmp_path / "site"
    report = mcpbench("report", str(run_dir), "-o", str(site))
    text, _ = report.communicate(timeout=600)
    assert report.returncode == 0 and "Traceback" not in text, text
    page = (site / "servers" / "everything.html").read_text()
    requests = page[page.index("Each request apart"):page.index("Warm-up and host stability")]
    assert all(f"<td>{method}</td>" in requests for method in ("resources/read", "prompts/list", "completion/complete"))
    charts = " ".join(p.read_text() for p in site.rglob("*per-tool*.svg"))
    assert "complete" in charts and "prompt" in charts, sorted(p.name for p in site.rglob("*.svg"))
    assert not leftovers("server-everything/dist")


def test_two_configurations_side_by_side(everything: Path, tmp_path: Path) -> None:
    # The same server on the machine's Node.js 20 and on Node.js 26 (npm's `node`, as servers/nodejs pins it).
    # calibrated: the API service's canned endpoint runs, Redis (which neither target's workload reads) does not
    calibrated = [arg for arg in SHORT if arg != "--no-calibrate"]
    code, out = run_in(everything, "--target", f"node20=node {SERVER_JS} streamableHttp",
                       "--target", f"node26=node_modules/.bin/node {SERVER_JS} streamableHttp",
                       "--workload", "workload.toml", "--mode", "persistent", "--vus", "5", "--rounds", "2",
                       *calibrated, "--results-dir", str(tmp_path))
    assert code == 0, out
    run_dir = only_run(tmp_path)
    run = json.loads((run_dir / "run.json").read_text())
    assert [run["servers"][n]["status"] for n in ("node20", "node26")] == ["ok", "ok"], out
    assert run["calibration"]["persistent"]["status"] == "ok", run["calibration"]
    assert (run_dir / "_infra" / "api-service.log").is_file() and not (run_dir / "_infra" / "redis.log").exists()
    summary = read_json(run_dir / "node20" / "persistent-5vu-r1" / "summary.json")
    assert summary["limit"]["kind"] == "load-model" and "redis" not in summary["resources"], summary["limit"]
    assert sorted(map(sorted, run["rounds"])) == [["node20", "node26"]] * 2  # measured in the same rounds
    site = tmp_path / "site"
    report = mcpbench("report", str(run_dir), "-o", str(site))
    text, _ = report.communicate(timeout=600)
    assert report.returncode == 0, text
    page = (site / "ab.html").read_text()
    assert "node26 against node20" in page and "persistent · 5 VUs" in page
    assert page.count("×") >= 2  # a speedup and a CPU ratio, each with its interval
    assert not leftovers("server-everything/dist")


@pytest.mark.parametrize(("args", "said"), [
    (["--command", "node x.js"], "--command needs --workload FILE"),
    (["--command", "node x.js", "--workload", "missing.toml"], "missing.toml: cannot read it"),
    (["go", "--command", "node x.js", "--workload", "workload.toml"], "name servers from servers/ or give"),
    (["--workload", "workload.toml"], "--workload go with --command, --stdio, --url or --target"),
    (["--url", "ftp://127.0.0.1/mcp", "--workload", "workload.toml"], "give an http:// or https:// URL"),
    (["--command", "node x.js", "--workload", "workload.toml", "--runtime", "docker"], "runs under the local runtime"),
    (["--url", "http://127.0.0.1:9/mcp", "--workload", "workload.toml", "--header", "no colon"], "give 'Name: value'"),
    (["--target", "a=node x.js", "--command", "node y.js", "--workload", "workload.toml"], "leave out --command"),
])
def test_a_bad_command_line_is_one_line(everything: Path, args: list[str], said: str) -> None:
    code, out = run_in(everything, *args, "--results-dir", "/nonexistent-mcpbench-results")
    assert code == 2 and said in " ".join(out.split()) and "Traceback" not in out, out


def test_a_typo_in_the_workload_file_names_its_line(everything: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[[call]]\ntool = "echo"\nargumnets = { message = "hi" }\n')
    code, out = run_in(everything, "--command", f"node {SERVER_JS} streamableHttp", "--workload", str(bad),
                       "--results-dir", str(tmp_path / "results"))
    assert code == 2 and f"{bad}:3: call.0.argumnets: Extra inputs are not permitted" in " ".join(out.split()), out
    assert not (tmp_path / "results").exists()  # refused before anything started


def test_a_target_that_fails_is_said_and_nothing_is_left_running(everything: Path, tmp_path: Path) -> None:
    unknown = tmp_path / "unknown.toml"
    unknown.write_text('[[call]]\ntool = "no-such-tool"\n')
    code, out = run_in(everything, "--command", f"node {SERVER_JS} streamableHttp", "--workload", str(unknown),
                       "--name", "everything", *SHORT, "--results-dir", str(tmp_path / "a"))
    flat = " ".join(out.split())
    assert code == 1 and "failed in verify" in flat and "does not list no-such-tool" in flat, out
    code, out = run_in(everything, "--command", "node -e process.exit(3)", "--workload", "workload.toml",
                       "--name", "quitter", *SHORT, "--results-dir", str(tmp_path / "b"))
    flat = " ".join(out.split())
    assert code == 1 and "quitter failed in start" in flat and "Traceback" not in out, out
    assert not leftovers("server-everything/dist")


def test_a_server_already_running_is_measured_where_it_is(everything: Path, tmp_path: Path) -> None:
    # Started by the test itself on a loopback port: the suite only reaches it (--url), with a header on every
    # request; it starts, limits and reads nothing of it, and says so.
    port = free_port()
    log = (tmp_path / "server.log").open("w")
    server = subprocess.Popen(["node", SERVER_JS, "streamableHttp"], cwd=everything, env={"PATH": "/usr/bin:/bin",
                              "PORT": str(port)}, stdout=log, stderr=subprocess.STDOUT)
    try:
        code, out = run_in(everything, "--url", f"http://127.0.0.1:{port}/mcp", "--header", "Authorization: Bearer t",
                           "--name", "running", "--workload", "workload.toml", "--mode", "persistent", "--vus", "5",
                           *SHORT, "--results-dir", str(tmp_path / "results"))
        assert code == 0, out
        run_dir = only_run(tmp_path / "results")
        assert read_json(run_dir / "running" / "server.json")["url"] == f"http://127.0.0.1:{port}/mcp"
        summary = read_json(run_dir / "running" / "persistent-5vu-r1" / "summary.json")
        assert summary["status"] == "ok" and summary["errors"]["count"] == 0, summary.get("reason")
        assert "cgroup-not-applied" in summary["flags"] and not summary["resources"].get("server")
        assert server.poll() is None  # reached, never stopped
        report = mcpbench("report", str(run_dir), "-o", str(tmp_path / "site"))
        text, _ = report.communicate(timeout=600)
        assert report.returncode == 0 and "Traceback" not in text, text
    finally:
        server.terminate()
        server.wait(timeout=10)
    code, out = run_in(everything, "--url", f"http://127.0.0.1:{free_port()}/mcp", "--name", "nobody", "--workload",
                       "workload.toml", *SHORT, "--results-dir", str(tmp_path / "gone"))
    flat = " ".join(out.split())
    assert code == 1 and "nobody failed in start" in flat and "did not answer `initialize` within 10 s" in flat, out
    assert "Traceback" not in out


def test_the_workload_file_names_its_session_pattern_and_setup(everything: Path, tmp_path: Path) -> None:
    ran = tmp_path / "setup-ran"
    workload = tmp_path / "w.toml"
    workload.write_text(f'session = "persistent"\nsetup = "echo reset >> {ran}"\n' + WORKLOAD.read_text())
    # --ready: the server's own check, before its MCP initialize ({port} is its port)
    code, out = run_in(everything, "--command", f"node {SERVER_JS} streamableHttp", "--name", "everything",
                       "--ready", "exec 3<>/dev/tcp/127.0.0.1/{port}",
                       "--workload", str(workload), "--vus", "2", *SHORT, "--results-dir", str(tmp_path / "results"))
    assert code == 0, out
    run_dir = only_run(tmp_path / "results")
    run = json.loads((run_dir / "run.json").read_text())
    assert run["config"]["modes"] == ["persistent"], run["config"]  # no --mode: the file's session pattern
    listed = run["servers"]["everything"]["measurements"]
    assert [m for m in listed if "." not in m] == ["persistent-2vu-r1"], listed
    assert ran.read_text().count("reset") == len(listed)  # before every start
    assert (run_dir / "everything" / "persistent-2vu-r1" / "setup.log").read_text().startswith("$ echo reset")
    failing = tmp_path / "f.toml"
    failing.write_text('setup = "echo no database here >&2; exit 4"\n' + WORKLOAD.read_text())
    code, out = run_in(everything, "--command", f"node {SERVER_JS} streamableHttp", "--name", "everything",
                       "--workload", str(failing), "--mode", "persistent", "--vus", "2", *SHORT,
                       "--results-dir", str(tmp_path / "failing"))
    flat = " ".join(out.split())
    assert code == 1 and "failed in setup" in flat and "exited 4" in flat and "Traceback" not in out, out
    assert not leftovers("server-everything/dist")

"""End-to-end over the stdio transport: the real CLI drives real servers' [stdio] commands with the stdio
driver, under the same limits, beside their HTTP stateless mode; a server without [stdio] is listed, not
failed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpbench.host.paths import SERVERS_DIR

from test_smoke_run import BRIEF, leftovers, mcpbench, only_run
from mcpbench.results.read import read_json, read_samples

pytestmark = pytest.mark.e2e


def servers_dir(root: Path) -> Path:
    """go and python as they are, plus `httponly`: a manifest without [stdio] (never started here)."""
    servers = root / "servers"
    servers.mkdir()
    for name in ("go", "python"):
        (servers / name).symlink_to(SERVERS_DIR / name)
    (servers / "httponly").mkdir()
    (servers / "httponly" / "mcpbench.toml").write_text(
        '[server]\ndisplay_name = "HTTP only"\nlanguage = "bash"\nruntime = "bash"\nsdk = "none"\n'
        'sdk_version = "-"\n[build]\ncommand = "true"\n[run]\ncommand = ["false"]\n')
    return servers


def test_stdio_beside_http_stateless_and_a_server_without_stdio_is_unavailable(tmp_path: Path) -> None:
    servers = servers_dir(tmp_path)
    results = tmp_path / "results"
    # A relative --results-dir (as scripts/bench.sh gives): the stdio driver, run in the server's directory, is
    # still handed paths it can open.
    proc = mcpbench("run", "go", "python", "--servers-dir", str(servers), "--mode", "stateless,stdio",
                    *BRIEF, "--results-dir", "results", cwd=tmp_path)
    out, _ = proc.communicate(timeout=900)
    run_dir = only_run(results)
    run = json.loads((run_dir / "run.json").read_text())
    assert run["status"] == "complete", out
    for name in ("go", "python"):
        assert run["servers"][name]["status"] == "ok", (name, run["servers"][name], out)
        summary = read_json(run_dir / name / "stdio-5vu-r1" / "summary.json")
        assert summary["mode"] == "stdio" and summary["status"] == "ok", summary
        assert summary["errors"]["count"] == 0 and summary["throughput"]["tool_calls_per_s"] > 20
        assert "cgroup-not-applied" not in summary["flags"]  # the stdio server ran in its cgroup
        assert summary["resources"]["server"]["cpu_avg_pct"] > 0
        # the driver's own usage is the harness's, without the server's (its child)
        assert summary["resources"]["loadgen"]["cpu_avg_pct"] < summary["resources"]["server"]["cpu_avg_pct"] * 3
        counts = read_json(run_dir / name / "stdio-5vu-r1" / "loadgen-counts.json")
        assert counts["calls"] > 0 and counts["driver_cpu_s"] > 0 and 0 < counts["startup_s"] < 30
        assert summary["startup_s"] == counts["startup_s"]
        samples = read_samples(run_dir / name / "stdio-5vu-r1" / "samples.csv.gz")
        assert samples["http_ms"].fillna("").eq("").all()  # no HTTP on stdio
        assert (run_dir / name / "stateless-5vu-r1" / "summary.json").is_file()
    assert "Traceback" not in out
    assert not leftovers(str(tmp_path))

    other = tmp_path / "other"
    proc = mcpbench("run", "httponly", "--servers-dir", str(servers), "--transport", "stdio", *BRIEF,
                    "--results-dir", str(other))
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, out  # unavailable is said, not a failure of the run
    server = json.loads((only_run(other) / "run.json").read_text())["servers"]["httponly"]
    assert server["status"] == "unavailable" and server["phase"] == "transport", server
    assert "no [stdio] command" in server["reason"] and "no [stdio] command" in out

"""`mcpbench dimension` end to end (issue 37), on a real server: every point a twin started with its contract
settings, verified against the reference answers, loaded with calls whose replies are checked, recorded with its
point, and shown on the report's Dimensions page with every point and the change from the first."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from test_smoke_run import SERVER, leftovers, mcpbench, only_run

pytestmark = pytest.mark.e2e

SHORT = ["--quick", "--rounds", "3", "--ramp-up", "1", "--warmup", "1", "--duration", "2", "--ramp-down", "0",
         "--no-calibrate"]


def dimension_run(tmp_path: Path, *args: str) -> tuple[Path, dict]:
    """`mcpbench dimension ARGS` into tmp_path/r, which must succeed and leave nothing running: its directory
    and its run.json."""
    proc = mcpbench("dimension", *args, "--results-dir", str(tmp_path / "r"))
    out, _ = proc.communicate(timeout=900)
    assert proc.returncode == 0, out[-3000:]
    run_dir = only_run(tmp_path / "r")
    assert not leftovers(str(tmp_path)), "a process of the run is still running"
    return run_dir, json.loads((run_dir / "run.json").read_text())


def reported(run_dir: Path, tmp_path: Path) -> Path:
    """The report of the run, which must build: its site directory."""
    site = tmp_path / "site"
    report = mcpbench("report", str(run_dir), "--out", str(site))
    text, _ = report.communicate(timeout=300)
    assert report.returncode == 0, text[-2000:]
    return site


def test_the_payload_dimension_measures_every_size_as_a_twin_and_reports_it(tmp_path: Path) -> None:
    # two of the four sizes (--points), the smallest and one the load driver reads slowly: CI's time
    run_dir, run = dimension_run(tmp_path, "--dimension", "payload", SERVER, *SHORT, "--points", "1kib,1mib")
    assert run["config"]["dimension"]["points"] == ["1 KiB", "1 MiB"]
    assert run["config"]["modes"] == ["persistent"] and run["config"]["vus"] == [10]
    twins = [f"{SERVER}-{label}" for label in ("1kib", "1mib")]
    assert [name for name in run["servers"]] == twins
    for name in twins:
        record = run["servers"][name]
        assert record["status"] == "ok", record
        verify = json.loads((run_dir / name / "verify.json").read_text())
        # a server whose SDK runs a cancelled call on is warned of it, measured (the cancellation dimension)
        assert {c["name"] for c in verify["checks"] if c["status"] != "pass"} <= {"cancellation"}, verify
        # the payload twins list the three tools and the dimension tools, in one page (docs/workload.md §6)
        assert verify["tools_list"]["tools"] == 6 and verify["tools_list"]["pages"] == 1, verify["tools_list"]
        measurements = sorted(path for path in (run_dir / name).glob("persistent-10vu-r*/summary.json")
                              if path.parent.name.rsplit("-r", 1)[1].isdigit())  # not one the host disturbed
        assert len(measurements) == 3, measurements
        for path in measurements:
            summary = json.loads(path.read_text())
            assert summary["errors"]["count"] == 0 and summary["throughput"]["successful_tool_calls"] > 0, path
    with gzip.open(next((run_dir / twins[1]).glob("persistent-10vu-r1/samples.csv.gz")), "rt") as handle:
        header, first = handle.readline(), handle.readline()
    assert header.startswith("t_s,vu,tool") and ",echo_payload,1," in first  # checked and ok under load
    site = reported(run_dir, tmp_path)
    page = (site / "dimensions.html").read_text()
    for point in ("1 KiB", "1 MiB", "Change from 1 KiB"):
        assert f">{point}<" in page or point in page, point
    assert "payload — fastest at large replies" in page
    # the decision page asks the dimension's question of its largest point, among that point's twins only
    decision = (site / "decision.html").read_text()
    assert "Most 1 MiB replies per CPU-second" in decision


def test_the_sessions_dimension_holds_sessions_and_reports_memory_per_session(tmp_path: Path) -> None:
    # 1 and 20 held sessions, each calling every second (the preset's 1, 100, 1,000 and 5 s, made short)
    # calibrated: the limit its calls/s is judged against is the load model's
    calibrated = [arg for arg in SHORT if arg != "--no-calibrate"]
    run_dir, run = dimension_run(tmp_path, "--dimension", "sessions", SERVER, *calibrated, "--vus", "1,20",
                                 "--think", "1")
    assert run["config"]["dimension"]["name"] == "sessions" and run["config"]["vus"] == [1, 20]
    assert run["config"]["modes"] == ["persistent"] and run["servers"][SERVER]["status"] == "ok"
    verify = json.loads((run_dir / SERVER / "verify.json").read_text())
    assert verify["status"] == "pass" and len(verify["checks"]) > 5  # the whole contract, not the one call
    for vus in (1, 20):
        measurements = [p for p in (run_dir / SERVER).glob(f"persistent-{vus}vu-r*/summary.json")
                        if p.parent.name.rsplit("-r", 1)[1].isdigit()]
        assert len(measurements) == 3, measurements
        for path in measurements:
            summary = json.loads(path.read_text())
            # a VU waiting its think time is no idle generator: the measurement stands
            assert summary["status"] == "ok" and summary["checks"]["problems"] == [], (path, summary["checks"])
            assert summary["errors"]["count"] == 0 and summary["throughput"]["successful_tool_calls"] > 0, path
            # its calls/s is what N sessions calling every second allow: the load model's, never ranked
            assert summary["limit"]["tool_calls_per_s"] == pytest.approx(vus / 1.0), path
            assert "bound:load-model" in summary["flags"], (path, summary["flags"])
    with gzip.open(next((run_dir / SERVER).glob("persistent-20vu-r1/samples.csv.gz")), "rt") as handle:
        handle.readline()
        tools = {line.split(",")[2] for line in handle}
    assert tools == {"get_user_cart"}  # the held sessions' keep-alive, nothing else
    site = reported(run_dir, tmp_path)
    page = (site / "dimensions.html").read_text()
    assert "sessions — smallest memory holding open sessions" in page and "Memory per open session" in page
    assert page.index("persistent · 1 VUs") < page.index("persistent · 20 VUs")  # by level, not as text sorts
    assert "Smallest memory holding open sessions (persistent · 20 VUs)" in (site / "decision.html").read_text()


def test_the_progress_dimension_counts_every_notification_and_times_the_first(tmp_path: Path) -> None:
    run_dir, run = dimension_run(tmp_path, "--dimension", "progress", SERVER, *SHORT)
    assert run["config"]["dimension"]["points"] == ["1 notification", "100 notifications"]
    for label in ("progress1", "progress100"):
        name = f"{SERVER}-{label}"
        assert run["servers"][name]["status"] == "ok", run["servers"][name]
        verify = json.loads((run_dir / name / "verify.json").read_text())
        stream = next(c for c in verify["checks"] if c["name"] == "stream_progress")
        assert stream["status"] == "pass", stream
        measurements = [p for p in (run_dir / name).glob("persistent-10vu-r*/summary.json")
                        if p.parent.name.rsplit("-r", 1)[1].isdigit()]
        assert len(measurements) == 3, measurements
        for path in measurements:
            summary = json.loads(path.read_text())
            # every call had all its notifications before its result (else progress_missing), the first one timed
            assert summary["errors"]["count"] == 0 and summary["throughput"]["successful_tool_calls"] > 0, path
            first = summary["latency_ms"]["first_progress"]
            assert first["count"] == summary["latency_ms"]["tool_call"]["count"], path
            assert 0 < first["p50"] <= summary["latency_ms"]["tool_call"]["p50"], path
    site = reported(run_dir, tmp_path)
    page = (site / "dimensions.html").read_text()
    assert "progress — cheapest streamed progress" in page and "What one progress notification costs" in page
    assert "first notification p50 ms" in page
    assert "Most streamed calls per CPU-second (100 notifications each)" in (site / "decision.html").read_text()


def test_a_paged_tools_list_is_followed_by_the_load_and_ranked(tmp_path: Path) -> None:
    # The Go SDK pages tools/list at 1,000 tools (servers/go/README.md): at 1,000 extra tools its 1,003 come in
    # two pages. The load follows result.nextCursor, so its tools/list is the whole list, as every other server's.
    one_round = [*SHORT[:SHORT.index("--rounds")], "--rounds", "1", *SHORT[SHORT.index("--rounds") + 2:]]
    run_dir, run = dimension_run(tmp_path, "--dimension", "tools-list", "go", *one_round, "--points", "tools1000")
    name = "go-tools1000"
    assert run["servers"][name]["status"] == "ok", run["servers"][name]
    listed = json.loads((run_dir / name / "verify.json").read_text())["tools_list"]
    assert listed["tools"] == 1003 and listed["pages"] == 2, listed
    measurement = run_dir / name / "persistent-10vu-r1"
    summary = json.loads((measurement / "summary.json").read_text())
    assert summary["status"] == "ok" and summary["errors"]["count"] == 0, summary["errors"]
    assert summary["checks"]["problems"] == [], summary["checks"]
    with gzip.open(measurement / "samples.csv.gz", "rt") as samples:
        lists = sum(1 for line in samples if ",tools/list,1," in line)
    # every list fetched its second page (one may be cut short at the end: in flight when the load stopped)
    assert lists > 0 and 0 <= summary["checks"]["loadgen_cursor_pages"] - lists <= 10, (lists, summary["checks"])
    assert summary["latency_ms"]["steps"]["tools/list"]["count"] > 0
    page = (reported(run_dir, tmp_path) / "dimensions.html").read_text()
    assert "1,000 extra tools" in page and "not ranked: tools/list came in" not in page


def test_the_abandoned_dimension_leaves_sessions_open_and_watches_what_is_kept(tmp_path: Path) -> None:
    # the preset's 30 s of abandonment and 60 s of watching, made short; each server as its SESSIONS=1 twin, and
    # micronaut, whose manifest says its SDK has no stateful HTTP transport, listed with that reason
    stages = "1s:5,6s:5,1s:0,6s:0"
    run_dir, run = dimension_run(tmp_path, "--dimension", "abandoned", SERVER, "python", "micronaut", "--quick",
                                 "--no-calibrate", "--stages", stages)
    assert run["config"]["dimension"]["name"] == "abandoned" and run["config"]["modes"] == ["session"]
    assert run["config"]["kind"] == "staged" and run["config"]["processes"] is True
    assert run["servers"]["micronaut-sessions"]["status"] == "unavailable", run["servers"]["micronaut-sessions"]
    assert ("SESSIONS=1 does not switch its sessions on: micronaut-mcp"
            in run["servers"]["micronaut-sessions"]["reason"])
    assert not (run_dir / "micronaut-sessions" / "build.json").exists()  # listed, never built
    for server in (f"{SERVER}-sessions", "python-sessions"):
        assert run["servers"][server]["status"] == "ok", run["servers"][server]
        verify = json.loads((run_dir / server / "verify.json").read_text())
        assert "session id issued" in next(c["reason"] for c in verify["checks"] if c["name"] == "initialize")
        measurement = next((run_dir / server).glob("session-staged-*-r1"))
        summary = json.loads((measurement / "summary.json").read_text())
        assert summary["status"] == "ok" and summary["errors"]["count"] == 0, (server, summary.get("reason"))
        with gzip.open(measurement / "samples.csv.gz", "rt") as handle:
            header = handle.readline().strip().split(",")
            http_ms = [dict(zip(header, line.strip().split(","), strict=False))["http_ms"] for line in handle]
        # initialize, notifications/initialized and the call: never a DELETE
        assert http_ms and all(len(entry.split(";")) == 3 for entry in http_ms), http_ms[:5]
        counts = json.loads((measurement / "context.json").read_text())["loadgen_counts"]
        assert counts["sessions_left_open"] == len(http_ms), counts  # every session the server issued, left open
        assert counts["oldest_session_status"] == 200, counts  # the first one still answered after the watch
        processes = (measurement / "processes.csv").read_text().splitlines()
        assert processes[0].split(",")[-2:] == ["tcp", "close_wait"] and len(processes) > 10, processes[:3]
        # read after the last session too: the watch
        assert float(processes[-1].split(",")[0]) > 8.0, processes[-1]
    site = reported(run_dir, tmp_path)
    page = (site / "dimensions.html").read_text()
    assert "Frees abandoned sessions" in (site / "decision.html").read_text()
    table = page[page.index("What each server kept of abandoned sessions"):]
    assert all(f"<tr><td>{server}-sessions</td>" in table for server in (SERVER, "python")), table[:3000]
    assert table.count("still held: the first session answered after ") == 2, table[:3000]


def test_the_cancellation_dimension_reads_what_each_server_did_after_the_client_gave_up(tmp_path: Path) -> None:
    # the point without a session: each client closes its call's stream 225 ms in. The baseline's handler ends with
    # its request's context; the Python SDK answers JSON and never watches the client go, so its calls run on.
    run_dir, run = dimension_run(tmp_path, "--dimension", "cancellation", "baseline", "python", "--points", "closed",
                                 *SHORT[:1], "--rounds", "1", "--warmup", "1", "--duration", "4", "--no-calibrate")
    assert run["config"]["dimension"]["name"] == "cancellation" and run["config"]["modes"] == ["persistent"]
    after = {}
    for server in ("baseline-closed", "python-closed"):
        assert run["servers"][server]["status"] == "ok", run["servers"][server]
        verify = {c["name"]: c for c in json.loads((run_dir / server / "verify.json").read_text())["checks"]}
        assert verify["stepped_work"]["status"] == "pass", verify["stepped_work"]
        measurement = next((run_dir / server).glob("persistent-*-r1"))
        summary = json.loads((measurement / "summary.json").read_text())
        assert summary["status"] == "ok" and summary["errors"]["count"] == 0, (server, summary.get("reason"))
        counts = json.loads((measurement / "context.json").read_text())["loadgen_counts"]
        assert counts["cancelled_by_close"] > 20 and counts["cancelled_by_notice"] == 0, counts
        assert "cancel_replies" not in counts and "work_unread" not in counts, counts  # a closed stream brings none
        # 225 ms of 50 ms steps: five written before each cancellation
        assert 4.0 <= counts["steps_before_cancel"] / counts["cancelled_by_close"] <= 6.0, counts
        after[server] = counts["steps_after_cancel"] / counts["cancelled_by_close"]
    assert after["baseline-closed"] <= 1.0 and after["python-closed"] >= 10.0, after
    site = reported(run_dir, tmp_path)
    page = (site / "dimensions.html").read_text()
    table = page[page.index("What each server did for cancelled calls"):]
    assert table.index("<td>baseline-closed</td>") < table.index("<td>python-closed</td>"), table[:3000]
    assert "stopped: 0.0 steps after each cancellation" in table and "ran on: " in table, table[:3000]
    decision = (site / "decision.html").read_text()
    assert "Stops work when a call is cancelled" in decision and "ran on: python-closed" in decision


def test_the_surface_dimension_measures_a_method_per_point_and_lists_an_sdk_without_it(tmp_path: Path) -> None:
    # completion/complete alone, as a user typing a prefix: go's SDK answers it; kotlin's has no completion API, which
    # its manifest says (unsupported.completion), so that point lists it with the reason and never starts it.
    run_dir, run = dimension_run(tmp_path, "--dimension", "surface", "go", "kotlin", "--points", "complete",
                                 *SHORT[:1], "--rounds", "1", "--warmup", "1", "--duration", "3", "--no-calibrate")
    plan = run["config"]["dimension"]
    assert plan["points"] == ["completion/complete user_id"] and run["config"]["vus"] == [1]
    # the second question's point is the only one measured: asked there (the first, at resource reads, is not)
    assert [d["question"] for d in plan["decisions"]] == ["Lowest completion latency"]
    kotlin = run["servers"]["kotlin-complete"]
    assert kotlin["status"] == "unavailable" and "has no completion API" in kotlin["reason"], kotlin
    assert run["servers"]["go-complete"]["status"] == "ok", run["servers"]["go-complete"]
    verify = {c["name"]: c["status"] for c in json.loads((run_dir / "go-complete" / "verify.json").read_text())["checks"]}
    assert verify["completion/complete user-0012"] == verify["prompts/get"] == "pass", verify
    summary = json.loads((next((run_dir / "go-complete").glob("persistent-*-r1")) / "summary.json").read_text())
    assert summary["status"] == "ok" and summary["errors"]["count"] == 0, summary.get("reason")
    per_method = summary["latency_ms"]["per_tool"]
    assert list(per_method) == ["completion/complete"] and per_method["completion/complete"]["count"] > 300
    decision = (reported(run_dir, tmp_path) / "decision.html").read_text()
    assert "Lowest completion latency" in decision

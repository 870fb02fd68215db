"""The load driver (benchmark/load-driver) over the stdio transport, against real processes: small scripted stdio servers for its
failure cases and its wire format, and the Go reference server's stdio mode against real Redis and the
API service for the happy path."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from analysis_helpers import context, summarize
from mcpbench.loads.timing import Timing
from mcpbench.loadgen import GENERATORS, LoadError, StdioLaunch, Tick, driver as driver_module
from mcpbench.loadgen.driver import LoadDriver, ensure_built
from mcpbench.catalog.manifest import discover
from mcpbench.results.layout import MeasurementDir
from mcpbench.results.model import COUNTS_FILE, Context, LoadgenCounts, document
from mcpbench.results.read import read_samples
from mcpbench.host.paths import SERVERS_DIR
from mcpbench.runtime.local_infra import Infra
from mcpbench.loads import ClosedLoad, OpenLoad
from mcpbench.host.toolchain import which
from mcpbench.workload.file import Workload, lineup

TOOLS = ("search_products", "get_user_cart", "checkout")

# A scripted stdio MCP server: argv[1] is its behaviour as JSON. Replies go out in the order requests
# arrive, one line each; `init` is how it meets initialize (ok, silent, exit), `tools` maps a tool (or
# tools/list) to how it answers (ok, is_error, rpc_error, no_result, bad_payload, silent), `noise` writes
# garbage and a notification first, `exit_after` exits with code 9 after that many tool calls, `stubborn`
# ignores SIGTERM and stays after its stdin closes, `record` appends every request line to a file.
STAND_IN = r'''
import json, signal, sys, time
conf = json.loads(sys.argv[1])
PAYLOADS = {
    "search_products": {"category": "Electronics", "total_found": 2251,
                        "products": [{"id": i, "name": "x"} for i in range(10)], "top10_popular_ids": list(range(10))},
    "get_user_cart": {"user_id": "u", "cart": {"items": [{"product_id": 1}]}, "recent_history": [{}] * 5},
    "checkout": {"status": "confirmed", "total": 12.5, "items_count": 2},
}
if conf.get("stubborn"):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
record = open(conf["record"], "a") if conf.get("record") else None
out = sys.stdout
def send(message):
    out.write(json.dumps(message) + "\n")
    out.flush()
def result(name, how):
    if how == "is_error":
        return {"content": [{"type": "text", "text": "no"}], "isError": True}
    if how == "bad_payload":
        return {"content": [{"type": "text", "text": json.dumps({"status": "failed"})}]}
    if name == "tools/list":
        return {"tools": [{"name": t} for t in PAYLOADS]}
    return {"content": [{"type": "text", "text": json.dumps(PAYLOADS[name])}], "structuredContent": PAYLOADS[name]}
calls = 0
for line in sys.stdin:
    if record:
        record.write(line)
        record.flush()
    msg = json.loads(line)
    method = msg.get("method")
    if method == "initialize":
        if conf.get("init") == "silent":
            continue
        if conf.get("init") == "exit":
            sys.exit(7)
        if conf.get("noise"):
            out.write("starting up, listening on stdio\n")
            send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "id": 1}})
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {
            "protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
            "serverInfo": {"name": "stand-in", "version": "1"}}})
        continue
    if "id" not in msg:
        continue
    name = msg["params"]["name"] if method == "tools/call" else method
    how = conf.get("tools", {}).get(name, "ok")
    if method == "tools/call":
        calls += 1
        if calls > conf.get("exit_after", 1 << 60):
            sys.exit(9)
    if how == "silent":
        continue
    if how == "rpc_error":
        send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32603, "message": "boom"}})
    elif how == "no_result":
        send({"jsonrpc": "2.0", "id": msg["id"]})
    else:
        if conf.get("noise"):
            out.write("not json {\n")
        send({"jsonrpc": "2.0", "id": msg["id"], "result": result(name, how)})
if conf.get("stubborn"):
    time.sleep(300)
'''


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not which("go"):
        pytest.skip("go is not installed: the load driver cannot be built")
    return ensure_built(tmp_path_factory.mktemp("build") / "load-driver.log")


@pytest.fixture
def stand_in(tmp_path: Path) -> Path:
    path = tmp_path / "stand_in.py"
    path.write_text(STAND_IN)
    return path


def _alive(marker: str) -> list[psutil.Process]:
    """Processes whose command line holds `marker` (a test's own tmp path): none may outlive a test."""
    found = []
    for process in psutil.process_iter(["cmdline", "status"]):
        try:
            cmdline = process.info["cmdline"] or ()
            if process.info["status"] != psutil.STATUS_ZOMBIE and any(marker in part for part in cmdline):
                found.append(process)
        except psutil.Error:
            pass
    return found


def _run_driver(driver: Path, out_dir: Path, server: list[str], *options: str, vus: int = 2,
                duration_s: float = 1.5, interrupt_after_s: float | None = None,
                workload: Workload | None = None) -> tuple[int, str, dict, Path]:
    """The driver binary run directly (the lineup's workload unless given): its exit code, stderr, counts, and
    the sample file."""
    samples, counts = out_dir / "samples.log", out_dir / "counts.json"
    argv = [str(driver), "--mode", "stdio", "--model", "closed", "--stages", f"0s:{vus},{duration_s:g}s:{vus}",
            "--workload", (workload or lineup()).driver_json(), "--think-time-s", "0.01", "--timeout-s", "2",
            "--checks", "on", "--samples", str(samples), "--counts", str(counts),
            "--server-log", str(out_dir / "server.log"), *options, "--", *server]
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        if interrupt_after_s is not None:
            time.sleep(interrupt_after_s)
            process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    for marker in (str(out_dir), *(part for part in server if part.endswith(".py"))):
        assert not _alive(marker), "a process outlived the driver"
    return process.returncode, stderr, json.loads(counts.read_text()), samples


def _lines(samples: Path, prefix: str = "S,") -> list[list[str]]:
    return [line.rstrip("\n").split(",") for line in samples.read_text().splitlines(True) if line.startswith(prefix)]


def _server(stand_in: Path, **behaviour) -> list[str]:
    return [sys.executable, str(stand_in), json.dumps(behaviour)]


def test_samples_and_counts_are_load_js_format(driver: Path, stand_in: Path, tmp_path: Path) -> None:
    record = tmp_path / "requests.log"
    code, stderr, counts, samples = _run_driver(driver, tmp_path, _server(stand_in, record=str(record)), vus=3)
    assert code == 0, stderr
    starts = _lines(samples, "T,")
    assert len(starts) == 1 and abs(int(starts[0][1]) / 1000 - time.time()) < 30
    rows = _lines(samples)
    assert rows and all(len(row) == 9 for row in rows)
    assert {row[3] for row in rows} == {*TOOLS, "tools/list"}
    assert all(row[4] == "1" and row[5] == "" and row[8] == "" for row in rows), rows[:5]
    assert all(row[6] == row[7] and float(row[6]) >= 0 for row in rows)
    assert {row[2] for row in rows} == {"1", "2", "3"}
    for vu in ("1", "2", "3"):  # each VU runs the closed iteration in order
        tools = [row[3] for row in rows if row[2] == vu]
        assert tools[:8] == [*TOOLS, "tools/list", *TOOLS, "tools/list"]
    assert counts["calls"] == len(rows)
    assert counts["iterations"] == sum(row[3] == "tools/list" for row in rows)
    assert counts["http_reqs"] == 0 and counts["dropped_iterations"] == 0 and counts["error"] is None
    assert counts["driver_cpu_s"] > 0 and 0 < counts["startup_s"] < 10
    assert LoadgenCounts.model_validate(counts)  # what the results format accepts
    # The server sees load.js's bytes: the same bodies, ids unique over the session.
    sent = [json.loads(line) for line in record.read_text().splitlines()]
    # the same revision as the HTTP modes (issue 18: the transport ratio compared two revisions)
    assert sent[0]["method"] == "initialize" and sent[0]["params"]["protocolVersion"] == "2024-11-05"
    assert sent[0]["params"]["clientInfo"]["name"] == "mcpbench-load-driver"
    assert sent[1] == {"jsonrpc": "2.0", "method": "notifications/initialized"}
    ids = [message["id"] for message in sent if "id" in message]
    assert len(ids) == len(set(ids))
    raw = record.read_text().splitlines()
    assert any(line.startswith('{"jsonrpc":"2.0","method":"tools/call","params":{"name":"checkout","arguments":'
                               '{"user_id":"user-00002","items":[{"product_id":42,"quantity":2},'
                               '{"product_id":1337,"quantity":1}]}},"id":') for line in raw)
    assert any(line.startswith('{"jsonrpc":"2.0","method":"tools/call","params":{"name":"search_products",'
                               '"arguments":{"category":"Electronics","min_price":50,"max_price":500,"limit":10}},'
                               '"id":') for line in raw)


def test_each_failure_gets_load_js_error_kind(driver: Path, stand_in: Path, tmp_path: Path) -> None:
    first = _server(stand_in, tools={"search_products": "is_error", "get_user_cart": "rpc_error",
                                     "checkout": "bad_payload", "tools/list": "no_result"})
    (tmp_path / "a").mkdir()
    code, stderr, _, samples = _run_driver(driver, tmp_path / "a", first)
    assert code == 0, stderr
    kinds: dict[str, set[tuple[str, str]]] = {}
    for row in _lines(samples):
        kinds.setdefault(row[3], set()).add((row[4], row[5]))
    assert kinds == {"search_products": {("0", "tool_error")}, "get_user_cart": {("0", "jsonrpc_-32603")},
                     "checkout": {("0", "check_failed")}, "tools/list": {("0", "bad_response")}}
    (tmp_path / "b").mkdir()
    code, stderr, _, samples = _run_driver(driver, tmp_path / "b", _server(stand_in, tools={"checkout": "silent"}),
                                           "--timeout-s", "0.3", vus=1, duration_s=1.2)
    assert code == 0, stderr
    timeouts = [row for row in _lines(samples) if row[3] == "checkout"]
    assert timeouts and all(row[5] == "timeout" and 290 <= float(row[6]) < 1500 for row in timeouts)


def test_garbage_and_server_messages_are_counted_not_fatal(driver: Path, stand_in: Path, tmp_path: Path) -> None:
    code, stderr, counts, samples = _run_driver(driver, tmp_path, _server(stand_in, noise=True), vus=1)
    assert code == 0, stderr
    rows = _lines(samples)
    assert rows and all(row[4] == "1" for row in rows)
    assert counts["garbage_lines"] == 1 + len(rows)  # one at start-up, one before every reply
    assert counts["server_messages"] == 1
    assert "starting up, listening on stdio" in stderr and stderr.count("no JSON-RPC message") == 5  # the first few


def test_a_server_that_exits_mid_test_ends_it_with_exit_4(driver: Path, stand_in: Path, tmp_path: Path) -> None:
    code, stderr, counts, samples = _run_driver(driver, tmp_path, _server(stand_in, exit_after=20), vus=3,
                                                duration_s=20)
    assert code == 4
    assert stderr.strip().splitlines()[-1] == "the server exited during the test (exit 9)"
    assert counts["error"] == "the server exited during the test (exit 9)"
    rows = _lines(samples)
    assert sum(row[4] == "1" for row in rows) >= 19
    # the call that killed it and the other VUs' calls then in flight: nothing issued after
    assert 1 <= sum(row[5] == "server_exited" for row in rows) <= 3
    assert counts["calls"] == len(rows)


def test_a_server_that_never_answers_initialize_is_killed_with_exit_3(driver: Path, stand_in: Path,
                                                                      tmp_path: Path) -> None:
    started = time.monotonic()
    code, stderr, counts, samples = _run_driver(driver, tmp_path, _server(stand_in, init="silent", stubborn=True),
                                                "--init-timeout-s", "1")
    assert code == 3
    assert stderr.strip() == "the server did not answer initialize within 1 s"
    assert counts["error"] == "the server did not answer initialize within 1 s" and counts["startup_s"] is None
    assert not _lines(samples, "T,") and not _lines(samples)
    assert time.monotonic() - started < 1 + 3 + 2 + 3  # init timeout, stdin closed, SIGTERM ignored, SIGKILL


@pytest.mark.parametrize("at_once", [False, True], ids=["on-initialize", "at-once"])
def test_a_server_that_exits_during_start_up_is_reported(driver: Path, stand_in: Path, tmp_path: Path,
                                                         at_once: bool) -> None:
    # at once: before the driver has even sent initialize (its stdout is closed by then)
    server = [sys.executable, "-c", "import sys; sys.exit(7)"] if at_once else _server(stand_in, init="exit")
    started = time.monotonic()
    code, stderr, counts, _ = _run_driver(driver, tmp_path, server)
    assert code == 3 and time.monotonic() - started < 10  # not the initialize timeout
    assert stderr.strip() == "the server exited during start-up (exit 7)"
    assert counts["error"] == "the server exited during start-up (exit 7)"


def test_sigint_stops_gracefully_and_takes_a_stubborn_server_down(driver: Path, stand_in: Path,
                                                                 tmp_path: Path) -> None:
    started = time.monotonic()
    code, stderr, counts, samples = _run_driver(driver, tmp_path, _server(stand_in, stubborn=True), vus=2,
                                                duration_s=60, interrupt_after_s=1.5)
    assert code == 0, stderr
    assert time.monotonic() - started < 1.5 + 1 + 3 + 2 + 3  # stdin closed, SIGTERM ignored, SIGKILL
    rows = _lines(samples)
    assert rows and all(row[4] == "1" for row in rows)
    assert counts["calls"] == len(rows) and counts["error"] is None


def test_bad_arguments_exit_2(driver: Path, tmp_path: Path) -> None:
    for argv, said in ((["--mode", "stdio", "--stages", "1s:0", "--", "true"],
                        "--stages: the closed model needs a stage with at least 1 VU"),
                       (["--stages", "1s:1"], '--mode "": choose session, stateless, persistent, stateless-2026 or stdio'),
                       (["--mode", "stateless", "--model", "ramp", "--stages", "1s:1"],
                        '--model "ramp": choose closed or open'),
                       (["--mode", "stateless"], "--stages is required: duration:target pairs, e.g. 30s:10,60s:10,10s:0"),
                       (["--mode", "stateless", "--stages", "2m:10,3m"],
                        '--stages: stage 2 "3m" is not duration:target (e.g. 30s:10)'),
                       (["--mode", "stateless", "--stages", "2m:10,3m:-5"],
                        '--stages: stage 2 "3m:-5": the duration and the target cannot be negative'),
                       (["--mode", "stateless", "--stages", "0s:10"],
                        "--stages: the test must last (the stages' durations sum to 0)"),
                       (["--mode", "stateless", "--stages", "1s:2.5"],
                        "--stages: stage 1's target 2.5 is a VU count in the closed model: give a whole number"),
                       (["--mode", "session", "--stages", "1s:1", "--samples", "s", "--counts", "c"],
                        "the HTTP modes need --target URL and no command"),
                       (["--mode", "stateless", "--model", "open", "--stages", "1s:5"],
                        "the open model needs --vus >= 1, --max-vus >= --vus and a stage with a rate > 0"),
                       (["--mode", "stateless", "--stages", "1s:2", "--segment", "2/2"],
                        '--segment "2/2": give i/n with 0 <= i < n'),
                       (["--mode", "stateless", "--stages", "1s:1", "--samples", "s", "--counts", "c",
                         "--target", "http://127.0.0.1:9/mcp"],
                        "--workload is required (the orchestrator compiles it from a workload file)"),
                       (["--mode", "stateless", "--stages", "1s:1", "--samples", "s", "--counts", "c",
                         "--target", "http://127.0.0.1:9/mcp", "--workload", '{"calls":[]}'], "--workload: no calls")):
        done = subprocess.run([str(driver), *argv], capture_output=True, text=True, timeout=10, check=False)
        assert done.returncode == 2 and done.stderr.strip() == said, (argv, done.stderr)


def test_ensure_built_rebuilds_a_stale_binary(driver: Path, tmp_path: Path) -> None:
    os.utime(driver, (0, 0))  # older than every source
    assert ensure_built(tmp_path / "rebuild.log") == driver
    assert driver.stat().st_mtime > time.time() - 600


def test_a_failed_build_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not which("go"):
        pytest.skip("go is not installed")
    (tmp_path / "go.mod").write_text("module broken\n\ngo 1.26\n")
    (tmp_path / "main.go").write_text("package main\n\nfunc main() { undefined() }\n")
    monkeypatch.setattr(driver_module, "DRIVER_DIR", tmp_path)
    monkeypatch.setattr(driver_module, "DRIVER_BIN", tmp_path / "bin" / "load-driver")
    with pytest.raises(LoadError) as failure:
        driver_module.ensure_built(tmp_path / "build.log")
    message = str(failure.value)
    assert "\n" not in message and message.startswith("the load driver did not build: ./main.go:3:")
    assert "undefined" in message and str(tmp_path / "build.log") in message


# -- the orchestrator's side: LoadDriver over stdio ---------------------------------------------------------------------

TIMING = Timing(ramp_up_s=0.5, warmup_s=0.5, duration_s=2, ramp_down_s=0.5, warmup_cap_s=None, think_time_s=0.01)


def _launch(argv: list[str], tmp_path: Path, env: dict[str, str] | None = None) -> StdioLaunch:
    return StdioLaunch(argv=tuple(argv), env=env or {"PATH": os.environ["PATH"]}, cwd=tmp_path,
                       log_path=tmp_path / "server.log")


def _context(load: ClosedLoad, run, timing: Timing) -> Context:
    return context(mode=load.mode, kind=load.kind, vus=load.vus, rate=None, think_time_s=timing.think_time_s,
                   request_timeout_s=timing.request_timeout_s, loadgen_exit_code=run.exit_code,
                   loadgen_counts=run.counts, loadgen_run_s=run.run_s)


def test_the_load_driver_is_the_default_and_speaks_both_transports() -> None:
    generator = GENERATORS["driver"](None)
    assert isinstance(generator, LoadDriver) and generator.transports == frozenset({"http", "stdio"})
    # k6 speaks no stdio: a stdio mode asked of k6 goes to the driver
    from mcpbench.loadgen import DEFAULT, for_transport

    assert DEFAULT == "driver" and for_transport("k6", "stdio") == "driver" and for_transport("k6", "http") == "k6"


def test_the_driver_runs_a_stdio_test_that_the_analysis_accepts(driver: Path, stand_in: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    load = ClosedLoad("stdio", 3)
    pids: list[int] = []
    readings = []

    def on_start(started: list[int]) -> None:
        pids.extend(started)
        readings.append(LoadDriver(None).usage_reader(started))

    run = LoadDriver(None).run("", load, TIMING, MeasurementDir(out), on_start=on_start, launch=_launch(_server(stand_in), tmp_path))
    assert run.exit_code == 0 and not run.stopped_early
    assert run.samples["ok"].all() and set(run.samples["tool"]) == {*TOOLS, "tools/list"}
    assert run.counts is not None and run.counts.calls == len(run.samples)
    assert (out / "samples.csv.gz").exists() and not (out / "loadgen-samples.log").exists()
    assert len(read_samples(out / "samples.csv.gz")) == len(run.samples)
    assert json.loads((out / COUNTS_FILE).read_text()) == document(run.counts)
    summary = summarize(run.samples, TIMING.window, [], _context(load, run, TIMING))
    assert summary.checks.problems == [], summary.checks
    assert not _alive(str(tmp_path))
    assert len(pids) == 1 and readings[0]() is None  # the driver is gone, and so is its reading


def test_usage_reader_counts_the_driver_not_its_server(driver: Path, tmp_path: Path) -> None:
    # A "server" that burns CPU: the driver's reading must not include it.
    spinner = tmp_path / "spin.py"
    spinner.write_text("import time\nend = time.time() + 30\nwhile time.time() < end:\n    pass\n")
    process = subprocess.Popen([str(driver), "--mode", "stdio", "--model", "closed", "--stages", "0s:1,30s:1",
                                "--workload", lineup().driver_json(), "--init-timeout-s", "3",
                                "--samples", str(tmp_path / "s.log"), "--counts", str(tmp_path / "c.json"),
                                "--server-log", str(tmp_path / "server.log"), "--", sys.executable, str(spinner)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        read = LoadDriver(None).usage_reader([process.pid])
        first = read()
        time.sleep(1.5)
        second = read()
        assert first is not None and second is not None
        assert (second.cpu_ns - first.cpu_ns) / 1e9 < 0.3  # the spinning child used ~1.5 s meanwhile
    finally:
        process.wait(timeout=20)  # initialize times out after 3 s; the server is then killed
    assert process.returncode == 3
    assert not _alive(str(tmp_path))


def test_on_tick_stop_ends_the_test_as_a_normal_end(driver: Path, stand_in: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    long = Timing(ramp_up_s=0, warmup_s=0, duration_s=60, ramp_down_s=0, warmup_cap_s=None, think_time_s=0.01)
    seen = []

    def on_tick(elapsed: float, live) -> Tick:
        seen.append(sum(live.per_second))
        return Tick.STOP if elapsed > 2.5 else Tick.GO_ON

    started = time.monotonic()
    run = LoadDriver(None).run("", ClosedLoad("stdio", 2), long, MeasurementDir(out), on_tick=on_tick,
                                launch=_launch(_server(stand_in), tmp_path))
    assert time.monotonic() - started < 15
    assert run.stopped_early and run.exit_code == 0 and run.counts.error is None
    assert seen[-1] > 0  # the live samples were read while the test ran
    assert not _alive(str(tmp_path))


def test_a_driver_without_samples_fails_with_one_line(driver: Path, stand_in: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(LoadError) as failure:
        LoadDriver(None).run("", ClosedLoad("stdio", 1), TIMING, MeasurementDir(out),
                              launch=_launch(_server(stand_in, init="exit"), tmp_path))
    message = str(failure.value)
    assert "\n" not in message
    assert message.startswith("the load driver produced no samples (exit 3): "
                              "the server exited during start-up (exit 7)")


# -- the Go reference server's stdio mode, against real Redis and the API service ------------------------------

def _go_stdio_server():
    spec = next((s for s in discover(SERVERS_DIR).servers if s.name == "go"), None)
    if spec is None or not spec.serves_stdio:
        pytest.skip("servers/go has no [stdio] command in its manifest yet")
    binary = spec.directory / spec.stdio_command[0]
    if not binary.exists():
        pytest.skip(f"servers/go is not built ({binary}); `mcpbench build go`")
    return spec


@pytest.mark.integration  # a real server: run after the servers are built (scripts/test.sh)
def test_the_go_server_over_stdio_passes_every_check(driver: Path, infra: Infra, tmp_path: Path) -> None:
    spec = _go_stdio_server()
    infra.reset()
    env = {**os.environ, **(spec.stdio_env or {}), "REDIS_URL": infra.redis_url, "API_SERVICE_URL": infra.api_url,
           "SERVER_TYPE": spec.name, "CPU_LIMIT": "2", "MEMORY_LIMIT_MB": "2048"}
    launch = StdioLaunch(argv=spec.stdio_command, env=env, cwd=spec.directory, log_path=tmp_path / "server.log")
    out = tmp_path / "out"
    out.mkdir()
    load = ClosedLoad("stdio", 2)
    timing = Timing(ramp_up_s=0, warmup_s=1, duration_s=2, ramp_down_s=0, warmup_cap_s=None)
    run = LoadDriver(None).run("", load, timing, MeasurementDir(out), launch=launch)
    failed = run.samples[run.samples["ok"] == 0]
    assert failed.empty, failed["error_kind"].value_counts().to_dict()
    assert set(run.samples["tool"]) == {*TOOLS, "tools/list"}
    assert run.counts.garbage_lines == 0 and run.counts.error is None
    summary = summarize(run.samples, timing.window, [], _context(load, run, timing))
    assert summary.checks.problems == [], summary.checks
    assert summary.checks.loadgen_iterations == summary.checks.sample_iterations
    assert not _alive(str(tmp_path))


def test_a_workload_file_is_what_the_driver_sends(driver: Path, stand_in: Path, tmp_path: Path) -> None:
    """Another workload than the lineup's: its calls in the file's order, each `weight` times, the
    placeholders put in per VU and per iteration, its checks made on the reply (here a failing one)."""
    spec = tmp_path / "mine.toml"
    spec.write_text('[[call]]\ntool = "checkout"\nname = "buy"\nweight = 2\n'
                    'arguments = { user_id = "vu-{vu}", note = "it {iteration%2}" }\n'
                    '[[call.check]]\npointer = "/items_count"\nequals = 2\n\n'
                    '[[call]]\ntool = "get_user_cart"\narguments = { user_id = "u{vu%2:03}" }\n'
                    '[[call.check]]\npointer = "/cart/items/0/product_id"\nequals = 7\n')
    record = tmp_path / "requests.log"
    code, stderr, _, samples = _run_driver(driver, tmp_path, _server(stand_in, record=str(record)), vus=3,
                                           workload=Workload.read(spec))
    assert code == 0, stderr
    rows = _lines(samples)
    first_vu = [row[3] for row in rows if row[2] == "1"]
    assert first_vu[:6] == ["buy", "buy", "get_user_cart"] * 2
    verdicts = {(row[3], row[4], row[5]) for row in rows}
    assert verdicts == {("buy", "1", ""), ("get_user_cart", "0", "check_failed")}  # product 1, not 7
    sent = [json.loads(line) for line in record.read_text().splitlines() if '"tools/call"' in line]
    arguments = {(m["params"]["name"], json.dumps(m["params"]["arguments"], sort_keys=True)) for m in sent}
    assert ("checkout", json.dumps({"note": "it 0", "user_id": "vu-3"}, sort_keys=True)) in arguments
    assert ("checkout", json.dumps({"note": "it 1", "user_id": "vu-3"}, sort_keys=True)) in arguments
    assert ("get_user_cart", json.dumps({"user_id": "u001"}, sort_keys=True)) in arguments  # VU 3: (3-1)%2+1
    assert ("get_user_cart", json.dumps({"user_id": "u002"}, sort_keys=True)) in arguments  # VU 2


def test_the_driver_accepts_the_seed_profile_and_follows_its_first_stage(driver: Path, stand_in: Path,
                                                                         tmp_path: Path) -> None:
    # seed 004's 17-minute profile, stopped 13 s in: 10 VUs over 2 minutes bring the first VU at 12 s, no other
    code, stderr, counts, samples = _run_driver(driver, tmp_path, _server(stand_in), "--stages",
                                                "2m:10,3m:25,10m:50,2m:0", interrupt_after_s=13)
    assert code == 0 and counts["error"] is None, stderr
    rows = _lines(samples)
    assert rows and {row[2] for row in rows} == {"1"}
    assert min(float(row[1]) for row in rows) >= 12.0


def test_a_zero_duration_stage_is_a_step(driver: Path, stand_in: Path, tmp_path: Path) -> None:
    # 1 VU for 1 s, a step to 3 VUs held 1 s: VUs 2 and 3 start at the step, not on a ramp before it
    code, stderr, counts, samples = _run_driver(driver, tmp_path, _server(stand_in), "--stages", "0s:1,1s:1,0s:3,1s:3")
    assert code == 0, stderr
    first = {}
    for row in _lines(samples):
        first.setdefault(row[2], float(row[1]))
    assert set(first) == {"1", "2", "3"} and first["1"] < 0.5
    assert 1.0 <= first["2"] < 1.5 and 1.0 <= first["3"] < 1.5, first

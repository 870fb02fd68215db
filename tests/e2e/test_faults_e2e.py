"""Drills (docs/faults.md): the faults a real deployment meets, each made for real on the local runtime and read
from the console line, run.json and summary.json — and nothing left running afterwards. A server frozen mid-window
(SIGSTOP), a server killed by the OOM killer at its memory limit, a results disk that fills up, a results path
that cannot be a directory. The docker runtime's hang and OOM drills are in tests/docker/test_docker_e2e.py."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import psutil
import pytest

from mcpbench.host.paths import SERVERS_DIR
from mcpbench.results.model import RUN_FILE, SAMPLES_LOG_STEM, SUMMARY_FILE

from test_smoke_run import TINY, leftovers, mcpbench, only_run

pytestmark = pytest.mark.e2e

WINDOW_START_S = 3.0  # TINY: 1 s ramp-up + 2 s warm-up
# A frozen server's calls time out at this (--request-timeout): the default 30 s would be the drill's wait
TIMEOUT_S = 5.0


def words(text: str) -> str:
    return " ".join(text.split())  # the console wraps long lines


def scenario_start(results: Path, server: str, deadline_s: float = 600) -> float:
    """The epoch second the first measurement's load began (its raw sample log's T line), once it has."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        for log in results.glob(f"*/{server}/session-5vu-r1/{SAMPLES_LOG_STEM}.log"):
            first = log.read_text().split("\n", 1)[0]
            if first.startswith("T,"):
                return float(first[2:]) / 1000
        time.sleep(0.1)
    raise AssertionError("the load test never started")


def freeze_in_the_window(results: Path, server: str, pid_of, at_s: float = 2.0) -> int:
    """SIGSTOP to the server `at_s` seconds into the measured window; its pid."""
    start = scenario_start(results, server)
    pid = pid_of()
    time.sleep(max(0.0, start + WINDOW_START_S + at_s - time.time()))
    os.kill(pid, signal.SIGSTOP)
    return pid


def server_pid(proc: subprocess.Popen, server: str) -> int:
    """The server the orchestrator started: its child running in the server's directory."""
    directory = str(SERVERS_DIR / server)
    for child in psutil.Process(proc.pid).children(recursive=True):
        try:
            if child.cwd() == directory:
                return child.pid
        except psutil.Error:
            continue
    raise AssertionError(f"no process of {server} under the orchestrator")


def resume(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGCONT)
    except ProcessLookupError:
        pass


def frozen_run(results: Path, which: str, hold_s: float | None = None,
               options: tuple[str, ...] = ()) -> tuple[int | None, str]:
    """`mcpbench run go` with its server ("server") or its load driver ("driver") frozen 2 s into the window, for
    `hold_s` seconds (None: until the run ends); its exit code and output. Resumed on every way out."""
    proc = mcpbench("run", "go", *TINY, *options, "--results-dir", str(results))
    children = lambda: psutil.Process(proc.pid).children(recursive=True)  # noqa: E731
    pid_of = {"server": lambda: server_pid(proc, "go"),
              "driver": lambda: next(p.pid for p in children() if p.name() == "load-driver")}[which]
    pid = None
    try:
        pid = freeze_in_the_window(results, "go", pid_of)
        if hold_s is not None:
            time.sleep(hold_s)
            resume(pid)
        out, _ = proc.communicate(timeout=300)
    finally:
        if pid:
            resume(pid)
        proc.kill()
    return proc.returncode, out


def test_a_server_that_stops_answering_is_failed_as_the_servers_not_the_generators(tmp_path: Path) -> None:
    code, out = frozen_run(tmp_path, "server", options=("--request-timeout", f"{TIMEOUT_S:g}"))
    said = words(out)
    assert code == 1, out
    assert f"go failed in load: stopped answering: 5 requests in flight timed out after {TIMEOUT_S:g} s" in said, out
    assert "invalid (loadgen)" not in said and "Traceback" not in out, out
    run = json.loads((only_run(tmp_path) / RUN_FILE).read_text())
    server = run["servers"]["go"]
    assert server["status"] == "failed" and server["phase"] == "load", server
    assert "its process is stopped" in server["reason"] and "last answer at t = " in server["reason"], server
    summary = json.loads((only_run(tmp_path) / "go" / "session-5vu-r1" / SUMMARY_FILE).read_text())
    assert summary["status"] == "failed" and summary["checks"]["timeouts_noticed_late"] == 0
    assert summary["checks"]["timed_out"] == 5 and WINDOW_START_S < summary["checks"]["last_answer_s"] < 9.0
    # the timed-out calls were sent in the window: they count there, at the timeout
    assert summary["errors"]["kinds"].get("timeout") == 5
    assert summary["latency_ms"]["tool_call_all"]["max"] == pytest.approx(TIMEOUT_S * 1000)
    assert not leftovers(str(tmp_path)), "processes outlived the run"


def test_a_stalled_load_generator_stays_the_harnesss_fault(tmp_path: Path) -> None:
    """The other side of the hang: the load driver, not the server, frozen for 4 s of the window."""
    _, out = frozen_run(tmp_path, "driver", hold_s=4)
    said = words(out)
    assert "go session-5vu-r1 invalid (loadgen): the load generator did not run for" in said, out
    assert "it was stopped or starved of CPU" in said and "failed in load" not in said, out
    summary = json.loads((only_run(tmp_path) / "go" / "session-5vu-r1" / SUMMARY_FILE).read_text())
    assert summary["status"] == "invalid" and 3.5 < summary["checks"]["loadgen_stalled_s"] < 6, summary["checks"]
    assert not leftovers(str(tmp_path)), "processes outlived the run"


# Twenty sessions each asking go for a 4 MiB reply (the payload dimension's echo_payload) need far more than 64 MiB
# (at 400 MiB it is still killed): verify's one call at a time fits, the load does not, and the kernel kills it at
# once. Verify peaks at 38-39 MiB of cgroup memory (4 runs unlimited), so 40 MiB failed verify in 3 of 6 runs here
# (ReadTimeout while reclaiming, or killed); 64 MiB passed verify and was killed in load in 12 of 12. At 128 MiB
# the load can thrash under the limit instead (1 of 6); python at 60 MiB, the case, thrashes for minutes
# or dies depending on the page cache: no drill.
OOM_LIMIT_MIB = 64
OOM_LOAD = ["dimension", "--dimension", "payload", "--points", "4mib", "go", "--memory-mb", str(OOM_LIMIT_MIB),
            "--vus", "20"]


def test_a_server_killed_by_the_oom_killer_is_named_so_with_its_own_last_lines(tmp_path: Path) -> None:
    tiny = [arg for arg in TINY if arg not in ("--vus", "5")]
    proc = mcpbench(*OOM_LOAD, *tiny, "--results-dir", str(tmp_path))
    out, _ = proc.communicate(timeout=600)
    said = words(out)
    assert proc.returncode == 1, out
    assert ("go-4mib failed in load: the server exited during the load test: killed by the OOM killer at its "
            f"{OOM_LIMIT_MIB} MiB memory limit; peak") in said, out
    run = json.loads((only_run(tmp_path) / RUN_FILE).read_text())
    server = run["servers"]["go-4mib"]
    assert server["status"] == "failed" and server["phase"] == "load", server
    # its own words since the load began, never verify's probes above the mark
    assert "rebinding.example" not in server["reason"] and "since the load began" in server["reason"], server
    log = (only_run(tmp_path) / "go-4mib" / "persistent-20vu-r1" / "server.log").read_text()
    assert "mcpbench: a load test begins here" in log
    assert not leftovers(str(tmp_path)), "processes outlived the run"


@pytest.fixture
def small_disk(tmp_path: Path):
    """A 300 KiB tmpfs: a run of three short measurements fills it (each keeps ~60 KiB, its raw log ~200 KiB)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root (CI runs as root)")
    where = tmp_path / "disk"
    where.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=300k", "tmpfs", str(where)], check=True)
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def test_a_full_results_disk_is_one_sentence_naming_the_file_and_what_is_kept(small_disk: Path) -> None:
    proc = mcpbench("run", "go", *TINY, "--rounds", "3", "--results-dir", str(small_disk))
    out, _ = proc.communicate(timeout=600)
    said = words(out)
    assert proc.returncode == 1, out
    assert "Traceback" not in out and "OSError" not in out and "Errno" not in said, out
    assert f"cannot write {small_disk}/" in said and "No space left on device" in said, out
    assert "kept in" in said or "no measurement had finished" in said, out
    run_json = only_run(small_disk) / RUN_FILE
    assert json.loads(run_json.read_text())["status"] == "failed"  # not `running` while we could say otherwise
    assert not leftovers(str(small_disk)), "processes outlived the run"


def test_a_results_path_that_cannot_be_a_directory_is_one_sentence(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    proc = mcpbench("run", "go", *TINY, "--results-dir", str(blocker / "results"))
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 1, out
    assert f"cannot make the results directory {blocker}/results" in words(out), out
    assert f"{blocker} is not a directory" in words(out) and "Traceback" not in out and "Errno" not in out, out

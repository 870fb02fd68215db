"""The faults' sentences (docs/faults.md): an I/O error names the file and what it held, a path that cannot be a
directory names the part in the way, an exit status is said in words, and a server log's tail since the load
began leaves out what came before the mark."""

from __future__ import annotations

import errno
import signal
import subprocess
import sys
from pathlib import Path

from mcpbench.host.processes import exit_said, stopped
from mcpbench.results.model import LOAD_MARK
from mcpbench.results.write import directory_said, io_said
from mcpbench.runtime.base import MarkedLog


def test_an_io_error_names_the_file_and_what_it_was_to_hold(tmp_path: Path) -> None:
    full = OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "r" / "run.json"))
    assert io_said(full) == f"cannot write {tmp_path}/r/run.json (the run's record): No space left on device"
    temporary = OSError(errno.ENOSPC, "No space left on device", str(tmp_path / ".summary.json.x1y2.tmp"))
    assert "(a measurement's figures)" in io_said(temporary)
    unnamed = OSError(errno.ENOSPC, "No space left on device")
    assert io_said(unnamed, tmp_path) == f"cannot write under {tmp_path}: No space left on device"


def test_a_path_under_a_file_names_the_file(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    target = blocker / "results" / "run"
    try:
        target.mkdir(parents=True)
    except OSError as exc:
        said = directory_said(target, exc)
    assert said == f"cannot make the results directory {target}: {blocker} is not a directory"


def test_exit_statuses_in_words() -> None:
    assert exit_said(-signal.SIGKILL) == "killed by SIGKILL"
    assert exit_said(1) == "exited with code 1"
    assert exit_said(137).startswith("exited with code 137 (128 + SIGKILL")
    assert exit_said(None) == "it ended (no exit status known)"


def test_a_stopped_process_is_told_from_a_running_one() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert not stopped(child.pid)
        child.send_signal(signal.SIGSTOP)
        for _ in range(100):
            if stopped(child.pid):
                break
            subprocess.run(["sleep", "0.01"])
        assert stopped(child.pid)
    finally:
        child.kill()
        child.wait()


def test_the_tail_since_the_load_began_leaves_out_the_probes_above(tmp_path: Path) -> None:
    path = tmp_path / "server.log"
    path.write_text("listening on 8080\nInvalid Host header: rebinding.example\n")
    log = MarkedLog(path)
    log.mark()
    with open(path, "a", encoding="utf-8") as handle:  # the server goes on appending
        handle.write("worker 1 started\nMemoryError\n")
    assert log.tail(20) == "worker 1 started\nMemoryError"
    assert "rebinding.example" in log.tail(20, since_mark=False)
    assert LOAD_MARK in path.read_text()

"""A Ctrl-C is never lost: one whose KeyboardInterrupt Python raised where it can only print and drop it (an
at-fork callback while a subprocess starts) is sent again (cli/options.py _redeliver_lost_interrupts). Seen for
real: a docker run's Ctrl-C landed in logging's at-fork _releaseLock and the run went on to its end, exit 0."""

from __future__ import annotations

import subprocess
import sys

import pytest

# A program that starts a subprocess while an at-fork callback raises KeyboardInterrupt (as a SIGINT landing
# there does), then waits: interrupted, it exits 130; the interrupt lost, it says so after 5 s.
PROGRAM = """
import os, signal, subprocess, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal (a background job starts it ignored)
if sys.argv[1] == "hooked":
    from mcpbench.cli.options import _redeliver_lost_interrupts
    sys.unraisablehook = _redeliver_lost_interrupts(sys.unraisablehook)
def at_fork():
    raise KeyboardInterrupt
os.register_at_fork(after_in_parent=at_fork)
try:
    subprocess.run(["true"], preexec_fn=lambda: None)  # as processes.spawn: a preexec_fn runs the at-fork callbacks
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        time.sleep(0.05)
    print("lost")
except KeyboardInterrupt:
    print("interrupted")
    sys.exit(130)
"""


@pytest.mark.parametrize(("mode", "code", "said"), [("hooked", 130, "interrupted"), ("bare", 0, "lost")])
def test_an_interrupt_dropped_in_an_at_fork_callback_is_delivered_again(mode: str, code: int, said: str) -> None:
    done = subprocess.run([sys.executable, "-c", PROGRAM, mode], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout.strip()) == (code, said), done.stderr[-2000:]

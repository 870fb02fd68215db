"""Where a process tree listens, as verify's "listens on loopback only" check reads it."""

from __future__ import annotations

import subprocess
import sys

import psutil

from mcpbench.host.ports import is_loopback, listening

LISTENER = """
import socket, sys, time
s = socket.socket(); s.bind((sys.argv[1], 0)); s.listen()
print(s.getsockname()[1], flush=True); time.sleep(60)
"""


def listen_on(address: str) -> tuple[subprocess.Popen, int]:
    child = subprocess.Popen([sys.executable, "-c", LISTENER, address], stdout=subprocess.PIPE, text=True)
    return child, int(child.stdout.readline())


def test_a_listener_on_every_interface_is_seen_and_is_not_loopback() -> None:
    child, port = listen_on("0.0.0.0")
    try:
        assert listening(child.pid) == [f"0.0.0.0:{port}"]
        assert not is_loopback(f"0.0.0.0:{port}")
    finally:
        child.kill()
        child.wait()


def test_a_loopback_listener_is_seen_in_the_tree_below_the_root() -> None:
    # sh stays the parent (no exec): the listener is its child, as a server's workers are
    shell = subprocess.Popen(["sh", "-c", f'{sys.executable} -c "$0" 127.0.0.1; :', LISTENER],
                             stdout=subprocess.PIPE, text=True)
    bystander = subprocess.Popen(["sleep", "60"])  # a process that listens nowhere
    try:
        port = int(shell.stdout.readline())
        assert len(psutil.Process(shell.pid).children()) == 1
        assert listening(shell.pid) == [f"127.0.0.1:{port}"] and is_loopback(f"127.0.0.1:{port}")
        assert listening(bystander.pid) == []
    finally:
        for process in (*psutil.Process(shell.pid).children(), psutil.Process(shell.pid), psutil.Process(bystander.pid)):
            process.kill()
        shell.wait()
        bystander.wait()

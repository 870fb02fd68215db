"""Server builds run several at a time, and an interrupt stops every one still running."""

from __future__ import annotations

import os
import time
from functools import partial
from pathlib import Path

from mcpbench.catalog import build
from mcpbench.catalog.manifest import discover
from mcpbench.host.paths import SERVERS_DIR


def _job(tmp_path: Path, name: str, command: str):
    return partial(build.run_commands, (command,), tmp_path, dict(os.environ), 30, tmp_path / f"{name}.log")


def test_builds_run_at_once_up_to_the_worker_count(tmp_path):
    """Each build waits until all three have started: built one at a time, the first would time out."""
    rendezvous = ("touch {name}.started; for _ in $(seq 100); do "
                  "[ -e a.started ] && [ -e b.started ] && [ -e c.started ] && exit 0; sleep 0.1; done; exit 1")
    jobs = [(name, _job(tmp_path, name, rendezvous.format(name=name))) for name in "abc"]
    outcomes = dict(build.build_concurrently(jobs, workers=3))
    assert {name: outcome.status for name, outcome in outcomes.items()} == {"a": "ok", "b": "ok", "c": "ok"}


def test_servers_that_share_a_build_build_once(tmp_path):
    """python and its what-if variants share one directory and its build: one build, each of them told."""
    specs = [spec for spec in discover(SERVERS_DIR).servers if spec.directory.name == "python"]
    assert len(specs) >= 2 and len({build.local_build_key(spec) for spec in specs}) == 1

    def counted(spec):
        return build.run_commands(("echo x >> count",), tmp_path, dict(os.environ), 30, tmp_path / "build.log")

    told = [spec.name for spec, outcome in build.build_each(specs, counted) if outcome.status == "ok"]
    assert sorted(told) == sorted(spec.name for spec in specs)
    assert (tmp_path / "count").read_text() == "x\n"


def test_an_interrupt_kills_the_builds_still_running(tmp_path):
    slow = "echo $$ > slow.pid; sleep 60; touch slow.finished"
    jobs = [("fast", _job(tmp_path, "fast", "true")), ("slow", _job(tmp_path, "slow", slow))]
    results = build.build_concurrently(jobs, workers=2)
    key, outcome = next(results)
    assert (key, outcome.status) == ("fast", "ok")
    for _ in range(100):  # the slow build has started (its pid written) before the interrupt
        if (tmp_path / "slow.pid").exists() and (tmp_path / "slow.pid").read_text().strip():
            break
        time.sleep(0.05)
    pid = int((tmp_path / "slow.pid").read_text())
    results.close()  # what Ctrl-C does to the loop consuming the builds
    assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text().lower()
    assert not (tmp_path / "slow.finished").exists()
    assert not build._running


def test_the_longest_build_starts_first():
    """rust, started last in a first run, ran 200 s of its 257 s alone: the manifest's expected_s orders them."""
    specs = discover(SERVERS_DIR).servers
    ordered = [spec.name for spec in build.longest_first(specs)]
    assert ordered[0] == "rust" and ordered.index("kotlin") < ordered.index("go")
    assert all(spec.build_expected_s > 0 for spec in specs if spec.build_commands)


def test_a_go_binary_newer_than_every_source_is_up_to_date_and_an_older_one_is_not(tmp_path):
    for name in ("main.go", "main_test.go", "go.mod", "README.md"):
        (tmp_path / name).write_text("")
    assert {p.name for p in build.go_sources(tmp_path)} == {"main.go", "go.mod"}  # not its tests, not its docs
    binary = tmp_path / "bin"
    assert not build.up_to_date(binary, build.go_sources(tmp_path))  # not built yet
    binary.write_text("")
    os.utime(binary, (time.time() + 10, time.time() + 10))
    assert build.up_to_date(binary, build.go_sources(tmp_path))
    os.utime(tmp_path / "main_test.go", (time.time() + 20, time.time() + 20))  # a test changed: nothing to build
    assert build.up_to_date(binary, build.go_sources(tmp_path))
    os.utime(tmp_path / "go.mod", (time.time() + 20, time.time() + 20))  # a dependency changed: build it again
    assert not build.up_to_date(binary, build.go_sources(tmp_path))

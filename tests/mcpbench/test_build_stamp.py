"""A build whose sources, commands and toolchain did not change since its last success here, and whose output is
still there, is not run again (catalog/build_stamp.py); any change to one of them builds again. On a real git
work tree with a real manifest, the build command counting its runs."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from mcpbench.catalog.build import build_server
from mcpbench.catalog.manifest import discover

MANIFEST = """[server]
display_name = "counter"
language = "Shell"
runtime = "bash"
sdk = "none"
sdk_version = "0"
framework = "none"
description = "counts its builds"
requires = []

[build]
command = "echo built >> ../builds.txt && mkdir -p out && cp main.sh out/"

[run]
command = ["./out/main.sh"]
"""


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    if not shutil.which("git"):
        pytest.skip("git is not installed")
    servers = tmp_path / "servers"
    (servers / "counter").mkdir(parents=True)
    (servers / "counter" / "mcpbench.toml").write_text(MANIFEST)
    (servers / "counter" / "main.sh").write_text("#!/bin/sh\necho hi\n")
    (servers / "common").mkdir()  # shared code: a directory without a manifest
    (servers / "common" / "lib.sh").write_text("# shared\n")
    (tmp_path / ".gitignore").write_text("out/\nbuilds.txt\n")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "servers")
    return servers


def _builds(servers: Path, tmp_path: Path) -> int:
    """Build the server once more; the number of times its command has run so far."""
    spec = discover(servers).servers[0]
    outcome = build_server(spec, tmp_path / "build.log")
    assert outcome.status == "ok", outcome.reason
    counted = servers / "builds.txt"
    return len(counted.read_text().splitlines()) if counted.exists() else 0


def test_an_unchanged_build_is_not_run_again_and_says_why(checkout: Path, tmp_path: Path) -> None:
    assert _builds(checkout, tmp_path) == 1
    assert _builds(checkout, tmp_path) == 1
    assert "not built again" in (tmp_path / "build.log").read_text()
    stamps = list((checkout / "counter").glob(".mcpbench-build-*.json"))
    assert len(stamps) == 1


def test_every_input_and_the_output_count(checkout: Path, tmp_path: Path) -> None:
    counter = checkout / "counter"
    assert _builds(checkout, tmp_path) == 1
    (counter / "main.sh").write_text("#!/bin/sh\necho changed\n")  # an uncommitted edit
    assert _builds(checkout, tmp_path) == 2
    (counter / "new.sh").write_text("# untracked, not ignored: a source\n")
    assert _builds(checkout, tmp_path) == 3
    (checkout / "common" / "lib.sh").write_text("# shared, changed\n")
    assert _builds(checkout, tmp_path) == 4
    shutil.rmtree(counter / "out")  # the output is gone
    assert _builds(checkout, tmp_path) == 5
    (counter / "out" / "scratch").write_text("ignored: no source\n")
    assert _builds(checkout, tmp_path) == 5
    manifest = counter / "mcpbench.toml"
    manifest.write_text(manifest.read_text().replace("cp main.sh out/", "cp main.sh new.sh out/"))
    assert _builds(checkout, tmp_path) == 6  # another command (and the manifest is a source)


def test_a_failed_build_leaves_no_stamp(checkout: Path, tmp_path: Path) -> None:
    counter = checkout / "counter"
    manifest = counter / "mcpbench.toml"
    manifest.write_text(manifest.read_text().replace('command = "echo', 'command = "false && echo'))
    spec = discover(checkout).servers[0]
    assert build_server(spec, tmp_path / "build.log").status == "failed"
    assert not list(counter.glob(".mcpbench-build-*.json"))


def test_a_directory_git_does_not_track_is_always_built(tmp_path: Path) -> None:
    servers = tmp_path / "servers"
    (servers / "counter").mkdir(parents=True)
    (servers / "counter" / "mcpbench.toml").write_text(MANIFEST)
    (servers / "counter" / "main.sh").write_text("#!/bin/sh\necho hi\n")
    assert _builds(servers, tmp_path) == 1
    assert _builds(servers, tmp_path) == 2

"""What a server's program says it is: real programs, real output."""

from __future__ import annotations

import sys
from pathlib import Path

from mcpbench.catalog.manifest import discover
from mcpbench.runtime.local import LocalRuntime, program_version
from mcpbench.host.versions import first_lines, probe


def test_the_interpreter_names_itself() -> None:
    assert probe([sys.executable, "--version"]) == f"Python {sys.version.split()[0]}"


def test_a_bare_number_gets_the_programs_name(tmp_path: Path) -> None:
    program = tmp_path / "bun"
    program.write_text("#!/bin/sh\necho 1.4.5\n")
    program.chmod(0o755)
    assert probe([str(program), "--version"]) == "bun 1.4.5"


def test_a_failing_or_missing_program_gives_no_version(tmp_path: Path) -> None:
    assert probe(["false"]) is None
    assert probe([str(tmp_path / "missing"), "--version"]) is None


def test_only_the_first_two_lines_are_kept() -> None:
    assert first_lines("openjdk 25\n\nOpenJDK Runtime Environment\nOpenJDK 64-Bit Server VM\n") == \
        "openjdk 25 · OpenJDK Runtime Environment"


def test_the_local_runtime_asks_the_run_commands_own_program_and_never_a_compiled_server(tmp_path: Path) -> None:
    manifest = """
[server]
display_name = "x"
language = "x"
runtime = "x"
sdk = "x"
sdk_version = "1"
version_args = ["--version"]
[run]
command = [".venv/bin/interp", "-m", "server"]
[variants.compiled]
version_args = []
run.command = ["./server"]
"""
    (tmp_path / "srv" / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / "srv" / "mcpbench.toml").write_text(manifest)
    interp = tmp_path / "srv" / ".venv" / "bin" / "interp"  # relative to the server's directory, as python's is
    interp.write_text("#!/bin/sh\n[ \"$1\" = --version ] && echo \"Interp 3.13.5\"\n")
    interp.chmod(0o755)
    servers = discover(tmp_path).by_name()
    assert program_version(servers["srv"], {"PATH": "/usr/bin:/bin"}) == "Interp 3.13.5"
    runtime = LocalRuntime.__new__(LocalRuntime)  # a compiled server is not asked: no cgroups, no infra needed
    assert runtime.runtime_version(servers["compiled"], None) is None

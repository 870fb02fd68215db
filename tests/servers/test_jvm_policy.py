"""Every JVM server follows the one JVM policy of docs/jvm-policy.md, locally and in its image: an AppCDS archive
recorded by a training run with the run's own class path, ParallelGC, heap 25 % of the memory limit, exit on
OutOfMemoryError — and its manifest's runtime string says so. Dropping CDS from one server or giving it another
GC or heap setting fails here."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from mcpbench.catalog.manifest import load_manifest

SERVERS = Path(__file__).resolve().parents[2] / "servers"
# Every directory whose manifest asks for a JDK is a JVM server (a new one is covered by being added); the
# names are spelled out too, so a JVM server that silently stops being one fails here.
JVM_SERVERS = sorted(p.parent.name for p in SERVERS.glob("*/mcpbench.toml")
                     if load_manifest(p)[0].info.jdk is not None)
JVM_SERVER_NAMES = {"java-spring", "java-vt", "java-webflux", "quarkus", "micronaut", "java-sdk", "kotlin"}
MIN_JDK = {"kotlin": 25}  # compiled for JVM 25 (its jvmTarget); every other one runs on 21 and up
POLICY_FLAGS = ["-XX:+UseParallelGC", "-XX:MaxRAMPercentage=25", "-XX:+ExitOnOutOfMemoryError"]
# Options that change GC, heap or class data sharing; only the policy's may appear.
GOVERNED = re.compile(r"^-(XX:[+-]?Use\w*GC|XX:\w*(RAM|Heap)\w*|Xm[sxn]|Xss|Xshare|XX:\w*Shared\w*|XX:\w*Archive\w*|"
                      r"XX:AOT\w*|XX:ActiveProcessorCount)")
# What the framework may add on top (and must then use in its training run too).
FRAMEWORK_OPTIONS = {"java-webflux": ["--enable-native-access=ALL-UNNAMED"]}
RUNTIME = "Java 25 (Temurin) · AppCDS · ParallelGC · heap 25 % of limit"


def _specs():
    return {spec.name: spec for directory in JVM_SERVERS for spec in load_manifest(SERVERS / directory / "mcpbench.toml")
            if spec.run_command[0] == "java"}  # not quarkus-native: a native image, outside the policy


def _split(command: list[str] | tuple[str, ...]) -> tuple[list[str], str]:
    """(JVM options before -jar, the jar)."""
    assert command[0] == "java" and "-jar" in command, command
    at = command.index("-jar")
    return list(command[1:at]), command[at + 1]


def _archive(options: list[str]) -> str:
    archives = [o.split("=", 1)[1] for o in options if o.startswith("-XX:SharedArchiveFile=")]
    assert len(archives) == 1, f"no (or more than one) CDS archive in {options}"
    return archives[0]


def _training_runs(text: str) -> list[list[str]]:
    """The `java -XX:ArchiveClassesAtExit=...` commands of a build script or Dockerfile, as argv."""
    joined = re.sub(r"\\\n\s*", " ", text)
    runs = []
    for line in joined.splitlines():
        if "-XX:ArchiveClassesAtExit=" not in line:
            continue
        words = shlex.split(line.split("java ", 1)[1].split(">", 1)[0])
        runs.append(["java", *words])
    return runs


def test_the_jvm_servers_are_all_here() -> None:
    assert set(_specs()) == JVM_SERVER_NAMES


@pytest.mark.parametrize("name", sorted(JVM_SERVER_NAMES))
def test_the_run_command_is_the_policy(name: str) -> None:
    spec = _specs()[name]
    options, _jar = _split(spec.run_command)
    _archive(options)
    assert all(flag in options for flag in POLICY_FLAGS), f"{name}: {options}"
    governed = [o for o in options if GOVERNED.match(o)]
    assert sorted(governed) == sorted([f"-XX:SharedArchiveFile={_archive(options)}", "-XX:+UseParallelGC",
                                       "-XX:MaxRAMPercentage=25"]), f"{name}: {governed}"
    others = [o for o in options if not GOVERNED.match(o) and o not in POLICY_FLAGS]
    assert others == FRAMEWORK_OPTIONS.get(spec.directory.name, []), f"{name}: options outside the policy: {others}"
    assert not any(k.startswith(("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS")) for k in spec.run_env)
    assert spec.info.runtime == RUNTIME
    assert spec.info.jdk == MIN_JDK.get(spec.directory.name, 21)


@pytest.mark.parametrize("directory", JVM_SERVERS)
def test_the_build_records_the_archive_the_run_maps(directory: str) -> None:
    spec = load_manifest(SERVERS / directory / "mcpbench.toml")[0]
    assert spec.build_commands == ("./build.sh",)
    options, jar = _split(spec.run_command)
    (training,) = _training_runs((SERVERS / directory / "build.sh").read_text())
    t_options, t_jar = _split(training)
    assert t_jar == jar, "the training run must use the run's class path, or the JVM refuses the archive"
    assert f"-XX:ArchiveClassesAtExit={_archive(options)}" in t_options
    for option in FRAMEWORK_OPTIONS.get(directory, []):
        assert option in t_options, f"{option} changes module handling: training and run must agree"


@pytest.mark.parametrize("directory", JVM_SERVERS)
def test_the_image_records_its_archive_and_runs_the_manifest_command(directory: str) -> None:
    spec = load_manifest(SERVERS / directory / "mcpbench.toml")[0]
    dockerfile = (SERVERS / directory / "Dockerfile").read_text()
    final_stage = re.split(r"^FROM .*$", dockerfile, flags=re.M)[-1]
    cmd = re.search(r"^CMD (\[.*?\])\s*$", re.sub(r"\\\n\s*", " ", final_stage), flags=re.M | re.S)
    assert cmd and json.loads(cmd.group(1)) == list(spec.run_command), "the image's CMD is the manifest's command"
    # Recorded in the final stage, with the image's own JVM and the run's paths.
    (training,) = _training_runs(final_stage)
    options, jar = _split(spec.run_command)
    t_options, t_jar = _split(training)
    assert t_jar == jar and f"-XX:ArchiveClassesAtExit={_archive(options)}" in t_options
    assert final_stage.index("ArchiveClassesAtExit") < final_stage.index("USER mcp")


def test_the_policy_is_written_down() -> None:
    policy = (SERVERS.parent / "docs" / "jvm-policy.md").read_text()
    for flag in ["-XX:SharedArchiveFile", "-XX:ArchiveClassesAtExit", *POLICY_FLAGS]:
        assert flag in policy
    assert "docs/jvm-policy.md" in (SERVERS.parent / "README.md").read_text()

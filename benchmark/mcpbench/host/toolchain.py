"""Finding the executables and JDKs that builds, runs and the harness need, and their versions."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from mcpbench.host.paths import TOOLS_BIN

JVM_DIR = Path("/usr/lib/jvm")


def which(name: str) -> str | None:
    """PATH lookup that also sees the project's own .tools/bin (k6, the API service)."""
    return shutil.which(name, path=f"{TOOLS_BIN}{os.pathsep}{os.environ.get('PATH', '')}")


def version_of(argv: list[str], pattern: str = r"(\d+(?:\.\d+)+)") -> str | None:
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.search(pattern, out.stdout + out.stderr)
    return match.group(1) if match else None


def _jdk_major(java_home: Path) -> int | None:
    release = java_home / "release"
    if not release.exists():
        return None
    match = re.search(r'JAVA_VERSION="(\d+)', release.read_text(errors="replace"))
    return int(match.group(1)) if match else None


@dataclass(frozen=True)
class Jdk:
    home: Path
    major: int


def find_jdk(minimum: int) -> Jdk | None:
    """JAVA_HOME if new enough, else the newest JDK in the system's JVM directory that is."""
    candidates: list[Path] = []
    if os.environ.get("JAVA_HOME"):
        candidates.append(Path(os.environ["JAVA_HOME"]))
    if JVM_DIR.is_dir():
        candidates.extend(sorted(p for p in JVM_DIR.iterdir() if p.is_dir() and not p.is_symlink()))
    found = [Jdk(home, major) for home in candidates
             if (home / "bin" / "java").exists() and (major := _jdk_major(home)) and major >= minimum]
    if not found:
        return None
    if os.environ.get("JAVA_HOME") and found[0].home == Path(os.environ["JAVA_HOME"]):
        return found[0]
    return max(found, key=lambda jdk: jdk.major)


class MissingRequirement(Exception):
    """A build or run needs something this machine does not have."""


def environment_for(requires: list[str], jdk_minimum: int | None) -> dict[str, str]:
    """The process environment a server's build and run get: PATH with the tools, JAVA_HOME if asked."""
    env = dict(os.environ)
    env["PATH"] = f"{TOOLS_BIN}{os.pathsep}{env.get('PATH', '')}"
    if jdk_minimum:
        jdk = find_jdk(jdk_minimum)
        if not jdk:
            raise MissingRequirement(f"needs a JDK >= {jdk_minimum}; none found in $JAVA_HOME or {JVM_DIR}")
        env["JAVA_HOME"] = str(jdk.home)
        env["PATH"] = f"{jdk.home / 'bin'}{os.pathsep}{env['PATH']}"
    missing = [tool for tool in requires if not shutil.which(tool, path=env["PATH"])]
    if missing:
        raise MissingRequirement(f"needs {', '.join(missing)} on PATH")
    return env

"""The environment a run happened in: enough to tell whether two results can be compared."""

from __future__ import annotations

import os
import platform
import socket
import subprocess
from pathlib import Path

import psutil

from mcpbench import __version__
from mcpbench.host.paths import ROOT
from mcpbench.host.toolchain import find_jdk, version_of, which
from mcpbench.results.model import CgroupSupport, Environment, Git


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _os_name() -> str:
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip('"')
    except OSError:
        pass
    return platform.system()


def _git() -> Git:
    def git(*args: str) -> str | None:
        try:
            out = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return out.stdout.strip() if out.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no")
    return Git(commit=commit, dirty=bool(status) if status is not None else None)


def tool_versions() -> dict[str, str | None]:
    def maybe(name: str, argv: list[str], pattern: str = r"(\d+(?:\.\d+)+)") -> str | None:
        path = which(name)
        return version_of([path, *argv[1:]], pattern) if path else None

    jdk = find_jdk(21)
    return {
        "mcpbench": __version__,
        "python": platform.python_version(),
        "k6": maybe("k6", ["k6", "version"], r"v?(\d+\.\d+\.\d+)"),
        "redis": maybe("redis-server", ["redis-server", "--version"], r"v=(\d+\.\d+\.\d+)"),
        "go": maybe("go", ["go", "version"], r"go(\d+\.\d+(?:\.\d+)?)"),
        "cargo": maybe("cargo", ["cargo", "--version"]),
        "node": maybe("node", ["node", "--version"]),
        "java": version_of([str(jdk.home / "bin" / "java"), "-version"], r'version "([^"]+)"') if jdk else None,
        "mvn": maybe("mvn", ["mvn", "--version"], r"Maven (\d+\.\d+\.\d+)"),
        "docker": maybe("docker", ["docker", "--version"]),
    }


def fingerprint(cgroup: CgroupSupport) -> Environment:
    """run.json's environment as this machine gives it; `cgroup`: whether the runtime can apply the limits."""
    return Environment(
        hostname=socket.gethostname(),
        cpu_model=_cpu_model(),
        cores=os.cpu_count(),
        memory_gb=round(psutil.virtual_memory().total / 2**30, 1),
        kernel=platform.release(),
        os=_os_name(),
        cgroup=cgroup,
        tools=tool_versions(),
        git=_git(),
    )

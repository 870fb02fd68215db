"""Which interpreter or VM actually ran a server.

A manifest's `runtime` says what a server needs ("CPython 3.11+"); the two runtimes can satisfy that
differently (the host's pyenv build locally, Debian's python3 in the image), and that alone moves the
numbers. So each measured server records what it got, asked of the program that starts it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

PROBE_TIMEOUT_S = 60.0


def first_lines(text: str, count: int = 2) -> str | None:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return " · ".join(lines[:count]) or None


def probe(argv: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> str | None:
    """The first lines the version command prints (stdout or stderr: `java -version` uses stderr)."""
    try:
        done = subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=PROBE_TIMEOUT_S, text=True, errors="replace")
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    version = first_lines(done.stdout)
    if version and version.lstrip("v")[:1].isdigit():  # "1.4.5" (bun), "v20.20.2" (node): say whose
        version = f"{Path(argv[0]).name} {version}"
    return version

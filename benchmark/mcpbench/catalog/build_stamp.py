"""Whether a server's build would change nothing: the sources it is built from, its build commands and its
toolchain are those of its last successful build here, and what that build left is still there.

A build command finding its output current still costs seconds to minutes (Maven resolves its plugins, cargo and
npm check every dependency): ~2 min for the lineup, paid again by every command that builds. So a successful build
leaves a stamp in the server's directory, and the next build of the same sources is skipped. Git says what the
sources are (its tracked and untracked-but-not-ignored files, read from the work tree, so an uncommitted edit
counts): the server's directory and the shared code beside it (a servers/ directory without a manifest:
docs/server-contract.md). What git ignores there is the build's output; the stamp names the entries the build left,
and a missing one (`cargo clean`, a removed node_modules) means building again. A directory git does not track
is always built.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from mcpbench.catalog.manifest import MANIFEST_NAME

STAMP_PREFIX = ".mcpbench-build"


@dataclass(frozen=True)
class Inputs:
    """What a build is made from, as one fingerprint, and the directory its outputs are in."""

    directory: Path
    commands: tuple[str, ...]
    fingerprint: str

    @property
    def stamp_file(self) -> Path:
        """One stamp per directory and command line: variants of one directory may build with other commands."""
        named = hashlib.sha256("\0".join(self.commands).encode()).hexdigest()[:12]
        return self.directory / f"{STAMP_PREFIX}-{named}.json"


def _git(directory: Path, *args: str) -> list[str] | None:
    """NUL-separated paths git prints for `args` in `directory`, or None when it is no git work tree."""
    try:
        done = subprocess.run(["git", *args], cwd=directory, capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return [path for path in done.stdout.decode(errors="surrogateescape").split("\0") if path]


def _shared_code(directory: Path) -> list[Path]:
    """The directories beside a server's that hold code several servers share (no manifest of their own)."""
    parent = directory.parent
    return sorted(path for path in parent.iterdir()
                  if path.is_dir() and path != directory and not (path / MANIFEST_NAME).is_file()
                  and not path.name.startswith("."))


def _toolchain(env: dict[str, str], tools: list[str]) -> list[str]:
    """Which executable each required tool is, and when it was installed: a new toolchain builds again."""
    found = []
    for tool in tools:
        path = shutil.which(tool, path=env.get("PATH"))
        found.append(f"{tool}={path}:{os.stat(path).st_mtime_ns if path else '-'}")
    return found + [f"JAVA_HOME={env.get('JAVA_HOME', '')}"]


def inputs(directory: Path, commands: tuple[str, ...], env: dict[str, str], tools: list[str]) -> Inputs | None:
    """The fingerprint of a build of `directory` by `commands`, or None when git does not track the directory."""
    roots = [directory, *_shared_code(directory)]
    listed = _git(directory, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--full-name", "--",
                  *(str(root) for root in roots))
    top = _git(directory, "rev-parse", "--show-toplevel")  # one line (rev-parse takes no -z)
    if listed is None or not top:
        return None
    base = Path(top[0].strip())
    digest = hashlib.sha256()
    for part in (*commands, *_toolchain(env, tools)):
        digest.update(part.encode() + b"\0")
    for name in sorted(set(listed)):
        if Path(name).name.startswith(STAMP_PREFIX):
            continue
        path = base / name
        digest.update(name.encode(errors="surrogateescape") + b"\0")
        # a tracked file deleted from the work tree is a change too
        digest.update(hashlib.sha256(path.read_bytes()).digest() if path.is_file() else b"-")
    return Inputs(directory, commands, digest.hexdigest())


def _outputs(directory: Path) -> list[str] | None:
    """The entries of `directory` git ignores (the build's output: target/, node_modules/, .venv/ …)."""
    ignored = _git(directory, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory",
                   "--", ".")
    if ignored is None:
        return None
    return sorted({entry.rstrip("/").split("/")[0] for entry in ignored} - {""}
                  - {name for name in os.listdir(directory) if name.startswith(STAMP_PREFIX)})


def current(of: Inputs) -> str | None:
    """Why a build of these inputs would change nothing (the sentence its log gives), or None: build."""
    try:
        stamp = json.loads(of.stamp_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if stamp.get("fingerprint") != of.fingerprint:
        return None
    missing = [name for name in stamp.get("outputs") or [] if not (of.directory / name).exists()]
    if missing:
        return None
    built = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(stamp.get("built_epoch", 0)))
    return (f"not built again: its sources, build commands and toolchain are those of its build at {built}, "
            f"whose output is still there ({of.stamp_file.name}; delete it to build again)")


def stamp(of: Inputs) -> None:
    """A successful build's stamp: its fingerprint and the entries it left."""
    outputs = _outputs(of.directory)
    of.stamp_file.write_text(json.dumps({"fingerprint": of.fingerprint, "built_epoch": time.time(),
                                    "outputs": outputs or []}) + "\n", encoding="utf-8")

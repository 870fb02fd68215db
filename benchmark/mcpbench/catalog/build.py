"""Building the API service and the servers with each manifest's own build command."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TypeVar

from mcpbench.catalog import build_stamp
from mcpbench.catalog.manifest import ServerSpec
from mcpbench.host.paths import API_SERVICE_BIN, API_SERVICE_DIR
from mcpbench.host.toolchain import MissingRequirement, environment_for
from mcpbench.results import model


@dataclass(frozen=True)
class BuildOutcome:
    status: str  # ok | failed | skipped
    seconds: float
    reason: str | None
    log_path: Path | None
    command: str | None = None  # what ran, as build.json records it (None: nothing, or a docker image build)

    def build_record(self) -> model.Build:
        """build.json: the outcome as the results model holds it (seconds to the hundredth, the log by its name
        beside build.json), checked as it is made."""
        return model.Build(status=self.status, seconds=round(self.seconds, 2), reason=self.reason,
                           log=self.log_path.name if self.log_path else None, command=self.command)


K = TypeVar("K", bound=Hashable)

# Builds run this many at a time (the runner, `mcpbench build`, the integration tests): a cold build spends much
# of its time downloading (Maven, crates, npm) or in one single-threaded JVM, which overlaps well with another
# build's compiling on 2 cores; a fourth adds memory, not speed.
BUILD_WORKERS = 3

# The process groups of the builds running now, so an interrupt (Ctrl-C reaches only the main thread; each
# build has its own session so a timeout can kill its whole tree) stops every one of them.
_running: set[int] = set()
_running_lock = threading.Lock()


def cancel_running() -> None:
    """Kill every build still running (after an interrupt), its whole process tree."""
    with _running_lock:
        groups = list(_running)
    for group in groups:
        try:
            os.killpg(group, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _run_one(command: str, cwd: Path, env: dict[str, str], timeout_s: float, log) -> int | None:
    """The command's exit status, or None when it ran past timeout_s (its tree killed)."""
    # Spawned under the lock: an interrupt's cancel_running then finds every build that has begun (on a busy
    # host a build could otherwise start, and be seen started, before it was listed, and run on to its timeout).
    with _running_lock:
        process = subprocess.Popen(["bash", "-euo", "pipefail", "-c", command], cwd=cwd, env=env, stdout=log,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        _running.add(process.pid)
    try:
        return process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        return None
    finally:
        with _running_lock:
            _running.discard(process.pid)


def run_commands(commands: tuple[str, ...], cwd: Path, env: dict[str, str], timeout_s: float,
         log_path: Path) -> BuildOutcome:
    started = time.monotonic()
    joined = " && ".join(commands)  # each runs only when the one before succeeded
    with open(log_path, "w", encoding="utf-8") as log:
        for command in commands:
            log.write(f"$ {command}\n")
            log.flush()
            returncode = _run_one(command, cwd, env, timeout_s, log)
            if returncode is None:
                return BuildOutcome("failed", time.monotonic() - started,
                                    f"build timed out after {timeout_s:g} s: {command}", log_path, joined)
            if returncode != 0:
                tail = "\n".join(log_path.read_text(errors="replace").splitlines()[-15:])
                return BuildOutcome("failed", time.monotonic() - started,
                                    f"`{command}` exited {returncode}:\n{tail}", log_path, joined)
    return BuildOutcome("ok", time.monotonic() - started, None, log_path, joined)


def build_server(spec: ServerSpec, log_path: Path) -> BuildOutcome:
    try:
        env = environment_for(spec.info.requires, spec.info.jdk)
    except MissingRequirement as exc:
        return BuildOutcome("skipped", 0.0, str(exc), None)
    if not spec.build_commands:
        return BuildOutcome("ok", 0.0, None, None)
    joined = " && ".join(spec.build_commands)
    made_of = build_stamp.inputs(spec.directory, spec.build_commands, env, spec.info.requires)
    reused = build_stamp.current(made_of) if made_of else None
    if reused:
        log_path.write_text(f"$ {joined}\n{reused}\n", encoding="utf-8")
        return BuildOutcome("ok", 0.0, None, log_path, joined)
    outcome = run_commands(spec.build_commands, spec.directory, env, spec.build_timeout_s, log_path)
    if outcome.status == "ok" and made_of:
        build_stamp.stamp(made_of)
    return outcome


def go_sources(directory: Path) -> list[Path]:
    """What a Go binary is built from: the package's .go files (not its tests), go.mod and go.sum."""
    return [path for path in directory.iterdir()
            if (path.suffix == ".go" and not path.name.endswith("_test.go")) or path.name in ("go.mod", "go.sum")]


def up_to_date(binary: Path, sources: Iterable[Path]) -> bool:
    """Whether `binary` is there and no older than any of its sources: building it again would change nothing
    (as make judges it). Every `mcpbench` command would otherwise pay a `go build` that does nothing."""
    return binary.exists() and binary.stat().st_mtime >= max((path.stat().st_mtime for path in sources), default=0)


def build_api_service(log_path: Path) -> BuildOutcome:
    API_SERVICE_BIN.parent.mkdir(parents=True, exist_ok=True)
    command = f"go build -trimpath -o {API_SERVICE_BIN} ."
    if up_to_date(API_SERVICE_BIN, go_sources(API_SERVICE_DIR)):
        log_path.write_text(f"{API_SERVICE_BIN} is newer than every source: not built again\n", encoding="utf-8")
        return BuildOutcome("ok", 0.0, None, log_path, command)
    return run_commands((command,), API_SERVICE_DIR, environment_for(["go"], None), 600, log_path)


def local_build_key(spec: ServerSpec) -> Hashable:
    """Servers with the same key share one build here: variants of one directory with the same commands."""
    return (spec.directory, spec.build_commands)


def longest_first(specs: Iterable[ServerSpec]) -> list[ServerSpec]:
    """The order builds start in: the longest expected first ([build] expected_s), so that the last one to start
    is not left running alone at the end."""
    return sorted(specs, key=lambda spec: -spec.build_expected_s)


def build_each(specs: Iterable[ServerSpec], build: Callable[[ServerSpec], BuildOutcome],
               key: Callable[[ServerSpec], Hashable] = local_build_key,
               workers: int = BUILD_WORKERS) -> Iterator[tuple[ServerSpec, BuildOutcome]]:
    """(spec, outcome) of every server as its build finishes: one `build` per key (servers that share a build
    get its outcome when it finishes), `workers` at a time, longest first."""
    by_key: dict[Hashable, list[ServerSpec]] = {}
    for spec in longest_first(specs):
        by_key.setdefault(key(spec), []).append(spec)
    jobs = [(shared, partial(build, members[0])) for shared, members in by_key.items()]
    for shared, outcome in build_concurrently(jobs, workers):
        yield from ((spec, outcome) for spec in by_key[shared])


def build_concurrently(jobs: Sequence[tuple[K, Callable[[], BuildOutcome]]],
                       workers: int = BUILD_WORKERS) -> Iterator[tuple[K, BuildOutcome]]:
    """(key, outcome) of each job as it finishes, `workers` at a time, started in the order given. An interrupt
    kills the builds still running before it goes on."""
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(job): key for key, job in jobs}
        try:
            for future in as_completed(futures):
                yield futures[future], future.result()
        except BaseException:
            for future in futures:
                future.cancel()
            cancel_running()
            raise

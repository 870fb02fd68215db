"""Building the API service and the servers with each manifest's own build command."""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

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

    def record(self) -> dict[str, object]:
        """build.json (mcpbench.model.Build), checked against the model before it is written."""
        return model.Build(status=self.status, seconds=round(self.seconds, 2), reason=self.reason,
                           log=self.log_path.name if self.log_path else None,
                           command=self.command).model_dump()


def run_commands(commands: tuple[str, ...], cwd: Path, env: dict[str, str], timeout_s: float,
         log_path: Path) -> BuildOutcome:
    started = time.monotonic()
    joined = " && ".join(commands)  # each runs only when the one before succeeded
    with open(log_path, "w", encoding="utf-8") as log:
        for command in commands:
            log.write(f"$ {command}\n")
            log.flush()
            try:
                # Own session so a timeout kills the whole build tree, not just bash.
                done = subprocess.run(["bash", "-euo", "pipefail", "-c", command], cwd=cwd, env=env,
                                      stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                      timeout=timeout_s, start_new_session=True)
            except subprocess.TimeoutExpired:
                return BuildOutcome("failed", time.monotonic() - started,
                                    f"build timed out after {timeout_s:g} s: {command}", log_path, joined)
            if done.returncode != 0:
                tail = "\n".join(log_path.read_text(errors="replace").splitlines()[-15:])
                return BuildOutcome("failed", time.monotonic() - started,
                                    f"`{command}` exited {done.returncode}:\n{tail}", log_path, joined)
    return BuildOutcome("ok", time.monotonic() - started, None, log_path, joined)


def build_server(spec: ServerSpec, log_path: Path) -> BuildOutcome:
    try:
        env = environment_for(spec.info.requires, spec.info.jdk)
    except MissingRequirement as exc:
        return BuildOutcome("skipped", 0.0, str(exc), None)
    if not spec.build_commands:
        return BuildOutcome("ok", 0.0, None, None)
    return run_commands(spec.build_commands, spec.directory, env, spec.build_timeout_s, log_path)


def build_api_service(log_path: Path) -> BuildOutcome:
    API_SERVICE_BIN.parent.mkdir(parents=True, exist_ok=True)
    command = f"go build -trimpath -o {API_SERVICE_BIN} ."
    return run_commands((command,), API_SERVICE_DIR, environment_for(["go"], None), 600, log_path)

"""Every discovered server: built with its manifest's command, started under limits, and verified
against real Redis and the real API service. MCPBENCH_TEST_SERVERS=a,b narrows the set."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mcpbench import cgroups
from mcpbench.build import BuildOutcome, build_server
from mcpbench.config import resource_profile
from mcpbench.infra import Infra
from mcpbench.manifest import ServerSpec, discover
from mcpbench.paths import SERVERS_DIR
from mcpbench.runtime.local import LocalRuntime
from mcpbench.suite import server_environment
from mcpbench.toolchain import MissingRequirement
from mcpbench.verify import verify

pytestmark = pytest.mark.integration


def _selected() -> list[ServerSpec]:
    specs = discover(SERVERS_DIR).servers
    wanted = os.environ.get("MCPBENCH_TEST_SERVERS")
    if wanted:
        names = {n.strip() for n in wanted.split(",") if n.strip()}
        specs = [s for s in specs if s.name in names]
    return specs


_builds: dict[tuple, BuildOutcome] = {}


def _build(spec: ServerSpec, log_dir: Path) -> BuildOutcome:
    key = (spec.directory, spec.build_commands)
    if key not in _builds:
        _builds[key] = build_server(spec, log_dir / f"{spec.name}-build.log")
    return _builds[key]


@pytest.mark.parametrize("spec", _selected(), ids=lambda s: s.name)
def test_server_builds_starts_under_limits_and_passes_verify(spec: ServerSpec, infra: Infra, tmp_path: Path) -> None:
    outcome = _build(spec, tmp_path)
    if outcome.status == "skipped":
        pytest.skip(outcome.reason or "toolchain missing")
    assert outcome.status == "ok", outcome.reason
    profile = resource_profile()
    try:
        env = server_environment(spec, infra, profile)
    except MissingRequirement as exc:
        pytest.skip(str(exc))
    infra.reset()
    runtime = LocalRuntime(profile, cgroups.detect())
    server = runtime.start(spec, env, tmp_path / "server.log")
    try:
        verdict = verify(server.url, spec.name)
        failures = [f"{c.name}: {c.reason}" for c in verdict.failures()]
        assert verdict.status != "fail", failures
        assert server.alive(), server.log_tail()
        usage = server.usage()
        assert usage is not None and usage.memory_bytes > 0
    finally:
        server.stop()
